/* peer_cmp.h - field-by-field equality of decoded inter-host messages
 * (spate_peer.h) and their re-encoding, shared by tests/unit/test_peer.c
 * and tests/fuzz/fuzz_peer.c so both mean the same thing by "round trips";
 * and the sample event and subscription both put in their frames. */
#ifndef SPATE_PEER_CMP_H
#define SPATE_PEER_CMP_H

#include <stdbool.h>

#include "proto_cmp.h"
#include "peer/spate_peer.h"

static inline bool cmp_reply(const struct spate_peer_reply *a, const struct spate_peer_reply *b)
{
	return a->ipv4 == b->ipv4 && a->port == b->port && a->req_type == b->req_type &&
	       a->req_seq == b->req_seq;
}

static inline bool cmp_peer_msg(const struct spate_peer_msg *a, const struct spate_peer_msg *b)
{
	if (a->type != b->type || a->cat != b->cat || a->other != b->other ||
	    a->lcore != b->lcore || a->drop_cat != b->drop_cat || a->id != b->id ||
	    a->version != b->version || a->ev_seq != b->ev_seq || a->parts != b->parts ||
	    a->n_cat != b->n_cat || !cmp_reply(&a->reply, &b->reply))
		return false;
	for (uint16_t i = 0; i < a->n_cat; i++)
		if (spate_peer_cat(a, i) != spate_peer_cat(b, i))
			return false;
	switch (a->type) {
	case SPATE_PEER_EVENT:
	case SPATE_PEER_RELAY:
	case SPATE_PEER_SUB_ADD:
	case SPATE_PEER_HANDOFF_SUB:
	case SPATE_PEER_REPL_ADD:
		return cmp_msg(&a->inner, &b->inner);
	}
	return true;
}

/* Put m (decoded) into w again: 0 or the put's error. */
static inline int peer_reencode(struct spate_peer_writer *w, const struct spate_peer_msg *m)
{
	uint32_t cats[SPATE_PEER_CATS_MAX];

	for (uint16_t i = 0; i < m->n_cat && i < SPATE_PEER_CATS_MAX; i++)
		cats[i] = spate_peer_cat(m, i);
	switch (m->type) {
	case SPATE_PEER_EVENT:
		return spate_peer_put_event(w, m->ev_seq, m->parts, cats, m->n_cat, &m->inner.u.ev);
	case SPATE_PEER_CREATE:
		return spate_peer_put_create(w, m->cat, m->lcore);
	case SPATE_PEER_SUB_ADD:
		return spate_peer_put_sub_add(w, m->cat, m->other, &m->reply, &m->inner.u.sub);
	case SPATE_PEER_SUB_DEL:
		return spate_peer_put_sub_del(w, m->cat, m->drop_cat, &m->reply, m->id);
	case SPATE_PEER_ACK:
		return spate_peer_put_ack(w, m->cat, &m->reply, m->id);
	case SPATE_PEER_MERGE:
		return spate_peer_put_merge(w, m->cat, m->other);
	case SPATE_PEER_MOVE:
		return spate_peer_put_move(w, m->cat, m->other, m->lcore, m->version);
	case SPATE_PEER_EXPECT:
		return spate_peer_put_expect(w, m->cat, m->other, m->lcore, m->version);
	case SPATE_PEER_HANDOFF_SUB:
		return spate_peer_put_handoff_sub(w, m->cat, m->other, &m->inner.u.sub);
	case SPATE_PEER_HANDOFF_END:
		return spate_peer_put_handoff_end(w, m->cat, m->other, m->version);
	case SPATE_PEER_FEEDBACK:
		return spate_peer_put_feedback(w, m->ev_seq, m->parts, cats, m->n_cat);
	case SPATE_PEER_RELAY:
		return spate_peer_put_relay(w, &m->inner.u.ev);
	case SPATE_PEER_REPL_ADD:
		return spate_peer_put_repl_add(w, m->other, &m->inner.u.sub);
	case SPATE_PEER_REPL_DEL:
		return spate_peer_put_repl_del(w, m->other, m->id);
	case SPATE_PEER_REPL_SYNC:
		return spate_peer_put_repl_sync(w, m->cat, m->other);
	case SPATE_PEER_DONE:
		return spate_peer_put_done(w, m->lcore, m->ev_seq);
	}
	return -SPATE_E_UNKNOWN_TYPE;
}

/* The sample messages carry: an airport event (one keyword, one
 * attribute) and a subscription (one keyword, one constraint) to
 * 192.0.2.7:47200 over rect. */
static inline void peer_samples(struct spate_raw_event *ev, struct spate_raw_sub *sub,
				const int32_t rect[4])
{
	*ev = (struct spate_raw_event){
		.id = 42, .lon = 1453920000, .lat = -60816900, .n_kw = 1, .n_attr = 1
	};
	ev->kw[0] = spate_str_of("iata:gka");
	ev->attr[0] = (struct spate_raw_attr){ spate_str_of("altitude_ft"), 5282 };
	*sub = (struct spate_raw_sub){ .id = 1001,
				       .rect = { rect[0], rect[1], rect[2], rect[3] },
				       .dest = { 0xc0000207, 47200 },
				       .n_kw = 1,
				       .n_cons = 1 };
	sub->kw[0] = spate_str_of("type:airport");
	sub->cons[0] =
		(struct spate_raw_constraint){ spate_str_of("altitude_ft"), SPATE_OP_GE, 5000 };
}

#endif
