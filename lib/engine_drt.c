/* engine_drt.c - the DRt-Cluster engine (issue 3; algorithms in
 * ../shared/design/algorithms.md): online clustering of subscriptions into
 * categories, routing of events to the categories whose summary admits
 * them, exact matching inside, correlation-driven merging and load
 * rebalancing over workers.
 *
 * Exactness rests on one invariant: a category's summary admits every
 * event that matches one of its subscriptions. The summary is the MBR
 * (grown on insert and merge, never shrunk on delete) and the keyword
 * multiset plus the count of keyword-less subscriptions; an event is routed
 * to a category only if its point is in the MBR and it carries one of the
 * category's keywords (or the category has keyword-less subscriptions).
 * The routing grid lists a category in every cell its MBR overlaps, so an
 * event's cell lists every category whose MBR holds the point.
 *
 * Workers are, for now, a label per category (the placement); the lcore
 * and host stages of later issues carry the moves out.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drt_balance.h"
#include "drt_params.h"
#include "spate_engine.h"
#include "spate_err.h"
#include "spate_idmap.h"
#include "spate_ptrvec.h"

#define DRT_MIN_AREA_CELLS 1.0 /* A(c) clamped to one routing cell (reconstructed) */
#define DRT_WIDE_CELLS 1024    /* categories over more cells go on the wide list */
#define DRT_MAX_CORR_CATS 32   /* co-matching categories counted per event */
#define DRT_CAT_CELL (2 * SPATE_COORD_SCALE) /* second-level cell (paper: 2) */
#define DRT_CAT_NX 180
#define DRT_CAT_NY 90
#define DRT_CAT_WIDE 16        /* subs over more cells go in the wide row */
#define DRT_CAT_WIDE_ROW 0xffffffffull
#define DRT_KW_NONE 1          /* kwkey of keyword-less subs; else keyword + 2 */


struct drt_cat {
	uint32_t id;      /* stable, never reused */
	uint32_t slot;    /* index in engine->cats */
	uint32_t worker;
	struct spate_rect mbr;
	struct spate_idmap *kw_count; /* keyword id + 1 -> count */
	uint64_t kw_total;
	uint32_t n_nokw;
	const struct spate_sub **subs;
	uint32_t n, cap;
	/* Second level: a grid of DRT_CAT_CELL cells (paper: 2 degrees) by
	 * keyword. A subscription is filed under one keyword of its own (the
	 * rarest in the category when it came; "none" for keyword-less ones)
	 * in every cell its rectangle overlaps, or once in the category's wide
	 * row when that is more than DRT_CAT_WIDE cells. An event visits, in
	 * its own cell and in the wide row, the buckets of its own keywords
	 * and "none": a matching sub carries its bucket keyword and covers the
	 * event's cell, so it is found, and exactly once. */
	struct spate_idmap *buckets; /* cell << 32 | kwkey -> struct spate_ptrvec */
	/* the cells it is listed in */
	uint32_t x0, x1, y0, y1;
	bool wide;
	/* period counters for formula (7) */
	uint64_t t_num, n_ins, n_del;
	/* scratch for merging and balancing */
	double cs, cd;
};

struct spate_engine {
	struct drt_params p;
	int64_t cell_units;       /* routing cell side, 1e-7 degree */
	uint32_t nx, ny;
	struct spate_idmap *cells; /* cell index + 1 -> struct spate_ptrvec */
	struct spate_ptrvec wide;
	struct drt_cat **cats;
	uint32_t n_cats, cap_cats, next_id;
	struct spate_idmap *by_id;  /* category id -> category */
	struct spate_idmap *home;   /* sub id -> category */
	struct spate_idmap *bucket_of; /* sub id -> bucket keyword + 2 (1 = no keyword) */
	struct spate_idmap *corr;   /* (lo id << 32 | hi id) -> count */
	uint32_t next_worker;
	/* figures */
	uint64_t events, routed, candidates, merges_in, merges_between, data_moved;
	uint64_t periods, moves, period_events;
	uint32_t event_seq;
};

/* ---- summary and similarity ---- */

static double area_deg2(const struct spate_rect *r)
{
	return ((double)r->max_lon - r->min_lon) / SPATE_COORD_SCALE *
	       (((double)r->max_lat - r->min_lat) / SPATE_COORD_SCALE);
}

static struct spate_rect rect_union(const struct spate_rect *a, const struct spate_rect *b)
{
	return (struct spate_rect){
		a->min_lon < b->min_lon ? a->min_lon : b->min_lon,
		a->min_lat < b->min_lat ? a->min_lat : b->min_lat,
		a->max_lon > b->max_lon ? a->max_lon : b->max_lon,
		a->max_lat > b->max_lat ? a->max_lat : b->max_lat,
	};
}

static uintptr_t kw_count(const struct drt_cat *c, uint32_t kw)
{
	return (uintptr_t)spate_idmap_get(c->kw_count, (uint64_t)kw + 1);
}

/* Add delta to a keyword's count; 0 or -1 on no memory. */
static int kw_adjust(struct drt_cat *c, uint32_t kw, intptr_t delta)
{
	uintptr_t n = kw_count(c, kw) + (uintptr_t)delta;

	if (n == 0) {
		spate_idmap_del(c->kw_count, (uint64_t)kw + 1);
		return 0;
	}
	return spate_idmap_put(c->kw_count, (uint64_t)kw + 1, (void *)n);
}

/* KeySim: with frequencies, the mean over q's keywords of their share of
 * c's keyword multiset; without (Sim-NonFre), the share of q's keywords
 * present in c. A keyword-less q: c's share of keyword-less subscriptions. */
static double key_sim(const struct spate_engine *e, const struct drt_cat *c,
		      const struct spate_sub *q)
{
	if (q->n_kw == 0)
		return c->n ? (double)c->n_nokw / c->n : 0;
	double sum = 0;
	for (uint16_t i = 0; i < q->n_kw; i++) {
		uintptr_t k = kw_count(c, q->kw[i]);
		if (e->p.variant == DRT_SIM_NONFRE)
			sum += k > 0;
		else if (c->kw_total)
			sum += (double)k / (double)c->kw_total;
	}
	return sum / q->n_kw;
}

/* SpatialSim = A(c) / (A(c) + ex); ex = how much c's MBR grows to cover r. */
static double spatial_sim(const struct spate_engine *e, const struct spate_rect *cm,
			  const struct spate_rect *r)
{
	struct spate_rect u = rect_union(cm, r);
	double a = area_deg2(cm), ex = area_deg2(&u) - a;
	double min_a = DRT_MIN_AREA_CELLS * e->p.route_cell * e->p.route_cell;

	if (a < min_a)
		a = min_a;
	return a / (a + ex);
}

static double sim(const struct spate_engine *e, const struct drt_cat *c,
		  const struct spate_sub *q)
{
	return e->p.alpha * key_sim(e, c, q) + (1 - e->p.alpha) * spatial_sim(e, &c->mbr, &q->rect);
}

/* ---- routing grid ---- */

static uint32_t cell_x(const struct spate_engine *e, int32_t lon)
{
	uint32_t x = (uint32_t)(((int64_t)lon + SPATE_LON_MAX) / e->cell_units);
	return x < e->nx ? x : e->nx - 1;
}

static uint32_t cell_y(const struct spate_engine *e, int32_t lat)
{
	uint32_t y = (uint32_t)(((int64_t)lat + SPATE_LAT_MAX) / e->cell_units);
	return y < e->ny ? y : e->ny - 1;
}

static struct spate_ptrvec *cell_list(struct spate_engine *e, uint32_t x, uint32_t y, bool create)
{
	uint64_t key = (uint64_t)y * e->nx + x + 1;
	struct spate_ptrvec *l = spate_idmap_get(e->cells, key);

	if (l == NULL && create) {
		l = calloc(1, sizeof(*l));
		if (l == NULL || spate_idmap_put(e->cells, key, l) != 0) {
			free(l);
			return NULL;
		}
	}
	return l;
}

static void grid_unlist(struct spate_engine *e, struct drt_cat *c)
{
	if (c->wide) {
		spate_ptrvec_remove(&e->wide, c);
		return;
	}
	for (uint32_t y = c->y0; y <= c->y1; y++)
		for (uint32_t x = c->x0; x <= c->x1; x++) {
			struct spate_ptrvec *l = cell_list(e, x, y, false);
			if (l == NULL)
				continue;
			spate_ptrvec_remove(l, c);
			if (l->n == 0) {
				spate_idmap_del(e->cells, (uint64_t)y * e->nx + x + 1);
				free(l->v);
				free(l);
			}
		}
}

/* List c in the cells of its current MBR (after unlisting the old ones). */
static int grid_list(struct spate_engine *e, struct drt_cat *c)
{
	c->x0 = cell_x(e, c->mbr.min_lon);
	c->x1 = cell_x(e, c->mbr.max_lon);
	c->y0 = cell_y(e, c->mbr.min_lat);
	c->y1 = cell_y(e, c->mbr.max_lat);
	c->wide = (uint64_t)(c->x1 - c->x0 + 1) * (c->y1 - c->y0 + 1) > DRT_WIDE_CELLS;
	if (c->wide)
		return spate_ptrvec_push(&e->wide, c);
	for (uint32_t y = c->y0; y <= c->y1; y++)
		for (uint32_t x = c->x0; x <= c->x1; x++) {
			struct spate_ptrvec *l = cell_list(e, x, y, true);
			if (l == NULL || spate_ptrvec_push(l, c) != 0) {
				grid_unlist(e, c);
				return -1;
			}
		}
	return 0;
}

/* Grow c's MBR to cover r, relisting it if its cells change. */
static int grow_mbr(struct spate_engine *e, struct drt_cat *c, const struct spate_rect *r)
{
	struct spate_rect u = rect_union(&c->mbr, r);

	if (memcmp(&u, &c->mbr, sizeof(u)) == 0)
		return 0;
	grid_unlist(e, c);
	c->mbr = u;
	return grid_list(e, c);
}

/* ---- categories ---- */

static void free_bucket(uint64_t key, void *val, void *ctx)
{
	struct spate_ptrvec *l = val;

	(void)key;
	(void)ctx;
	free(l->v);
	free(l);
}

static struct spate_ptrvec *cat_bucket(struct drt_cat *c, uint64_t key, bool create)
{
	struct spate_ptrvec *l = spate_idmap_get(c->buckets, key);

	if (l == NULL && create) {
		l = calloc(1, sizeof(*l));
		if (l == NULL || spate_idmap_put(c->buckets, key, l) != 0) {
			free(l);
			return NULL;
		}
	}
	return l;
}

static uint32_t cat_cell_x(int32_t lon)
{
	uint32_t x = (uint32_t)(((int64_t)lon + SPATE_LON_MAX) / DRT_CAT_CELL);
	return x < DRT_CAT_NX ? x : DRT_CAT_NX - 1;
}

static uint32_t cat_cell_y(int32_t lat)
{
	uint32_t y = (uint32_t)(((int64_t)lat + SPATE_LAT_MAX) / DRT_CAT_CELL);
	return y < DRT_CAT_NY ? y : DRT_CAT_NY - 1;
}

/* Call fn for every bucket key q is filed under with keyword key kwkey;
 * stops at the first non-zero return. */
static int for_each_cell_key(const struct spate_sub *q, uint64_t kwkey,
			     int (*fn)(struct drt_cat *c, const struct spate_sub *q, uint64_t key),
			     struct drt_cat *c)
{
	uint32_t x0 = cat_cell_x(q->rect.min_lon), x1 = cat_cell_x(q->rect.max_lon);
	uint32_t y0 = cat_cell_y(q->rect.min_lat), y1 = cat_cell_y(q->rect.max_lat);

	if ((uint64_t)(x1 - x0 + 1) * (y1 - y0 + 1) > DRT_CAT_WIDE)
		return fn(c, q, DRT_CAT_WIDE_ROW << 32 | kwkey);
	for (uint32_t y = y0; y <= y1; y++)
		for (uint32_t x = x0; x <= x1; x++) {
			int rc = fn(c, q, (uint64_t)(y * DRT_CAT_NX + x) << 32 | kwkey);
			if (rc)
				return rc;
		}
	return 0;
}

static int bucket_push(struct drt_cat *c, const struct spate_sub *q, uint64_t key)
{
	struct spate_ptrvec *l = cat_bucket(c, key, true);

	return (l == NULL || spate_ptrvec_push(l, q) != 0) ? -1 : 0;
}

static int bucket_pull(struct drt_cat *c, const struct spate_sub *q, uint64_t key)
{
	struct spate_ptrvec *l = cat_bucket(c, key, false);

	if (l != NULL) {
		spate_ptrvec_remove(l, q);
		if (l->n == 0) {
			spate_idmap_del(c->buckets, key);
			free_bucket(key, l, NULL);
		}
	}
	return 0;
}

static void cat_bucket_remove(struct drt_cat *c, const struct spate_sub *q, uint64_t kwkey)
{
	if (kwkey != 0)
		for_each_cell_key(q, kwkey, bucket_pull, c);
}

/* File q in c under kwkey if non-zero (a merge keeps it), else under its
 * rarest keyword in c now. Returns the kwkey, or 0 on no memory. */
static uint64_t cat_bucket_add(struct drt_cat *c, const struct spate_sub *q, uint64_t kwkey)
{
	if (kwkey == 0) {
		kwkey = DRT_KW_NONE;
		uintptr_t best = UINTPTR_MAX;
		for (uint16_t i = 0; i < q->n_kw; i++) {
			uintptr_t k = kw_count(c, q->kw[i]);
			if (k < best) {
				best = k;
				kwkey = (uint64_t)q->kw[i] + 2;
			}
		}
	}
	if (for_each_cell_key(q, kwkey, bucket_push, c) != 0) {
		cat_bucket_remove(c, q, kwkey); /* pulls only what was pushed */
		return 0;
	}
	return kwkey;
}

static void cat_free(struct drt_cat *c)
{
	if (c->buckets) {
		spate_idmap_foreach(c->buckets, free_bucket, NULL);
		spate_idmap_destroy(c->buckets);
	}
	spate_idmap_destroy(c->kw_count);
	free(c->subs);
	free(c);
}

static struct drt_cat *cat_new(struct spate_engine *e, const struct spate_rect *r,
			       uint32_t worker)
{
	if (e->n_cats == e->cap_cats) {
		uint32_t ncap = e->cap_cats ? e->cap_cats * 2 : 16;
		struct drt_cat **nc = realloc(e->cats, ncap * sizeof(*nc));
		if (nc == NULL)
			return NULL;
		e->cats = nc;
		e->cap_cats = ncap;
	}
	struct drt_cat *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->kw_count = spate_idmap_create();
	c->buckets = spate_idmap_create();
	if (!c->kw_count || !c->buckets) {
		cat_free(c);
		return NULL;
	}
	c->id = e->next_id++;
	c->worker = worker;
	c->mbr = *r;
	if (grid_list(e, c) != 0 || spate_idmap_put(e->by_id, c->id, c) != 0) {
		grid_unlist(e, c);
		cat_free(c);
		return NULL;
	}
	c->slot = e->n_cats;
	e->cats[e->n_cats++] = c;
	return c;
}

static void cat_drop(struct spate_engine *e, struct drt_cat *c)
{
	grid_unlist(e, c);
	spate_idmap_del(e->by_id, c->id);
	e->cats[c->slot] = e->cats[--e->n_cats];
	e->cats[c->slot]->slot = c->slot;
	cat_free(c);
}

static int cat_reserve(struct drt_cat *c, uint32_t more)
{
	if (c->n + more <= c->cap)
		return 0;
	uint32_t ncap = c->cap ? c->cap : 8;
	while (ncap < c->n + more)
		ncap *= 2;
	const struct spate_sub **ns = realloc(c->subs, ncap * sizeof(*ns));
	if (ns == NULL)
		return -1;
	c->subs = ns;
	c->cap = ncap;
	return 0;
}

/* Take q's keywords into (delta +1) or out of (-1) c's summary counts. */
static int cat_count_keywords(struct drt_cat *c, const struct spate_sub *q, intptr_t delta)
{
	for (uint16_t i = 0; i < q->n_kw; i++)
		if (kw_adjust(c, q->kw[i], delta) != 0) {
			while (i-- > 0)
				kw_adjust(c, q->kw[i], -delta);
			return -1;
		}
	c->kw_total += (uint64_t)((intptr_t)q->n_kw * delta);
	if (q->n_kw == 0)
		c->n_nokw += (uint32_t)delta;
	return 0;
}

static int cat_add(struct spate_engine *e, struct drt_cat *c, const struct spate_sub *q)
{
	/* the bucket is chosen before q's own keywords are counted */
	uint64_t key = cat_reserve(c, 1) == 0 ? cat_bucket_add(c, q, 0) : 0;

	if (key == 0)
		return -1;
	if (cat_count_keywords(c, q, 1) != 0) {
		cat_bucket_remove(c, q, key);
		return -1;
	}
	if (grow_mbr(e, c, &q->rect) != 0 || spate_idmap_put(e->home, q->id, c) != 0 ||
	    spate_idmap_put(e->bucket_of, q->id, (void *)(uintptr_t)key) != 0) {
		spate_idmap_del(e->home, q->id);
		cat_count_keywords(c, q, -1);
		cat_bucket_remove(c, q, key);
		return -1;
	}
	c->subs[c->n++] = q;
	c->n_ins++;
	return 0;
}

/* ---- correlation ---- */

static uint64_t pair_key(uint32_t a, uint32_t b)
{
	return a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
}

static void count_correlation(struct spate_engine *e, struct drt_cat **hit, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++) {
			uint64_t k = pair_key(hit[i]->id, hit[j]->id);
			uintptr_t v = (uintptr_t)spate_idmap_get(e->corr, k);
			/* out of memory: the count is a hint, skip it */
			spate_idmap_put(e->corr, k, (void *)(v + 1));
		}
}

struct corr_entry {
	uint64_t key;
	uintptr_t val;
};

struct corr_buf {
	struct corr_entry *v;
	size_t n;
};

static void corr_collect(uint64_t key, void *val, void *ctx)
{
	struct corr_buf *b = ctx;

	b->v[b->n++] = (struct corr_entry){ key, (uintptr_t)val };
}

/* Snapshot of all pairs (caller frees .v); .v NULL on no memory. */
static struct corr_buf corr_snapshot(const struct spate_engine *e)
{
	struct corr_buf b = { malloc((spate_idmap_count(e->corr) + 1) * sizeof(*b.v)), 0 };

	if (b.v != NULL)
		spate_idmap_foreach(e->corr, corr_collect, &b);
	return b;
}

/* Age the co-match counts once a period: halve them and forget pairs of
 * categories that are gone, so memory stays bounded and recent co-matching
 * weighs most. */
static void corr_decay(struct spate_engine *e)
{
	struct corr_buf b = corr_snapshot(e);

	if (b.v == NULL)
		return;
	for (size_t i = 0; i < b.n; i++) {
		uint64_t k = b.v[i].key;
		bool stale = !spate_idmap_get(e->by_id, k >> 32) ||
			     !spate_idmap_get(e->by_id, k & 0xffffffffu);
		if (stale || b.v[i].val / 2 == 0)
			spate_idmap_del(e->corr, k);
		else
			spate_idmap_put(e->corr, k, (void *)(b.v[i].val / 2));
	}
	free(b.v);
}

/* CS and CD of every category from the live pairs (the pair snapshot is
 * returned for the caller's next pass; free .v). */
static struct corr_buf corr_cs_cd(struct spate_engine *e)
{
	struct corr_buf b = corr_snapshot(e);

	for (uint32_t i = 0; i < e->n_cats; i++)
		e->cats[i]->cs = e->cats[i]->cd = 0;
	for (size_t i = 0; b.v && i < b.n; i++) {
		struct drt_cat *a = spate_idmap_get(e->by_id, b.v[i].key >> 32);
		struct drt_cat *c = spate_idmap_get(e->by_id, b.v[i].key & 0xffffffffu);
		if (a == NULL || c == NULL)
			continue;
		double w = (double)b.v[i].val;
		if (a->worker == c->worker) {
			a->cs += w;
			c->cs += w;
		} else {
			a->cd += w;
			c->cd += w;
		}
	}
	return b;
}

/* ---- merging ---- */

/* Move every subscription of `from` into `into`, then drop `from`. */
static int cat_merge(struct spate_engine *e, struct drt_cat *into, struct drt_cat *from)
{
	if (cat_reserve(into, from->n) != 0 || grow_mbr(e, into, &from->mbr) != 0)
		return -1;
	for (uint32_t i = 0; i < from->n; i++) {
		const struct spate_sub *q = from->subs[i];
		uint64_t key = (uintptr_t)spate_idmap_get(e->bucket_of, q->id);
		if (cat_bucket_add(into, q, key) == 0 || cat_count_keywords(into, q, 1) != 0) {
			cat_bucket_remove(into, q, key);
			/* keep both consistent: from keeps the ones not moved */
			memmove(from->subs, from->subs + i, (from->n - i) * sizeof(*from->subs));
			from->n -= i;
			return -1;
		}
		cat_count_keywords(from, q, -1);
		cat_bucket_remove(from, q, key);
		spate_idmap_put(e->home, q->id, into); /* existing key: cannot fail */
		into->subs[into->n++] = q;
		from->subs[i] = NULL;
	}
	from->n = 0;
	into->t_num += from->t_num;
	into->n_ins += from->n_ins;
	into->n_del += from->n_del;
	cat_drop(e, from);
	return 0;
}

/* Choose and carry out one merge (Sim-Fre-Co): the category with the
 * largest MergeJudgePara = CS/CD merges with its most correlated category
 * on its own worker (InNode); below the 'merge' threshold it moves to its
 * most correlated category's worker and merges there (InAndBetNode),
 * moving its subscriptions (DataTra). With no correlation seen yet, the
 * newest category merges into the most similar one by MBR growth. */
static int merge_once(struct spate_engine *e, struct drt_cat *newest)
{
	struct corr_buf b = corr_cs_cd(e);
	struct drt_cat *c = NULL, *partner = NULL;
	double best = -1;

	for (uint32_t i = 0; i < e->n_cats; i++) {
		struct drt_cat *x = e->cats[i];
		if (x->cs + x->cd == 0)
			continue;
		double mjp = x->cd > 0 ? x->cs / x->cd : INFINITY;
		if (mjp > best || (mjp == best && c && x->id < c->id)) {
			best = mjp;
			c = x;
		}
	}
	bool same_worker = c && best >= e->p.merge_th;
	double best_w = 0;
	for (size_t i = 0; c && b.v && i < b.n; i++) {
		uint32_t lo = (uint32_t)(b.v[i].key >> 32), hi = (uint32_t)b.v[i].key;
		if (lo != c->id && hi != c->id)
			continue;
		struct drt_cat *o = spate_idmap_get(e->by_id, lo == c->id ? hi : lo);
		if (o == NULL || (same_worker && o->worker != c->worker))
			continue;
		if ((double)b.v[i].val > best_w) {
			best_w = (double)b.v[i].val;
			partner = o;
		}
	}
	free(b.v);
	if (partner == NULL) {
		/* no correlation to go by: the newest into its spatial nearest */
		c = newest && newest->slot < e->n_cats && e->cats[newest->slot] == newest ?
			    newest : e->cats[e->n_cats - 1];
		double best_s = -1;
		for (uint32_t i = 0; i < e->n_cats; i++) {
			struct drt_cat *x = e->cats[i];
			if (x == c)
				continue;
			double s = spatial_sim(e, &x->mbr, &c->mbr);
			if (s > best_s) {
				best_s = s;
				partner = x;
			}
		}
		if (partner == NULL)
			return 0;
	}
	/* The smaller one moves: fewer subscriptions to carry. */
	struct drt_cat *into = partner->n >= c->n ? partner : c;
	struct drt_cat *from = into == partner ? c : partner;
	bool between = into->worker != from->worker;
	uint32_t moved = from->n;
	if (cat_merge(e, into, from) != 0)
		return -1;
	if (between) {
		e->merges_between++;
		e->data_moved += moved;
	} else {
		e->merges_in++;
	}
	return 0;
}

/* ---- load balancing ---- */

struct worker_cor_ctx {
	struct spate_engine *e;
	double *cor; /* n_cats x workers */
};

static double cor_to_worker(size_t i, uint32_t w, void *ctx)
{
	struct worker_cor_ctx *x = ctx;
	return x->cor ? x->cor[i * x->e->p.workers + w] : 0;
}

/* End of a period: formula (7) loads, plan (8)-(9), apply the moves to the
 * placement, age the correlation counts, reset the period counters. */
static void end_period(struct spate_engine *e)
{
	uint32_t m = e->p.workers;

	e->periods++;
	if (m > 1 && e->n_cats > 1) {
		struct corr_buf b = corr_cs_cd(e);
		struct drt_balance_cat *bc = malloc(e->n_cats * sizeof(*bc));
		struct drt_move *mv = malloc(e->n_cats * sizeof(*mv));
		struct worker_cor_ctx ctx = { e, calloc((size_t)e->n_cats * m, sizeof(double)) };
		if (bc && mv) {
			for (uint32_t i = 0; i < e->n_cats; i++) {
				struct drt_cat *c = e->cats[i];
				bc[i] = (struct drt_balance_cat){
					(double)c->t_num * c->n + e->p.c_ins * (double)c->n_ins +
						e->p.c_del * (double)c->n_del,
					c->n, c->worker % m, c->cs, c->cd };
			}
			for (size_t k = 0; ctx.cor && b.v && k < b.n; k++) {
				struct drt_cat *a = spate_idmap_get(e->by_id, b.v[k].key >> 32);
				struct drt_cat *c = spate_idmap_get(e->by_id, b.v[k].key & 0xffffffffu);
				if (a == NULL || c == NULL)
					continue;
				ctx.cor[(size_t)a->slot * m + c->worker % m] += (double)b.v[k].val;
				ctx.cor[(size_t)c->slot * m + a->worker % m] += (double)b.v[k].val;
			}
			size_t n = drt_balance_plan(bc, e->n_cats, m, e->p.sigma, cor_to_worker, &ctx,
						    mv, e->n_cats);
			for (size_t k = 0; k < n; k++)
				e->cats[mv[k].cat]->worker = mv[k].to;
			e->moves += n;
		}
		free(ctx.cor);
		free(b.v);
		free(bc);
		free(mv);
	}
	corr_decay(e);
	for (uint32_t i = 0; i < e->n_cats; i++)
		e->cats[i]->t_num = e->cats[i]->n_ins = e->cats[i]->n_del = 0;
	e->period_events = 0;
}

/* ---- engine ---- */

static struct spate_engine *drt_create(const struct spate_engine_params *params)
{
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	if (params)
		e->p = params->drt;
	else
		drt_params_default(&e->p);
	if (e->p.workers == 0 || e->p.cmax == 0 || e->p.lambda == 0 || !(e->p.route_cell > 0)) {
		free(e);
		return NULL;
	}
	e->cell_units = (int64_t)llround(e->p.route_cell * SPATE_COORD_SCALE);
	if (e->cell_units < 1)
		e->cell_units = 1;
	e->nx = (uint32_t)((2 * (int64_t)SPATE_LON_MAX + e->cell_units - 1) / e->cell_units);
	e->ny = (uint32_t)((2 * (int64_t)SPATE_LAT_MAX + e->cell_units - 1) / e->cell_units);
	e->next_id = 1;
	e->cells = spate_idmap_create();
	e->by_id = spate_idmap_create();
	e->home = spate_idmap_create();
	e->corr = spate_idmap_create();
	e->bucket_of = spate_idmap_create();
	if (!e->cells || !e->by_id || !e->home || !e->corr || !e->bucket_of) {
		spate_idmap_destroy(e->bucket_of);
		spate_idmap_destroy(e->cells);
		spate_idmap_destroy(e->by_id);
		spate_idmap_destroy(e->home);
		spate_idmap_destroy(e->corr);
		free(e);
		return NULL;
	}
	return e;
}

static void free_cell(uint64_t key, void *val, void *ctx)
{
	struct spate_ptrvec *l = val;

	(void)key;
	(void)ctx;
	free(l->v);
	free(l);
}

static void drt_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	for (uint32_t i = 0; i < e->n_cats; i++)
		cat_free(e->cats[i]);
	free(e->cats);
	spate_idmap_foreach(e->cells, free_cell, NULL);
	spate_idmap_destroy(e->cells);
	free(e->wide.v);
	spate_idmap_destroy(e->by_id);
	spate_idmap_destroy(e->home);
	spate_idmap_destroy(e->corr);
	spate_idmap_destroy(e->bucket_of);
	free(e);
}

static int drt_sub_add(struct spate_engine *e, const struct spate_sub *q)
{
	struct drt_cat *best = NULL;
	double best_sim = -1;

	/* Every category is a candidate (the paper's placement); the routing
	 * grid serves events, not placement. */
	for (uint32_t i = 0; i < e->n_cats; i++) {
		double s = sim(e, e->cats[i], q);
		if (s > best_sim) {
			best_sim = s;
			best = e->cats[i];
		}
	}
	bool merging = e->p.variant == DRT_SIM_FRE_CO;
	bool full = e->n_cats >= e->p.cmax;
	struct drt_cat *fresh = NULL;
	if (best == NULL || (best_sim < e->p.new_th && (merging || !full))) {
		/* on the worker of the most similar category, as the paper does */
		uint32_t w = best ? best->worker : e->next_worker++ % e->p.workers;
		fresh = cat_new(e, &q->rect, w);
		if (fresh == NULL)
			return -SPATE_E_NO_MEMORY;
		best = fresh;
	}
	if (cat_add(e, best, q) != 0) {
		if (fresh)
			cat_drop(e, fresh);
		return -SPATE_E_NO_MEMORY;
	}
	while (merging && e->n_cats > e->p.cmax)
		if (merge_once(e, fresh) != 0)
			break; /* out of memory: stay over the bound, still exact */
	return 0;
}

static void drt_sub_del(struct spate_engine *e, const struct spate_sub *q)
{
	struct drt_cat *c = spate_idmap_del(e->home, q->id);

	if (c == NULL)
		return;
	for (uint32_t i = 0; i < c->n; i++)
		if (c->subs[i] == q) {
			c->subs[i] = c->subs[--c->n];
			break;
		}
	cat_count_keywords(c, q, -1); /* lowering counts never allocates */
	cat_bucket_remove(c, q, (uintptr_t)spate_idmap_del(e->bucket_of, q->id));
	c->n_del++;
	if (c->n == 0)
		cat_drop(e, c); /* an empty category goes away */
}

static bool routes_to(const struct drt_cat *c, const struct spate_event *ev)
{
	if (ev->lon < c->mbr.min_lon || ev->lon > c->mbr.max_lon ||
	    ev->lat < c->mbr.min_lat || ev->lat > c->mbr.max_lat)
		return false;
	if (c->n_nokw > 0)
		return true;
	for (uint16_t i = 0; i < ev->n_kw; i++)
		if (kw_count(c, ev->kw[i]) > 0)
			return true;
	return false;
}

static int match_in(struct spate_engine *e, struct drt_cat *c, const struct spate_event *ev,
		    struct spate_matchvec *mv, struct drt_cat **hit, uint32_t *n_hit)
{
	size_t before = mv->n;

	if (!routes_to(c, ev))
		return 0;
	e->routed++;
	c->t_num++;
	uint64_t cell = (uint64_t)(cat_cell_y(ev->lat) * DRT_CAT_NX + cat_cell_x(ev->lon)) << 32;
	for (int32_t k = -1; k < (int32_t)ev->n_kw; k++) {
		uint64_t kwkey = k < 0 ? DRT_KW_NONE : (uint64_t)ev->kw[k] + 2;
		for (int row = 0; row < 2; row++) {
			const struct spate_ptrvec *l =
				cat_bucket(c, (row ? DRT_CAT_WIDE_ROW << 32 : cell) | kwkey, false);
			if (l == NULL)
				continue;
			e->candidates += l->n;
			for (uint32_t j = 0; j < l->n; j++)
				if (spate_sub_matches(l->v[j], ev) &&
				    spate_matchvec_push(mv, l->v[j]) != 0)
					return -SPATE_E_NO_MEMORY;
		}
	}
	if (mv->n > before && *n_hit < DRT_MAX_CORR_CATS)
		hit[(*n_hit)++] = c;
	return 0;
}

static int drt_match(struct spate_engine *e, const struct spate_event *ev,
		     struct spate_matchvec *mv)
{
	struct drt_cat *hit[DRT_MAX_CORR_CATS];
	uint32_t n_hit = 0;
	int rc = 0;
	struct spate_ptrvec *l = cell_list(e, cell_x(e, ev->lon), cell_y(e, ev->lat), false);

	e->events++;
	for (uint32_t i = 0; l && rc == 0 && i < l->n; i++)
		rc = match_in(e, l->v[i], ev, mv, hit, &n_hit);
	for (uint32_t i = 0; rc == 0 && i < e->wide.n; i++)
		rc = match_in(e, e->wide.v[i], ev, mv, hit, &n_hit);
	if (rc != 0)
		return rc;
	if (e->p.variant == DRT_SIM_FRE_CO || e->p.workers > 1)
		count_correlation(e, hit, n_hit);
	if (++e->period_events >= e->p.lambda)
		end_period(e);
	return 0;
}

static void drt_stats(const struct spate_engine *e, FILE *f)
{
	double ev = e->events ? (double)e->events : 1;

	fprintf(f, "{\"categories\":%u,\"events\":%" PRIu64 ",\"routed_per_event\":%.3f,"
		   "\"candidates_per_event\":%.3f,\"merges_in_node\":%" PRIu64
		   ",\"merges_between_nodes\":%" PRIu64 ",\"data_moved\":%" PRIu64
		   ",\"periods\":%" PRIu64 ",\"rebalance_moves\":%" PRIu64 ",\"corr_pairs\":%zu}",
		e->n_cats, e->events, (double)e->routed / ev, (double)e->candidates / ev,
		e->merges_in, e->merges_between, e->data_moved, e->periods, e->moves,
		spate_idmap_count(e->corr));
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
};
