/* notify.c - the receiver table and NOTIFY batching (notify.h).
 *
 * The table is set-associative (RCV_SETS sets of RCV_WAYS entries): a
 * lookup touches at most RCV_WAYS entries, there is no rehashing, and when
 * a set is full its least recently used entry is reused (after its open
 * datagram is sent). Reusing an entry restarts that receiver's sequence
 * numbers: with a few hundred entries this only happens with more active
 * receivers than the table holds, and it is counted. */
#include <stdlib.h>
#include <string.h>

#include "infra/counters.h"
#include "net/notify.h"
#include "proto/spate_err.h"
#include "proto/spate_proto.h"

#define RCV_SETS 64
#define RCV_WAYS 4

struct match_pair {
	struct spate_dest dest;
	uint64_t id;
};

struct receiver {
	struct spate_dest dest;
	int used;
	int open; /* w holds NOTIFY messages not yet sent */
	uint32_t next_seq;
	uint64_t last_use; /* notifier tick of the last lookup: LRU */
	struct spate_writer w;
	uint8_t *buf; /* max_payload bytes */
};

struct notifier {
	size_t max_payload;
	uint32_t max_messages;
	spated_send_fn send;
	void *ctx;
	uint64_t tick;
	struct receiver rcv[RCV_SETS * RCV_WAYS];
	/* receivers with an open datagram, so flush does not scan the table */
	struct receiver *open_list[RCV_SETS * RCV_WAYS];
	size_t n_open;
	/* scratch of notifier_add_matches */
	struct match_pair *pairs;
	uint64_t *ids;
	size_t cap;
};

struct notifier *notifier_create(size_t max_payload, uint32_t max_messages, spated_send_fn send,
				 void *ctx)
{
	struct notifier *n = calloc(1, sizeof(*n));
	uint8_t *bufs;

	if (n == NULL)
		return NULL;
	bufs = malloc(max_payload * RCV_SETS * RCV_WAYS);
	if (bufs == NULL) {
		free(n);
		return NULL;
	}
	n->max_payload = max_payload;
	n->max_messages = max_messages;
	n->send = send;
	n->ctx = ctx;
	for (size_t i = 0; i < RCV_SETS * RCV_WAYS; i++)
		n->rcv[i].buf = bufs + i * max_payload;
	return n;
}

void notifier_destroy(struct notifier *n)
{
	if (n == NULL)
		return;
	free(n->rcv[0].buf);
	free(n->pairs);
	free(n->ids);
	free(n);
}

static unsigned int dest_set(struct spate_dest d)
{
	/* Multiplicative hashing; the top bits are the best mixed. */
	uint32_t h = (d.ipv4 ^ ((uint32_t)d.port << 16 | d.port)) * 2654435761u;
	return h >> 26; /* 6 bits: RCV_SETS == 64 */
}

/* Stamp the seq (header offset 12, big-endian; spate_proto.h) when the
 * datagram leaves rather than when it is started: replies leave at once
 * and notifications at the end of the burst, and the receiver must see
 * seqs increase in the order datagrams are sent. */
static void stamp(struct receiver *r, uint8_t *buf)
{
	uint32_t seq = r->next_seq++;

	buf[12] = (uint8_t)(seq >> 24);
	buf[13] = (uint8_t)(seq >> 16);
	buf[14] = (uint8_t)(seq >> 8);
	buf[15] = (uint8_t)seq;
}

static void send_stamped(struct notifier *n, struct receiver *r, uint8_t *buf, size_t len)
{
	stamp(r, buf);
	n->send(n->ctx, r->dest, buf, len);
}

static void close_datagram(struct notifier *n, struct receiver *r)
{
	size_t len = spate_writer_finish(&r->w);

	r->open = 0;
	spated_cnt.notify_dgrams++;
	send_stamped(n, r, r->buf, len);
}

static struct receiver *receiver_get(struct notifier *n, struct spate_dest d)
{
	struct receiver *set = &n->rcv[dest_set(d) * RCV_WAYS];
	struct receiver *victim = NULL;

	n->tick++;
	for (int i = 0; i < RCV_WAYS; i++) {
		struct receiver *r = &set[i];
		if (r->used && r->dest.ipv4 == d.ipv4 && r->dest.port == d.port) {
			r->last_use = n->tick;
			return r;
		}
		if (victim == NULL || !r->used || (victim->used && r->last_use < victim->last_use))
			victim = r;
	}
	if (victim->used) {
		spated_cnt.receiver_evicted++;
		if (victim->open) {
			close_datagram(n, victim);
			/* drop it from the open list */
			for (size_t i = 0; i < n->n_open; i++)
				if (n->open_list[i] == victim) {
					n->open_list[i] = n->open_list[--n->n_open];
					break;
				}
		}
	}
	victim->used = 1;
	victim->open = 0;
	victim->dest = d;
	victim->next_seq = 1;
	victim->last_use = n->tick;
	return victim;
}

static void open_datagram(struct notifier *n, struct receiver *r)
{
	spate_writer_init(&r->w, r->buf, n->max_payload, SPATE_FLAG_SERVER, 0, 0);
	if (!r->open)
		n->open_list[n->n_open++] = r;
	r->open = 1;
}

/* Send r's open datagram and start the next one (it stays on the open
 * list). An empty one is not sent: receivers refuse a count of 0, and it
 * is empty only when max_payload fits not even the message at hand. */
static void next_datagram(struct notifier *n, struct receiver *r)
{
	if (r->w.count > 0)
		close_datagram(n, r);
	r->open = 1;
	spate_writer_init(&r->w, r->buf, n->max_payload, SPATE_FLAG_SERVER, 0, 0);
}

void notifier_reply(struct notifier *n, struct spate_dest to, uint8_t req_type, int code,
		    uint32_t req_seq, uint64_t id)
{
	struct receiver *r = receiver_get(n, to);

	for (int attempt = 0; attempt < 2; attempt++) {
		if (!r->open)
			open_datagram(n, r);
		else if (r->w.count >= n->max_messages)
			next_datagram(n, r);
		int rc = code == 0 ? spate_put_ack(&r->w, req_type, req_seq, id)
				   : spate_put_nack(&r->w, req_type, (uint8_t)code, req_seq, id);
		if (rc == 0) {
			if (code == 0)
				spated_cnt.acks++;
			else
				spated_cnt.nacks++;
			return;
		}
		next_datagram(n, r); /* full: send what we have, retry */
	}
}

void notifier_add(struct notifier *n, struct spate_dest to, uint64_t event_id, const uint64_t *ids,
		  size_t count)
{
	struct receiver *r = receiver_get(n, to);

	while (count > 0) {
		uint16_t room;

		if (!r->open)
			open_datagram(n, r);
		room = spate_notify_room(&r->w);
		if (room == 0 || r->w.count >= n->max_messages) {
			next_datagram(n, r); /* full: send it, start the next */
			room = spate_notify_room(&r->w);
			if (room == 0)
				return; /* cannot happen: max_payload >= 548 */
		}
		uint16_t k = count < room ? (uint16_t)count : room;
		if (spate_put_notify(&r->w, event_id, ids, k) != 0)
			return; /* room said it fits; defensive */
		spated_cnt.notify_msgs++;
		spated_cnt.notifications += k;
		ids += k;
		count -= k;
	}
}

void notifier_send(struct notifier *n, struct spate_dest to, uint8_t *buf, size_t len)
{
	send_stamped(n, receiver_get(n, to), buf, len);
}

void notifier_stamp(struct notifier *n, struct spate_dest to, uint8_t *buf)
{
	stamp(receiver_get(n, to), buf);
}

static int grow(struct notifier *n, size_t k)
{
	if (k <= n->cap)
		return 0;
	size_t cap = n->cap ? n->cap : 64;
	while (cap < k)
		cap *= 2;
	struct match_pair *p = realloc(n->pairs, cap * sizeof(*p));
	if (p == NULL)
		return -1;
	n->pairs = p;
	uint64_t *ids = realloc(n->ids, cap * sizeof(*ids));
	if (ids == NULL)
		return -1;
	n->ids = ids;
	n->cap = cap;
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct match_pair *x = a, *y = b;

	if (x->dest.ipv4 != y->dest.ipv4)
		return x->dest.ipv4 < y->dest.ipv4 ? -1 : 1;
	if (x->dest.port != y->dest.port)
		return x->dest.port < y->dest.port ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int notifier_add_matches(struct notifier *n, uint64_t event_id, const struct spate_matchvec *mv)
{
	size_t k = mv->n;

	if (k == 0)
		return 0;
	if (grow(n, k) != 0)
		return -SPATE_E_NO_MEMORY;
	for (size_t i = 0; i < k; i++) {
		n->pairs[i].dest = mv->v[i]->dest;
		n->pairs[i].id = mv->v[i]->id;
	}
	/* by destination, then id: one NOTIFY run per receiver, ids ascending */
	qsort(n->pairs, k, sizeof(n->pairs[0]), pair_cmp);
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && n->pairs[j].dest.ipv4 == n->pairs[i].dest.ipv4 &&
		       n->pairs[j].dest.port == n->pairs[i].dest.port) {
			n->ids[j - i] = n->pairs[j].id;
			j++;
		}
		notifier_add(n, n->pairs[i].dest, event_id, n->ids, j - i);
		i = j;
	}
	return 0;
}

void notifier_flush(struct notifier *n)
{
	for (size_t i = 0; i < n->n_open; i++) {
		struct receiver *r = n->open_list[i];
		if (r->open && r->w.count > 0)
			close_datagram(n, r);
		r->open = 0;
	}
	n->n_open = 0;
}
