/* drt_cluster.h - the clustering side of DRt-Cluster: category summaries,
 * placement of subscriptions, routing of events, correlation, merging and
 * load balancing. It holds no subscription index: the matching side
 * (drt_category.h, one instance per category, owned by a worker) does.
 *
 * One clustering node runs this; workers (lcores, hosts) own categories.
 * The protocol between them, in the order a caller must keep:
 *   - SUB_ADD q: drt_cluster_place(q) names q's category and its worker
 *     (and whether the worker must create the category first); the worker
 *     adds q to that category. Then carry out drt_cluster_take_actions().
 *   - SUB_DEL q: drt_cluster_remove(q) names q's category and worker; the
 *     worker deletes q there (and destroys the category when `emptied`).
 *   - EVENT ev: drt_cluster_route(ev) lists the categories (with their
 *     workers) whose summary admits ev: every category holding a match is
 *     among them, so matching in those alone is exact. Afterwards pass the
 *     ids of the categories that did match to drt_cluster_feedback().
 *     When drt_cluster_period_due(), call drt_cluster_period_end() and
 *     carry out the actions.
 * Actions (merges, moves) are already in effect in the cluster's view when
 * they are handed out: route() names only `into` after a merge and the new
 * worker after a move. A distributed caller that carries an action out
 * asynchronously must keep serving the old place until the handover is
 * done (or hold events back) to stay exact.
 *
 * Category ids are stable and never reused. Not thread-safe: one owner.
 * The formulas are in docs/algorithms.md (reconstructions marked there).
 */
#ifndef DRT_CLUSTER_H
#define DRT_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engines/drt/drt_grid.h"
#include "engines/drt/drt_params.h"
#include "matcher/spate_engine.h"
#include "proto/spate_types.h"

struct drt_cluster;

/* NULL when a parameter is out of its range (drt_params table) or on no
 * memory. The parameters are copied. */
struct drt_cluster *drt_cluster_create(const struct drt_params *p);
void drt_cluster_destroy(struct drt_cluster *cl);

struct drt_placement {
	uint32_t cat;      /* category id */
	uint32_t worker;   /* its owner */
	bool created;      /* a new category: the worker creates it first */
	uint32_t route_kw; /* q's routing keyword (kw id + 1; 0 = q has none):
			    * pass it to drt_category_add_routed() so routes'
			    * kw_mask can narrow matching */
	bool coarse;       /* q's routing keyword is rare (drt_params.rare_kw):
			    * it is filed a grid level up, in fewer cells;
			    * pass it to drt_category_add_routed() too */
};
/* Choose q's category (Sim = alpha*KeySim + (1-alpha)*SpatialSim over
 * the categories near q; a new one below new_th) and record q in its
 * summary. q->id must not be placed already. 0 or -SPATE_E_NO_MEMORY
 * (nothing changed). May queue merges. */
int drt_cluster_place(struct drt_cluster *cl, const struct spate_sub *q, struct drt_placement *out);

/* drt_cluster_place() in two halves, so that a caller can start the
 * cache misses of q's category (drt_category_prefetch) while the cluster
 * records q: begin chooses and changes nothing; end records q exactly as
 * drt_cluster_place() would have. Nothing may touch cl in between. */
struct drt_place_plan {
	uint32_t cat;      /* q's category id, 0 = a new category will be made */
	uint32_t route_kw; /* q's routing keyword (as in drt_placement) */
	bool coarse;       /* as in drt_placement */
	/* private to drt_cluster.c */
	struct drt_span sp;
	void *target, *similar;
};
void drt_cluster_place_begin(struct drt_cluster *cl, const struct spate_sub *q,
			     struct drt_place_plan *plan);
int drt_cluster_place_end(struct drt_cluster *cl, const struct spate_sub *q,
			  const struct drt_place_plan *plan, struct drt_placement *out);

/* Where q is (placed before, same content): its category id, routing
 * keyword and coarse, as drt_cluster_remove() will report them, or
 * -SPATE_E_UNKNOWN_ID.
 * Changes nothing q's removal sees, but looks up the keys
 * drt_cluster_remove() will meet (their misses together) and keeps them
 * for it: a caller looks first, starts the category's misses too
 * (drt_category_prefetch), then removes, with nothing else touching cl
 * in between (if something does, remove looks the keys up afresh). */
int drt_cluster_where(struct drt_cluster *cl, const struct spate_sub *q, uint32_t *cat,
		      uint32_t *route_kw, bool *coarse);

struct drt_removal {
	uint32_t cat, worker;
	bool emptied;      /* the category is gone: the worker destroys it */
	uint32_t route_kw; /* q's routing keyword, as placed (drt_placement):
			    * drt_category_del_routed() goes straight to it */
	bool coarse;       /* as placed */
};
/* Take q (placed before, same content) out of its category's summary.
 * 0, or -SPATE_E_UNKNOWN_ID when q is not placed. Never allocates. */
int drt_cluster_remove(struct drt_cluster *cl, const struct spate_sub *q, struct drt_removal *out);

struct drt_route {
	uint32_t cat, worker;
	/* Which of the event's keywords led here: bit 0 = keyword-less
	 * subscriptions, bit i (1..62) = ev->kw[i-1], bit 63 = any of
	 * ev->kw[62..]. A match in the category is filed under one of them
	 * (drt_category_match_routed). */
	uint64_t kw_mask;
	/* The routing keys (cell << 32 | kwkey, drt_grid.h cells of the
	 * routing grid) whose lists named this category, each once: the
	 * only buckets of a category on the same grid that can hold a match
	 * (drt_category_match_keys). NULL when they could not be recorded
	 * (no memory): use kw_mask then. */
	const uint64_t *keys;
	uint32_t n_keys;
};
/* The categories ev must be matched in; *out points to n entries owned by
 * the cluster, valid until the next call. Counts ev for the period. */
size_t drt_cluster_route(struct drt_cluster *cl, const struct spate_event *ev,
			 const struct drt_route **out);
/* The ids of the categories in which the last routed event matched
 * (correlation: every pair gets one co-match). */
void drt_cluster_feedback(struct drt_cluster *cl, const uint32_t *cats, size_t n);

enum drt_action_kind {
	DRT_ACTION_MERGE = 1, /* move every subscription of cat into `into`, drop cat */
	DRT_ACTION_MOVE = 2,  /* cat changes owner from from_worker to to_worker */
};
struct drt_action {
	uint32_t kind;
	uint32_t cat;
	uint32_t into;        /* MERGE only */
	uint32_t from_worker; /* MERGE: cat's worker; MOVE: the old owner */
	uint32_t to_worker;   /* MERGE: into's worker; MOVE: the new owner */
	uint32_t size;        /* subscriptions of cat (what a handover carries) */
};
/* Hand out up to max queued actions, oldest first; returns how many. */
size_t drt_cluster_take_actions(struct drt_cluster *cl, struct drt_action *out, size_t max);

/* New parameters at run time (spatectl): 0, or -1 with the reason in err.
 * route_cell and workers shape the routing grid and the placement, so
 * they change at the next start only; every other parameter is read
 * afresh when it is used and takes effect at once. */
int drt_cluster_set_params(struct drt_cluster *cl, const struct drt_params *p, char *err,
			   size_t errlen);

/* lambda events have been routed since the last period end. */
bool drt_cluster_period_due(const struct drt_cluster *cl);
/* End the period: formula (7) loads, the (8)/(9) plan as MOVE actions,
 * correlation aging, counters reset. 0 or -SPATE_E_NO_MEMORY (then no
 * moves this period; still consistent). */
int drt_cluster_period_end(struct drt_cluster *cl);

/* Number new categories from base on (several clustering nodes share
 * the workers: each its own id range). Before the first placement only:
 * 0, or -SPATE_E_NOT_ALLOWED. */
int drt_cluster_set_id_base(struct drt_cluster *cl, uint32_t base);

/* Worker w goes down (its host died: docs/multihost.md) or comes back
 * up. Down: each category it owned is given to the live worker holding
 * the fewest subscriptions at once (no action is queued: the owner is
 * gone, the caller rebuilds those categories from its own copy of their
 * subscriptions; drt_cluster_cat_at shows the new workers), and no
 * placement or move picks w until it is up again. Returns how many
 * categories were reassigned (0 when w was down already, or on up), or
 * -SPATE_E_BAD_ID for a worker out of range or the last live one. */
int drt_cluster_worker_set(struct drt_cluster *cl, uint32_t w, bool up);
bool drt_cluster_worker_up(const struct drt_cluster *cl, uint32_t w);

/* A category's summary, for listing (i < drt_cluster_count()). */
struct drt_cat_info {
	uint32_t id, worker, size;
	struct spate_rect mbr;
	uint64_t t_num, n_ins, n_del; /* this period */
};
uint32_t drt_cluster_count(const struct drt_cluster *cl);
void drt_cluster_cat_at(const struct drt_cluster *cl, uint32_t i, struct drt_cat_info *info);
/* Every category as the engine interface shows it (the `categories`
 * operation of the drt engine and of spated's cluster stage alike). */
void drt_cluster_each_category(const struct drt_cluster *cl, spate_category_fn fn, void *ctx);

struct drt_cluster_stats {
	uint32_t categories;
	uint64_t events, routed; /* routed = category visits, summed */
	uint64_t created, merges_in_node, merges_between_nodes, data_moved;
	uint64_t merged_in_node_subs; /* subscriptions the in-node merges moved */
	uint64_t merges_no_corr;      /* of all merges, made with no correlated
				       * pair that fits (nearest by space) */
	uint64_t periods, moves;
	uint64_t moved_subs; /* subscriptions the balancing moves moved */
	size_t corr_pairs;
	size_t bytes; /* memory of the summaries and indexes */
	/* routing (cell, keyword) keys and their (key, category) entries:
	 * entries / keys = categories an event keyword meets in a cell */
	uint64_t route_keys, route_entries;
	/* routing cells and their footprints' (cell, category) entries */
	uint64_t cells, cell_entries;
};
void drt_cluster_stats(const struct drt_cluster *cl, struct drt_cluster_stats *st);

#endif
