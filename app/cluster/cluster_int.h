/* cluster_int.h - the cluster stage's insides, shared by its files
 * (not an interface: callers use stage_cluster.h).
 *
 *   stage_cluster.c     the stage: create, poll, flow control, preload
 *   cluster_proto.c     the protocol front: datagrams and messages in,
 *                       NACKs and early ACKs out, relayed/adopted input
 *   cluster_place.c     the clustering: the matcher's engine (places,
 *                       routes, merges and moves), correlation feedback
 *   cluster_hold.c      hold-back: output held until the journal and the
 *                       other fronts have each subscription change
 *   cluster_failover.c  rehoming: categories of dead match workers given
 *                       to live ones, their subscriptions sent again
 */
#ifndef SPATED_CLUSTER_INT_H
#define SPATED_CLUSTER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "cluster/stage_cluster.h"
#include "engines/drt/drt_cluster.h"
#include "infra/pl_msg.h"
#include "infra/ring_out.h"
#include "matcher/spate_idmap.h"
#include "matcher/spate_matcher.h"
#include "net/tx_out.h"
#include "proto/spate_proto.h"
#include "stream/spate_stream.h"

#define MAX_ACTIONS 64
#define FB_SLOTS 1024 /* events whose feedback parts are being gathered */
#define FB_CATS 32    /* categories per event kept for correlation */

/* A category as this stage tracks it. */
struct ccat {
	uint32_t worker, size;
	/* workers (bit w % 64) it or a category merged into it was moved
	 * away from: if one dies, a handoff from it may never have come */
	uint64_t came_from;
	uint8_t rebuild; /* failover: send its subscriptions again */
};

/* Feedback of one event split over several workers. */
struct fb_slot {
	uint32_t seq;
	uint16_t parts_left, n;
	uint32_t cats[FB_CATS];
};

/* The matcher's engine: a way back to the stage. */
struct spate_engine {
	struct stage_cluster *s;
};

struct stage_cluster {
	struct spate_engine front;
	struct spate_matcher *m;
	struct drt_cluster *cl;
	struct spate_idmap *cats; /* category id -> struct ccat */
	struct spate_idmap *home; /* sub id -> category id + 1 at placement */
	struct spate_idmap *fwd;  /* merged category id -> id + 1 merged into */
	struct rte_ring **fb_in;  /* [n_workers] feedback from the workers */
	uint32_t fb_seq;
	struct fb_slot *fb;
	struct category_dir *dir;
	const struct spate_limits *lim;
	struct rte_ring **in;
	uint32_t n_in, next_in;
	uint32_t n_workers;
	/* workers (bit w % 64) reported dead and not back yet, the last live
	 * one too, which the clustering keeps (cluster_failover.c) */
	uint64_t down;
	struct ring_out *to_match;
	struct tx_out to_tx;
	struct rte_mempool *msg_pool;
	struct notifier *nt; /* NACKs */
	uint32_t backlog_max;
	struct durable *dur; /* NULL: no journal */
	/* several fronts: a client's event goes to the others too */
	void (*relay)(void *ctx, const struct spate_raw_event *ev);
	void *relay_ctx;
	/* several fronts: each subscription change copied to the others,
	 * answers held until they have it (stage_link_repl_*) */
	void (*repl_add)(void *ctx, const struct spate_raw_sub *rs, uint32_t owner);
	void (*repl_del)(void *ctx, uint64_t id, uint32_t owner);
	int (*repl_done)(void *ctx);
	void *repl_ctx;
	int holding;           /* output held until the journal is durable */
	uint64_t rebalance_at; /* timer cycles: end the load period then (0: no) */
	int last_nack;         /* the code of the last refusal (replay counts them) */
	/* the request being handled */
	struct pl_reply cur;
	uint64_t cur_rx_tsc; /* the datagram being read: its RX stamp */
	int forwarded;
	struct spate_matchvec mv; /* always empty: matches happen downstream */
	struct spate_msg msg;     /* a decoded message is a few KB: not on the stack */
	struct drt_action acts[MAX_ACTIONS];
	/* datagrams taken from RX but not handled yet (held back) */
	struct rte_mbuf *pending[PL_BURST];
	unsigned int n_pending, next_pending;
	/* the pool count includes other lcores' caches, which this lcore
	 * cannot take from: keep that much more */
	unsigned int pool_margin;
	/* the pool's free count when last read, less an upper bound of what
	 * the datagrams handled since took (reading the count sums every
	 * lcore's cache: once a poll, not once a datagram) */
	unsigned int pool_est;
	/* subscriptions to apply from a stream file first (spated.preload) */
	struct spate_stream_reader pre;
	int pre_open;
	struct spate_stream_op pre_op;
};

static inline void send_to(struct stage_cluster *s, uint32_t worker, struct pl_msg *m)
{
	ring_out_push(&s->to_match[worker % s->n_workers], m);
}

/* A control message (never dropped: from the heap if the pool is dry). */
static inline struct pl_msg *control_msg(struct stage_cluster *s, uint8_t type, uint32_t cat,
					 uint32_t other)
{
	return pl_msg_control(s->msg_pool, type, cat, other);
}

static inline struct ccat *ccat_of(struct stage_cluster *s, uint32_t cat)
{
	return spate_idmap_get(s->cats, cat);
}

/* cluster_place.c: the clustering */
extern const struct spate_engine_ops cluster_front_ops;
/* Carry out what the clustering decided, in its order. */
void cluster_run_actions(struct stage_cluster *s);
/* A new version of cat's directory entry. */
void cluster_publish(struct stage_cluster *s, uint32_t cat);
/* Category c - 1 now (merges followed; 0: none). */
uint32_t cluster_follow_cat(struct stage_cluster *s, uintptr_t c);
/* The category a placed subscription is in now. */
uint32_t cluster_current_cat(struct stage_cluster *s, uint64_t sub_id);
void cluster_copy_sub(struct pl_sub *ps, const struct spate_sub *q);
/* A feedback message from a worker (ring_drain callback, ctx: the stage). */
void cluster_feedback(void *ctx, void *obj);

/* cluster_proto.c: the protocol front */
/* One decoded message; src 0.0.0.0:0: replayed or preloaded, nobody to answer. */
void cluster_on_message(struct stage_cluster *s, const struct spate_hdr *hdr, struct spate_dest src,
			struct spate_msg *msg);
/* One datagram from RX (freed here). */
void cluster_on_datagram(struct stage_cluster *s, struct rte_mbuf *mb);

/* cluster_hold.c: hold-back */
/* Commit the journal; once nothing is pending, release what was held.
 * `force`: sync now (a backlog is full), whatever the interval policy. */
void cluster_settle(struct stage_cluster *s, bool force);
/* A subscription change applied: journaled and copied to the other
 * fronts, and everything this stage sends held until both are safe. */
void cluster_record_add(struct stage_cluster *s, const struct spate_raw_sub *rs, uint32_t owner);
void cluster_record_del(struct stage_cluster *s, uint64_t id, uint32_t owner);

#endif
