/* stage_link.h - the link stage of a multi-host spated
 * (docs/multihost.md): it stretches the rings between the cluster stage
 * and the matching stages over the network, one reliable channel
 * (lib/peer/spate_peer_chan.h) per peer host.
 *
 *  - On a front, each matching worker of the cluster stage is an lcore
 *    of a match host (spated.peers, in order). The link drains the
 *    cluster's ring of each remote worker, re-encodes every message as
 *    the inter-host messages of lib/peer/spate_peer.h (events and
 *    subscriptions as client messages, from the cluster matcher's
 *    dictionaries: the link runs on the cluster's lcore) and queues them
 *    on the channel to that worker's host; FEEDBACK coming back goes to
 *    the cluster's feedback rings.
 *  - On a match host, the link decodes what its front sends, interns it
 *    in a dictionary of its own, and feeds each local matching stage
 *    exactly the messages the front's cluster stage put in that worker's
 *    ring, in their order; the matching stages' feedback goes back.
 *
 * Routing on the match host: a CREATE(cat, lcore) says "cat's messages
 * that follow go to this lcore". The front sends one before the first
 * message for a category and again whenever a message for it comes from
 * another worker's ring than the last one (around a move between lcores
 * of that host), so every worker sees its own ring's order, and the
 * matching stages' handoff protocol keeps a move exact as on one box.
 * A move between hosts: the front sends the old owner host MOVE (to host,
 * lcore) and the new one CREATE + EXPECT; the old owner's matching stage
 * runs what came before the MOVE and hands the index to its link, which
 * ships CREATE, one HANDOFF_SUB per subscription and HANDOFF_END (with
 * the count) on the channel between the two match hosts; the new owner's
 * link rebuilds the index and gives it to the matching stage, which held
 * every message for the category meanwhile. Merges across hosts are a
 * move then a local merge, as between lcores.
 */
#ifndef SPATED_STAGE_LINK_H
#define SPATED_STAGE_LINK_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "link/host_conf.h"
#include "link/host_view.h"
#include "matcher/spate_matcher.h"
#include "auth/spate_peer_auth.h"
#include "peer/spate_peer_chan.h"
#include "proto/spate_types.h"

struct stage_link_conf {
	const struct host_conf *hosts;
	uint32_t epoch;            /* this host's incarnation (1 without ZooKeeper) */
	struct rte_ring **from_rx; /* [n_rx] PKT_PEER frames from each RX stage */
	uint32_t n_rx;
	struct rte_ring *to_tx;
	struct rte_mempool *msg_pool, *pkt_pool;
	size_t max_frame; /* UDP payload bytes an inter-host frame may take */
	const struct spate_limits *lim;
	uint32_t n_workers;           /* front: remote workers; match: local ones */
	struct rte_ring **from_stage; /* [n_workers] front: cluster -> worker; match: feedback */
	struct rte_ring **to_stage;   /* [n_workers] front: feedback -> cluster; match: -> worker */
	struct spate_matcher *front_matcher;         /* front: the cluster stage's */
	const struct spate_matcher_conf *match_conf; /* match: for its dictionaries */
	struct rte_ring **handoff_in; /* match: [n_workers] categories leaving for another host */
	const char *cat_engine;       /* match: the index of categories arriving */
	double cat_cell;
	/* With ZooKeeper (zk_member.h): which incarnation of each peer is
	 * alive; every peer starts down until the view names it. NULL: static
	 * peers, all up at epoch 1. */
	struct host_view *view;
	/* The cluster keys (spated.peer_key_file): frames are signed with
	 * the first, any is accepted; NULL or none: unsigned frames only
	 * (peer_auth = "none"). Copied: the caller may wipe them. */
	const struct spate_peer_keyfile *keys;
	/* front: a match host's workers went down (up = 0) or came back;
	 * an event another front relayed (ctx: the cluster stage) */
	void (*workers_changed)(void *ctx, const uint32_t *w, uint32_t n, int up);
	void (*relayed)(void *ctx, const struct spate_raw_event *ev);
	int (*can_take)(void *ctx); /* front: room for one more relayed event */
	/* front: each object the cluster stage still holds for worker w,
	 * not yet in its ring, to fn (counted lost when w's host dies) */
	void (*waiting)(void *ctx, uint32_t w, void (*fn)(void *fctx, void *obj), void *fctx);
	/* front: a dead front's subscription, taken over (stage_cluster_adopt) */
	int (*adopt)(void *ctx, uint32_t owner, const struct spate_raw_sub *rs);
	uint16_t n_ports; /* front: where to announce service addresses */
	const uint16_t *ports;
	const struct rte_ether_addr *macs;
	void *workers_ctx;
	uint32_t backlog_max; /* match: a stage's backlog that stops delivery */
};

struct stage_link;

/* What `spatectl show cluster` shows of the link (app/link/link_info.c):
 * this host and every configured peer, its state and its channel. */
struct stage_link_peer_info {
	uint32_t host, ipv4;
	uint32_t lcores;        /* 0: a front */
	uint32_t first_worker;  /* front: its lcores are workers [first, first + lcores) */
	uint32_t epoch;         /* the incarnation the channel is bound to */
	uint8_t up;             /* a member, its channel bound */
	uint32_t in_flight;     /* frames to it not yet acknowledged */
	uint32_t queued_bodies; /* bodies waiting beyond the window */
	int copy;               /* a front: its copy here is complete (1) or not (0) */
	uint64_t copy_subs;     /*   and holds this many subscriptions */
	struct spate_peer_chan_stats ch;
};
struct stage_link_info {
	uint8_t role;
	uint32_t host, epoch;
	uint32_t keys;       /* cluster keys in force (0: unsigned frames) */
	uint32_t local_cats; /* match: categories routed here */
	uint32_t serves;     /* front: service addresses answered for now */
	uint32_t n_peers;
	struct stage_link_peer_info peer[SPATED_PEERS_MAX];
};
/* Fill *out; on the link's own lcore (a control request). */
void stage_link_info(struct stage_link *s, struct stage_link_info *out);

struct stage_link *stage_link_create(const struct stage_link_conf *c);
/* Several fronts: a client's event to every other front (the cluster
 * stage's relay hook; same lcore). */
void stage_link_relay(void *link, const struct spate_raw_event *ev);
/* A front's copies for the other fronts (link_repl.c; the cluster
 * stage's hooks, same lcore): a subscription applied, one deleted; and
 * whether every copy sent so far was acknowledged (answers wait till
 * then). */
void stage_link_repl_add(void *link, const struct spate_raw_sub *rs, uint32_t owner);
void stage_link_repl_del(void *link, uint64_t id, uint32_t owner);
int stage_link_repl_done(void *link);
/* One poll: frames in, messages out, channels' frames to TX. */
unsigned int stage_link_poll(struct stage_link *s);
void stage_link_destroy(struct stage_link *s);
/* Readers off the link's lcore (metrics): peer i's host id and whether it
 * is up (a member, as far as the link knows: a plain load, a poll old).
 * 0, or -1 past the last peer. */
int stage_link_peer_state(const struct stage_link *s, uint32_t i, uint32_t *host, int *up);

#endif
