/* drt_category.h - the matching side of DRt-Cluster: one category's
 * subscription index (the paper's second level), exact.
 *
 * A category holds subscriptions and answers "which of mine match this
 * event". It knows nothing of routing, similarity or workers: the
 * clustering side (drt_cluster.h) decides which category a subscription
 * goes to and which categories an event visits. There are no globals, so
 * each matching worker (lcore, host) owns its own instances; a category is
 * shipped to another worker by iterating its subscriptions
 * (drt_category_foreach) and adding them to a fresh instance there.
 *
 * Subscriptions are borrowed: the pointer passed to add must stay valid
 * until del (or until the category is destroyed or merged away).
 * Not thread-safe: one owner at a time.
 */
#ifndef DRT_CATEGORY_H
#define DRT_CATEGORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "matcher/spate_engine.h"

struct drt_category;

/* Second-level cells of cell_deg degrees (the paper: 2); the same value
 * on every worker. NULL on no memory or cell_deg outside [0.01, 90]. */
struct drt_category *drt_category_create(double cell_deg);
void drt_category_destroy(struct drt_category *c);

/* A pointer the owner chains its own list with (engine_drt's orphans,
 * which must be kept when no memory is left): NULL at creation, never
 * read by the category. */
struct drt_category *drt_category_link(const struct drt_category *c);
void drt_category_set_link(struct drt_category *c, struct drt_category *next);

/* The attribute domains the category's interval index uses (spate_schema.h;
 * default: every attribute on the default domain). Only speed depends on
 * it. The schema must outlive c; set it before the first add. */
void drt_category_set_schema(struct drt_category *c, const struct spate_schema *schema);

/* Add s (its id must not be in c). 0, or -SPATE_E_NO_MEMORY with c
 * unchanged. */
int drt_category_add(struct drt_category *c, const struct spate_sub *s);
/* Add s filed under route_kw, its routing keyword from the cluster
 * (drt_placement.route_kw: keyword id + 1, or 0 when s has none), on
 * the finest level where its rectangle covers at most 16 cells or,
 * coarse (drt_placement.coarse), the finest from level 1 up (drt_grid.h),
 * as the cluster filed it. Same results as add otherwise. */
int drt_category_add_routed(struct drt_category *c, const struct spate_sub *s, uint32_t route_kw,
			    bool coarse);
/* Look up the buckets add_routed(c, s, route_kw) or del_routed(c, s,
 * route_kw) will touch (their cache misses together) and keep them for
 * that call; changes nothing else. A caller that knows the category
 * before it has other work to do (the cluster's side of an insert or
 * delete, drt_cluster_place_begin, drt_cluster_where) calls it first,
 * so the misses overlap that work. Any other add or delete in c first
 * drops what was kept (the next call looks up afresh). */
void drt_category_prefetch(struct drt_category *c, const struct spate_sub *s, uint32_t route_kw,
			   bool coarse);

/* Remove s (the pointer given to add); false if c does not hold it.
 * Never allocates. */
bool drt_category_del(struct drt_category *c, const struct spate_sub *s);
/* The same, told s's filing keyword and coarse (drt_removal, as given to
 * add_routed): no search among s's keywords. A wrong hint only costs the
 * search. */
bool drt_category_del_routed(struct drt_category *c, const struct spate_sub *s, uint32_t route_kw,
			     bool coarse);

/* Append every subscription of c that matches ev (spate_sub_matches) to
 * mv, each once, in no particular order. 0 or -SPATE_E_NO_MEMORY. */
int drt_category_match(struct drt_category *c, const struct spate_event *ev,
		       struct spate_matchvec *mv);

/* The same, looking only under the event keywords kw_mask names
 * (drt_route.kw_mask). Exact when every subscription came in through
 * add_routed with its placement's keyword; a category that had a plain
 * add ignores the mask (still exact, just not narrowed). */
int drt_category_match_routed(struct drt_category *c, const struct spate_event *ev,
			      uint64_t kw_mask, struct spate_matchvec *mv);

/* The same, looking only in the buckets of keys (drt_route.keys: cell
 * << 32 | kwkey, unique). Exact when c's grid is the routing grid (same
 * cell_deg) and every subscription came in through add_routed with its
 * placement's keyword, so a match sits under a key that routed ev here;
 * a category that had a plain add looks everywhere. */
int drt_category_match_keys(struct drt_category *c, const struct spate_event *ev,
			    const uint64_t *keys, uint32_t n_keys, struct spate_matchvec *mv);

/* Move every subscription of `from` into `into` (each keeps its filing
 * keyword); `from` is left empty. 0, or -SPATE_E_NO_MEMORY with every subscription still in exactly one
 * of the two. */
int drt_category_merge(struct drt_category *into, struct drt_category *from);

uint32_t drt_category_size(const struct drt_category *c);
/* Call fn once for every subscription of c (to ship a category); c must
 * not change meanwhile. */
void drt_category_foreach(const struct drt_category *c,
			  void (*fn)(const struct spate_sub *s, void *ctx), void *ctx);

struct drt_category_stats {
	uint64_t events;     /* match calls */
	uint64_t candidates; /* index entries looked at by match */
	uint64_t matches;
	size_t bytes; /* memory the index owns (not the subscriptions) */
};
void drt_category_stats(const struct drt_category *c, struct drt_category_stats *st);

#endif
