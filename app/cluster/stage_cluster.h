/* stage_cluster.h - the cluster stage: the protocol front and the
 * clustering.
 *
 * It decodes each datagram from RX in order and, through a spate_matcher
 * (ids, ownership, quotas, idempotent retransmissions, interning - the
 * same code spate-match uses), places subscriptions in categories and
 * routes events to them (placement.h). Every result becomes a message to
 * the owning matching stage: subscription changes (ACKed there, once
 * applied), event parts (the event with the categories it visits on that
 * worker), and the merges and moves the clustering decides (carried out
 * by the handoff protocol of stage_match.h). Refusals are NACKed here.
 *
 * It is the only writer of the category directory (category_dir.h).
 * When a matching stage falls behind, its ring backlog grows; past
 * backlog_max the stage stops taking datagrams (counted: backpressure)
 * until it drains, so overload becomes counted drops at the RX ring, not
 * lost subscription changes.
 */
#ifndef SPATED_STAGE_CLUSTER_H
#define SPATED_STAGE_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "cluster/category_dir.h"
#include "conf/spate_conf.h"

struct stage_cluster_conf {
	struct rte_ring **in; /* from the RX stages */
	uint32_t n_in;
	struct rte_ring **to_match; /* [n_workers] */
	struct rte_ring **feedback; /* [n_workers]: correlation feedback from them */
	uint32_t n_workers;
	struct rte_ring *to_tx;
	struct rte_mempool *msg_pool, *pkt_pool;
	struct category_dir *dir;
	const struct spate_conf *common;
	size_t max_payload;
	uint32_t backlog_max;
	const char *preload; /* stream file of subscriptions to apply first, or NULL */
	uint32_t cat_base;   /* several fronts: category ids start here (0: at 1) */
};

struct stage_cluster;

struct stage_cluster *stage_cluster_create(const struct stage_cluster_conf *c);
/* One poll. Returns the datagrams handled. */
unsigned int stage_cluster_poll(struct stage_cluster *s);
void stage_cluster_destroy(struct stage_cluster *s);
/* Its matcher, for the control commands it runs (control.h). */
struct spate_matcher *stage_cluster_matcher(struct stage_cluster *s);

struct durable;
struct spate_msg;
/* Record the sub operations from the network in `d` and hold the output
 * until they are durable (durable.h); before the lcores start. */
void stage_cluster_set_durable(struct stage_cluster *s, struct durable *d);
/* Apply one journaled SUB_ADD/SUB_DEL of `owner` (arg: the stage), as
 * the journal replays it: no reply, no record, no rate limit. 0 or a
 * -SPATE_E_* code. Before the lcores start: call stage_cluster_ready()
 * first, and while it says no, flush and let the matching stages drain. */
int stage_cluster_apply(void *arg, uint32_t owner, const struct spate_msg *msg);
/* Room in the backlogs and the message pool for one more operation? */
int stage_cluster_ready(struct stage_cluster *s);
/* Send what the backlogs hold (what the rings take). */
void stage_cluster_flush(struct stage_cluster *s);

/* Several fronts (docs/multihost.md): every event a client sends this
 * front is handed to fn as well (the link relays it to the other
 * fronts), and an event another front relayed is routed here through
 * stage_cluster_relayed (no answer, not relayed again). */
struct spate_raw_event;
void stage_cluster_set_relay(struct stage_cluster *s,
			     void (*fn)(void *ctx, const struct spate_raw_event *ev), void *ctx);
void stage_cluster_relayed(struct stage_cluster *s, const struct spate_raw_event *ev);

/* Several fronts with standbys (docs/multihost.md, "A front's failover"):
 * every SUB_ADD/SUB_DEL from the network is handed to add/del (the link
 * copies it to the other fronts) and, as with the journal, everything
 * this stage sends is held until done() says the copies arrived. */
void stage_cluster_set_repl(struct stage_cluster *s,
			    void (*add)(void *ctx, const struct spate_raw_sub *rs, uint32_t owner),
			    void (*del)(void *ctx, uint64_t id, uint32_t owner),
			    int (*done)(void *ctx), void *ctx);
/* A dead front's subscription taken over (arg: the stage): applied as
 * a replayed one is (nobody answered), then journaled and copied on as
 * this front's own. 0 or a -SPATE_E_* code (an id taken here already). */
int stage_cluster_adopt(void *arg, uint32_t owner, const struct spate_raw_sub *rs);

/* Each message waiting for worker w in the stage's backlog (its ring was
 * full), to fn, in order: what stage_cluster_workers_down discards. */
void stage_cluster_waiting(struct stage_cluster *s, uint32_t w, void (*fn)(void *ctx, void *obj),
			   void *ctx);

/* Multi-host failover (docs/multihost.md): workers w[0..n) were on a
 * match host that died. What waits for them is dropped; the clustering
 * gives their categories to live workers (drt_cluster_worker_set), and
 * every subscription of those categories, and of categories moved away
 * from a dead worker (whose handoff may never have come), is sent again
 * to its category's worker as a SUB_ADD nobody is answered for (a
 * matching stage takes an id it has as a retransmission). The matcher's
 * subscriptions (the journal's replay) are the source of truth. 0, or
 * -SPATE_E_BAD_ID when every worker would be down (the last stays). */
int stage_cluster_workers_down(struct stage_cluster *s, const uint32_t *w, uint32_t n);
/* Those workers' host is back (a new, empty incarnation): placement and
 * balancing may use them again; a category still assigned to them (every
 * worker was down) is sent to them whole. */
void stage_cluster_workers_up(struct stage_cluster *s, const uint32_t *w, uint32_t n);

#endif
