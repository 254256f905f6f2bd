/* test_app_notify.c - the notifier (app/net/notify.c), without DPDK: what is
 * sent is captured from its send callback and decoded with the codec.
 * NOTIFYs are packed per receiver until a flush, split over messages and
 * datagrams within the payload and message limits with every id kept in
 * order; replies share the open datagram; each receiver has its own
 * sequence from 1; matches are grouped by destination, ids ascending; a
 * receiver evicted from a full set has its open datagram sent first.
 * Allocations are tracked (alloc_track.h): a notifier that cannot be
 * made or cannot grow its match scratch fails cleanly and leaks nothing,
 * and destroying one frees every block it had. */
#include <stdlib.h>
#include <string.h>

#include "alloc_track.h"
#include "check.h"
#include "infra/counters.h"
#include "net/notify.h"
#include "proto/spate_proto.h"

#define MAXD 4096

struct sent {
	struct spate_dest to;
	uint8_t buf[2048];
	size_t len;
};

static struct sent *out;
static unsigned int n_out;
static struct spate_limits lim;
static unsigned int max_msgs = 64; /* the notifier's message limit now */

static void capture(void *ctx, struct spate_dest to, const void *buf, size_t len)
{
	CHECK(ctx == &n_out);
	CHECK(len <= sizeof(out[0].buf));
	if (n_out < MAXD && len <= sizeof(out[0].buf)) {
		out[n_out].to = to;
		memcpy(out[n_out].buf, buf, len);
		out[n_out].len = len;
	}
	n_out++;
}

static uint32_t seq_of(const struct sent *s)
{
	struct spate_hdr h;

	CHECK_EQ_INT(spate_hdr_decode(s->buf, s->len, &lim, &h), 0);
	CHECK_EQ_INT(h.flags, SPATE_FLAG_SERVER);
	CHECK_EQ_INT(h.client_id, 0); /* the server speaks as nobody's client */
	CHECK(h.count >= 1);          /* an empty datagram is refused (count 0) */
	CHECK(h.count <= max_msgs);   /* nor one over the receivers' limit */
	return h.seq;
}

/* Every message of datagram s, decoded (at most max). */
static unsigned int msgs_of(const struct sent *s, struct spate_msg *m, unsigned int max)
{
	struct spate_hdr h;
	struct spate_reader r;
	unsigned int n = 0;

	if (spate_hdr_decode(s->buf, s->len, &lim, &h) != 0)
		return 0;
	CHECK(h.count <= max_msgs);
	spate_reader_init(&r, s->buf, s->len, &h);
	while (n < max && spate_reader_next(&r, &lim, &m[n]) == 1)
		n++;
	CHECK_EQ_INT(n, h.count);
	return n;
}

static void test_pack(void)
{
	struct notifier *nt = notifier_create(1472, 64, capture, &n_out);
	struct spate_dest a = { 0x0a000002, 5000 }, b = { 0x0a000003, 5000 };
	uint64_t ids[3] = { 30, 10, 20 };
	struct spate_msg m[64];
	struct spated_counters before, now;

	spated_counters_sum(&before);
	n_out = 0;
	notifier_add(nt, a, 1, ids, 3);
	notifier_add(nt, b, 1, ids, 1);
	notifier_add(nt, a, 2, ids + 1, 2);
	notifier_reply(nt, a, SPATE_MSG_SUB_ADD, 0, 77, 9);
	notifier_reply(nt, a, SPATE_MSG_SUB_DEL, SPATE_E_UNKNOWN_ID, 78, 10);
	CHECK_EQ_INT(n_out, 0); /* nothing before the flush */
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 2);
	spated_counters_sum(&now);
	CHECK_EQ_INT(now.notify_msgs - before.notify_msgs, 3);
	CHECK_EQ_INT(now.notifications - before.notifications, 6);
	CHECK_EQ_INT(now.notify_dgrams - before.notify_dgrams, 2);
	CHECK_EQ_INT(now.acks - before.acks, 1);
	CHECK_EQ_INT(now.nacks - before.nacks, 1);
	struct sent *sa = out[0].to.ipv4 == a.ipv4 ? &out[0] : &out[1];
	struct sent *sb = sa == &out[0] ? &out[1] : &out[0];
	CHECK_EQ_INT(sa->to.port, 5000);
	CHECK_EQ_INT(seq_of(sa), 1);
	CHECK_EQ_INT(seq_of(sb), 1);
	unsigned int k = msgs_of(sa, m, 64);
	CHECK_EQ_INT(k, 4);
	if (k == 4) {
		CHECK_EQ_INT(m[0].type, SPATE_MSG_NOTIFY);
		CHECK_EQ_INT(m[0].u.notify.event_id, 1);
		CHECK_EQ_INT(m[0].u.notify.n_subs, 3);
		CHECK_EQ_INT(spate_notify_id(&m[0].u.notify, 0), 30);
		CHECK_EQ_INT(spate_notify_id(&m[0].u.notify, 2), 20);
		CHECK_EQ_INT(m[1].u.notify.event_id, 2);
		CHECK_EQ_INT(m[1].u.notify.n_subs, 2);
		CHECK_EQ_INT(m[2].type, SPATE_MSG_ACK);
		CHECK_EQ_INT(m[2].u.ack.req_type, SPATE_MSG_SUB_ADD);
		CHECK_EQ_INT(m[2].u.ack.req_seq, 77);
		CHECK_EQ_INT(m[2].u.ack.id, 9);
		CHECK_EQ_INT(m[3].type, SPATE_MSG_NACK);
		CHECK_EQ_INT(m[3].u.ack.code, SPATE_E_UNKNOWN_ID);
		CHECK_EQ_INT(m[3].u.ack.req_seq, 78);
		CHECK_EQ_INT(m[3].u.ack.id, 10);
	}
	CHECK_EQ_INT(msgs_of(sb, m, 64), 1);
	/* the next datagram to a: seq 2; to a new port of a's address: 1 */
	n_out = 0;
	notifier_add(nt, a, 3, ids, 1);
	notifier_add(nt, (struct spate_dest){ a.ipv4, 5001 }, 3, ids, 1);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 2);
	CHECK_EQ_INT(seq_of(&out[0]), out[0].to.port == 5000 ? 2 : 1);
	CHECK_EQ_INT(seq_of(&out[1]), out[1].to.port == 5000 ? 2 : 1);
	/* a flush with nothing open sends nothing */
	n_out = 0;
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 0);
	/* notifier_send stamps and sends at once */
	uint8_t buf[64];
	struct spate_writer w;
	spate_writer_init(&w, buf, sizeof(buf), SPATE_FLAG_SERVER, 0, 0);
	CHECK_EQ_INT(spate_put_ack(&w, SPATE_MSG_SUB_ADD, 5, 6), 0);
	size_t len = spate_writer_finish(&w);
	notifier_send(nt, b, buf, len);
	CHECK_EQ_INT(n_out, 1);
	CHECK_EQ_INT(seq_of(&out[0]), 2);
	/* a stamp far along: the sequence's four bytes, big-endian */
	for (int i = 0; i < 300; i++)
		notifier_stamp(nt, b, buf);
	CHECK_EQ_INT(buf[12], 0);
	CHECK_EQ_INT(buf[13], 0);
	CHECK_EQ_INT(buf[14], 1);
	CHECK_EQ_INT(buf[15], 46); /* 302 = 0x12e */
	/* every byte of the sequence in its place: 0x01020304 */
	for (uint32_t i = 302; i < 0x01020304; i++)
		notifier_stamp(nt, b, buf);
	CHECK_EQ_INT(buf[12], 1);
	CHECK_EQ_INT(buf[13], 2);
	CHECK_EQ_INT(buf[14], 3);
	CHECK_EQ_INT(buf[15], 4);
	notifier_destroy(nt);
}

/* Many ids, small datagrams: split over messages and datagrams, each
 * within the limits, every id once and in order. */
static void test_split(void)
{
	struct notifier *nt = notifier_create(200, 2, capture, &n_out);
	struct spate_dest a = { 0x0a000002, 6000 };
	uint64_t ids[500];
	struct spate_msg m[8];

	max_msgs = 2;

	for (int i = 0; i < 500; i++)
		ids[i] = 1000 + (uint64_t)i;
	n_out = 0;
	notifier_add(nt, a, 42, ids, 500);
	notifier_flush(nt);
	CHECK(n_out > 1);
	uint64_t next = 1000;
	for (unsigned int d = 0; d < n_out && d < MAXD; d++) {
		CHECK(out[d].len <= 200);
		CHECK_EQ_INT(seq_of(&out[d]), d + 1);
		unsigned int k = msgs_of(&out[d], m, 8);
		CHECK(k >= 1 && k <= 2);
		for (unsigned int i = 0; i < k; i++) {
			CHECK_EQ_INT(m[i].u.notify.event_id, 42);
			for (uint16_t j = 0; j < m[i].u.notify.n_subs; j++)
				if (spate_notify_id(&m[i].u.notify, j) == next)
					next++;
				else
					check_failed();
		}
	}
	CHECK_EQ_INT(next, 1500);
	/* small NOTIFYs: the message limit, not the payload, starts the next
	 * datagram; a reply too (N N | N ACK | NACK) */
	struct spated_counters before, now;
	spated_counters_sum(&before);
	n_out = 0;
	for (int i = 0; i < 3; i++)
		notifier_add(nt, a, 50 + (uint64_t)i, ids, 1);
	notifier_reply(nt, a, SPATE_MSG_SUB_ADD, 0, 1, 2);
	notifier_reply(nt, a, SPATE_MSG_SUB_DEL, SPATE_E_NOT_OWNER, 3, 4);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 3);
	static const uint8_t types[3][2] = { { SPATE_MSG_NOTIFY, SPATE_MSG_NOTIFY },
					     { SPATE_MSG_NOTIFY, SPATE_MSG_ACK },
					     { SPATE_MSG_NACK, 0 } };
	for (unsigned int d = 0; d < n_out && d < 3; d++) {
		unsigned int k = msgs_of(&out[d], m, 8);
		CHECK_EQ_INT(k, d < 2 ? 2 : 1);
		for (unsigned int i = 0; i < k && i < 2; i++)
			CHECK_EQ_INT(m[i].type, types[d][i]);
	}
	spated_counters_sum(&now);
	CHECK_EQ_INT(now.notify_dgrams - before.notify_dgrams, 3);
	CHECK_EQ_INT(now.notify_msgs - before.notify_msgs, 3);
	max_msgs = 64;
	notifier_destroy(nt);
}

/* Replies: one to a receiver with nothing open yet is sent at the flush;
 * one that does not fit the open datagram starts the next; ACKs and NACKs
 * are counted apart. */
static void test_replies(void)
{
	struct notifier *nt = notifier_create(1472, 64, capture, &n_out);
	struct spate_dest a = { 0x0a000002, 5000 }, b = { 0x0a000004, 5000 };
	static uint64_t ids[180];
	struct spate_msg m[4];
	struct spated_counters before, now;

	for (int i = 0; i < 180; i++)
		ids[i] = (uint64_t)i + 1;
	spated_counters_sum(&before);
	n_out = 0;
	notifier_reply(nt, b, SPATE_MSG_SUB_ADD, 0, 11, 12);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 1);
	CHECK_EQ_INT(out[0].to.ipv4, b.ipv4);
	CHECK_EQ_INT(msgs_of(&out[0], m, 4), 1);
	CHECK_EQ_INT(m[0].u.ack.req_seq, 11);
	/* 180 ids fill 1472 bytes to the last (16 + 16 + 1440) */
	n_out = 0;
	notifier_add(nt, a, 1, ids, 180);
	notifier_reply(nt, a, SPATE_MSG_SUB_ADD, 0, 21, 22);
	notifier_reply(nt, a, SPATE_MSG_SUB_ADD, 0, 23, 24);
	CHECK_EQ_INT(n_out, 1); /* the full one went at once */
	CHECK_EQ_INT(out[0].len, 1472);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 2);
	CHECK_EQ_INT(msgs_of(&out[0], m, 4), 1);
	CHECK_EQ_INT(m[0].u.notify.n_subs, 180);
	CHECK_EQ_INT(msgs_of(&out[1], m, 4), 2);
	CHECK_EQ_INT(m[0].type, SPATE_MSG_ACK);
	CHECK_EQ_INT(m[0].u.ack.req_seq, 21);
	CHECK_EQ_INT(m[1].u.ack.req_seq, 23);
	CHECK_EQ_INT(seq_of(&out[1]), 2);
	spated_counters_sum(&now);
	CHECK_EQ_INT(now.acks - before.acks, 3);
	CHECK_EQ_INT(now.nacks - before.nacks, 0);
	notifier_destroy(nt);
}

/* One event's matches: one NOTIFY run per destination, ids ascending. */
static void test_matches(void)
{
	struct notifier *nt = notifier_create(1472, 64, capture, &n_out);
	struct spate_sub subs[5];
	static const struct {
		uint64_t id;
		uint32_t ip;
		uint16_t port;
	} def[] = {
		{ 9, 0x0a000002, 7000 }, { 3, 0x0a000003, 7000 }, { 5, 0x0a000002, 7000 },
		{ 1, 0x0a000002, 7001 }, { 4, 0x0a000002, 7000 },
	};
	struct spate_matchvec mv = { 0 };
	struct spate_msg m[8];

	for (int i = 0; i < 5; i++) {
		memset(&subs[i], 0, sizeof(subs[i]));
		subs[i].id = def[i].id;
		subs[i].dest = (struct spate_dest){ def[i].ip, def[i].port };
		CHECK_EQ_INT(spate_matchvec_push(&mv, &subs[i]), 0);
	}
	n_out = 0;
	CHECK_EQ_INT(notifier_add_matches(nt, 77, &mv), 0);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 3);
	for (unsigned int d = 0; d < n_out && d < 3; d++) {
		unsigned int k = msgs_of(&out[d], m, 8);
		CHECK_EQ_INT(k, 1);
		const struct spate_notify *no = &m[0].u.notify;
		CHECK_EQ_INT(no->event_id, 77);
		if (out[d].to.ipv4 == 0x0a000002 && out[d].to.port == 7000) {
			CHECK_EQ_INT(no->n_subs, 3);
			CHECK_EQ_INT(spate_notify_id(no, 0), 4);
			CHECK_EQ_INT(spate_notify_id(no, 1), 5);
			CHECK_EQ_INT(spate_notify_id(no, 2), 9);
		} else {
			CHECK_EQ_INT(no->n_subs, 1);
			CHECK_EQ_INT(spate_notify_id(no, 0), out[d].to.port == 7001 ? 1 : 3);
		}
	}
	/* one match: one NOTIFY of one id (and nothing of the last call's) */
	mv.n = 1;
	n_out = 0;
	CHECK_EQ_INT(notifier_add_matches(nt, 79, &mv), 0);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 1);
	CHECK_EQ_INT(msgs_of(&out[0], m, 8), 1);
	CHECK_EQ_INT(m[0].u.notify.event_id, 79);
	CHECK_EQ_INT(m[0].u.notify.n_subs, 1);
	CHECK_EQ_INT(spate_notify_id(&m[0].u.notify, 0), 9);
	mv.n = 0;
	n_out = 0;
	CHECK_EQ_INT(notifier_add_matches(nt, 78, &mv), 0);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 0);
	spate_matchvec_free(&mv);
	notifier_destroy(nt);
}

/* More receivers than the table holds: evicted ones have their open
 * datagram sent at once, nothing is lost, evictions are counted. */
static void test_evict(void)
{
	struct notifier *nt = notifier_create(1472, 64, capture, &n_out);
	uint64_t id = 5;
	struct spated_counters before, now;

	spated_counters_sum(&before);
	n_out = 0;
	for (uint32_t i = 0; i < 1000; i++)
		notifier_add(nt, (struct spate_dest){ 0x0b000000 + i, 9000 }, i, &id, 1);
	notifier_flush(nt);
	spated_counters_sum(&now);
	CHECK_EQ_INT(n_out, 1000);
	CHECK(now.receiver_evicted - before.receiver_evicted >= 1000 - 64 * 4);
	CHECK_EQ_INT(now.notify_dgrams - before.notify_dgrams, 1000);
	/* every receiver got its own event once */
	static unsigned char seen[1000];
	memset(seen, 0, sizeof(seen));
	for (unsigned int d = 0; d < n_out && d < MAXD; d++) {
		struct spate_msg m[2];
		CHECK_EQ_INT(msgs_of(&out[d], m, 2), 1);
		uint32_t i = out[d].to.ipv4 - 0x0b000000;
		CHECK(i < 1000 && m[0].u.notify.event_id == i);
		if (i < 1000)
			seen[i]++;
	}
	for (int i = 0; i < 1000; i++)
		CHECK_EQ_INT(seen[i], 1);
	/* a receiver used recently is kept (LRU): its sequence goes on */
	struct spate_dest hot = { 0x0c000001, 9000 };
	n_out = 0;
	notifier_add(nt, hot, 1, &id, 1);
	notifier_flush(nt);
	for (uint32_t i = 0; i < 200; i++) {
		notifier_add(nt, hot, 1, &id, 1);
		notifier_add(nt, (struct spate_dest){ 0x0d000000 + i, 9000 }, 1, &id, 1);
		notifier_flush(nt);
	}
	uint32_t last = 0;
	for (unsigned int d = 0; d < n_out && d < MAXD; d++)
		if (out[d].to.ipv4 == hot.ipv4)
			last = seq_of(&out[d]);
	CHECK_EQ_INT(last, 201);
	notifier_destroy(nt);
}

/* ---- the receiver table: its sets, found from outside ---- */

static uint64_t evictions(void)
{
	struct spated_counters c;

	spated_counters_sum(&c);
	return c.receiver_evicted;
}

/* One NOTIFY to d, flushed: the sequence number it went out with. */
static uint32_t touch(struct notifier *nt, struct spate_dest d)
{
	uint64_t id = 1;

	n_out = 0;
	notifier_add(nt, d, 1, &id, 1);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 1);
	return n_out == 1 ? seq_of(&out[0]) : 0;
}

/* Does touching v[0..n) but v[skip], in order, on a new table evict? */
static bool evicts(const struct spate_dest *v, int n, int skip)
{
	struct notifier *nt = notifier_create(64, 64, capture, &n_out);
	uint64_t e0 = evictions();

	for (int i = 0; i < n; i++)
		if (i != skip)
			touch(nt, v[i]);
	notifier_destroy(nt);
	return evictions() != e0;
}

/* Receivers are kept in sets of 4, the least recently used one reused.
 * The test finds a set from outside: receivers are added until one is
 * evicted; the set's members are those without which that does not
 * happen. There are exactly 4, and the LRU order of their sequence
 * numbers is checked step by step. And 128 receivers of consecutive
 * addresses (a /25 of clients) are all kept. */
static void test_sets(void)
{
	enum { N = 300 };
	static struct spate_dest d[N];
	int m, set[8], ns = 0;

	check_rng = 77;
	for (int i = 0; i < N; i++)
		d[i] = (struct spate_dest){ (uint32_t)check_rand(), 6000 };
	for (m = 1; m <= N; m++)
		if (evicts(d, m, -1))
			break;
	CHECK(m <= 257); /* 256 entries */
	if (m > N)
		return;
	m--; /* d[m] is the receiver that evicts */
	for (int c = 0; c < m; c++)
		if (!evicts(d, m + 1, c) && ns < 8)
			set[ns++] = c;
	CHECK_EQ_INT(ns, 4);
	if (ns != 4)
		return;
	struct spate_dest s0 = d[set[0]], s1 = d[set[1]], s2 = d[set[2]], s3 = d[set[3]];
	struct spate_dest x = d[m];
	struct notifier *nt = notifier_create(64, 64, capture, &n_out);
	uint64_t e0 = evictions();
	CHECK_EQ_INT(touch(nt, s0), 1);
	CHECK_EQ_INT(touch(nt, s1), 1);
	CHECK_EQ_INT(touch(nt, s2), 1);
	CHECK_EQ_INT(touch(nt, s3), 1);
	CHECK_EQ_INT(touch(nt, s0), 2); /* LRU now: s1 */
	CHECK_EQ_INT(evictions() - e0, 0);
	CHECK_EQ_INT(touch(nt, x), 1); /* s1 goes */
	CHECK_EQ_INT(evictions() - e0, 1);
	CHECK_EQ_INT(touch(nt, s0), 3);
	CHECK_EQ_INT(touch(nt, s2), 2); /* LRU now: s3 (x came after it) */
	CHECK_EQ_INT(touch(nt, s1), 1); /* s3 goes */
	CHECK_EQ_INT(evictions() - e0, 2);
	CHECK_EQ_INT(touch(nt, x), 2);
	CHECK_EQ_INT(touch(nt, s0), 4);
	CHECK_EQ_INT(touch(nt, s2), 3);
	CHECK_EQ_INT(touch(nt, s1), 2);
	CHECK_EQ_INT(evictions() - e0, 2);
	CHECK_EQ_INT(touch(nt, s3), 1); /* back, in x's place */
	CHECK_EQ_INT(touch(nt, s1), 3);
	CHECK_EQ_INT(touch(nt, x), 1);
	CHECK_EQ_INT(evictions() - e0, 4);
	notifier_destroy(nt);
	/* 128 clients of one subnet */
	for (int i = 0; i < 128; i++)
		d[i] = (struct spate_dest){ 0x0a000001u + (uint32_t)i, 5000 };
	CHECK(!evicts(d, 128, -1));
}

/* Every allocation of notifier_create failing in turn: NULL, nothing
 * leaked. A match scratch that cannot grow: -SPATE_E_NO_MEMORY, nothing
 * queued, and the notifier goes on working; one that has grown is
 * reused. notifier_destroy frees every block. */
static void test_alloc(void)
{
	long live0 = n_live;
	struct notifier *nt = NULL;
	long k;

	for (k = 1; k < 10 && nt == NULL; k++) {
		allocs = 0;
		fail_at = k;
		nt = notifier_create(1472, 64, capture, &n_out);
		fail_at = 0;
		if (nt == NULL)
			CHECK_EQ_INT(n_live, live0);
	}
	CHECK_EQ_INT(k, 4); /* the third allocation is not one of create's */
	if (nt == NULL)
		return;

	/* 600 matches of three receivers, in no order */
	enum { N = 600 };
	static struct spate_sub subs[N];
	struct spate_matchvec mv = { 0 };
	for (int i = 0; i < N; i++) {
		memset(&subs[i], 0, sizeof(subs[i]));
		subs[i].id = (uint64_t)((i * 7919) % N) + 1;
		subs[i].dest =
			(struct spate_dest){ 0x0a000010u + (uint32_t)(subs[i].id % 3), 7000 };
		CHECK_EQ_INT(spate_matchvec_push(&mv, &subs[i]), 0);
	}
	/* the pairs, then the ids cannot grow */
	for (k = 1; k <= 2; k++) {
		n_out = 0;
		allocs = 0;
		fail_at = k;
		CHECK_EQ_INT(notifier_add_matches(nt, 5, &mv), -SPATE_E_NO_MEMORY);
		fail_at = 0;
		notifier_flush(nt);
		CHECK_EQ_INT(n_out, 0);
	}
	for (int round = 0; round < 2; round++) {
		n_out = 0;
		allocs = 0;
		CHECK_EQ_INT(notifier_add_matches(nt, 6 + (uint64_t)round, &mv), 0);
		if (round == 1)
			CHECK_EQ_INT(allocs, 0); /* grown once, reused */
		notifier_flush(nt);
		/* each receiver its 200 ids, ascending, over as many messages
		 * and datagrams as it takes */
		uint64_t next[3] = { 3, 1, 2 }; /* the next id each receiver must see */
		for (unsigned int d = 0; d < n_out && d < MAXD; d++) {
			static struct spate_msg m[64];
			unsigned int r = out[d].to.ipv4 - 0x0a000010u;
			CHECK(r < 3 && out[d].to.port == 7000);
			unsigned int nm = msgs_of(&out[d], m, 64);
			for (unsigned int i = 0; i < nm && r < 3; i++) {
				CHECK_EQ_INT(m[i].type, SPATE_MSG_NOTIFY);
				CHECK_EQ_INT(m[i].u.notify.event_id, 6 + (uint64_t)round);
				for (uint16_t j = 0; j < m[i].u.notify.n_subs; j++) {
					CHECK_EQ_INT(spate_notify_id(&m[i].u.notify, j), next[r]);
					next[r] += 3;
				}
			}
		}
		CHECK_EQ_INT(next[0], N + 3);
		CHECK_EQ_INT(next[1], N + 1);
		CHECK_EQ_INT(next[2], N + 2);
	}
	/* a scratch of exactly the size asked for is enough */
	struct notifier *nt2 = notifier_create(1472, 64, capture, &n_out);
	mv.n = 64;
	for (int round = 0; round < 2 && nt2 != NULL; round++) {
		allocs = 0;
		CHECK_EQ_INT(notifier_add_matches(nt2, 9, &mv), 0);
		CHECK_EQ_INT(allocs, round == 0 ? 2 : 0);
	}
	notifier_destroy(nt2);
	spate_matchvec_free(&mv);
	notifier_destroy(nt);
	CHECK_EQ_INT(n_live, live0);
	CHECK_EQ_INT(bad_frees, 0);
	CHECK_EQ_INT(overruns, 0);
}

/* A payload too small for what is queued: nothing is sent for it, and
 * never an empty datagram (its count of 0 is refused). 36 bytes hold an
 * ACK (16 + 20) but no NOTIFY with an id (16 + 24). */
static void test_tiny(void)
{
	struct notifier *nt = notifier_create(SPATE_HDR_LEN + 20, 64, capture, &n_out);
	struct spate_dest a = { 0x0a000002, 5000 };
	uint64_t id = 9;
	struct spate_msg m[2];
	struct spated_counters before, now;

	spated_counters_sum(&before);
	n_out = 0;
	notifier_add(nt, a, 1, &id, 1);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 0);
	notifier_add(nt, a, 1, &id, 1);
	notifier_reply(nt, a, SPATE_MSG_SUB_ADD, 0, 5, 6);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 1);
	CHECK_EQ_INT(seq_of(&out[0]), 1);
	CHECK_EQ_INT(msgs_of(&out[0], m, 2), 1);
	CHECK_EQ_INT(m[0].type, SPATE_MSG_ACK);
	spated_counters_sum(&now);
	CHECK_EQ_INT(now.notify_dgrams - before.notify_dgrams, 1);
	CHECK_EQ_INT(now.notify_msgs - before.notify_msgs, 0);
	notifier_destroy(nt);
	/* room for nothing at all */
	nt = notifier_create(SPATE_HDR_LEN, 64, capture, &n_out);
	n_out = 0;
	notifier_add(nt, a, 1, &id, 1);
	notifier_reply(nt, a, SPATE_MSG_SUB_ADD, 0, 5, 6);
	notifier_reply(nt, a, SPATE_MSG_SUB_DEL, SPATE_E_UNKNOWN_ID, 5, 6);
	notifier_flush(nt);
	CHECK_EQ_INT(n_out, 0);
	notifier_destroy(nt);
}

int main(void)
{
	out = calloc(MAXD, sizeof(*out));
	spate_limits_default(&lim);
	test_pack();
	test_split();
	test_matches();
	test_evict();
	test_replies();
	test_sets();
	test_alloc();
	test_tiny();
	free(out);
	return check_summary("app_notify");
}
