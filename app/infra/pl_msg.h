/* pl_msg.h - what spated's stages hand each other through their rings.
 *
 * Two kinds of things travel:
 *  - packets (struct rte_mbuf) between the port and the protocol: RX ->
 *    cluster (a Spate datagram and its source) and anything -> TX (a
 *    Spate datagram to send, a finished frame, a neighbour learned). What
 *    they are is in the mbuf's private area (struct pkt_meta).
 *  - messages (struct pl_msg) between the cluster stage and the matching
 *    stages and between matching stages: events with the categories they
 *    were routed to, subscription changes, and the category moves and
 *    merges. A message names the category it is for; everything for one
 *    category travels in one order through one ring at a time, and the
 *    handoff protocol (stage_match.c) keeps that order across a move.
 */
#ifndef SPATED_PL_MSG_H
#define SPATED_PL_MSG_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "link/host_conf.h"
#include "matcher/spate_engine.h"
#include "proto/spate_types.h"

#define PL_BURST 32

enum pkt_kind {
	PKT_DGRAM = 1, /* RX -> cluster: data = the UDP payload, peer = its source */
	PKT_PAYLOAD,   /* -> TX: data = a Spate datagram for peer (headroom for headers) */
	PKT_FRAME,     /* -> TX: a finished Ethernet frame */
	PKT_NEIGH,     /* RX -> TX: peer.ipv4 is at mac (no data) */
	PKT_PEER,      /* RX -> link: an inter-host frame (data, peer = its source);
			 * link -> TX: one to send to peer, as is */
};

struct pkt_meta {
	uint8_t kind;
	struct spate_dest peer;
	struct rte_ether_addr mac;
	/* PKT_DGRAM: the TSC of its RX burst; PKT_PAYLOAD: of the oldest
	 * event it answers; 0 = not timed (latency.h). Other kinds: unset. */
	uint64_t rx_tsc;
};

static inline struct pkt_meta *pkt_meta(struct rte_mbuf *m)
{
	return (struct pkt_meta *)rte_mbuf_to_priv(m);
}

/* Private area size for the packet pool (mbuf priv must be 8-aligned). */
#define PKT_META_SIZE RTE_ALIGN(sizeof(struct pkt_meta), RTE_MBUF_PRIV_ALIGN)

enum pl_msg_type {
	PL_EVENT = 1,  /* match the event against cats[] */
	PL_SUB_ADD,    /* add the sub to cat (created here if new); then ACK */
	PL_SUB_DEL,    /* delete sub id from cat (cat dropped if told); then ACK */
	PL_ACK,        /* ACK once everything before it for cat is applied */
	PL_MERGE,      /* merge category `other` (on this lcore) into cat */
	PL_MOVE,       /* hand cat to matching worker `other` */
	PL_EXPECT,     /* cat is coming from another worker: hold its messages */
	PL_HANDOFF,    /* (matching -> matching) here is cat's index; `other`: the
		       * sender's drop generation of cat's front (PL_DROP_FRONT) */
	PL_FEEDBACK,   /* (matching -> cluster) the categories an event matched in */
	PL_DROP_FRONT, /* (link -> matching, match hosts) front rank `other` left:
		       * drop every category of its ids (pl_front_of) */
	PL_DONE,       /* (matching -> link, match hosts) u.fb: every event part of
		       * front pl_front_of(origin) up to seq is matched here */
};

/* Several fronts (docs/multihost.md): a category id's top bits name the
 * front whose clustering made it. */
#define PL_FRONTS (1u << (32 - SPATED_CAT_FRONT_SHIFT))
static inline uint32_t pl_front_of(uint32_t cat)
{
	return cat >> SPATED_CAT_FRONT_SHIFT;
}

/* Where and how to answer a subscription request. */
struct pl_reply {
	struct spate_dest to;
	uint32_t req_seq;
	uint8_t req_type;
	uint64_t id;
};

/* Most categories an event message lists; an event routed to more
 * categories on one worker travels in several messages. */
#define PL_EVENT_CATS 48

struct pl_event {
	uint64_t id;
	int32_t lon, lat;
	uint32_t seq;    /* the cluster's event number, for feedback */
	uint64_t rx_tsc; /* its datagram's RX stamp, 0 = none (latency.h) */
	uint16_t parts;  /* messages the event was sent in, over all workers */
	uint16_t n_kw, n_attr, n_cat;
	uint32_t kw[SPATE_KW_MAX_HARD];
	struct spate_attr attr[SPATE_ATTR_MAX_HARD];
	uint32_t cats[PL_EVENT_CATS];
};

/* The event as the matcher and the engines take it, over pe's arrays. */
static inline struct spate_event pl_event_view(const struct pl_event *pe)
{
	return (struct spate_event){
		.id = pe->id,
		.lon = pe->lon,
		.lat = pe->lat,
		.n_kw = pe->n_kw,
		.n_attr = pe->n_attr,
		.kw = pe->kw,
		.attr = pe->attr,
	};
}

/* An interned subscription with its arrays inline (pointers fixed up by
 * the receiver, which keeps its own copy). */
struct pl_sub {
	struct pl_reply reply;
	uint8_t drop_cat; /* SUB_DEL: the category is empty now: free it */
	struct spate_sub sub;
	uint32_t kw[SPATE_KW_MAX_HARD];
	struct spate_constraint cons[SPATE_CONS_MAX_HARD];
};

/* Correlation feedback: of event seq's part, the categories it matched
 * in (DRt's co-matching counts). */
struct pl_feedback {
	uint32_t origin; /* a category the event part was for: names its front */
	uint32_t seq;
	uint16_t parts, n;
	uint32_t cats[PL_EVENT_CATS];
};

struct cat_index;

struct pl_msg {
	uint8_t type;  /* enum pl_msg_type */
	uint8_t heap;  /* from malloc (pool was empty), not the pool */
	uint16_t refs; /* holders on the receiving lcore (parked parts) */
	uint32_t cat;
	uint32_t other; /* MERGE: the category merged in; MOVE: the worker;
			    * EXPECT: the worker it comes from; HANDOFF: the
			    * drop generation; DROP_FRONT: the front rank */
	union {
		struct pl_event ev;
		struct pl_sub sub;
		struct pl_reply ack;
		struct pl_feedback fb;
		struct cat_index *idx; /* HANDOFF */
	} u;
};

/* A message from the pool, or from the heap when `must` and the pool is
 * empty (control messages are never dropped); NULL otherwise, uncounted:
 * what a missing message costs (a lost event part, a lost hint) is the
 * caller's to count. */
struct pl_msg *pl_msg_get(struct rte_mempool *mp, int must);
void pl_msg_put(struct rte_mempool *mp, struct pl_msg *m);
/* A control message (pl_msg_get(mp, 1): never dropped) of `type` for
 * category `cat`, its `other` field set; NULL only when out of memory. */
struct pl_msg *pl_msg_control(struct rte_mempool *mp, uint8_t type, uint32_t cat, uint32_t other);

#endif
