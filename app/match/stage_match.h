/* stage_match.h - a matching stage (one matching worker): owns a set of
 * categories, applies every change to them, matches events inside them,
 * batches the notifications per receiver and ACKs subscription changes
 * once they are applied.
 *
 * Categories move between workers while traffic flows. The cluster stage
 * sends MOVE to the old owner and EXPECT to the new one; the old owner
 * applies everything queued before MOVE, then hands the category (its
 * whole index) to the new owner through their ring; the new owner holds
 * ("parks") every message for the category until it arrives, then
 * applies them in order. A merge across workers is a move followed by a
 * local merge; the category merged into is held until its partner is
 * here. So every event is matched exactly once against every category it
 * was routed to, whatever moves are in flight (see docs/architecture.md).
 * On a match host (docs/multihost.md) the link stage stands for workers
 * on other hosts: a MOVE to worker n_workers hands the index to it, and a
 * handoff from another host arrives in the input ring.
 */
#ifndef SPATED_STAGE_MATCH_H
#define SPATED_STAGE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_ring.h>

struct stage_match_conf {
	uint32_t worker, n_workers;
	struct rte_ring *in;        /* from the cluster stage */
	struct rte_ring **peer_in;  /* [n_workers]: handoffs from worker w (NULL: self) */
	struct rte_ring **peer_out; /* [n_workers]: handoffs to worker w (NULL: self) */
	struct rte_ring *to_tx;
	struct rte_ring *feedback; /* to the cluster stage */
	struct rte_ring *to_link;  /* match host: handoffs to another host (MOVE to
				     * worker n_workers); NULL on one box */
	struct rte_mempool *msg_pool, *pkt_pool;
	const char *cat_engine; /* index inside each category: "drt" or a lib engine */
	double cat_cell;        /* DRt's second-level cell, degrees */
	size_t max_payload;
	uint32_t max_messages;
	bool cpu_accounting; /* count match_cpu_ns (spated.cpu_accounting) */
};

struct stage_match;

struct stage_match *stage_match_create(const struct stage_match_conf *c);
/* One poll: handoffs, then a burst of messages. Returns the work done. */
unsigned int stage_match_poll(struct stage_match *s);
void stage_match_destroy(struct stage_match *s);

#endif
