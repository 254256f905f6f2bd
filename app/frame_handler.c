/* frame_handler.c - the Spate protocol of the daemon (frame_handler.h).
 *
 * Per datagram: decode the header (refused: counted, dropped, no reply -
 * we cannot even trust its seq), then every message in order:
 *   EVENT   -> match -> NOTIFY to each matched sub's destination
 *   SUB_ADD -> add, owner = header client_id -> ACK / NACK
 *   SUB_DEL -> delete, same owner check      -> ACK / NACK
 *   other   -> NACK NOT_ALLOWED (servers send those, clients do not)
 * and every refused message -> NACK with its code. The ACK/NACKs of one
 * datagram share one reply datagram (more if they do not fit), sent back
 * to the source address and port.
 */
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "frame_handler.h"
#include "spate_proto.h"

struct match_pair {
	struct spate_dest dest;
	uint64_t id;
};

struct frame_handler {
	struct spate_matcher *m;
	const struct spate_limits *lim;
	struct notifier *nt;
	size_t max_payload;
	/* A decoded message is a few KB (inline keyword arrays): keep one
	 * here rather than on the stack. */
	struct spate_msg msg;
	struct spate_matchvec mv;
	struct match_pair *pairs;
	uint64_t *ids;
	size_t cap;
	/* the reply datagram being built */
	struct spate_writer rw;
	int rw_open;
	struct spate_dest rw_to;
	uint8_t *reply_buf;
};

struct frame_handler *frame_handler_create(struct spate_matcher *m,
					   const struct spate_limits *lim,
					   struct notifier *nt, size_t max_payload)
{
	struct frame_handler *fh = calloc(1, sizeof(*fh));

	if (fh == NULL)
		return NULL;
	fh->reply_buf = malloc(max_payload);
	if (fh->reply_buf == NULL) {
		free(fh);
		return NULL;
	}
	fh->m = m;
	fh->lim = lim;
	fh->nt = nt;
	fh->max_payload = max_payload;
	return fh;
}

void frame_handler_destroy(struct frame_handler *fh)
{
	if (fh == NULL)
		return;
	spate_matchvec_free(&fh->mv);
	free(fh->pairs);
	free(fh->ids);
	free(fh->reply_buf);
	free(fh);
}

static void reply_send(struct frame_handler *fh)
{
	if (fh->rw_open && fh->rw.count > 0) {
		size_t len = spate_writer_finish(&fh->rw);
		spated_cnt.reply_dgrams++;
		notifier_send(fh->nt, fh->rw_to, fh->reply_buf, len);
	}
	fh->rw_open = 0;
}

/* Append an ACK (code 0) or NACK to the reply datagram for `to`. */
static void reply(struct frame_handler *fh, struct spate_dest to, uint32_t req_seq,
		  uint8_t req_type, int code, uint64_t id)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		int rc;

		if (fh->rw_open && fh->rw.count >= fh->lim->max_messages)
			reply_send(fh);
		if (!fh->rw_open) {
			/* seq 0 here; notifier_send stamps the receiver's seq */
			spate_writer_init(&fh->rw, fh->reply_buf, fh->max_payload,
					  SPATE_FLAG_SERVER, 0, 0);
			fh->rw_open = 1;
			fh->rw_to = to;
		}
		if (code == 0)
			rc = spate_put_ack(&fh->rw, req_type, req_seq, id);
		else
			rc = spate_put_nack(&fh->rw, req_type, (uint8_t)code, req_seq, id);
		if (rc == 0) {
			if (code == 0)
				spated_cnt.acks++;
			else
				spated_cnt.nacks++;
			return;
		}
		reply_send(fh); /* full: send what we have, retry in a new one */
	}
}

static int grow(struct frame_handler *fh, size_t n)
{
	if (n <= fh->cap)
		return 0;
	size_t cap = fh->cap ? fh->cap : 64;
	while (cap < n)
		cap *= 2;
	struct match_pair *p = realloc(fh->pairs, cap * sizeof(*p));
	if (p == NULL)
		return -1;
	fh->pairs = p;
	uint64_t *ids = realloc(fh->ids, cap * sizeof(*ids));
	if (ids == NULL)
		return -1;
	fh->ids = ids;
	fh->cap = cap;
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

/* Matches come sorted by sub id; group them by destination so that each
 * receiver gets one NOTIFY per event with its sub ids ascending. */
static int on_event(struct frame_handler *fh, const struct spate_raw_event *ev)
{
	int rc = spate_matcher_event(fh->m, ev, &fh->mv);
	size_t n = fh->mv.n;

	if (rc != 0)
		return rc;
	spated_cnt.events++;
	spated_cnt.matches += n;
	if (n == 0)
		return 0;
	if (grow(fh, n) != 0)
		return -SPATE_E_NO_MEMORY;
	int one_dest = 1;
	for (size_t i = 0; i < n; i++) {
		fh->pairs[i].dest = fh->mv.v[i]->dest;
		fh->pairs[i].id = fh->mv.v[i]->id;
		if (fh->pairs[i].dest.ipv4 != fh->pairs[0].dest.ipv4 ||
		    fh->pairs[i].dest.port != fh->pairs[0].dest.port)
			one_dest = 0;
	}
	if (!one_dest) /* the common case, one subscriber, needs no sort */
		qsort(fh->pairs, n, sizeof(fh->pairs[0]), pair_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && fh->pairs[j].dest.ipv4 == fh->pairs[i].dest.ipv4 &&
		       fh->pairs[j].dest.port == fh->pairs[i].dest.port) {
			fh->ids[j - i] = fh->pairs[j].id;
			j++;
		}
		notifier_add(fh->nt, fh->pairs[i].dest, ev->id, fh->ids, j - i);
		i = j;
	}
	return 0;
}

/* 0 = accepted (ACK for sub ops), else -SPATE_E_*. */
static int on_message(struct frame_handler *fh, const struct spate_hdr *hdr,
		      struct spate_dest src, struct spate_msg *msg)
{
	switch (msg->type) {
	case SPATE_MSG_EVENT:
		return on_event(fh, &msg->u.ev);
	case SPATE_MSG_SUB_ADD: {
		struct spate_raw_sub *s = &msg->u.sub;
		/* 0.0.0.0:0 = "where this came from". Each zero half is
		 * filled on its own, so "0.0.0.0:5000" means "my address,
		 * port 5000". Stored in the sub so notifications need no
		 * per-client state. */
		if (s->dest.ipv4 == 0)
			s->dest.ipv4 = src.ipv4;
		if (s->dest.port == 0)
			s->dest.port = src.port;
		int rc = spate_matcher_sub_add(fh->m, s, hdr->client_id);
		if (rc == 0)
			spated_cnt.sub_adds++;
		return rc;
	}
	case SPATE_MSG_SUB_DEL: {
		int rc = spate_matcher_sub_del(fh->m, msg->id, hdr->client_id);
		if (rc == 0)
			spated_cnt.sub_dels++;
		return rc;
	}
	default:
		return -SPATE_E_NOT_ALLOWED;
	}
}

void frame_handler_datagram(struct frame_handler *fh, const uint8_t *buf, size_t len,
			    struct spate_dest src)
{
	struct spate_hdr hdr;
	struct spate_reader rd;
	int rc;

	spated_cnt.dgrams++;
	rc = spate_hdr_decode(buf, len, fh->lim, &hdr);
	if (rc != 0) {
		spated_cnt.bad_header++;
		spated_cnt.hdr_err[-rc < SPATE_E__COUNT ? -rc : 0]++;
		return;
	}
	if (hdr.flags & SPATE_FLAG_SERVER) {
		/* Another server's NOTIFY/ACK: answering it with a NACK could
		 * start a NACK ping-pong between two servers. */
		spated_cnt.from_server++;
		return;
	}
	spate_reader_init(&rd, buf, len, &hdr);
	fh->rw_open = 0;
	for (;;) {
		struct spate_msg *msg = &fh->msg;
		int is_sub = 0;

		/* When framing is lost the reader may not say what was refused:
		 * the NACK then names type 0, id 0 rather than stale values. */
		msg->type = 0;
		msg->id = 0;
		rc = spate_reader_next(&rd, fh->lim, msg);
		if (rc == 0)
			break;

		spated_cnt.messages++;
		if (rc == 1) {
			is_sub = msg->type == SPATE_MSG_SUB_ADD || msg->type == SPATE_MSG_SUB_DEL;
			rc = on_message(fh, &hdr, src, msg);
		}
		if (rc < 0) {
			int code = -rc < SPATE_E__COUNT ? -rc : 0;
			spated_cnt.bad_messages++;
			spated_cnt.msg_err[code]++;
			reply(fh, src, hdr.seq, msg->type, code, msg->id);
		} else if (is_sub) {
			reply(fh, src, hdr.seq, msg->type, 0, msg->id);
		}
	}
	reply_send(fh);
}

void frame_handler_burst_end(struct frame_handler *fh)
{
	notifier_flush(fh->nt);
}
