/* engine_drt.c - first cut of the DRt-Cluster engine (issue 3): online
 * clustering of subscriptions into categories by Sim = a*KeySim +
 * (1-a)*SpatialSim (../shared/design/algorithms.md), routing of events to
 * the categories whose summary admits them, exact matching inside.
 *
 * A category's summary is its MBR (grown on insert, never shrunk on
 * delete, so it always covers its subscriptions), its keyword multiset
 * and the number of its subscriptions without keywords. An event is
 * routed to a category only if its point is in the MBR and it carries one
 * of the category's keywords (or the category has keyword-less
 * subscriptions): a sub that matches always passes both tests, so routing
 * loses nothing.
 *
 * Not yet here (see the issue): correlation counting and merging, the load
 * model and rebalancing, per-category second-level indexes, parameters from
 * the config. When the category count reaches DRT_MAX_CATEGORIES a new
 * subscription joins its most similar category instead of opening one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spate_engine.h"
#include "spate_err.h"
#include "spate_idmap.h"

#define DRT_ALPHA 0.5          /* weight of KeySim (paper: 0.5) */
#define DRT_NEW_TH 0.5         /* below this Sim, a new category (paper: 0.5) */
#define DRT_MAX_CATEGORIES 512 /* stands in for CMaxNumTh until merging exists */
#define DRT_MIN_AREA 1.0       /* one grid cell, square degrees (reconstructed clamp) */

struct category {
	struct spate_rect mbr;
	struct spate_idmap *kw_count; /* keyword id + 1 -> count */
	uint64_t kw_total;            /* sum of the counts */
	uint32_t n_nokw;              /* subscriptions without keywords */
	const struct spate_sub **subs;
	uint32_t n, cap;
};

struct spate_engine {
	struct category **cats;
	uint32_t n_cats, cap_cats;
	struct spate_idmap *home; /* sub id -> category */
};

static double area_deg2(const struct spate_rect *r)
{
	double w = ((double)r->max_lon - r->min_lon) / SPATE_COORD_SCALE;
	double h = ((double)r->max_lat - r->min_lat) / SPATE_COORD_SCALE;
	return w * h;
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

static uintptr_t kw_count(const struct category *c, uint32_t kw)
{
	return (uintptr_t)spate_idmap_get(c->kw_count, (uint64_t)kw + 1);
}

/* KeySim with frequencies: the mean over q's keywords of their share of
 * c's keyword multiset; a keyword-less q is as similar as c's share of
 * keyword-less subscriptions. */
static double key_sim(const struct category *c, const struct spate_sub *q)
{
	if (q->n_kw == 0)
		return c->n ? (double)c->n_nokw / c->n : 0;
	if (c->kw_total == 0)
		return 0;
	double sum = 0;
	for (uint16_t i = 0; i < q->n_kw; i++)
		sum += (double)kw_count(c, q->kw[i]) / (double)c->kw_total;
	return sum / q->n_kw;
}

/* SpatialSim = A(c) / (A(c) + ex), ex = growth of c's MBR to cover q. */
static double spatial_sim(const struct category *c, const struct spate_sub *q)
{
	struct spate_rect u = rect_union(&c->mbr, &q->rect);
	double a = area_deg2(&c->mbr);
	double ex = area_deg2(&u) - a;

	if (a < DRT_MIN_AREA)
		a = DRT_MIN_AREA;
	return a / (a + ex);
}

static struct spate_engine *drt_create(void)
{
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->home = spate_idmap_create();
	if (e->home == NULL) {
		free(e);
		return NULL;
	}
	return e;
}

static void category_free(struct category *c)
{
	spate_idmap_destroy(c->kw_count);
	free(c->subs);
	free(c);
}

static void drt_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	for (uint32_t i = 0; i < e->n_cats; i++)
		category_free(e->cats[i]);
	free(e->cats);
	spate_idmap_destroy(e->home);
	free(e);
}

static struct category *category_new(struct spate_engine *e, const struct spate_sub *q)
{
	if (e->n_cats == e->cap_cats) {
		uint32_t ncap = e->cap_cats ? e->cap_cats * 2 : 16;
		struct category **nc = realloc(e->cats, ncap * sizeof(*nc));
		if (nc == NULL)
			return NULL;
		e->cats = nc;
		e->cap_cats = ncap;
	}
	struct category *c = calloc(1, sizeof(*c));
	if (c == NULL || (c->kw_count = spate_idmap_create()) == NULL) {
		free(c);
		return NULL;
	}
	c->mbr = q->rect;
	e->cats[e->n_cats++] = c;
	return c;
}

static int category_add(struct category *c, const struct spate_sub *q)
{
	if (c->n == c->cap) {
		uint32_t ncap = c->cap ? c->cap * 2 : 8;
		const struct spate_sub **ns = realloc(c->subs, ncap * sizeof(*ns));
		if (ns == NULL)
			return -SPATE_E_NO_MEMORY;
		c->subs = ns;
		c->cap = ncap;
	}
	for (uint16_t i = 0; i < q->n_kw; i++)
		if (spate_idmap_put(c->kw_count, (uint64_t)q->kw[i] + 1,
				    (void *)(kw_count(c, q->kw[i]) + 1)) != 0) {
			/* roll back the counts already raised */
			for (uint16_t j = 0; j < i; j++) {
				uintptr_t n = kw_count(c, q->kw[j]) - 1;
				if (n)
					spate_idmap_put(c->kw_count, (uint64_t)q->kw[j] + 1, (void *)n);
				else
					spate_idmap_del(c->kw_count, (uint64_t)q->kw[j] + 1);
			}
			return -SPATE_E_NO_MEMORY;
		}
	c->kw_total += q->n_kw;
	if (q->n_kw == 0)
		c->n_nokw++;
	c->mbr = rect_union(&c->mbr, &q->rect);
	c->subs[c->n++] = q;
	return 0;
}

static void category_remove(struct category *c, const struct spate_sub *q)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (c->subs[i] == q) {
			c->subs[i] = c->subs[--c->n];
			break;
		}
	for (uint16_t i = 0; i < q->n_kw; i++) {
		uintptr_t n = kw_count(c, q->kw[i]) - 1;
		if (n)
			spate_idmap_put(c->kw_count, (uint64_t)q->kw[i] + 1, (void *)n);
		else
			spate_idmap_del(c->kw_count, (uint64_t)q->kw[i] + 1);
	}
	c->kw_total -= q->n_kw;
	if (q->n_kw == 0)
		c->n_nokw--;
}

static int drt_sub_add(struct spate_engine *e, const struct spate_sub *q)
{
	struct category *best = NULL;
	double best_sim = -1;

	for (uint32_t i = 0; i < e->n_cats; i++) {
		struct category *c = e->cats[i];
		double sim = DRT_ALPHA * key_sim(c, q) + (1 - DRT_ALPHA) * spatial_sim(c, q);
		if (sim > best_sim) {
			best_sim = sim;
			best = c;
		}
	}
	bool fresh = false;
	if (best == NULL || (best_sim < DRT_NEW_TH && e->n_cats < DRT_MAX_CATEGORIES)) {
		best = category_new(e, q);
		if (best == NULL)
			return -SPATE_E_NO_MEMORY;
		fresh = true;
	}
	if (category_add(best, q) != 0 || spate_idmap_put(e->home, q->id, best) != 0) {
		if (best->n && best->subs[best->n - 1] == q)
			category_remove(best, q);
		if (fresh && best->n == 0) {
			e->n_cats--;
			category_free(best);
		}
		return -SPATE_E_NO_MEMORY;
	}
	return 0;
}

static void drt_sub_del(struct spate_engine *e, const struct spate_sub *q)
{
	struct category *c = spate_idmap_del(e->home, q->id);

	if (c == NULL)
		return;
	category_remove(c, q);
	if (c->n > 0)
		return;
	/* An empty category goes away. */
	for (uint32_t i = 0; i < e->n_cats; i++)
		if (e->cats[i] == c) {
			e->cats[i] = e->cats[--e->n_cats];
			break;
		}
	category_free(c);
}

/* Does the category's summary admit the event? */
static bool routes_to(const struct category *c, const struct spate_event *ev)
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

static int drt_match(struct spate_engine *e, const struct spate_event *ev,
		     struct spate_matchvec *mv)
{
	for (uint32_t i = 0; i < e->n_cats; i++) {
		const struct category *c = e->cats[i];
		if (!routes_to(c, ev))
			continue;
		for (uint32_t j = 0; j < c->n; j++)
			if (spate_sub_matches(c->subs[j], ev) &&
			    spate_matchvec_push(mv, c->subs[j]) != 0)
				return -SPATE_E_NO_MEMORY;
	}
	return 0;
}

const struct spate_engine_ops spate_engine_drt = {
	.name = "drt",
	.help = "DRt-Cluster, first cut: online categories (Sim-Fre), summary routing",
	.create = drt_create,
	.destroy = drt_destroy,
	.sub_add = drt_sub_add,
	.sub_del = drt_sub_del,
	.match = drt_match,
};
