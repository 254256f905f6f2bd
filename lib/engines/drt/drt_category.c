/* drt_category.c - one category's subscription index (drt_category.h).
 *
 * A grid of cell_deg cells by keyword. Each subscription is filed under
 * ONE of its keywords (the one with the smallest bucket in this category
 * when it arrives; "none" for keyword-less ones) in every cell its
 * rectangle overlaps on the finest level of drt_grid.h where that is at
 * most CAT_WIDE_CELLS cells (a coarser grid, then one row for the
 * world). An event looks only at its own cell on each level in use, in the
 * buckets of its own keywords and "none": a matching subscription carries
 * its filing keyword (so the event does too) and covers the event's cell
 * on its level, so it is found, and exactly once (one filing keyword, one
 * level, one cell per level, event keywords unique).
 *
 * Layout for the cache and for memory: buckets live in a flat table
 * (drt_ftab.h) of 16-byte slots; a bucket of one subscription holds its
 * pointer inline, a larger one points to an array of pointers (the
 * candidates' rectangles are prefetched together). A 1024-bit filter of the filing
 * keywords (bits set on add, cleared only when the category empties)
 * skips most lookups of keywords the category does not have, and the
 * remaining lookups are prefetched together.
 *
 * A subscription the cluster files coarse (its routing keyword is rare:
 * drt_placement.coarse) is filed here the same way, one level up (level
 * 1 where its rectangle covers at most CAT_WIDE_CELLS cells there, else
 * the world row), so a route's keys still name its buckets
 * (drt_category_match_keys); the plain match reads every level in use.
 *
 * No per-subscription map: delete finds the filing keyword by looking for
 * the pointer in the buckets of the subscription's own keywords at its
 * first cell (then at its first cell one level up, where a coarse
 * filing is).
 *
 * Content-only subscriptions (no keyword, a rectangle filed in the world
 * row, numeric constraints) would all share the world row's keyword-less
 * bucket, which every event scans whole. Once a category has CAT_IVX_MIN
 * of them they move to an interval index (ivx_index.h), which answers
 * with one bit-set pass and confirms with spate_sub_matches(), so
 * matching stays exact.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/drt/drt_category.h"
#include "engines/drt/drt_ftab.h"
#include "engines/drt/drt_grid.h"
#include "engines/ivx/ivx_index.h"
#include "proto/spate_err.h"

#define CAT_WIDE_CELLS DRT_GRID_FILE_CELLS /* subs over more cells go a level up */
#define KW_NONE 0                          /* kwkey of keyword-less subs; else keyword + 1 */
#define FILTER_BITS 1024
#define MAX_KEYS (3 * (SPATE_KW_MAX_HARD + 1))
/* Content-only subs a category gathers before they get an interval
 * index: below it a scan of the bucket is cheaper than a pass over an
 * index block (4096 slots). */
#define CAT_IVX_MIN 256

/* A bucket's payload in the table is one word: the subscription itself
 * (low bit 0) while the bucket holds one, else (low bit 1) a struct
 * barray. Rectangles are read from the subscriptions: a copy in the index
 * cost 16 bytes per filing, more than a candidate's extra cache miss is
 * worth at this selectivity (a few candidates per event). */
struct barray {
	uint32_t n, cap;
	const struct spate_sub *s[];
};

struct bucket {
	uintptr_t w;
};

static bool bucket_single(const struct bucket *b)
{
	return (b->w & 1) == 0;
}

static struct barray *bucket_array(const struct bucket *b)
{
	return (struct barray *)(b->w & ~(uintptr_t)1);
}

static uint32_t bucket_n(const struct bucket *b)
{
	return bucket_single(b) ? 1 : bucket_array(b)->n;
}

static const struct spate_sub *bucket_at(const struct bucket *b, uint32_t i)
{
	return bucket_single(b) ? (const struct spate_sub *)b->w : bucket_array(b)->s[i];
}

static struct barray *barray_alloc(uint32_t cap)
{
	return malloc(sizeof(struct barray) + cap * sizeof(const struct spate_sub *));
}

/* A subscription's buckets under one keyword, looked up once: every
 * slot's miss started before any is read, then the arrays' misses. The
 * pointers stay good while the table neither grows nor loses a key. */
struct filing {
	uint32_t n;
	uint64_t keys[CAT_WIDE_CELLS];
	struct bucket *b[CAT_WIDE_CELLS];
	size_t end[CAT_WIDE_CELLS]; /* where an absent one's probe ended */
};

struct drt_category {
	struct drt_grid g;
	struct drt_ftab buckets; /* cell << 32 | kwkey -> struct bucket */
	uint32_t n, n_nokw, n_level[3];
	bool plain; /* a sub came in through plain add: masks do not apply */
	uint64_t filter[FILTER_BITS / 64];
	uint64_t events, candidates, matches;
	const struct spate_schema *schema;
	uint32_t n_content;    /* content-only subs, in the bucket or in ivx */
	struct ivx_index *ivx; /* NULL until n_content reaches CAT_IVX_MIN */
	/* The buckets drt_category_prefetch() looked up for plan_s under
	 * plan_kw, for its add or delete next (plan_take): dropped by every
	 * add and delete, used only with the table's size and count as they
	 * were. */
	struct filing plan;
	const struct spate_sub *plan_s;
	uint32_t plan_kw;
	size_t plan_mask, plan_count;
	struct drt_category *link; /* the owner's (drt_category_set_link) */
};

static uint64_t key_of(uint64_t cell, uint32_t kwkey)
{
	return cell << 32 | kwkey;
}

static uint32_t filter_bit(uint32_t kwkey)
{
	return (uint32_t)(((uint64_t)kwkey * 0x9e3779b97f4a7c15ull) >> (64 - 10));
}

static bool filter_has(const struct drt_category *c, uint32_t kwkey)
{
	uint32_t b = filter_bit(kwkey);
	return c->filter[b / 64] >> (b % 64) & 1;
}

struct drt_category *drt_category_create(double cell_deg)
{
	if (!(cell_deg >= 0.01 && cell_deg <= 90))
		return NULL;
	struct drt_category *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	drt_grid_init(&c->g, cell_deg);
	if (drt_ftab_init(&c->buckets, sizeof(struct bucket)) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

static void free_arrays(struct drt_category *c)
{
	uint64_t key;

	for (size_t i = 0; i <= c->buckets.mask; i++) {
		struct bucket *b = drt_ftab_at(&c->buckets, i, &key);
		if (b && !bucket_single(b))
			free(bucket_array(b));
	}
}

void drt_category_set_schema(struct drt_category *c, const struct spate_schema *schema)
{
	c->schema = schema;
}

void drt_category_destroy(struct drt_category *c)
{
	if (c == NULL)
		return;
	ivx_destroy(c->ivx);
	free_arrays(c);
	drt_ftab_free(&c->buckets);
	free(c);
}

struct drt_category *drt_category_link(const struct drt_category *c)
{
	return c->link;
}

void drt_category_set_link(struct drt_category *c, struct drt_category *next)
{
	c->link = next;
}

static uint32_t bucket_size(const struct drt_category *c, uint64_t key)
{
	const struct bucket *b = drt_ftab_get(&c->buckets, key);
	return b == NULL ? 0 : bucket_n(b);
}

/* Append s to bucket b (of one subscription or more). 0 or -1 (nothing
 * changed). */
static int bucket_push_in(struct bucket *b, const struct spate_sub *s)
{
	struct barray *a;

	if (bucket_single(b)) { /* one inline: go to an array */
		if ((a = barray_alloc(2)) == NULL)
			return -1;
		a->s[0] = (const struct spate_sub *)b->w;
		a->n = 1;
		a->cap = 2;
	} else {
		a = bucket_array(b);
		if (a->n == a->cap) {
			struct barray *na = realloc(a, sizeof(*a) + 2 * a->cap * sizeof(a->s[0]));
			if (na == NULL)
				return -1;
			a = na;
			a->cap *= 2;
		}
	}
	a->s[a->n++] = s;
	b->w = (uintptr_t)a | 1;
	return 0;
}

/* Take s out of bucket b, which it must not be the only one of; false
 * if it is not there. One left with one entry takes it inline. Never
 * allocates. */
static bool bucket_pull_in(struct bucket *b, const struct spate_sub *s)
{
	struct barray *a = bucket_array(b);
	uint32_t i = 0;

	while (i < a->n && a->s[i] != s)
		i++;
	if (i == a->n)
		return false;
	a->s[i] = a->s[--a->n];
	if (a->n == 1) {
		b->w = (uintptr_t)a->s[0];
		free(a);
	}
	return true;
}

/* Take s out of the bucket of key; false if it is not there. An emptied
 * bucket goes; one left with one entry takes it inline. Never allocates. */
static bool bucket_pull(struct drt_category *c, uint64_t key, const struct spate_sub *s)
{
	struct bucket *b = drt_ftab_get(&c->buckets, key);

	if (b == NULL)
		return false;
	if (bucket_single(b)) {
		if ((const struct spate_sub *)b->w != s)
			return false;
		drt_ftab_del(&c->buckets, key);
		return true;
	}
	return bucket_pull_in(b, s);
}

static void filing_find(const struct drt_category *c, struct filing *fl, const struct drt_span *sp,
			uint32_t kwkey)
{
	uint32_t n = 0;

	for (uint32_t y = sp->y0; y <= sp->y1; y++)
		for (uint32_t x = sp->x0; x <= sp->x1; x++)
			fl->keys[n++] = key_of(drt_grid_cell(&c->g, sp->level, x, y), kwkey);
	fl->n = n;
	for (uint32_t i = 0; i < n; i++)
		drt_ftab_prefetch(&c->buckets, fl->keys[i]);
	for (uint32_t i = 0; i < n; i++) {
		fl->b[i] = drt_ftab_get_at(&c->buckets, fl->keys[i], &fl->end[i]);
		if (fl->b[i] != NULL && !bucket_single(fl->b[i]))
			__builtin_prefetch(bucket_array(fl->b[i]));
	}
}

/* The buckets prefetch looked up for s over sp under kwkey if they are
 * still good, else NULL; either way they are dropped. */
static struct filing *plan_take(struct drt_category *c, const struct spate_sub *s,
				const struct drt_span *sp, uint32_t kwkey)
{
	bool good = c->plan_s == s && c->plan_kw == kwkey && c->plan.n > 0 &&
		    c->plan_mask == c->buckets.mask && c->plan_count == c->buckets.count &&
		    c->plan.keys[0] == key_of(drt_grid_first(&c->g, sp), kwkey) &&
		    c->plan.n == drt_grid_span_cells(sp);

	c->plan_s = NULL;
	return good ? &c->plan : NULL;
}

/* Pull s from every bucket of fl that holds it; the emptied ones go
 * last (a deletion moves entries fl points to). Whether the first
 * bucket held it. Never allocates. */
static bool filing_pull(struct drt_category *c, struct filing *fl, const struct spate_sub *s)
{
	bool gone[CAT_WIDE_CELLS], first = false;

	for (uint32_t i = 0; i < fl->n; i++) {
		struct bucket *b = fl->b[i];
		bool held = false;
		gone[i] = false;
		if (b != NULL && bucket_single(b))
			held = gone[i] = (const struct spate_sub *)b->w == s;
		else if (b != NULL)
			held = bucket_pull_in(b, s);
		first |= i == 0 && held;
	}
	for (uint32_t i = 0; i < fl->n; i++)
		if (gone[i])
			drt_ftab_del(&c->buckets, fl->keys[i]);
	return first;
}

/* Pull s from every cell of its span with kwkey (where it is). */
static void pull_all(struct drt_category *c, const struct spate_sub *s, const struct drt_span *sp,
		     uint32_t kwkey)
{
	for (uint32_t y = sp->y0; y <= sp->y1; y++)
		for (uint32_t x = sp->x0; x <= sp->x1; x++)
			bucket_pull(c, key_of(drt_grid_cell(&c->g, sp->level, x, y), kwkey), s);
}

/* The filing keyword: the one of s's keywords with the smallest bucket at
 * s's first cell (rarest here, so events carrying frequent keywords see
 * few candidates). */
static uint32_t choose_kwkey(const struct drt_category *c, const struct spate_sub *s,
			     const struct drt_span *sp)
{
	uint64_t cell = drt_grid_first(&c->g, sp);
	uint32_t best = KW_NONE, best_n = UINT32_MAX;

	for (uint16_t i = 0; i < s->n_kw; i++) {
		uint32_t n = bucket_size(c, key_of(cell, s->kw[i] + 1));
		if (n < best_n) {
			best_n = n;
			best = s->kw[i] + 1;
		}
	}
	return best;
}

static bool content_only(const struct spate_sub *s, const struct drt_span *sp)
{
	return s->n_kw == 0 && sp->level == 2 && ivx_indexable(s);
}

/* Give c its interval index and move the content-only subs of the world
 * row's keyword-less bucket into it. 0 or -1 (nothing changed). */
static int start_ivx(struct drt_category *c)
{
	struct bucket *b = drt_ftab_get(&c->buckets, key_of(DRT_GRID_WORLD, KW_NONE));
	uint32_t n = b == NULL ? 0 : bucket_n(b);
	const struct spate_sub **v = malloc((n + 1) * sizeof(*v));
	uint32_t k = 0;

	c->ivx = v ? ivx_create(c->schema, 0) : NULL;
	if (c->ivx == NULL) {
		free(v);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct spate_sub *s = bucket_at(b, i);
		if (ivx_indexable(s))
			v[k++] = s;
	}
	for (uint32_t i = 0; i < k; i++)
		if (ivx_add(c->ivx, v[i]) != 0) {
			ivx_destroy(c->ivx);
			c->ivx = NULL;
			free(v);
			return -1;
		}
	for (uint32_t i = 0; i < k; i++) { /* never allocates */
		bucket_pull(c, key_of(DRT_GRID_WORLD, KW_NONE), v[i]);
		c->n_nokw--;
		c->n_level[2]--;
	}
	free(v);
	return 0;
}

#define KW_CHOOSE UINT32_MAX /* add_filed: choose the filing keyword */

/* Where s is filed: the finest level where its rectangle covers at most
 * CAT_WIDE_CELLS cells, or (coarse) the finest from level 1 up. */
static struct drt_span filing_span(const struct drt_category *c, const struct spate_sub *s,
				   bool coarse)
{
	return drt_grid_span_fit(&c->g, &s->rect, coarse ? 0 : CAT_WIDE_CELLS, CAT_WIDE_CELLS);
}

/* File s under kwkey (KW_CHOOSE: choose_kwkey's), on filing_span(coarse,
 * with a given kwkey). 0 or -SPATE_E_NO_MEMORY (nothing changed). */
static int add_filed(struct drt_category *c, const struct spate_sub *s, uint32_t kwkey, bool coarse)
{
	struct drt_span sp = filing_span(c, s, coarse && kwkey != KW_CHOOSE);
	struct filing *planned = plan_take(c, s, &sp, kwkey);
	int rc = 0;

	if (kwkey == KW_CHOOSE)
		kwkey = choose_kwkey(c, s, &sp);

	if (content_only(s, &sp)) {
		if (c->ivx == NULL && c->n_content + 1 >= CAT_IVX_MIN && start_ivx(c) != 0)
			return -SPATE_E_NO_MEMORY;
		if (c->ivx != NULL) {
			if (ivx_add(c->ivx, s) != 0)
				return -SPATE_E_NO_MEMORY;
			c->n++;
			c->n_content++;
			return 0;
		}
	}

	struct filing own, *fp = planned;
	if (fp == NULL) {
		filing_find(c, &own, &sp, kwkey);
		fp = &own;
	}
	for (uint32_t i = 0; i < fp->n && rc == 0; i++) {
		size_t mask = c->buckets.mask;
		if (fp->b[i] != NULL) {
			rc = bucket_push_in(fp->b[i], s);
			continue;
		}
		struct bucket *b = drt_ftab_add_from(&c->buckets, fp->keys[i], fp->end[i]);
		if (b == NULL) {
			rc = -1;
			continue;
		}
		b->w = (uintptr_t)s;
		if (c->buckets.mask != mask) /* grown: the later pointers afresh */
			for (uint32_t j = i + 1; j < fp->n; j++)
				fp->b[j] = drt_ftab_get_at(&c->buckets, fp->keys[j], &fp->end[j]);
	}
	if (rc != 0) {
		pull_all(c, s, &sp, kwkey); /* pulls only what was pushed */
		return -SPATE_E_NO_MEMORY;
	}
	uint32_t b = filter_bit(kwkey);
	c->filter[b / 64] |= 1ull << (b % 64);
	c->n++;
	c->n_nokw += s->n_kw == 0;
	c->n_level[sp.level]++;
	c->n_content += content_only(s, &sp);
	return 0;
}

int drt_category_add(struct drt_category *c, const struct spate_sub *s)
{
	int rc = add_filed(c, s, KW_CHOOSE, false);

	c->plain |= rc == 0;
	return rc;
}

/* Is kwkey one of s's keywords (or "none" for a keyword-less s)? */
static bool own_kwkey(const struct spate_sub *s, uint32_t kwkey)
{
	if (kwkey == KW_NONE)
		return s->n_kw == 0;
	for (uint16_t i = 0; i < s->n_kw; i++)
		if (s->kw[i] + 1 == kwkey)
			return true;
	return false;
}

int drt_category_add_routed(struct drt_category *c, const struct spate_sub *s, uint32_t route_kw,
			    bool coarse)
{
	if (!own_kwkey(s, route_kw)) /* not a routing keyword of s: file it our way */
		return drt_category_add(c, s);
	return add_filed(c, s, route_kw, coarse && route_kw != KW_NONE);
}

void drt_category_prefetch(struct drt_category *c, const struct spate_sub *s, uint32_t route_kw,
			   bool coarse)
{
	c->plan_s = NULL;
	/* Not own_kwkey(): it reads s's keywords, a miss of its own the
	 * bucket misses would wait for; a wrong hint only costs a lookup. */
	if (!filter_has(c, route_kw))
		return; /* a new bucket */
	struct drt_span sp = filing_span(c, s, coarse);
	/* the buckets looked up (their misses together) and kept for the
	 * add or delete that comes next */
	filing_find(c, &c->plan, &sp, route_kw);
	c->plan_s = s;
	c->plan_kw = route_kw;
	c->plan_mask = c->buckets.mask;
	c->plan_count = c->buckets.count;
}

static bool del_hinted(struct drt_category *c, const struct spate_sub *s, uint32_t hint,
		       bool coarse);

bool drt_category_del(struct drt_category *c, const struct spate_sub *s)
{
	return del_hinted(c, s, UINT32_MAX, false);
}

bool drt_category_del_routed(struct drt_category *c, const struct spate_sub *s, uint32_t route_kw,
			     bool coarse)
{
	return del_hinted(c, s, route_kw, coarse);
}

/* Pull s from the bucket of one of its own keywords (or "none") at cell;
 * that keyword, or UINT32_MAX when s is in none of them. */
static uint32_t pull_own(struct drt_category *c, const struct spate_sub *s, uint64_t cell)
{
	if (s->n_kw == 0)
		return bucket_pull(c, key_of(cell, KW_NONE), s) ? KW_NONE : UINT32_MAX;
	for (uint16_t i = 0; i < s->n_kw; i++) {
		uint32_t kwkey = s->kw[i] + 1;
		if (filter_has(c, kwkey) && bucket_pull(c, key_of(cell, kwkey), s))
			return kwkey;
	}
	return UINT32_MAX;
}

/* hint: the filing keyword to try first (UINT32_MAX: none), coarse: the
 * hint's filing_span. */
static bool del_hinted(struct drt_category *c, const struct spate_sub *s, uint32_t hint,
		       bool coarse)
{
	struct drt_span sp = filing_span(c, s, false), up = filing_span(c, s, true);
	uint32_t kwkey = KW_NONE;
	bool found = false;
	/* what prefetch kept goes whatever this delete does */
	struct filing *planned = plan_take(c, s, coarse ? &up : &sp, hint);

	if (c->ivx != NULL && content_only(s, &sp) && ivx_del(c->ivx, s)) {
		c->n--;
		c->n_content--;
		if (c->n == 0) {
			memset(c->filter, 0, sizeof(c->filter));
			c->plain = false;
		}
		return true;
	}
	/* its filing keyword is the one whose first-cell bucket holds it */
	if (hint != UINT32_MAX && filter_has(c, hint)) {
		struct drt_span hs = coarse ? up : sp;
		struct filing own, *fl = planned;
		if (fl == NULL) {
			filing_find(c, &own, &hs, hint);
			fl = &own;
		}
		/* the first bucket holding s proves the hint: s was in all */
		if (filing_pull(c, fl, s)) {
			kwkey = hint;
			found = true;
			sp = hs;
			goto pulled;
		}
	}
	if (!found && (kwkey = pull_own(c, s, drt_grid_first(&c->g, &sp))) != UINT32_MAX)
		found = true;
	/* not at its rectangle's first cell: filed coarse */
	if (!found && up.level != sp.level && s->n_kw > 0 &&
	    (kwkey = pull_own(c, s, drt_grid_first(&c->g, &up))) != UINT32_MAX) {
		found = true;
		sp = up;
	}
	if (!found)
		return false;
	if (sp.x0 != sp.x1 || sp.y0 != sp.y1)
		pull_all(c, s, &sp, kwkey); /* the other cells */
pulled:
	c->n_content -= content_only(s, &sp);
	c->n--;
	c->n_nokw -= s->n_kw == 0;
	c->n_level[sp.level]--;
	if (c->n == 0) {
		memset(c->filter, 0, sizeof(c->filter));
		c->plain = false;
	}
	return true;
}

/* The numeric-constraint stage of matching, in one place: an interval
 * index over the category's subscriptions (REIN, issue 4) can replace this
 * per-candidate check without touching the rest. */
static bool constraints_hold(const struct drt_category *c, const struct spate_sub *s,
			     const struct spate_event *ev)
{
	(void)c;
	return s->n_cons == 0 || spate_sub_constraints_hold(s, ev);
}

/* The rest of the match once the point is in s's rectangle: the filing
 * keyword is the event's, so one keyword needs no check. */
static inline __attribute__((always_inline)) int confirm(struct drt_category *c,
							 const struct spate_sub *s,
							 const struct spate_event *ev,
							 struct spate_matchvec *mv)
{
	if (s->n_kw > 1 && !spate_sub_keywords_in(s, ev))
		return 0;
	if (!constraints_hold(c, s, ev))
		return 0;
	c->matches++;
	return spate_matchvec_push(mv, s);
}

static bool point_in(const struct spate_rect *r, const struct spate_event *ev)
{
	return ev->lon >= r->min_lon && ev->lon <= r->max_lon && ev->lat >= r->min_lat &&
	       ev->lat <= r->max_lat;
}

static inline __attribute__((always_inline)) int scan(struct drt_category *c,
						      const struct bucket *b,
						      const struct spate_event *ev,
						      struct spate_matchvec *mv)
{
	if (bucket_single(b)) {
		const struct spate_sub *s = (const struct spate_sub *)b->w;
		c->candidates++;
		return point_in(&s->rect, ev) ? confirm(c, s, ev, mv) : 0;
	}
	const struct barray *a = bucket_array(b);
	c->candidates += a->n;
	for (uint32_t i = 0; i < a->n; i++) /* their misses overlap */
		__builtin_prefetch(&a->s[i]->rect);
	for (uint32_t i = 0; i < a->n; i++)
		if (point_in(&a->s[i]->rect, ev) && confirm(c, a->s[i], ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
	return 0;
}

/* Does kw_mask name event keyword k (-1: "none")? */
static bool mask_has(uint64_t kw_mask, int32_t k)
{
	return kw_mask >> (k < 62 ? k + 1 : 63) & 1;
}

/* Match under the event keywords kw_mask names (all: ~0). */
static int match_masked(struct drt_category *c, const struct spate_event *ev, uint64_t kw_mask,
			struct spate_matchvec *mv)
{
	uint64_t cells[3];
	uint64_t keys[MAX_KEYS];
	size_t n = 0, n_cells = 0;

	for (int level = 0; level < 3; level++)
		if (c->n_level[level])
			cells[n_cells++] = drt_grid_point(&c->g, ev->lon, ev->lat, level);
	c->events++;
	/* the keys worth a lookup, prefetched together, then read */
	for (int32_t k = c->n_nokw ? -1 : 0; k < (int32_t)ev->n_kw; k++) {
		uint32_t kwkey = k < 0 ? KW_NONE : ev->kw[k] + 1;
		if (!mask_has(kw_mask, k) || !filter_has(c, kwkey))
			continue;
		for (size_t i = 0; i < n_cells; i++)
			keys[n++] = key_of(cells[i], kwkey);
	}
	for (size_t i = 0; i < n; i++)
		drt_ftab_prefetch(&c->buckets, keys[i]);
	for (size_t i = 0; i < n; i++) {
		const struct bucket *b = drt_ftab_get(&c->buckets, keys[i]);
		if (b != NULL && scan(c, b, ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	/* the content-only subs, keyword-less: looked at as "none" is */
	if (c->ivx != NULL && mask_has(kw_mask, -1)) {
		size_t before = mv->n;
		if (ivx_match(c->ivx, ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
		c->matches += mv->n - before;
	}
	return 0;
}

int drt_category_match(struct drt_category *c, const struct spate_event *ev,
		       struct spate_matchvec *mv)
{
	return match_masked(c, ev, ~0ull, mv);
}

int drt_category_match_routed(struct drt_category *c, const struct spate_event *ev,
			      uint64_t kw_mask, struct spate_matchvec *mv)
{
	return match_masked(c, ev, c->plain ? ~0ull : kw_mask, mv);
}

int drt_category_match_keys(struct drt_category *c, const struct spate_event *ev,
			    const uint64_t *keys, uint32_t n_keys, struct spate_matchvec *mv)
{
	bool nokw = false;

	if (c->plain)
		return match_masked(c, ev, ~0ull, mv);
	c->events++;
	for (uint32_t i = 0; i < n_keys; i++)
		drt_ftab_prefetch(&c->buckets, keys[i]);
	for (uint32_t i = 0; i < n_keys; i++) {
		const struct bucket *b = drt_ftab_get(&c->buckets, keys[i]);
		nokw |= (uint32_t)keys[i] == KW_NONE;
		if (b != NULL && scan(c, b, ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	/* the content-only subs, keyword-less: looked at as "none" is */
	if (c->ivx != NULL && nokw) {
		size_t before = mv->n;
		if (ivx_match(c->ivx, ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
		c->matches += mv->n - before;
	}
	return 0;
}

typedef void filed_fn(const struct spate_sub *s, uint32_t kwkey, bool coarse, void *ctx);

struct filed_ctx {
	filed_fn *fn;
	void *ctx;
};

static void ivx_filed(const struct spate_sub *s, void *ctx)
{
	struct filed_ctx *f = ctx;

	f->fn(s, KW_NONE, false, f->ctx);
}

/* Every subscription once (in the bucket of its first cell, or in the
 * interval index), with the keyword it is filed under and whether coarse
 * (filing_span). */
static void foreach_filed(const struct drt_category *c, filed_fn *fn, void *ctx)
{
	uint64_t key;

	for (size_t i = 0; i <= c->buckets.mask; i++) {
		const struct bucket *b = drt_ftab_at(&c->buckets, i, &key);
		if (b == NULL)
			continue;
		uint32_t n = bucket_n(b);
		for (uint32_t j = 0; j < n; j++) {
			const struct spate_sub *s = bucket_at(b, j);
			struct drt_span sp = filing_span(c, s, false), up = filing_span(c, s, true);
			if (drt_grid_first(&c->g, &sp) == key >> 32)
				fn(s, (uint32_t)key, false, ctx);
			else if (up.level != sp.level && drt_grid_first(&c->g, &up) == key >> 32)
				fn(s, (uint32_t)key, true, ctx);
		}
	}
	if (c->ivx != NULL) {
		struct filed_ctx f = { fn, ctx };
		ivx_foreach(c->ivx, ivx_filed, &f);
	}
}

struct foreach_ctx {
	void (*fn)(const struct spate_sub *s, void *ctx);
	void *ctx;
};

static void call_fn(const struct spate_sub *s, uint32_t kwkey, bool coarse, void *ctx)
{
	struct foreach_ctx *x = ctx;

	(void)kwkey;
	(void)coarse;
	x->fn(s, x->ctx);
}

void drt_category_foreach(const struct drt_category *c,
			  void (*fn)(const struct spate_sub *s, void *ctx), void *ctx)
{
	struct foreach_ctx x = { fn, ctx };

	foreach_filed(c, call_fn, &x);
}

struct filed {
	const struct spate_sub *s;
	uint32_t kwkey;
	bool coarse;
};

struct collect {
	struct filed *v;
	uint32_t n;
};

static void collect_sub(const struct spate_sub *s, uint32_t kwkey, bool coarse, void *ctx)
{
	struct collect *x = ctx;
	x->v[x->n++] = (struct filed){ s, kwkey, coarse };
}

int drt_category_merge(struct drt_category *into, struct drt_category *from)
{
	struct collect x = { malloc((from->n + 1) * sizeof(*x.v)), 0 };

	if (x.v == NULL)
		return -SPATE_E_NO_MEMORY;
	foreach_filed(from, collect_sub, &x);
	for (uint32_t i = 0; i < x.n; i++) {
		if (add_filed(into, x.v[i].s, x.v[i].kwkey, x.v[i].coarse) != 0) {
			while (i-- > 0) /* all stay in from */
				drt_category_del(into, x.v[i].s);
			free(x.v);
			return -SPATE_E_NO_MEMORY;
		}
	}
	free(x.v);
	into->plain |= from->plain;
	from->plain = false;
	/* from is emptied wholesale */
	free_arrays(from);
	drt_ftab_clear(&from->buckets);
	ivx_destroy(from->ivx);
	from->ivx = NULL;
	from->n = from->n_nokw = from->n_content = 0;
	memset(from->n_level, 0, sizeof(from->n_level));
	memset(from->filter, 0, sizeof(from->filter));
	return 0;
}

uint32_t drt_category_size(const struct drt_category *c)
{
	return c->n;
}

void drt_category_stats(const struct drt_category *c, struct drt_category_stats *st)
{
	size_t bytes = sizeof(*c) + drt_ftab_bytes(&c->buckets) + (c->ivx ? ivx_bytes(c->ivx) : 0);
	uint64_t key;

	for (size_t i = 0; i <= c->buckets.mask; i++) {
		const struct bucket *b = drt_ftab_at(&c->buckets, i, &key);
		if (b && !bucket_single(b))
			bytes += sizeof(struct barray) +
				 bucket_array(b)->cap * sizeof(const struct spate_sub *);
	}
	*st = (struct drt_category_stats){ c->events, c->candidates, c->matches, bytes };
}
