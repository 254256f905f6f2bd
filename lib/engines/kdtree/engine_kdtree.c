/* engine_kdtree.c - the kd-tree partitioning baseline in the style of
 * PS2Stream (Chen et al., ICDE 2017), for comparison with DRt-Cluster: space
 * is split by a kd-tree over the subscriptions' rectangle centres (median
 * splits, alternating axes) into KD_LEAVES partitions; a subscription is
 * listed in every partition its rectangle overlaps, an event is checked
 * against its own partition only.
 *
 * Online: the tree is rebuilt from the live subscriptions whenever their
 * number has doubled (or halved) since the last build, so its cost is
 * amortised. Exact: a node sends an event left when its coordinate is
 * below the split and right otherwise, and sends a rectangle left when it
 * starts below the split and right when it ends at or above it, so every
 * rectangle holding the point reaches the point's leaf.
 */
#include <stdint.h>
#include <stdlib.h>

#include "matcher/spate_engine.h"
#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"
#include "util/spate_ptrvec.h"

#define KD_DEPTH 6 /* 64 partitions */
#define KD_LEAVES (1u << KD_DEPTH)
#define KD_NODES (KD_LEAVES - 1) /* internal nodes, heap order */

struct spate_engine {
	int32_t split[KD_NODES]; /* node i splits on x at even depth, y at odd */
	struct spate_ptrvec leaf[KD_LEAVES];
	struct spate_idmap *live; /* sub id -> sub */
	size_t built_for;         /* live count at the last build */
	uint64_t rebuilds;
};

static bool on_x(uint32_t node)
{
	uint32_t depth = 0;

	for (uint32_t n = node + 1; n > 1; n >>= 1)
		depth++;
	return depth % 2 == 0;
}

/* Leaves a rectangle reaches: fn(leaf) for each; non-zero stops. */
static int each_leaf(struct spate_engine *e, const struct spate_rect *r, uint32_t node,
		     int (*fn)(struct spate_ptrvec *l, const struct spate_sub *s),
		     const struct spate_sub *s)
{
	if (node >= KD_NODES)
		return fn(&e->leaf[node - KD_NODES], s);
	bool x = on_x(node);
	int32_t lo = x ? r->min_lon : r->min_lat, hi = x ? r->max_lon : r->max_lat;
	int rc = 0;
	if (lo < e->split[node])
		rc = each_leaf(e, r, 2 * node + 1, fn, s);
	if (rc == 0 && hi >= e->split[node])
		rc = each_leaf(e, r, 2 * node + 2, fn, s);
	return rc;
}

static int leaf_push(struct spate_ptrvec *l, const struct spate_sub *s)
{
	return spate_ptrvec_push(l, s);
}

static int leaf_pull(struct spate_ptrvec *l, const struct spate_sub *s)
{
	spate_ptrvec_remove(l, s);
	return 0;
}

struct centres {
	int32_t *x, *y;
	size_t n;
};

static void collect(uint64_t key, void *val, void *ctx)
{
	const struct spate_sub *s = val;
	struct centres *c = ctx;

	(void)key;
	c->x[c->n] = (int32_t)(((int64_t)s->rect.min_lon + s->rect.max_lon) / 2);
	c->y[c->n] = (int32_t)(((int64_t)s->rect.min_lat + s->rect.max_lat) / 2);
	c->n++;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Median splits over n centres, reordered in place: sort by the node's
 * axis, split at the median, recurse on the halves. tmp holds n int64. */
static void build_node(struct spate_engine *e, uint32_t node, int32_t *x, int32_t *y, size_t n,
		       int64_t *tmp)
{
	if (node >= KD_NODES)
		return;
	bool ax = on_x(node);
	int32_t *key = ax ? x : y, *other = ax ? y : x;
	if (n == 0) {
		e->split[node] = 0;
		build_node(e, 2 * node + 1, x, y, 0, tmp);
		build_node(e, 2 * node + 2, x, y, 0, tmp);
		return;
	}
	/* sort (key, other) pairs by key, packed in one int64 each */
	for (size_t i = 0; i < n; i++)
		tmp[i] = (int64_t)key[i] * ((int64_t)1 << 32) + (int64_t)(uint32_t)other[i];
	qsort(tmp, n, sizeof(*tmp), cmp_i64);
	for (size_t i = 0; i < n; i++) {
		key[i] = (int32_t)(tmp[i] >> 32);
		other[i] = (int32_t)(uint32_t)tmp[i];
	}
	size_t mid = n / 2;
	e->split[node] = key[mid];
	build_node(e, 2 * node + 1, x, y, mid, tmp);
	build_node(e, 2 * node + 2, x + mid, y + mid, n - mid, tmp);
}

static void relist(uint64_t key, void *val, void *ctx)
{
	struct spate_engine *e = ctx;

	(void)key;
	/* out of memory here leaves a sub unlisted: flagged by the caller */
	if (each_leaf(e, &((const struct spate_sub *)val)->rect, 0, leaf_push, val) != 0)
		e->built_for = SIZE_MAX;
}

/* Rebuild the tree from the live subscriptions. 0 or -1 (no memory; the
 * old tree stays). */
static int rebuild(struct spate_engine *e)
{
	size_t n = spate_idmap_count(e->live);
	struct centres c = { malloc((n + 1) * sizeof(int32_t)), malloc((n + 1) * sizeof(int32_t)),
			     0 };
	int64_t *tmp = malloc((n + 1) * sizeof(int64_t));
	int rc = -1;

	if (c.x && c.y && tmp) {
		spate_idmap_foreach(e->live, collect, &c);
		build_node(e, 0, c.x, c.y, c.n, tmp);
		for (uint32_t i = 0; i < KD_LEAVES; i++)
			e->leaf[i].n = 0;
		e->built_for = n;
		spate_idmap_foreach(e->live, relist, e);
		rc = e->built_for == SIZE_MAX ? -1 : 0;
		e->built_for = n;
		e->rebuilds++;
	}
	free(c.x);
	free(c.y);
	free(tmp);
	return rc;
}

static struct spate_engine *kd_create(const struct spate_engine_params *params)
{
	struct spate_engine *e = calloc(1, sizeof(*e));

	(void)params;
	if (e == NULL)
		return NULL;
	e->live = spate_idmap_create();
	if (e->live == NULL) {
		free(e);
		return NULL;
	}
	/* Before the first build every split is 0: a valid, if poor, tree. */
	return e;
}

static void kd_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	for (uint32_t i = 0; i < KD_LEAVES; i++)
		free(e->leaf[i].v);
	spate_idmap_destroy(e->live);
	free(e);
}

static int kd_sub_add(struct spate_engine *e, const struct spate_sub *s)
{
	if (spate_idmap_put(e->live, s->id, (void *)(uintptr_t)s) != 0)
		return -SPATE_E_NO_MEMORY;
	size_t n = spate_idmap_count(e->live);
	if (n >= 64 && n >= 2 * e->built_for) {
		if (rebuild(e) != 0) {
			spate_idmap_del(e->live, s->id);
			rebuild(e); /* back to a tree of what is live */
			return -SPATE_E_NO_MEMORY;
		}
		return 0; /* the rebuild listed s too */
	}
	if (each_leaf(e, &s->rect, 0, leaf_push, s) != 0) {
		each_leaf(e, &s->rect, 0, leaf_pull, s);
		spate_idmap_del(e->live, s->id);
		return -SPATE_E_NO_MEMORY;
	}
	return 0;
}

static void kd_sub_del(struct spate_engine *e, const struct spate_sub *s)
{
	if (spate_idmap_del(e->live, s->id) == NULL)
		return;
	each_leaf(e, &s->rect, 0, leaf_pull, s);
	size_t n = spate_idmap_count(e->live);
	if (e->built_for >= 128 && n <= e->built_for / 4)
		rebuild(e); /* a failed rebuild keeps the old, still exact, tree */
}

static int kd_match(struct spate_engine *e, const struct spate_event *ev, struct spate_matchvec *mv)
{
	uint32_t node = 0;

	while (node < KD_NODES)
		node = 2 * node + ((on_x(node) ? ev->lon : ev->lat) < e->split[node] ? 1 : 2);
	const struct spate_ptrvec *l = &e->leaf[node - KD_NODES];
	for (uint32_t i = 0; i < l->n; i++) {
		const struct spate_sub *s = l->v[i];
		if (spate_sub_matches(s, ev) && spate_matchvec_push(mv, s) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	return 0;
}

static void kd_stats(const struct spate_engine *e, FILE *f)
{
	size_t listed = 0, max = 0;

	for (uint32_t i = 0; i < KD_LEAVES; i++) {
		listed += e->leaf[i].n;
		if (e->leaf[i].n > max)
			max = e->leaf[i].n;
	}
	fprintf(f, "{\"partitions\":%u,\"listed\":%zu,\"largest_partition\":%zu,\"rebuilds\":%llu}",
		KD_LEAVES, listed, max, (unsigned long long)e->rebuilds);
}

const struct spate_engine_ops spate_engine_kdtree = {
	.name = "kdtree",
	.help = "PS2Stream-style kd-tree partitioning (baseline for drt)",
	.create = kd_create,
	.destroy = kd_destroy,
	.sub_add = kd_sub_add,
	.sub_del = kd_sub_del,
	.match = kd_match,
	.stats = kd_stats,
};
