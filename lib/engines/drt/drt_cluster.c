/* drt_cluster.c - the clustering side of DRt-Cluster (drt_cluster.h).
 *
 * Summaries. Each category keeps its MBR (grown on insert and merge, never
 * shrunk), its keyword multiset (kw -> count), its count of keyword-less
 * subscriptions, its size, owner and period counters.
 *
 * Routing index (the paper's "grid plus inverted keyword index", made
 * precise). Every subscription is filed under one routing keyword (the
 * globally rarest of its keywords when it arrives; "none" if it has none)
 * in every routing cell its rectangle overlaps on a level of drt_grid.h:
 * route_cell degrees when that is at most CL_FINE_CELLS cells, else the
 * coarser level when at most CL_WIDE_CELLS, else the world row
 * (route_span). The index (a flat table, drt_ftab.h) maps (cell, keyword)
 * to the categories holding such a subscription, with counts, so removal
 * keeps the lists exact; a list entry is one word (pool number and count)
 * while a key names one category. An event
 * visits (its cell on each level) x (its keywords and "none") and keeps
 * the categories whose MBR holds its point. Exactness: a subscription
 * matching the event has its routing keyword in the event and overlaps the
 * event's cell on its level, and lies in its category's MBR, so its
 * category is listed. Each cell has a record of its own (struct cellf):
 * a 2048-bit filter of the routing keywords filed in it, so an event looks
 * up only (cell, keyword) keys that may exist (a clear bit proves the key
 * absent, which keeps events fast in a routing table filled up to 7/8),
 * and the cell's footprint, a list like the keywords' giving the
 * categories with subscriptions there whatever their keyword: the
 * placement candidates. The footprint was a routing key of its own
 * ("any") until the insert that files a subscription in its cells' filters
 * found it beside them.
 *
 * Merging is cheap because a merged-away category is not unlisted: it
 * stays as a part of the category it went into (root), keeps its list
 * entries and the subscriptions registered to it, and is freed when no
 * subscription and no list entry names it any more. A list counts per
 * group (a live category with its parts): an entry naming a part counts
 * for its root, and whoever touches the list re-points such entries to
 * the root and folds duplicates, so lists shrink back to one entry per
 * live category.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/drt/drt_balance.h"
#include "engines/drt/drt_cluster.h"
#include "engines/drt/drt_ftab.h"
#include "engines/drt/drt_geo.h"
#include "engines/drt/drt_grid.h"
#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"

#define CL_FINE_CELLS DRT_GRID_FILE_CELLS /* subs over more level-0 routing cells go a level up */
#define CL_WIDE_CELLS \
	DRT_GRID_FILE_CELLS /* subs over more level-1 routing cells go to the world row */
#define KW_NONE 0           /* routing keyword of keyword-less subs; else kw + 1 */
#define MAX_CANDIDATES 32   /* categories a placement compares */
#define MAX_PLACE_CELLS 16  /* cells of q a placement looks in */
#define MAX_CORR_CATS 32    /* co-matching categories counted per event */
#define MIN_AREA_CELLS 1.0  /* A(c) clamped to one routing cell (reconstructed) */
/* The routing table fills up to 6/8 while it is smaller than
 * ROUTE_DENSE_BYTES, 7/8 from there (docs/benchmarks.md): at 7/8 a new
 * key's add walks runs of about 30 slots, and inserts on real places
 * (20k subscriptions, most keys new) paid for it (cities, callgrind:
 * 11,900 -> 10,000 instructions an insert at 6/8), while from about a
 * million subscriptions on the table's bytes are what counts (6/8
 * throughout: 243 -> 277 bytes a subscription at 1M, FAST holds 278). */
#define ROUTE_LOAD8 7
#define ROUTE_LOAD8_SMALL 6
#define ROUTE_DENSE_BYTES ((size_t)16 << 20)
/* A cell's keyword filter: 2^CF_BITS_LOG2 bits, one per routing keyword
 * hash. At 256 bits a 0.5-degree cell of a 1M FAST-style index (280 keys
 * a cell) let 7.4 of an event's 9.4 keyword tests through, 3.8 of them to
 * absent keys, each a probe of about 14 slots in a table 0.82 full; at
 * 2048 bits 4.2 and 0.6. 4096 bits cut instructions a little more but
 * missed more in the larger records, and cost a 100k index 21 bytes a
 * subscription more (docs/benchmarks.md, "1M and 10M through the
 * matcher"). */
#define CF_BITS_LOG2 11
#define CF_WORDS ((1u << CF_BITS_LOG2) / 64)
#define CAP_FLOOR 16       /* cat_cap never holds a category below this size */
#define COARSE_MIN_CELLS 9 /* fine cells from which a rare keyword's sub goes coarse */

/* A category, live (root == NULL) or a merged-away part of one. */
struct cat {
	uint32_t id, worker, slot;
	uint32_t num;   /* in cl->pool */
	uint32_t size;  /* live: subscriptions in it, parts included */
	uint32_t reg;   /* subscriptions registered (home) to this part */
	uint32_t lrefs; /* routing list entries naming it */
	bool live;      /* in cats[] */
	uint64_t stamp; /* the last pass that saw it (next_epoch) */
	uint32_t out_at;         /* its entry in route()'s output, this event */
	uint32_t key_at;         /* the last routing key that named it, this event */
	struct cat *root;        /* NULL when live, else what it merged into */
	struct cat *prev, *next; /* a live category's parts, a ring through it */
	struct spate_rect mbr;
	double area, area_sim; /* A(mbr), and floored for SpatialSim (set_mbr) */
	struct drt_ftab kw;    /* kw + 1 -> count (live only) */
	uint64_t kw_total;
	uint32_t n_nokw;
	uint64_t t_num, n_ins, n_del;
	double cs, cd;
};

/* One category (part) under a routing key, by its pool number, with how
 * many of its subscriptions are there. */
struct pair {
	uint32_t num, count;
};

struct rarr {
	uint32_t n, cap;
	struct pair v[];
};

/* The payload of a routing key, one word (the table's slots are 16 bytes,
 * a third less than a pointer-and-count pair in the slot): one pair
 * inline (low bit 1; num << 1 | 1 in the low half, the count in the high
 * half) or a struct rarr * (low bit 0). */
struct rlist {
	uint64_t w;
};

/* A routing cell: which routing keywords it may have keys for (a bit
 * per keyword hash, set when a key is filed, cleared only when the cell
 * empties) and its footprint (`any`: the categories with subscriptions
 * in the cell, with counts; the record goes with its last one). An event
 * skips the lookups of its keywords whose bit is clear: most of them
 * miss in a table kept 7/8 full. Inserts and deletes find the footprint
 * in the record they mark anyway: one table probe per cell, not two. */
struct cellf {
	struct rlist any; /* first: in the key's cache line */
	uint64_t w[CF_WORDS];
};

static uint32_t cf_bit(uint32_t kwkey)
{
	return (uint32_t)(((uint64_t)kwkey * 0x9e3779b97f4a7c15ull) >> (64 - CF_BITS_LOG2));
}

/* A subscription's routing keys, looked up once: its cells on its
 * level, each cell's record and the list under (cell, kwkey). */
struct filing {
	uint32_t n;
	uint64_t cells[CL_WIDE_CELLS];
	struct cellf *f[CL_WIDE_CELLS];
	struct rlist *l[CL_WIDE_CELLS];
	size_t f_end[CL_WIDE_CELLS], l_end[CL_WIDE_CELLS]; /* where an absent one's probe ended */
};

struct drt_cluster {
	struct drt_params p;
	struct drt_grid g;
	struct cat **cats;
	uint32_t n_cats, cap_cats, next_id;
	struct drt_geo geo; /* the live categories' MBRs and areas, by slot */
	/* Every category and part by a small number (what routing lists
	 * hold), numbers reused: free[0..n_free) are unused ones. */
	struct cat **pool;
	uint32_t *free_nums;
	uint32_t n_pool, cap_pool, n_free;
	struct spate_idmap *by_id;   /* id -> struct cat, live or part */
	struct drt_ftab kw_all;      /* kw + 1 -> count over every category (u64) */
	struct drt_ftab route;       /* routing key -> struct rlist */
	struct drt_ftab cellf;       /* routing cell -> struct cellf */
	uint64_t n_level[3], n_nokw; /* subs filed on each level, keyword-less subs */
	struct spate_idmap *corr;    /* lo id << 32 | hi id -> count */
	struct drt_action *act;
	size_t n_act, cap_act;
	struct drt_route *out;
	size_t cap_out;
	/* route()'s (entry, key) hits, then the keys grouped by entry */
	uint32_t *hit_at;
	uint64_t *hit_key, *out_keys;
	size_t n_hit, cap_hit;
	bool hit_lost;
	uint64_t epoch;
	uint64_t period_events;
	/* q's filing (under plan_kw) as place_begin or where looked it up,
	 * for place_end or remove (nothing may touch cl in between; the
	 * tables' sizes and counts are checked all the same: plan_usable) */
	struct filing plan_fl;
	const struct spate_sub *plan_q;
	uint32_t plan_kw;
	size_t plan_sizes[4];
	uint32_t last_kwkey; /* routing keyword of the last placement */
	bool last_coarse;    /* and whether it was filed coarse */
	uint64_t *w_subs;    /* subscriptions per worker [p.workers] */
	uint8_t *w_down;     /* worker gone (its host died) [p.workers] */
	uint32_t n_down;
	uint64_t n_subs; /* placed, in all */
	struct drt_cluster_stats st;
};

/* ---- small helpers ---- */

static uintptr_t map_count(const struct spate_idmap *m, uint64_t key)
{
	return (uintptr_t)spate_idmap_get(m, key);
}

/* Add n to a count kept as a pointer value; 0 or -1 on no memory. Counts
 * only grow here (the period's end halves them and drops those at 0). */
static int map_add(struct spate_idmap *m, uint64_t key, uintptr_t n)
{
	return spate_idmap_put(m, key, (void *)(map_count(m, key) + n));
}

/* The same for counts in a flat table with a u64 payload. */
static uint64_t ftab_count(const struct drt_ftab *t, uint64_t key)
{
	const uint64_t *v = drt_ftab_get(t, key);
	return v ? *v : 0;
}

static int ftab_adjust(struct drt_ftab *t, uint64_t key, int64_t delta)
{
	uint64_t *v = drt_ftab_get(t, key);

	if (v == NULL) {
		if (delta <= 0)
			return 0;
		if ((v = drt_ftab_add(t, key)) == NULL)
			return -1;
	}
	if (delta < 0 && *v <= (uint64_t)-delta) {
		drt_ftab_del(t, key);
		return 0;
	}
	*v += (uint64_t)delta;
	return 0;
}

static struct cat *cat_by_id(const struct drt_cluster *cl, uint32_t id)
{
	return spate_idmap_get(cl->by_id, id);
}

/* The live category of id (NULL if none): a part answers for its root. */
static struct cat *live_by_id(const struct drt_cluster *cl, uint32_t id)
{
	struct cat *c = cat_by_id(cl, id);
	return c == NULL || c->root ? NULL : c;
}

static struct cat *root_of(struct cat *c)
{
	return c->root ? c->root : c;
}

/* The largest size a merge or an insert may make (cat_cap): a fraction
 * of a worker's share of the subscriptions, at least CAP_FLOOR. One
 * worker has no balance to keep: no cap (big categories match faster). */
static uint64_t cap_size(const struct drt_cluster *cl)
{
	if (cl->p.cat_cap <= 0 || cl->p.workers < 2)
		return UINT64_MAX;
	double c = cl->p.cat_cap * (double)cl->n_subs / cl->p.workers;
	return c < CAP_FLOOR ? CAP_FLOOR : (uint64_t)c;
}

/* Area in coordinate units squared: SpatialSim is a ratio of areas, so
 * no scaling to degrees (and no divisions, which merges pay 256 times). */
static double area_units(const struct spate_rect *r)
{
	return ((double)r->max_lon - r->min_lon) * ((double)r->max_lat - r->min_lat);
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

static bool in_rect(const struct spate_rect *r, int32_t lon, int32_t lat)
{
	return lon >= r->min_lon && lon <= r->max_lon && lat >= r->min_lat && lat <= r->max_lat;
}

/* A fresh stamp for "seen in this pass" marks (on live categories).
 * 64 bits never wrap (centuries at 10^9 passes a second); 32 would in
 * about an hour at 10^6 events a second, and then need every stamp
 * reset. */
static uint64_t next_epoch(struct drt_cluster *cl)
{
	return ++cl->epoch;
}

static int queue_action(struct drt_cluster *cl, const struct drt_action *a)
{
	if (cl->n_act == cl->cap_act) {
		size_t ncap = cl->cap_act ? cl->cap_act * 2 : 16;
		struct drt_action *na = realloc(cl->act, ncap * sizeof(*na));
		if (na == NULL)
			return -1;
		cl->act = na;
		cl->cap_act = ncap;
	}
	cl->act[cl->n_act++] = *a;
	return 0;
}

/* ---- similarity ---- */

/* KeySim: with frequencies, the mean over q's keywords of their share of
 * c's multiset; without (Sim-NonFre), the share of q's keywords c has. A
 * keyword-less q: c's share of keyword-less subscriptions. */
static double key_sim(const struct drt_cluster *cl, const struct cat *c, const struct spate_sub *q)
{
	if (q->n_kw == 0)
		return c->size ? (double)c->n_nokw / c->size : 0;
	double sum = 0;
	for (uint16_t i = 0; i < q->n_kw; i++) {
		uint64_t k = ftab_count(&c->kw, (uint64_t)q->kw[i] + 1);
		if (cl->p.variant == DRT_SIM_NONFRE)
			sum += k > 0;
		else if (c->kw_total)
			sum += (double)k / (double)c->kw_total;
	}
	return sum / q->n_kw;
}

/* c's MBR and its areas: A(c) in SpatialSim is floored at MIN_AREA_CELLS
 * routing cells. Kept beside the MBR, not recomputed per comparison:
 * placement compares up to 32 categories an insert, and at cmax all 256
 * on one cities insert in ten. */
static void set_mbr(struct drt_cluster *cl, struct cat *c, const struct spate_rect *m)
{
	double cell = cl->p.route_cell * SPATE_COORD_SCALE;
	double min_a = MIN_AREA_CELLS * cell * cell;

	c->mbr = *m;
	c->area = area_units(m);
	c->area_sim = c->area < min_a ? min_a : c->area;
	drt_geo_set(&cl->geo, c->slot, m, c->area, c->area_sim);
}

/* SpatialSim = A(c) / (A(c) + ex); ex = how much c's MBR grows to cover r. */
static double spatial_sim(const struct cat *c, const struct spate_rect *r)
{
	struct spate_rect u = rect_union(&c->mbr, r);
	double ex = area_units(&u) - c->area;

	return c->area_sim / (c->area_sim + ex);
}

/* ---- routing index ---- */

/* Where the routing index files a rectangle: level 0 when it covers at
 * most CL_FINE_CELLS cells there. Measured at FAST scale (callgrind,
 * 100k; docs/benchmarks.md): CL_FINE_CELLS 2 cuts the index from 199 to
 * 159 bytes per subscription (146 at 1M: each subscription sits in about
 * 2 level-0 cells, but mostly in one level-1 cell, where a category's
 * subscriptions with one keyword share an entry), for 1.13 instead of
 * 0.79 categories and twice the instructions per event; matching speed
 * won. */
static struct drt_span route_span(const struct drt_cluster *cl, const struct spate_rect *r)
{
	return drt_grid_span_fit(&cl->g, r, CL_FINE_CELLS, CL_WIDE_CELLS);
}

/* Where q is filed: route_span(), or, coarse (its routing keyword is
 * rare: fewer than rare_kw subscriptions carry it), one level up: the
 * cells of DRT_GRID_COARSE times the side, usually one or two where its
 * rectangle covers about nine fine ones. Each of those fine cells was
 * a new (cell, keyword) key nobody else used (on cities 6.6 new table
 * keys an insert, in the routing index and in the category alike),
 * while an event carrying a keyword that rare meets few candidates
 * in a coarse cell. */
static struct drt_span filing_span(const struct drt_cluster *cl, const struct spate_rect *r,
				   bool coarse)
{
	return coarse ? drt_grid_span_fit(&cl->g, r, 0, CL_WIDE_CELLS) : route_span(cl, r);
}

static uint64_t key_of(uint64_t cell, uint32_t kwkey)
{
	return cell << 32 | kwkey;
}

static bool rlist_inline(const struct rlist *l)
{
	return l->w & 1;
}

static struct rarr *rlist_arr(const struct rlist *l)
{
	return (struct rarr *)(uintptr_t)l->w;
}

static uint64_t pair_word(struct pair p)
{
	return (uint64_t)p.count << 32 | (uint64_t)p.num << 1 | 1;
}

static uint32_t rlist_len(const struct rlist *l)
{
	return rlist_inline(l) ? 1 : rlist_arr(l)->n;
}

static struct pair rlist_get(const struct rlist *l, uint32_t i)
{
	if (rlist_inline(l))
		return (struct pair){ (uint32_t)l->w >> 1, (uint32_t)(l->w >> 32) };
	return rlist_arr(l)->v[i];
}

static void rlist_set(struct rlist *l, uint32_t i, struct pair p)
{
	if (rlist_inline(l))
		l->w = pair_word(p);
	else
		rlist_arr(l)->v[i] = p;
}

/* Start the cache miss of l's array, if it has one (l may be NULL). */
static void rlist_prefetch(const struct rlist *l)
{
	if (l != NULL && !rlist_inline(l))
		__builtin_prefetch(rlist_arr(l));
}

/* The i-th category (part) listed under l. */
static struct cat *rlist_cat(const struct drt_cluster *cl, const struct rlist *l, uint32_t i)
{
	return cl->pool[rlist_get(l, i).num];
}

static void part_release(struct drt_cluster *cl, struct cat *p);

/* Make entry i of l name c (a root) instead of what it names. */
static void repoint(struct drt_cluster *cl, struct rlist *l, uint32_t i, struct cat *c)
{
	struct cat *old = rlist_cat(cl, l, i);

	if (old == c)
		return;
	c->lrefs++;
	rlist_set(l, i, (struct pair){ c->num, rlist_get(l, i).count });
	old->lrefs--;
	part_release(cl, old);
}

/* Remove entry i (of an array list); back inline at one. */
static void drop_entry(struct drt_cluster *cl, struct rlist *l, uint32_t i)
{
	struct rarr *a = rlist_arr(l);
	struct cat *old = cl->pool[a->v[i].num];

	a->v[i] = a->v[--a->n];
	if (a->n == 1) {
		l->w = pair_word(a->v[0]);
		free(a);
	}
	old->lrefs--;
	part_release(cl, old);
}

/* Compact l: every entry names a root, one entry per root. Returns the
 * index of root c's entry, or UINT32_MAX. */
static uint32_t rlist_fold(struct drt_cluster *cl, struct rlist *l, struct cat *c)
{
	if (rlist_inline(l)) {
		repoint(cl, l, 0, root_of(rlist_cat(cl, l, 0)));
		return rlist_cat(cl, l, 0) == c ? 0 : UINT32_MAX;
	}
	struct rarr *a = rlist_arr(l);
	for (uint32_t i = 0; i < a->n; i++) {
		struct cat *r = root_of(cl->pool[a->v[i].num]);
		repoint(cl, l, i, r);
		/* an earlier entry of the same root takes this one's count */
		for (uint32_t j = 0; j < i; j++)
			if (a->v[j].num == r->num) {
				a->v[j].count += a->v[i].count;
				drop_entry(cl, l, i);
				if (rlist_inline(l))
					return rlist_cat(cl, l, 0) == c ? 0 : UINT32_MAX;
				i--;
				break;
			}
	}
	for (uint32_t i = 0; i < a->n; i++)
		if (a->v[i].num == c->num)
			return i;
	return UINT32_MAX;
}

/* The index of the entry naming c itself, or UINT32_MAX. No fold: most
 * touches find their category's own entry, and a list that still names
 * parts is folded when the category is not found directly. */
static uint32_t rlist_find(const struct rlist *l, const struct cat *c)
{
	if (rlist_inline(l))
		return (uint32_t)l->w >> 1 == c->num ? 0 : UINT32_MAX;
	const struct rarr *a = rlist_arr(l);
	for (uint32_t i = 0; i < a->n; i++)
		if (a->v[i].num == c->num)
			return i;
	return UINT32_MAX;
}

/* One more subscription of live category c in list l (l->w == 0: an
 * empty list, as a fresh table payload is). 0 or -1 (nothing changed). */
static int rlist_add_in(struct drt_cluster *cl, struct rlist *l, struct cat *c)
{
	struct rarr *a;

	if (l->w == 0) {
		l->w = pair_word((struct pair){ c->num, 1 });
		c->lrefs++;
		return 0;
	}
	uint32_t at = rlist_find(l, c);
	if (at == UINT32_MAX)
		at = rlist_fold(cl, l, c);
	if (at != UINT32_MAX) {
		struct pair p = rlist_get(l, at);
		p.count++;
		rlist_set(l, at, p);
		return 0;
	}
	if (rlist_inline(l)) {
		if ((a = malloc(sizeof(*a) + 4 * sizeof(a->v[0]))) == NULL)
			return -1;
		a->v[0] = rlist_get(l, 0);
		a->n = 1;
		a->cap = 4;
		l->w = (uintptr_t)a;
	} else {
		a = rlist_arr(l);
		if (a->n == a->cap) {
			struct rarr *na = realloc(a, sizeof(*a) + 2 * a->cap * sizeof(a->v[0]));
			if (na == NULL)
				return -1;
			a = na;
			a->cap *= 2;
			l->w = (uintptr_t)a;
		}
	}
	a->v[a->n++] = (struct pair){ c->num, 1 };
	c->lrefs++;
	return 0;
}

/* One fewer subscription of live category c in list l. Never allocates.
 * True when l is empty now (l->w == 0). */
static bool rlist_remove_in(struct drt_cluster *cl, struct rlist *l, struct cat *c)
{
	if (l->w == 0)
		return false;
	uint32_t at = rlist_find(l, c);
	if (at == UINT32_MAX)
		at = rlist_fold(cl, l, c);
	if (at == UINT32_MAX)
		return false;
	struct pair p = rlist_get(l, at);
	if (--p.count > 0) {
		rlist_set(l, at, p);
		return false;
	}
	if (rlist_inline(l)) {
		l->w = 0;
		c->lrefs--;
		return true;
	}
	drop_entry(cl, l, at);
	return false;
}

/* One fewer subscription of live category c under key; the key goes
 * with its last entry. Never allocates. */
static void rlist_remove(struct drt_cluster *cl, uint64_t key, struct cat *c)
{
	struct rlist *l = drt_ftab_get(&cl->route, key);

	if (l != NULL && rlist_remove_in(cl, l, c))
		drt_ftab_del(&cl->route, key);
}

/* Look up every key of a filing: every slot's cache miss started before
 * any is read (as route() does), then the arrays of the lists (the
 * second miss). The pointers stay good while neither table grows nor
 * loses a key (an add without growth puts its key in an empty slot and
 * moves nothing). */
static void filing_find(struct drt_cluster *cl, struct filing *fl, struct drt_span sp,
			uint32_t kwkey)
{
	uint32_t n = 0;

	for (uint32_t y = sp.y0; y <= sp.y1; y++)
		for (uint32_t x = sp.x0; x <= sp.x1; x++)
			fl->cells[n++] = drt_grid_cell(&cl->g, sp.level, x, y);
	fl->n = n;
	for (uint32_t i = 0; i < n; i++) {
		drt_ftab_prefetch(&cl->route, key_of(fl->cells[i], kwkey));
		drt_ftab_prefetch(&cl->cellf, fl->cells[i]);
	}
	for (uint32_t i = 0; i < n; i++) {
		fl->f[i] = drt_ftab_get_at(&cl->cellf, fl->cells[i], &fl->f_end[i]);
		fl->l[i] = drt_ftab_get_at(&cl->route, key_of(fl->cells[i], kwkey), &fl->l_end[i]);
		rlist_prefetch(fl->l[i]);
		if (fl->f[i] != NULL)
			rlist_prefetch(&fl->f[i]->any);
	}
}

/* After an add that grew a table (its mask changed): the pointers of
 * cells from `from` on, afresh. */
static void filing_refind(struct drt_cluster *cl, struct filing *fl, uint32_t from, uint32_t kwkey)
{
	for (uint32_t i = from; i < fl->n; i++) {
		fl->f[i] = drt_ftab_get_at(&cl->cellf, fl->cells[i], &fl->f_end[i]);
		fl->l[i] = drt_ftab_get_at(&cl->route, key_of(fl->cells[i], kwkey), &fl->l_end[i]);
	}
}

/* Take a subscription of live category p with routing keyword kwkey
 * out of the keys of fl (its keyword keys and its cells' footprints).
 * Never allocates. The keys and records emptied go last, so that no
 * deletion moves an entry fl points to before it is used. */
static void route_unfile(struct drt_cluster *cl, struct cat *p, struct filing *fl, uint32_t kwkey)
{
	bool key_gone[CL_WIDE_CELLS], cell_gone[CL_WIDE_CELLS];

	for (uint32_t i = 0; i < fl->n; i++) {
		key_gone[i] = fl->l[i] != NULL && rlist_remove_in(cl, fl->l[i], p);
		cell_gone[i] = fl->f[i] != NULL &&
			       (rlist_remove_in(cl, &fl->f[i]->any, p) || fl->f[i]->any.w == 0);
	}
	for (uint32_t i = 0; i < fl->n; i++) {
		if (key_gone[i])
			drt_ftab_del(&cl->route, key_of(fl->cells[i], kwkey));
		if (cell_gone[i])
			drt_ftab_del(&cl->cellf, fl->cells[i]);
	}
}

/* Count a subscription with routing keyword kwkey into live category
 * p's routing keys over fl (filing_find): its keyword keys and its
 * cells' footprints. 0, or -1 (no memory, nothing changed). */
static int route_file(struct drt_cluster *cl, struct cat *p, struct filing *fl, uint32_t kwkey)
{
	if (drt_ftab_bytes(&cl->route) >= ROUTE_DENSE_BYTES)
		drt_ftab_set_max_load(&cl->route, ROUTE_LOAD8);
	for (uint32_t i = 0; i < fl->n; i++) {
		size_t route_mask = cl->route.mask, cellf_mask = cl->cellf.mask;
		uint64_t key = key_of(fl->cells[i], kwkey);
		/* the filter bit first: a bit without a key only costs a
		 * lookup (the record stays only with a footprint); a new key's
		 * list is empty, so its first entry cannot fail */
		if (fl->f[i] == NULL &&
		    (fl->f[i] = drt_ftab_add_from(&cl->cellf, fl->cells[i], fl->f_end[i])) == NULL)
			goto undo;
		uint32_t b = cf_bit(kwkey);
		fl->f[i]->w[b / 64] |= 1ull << (b % 64);
		bool new_key = fl->l[i] == NULL;
		if (new_key &&
		    (fl->l[i] = drt_ftab_add_from(&cl->route, key, fl->l_end[i])) == NULL) {
			if (fl->f[i]->any.w == 0)
				drt_ftab_del(&cl->cellf, fl->cells[i]);
			goto undo;
		}
		if (rlist_add_in(cl, fl->l[i], p) != 0)
			goto undo; /* an array's growth: nothing changed in this cell */
		if (rlist_add_in(cl, &fl->f[i]->any, p) != 0) {
			rlist_remove(cl, key, p);
			goto undo;
		}
		if (cl->route.mask != route_mask || cl->cellf.mask != cellf_mask)
			filing_refind(cl, fl, i + 1, kwkey);
		continue;
undo:
		/* the cells before i, looked up afresh (a table may have grown) */
		fl->n = i;
		filing_refind(cl, fl, 0, kwkey);
		route_unfile(cl, p, fl, kwkey);
		return -1;
	}
	return 0;
}

/* The routing keyword of q: its globally rarest keyword; *coarse when
 * fewer than rare_kw subscriptions carry it (filing_span). */
static uint32_t choose_kwkey(const struct drt_cluster *cl, const struct spate_sub *q, bool *coarse)
{
	uint32_t best = KW_NONE;
	uint64_t best_n = UINT64_MAX;

	for (uint16_t i = 0; i < q->n_kw; i++) {
		uint64_t n = ftab_count(&cl->kw_all, (uint64_t)q->kw[i] + 1);
		if (n < best_n) {
			best_n = n;
			best = q->kw[i] + 1;
		}
	}
	*coarse = best != KW_NONE && best_n < cl->p.rare_kw;
	return best;
}

/* ---- where a subscription is registered ----
 *
 * In q's engine word (spate_sub_engine_word): the pool number + 1 of the
 * part q is registered to (bit 63: filed coarse, filing_span), and q's
 * routing kwkey; 0 while q is not
 * placed. A part keeps its number while a subscription is registered to
 * it (part_release), so the word stays valid through merges. No table
 * from sub id: at 10M subscriptions one was 256 MB and the first cache
 * miss of every delete. */

#define HOME_COARSE (1ull << 63)

static uint64_t home_word(const struct cat *p, uint32_t kwkey, bool coarse)
{
	return (coarse ? HOME_COARSE : 0) | (uint64_t)(p->num + 1) << 32 | kwkey;
}

/* The part q is registered to, and its kwkey; NULL when q is not placed
 * (a word this cluster did not write names no part, or not one with q). */
static struct cat *home_of(const struct drt_cluster *cl, const struct spate_sub *q, uint32_t *kwkey,
			   bool *coarse)
{
	uint64_t w = *spate_sub_engine_word(q);
	uint32_t num = (uint32_t)((w & ~HOME_COARSE) >> 32);

	if (num == 0 || num > cl->n_pool || cl->pool[num - 1] == NULL ||
	    cl->pool[num - 1]->reg == 0)
		return NULL;
	*kwkey = (uint32_t)w;
	*coarse = (w & HOME_COARSE) != 0;
	return cl->pool[num - 1];
}

/* ---- categories ---- */

static struct cat *cat_new(struct drt_cluster *cl, const struct spate_rect *r, uint32_t worker)
{
	if (cl->n_cats == cl->cap_cats) {
		uint32_t ncap = cl->cap_cats ? cl->cap_cats * 2 : 16;
		struct cat **nc = realloc(cl->cats, ncap * sizeof(*nc));
		struct drt_route *no = realloc(cl->out, ncap * sizeof(*no));
		if (nc)
			cl->cats = nc;
		if (no)
			cl->out = no;
		if (nc == NULL || no == NULL || drt_geo_reserve(&cl->geo, ncap) != 0)
			return NULL;
		cl->cap_cats = ncap;
		cl->cap_out = ncap;
	}
	if (cl->n_free == 0 && cl->n_pool == cl->cap_pool) {
		uint32_t ncap = cl->cap_pool ? cl->cap_pool * 2 : 64;
		struct cat **np = realloc(cl->pool, ncap * sizeof(*np));
		if (np)
			cl->pool = np;
		uint32_t *nf = realloc(cl->free_nums, ncap * sizeof(*nf));
		if (nf)
			cl->free_nums = nf;
		if (np == NULL || nf == NULL)
			return NULL;
		cl->cap_pool = ncap;
	}
	struct cat *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	if (drt_ftab_init(&c->kw, sizeof(uint64_t)) != 0) {
		free(c);
		return NULL;
	}
	if (spate_idmap_put(cl->by_id, cl->next_id, c) != 0) {
		drt_ftab_free(&c->kw);
		free(c);
		return NULL;
	}
	c->id = cl->next_id++;
	c->num = cl->n_free ? cl->free_nums[--cl->n_free] : cl->n_pool++;
	cl->pool[c->num] = c;
	c->worker = worker;
	c->prev = c->next = c;
	c->slot = cl->n_cats;
	c->live = true;
	set_mbr(cl, c, r);
	cl->cats[cl->n_cats++] = c;
	cl->st.created++;
	return c;
}

/* Take a live category out of the list of live ones (it is emptied or
 * merged away); its keyword counts go. */
static void cat_unlive(struct drt_cluster *cl, struct cat *c)
{
	cl->cats[c->slot] = cl->cats[--cl->n_cats];
	cl->cats[c->slot]->slot = c->slot;
	drt_geo_move(&cl->geo, c->slot, cl->n_cats);
	c->live = false;
	drt_ftab_free(&c->kw);
}

/* Free a merged-away part (or an emptied category taken out of the live
 * ones) once no subscription is registered to it and no list names it. */
static void part_release(struct drt_cluster *cl, struct cat *p)
{
	if (p->reg || p->lrefs || p->live)
		return;
	p->prev->next = p->next;
	p->next->prev = p->prev;
	spate_idmap_del(cl->by_id, p->id);
	cl->pool[p->num] = NULL;
	cl->free_nums[cl->n_free++] = p->num;
	free(p);
}

/* Take q's keywords into (delta 1) or out of (-1) c's multiset and the
 * global counts. 0 or -1 (nothing changed). Lowering never allocates. */
static int count_keywords(struct drt_cluster *cl, struct cat *c, const struct spate_sub *q,
			  int delta)
{
	for (uint16_t i = 0; i < q->n_kw; i++) {
		uint64_t k = (uint64_t)q->kw[i] + 1;
		if (ftab_adjust(&c->kw, k, delta) != 0) {
			while (i-- > 0) {
				ftab_adjust(&c->kw, (uint64_t)q->kw[i] + 1, -delta);
				ftab_adjust(&cl->kw_all, (uint64_t)q->kw[i] + 1, -delta);
			}
			return -1;
		}
		if (ftab_adjust(&cl->kw_all, k, delta) != 0) {
			ftab_adjust(&c->kw, k, -delta);
			while (i-- > 0) {
				ftab_adjust(&c->kw, (uint64_t)q->kw[i] + 1, -delta);
				ftab_adjust(&cl->kw_all, (uint64_t)q->kw[i] + 1, -delta);
			}
			return -1;
		}
	}
	c->kw_total += (uint64_t)((int64_t)q->n_kw * delta);
	c->n_nokw += (uint32_t)(q->n_kw == 0 ? delta : 0);
	cl->n_nokw += (uint64_t)(q->n_kw == 0 ? delta : 0);
	return 0;
}

/* Record q in live category c (registered to c itself), filed over sp
 * (fl: its keys looked up already, or NULL). 0 or -1. */
static int cat_take(struct drt_cluster *cl, struct cat *c, const struct spate_sub *q,
		    struct drt_span sp, uint32_t kwkey, bool coarse, struct filing *fl)
{
	struct filing own;

	if (count_keywords(cl, c, q, 1) != 0)
		return -1;
	if (fl == NULL) {
		filing_find(cl, &own, sp, kwkey);
		fl = &own;
	}
	if (route_file(cl, c, fl, kwkey) != 0) {
		count_keywords(cl, c, q, -1);
		return -1;
	}
	*spate_sub_engine_word(q) = home_word(c, kwkey, coarse);
	cl->last_kwkey = kwkey;
	cl->last_coarse = coarse;
	struct spate_rect m = rect_union(&c->mbr, &q->rect);
	set_mbr(cl, c, &m);
	c->size++;
	c->reg++;
	c->n_ins++;
	cl->w_subs[c->worker]++;
	cl->n_subs++;
	cl->n_level[sp.level]++;
	return 0;
}

/* ---- correlation ---- */

static uint64_t pair_key(uint32_t a, uint32_t b)
{
	return a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
}

void drt_cluster_feedback(struct drt_cluster *cl, const uint32_t *ids, size_t n)
{
	struct cat *c[MAX_CORR_CATS];
	size_t k = 0;

	if (cl->p.variant != DRT_SIM_FRE_CO && cl->p.workers < 2)
		return; /* nobody reads the counts */
	for (size_t i = 0; i < n && k < MAX_CORR_CATS; i++)
		if ((c[k] = live_by_id(cl, ids[i])) != NULL)
			k++;
	for (size_t i = 0; i < k; i++)
		for (size_t j = i + 1; j < k; j++) {
			/* out of memory: the count is a hint, skip it */
			if (map_add(cl->corr, pair_key(c[i]->id, c[j]->id), 1) != 0)
				continue;
			bool same = c[i]->worker == c[j]->worker;
			*(same ? &c[i]->cs : &c[i]->cd) += 1;
			*(same ? &c[j]->cs : &c[j]->cd) += 1;
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

/* Snapshot of all pairs (free .v); .v NULL on no memory. */
static struct corr_buf corr_snapshot(const struct drt_cluster *cl)
{
	struct corr_buf b = { malloc((spate_idmap_count(cl->corr) + 1) * sizeof(*b.v)), 0 };

	if (b.v != NULL)
		spate_idmap_foreach(cl->corr, corr_collect, &b);
	return b;
}

/* CS and CD of every category from the pairs (workers may have changed). */
static void corr_recount(struct drt_cluster *cl, const struct corr_buf *b)
{
	for (uint32_t i = 0; i < cl->n_cats; i++)
		cl->cats[i]->cs = cl->cats[i]->cd = 0;
	for (size_t i = 0; i < b->n; i++) {
		struct cat *a = live_by_id(cl, (uint32_t)(b->v[i].key >> 32));
		struct cat *c = live_by_id(cl, (uint32_t)b->v[i].key);
		if (a == NULL || c == NULL)
			continue;
		double w = (double)b->v[i].val;
		if (a->worker == c->worker) {
			a->cs += w;
			c->cs += w;
		} else {
			a->cd += w;
			c->cd += w;
		}
	}
}

/* ---- merging ---- */

/* Merge live `from` into live `into` in the summaries and queue the
 * action. `from` and its parts become parts of `into`: their list entries
 * stay, so this costs the size of from's keyword multiset, not of its
 * subscriptions. 0 or -1 (nothing changed). */
static int merge_pair(struct drt_cluster *cl, struct cat *into, struct cat *from)
{
	struct drt_action a = { DRT_ACTION_MERGE, from->id,     into->id,
				from->worker,     into->worker, from->size };
	uint64_t key;
	size_t done;

	/* keyword counts first: the only step that can fail */
	for (done = 0; done <= from->kw.mask; done++) {
		uint64_t *v = drt_ftab_at(&from->kw, done, &key);
		if (v && ftab_adjust(&into->kw, key, (int64_t)*v) != 0)
			goto undo;
	}
	if (queue_action(cl, &a) != 0)
		goto undo;
	cl->w_subs[from->worker] -= from->size;
	cl->w_subs[into->worker] += from->size;
	into->kw_total += from->kw_total;
	into->n_nokw += from->n_nokw;
	into->size += from->size;
	struct spate_rect m = rect_union(&into->mbr, &from->mbr);
	set_mbr(cl, into, &m);
	into->t_num += from->t_num;
	into->n_ins += from->n_ins;
	into->n_del += from->n_del;
	/* from's ring of parts joins into's */
	struct cat *p = from;
	do {
		p->root = into;
		p = p->next;
	} while (p != from);
	struct cat *ilast = into->prev, *flast = from->prev;
	ilast->next = from;
	from->prev = ilast;
	flast->next = into;
	into->prev = flast;
	cat_unlive(cl, from);
	part_release(cl, from);
	/* keep from's co-match counts, now as into's */
	struct corr_buf b = corr_snapshot(cl);
	for (size_t i = 0; b.v && i < b.n; i++) {
		uint32_t lo = (uint32_t)(b.v[i].key >> 32), hi = (uint32_t)b.v[i].key;
		if (lo != a.cat && hi != a.cat)
			continue;
		spate_idmap_del(cl->corr, b.v[i].key);
		uint32_t other = lo == a.cat ? hi : lo;
		if (other != into->id)
			map_add(cl->corr, pair_key(other, into->id), b.v[i].val);
	}
	if (b.v)
		corr_recount(cl, &b);
	free(b.v);
	if (a.from_worker != a.to_worker) {
		cl->st.merges_between_nodes++;
		cl->st.data_moved += a.size;
	} else {
		cl->st.merges_in_node++;
		cl->st.merged_in_node_subs += a.size;
	}
	return 0;
undo:
	for (size_t i = 0; i < done; i++) {
		uint64_t *v = drt_ftab_at(&from->kw, i, &key);
		if (v)
			ftab_adjust(&into->kw, key, -(int64_t)*v); /* stops at 0 */
	}
	return -1;
}

/* The spatially nearest live category (but `except`) that can take size
 * more subscriptions under cap, on `worker` (UINT32_MAX: any), or NULL. */
static struct cat *nearest_to(struct drt_cluster *cl, const struct spate_rect *r, uint64_t size,
			      const struct cat *except, uint64_t cap, uint32_t worker)
{
	struct cat *partner = NULL;
	double best_s = -1;
	/* every SpatialSim at once (drt_geo.h), then the first best that
	 * passes: the same category as testing each before scoring it */
	const double *sim = drt_geo_sims(&cl->geo, cl->n_cats, r);

	for (uint32_t i = 0; i < cl->n_cats; i++) {
		if (!(sim[i] > best_s))
			continue;
		struct cat *x = cl->cats[i];
		if (x == except || (uint64_t)x->size + size > cap ||
		    (worker != UINT32_MAX && x->worker != worker))
			continue;
		best_s = sim[i];
		partner = x;
		if (best_s >= 1)
			break; /* x's MBR holds r: no later one scores higher */
	}
	return partner;
}

/* May a merge cross workers? Only under `merge_th` (InAndBetNode);
 * merge_th = 0 is the paper's InNode: merges stay on their worker. */
static bool between_allowed(const struct drt_cluster *cl)
{
	return cl->p.merge_th > 0;
}

/* The nearest category c can merge with under cap: on its own worker,
 * else (when merges may cross workers) anywhere; or NULL. Used where
 * the paper has no rule (no co-match seen yet, nothing fits the cap);
 * it keeps the paper's preference for merges inside a worker. */
static struct cat *nearest_fit(struct drt_cluster *cl, struct cat *c, uint64_t cap)
{
	struct cat *x = nearest_to(cl, &c->mbr, c->size, c, cap, c->worker);

	if (x == NULL && between_allowed(cl))
		x = nearest_to(cl, &c->mbr, c->size, c, cap, UINT32_MAX);
	return x;
}

static double merge_judge(const struct cat *x)
{
	return x->cd > 0 ? x->cs / x->cd : INFINITY;
}

/* One merge (Sim-Fre-Co): the category with the largest MergeJudgePara =
 * CS/CD (infinite when CD = 0) merges with its most correlated category
 * on its own worker (InNode); when that largest value is below
 * `merge_th`, with its most correlated one anywhere (InAndBetNode). When
 * several categories share the largest value (with one worker every CD
 * is 0), the one with the strongest such pair goes: so one worker merges
 * its most correlated pair, as the paper's single-machine Rt-Cluster.
 * With no co-match seen yet, `newest` merges into its spatially nearest
 * category (nearest_fit: its worker first). The smaller side moves. No
 * merge makes a category larger than cap_size(): with no such pair, the
 * smallest category merges into its nearest that fits. With merge_each
 * (a per-category reading of the paper), the category with the smallest
 * MergeJudgePara below merge_th goes first, across workers, whatever the
 * largest. 0, -1 on no memory, 1 when no pair fits. */
static int merge_once(struct drt_cluster *cl, struct cat *newest)
{
	struct cat *c = NULL, *partner = NULL;
	double best = -1;
	uint64_t cap = cap_size(cl);

	double least = INFINITY;
	for (uint32_t i = 0; i < cl->n_cats; i++) {
		struct cat *x = cl->cats[i];
		if (x->cs + x->cd > 0 && merge_judge(x) > best &&
		    !(cl->p.merge_finite && x->cd == 0))
			best = merge_judge(x);
		if (x->cd > 0 && merge_judge(x) < least)
			least = merge_judge(x);
	}
	/* merge_each: the category least correlated in its own worker
	 * against the others goes across, when below merge_th */
	if (cl->p.merge_each && least < cl->p.merge_th)
		best = least;
	if (best >= 0) {
		bool same_worker = best >= cl->p.merge_th;
		uintptr_t best_w = 0;
		struct corr_buf b = corr_snapshot(cl);
		for (size_t i = 0; b.v && i < b.n; i++) {
			struct cat *x = live_by_id(cl, (uint32_t)(b.v[i].key >> 32));
			struct cat *o = live_by_id(cl, (uint32_t)b.v[i].key);
			if (x == NULL || o == NULL || (same_worker && o->worker != x->worker) ||
			    (uint64_t)o->size + x->size > cap)
				continue;
			/* either side may be the one with the largest value */
			struct cat *pair[2][2] = { { x, o }, { o, x } };
			for (int k = 0; k < 2; k++) {
				struct cat *me = pair[k][0], *other = pair[k][1];
				if (merge_judge(me) != best)
					continue;
				if (b.v[i].val > best_w ||
				    (b.v[i].val == best_w && c != NULL &&
				     (me->id < c->id ||
				      (me->id == c->id && other->id < partner->id)))) {
					best_w = b.v[i].val;
					c = me;
					partner = other;
				}
			}
		}
		free(b.v);
	}
	bool no_corr = partner == NULL;
	if (partner == NULL) {
		c = newest ? newest : cl->cats[cl->n_cats - 1];
		partner = nearest_fit(cl, c, cap);
	}
	if (partner == NULL) {
		for (uint32_t i = 0; i < cl->n_cats; i++)
			if (cl->cats[i]->size < c->size)
				c = cl->cats[i];
		if ((partner = nearest_fit(cl, c, cap)) == NULL)
			return 1;
	}
	struct cat *into = partner->size >= c->size ? partner : c;
	int rc = merge_pair(cl, into, into == partner ? c : partner);
	if (rc == 0 && no_corr)
		cl->st.merges_no_corr++;
	return rc;
}

/* ---- the interface ---- */

struct drt_cluster *drt_cluster_create(const struct drt_params *p)
{
	if (p->workers == 0 || p->cmax == 0 || p->lambda == 0 || !(p->route_cell >= 0.01) ||
	    !(p->route_cell <= 90) || p->variant > DRT_SIM_FRE_CO || !(p->alpha >= 0) ||
	    !(p->alpha <= 1))
		return NULL;
	struct drt_cluster *cl = calloc(1, sizeof(*cl));
	if (cl == NULL)
		return NULL;
	cl->p = *p;
	drt_grid_init(&cl->g, p->route_cell);
	cl->next_id = 1;
	cl->by_id = spate_idmap_create();
	cl->corr = spate_idmap_create();
	cl->w_subs = calloc(p->workers, sizeof(*cl->w_subs));
	cl->w_down = calloc(p->workers, sizeof(*cl->w_down));
	int rr = drt_ftab_init(&cl->route, sizeof(struct rlist));
	int rk = drt_ftab_init(&cl->kw_all, sizeof(uint64_t));
	int rf = drt_ftab_init(&cl->cellf, sizeof(struct cellf));
	if (!cl->by_id || !cl->corr || !cl->w_subs || !cl->w_down || rr || rk || rf) {
		if (rf == 0)
			drt_ftab_free(&cl->cellf);
		if (rr == 0)
			drt_ftab_free(&cl->route);
		if (rk == 0)
			drt_ftab_free(&cl->kw_all);
		spate_idmap_destroy(cl->by_id);
		spate_idmap_destroy(cl->corr);
		free(cl->w_subs);
		free(cl->w_down);
		free(cl);
		return NULL;
	}
	drt_ftab_set_max_load(&cl->route, ROUTE_LOAD8_SMALL);
	return cl;
}

void drt_cluster_destroy(struct drt_cluster *cl)
{
	uint64_t key;

	if (cl == NULL)
		return;
	for (uint32_t i = 0; i < cl->n_cats; i++) {
		struct cat *c = cl->cats[i], *p = c->next;
		while (p != c) {
			struct cat *next = p->next;
			free(p);
			p = next;
		}
		drt_ftab_free(&c->kw);
		free(c);
	}
	for (size_t i = 0; i <= cl->route.mask; i++) {
		struct rlist *l = drt_ftab_at(&cl->route, i, &key);
		if (l && !rlist_inline(l))
			free(rlist_arr(l));
	}
	for (size_t i = 0; i <= cl->cellf.mask; i++) {
		struct cellf *f = drt_ftab_at(&cl->cellf, i, &key);
		if (f && !rlist_inline(&f->any))
			free(rlist_arr(&f->any)); /* NULL when empty */
	}
	drt_ftab_free(&cl->route);
	drt_ftab_free(&cl->cellf);
	drt_geo_free(&cl->geo);
	free(cl->cats);
	free(cl->pool);
	free(cl->free_nums);
	free(cl->out);
	free(cl->hit_at);
	free(cl->hit_key);
	free(cl->out_keys);
	free(cl->act);
	spate_idmap_destroy(cl->by_id);
	drt_ftab_free(&cl->kw_all);
	spate_idmap_destroy(cl->corr);
	free(cl->w_subs);
	free(cl->w_down);
	free(cl);
}

/* The cells best_near() looks in: q's cells (at most MAX_PLACE_CELLS of
 * them, row by row), then the world row. Returns how many. */
static uint32_t place_cells(const struct drt_cluster *cl, struct drt_span sp,
			    uint64_t cells[MAX_PLACE_CELLS + 1])
{
	uint32_t n = 0;

	for (uint32_t y = sp.y0; y <= sp.y1 && n < MAX_PLACE_CELLS; y++)
		for (uint32_t x = sp.x0; x <= sp.x1 && n < MAX_PLACE_CELLS; x++)
			cells[n++] = drt_grid_cell(&cl->g, sp.level, x, y);
	cells[n++] = DRT_GRID_WORLD;
	return n;
}

/* The most similar category among those with subscriptions in q's cells
 * (the first MAX_CANDIDATES met, in the order of place_cells() and of
 * the lists) and room below cat_cap, or NULL; ties go to the first met.
 * At 1M+ subscriptions every step is a cache miss (the lists, their
 * arrays, the candidates' keyword tables), so each step starts all of its
 * misses before it reads any: the lists, then their arrays, then the
 * keyword counts KeySim needs. */
static struct cat *best_near(struct drt_cluster *cl, const struct spate_sub *q, struct drt_span sp,
			     const struct filing *fl, double *best_sim)
{
	uint64_t cells[MAX_PLACE_CELLS + 1];
	const struct rlist *lists[MAX_PLACE_CELLS + 1];
	struct cat *cand[MAX_CANDIDATES];
	double spat[MAX_CANDIDATES];
	uint64_t epoch = next_epoch(cl);
	uint32_t seen = 0, n_cells = place_cells(cl, sp, cells);
	uint64_t cap = cap_size(cl);
	struct cat *best = NULL;
	double a = cl->p.alpha, top = -1;

	for (uint32_t k = 0; k < n_cells; k++) {
		/* q's cells were looked up by its filing when it is on sp */
		struct cellf *f = fl != NULL && k < fl->n && fl->cells[k] == cells[k]
					  ? fl->f[k]
					  : drt_ftab_get(&cl->cellf, cells[k]);
		lists[k] = f != NULL && f->any.w != 0 ? &f->any : NULL;
		rlist_prefetch(lists[k]);
	}
	for (uint32_t k = 0; k < n_cells && seen < MAX_CANDIDATES; k++) {
		const struct rlist *l = lists[k];
		for (uint32_t i = 0; l && i < rlist_len(l) && seen < MAX_CANDIDATES; i++) {
			struct cat *c = root_of(rlist_cat(cl, l, i));
			if (c->stamp == epoch)
				continue;
			c->stamp = epoch;
			cand[seen++] = c;
		}
	}
	/* SpatialSim of each (the summaries are few and cached) */
	for (uint32_t i = 0; i < seen; i++) {
		if (cand[i]->size >= cap) {
			spat[i] = -1; /* full: q goes elsewhere */
			continue;
		}
		spat[i] = (1 - a) * spatial_sim(cand[i], &q->rect);
		if (spat[i] > top)
			top = spat[i];
	}
	/* Only a candidate with spat + a >= top can be the best (KeySim is
	 * in [0, 1], and the best scores at least top): their keyword counts */
	for (uint32_t i = 0; i < seen; i++)
		if (spat[i] >= 0 && spat[i] + a >= top)
			for (uint16_t j = 0; j < q->n_kw && j < 4; j++)
				drt_ftab_prefetch(&cand[i]->kw, (uint64_t)q->kw[j] + 1);
	*best_sim = -1;
	for (uint32_t i = 0; i < seen; i++) {
		if (spat[i] < 0 || spat[i] + a < top)
			continue;
		double s = spat[i] + a * key_sim(cl, cand[i], q);
		if (s > *best_sim) {
			*best_sim = s;
			best = cand[i];
		}
	}
	return best;
}

/* The live worker holding the fewest subscriptions. */
static uint32_t emptiest_worker(const struct drt_cluster *cl)
{
	uint32_t w = 0;

	while (w + 1 < cl->p.workers && cl->w_down[w])
		w++;
	for (uint32_t k = w + 1; k < cl->p.workers; k++)
		if (!cl->w_down[k] && cl->w_subs[k] < cl->w_subs[w])
			w = k;
	return w;
}

static struct cat *best_anywhere(struct drt_cluster *cl, const struct spate_sub *q)
{
	struct cat *best = NULL;
	double best_sim = -1;

	for (uint32_t i = 0; i < cl->n_cats; i++) {
		struct cat *c = cl->cats[i];
		double s = cl->p.alpha * key_sim(cl, c, q) +
			   (1 - cl->p.alpha) * spatial_sim(c, &q->rect);
		if (s > best_sim) {
			best_sim = s;
			best = c;
		}
	}
	return best;
}

/* A new category's worker: the paper's, the most similar category's
 * (similar, the best of the nearby candidates; with none nearby, the
 * most similar of all: every category compared, as the paper compares),
 * unless that worker is down or holds more than (1 + place_slack) x the
 * mean: then the one holding the fewest. The first category goes to the
 * worker holding the fewest. */
static uint32_t new_cat_worker(struct drt_cluster *cl, const struct cat *similar,
			       const struct spate_sub *q)
{
	uint32_t m = cl->p.workers;
	double mean = (double)(cl->n_subs + 1) / (m - cl->n_down);

	/* One live worker: it is the answer whatever is similar (with none
	 * nearby, comparing every category took a third of an insert's
	 * instructions on real places, docs/benchmarks.md). */
	if (m - cl->n_down == 1)
		return emptiest_worker(cl);
	if (similar == NULL)
		similar = best_anywhere(cl, q);
	if (similar == NULL)
		return emptiest_worker(cl);
	uint32_t w = similar->worker;
	if (!cl->w_down[w] && (double)(cl->w_subs[w] + 1) <= (1 + cl->p.place_slack) * mean)
		return w;
	return emptiest_worker(cl);
}

/* Where a new category for q would merge at once (at cmax, no co-match
 * yet: merge_once's fallback): the nearest category that fits on the
 * worker it would be made on, or (merges crossing workers allowed)
 * anywhere. */
static struct cat *place_nearest(struct drt_cluster *cl, const struct spate_sub *q,
				 const struct cat *similar)
{
	uint64_t cap = cap_size(cl);
	struct cat *x = nearest_to(cl, &q->rect, 1, NULL, cap, new_cat_worker(cl, similar, q));

	if (x == NULL && between_allowed(cl))
		x = nearest_to(cl, &q->rect, 1, NULL, cap, UINT32_MAX);
	return x;
}

/* The routing and cell tables' sizes and counts: unchanged, the
 * pointers of a filing looked up then are still good. */
static void plan_sizes(const struct drt_cluster *cl, size_t out[4])
{
	out[0] = cl->route.mask;
	out[1] = cl->route.count;
	out[2] = cl->cellf.mask;
	out[3] = cl->cellf.count;
}

/* Look q's filing over sp under kwkey up and keep it for the next step
 * of q's insert or delete (plan_take). */
static void plan_find(struct drt_cluster *cl, const struct spate_sub *q, struct drt_span sp,
		      uint32_t kwkey)
{
	filing_find(cl, &cl->plan_fl, sp, kwkey);
	cl->plan_q = q;
	cl->plan_kw = kwkey;
	plan_sizes(cl, cl->plan_sizes);
}

/* The kept filing if it is q's over sp under kwkey and still good, else
 * NULL; either way it is dropped. */
static struct filing *plan_take(struct drt_cluster *cl, const struct spate_sub *q,
				struct drt_span sp, uint32_t kwkey)
{
	size_t sizes[4];
	bool good = cl->plan_q == q && cl->plan_kw == kwkey && cl->plan_fl.n > 0 &&
		    cl->plan_fl.cells[0] == drt_grid_first(&cl->g, &sp);

	plan_sizes(cl, sizes);
	good = good && memcmp(sizes, cl->plan_sizes, sizeof(sizes)) == 0;
	cl->plan_q = NULL;
	return good ? &cl->plan_fl : NULL;
}

void drt_cluster_place_begin(struct drt_cluster *cl, const struct spate_sub *q,
			     struct drt_place_plan *plan)
{
	double best_sim;
	struct drt_span sp = route_span(cl, &q->rect);
	bool coarse;
	uint32_t kwkey = choose_kwkey(cl, q, &coarse);

	/* coarse only where it saves keys: a rectangle over fewer fine
	 * cells is filed fine. FAST-style 100k (callgrind, through the
	 * matcher): from 4 cells coarse cost events 20% more instructions
	 * (the coarse cells' keyword filters fill up), from 6 7%, from 9
	 * nothing; on cities inserts gain 13% from 9, 16% from 4. */
	coarse = coarse && sp.level == 0 && drt_grid_span_cells(&sp) >= COARSE_MIN_CELLS;
	struct drt_span fsp = filing_span(cl, &q->rect, coarse);

	/* Every key q will touch in the cluster, whatever its category,
	 * looked up once (their misses together) for place_end; best_near()
	 * looks at the categories near q's rectangle on its own level,
	 * which is the filing's unless q goes coarse. */
	plan_find(cl, q, fsp, kwkey);
	drt_ftab_prefetch(&cl->cellf, DRT_GRID_WORLD);
	struct cat *best = best_near(cl, q, sp, coarse ? NULL : &cl->plan_fl, &best_sim),
		   *similar = best, *near;
	bool merging = cl->p.variant == DRT_SIM_FRE_CO;
	bool full = cl->n_cats >= cl->p.cmax;

	if (best == NULL || best_sim < cl->p.new_th) {
		/* At cmax with no co-matches counted yet, a new category would
		 * merge at once into its spatially nearest (merge_once): q goes
		 * there directly, without making and merging one. */
		if (merging && full && spate_idmap_count(cl->corr) == 0 &&
		    (near = place_nearest(cl, q, similar)) != NULL)
			best = near;
		else if (merging || !full)
			best = NULL; /* a new category (made by end) */
		else if (best == NULL)
			best = best_anywhere(cl, q);
	}
	*plan = (struct drt_place_plan){ best ? best->id : 0, kwkey, coarse, fsp, best, similar };
}

int drt_cluster_place_end(struct drt_cluster *cl, const struct spate_sub *q,
			  const struct drt_place_plan *plan, struct drt_placement *out)
{
	struct cat *best = plan->target, *fresh = NULL;
	bool merging = cl->p.variant == DRT_SIM_FRE_CO;

	if (best == NULL) {
		fresh = cat_new(cl, &q->rect, new_cat_worker(cl, plan->similar, q));
		if (fresh == NULL)
			return -SPATE_E_NO_MEMORY;
		best = fresh;
	}
	if (cat_take(cl, best, q, plan->sp, plan->route_kw, plan->coarse,
		     plan_take(cl, q, plan->sp, plan->route_kw)) != 0) {
		if (fresh) {
			cat_unlive(cl, fresh);
			part_release(cl, fresh);
		}
		return -SPATE_E_NO_MEMORY;
	}
	*out = (struct drt_placement){ best->id, best->worker, fresh != NULL, cl->last_kwkey,
				       cl->last_coarse };
	while (merging && cl->n_cats > cl->p.cmax)
		if (merge_once(cl, fresh) != 0)
			break; /* no memory or nothing fits the cap: stay over the bound, still exact */
		else
			fresh = NULL;
	return 0;
}

int drt_cluster_place(struct drt_cluster *cl, const struct spate_sub *q, struct drt_placement *out)
{
	struct drt_place_plan plan;

	drt_cluster_place_begin(cl, q, &plan);
	return drt_cluster_place_end(cl, q, &plan, out);
}

int drt_cluster_where(struct drt_cluster *cl, const struct spate_sub *q, uint32_t *cat,
		      uint32_t *route_kw, bool *coarse)
{
	struct cat *p = home_of(cl, q, route_kw, coarse);

	if (p == NULL)
		return -SPATE_E_UNKNOWN_ID;
	const struct cat *c = root_of(p);
	struct drt_span sp = filing_span(cl, &q->rect, *coarse);
	*cat = c->id;
	/* and the keys of drt_cluster_remove(), which comes next: looked
	 * up (their misses together) and kept for it */
	plan_find(cl, q, sp, *route_kw);
	for (uint16_t i = 0; i < q->n_kw && i < 4; i++)
		drt_ftab_prefetch(&c->kw, (uint64_t)q->kw[i] + 1);
	return 0;
}

int drt_cluster_remove(struct drt_cluster *cl, const struct spate_sub *q, struct drt_removal *out)
{
	uint32_t kwkey;
	bool coarse;
	struct cat *p = home_of(cl, q, &kwkey, &coarse);

	if (p == NULL)
		return -SPATE_E_UNKNOWN_ID;
	*spate_sub_engine_word(q) = 0;
	struct cat *c = root_of(p);
	struct drt_span sp = filing_span(cl, &q->rect, coarse);
	for (uint16_t i = 0; i < q->n_kw && i < 4; i++) /* count_keywords' misses */
		drt_ftab_prefetch(&c->kw, (uint64_t)q->kw[i] + 1);
	struct filing own, *fl = plan_take(cl, q, sp, kwkey);
	if (fl == NULL) {
		filing_find(cl, &own, sp, kwkey);
		fl = &own;
	}
	route_unfile(cl, c, fl, kwkey);
	count_keywords(cl, c, q, -1);
	cl->n_level[sp.level]--;
	p->reg--;
	c->size--;
	c->n_del++;
	cl->w_subs[c->worker]--;
	cl->n_subs--;
	*out = (struct drt_removal){ c->id, c->worker, c->size == 0, kwkey, coarse };
	part_release(cl, p);
	if (c->size == 0) { /* no list names it, no part is left */
		cat_unlive(cl, c);
		part_release(cl, c);
	}
	return 0;
}

/* Record that routing key `key` named route entry `at`; on no memory
 * the event's keys are not handed out (kw_mask still is). */
static void hit_grow_push(struct drt_cluster *cl, uint32_t at, uint64_t key)
{
	if (cl->n_hit == cl->cap_hit) {
		size_t ncap = cl->cap_hit ? 2 * cl->cap_hit : 64;
		uint32_t *na = realloc(cl->hit_at, ncap * sizeof(*na));
		if (na)
			cl->hit_at = na;
		uint64_t *nk = realloc(cl->hit_key, ncap * sizeof(*nk));
		if (nk)
			cl->hit_key = nk;
		uint64_t *no = realloc(cl->out_keys, ncap * sizeof(*no));
		if (no)
			cl->out_keys = no;
		if (na == NULL || nk == NULL || no == NULL) {
			cl->hit_lost = true;
			return;
		}
		cl->cap_hit = ncap;
	}
	cl->hit_at[cl->n_hit] = at;
	cl->hit_key[cl->n_hit++] = key;
}

static inline void hit_push(struct drt_cluster *cl, uint32_t at, uint64_t key)
{
	if (__builtin_expect(cl->n_hit < cl->cap_hit, 1)) {
		cl->hit_at[cl->n_hit] = at;
		cl->hit_key[cl->n_hit++] = key;
		return;
	}
	hit_grow_push(cl, at, key);
}

/* Hand each of the n route entries its keys (grouped, in hit order). */
static void hits_group(struct drt_cluster *cl, size_t n)
{
	size_t pos = 0;

	if (n == 1 && !cl->hit_lost) { /* the usual case: already grouped */
		cl->out[0].keys = cl->hit_key;
		cl->out[0].n_keys = (uint32_t)cl->n_hit;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		cl->out[i].keys = NULL;
		cl->out[i].n_keys = 0;
	}
	if (cl->hit_lost)
		return;
	for (size_t h = 0; h < cl->n_hit; h++)
		cl->out[cl->hit_at[h]].n_keys++;
	for (size_t i = 0; i < n; i++) {
		cl->out[i].keys = cl->out_keys + pos;
		pos += cl->out[i].n_keys;
		cl->out[i].n_keys = 0;
	}
	for (size_t h = 0; h < cl->n_hit; h++) {
		struct drt_route *r = &cl->out[cl->hit_at[h]];
		cl->out_keys[r->keys - cl->out_keys + r->n_keys++] = cl->hit_key[h];
	}
}

size_t drt_cluster_route(struct drt_cluster *cl, const struct spate_event *ev,
			 const struct drt_route **out)
{
	uint64_t epoch = next_epoch(cl);
	uint64_t keys[3 * (SPATE_KW_MAX_HARD + 1)], bits[3 * (SPATE_KW_MAX_HARD + 1)], cells[3];
	size_t n = 0, nk = 0, n_cells = 0;

	for (int level = 0; level < 3; level++)
		if (cl->n_level[level])
			cells[n_cells++] = drt_grid_point(&cl->g, ev->lon, ev->lat, level);
	cl->st.events++;
	cl->period_events++;
	/* the cells' filters, then every key they admit, prefetched, then
	 * the lists. A cell without a filter (and a level not in use) reads
	 * an empty one: a keyword tests its bit in all three at once, no
	 * branch per cell (callgrind, cities: the loop per keyword and cell
	 * took a quarter of route()). */
	static const struct cellf no_keys;
	const struct cellf *f[3] = { &no_keys, &no_keys, &no_keys };
	for (size_t i = 0; i < n_cells; i++)
		drt_ftab_prefetch(&cl->cellf, cells[i]);
	for (size_t i = 0; i < n_cells; i++) {
		const struct cellf *x = drt_ftab_get(&cl->cellf, cells[i]);
		if (x != NULL)
			f[i] = x;
	}
	for (int32_t k = cl->n_nokw ? -1 : 0; k < (int32_t)ev->n_kw; k++) {
		uint32_t kwkey = k < 0 ? KW_NONE : ev->kw[k] + 1, b = cf_bit(kwkey);
		uint32_t w = b / 64, sh = b % 64;
		uint32_t in =
			(uint32_t)(f[0]->w[w] >> sh & 1) | (uint32_t)(f[1]->w[w] >> sh & 1) << 1 |
			(uint32_t)(f[2]->w[w] >> sh & 1) << 2; /* cells that may have the key */
		if (in == 0)
			continue;
		uint64_t bit = 1ull << (k < 62 ? k + 1 : 63);
		for (; in != 0; in &= in - 1) {
			bits[nk] = bit;
			keys[nk++] = key_of(cells[__builtin_ctz(in)], kwkey);
		}
	}
	for (size_t i = 0; i < nk; i++)
		drt_ftab_prefetch(&cl->route, keys[i]);
	cl->n_hit = 0;
	cl->hit_lost = false;
	for (size_t k = 0; k < nk; k++) {
		const struct rlist *l = drt_ftab_get(&cl->route, keys[k]);
		for (uint32_t i = 0; l && i < rlist_len(l); i++) {
			struct cat *c = root_of(rlist_cat(cl, l, i));
			if (c->stamp == epoch) {
				/* a second entry of c's group under the same key
				 * (parts not folded yet) adds nothing */
				if (c->out_at != UINT32_MAX && c->key_at != k) {
					cl->out[c->out_at].kw_mask |= bits[k];
					c->key_at = (uint32_t)k;
					hit_push(cl, c->out_at, keys[k]);
				}
				continue;
			}
			c->stamp = epoch;
			c->out_at = UINT32_MAX;
			if (!in_rect(&c->mbr, ev->lon, ev->lat))
				continue;
			c->t_num++;
			c->out_at = (uint32_t)n;
			c->key_at = (uint32_t)k;
			hit_push(cl, (uint32_t)n, keys[k]);
			cl->out[n++] = (struct drt_route){ c->id, c->worker, bits[k], NULL, 0 };
		}
	}
	hits_group(cl, n);
	cl->st.routed += n;
	*out = cl->out;
	return n;
}

size_t drt_cluster_take_actions(struct drt_cluster *cl, struct drt_action *out, size_t max)
{
	size_t n = cl->n_act < max ? cl->n_act : max;

	if (n == 0) /* cl->act may be NULL yet: no memcpy from it (UB) */
		return 0;
	memcpy(out, cl->act, n * sizeof(*out));
	memmove(cl->act, cl->act + n, (cl->n_act - n) * sizeof(*cl->act));
	cl->n_act -= n;
	return n;
}

bool drt_cluster_period_due(const struct drt_cluster *cl)
{
	return cl->period_events >= cl->p.lambda;
}

struct worker_cor_ctx {
	uint32_t m;
	double *cor; /* n_cats x m */
};

static double cor_to_worker(size_t i, uint32_t w, void *ctx)
{
	struct worker_cor_ctx *x = ctx;
	return x->cor[i * x->m + w];
}

/* Formula (7) loads, the (8)/(9) plan, the moves queued and applied. */
static int rebalance(struct drt_cluster *cl, const struct corr_buf *b)
{
	uint32_t m = cl->p.workers, n = cl->n_cats;
	struct drt_balance_cat *bc = malloc(n * sizeof(*bc));
	struct drt_move *mv = malloc(n * sizeof(*mv));
	struct worker_cor_ctx ctx = { m, calloc((size_t)n * m, sizeof(double)) };
	int rc = -1;

	if (bc == NULL || mv == NULL || ctx.cor == NULL)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		struct cat *c = cl->cats[i];
		bc[i] = (struct drt_balance_cat){ (double)c->t_num * c->size +
							  cl->p.c_ins * (double)c->n_ins +
							  cl->p.c_del * (double)c->n_del,
						  c->size, c->worker, c->cs, c->cd };
	}
	for (size_t k = 0; k < b->n; k++) {
		struct cat *a = live_by_id(cl, (uint32_t)(b->v[k].key >> 32));
		struct cat *c = live_by_id(cl, (uint32_t)b->v[k].key);
		if (a == NULL || c == NULL)
			continue;
		ctx.cor[(size_t)a->slot * m + c->worker] += (double)b->v[k].val;
		ctx.cor[(size_t)c->slot * m + a->worker] += (double)b->v[k].val;
	}
	size_t k = drt_balance_plan(bc, n, m, cl->p.sigma, cor_to_worker, &ctx, mv, n);
	rc = 0;
	for (size_t i = 0; i < k; i++) {
		struct cat *c = cl->cats[mv[i].cat];
		if (cl->w_down[mv[i].to])
			continue; /* the plan does not know about dead workers */
		struct drt_action a = { DRT_ACTION_MOVE, c->id, 0, mv[i].from, mv[i].to, c->size };
		if (queue_action(cl, &a) != 0) {
			rc = -1;
			break;
		}
		cl->w_subs[c->worker] -= c->size;
		cl->w_subs[mv[i].to] += c->size;
		c->worker = mv[i].to;
		cl->st.moves++;
		cl->st.moved_subs += c->size;
	}
out:
	free(ctx.cor);
	free(bc);
	free(mv);
	return rc;
}

int drt_cluster_period_end(struct drt_cluster *cl)
{
	struct corr_buf b = corr_snapshot(cl);
	int rc = b.v ? 0 : -SPATE_E_NO_MEMORY;

	cl->st.periods++;
	if (b.v && cl->p.workers > 1 && cl->n_cats > 1 && rebalance(cl, &b) != 0)
		rc = -SPATE_E_NO_MEMORY;
	/* age the co-match counts: halve, forget pairs of removed categories */
	for (size_t i = 0; b.v && i < b.n; i++) {
		uint64_t k = b.v[i].key;
		bool stale = !live_by_id(cl, (uint32_t)(k >> 32)) || !live_by_id(cl, (uint32_t)k);
		if (stale || b.v[i].val / 2 == 0)
			spate_idmap_del(cl->corr, k);
		else
			spate_idmap_put(cl->corr, k, (void *)(b.v[i].val / 2)); /* existing key */
	}
	free(b.v);
	b = corr_snapshot(cl);
	if (b.v)
		corr_recount(cl, &b);
	free(b.v);
	for (uint32_t i = 0; i < cl->n_cats; i++)
		cl->cats[i]->t_num = cl->cats[i]->n_ins = cl->cats[i]->n_del = 0;
	cl->period_events = 0;
	return rc;
}

uint32_t drt_cluster_count(const struct drt_cluster *cl)
{
	return cl->n_cats;
}

int drt_cluster_set_params(struct drt_cluster *cl, const struct drt_params *p, char *err,
			   size_t errlen)
{
	if (p->route_cell != cl->p.route_cell || p->workers != cl->p.workers) {
		snprintf(err, errlen, "%s changes at the next start only (it shapes the %s)",
			 p->workers != cl->p.workers ? "workers" : "route_cell",
			 p->workers != cl->p.workers ? "placement" : "routing grid");
		return -1;
	}
	cl->p = *p;
	return 0;
}

void drt_cluster_cat_at(const struct drt_cluster *cl, uint32_t i, struct drt_cat_info *info)
{
	const struct cat *c = cl->cats[i];

	*info = (struct drt_cat_info){ c->id,    c->worker, c->size, c->mbr,
				       c->t_num, c->n_ins,  c->n_del };
}

void drt_cluster_each_category(const struct drt_cluster *cl, spate_category_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < cl->n_cats; i++) {
		struct drt_cat_info c;
		drt_cluster_cat_at(cl, i, &c);
		struct spate_category_info ci = {
			.id = c.id,
			.worker = c.worker,
			.n_subs = c.size,
			.mbr = c.mbr,
			.events = c.t_num,
			.inserts = c.n_ins,
			.deletes = c.n_del,
		};
		fn(ctx, &ci);
	}
}

/* Bytes of an idmap holding n keys (load at most 1/2, 16-byte slots). */
static size_t idmap_bytes(size_t n)
{
	size_t slots = 64;

	while (slots < 2 * n)
		slots *= 2;
	return slots * 16;
}

void drt_cluster_stats(const struct drt_cluster *cl, struct drt_cluster_stats *st)
{
	size_t bytes = sizeof(*cl) + cl->cap_cats * (sizeof(*cl->cats) + sizeof(*cl->out)) +
		       cl->cap_pool * (sizeof(*cl->pool) + sizeof(*cl->free_nums)) +
		       drt_ftab_bytes(&cl->route) + drt_ftab_bytes(&cl->cellf) +
		       drt_geo_bytes(&cl->geo) + idmap_bytes(spate_idmap_count(cl->by_id)) +
		       drt_ftab_bytes(&cl->kw_all) + idmap_bytes(spate_idmap_count(cl->corr));
	uint64_t key, keys = 0, entries = 0;

	for (size_t i = 0; i <= cl->route.mask; i++) {
		const struct rlist *l = drt_ftab_at(&cl->route, i, &key);
		if (l && !rlist_inline(l))
			bytes += sizeof(struct rarr) + rlist_arr(l)->cap * sizeof(struct pair);
		if (l) {
			keys++;
			entries += rlist_len(l);
		}
	}
	uint64_t cells = 0, cell_entries = 0;
	for (size_t i = 0; i <= cl->cellf.mask; i++) {
		const struct cellf *f = drt_ftab_at(&cl->cellf, i, &key);
		if (f && f->any.w != 0 && !rlist_inline(&f->any))
			bytes +=
				sizeof(struct rarr) + rlist_arr(&f->any)->cap * sizeof(struct pair);
		if (f) {
			cells++;
			cell_entries += f->any.w != 0 ? rlist_len(&f->any) : 0;
		}
	}
	for (uint32_t i = 0; i < cl->n_cats; i++)
		bytes += drt_ftab_bytes(&cl->cats[i]->kw);
	bytes += spate_idmap_count(cl->by_id) * sizeof(struct cat);
	*st = cl->st;
	st->categories = cl->n_cats;
	st->corr_pairs = spate_idmap_count(cl->corr);
	st->bytes = bytes;
	st->route_keys = keys;
	st->route_entries = entries;
	st->cells = cells;
	st->cell_entries = cell_entries;
}

int drt_cluster_worker_set(struct drt_cluster *cl, uint32_t w, bool up)
{
	if (w >= cl->p.workers)
		return -SPATE_E_BAD_ID;
	if (up || cl->w_down[w]) {
		cl->n_down -= cl->w_down[w] && up;
		cl->w_down[w] = !up;
		return 0;
	}
	if (cl->n_down + 1 == cl->p.workers)
		return -SPATE_E_BAD_ID; /* the last live worker */
	cl->w_down[w] = 1;
	cl->n_down++;
	int moved = 0;
	for (uint32_t i = 0; i < cl->n_cats; i++) {
		struct cat *c = cl->cats[i];
		if (c->worker != w)
			continue;
		uint32_t to = emptiest_worker(cl);
		cl->w_subs[w] -= c->size;
		cl->w_subs[to] += c->size;
		c->worker = to;
		moved++;
	}
	return moved;
}

bool drt_cluster_worker_up(const struct drt_cluster *cl, uint32_t w)
{
	return w < cl->p.workers && !cl->w_down[w];
}

int drt_cluster_set_id_base(struct drt_cluster *cl, uint32_t base)
{
	if (cl->n_cats != 0 || cl->next_id != 1 || base > UINT32_MAX / 2)
		return -SPATE_E_NOT_ALLOWED;
	cl->next_id = base != 0 ? base : 1;
	return 0;
}
