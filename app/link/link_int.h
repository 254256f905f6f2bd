/* link_int.h - inside the link stage (stage_link.h): the part shared by
 * the channel plumbing (stage_link.c) and the two roles' translations
 * (link_front.c, link_match.c). */
#ifndef SPATED_LINK_INT_H
#define SPATED_LINK_INT_H

#include "infra/pl_msg.h"
#include "infra/ring_out.h"
#include "matcher/spate_idmap.h"
#include "peer/spate_peer.h"
#include "peer/spate_peer_chan.h"
#include "link/stage_link.h"
#include "net/tx_out.h"

/* A whole frame body waiting for the window (only category handoffs,
 * which cannot be held back half-way, queue beyond it). */
struct pend_body {
	struct pend_body *next;
	size_t len;
	uint16_t count;
	uint8_t bytes[];
};

struct link_peer {
	uint32_t host, ipv4;
	struct spate_peer_chan *ch;
	uint8_t body[SPATE_PEER_BODY_MAX];
	struct spate_peer_writer w;          /* the body being filled */
	int blocked;                         /* window full with a body waiting */
	struct pend_body *ov_head, *ov_tail; /* bodies before w, beyond the window */
	uint32_t lcores;                     /* from the config: 0 = the front */
	uint32_t epoch;                      /* its incarnation the channel is bound to */
	uint32_t dead_epoch;                 /* the newest incarnation known gone */
	uint32_t zk_epoch;                   /* the incarnation ZooKeeper lists (0: none) */
	uint64_t heard, sent;                /* ns: last frame accepted from it, sent to it */
	uint64_t bound_at;                   /* ns: when the channel took its epoch */
	int down;                            /* not used: not (yet) heard, or dead */
	int pending;                         /* bound to an epoch ZooKeeper lists, not heard yet:
				     * what is for it waits (it has dead_ms to speak) */
	int role_up;                         /* the role counts it up (front: its workers) */
	/* static peers (no ZooKeeper): the handshake that binds its epoch */
	uint64_t hello_at;      /* ns: our last hello to it (epoch unknown) */
	uint32_t hello_replies; /* answers to its hellos in this heartbeat */
	uint64_t hello_window;  /* ns: when that heartbeat began */
	/* fronts (link_repl.c): its copy here; the last frame of ours with a
	 * copy for it, and copies appended and not queued yet */
	struct repl_copy *copy;
	uint32_t repl_seq, taken_epoch;
	int repl_dirty;
};

/* What a match host's dictionary matcher hands back through its engine. */
struct spate_engine {
	struct stage_link *s;
};

/* Event numbers a front sent one remote worker, oldest first, until the
 * match host says they are matched (DONE): what its death would lose. */
struct ev_fifo {
	uint32_t *v;
	uint32_t head, n, cap;
	int capped; /* full: the oldest forgotten (said once) */
};

struct stage_link {
	const struct host_conf *hosts;
	uint8_t role;
	uint32_t host_id, epoch;
	uint32_t n_peers;
	struct link_peer *peers;
	size_t body_cap;
	uint64_t ns_per_tsc_q32; /* ns per TSC cycle, 32.32 fixed point */
	uint64_t hb_ns, dead_ns; /* heartbeat period, silence that kills */
	uint64_t now;            /* ns, at the start of this poll */
	int quorum_lost;         /* hears too few hosts to judge its peers */
	uint32_t drop_ppm;       /* fault injection (tests) */
	uint64_t rng;
	struct rte_ring **from_rx;
	uint32_t n_rx;
	struct tx_out to_tx;
	struct rte_mempool *msg_pool;
	const struct spate_limits *lim;
	uint32_t n_workers;
	struct rte_ring **from_stage;
	struct ring_out *to_stage;
	struct pl_msg **held; /* [n_workers] taken but not yet queued */
	uint8_t scratch[SPATE_PEER_BODY_MAX];
	struct spate_peer_auth *auth;
	struct host_view *view;
	uint32_t view_seen;
	int view_read; /* the first view was taken */
	void (*workers_changed)(void *ctx, const uint32_t *w, uint32_t n, int up);
	void (*relayed)(void *ctx, const struct spate_raw_event *ev);
	int (*can_take)(void *ctx);
	void (*waiting)(void *ctx, uint32_t w, void (*fn)(void *fctx, void *obj), void *fctx);
	void *workers_ctx;
	uint32_t backlog_max;
	unsigned int pool_margin;     /* messages one frame may need, and the caches */
	uint32_t front_peer[1u << 4]; /* match: front rank -> peer index */
	/* front */
	uint32_t *w_peer;         /* [n_workers] worker -> peer index */
	struct ev_fifo *inflight; /* [n_workers] event numbers sent, not yet DONE */
	uint16_t *w_lcore;        /* [n_workers] worker -> lcore there */
	struct spate_matcher *fm;
	struct spate_idmap *said; /* cat -> worker + 1 last announced (CREATE) */
	struct spate_raw_event *rev;
	struct spate_raw_sub *rsub;
	/* front: services (link_repl.c) */
	struct spate_matcher_conf copy_conf;
	int (*adopt)(void *ctx, uint32_t owner, const struct spate_raw_sub *rs);
	uint32_t svc_seen, svc_read, n_svc;
	uint32_t svc_id[SPATED_PEERS_MAX + 1], svc_owner[SPATED_PEERS_MAX + 1];
	uint32_t served[SPATED_PEERS_MAX + 1], n_served;
	uint32_t garp_left;
	uint64_t garp_next;
	struct rte_mempool *pkt_pool;
	uint16_t n_ports;
	uint16_t ports[4];
	struct rte_ether_addr macs[4];
	/* match */
	struct spate_engine eng;
	struct spate_matcher *mm;
	struct spate_idmap *lcore_of; /* cat -> lcore + 1 */
	struct pl_msg *cur;           /* the message the dictionary matcher fills */
	struct spate_matchvec mv;
	struct rte_ring **handoff_in;
	struct spate_idmap *leaving;          /* cat -> struct leave: MOVEs to other hosts */
	struct spate_idmap *arriving;         /* cat -> struct arrive: handoffs being rebuilt */
	struct spate_idmap *expecting;        /* host << 32 | cat -> struct expect: handoffs owed */
	struct deferred *def_head, *def_tail; /* handoffs to an incarnation not seen yet */
	struct pl_msg *scratch_msg;
	uint32_t drop_gen[PL_FRONTS]; /* PL_DROP_FRONTs sent, per front rank */
	const char *cat_engine;
	double cat_cell;
};

/* The peer with this host id, or NULL. */
struct link_peer *link_peer_of(struct stage_link *s, uint32_t host);

/* Append the messages in w (a scratch writer) to peer p's body: 0, or
 * -1 when the body had to go and the window is full (nothing appended;
 * the caller holds what it has). */
int link_append(struct stage_link *s, struct link_peer *p, const struct spate_peer_writer *w);
/* The same, never refused: a body the window does not take waits in
 * memory (a handoff in progress). 0, or -1 on no memory. */
int link_append_force(struct stage_link *s, struct link_peer *p, const struct spate_peer_writer *w);

/* The roles (link_front.c, link_match.c): set up, one poll's sending,
 * a delivered frame body, tear down. */
int link_front_init(struct stage_link *s, const struct stage_link_conf *c);
unsigned int link_front_poll(struct stage_link *s);
void link_front_deliver(struct stage_link *s, struct link_peer *p, const uint8_t *body, size_t len,
			uint16_t count);
void link_front_fini(struct stage_link *s);

int link_match_init(struct stage_link *s, const struct stage_link_conf *c);
unsigned int link_match_poll(struct stage_link *s);
void link_match_deliver(struct stage_link *s, struct link_peer *p, const uint8_t *body, size_t len,
			uint16_t count);
void link_match_fini(struct stage_link *s);

/* A peer's incarnation ended (ZooKeeper): what the role must undo. The
 * channel itself is reset by stage_link.c. */
/* A front's copies of the others and its takeovers (link_repl.c). */
void link_repl_peer_up(struct stage_link *s, struct link_peer *p);
void link_repl_deliver(struct stage_link *s, struct link_peer *p, const struct spate_peer_msg *pm);
void link_repl_flushed(struct link_peer *p);
unsigned int link_repl_poll(struct stage_link *s);
void link_repl_fini(struct stage_link *s);
/* Is p's copy here complete (1) or not (0); its subscriptions in *subs. */
int link_repl_copy_state(const struct link_peer *p, uint64_t *subs);

void link_front_peer_down(struct stage_link *s, struct link_peer *p);
void link_front_peer_up(struct stage_link *s, struct link_peer *p);
void link_match_peer_down(struct stage_link *s, struct link_peer *p);

#endif
