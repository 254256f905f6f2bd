/* drt_category.c - one category's subscription index (drt_category.h).
 *
 * A grid of cell_deg cells by keyword. Each subscription is filed under
 * ONE of its keywords (the one with the smallest bucket in this category
 * when it arrives; "none" for keyword-less ones) in every cell its
 * rectangle overlaps, or once in a wide row when that is more than
 * CAT_WIDE_CELLS cells. An event looks only at its own cell's and the wide
 * row's buckets for its own keywords and "none": a matching subscription
 * carries its filing keyword (so the event does too) and covers the
 * event's cell, so it is found, and exactly once (one filing keyword, one
 * cell per event, event keywords unique).
 *
 * Buckets keep each entry's rectangle beside the subscription pointer so
 * most candidates are rejected without touching the subscription.
 */
#include <stdlib.h>
#include <string.h>

#include "drt_category.h"
#include "spate_err.h"
#include "spate_idmap.h"

#define CAT_WIDE_CELLS 16         /* subs over more cells go in the wide row */
#define CAT_WIDE_ROW 0xffffffffull
#define KW_NONE 0                 /* kwkey of keyword-less subs; else keyword + 1 */

struct entry {
	struct spate_rect r;
	const struct spate_sub *s;
};

struct bucket {
	uint64_t key; /* cell << 32 | kwkey */
	uint32_t n, cap;
	struct entry *e;
};

struct member {
	const struct spate_sub *s;
	uint32_t kwkey; /* the filing keyword */
};

struct drt_category {
	int64_t cell_units;
	uint32_t nx, ny;
	struct spate_idmap *bucket_at; /* key -> bucket index + 1 */
	struct bucket *b;
	uint32_t nb, capb;
	struct spate_idmap *member_at; /* sub id -> member index + 1 */
	struct member *m;
	uint32_t nm, capm;
	uint32_t n_nokw, n_wide;
	uint64_t events, candidates, matches;
};

struct span {
	uint32_t x0, x1, y0, y1;
	bool wide;
};

/* Cell of a coordinate; the upper border folds into the last cell. Monotone,
 * so a point inside a rectangle falls in a cell the rectangle covers. */
static uint32_t cell_of(int64_t v, int64_t max, int64_t units, uint32_t n)
{
	uint32_t c = (uint32_t)((v + max) / units);
	return c < n ? c : n - 1;
}

static struct span span_of(const struct drt_category *c, const struct spate_rect *r)
{
	struct span s = {
		cell_of(r->min_lon, SPATE_LON_MAX, c->cell_units, c->nx),
		cell_of(r->max_lon, SPATE_LON_MAX, c->cell_units, c->nx),
		cell_of(r->min_lat, SPATE_LAT_MAX, c->cell_units, c->ny),
		cell_of(r->max_lat, SPATE_LAT_MAX, c->cell_units, c->ny),
		false,
	};
	s.wide = (uint64_t)(s.x1 - s.x0 + 1) * (s.y1 - s.y0 + 1) > CAT_WIDE_CELLS;
	return s;
}

static uint64_t key_of(uint64_t cell, uint32_t kwkey)
{
	return cell << 32 | kwkey;
}

struct drt_category *drt_category_create(double cell_deg)
{
	if (!(cell_deg >= 0.01 && cell_deg <= 90))
		return NULL;
	struct drt_category *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->cell_units = (int64_t)(cell_deg * SPATE_COORD_SCALE + 0.5);
	c->nx = (uint32_t)((2 * (int64_t)SPATE_LON_MAX + c->cell_units - 1) / c->cell_units);
	c->ny = (uint32_t)((2 * (int64_t)SPATE_LAT_MAX + c->cell_units - 1) / c->cell_units);
	c->bucket_at = spate_idmap_create();
	c->member_at = spate_idmap_create();
	if (c->bucket_at == NULL || c->member_at == NULL) {
		drt_category_destroy(c);
		return NULL;
	}
	return c;
}

void drt_category_destroy(struct drt_category *c)
{
	if (c == NULL)
		return;
	for (uint32_t i = 0; i < c->nb; i++)
		free(c->b[i].e);
	free(c->b);
	free(c->m);
	spate_idmap_destroy(c->bucket_at);
	spate_idmap_destroy(c->member_at);
	free(c);
}

static struct bucket *bucket_find(const struct drt_category *c, uint64_t key)
{
	uintptr_t i = (uintptr_t)spate_idmap_get(c->bucket_at, key);
	return i ? &c->b[i - 1] : NULL;
}

static uint32_t bucket_size(const struct drt_category *c, uint64_t key)
{
	const struct bucket *b = bucket_find(c, key);
	return b ? b->n : 0;
}

/* Append s to the bucket of key, creating it. 0 or -1 (nothing changed). */
static int bucket_push(struct drt_category *c, uint64_t key, const struct spate_sub *s)
{
	struct bucket *b = bucket_find(c, key);

	if (b == NULL) {
		if (c->nb == c->capb) {
			uint32_t ncap = c->capb ? c->capb * 2 : 8;
			struct bucket *nb = realloc(c->b, ncap * sizeof(*nb));
			if (nb == NULL)
				return -1;
			c->b = nb;
			c->capb = ncap;
		}
		if (spate_idmap_put(c->bucket_at, key, (void *)(uintptr_t)(c->nb + 1)) != 0)
			return -1;
		b = &c->b[c->nb++];
		*b = (struct bucket){ key, 0, 0, NULL };
	}
	if (b->n == b->cap) {
		uint32_t ncap = b->cap ? b->cap * 2 : 1;
		struct entry *ne = realloc(b->e, ncap * sizeof(*ne));
		if (ne == NULL) {
			if (b->n == 0) { /* just made: take it back */
				spate_idmap_del(c->bucket_at, key);
				c->nb--;
			}
			return -1;
		}
		b->e = ne;
		b->cap = ncap;
	}
	b->e[b->n++] = (struct entry){ s->rect, s };
	return 0;
}

/* Take s out of the bucket of key if it is there; an emptied bucket goes,
 * the last bucket moving into its place. */
static void bucket_pull(struct drt_category *c, uint64_t key, const struct spate_sub *s)
{
	struct bucket *b = bucket_find(c, key);

	if (b == NULL)
		return;
	for (uint32_t i = 0; i < b->n; i++)
		if (b->e[i].s == s) {
			b->e[i] = b->e[--b->n];
			break;
		}
	if (b->n > 0)
		return;
	free(b->e);
	spate_idmap_del(c->bucket_at, key);
	uint32_t at = (uint32_t)(b - c->b);
	if (at != --c->nb) {
		c->b[at] = c->b[c->nb];
		spate_idmap_put(c->bucket_at, c->b[at].key, (void *)(uintptr_t)(at + 1)); /* existing key: no allocation */
	}
}

/* Every bucket key s is (or would be) filed under with kwkey: fn for each;
 * stops at the first non-zero return and passes it on. */
static int for_each_key(struct drt_category *c, const struct spate_sub *s, uint32_t kwkey,
			int (*fn)(struct drt_category *c, uint64_t key, const struct spate_sub *s))
{
	struct span sp = span_of(c, &s->rect);

	if (sp.wide)
		return fn(c, key_of(CAT_WIDE_ROW, kwkey), s);
	for (uint32_t y = sp.y0; y <= sp.y1; y++)
		for (uint32_t x = sp.x0; x <= sp.x1; x++) {
			int rc = fn(c, key_of((uint64_t)y * c->nx + x, kwkey), s);
			if (rc)
				return rc;
		}
	return 0;
}

static int push_fn(struct drt_category *c, uint64_t key, const struct spate_sub *s)
{
	return bucket_push(c, key, s);
}

static int pull_fn(struct drt_category *c, uint64_t key, const struct spate_sub *s)
{
	bucket_pull(c, key, s);
	return 0;
}

/* The filing keyword: the one of s's keywords with the smallest bucket at
 * s's first cell (rarest here, so events carrying frequent keywords see
 * few candidates). */
static uint32_t choose_kwkey(const struct drt_category *c, const struct spate_sub *s)
{
	struct span sp = span_of(c, &s->rect);
	uint64_t cell = sp.wide ? CAT_WIDE_ROW : (uint64_t)sp.y0 * c->nx + sp.x0;
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

int drt_category_add(struct drt_category *c, const struct spate_sub *s)
{
	if (c->nm == c->capm) {
		uint32_t ncap = c->capm ? c->capm * 2 : 8;
		struct member *nm = realloc(c->m, ncap * sizeof(*nm));
		if (nm == NULL)
			return -SPATE_E_NO_MEMORY;
		c->m = nm;
		c->capm = ncap;
	}
	uint32_t kwkey = choose_kwkey(c, s);
	if (for_each_key(c, s, kwkey, push_fn) != 0 ||
	    spate_idmap_put(c->member_at, s->id, (void *)(uintptr_t)(c->nm + 1)) != 0) {
		for_each_key(c, s, kwkey, pull_fn); /* pulls only what was pushed */
		return -SPATE_E_NO_MEMORY;
	}
	c->m[c->nm++] = (struct member){ s, kwkey };
	c->n_nokw += s->n_kw == 0;
	c->n_wide += span_of(c, &s->rect).wide;
	return 0;
}

bool drt_category_del(struct drt_category *c, const struct spate_sub *s)
{
	uintptr_t i = (uintptr_t)spate_idmap_del(c->member_at, s->id);

	if (i == 0)
		return false;
	struct member mb = c->m[i - 1];
	for_each_key(c, mb.s, mb.kwkey, pull_fn);
	c->n_nokw -= mb.s->n_kw == 0;
	c->n_wide -= span_of(c, &mb.s->rect).wide;
	if (i - 1 != --c->nm) {
		c->m[i - 1] = c->m[c->nm];
		spate_idmap_put(c->member_at, c->m[i - 1].s->id, (void *)i); /* existing key */
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

static int scan(struct drt_category *c, const struct bucket *b, const struct spate_event *ev,
		struct spate_matchvec *mv)
{
	c->candidates += b->n;
	for (uint32_t i = 0; i < b->n; i++) {
		const struct entry *en = &b->e[i];
		if (ev->lon < en->r.min_lon || ev->lon > en->r.max_lon ||
		    ev->lat < en->r.min_lat || ev->lat > en->r.max_lat)
			continue;
		const struct spate_sub *s = en->s;
		/* the filing keyword is the event's: one keyword needs no check */
		if (s->n_kw > 1 && !spate_sub_keywords_in(s, ev))
			continue;
		if (!constraints_hold(c, s, ev))
			continue;
		if (spate_matchvec_push(mv, s) != 0)
			return -SPATE_E_NO_MEMORY;
		c->matches++;
	}
	return 0;
}

int drt_category_match(struct drt_category *c, const struct spate_event *ev,
		       struct spate_matchvec *mv)
{
	uint64_t cell = (uint64_t)cell_of(ev->lat, SPATE_LAT_MAX, c->cell_units, c->ny) * c->nx +
			cell_of(ev->lon, SPATE_LON_MAX, c->cell_units, c->nx);

	c->events++;
	for (int32_t k = c->n_nokw ? -1 : 0; k < (int32_t)ev->n_kw; k++) {
		uint32_t kwkey = k < 0 ? KW_NONE : ev->kw[k] + 1;
		const struct bucket *b = bucket_find(c, key_of(cell, kwkey));
		if (b != NULL && scan(c, b, ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
		if (c->n_wide == 0)
			continue;
		b = bucket_find(c, key_of(CAT_WIDE_ROW, kwkey));
		if (b != NULL && scan(c, b, ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	return 0;
}

int drt_category_merge(struct drt_category *into, struct drt_category *from)
{
	while (from->nm > 0) {
		const struct spate_sub *s = from->m[from->nm - 1].s;
		int rc = drt_category_add(into, s);
		if (rc != 0)
			return rc;
		drt_category_del(from, s);
	}
	return 0;
}

uint32_t drt_category_size(const struct drt_category *c)
{
	return c->nm;
}

void drt_category_foreach(const struct drt_category *c,
			  void (*fn)(const struct spate_sub *s, void *ctx), void *ctx)
{
	for (uint32_t i = 0; i < c->nm; i++)
		fn(c->m[i].s, ctx);
}

/* Slots of an idmap holding n keys (it keeps its load at most 1/2). */
static size_t idmap_bytes(size_t n)
{
	size_t slots = 64;

	while (slots < 2 * n)
		slots *= 2;
	return slots * 16;
}

void drt_category_stats(const struct drt_category *c, struct drt_category_stats *st)
{
	size_t bytes = sizeof(*c) + c->capb * sizeof(*c->b) + c->capm * sizeof(*c->m) +
		       idmap_bytes(c->nb) + idmap_bytes(c->nm);

	for (uint32_t i = 0; i < c->nb; i++)
		bytes += c->b[i].cap * sizeof(struct entry);
	*st = (struct drt_category_stats){ c->events, c->candidates, c->matches, bytes };
}
