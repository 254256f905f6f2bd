/* engine_drt.c - the DRt-Cluster engine (issue 3): the clustering side
 * (drt_cluster.h) and the matching side (drt_category.h) composed in one
 * process. Workers are in-process labels here; the pipeline of lcores and
 * hosts composes the same two modules across rings.
 *
 * Exact because the cluster routes every event to every category that can
 * hold a match, and each category's index is exact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engines/drt/drt_category.h"
#include "engines/drt/drt_cluster.h"
#include "matcher/spate_engine.h"
#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"

#define ACTION_BATCH 16

struct spate_engine {
	struct drt_params p;
	struct spate_schema schema; /* for the categories' interval indexes */
	/* The categories' grid is the routing grid: a route's keys name the
	 * only buckets worth a look (drt_category_match_keys). */
	bool same_grid;
	struct drt_cluster *cl;
	struct spate_idmap *cats; /* category id -> struct drt_category */
	uint32_t *hit;            /* ids of the categories an event matched in */
	size_t cap_hit;
	struct drt_category_stats retired; /* figures of categories gone */
	/* Categories whose merge ran out of memory half way: the cluster no
	 * longer routes to them, so every event visits them (rare, exact).
	 * Chained through the categories themselves: keeping one must not
	 * need memory, there being none. */
	struct drt_category *orphans;
	uint64_t n_orphans, orphaned; /* now, and ever */
	/* drt_time_workers: nanoseconds spent matching in each worker's
	 * categories (Fig. 7 in one process: what each worker would take) */
	uint64_t *worker_ns;
	/* drt_only_worker: 0, or w + 1 to visit worker w's categories alone
	 * (spate-bench's per-worker CPU time) */
	uint32_t only_worker;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void retire(struct spate_engine *e, struct drt_category *c)
{
	struct drt_category_stats st;

	drt_category_stats(c, &st);
	e->retired.events += st.events;
	e->retired.candidates += st.candidates;
	e->retired.matches += st.matches;
	drt_category_destroy(c);
}

/* Carry out the cluster's merges (moves only relabel, nothing to do
 * in-process). A merge that runs out of memory leaves some subscriptions
 * in `from`, which the cluster no longer routes to: it becomes an orphan,
 * matched on every event until its subscriptions are deleted. Nothing
 * fails: the subscriptions stay stored and matched either way. Merges
 * come from adds only; an event's period end queues moves alone. */
static void carry_out(struct spate_engine *e)
{
	struct drt_action a[ACTION_BATCH];
	size_t n;

	while ((n = drt_cluster_take_actions(e->cl, a, ACTION_BATCH)) > 0)
		for (size_t i = 0; i < n; i++) {
			if (a[i].kind != DRT_ACTION_MERGE)
				continue;
			struct drt_category *from = spate_idmap_get(e->cats, a[i].cat);
			struct drt_category *into = spate_idmap_get(e->cats, a[i].into);
			if (from == NULL || into == NULL)
				continue;
			spate_idmap_del(e->cats, a[i].cat);
			if (drt_category_merge(into, from) == 0) {
				retire(e, from);
				continue;
			}
			drt_category_set_link(from, e->orphans);
			e->orphans = from;
			e->n_orphans++;
			e->orphaned++;
		}
}

static struct spate_engine *drt_create(const struct spate_engine_params *params)
{
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	if (params) {
		e->p = params->drt;
		e->schema = params->schema;
	} else {
		drt_params_default(&e->p);
		spate_schema_default(&e->schema);
	}
	e->same_grid = e->p.cat_cell == e->p.route_cell;
	e->cl = drt_cluster_create(&e->p);
	e->cats = spate_idmap_create();
	/* a throwaway category validates cat_cell */
	struct drt_category *probe = drt_category_create(e->p.cat_cell);
	if (e->cl == NULL || e->cats == NULL || probe == NULL) {
		drt_category_destroy(probe);
		drt_cluster_destroy(e->cl);
		spate_idmap_destroy(e->cats);
		free(e);
		return NULL;
	}
	drt_category_destroy(probe);
	e->only_worker = params ? params->drt_only_worker : 0;
	if (params && params->drt_time_workers &&
	    (e->worker_ns = calloc(e->p.workers, sizeof(*e->worker_ns))) == NULL) {
		drt_cluster_destroy(e->cl);
		spate_idmap_destroy(e->cats);
		free(e);
		return NULL;
	}
	return e;
}

static void destroy_cat(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	drt_category_destroy(val);
}

static void drt_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	spate_idmap_foreach(e->cats, destroy_cat, NULL);
	spate_idmap_destroy(e->cats);
	for (struct drt_category *o = e->orphans, *next; o != NULL; o = next) {
		next = drt_category_link(o);
		drt_category_destroy(o);
	}
	drt_cluster_destroy(e->cl);
	free(e->hit);
	free(e->worker_ns);
	free(e);
}

static int drt_sub_add(struct spate_engine *e, const struct spate_sub *q)
{
	struct drt_placement pl;
	struct drt_place_plan plan;
	struct drt_category *c = NULL;

	/* the category's misses start before the cluster records q */
	drt_cluster_place_begin(e->cl, q, &plan);
	if (plan.cat != 0 && (c = spate_idmap_get(e->cats, plan.cat)) != NULL)
		drt_category_prefetch(c, q, plan.route_kw, plan.coarse);
	int rc = drt_cluster_place_end(e->cl, q, &plan, &pl);
	if (rc != 0)
		return rc;
	if (pl.created) {
		c = drt_category_create(e->p.cat_cell);
		if (c != NULL)
			drt_category_set_schema(c, &e->schema);
		if (c != NULL && spate_idmap_put(e->cats, pl.cat, c) != 0) {
			drt_category_destroy(c);
			c = NULL;
		}
	} else {
		c = spate_idmap_get(e->cats, pl.cat);
	}
	if (c == NULL || drt_category_add_routed(c, q, pl.route_kw, pl.coarse) != 0) {
		struct drt_removal rm;
		drt_cluster_remove(e->cl, q, &rm);
		if (rm.emptied) {
			struct drt_category *gone = spate_idmap_del(e->cats, rm.cat);
			if (gone)
				retire(e, gone);
		}
		carry_out(e);
		return -SPATE_E_NO_MEMORY;
	}
	/* q is stored: a merge that runs out of memory leaves an orphan,
	 * still matched and deleted (carry_out), not a failed add - the
	 * caller would free q while a category holds it. */
	carry_out(e);
	return 0;
}

/* Delete q from the orphan holding it, if one does; an orphan left
 * empty goes. */
static void orphans_del(struct spate_engine *e, const struct spate_sub *q)
{
	for (struct drt_category *o = e->orphans, *prev = NULL; o != NULL;
	     prev = o, o = drt_category_link(o)) {
		if (!drt_category_del(o, q))
			continue;
		if (drt_category_size(o) == 0) {
			if (prev != NULL)
				drt_category_set_link(prev, drt_category_link(o));
			else
				e->orphans = drt_category_link(o);
			e->n_orphans--;
			retire(e, o);
		}
		return;
	}
}

static void drt_sub_del(struct spate_engine *e, const struct spate_sub *q)
{
	struct drt_removal rm;
	struct drt_category *c;
	uint32_t cat, kw;
	bool coarse;

	/* the category's misses start before the cluster's side of it */
	if (drt_cluster_where(e->cl, q, &cat, &kw, &coarse) == 0 &&
	    (c = spate_idmap_get(e->cats, cat)) != NULL)
		drt_category_prefetch(c, q, kw, coarse);
	if (drt_cluster_remove(e->cl, q, &rm) != 0)
		return;
	c = spate_idmap_get(e->cats, rm.cat);
	if (c == NULL || !drt_category_del_routed(c, q, rm.route_kw, rm.coarse))
		orphans_del(e, q);
	if (c != NULL && rm.emptied) {
		spate_idmap_del(e->cats, rm.cat);
		retire(e, c);
	}
}

static int drt_match(struct spate_engine *e, const struct spate_event *ev,
		     struct spate_matchvec *mv)
{
	const struct drt_route *r;
	size_t n = drt_cluster_route(e->cl, ev, &r), n_hit = 0;

	if (n > e->cap_hit) {
		uint32_t *nh = realloc(e->hit, n * sizeof(*nh));
		if (nh == NULL)
			return -SPATE_E_NO_MEMORY;
		e->hit = nh;
		e->cap_hit = n;
	}
	for (size_t i = 0; i < n; i++) {
		struct drt_category *c = spate_idmap_get(e->cats, r[i].cat);
		size_t before = mv->n;
		if (c == NULL || (e->only_worker && r[i].worker + 1 != e->only_worker))
			continue;
		uint64_t t0 = e->worker_ns ? mono_ns() : 0;
		int rc = e->same_grid && r[i].keys != NULL
				 ? drt_category_match_keys(c, ev, r[i].keys, r[i].n_keys, mv)
				 : drt_category_match_routed(c, ev, r[i].kw_mask, mv);
		if (rc != 0)
			return -SPATE_E_NO_MEMORY;
		if (e->worker_ns && r[i].worker < e->p.workers)
			e->worker_ns[r[i].worker] += mono_ns() - t0;
		if (mv->n > before)
			e->hit[n_hit++] = r[i].cat;
	}
	for (struct drt_category *o = e->only_worker ? NULL : e->orphans; o != NULL;
	     o = drt_category_link(o))
		if (drt_category_match(o, ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
	if (n_hit > 1)
		drt_cluster_feedback(e->cl, e->hit, n_hit);
	if (drt_cluster_period_due(e->cl)) {
		drt_cluster_period_end(e->cl); /* no memory: no moves this time */
		carry_out(e);
	}
	return 0;
}

struct sum_ctx {
	struct drt_category_stats sum;
};

static void sum_cat(uint64_t key, void *val, void *ctx)
{
	struct sum_ctx *x = ctx;
	struct drt_category_stats st;

	(void)key;
	drt_category_stats(val, &st);
	x->sum.candidates += st.candidates;
	x->sum.matches += st.matches;
	x->sum.bytes += st.bytes;
}

static void drt_stats(const struct spate_engine *e, FILE *f)
{
	struct drt_cluster_stats cs;
	struct sum_ctx x = { e->retired };

	x.sum.bytes = 0;
	drt_cluster_stats(e->cl, &cs);
	spate_idmap_foreach(e->cats, sum_cat, &x);
	double ev = cs.events ? (double)cs.events : 1;
	fprintf(f,
		"{\"categories\":%u,\"events\":%" PRIu64 ",\"routed\":%" PRIu64
		",\"candidates\":%" PRIu64 ",\"routed_per_event\":%.3f,"
		"\"candidates_per_event\":%.3f,\"created\":%" PRIu64 ",\"merges_in_node\":%" PRIu64
		",\"merges_between_nodes\":%" PRIu64 ",\"data_moved\":%" PRIu64
		",\"merged_in_node_subs\":%" PRIu64 ",\"merges_no_corr\":%" PRIu64
		",\"moved_subs\":%" PRIu64 ",\"periods\":%" PRIu64 ",\"rebalance_moves\":%" PRIu64
		",\"corr_pairs\":%zu"
		",\"cluster_bytes\":%zu,\"category_bytes\":%zu"
		",\"route_keys\":%" PRIu64 ",\"route_entries\":%" PRIu64
		",\"orphans\":%" PRIu64 ",\"orphaned\":%" PRIu64,
		cs.categories, cs.events, cs.routed, x.sum.candidates, (double)cs.routed / ev,
		(double)x.sum.candidates / ev, cs.created, cs.merges_in_node,
		cs.merges_between_nodes, cs.data_moved, cs.merged_in_node_subs, cs.merges_no_corr,
		cs.moved_subs, cs.periods, cs.moves, cs.corr_pairs, cs.bytes, x.sum.bytes,
		cs.route_keys, cs.route_entries, e->n_orphans, e->orphaned);
	if (e->worker_ns) {
		fprintf(f, ",\"worker_match_ns\":[");
		for (uint32_t w = 0; w < e->p.workers; w++)
			fprintf(f, "%s%" PRIu64, w ? "," : "", e->worker_ns[w]);
		fprintf(f, "]");
	}
	fprintf(f, "}");
}

/* Parameters at run time: the cluster decides which may change; the
 * categories' own grid (cat_cell) is fixed at their creation. */
static int drt_set_params(struct spate_engine *e, const struct spate_engine_params *p, char *err,
			  size_t errlen)
{
	if (p->drt.cat_cell != e->p.cat_cell) {
		snprintf(err, errlen,
			 "cat_cell changes at the next start only (it shapes every category's "
			 "grid)");
		return -1;
	}
	if (drt_cluster_set_params(e->cl, &p->drt, err, errlen) != 0)
		return -1;
	e->p = p->drt;
	e->only_worker = p->drt_only_worker;
	return 0;
}

/* An operator's "rebalance now": end the load period early. */
static void drt_rebalance(struct spate_engine *e)
{
	drt_cluster_period_end(e->cl);
	carry_out(e);
}

static void drt_categories(const struct spate_engine *e, spate_category_fn fn, void *ctx)
{
	drt_cluster_each_category(e->cl, fn, ctx);
}

const struct spate_engine_ops spate_engine_drt = {
	.name = "drt",
	.help = "DRt-Cluster: online categories, summary routing, merging, balancing",
	.create = drt_create,
	.destroy = drt_destroy,
	.sub_add = drt_sub_add,
	.sub_del = drt_sub_del,
	.match = drt_match,
	.stats = drt_stats,
	.set_params = drt_set_params,
	.rebalance = drt_rebalance,
	.categories = drt_categories,
};
