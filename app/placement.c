/* placement.c - the clustering the cluster stage uses until DRt-Cluster's
 * clustering module (issue 3) is split out of lib/engine_drt.c: a simple,
 * exact stand-in behind placement.h.
 *
 *  - A subscription joins the category of the routing cell (route_cell
 *    degrees) holding its rectangle's lower-left corner; a new category
 *    goes to the worker with the fewest subscriptions.
 *  - A category's summary is the MBR of its subscriptions (grown, never
 *    shrunk); an event visits every category whose MBR holds its point,
 *    so every category with a matching subscription is visited (exact).
 *  - Over CMaxNumTh categories, the smallest merges into the one whose
 *    MBR centre is nearest (on any worker: a cross-worker merge moves it).
 *  - Every lambda events, formula (7) loads and the DRt plan of formulas
 *    (8)-(9) (lib/drt_balance.c) decide moves between workers.
 */
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "spate_err.h"
#include "spate_idmap.h"
#include "spate_ptrvec.h"
#include "drt_balance.h"

struct pcat {
	uint32_t id, worker, slot;
	struct spate_rect mbr;
	struct spate_ptrvec subs; /* const struct spate_sub * (the matcher's) */
	uint64_t t_num, n_ins, n_del;
};

struct placement {
	struct drt_params p;
	int64_t cell_units;
	struct pcat **cats;
	uint32_t n_cats, cap_cats, next_id;
	struct spate_idmap *by_id;   /* cat id -> pcat */
	struct spate_idmap *home;    /* sub id -> pcat */
	struct spate_idmap *by_cell; /* cell key + 1 -> pcat */
	struct placement_route *routes;
	size_t cap_routes;
	struct placement_action *acts;
	size_t n_acts, cap_acts;
	uint64_t period_events;
};

struct placement *placement_create(const struct drt_params *p)
{
	struct placement *pl;

	if (p->workers == 0 || p->lambda == 0 || p->cmax == 0 || !(p->route_cell > 0))
		return NULL;
	pl = calloc(1, sizeof(*pl));
	if (pl == NULL)
		return NULL;
	pl->p = *p;
	pl->cell_units = (int64_t)(p->route_cell * SPATE_COORD_SCALE);
	if (pl->cell_units < 1)
		pl->cell_units = 1;
	pl->next_id = 1;
	pl->by_id = spate_idmap_create();
	pl->home = spate_idmap_create();
	pl->by_cell = spate_idmap_create();
	if (!pl->by_id || !pl->home || !pl->by_cell) {
		placement_destroy(pl);
		return NULL;
	}
	return pl;
}

void placement_destroy(struct placement *pl)
{
	if (pl == NULL)
		return;
	for (uint32_t i = 0; i < pl->n_cats; i++) {
		free(pl->cats[i]->subs.v);
		free(pl->cats[i]);
	}
	free(pl->cats);
	spate_idmap_destroy(pl->by_id);
	spate_idmap_destroy(pl->home);
	spate_idmap_destroy(pl->by_cell);
	free(pl->routes);
	free(pl->acts);
	free(pl);
}

static uint64_t cell_key(const struct placement *pl, const struct spate_rect *r)
{
	uint64_t x = (uint64_t)(((int64_t)r->min_lon + SPATE_LON_MAX) / pl->cell_units);
	uint64_t y = (uint64_t)(((int64_t)r->min_lat + SPATE_LAT_MAX) / pl->cell_units);
	return (y << 32 | x) + 1;
}

static int queue_action(struct placement *pl, struct placement_action a)
{
	if (pl->n_acts == pl->cap_acts) {
		size_t ncap = pl->cap_acts ? pl->cap_acts * 2 : 16;
		struct placement_action *na = realloc(pl->acts, ncap * sizeof(*na));
		if (na == NULL)
			return -1;
		pl->acts = na;
		pl->cap_acts = ncap;
	}
	pl->acts[pl->n_acts++] = a;
	return 0;
}

static uint32_t least_loaded_worker(const struct placement *pl)
{
	uint64_t *subs = calloc(pl->p.workers, sizeof(*subs));
	uint32_t best = 0;

	if (subs == NULL)
		return 0;
	for (uint32_t i = 0; i < pl->n_cats; i++)
		subs[pl->cats[i]->worker] += pl->cats[i]->subs.n;
	for (uint32_t w = 1; w < pl->p.workers; w++)
		if (subs[w] < subs[best])
			best = w;
	free(subs);
	return best;
}

static struct pcat *cat_new(struct placement *pl, const struct spate_rect *r)
{
	if (pl->n_cats == pl->cap_cats) {
		uint32_t ncap = pl->cap_cats ? pl->cap_cats * 2 : 16;
		struct pcat **nc = realloc(pl->cats, ncap * sizeof(*nc));
		if (nc == NULL)
			return NULL;
		pl->cats = nc;
		pl->cap_cats = ncap;
	}
	struct pcat *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->id = pl->next_id++;
	c->worker = least_loaded_worker(pl);
	c->mbr = *r;
	if (spate_idmap_put(pl->by_id, c->id, c) != 0) {
		free(c);
		return NULL;
	}
	c->slot = pl->n_cats;
	pl->cats[pl->n_cats++] = c;
	return c;
}

struct redirect {
	struct pcat *from, *to;
	uint64_t *keys;
	size_t n;
};

static void find_cells(uint64_t key, void *val, void *ctx)
{
	struct redirect *r = ctx;

	if (val == r->from)
		r->keys[r->n++] = key;
}

/* Cells pointing at `from` point at `to` now (NULL: forget them). */
static void redirect_cells(struct placement *pl, struct pcat *from, struct pcat *to)
{
	struct redirect r = { from, to, malloc((spate_idmap_count(pl->by_cell) + 1) * sizeof(uint64_t)), 0 };

	if (r.keys == NULL)
		return; /* stale cells only cost a fresh category later */
	spate_idmap_foreach(pl->by_cell, find_cells, &r);
	for (size_t i = 0; i < r.n; i++) {
		if (to)
			spate_idmap_put(pl->by_cell, r.keys[i], to); /* existing key */
		else
			spate_idmap_del(pl->by_cell, r.keys[i]);
	}
	free(r.keys);
}

static void cat_drop(struct placement *pl, struct pcat *c)
{
	redirect_cells(pl, c, NULL);
	spate_idmap_del(pl->by_id, c->id);
	pl->cats[c->slot] = pl->cats[--pl->n_cats];
	pl->cats[c->slot]->slot = c->slot;
	free(c->subs.v);
	free(c);
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

static double centre_dist2(const struct pcat *a, const struct pcat *b)
{
	double dx = ((double)a->mbr.min_lon + a->mbr.max_lon - b->mbr.min_lon - b->mbr.max_lon) / 2;
	double dy = ((double)a->mbr.min_lat + a->mbr.max_lat - b->mbr.min_lat - b->mbr.max_lat) / 2;
	return dx * dx + dy * dy;
}

/* The smallest category merges into its nearest; 0, or -1 (nothing done). */
static int merge_once(struct placement *pl)
{
	struct pcat *from = NULL, *into = NULL;
	double best = -1;

	for (uint32_t i = 0; i < pl->n_cats; i++) {
		struct pcat *c = pl->cats[i];
		if (from == NULL || c->subs.n < from->subs.n ||
		    (c->subs.n == from->subs.n && c->id > from->id))
			from = c;
	}
	for (uint32_t i = 0; from && i < pl->n_cats; i++) {
		struct pcat *c = pl->cats[i];
		double d = c == from ? -1 : centre_dist2(c, from);
		if (c != from && (best < 0 || d < best)) {
			best = d;
			into = c;
		}
	}
	if (into == NULL)
		return -1;
	size_t need = into->subs.n + from->subs.n;
	while (into->subs.cap < need)
		if (spate_ptrvec_push(&into->subs, NULL) != 0)
			return -1;
		else
			into->subs.n--;
	if (queue_action(pl, (struct placement_action){ PLACE_MERGE, into->id, from->id, 0,
							 from->worker, into->worker }) != 0)
		return -1;
	for (uint32_t i = 0; i < from->subs.n; i++) {
		const struct spate_sub *q = from->subs.v[i];
		into->subs.v[into->subs.n++] = (void *)(uintptr_t)q;
		spate_idmap_put(pl->home, q->id, into); /* existing key */
	}
	from->subs.n = 0;
	into->mbr = rect_union(&into->mbr, &from->mbr);
	into->t_num += from->t_num;
	into->n_ins += from->n_ins;
	into->n_del += from->n_del;
	redirect_cells(pl, from, into);
	cat_drop(pl, from);
	return 0;
}

int placement_sub_add(struct placement *pl, const struct spate_sub *q, uint32_t *cat,
		      uint32_t *worker, bool *fresh)
{
	uint64_t key = cell_key(pl, &q->rect);
	struct pcat *c = spate_idmap_get(pl->by_cell, key);

	*fresh = false;
	if (c == NULL) {
		c = cat_new(pl, &q->rect);
		if (c == NULL)
			return -SPATE_E_NO_MEMORY;
		if (spate_idmap_put(pl->by_cell, key, c) != 0) {
			cat_drop(pl, c);
			return -SPATE_E_NO_MEMORY;
		}
		*fresh = true;
	}
	if (spate_ptrvec_push(&c->subs, q) != 0 || spate_idmap_put(pl->home, q->id, c) != 0) {
		spate_ptrvec_remove(&c->subs, q);
		if (*fresh)
			cat_drop(pl, c);
		return -SPATE_E_NO_MEMORY;
	}
	c->mbr = rect_union(&c->mbr, &q->rect);
	c->n_ins++;
	*cat = c->id;
	*worker = c->worker;
	/* the add is sent before the merges it causes: placement says so */
	while (pl->n_cats > pl->p.cmax)
		if (merge_once(pl) != 0)
			break; /* out of memory: stay over the bound, still exact */
	return 0;
}

int placement_home(struct placement *pl, uint64_t sub_id, uint32_t *cat, uint32_t *worker)
{
	struct pcat *c = spate_idmap_get(pl->home, sub_id);

	if (c == NULL)
		return -SPATE_E_UNKNOWN_ID;
	*cat = c->id;
	*worker = c->worker;
	return 0;
}

int placement_sub_del(struct placement *pl, const struct spate_sub *q, uint32_t *cat,
		      uint32_t *worker, bool *dropped)
{
	struct pcat *c = spate_idmap_del(pl->home, q->id);

	if (c == NULL)
		return -SPATE_E_UNKNOWN_ID;
	*cat = c->id;
	*worker = c->worker;
	spate_ptrvec_remove(&c->subs, q);
	c->n_del++;
	*dropped = c->subs.n == 0;
	if (*dropped)
		cat_drop(pl, c);
	return 0;
}

/* End of a load period: formula (7) per category, the (8)-(9) plan. */
static void end_period(struct placement *pl)
{
	uint32_t n = pl->n_cats, m = pl->p.workers;
	struct drt_balance_cat *bc = malloc((n + 1) * sizeof(*bc));
	struct drt_move *mv = malloc((n + 1) * sizeof(*mv));

	if (m > 1 && n > 1 && bc && mv) {
		for (uint32_t i = 0; i < n; i++) {
			struct pcat *c = pl->cats[i];
			bc[i] = (struct drt_balance_cat){
				(double)c->t_num * c->subs.n + pl->p.c_ins * (double)c->n_ins +
					pl->p.c_del * (double)c->n_del,
				c->subs.n, c->worker, 0, 0 };
		}
		size_t k = drt_balance_plan(bc, n, m, pl->p.sigma, NULL, NULL, mv, n);
		for (size_t i = 0; i < k; i++) {
			struct pcat *c = pl->cats[mv[i].cat];
			if (queue_action(pl, (struct placement_action){ PLACE_MOVE, c->id, mv[i].from,
									 mv[i].to, 0, 0 }) != 0)
				break;
			c->worker = mv[i].to;
		}
	}
	free(bc);
	free(mv);
	for (uint32_t i = 0; i < n; i++)
		pl->cats[i]->t_num = pl->cats[i]->n_ins = pl->cats[i]->n_del = 0;
	pl->period_events = 0;
}

long placement_route(struct placement *pl, const struct spate_event *ev,
		     const struct placement_route **out)
{
	size_t k = 0;

	if (pl->cap_routes < pl->n_cats) {
		size_t ncap = pl->n_cats * 2;
		struct placement_route *nr = realloc(pl->routes, ncap * sizeof(*nr));
		if (nr == NULL)
			return -SPATE_E_NO_MEMORY;
		pl->routes = nr;
		pl->cap_routes = ncap;
	}
	for (uint32_t i = 0; i < pl->n_cats; i++) {
		struct pcat *c = pl->cats[i];
		if (ev->lon < c->mbr.min_lon || ev->lon > c->mbr.max_lon ||
		    ev->lat < c->mbr.min_lat || ev->lat > c->mbr.max_lat)
			continue;
		c->t_num++;
		pl->routes[k++] = (struct placement_route){ c->id, c->worker };
	}
	*out = pl->routes;
	if (++pl->period_events >= pl->p.lambda)
		end_period(pl);
	return (long)k;
}

size_t placement_actions(struct placement *pl, struct placement_action *out, size_t max)
{
	size_t n = pl->n_acts < max ? pl->n_acts : max;

	memcpy(out, pl->acts, n * sizeof(*out));
	memmove(pl->acts, pl->acts + n, (pl->n_acts - n) * sizeof(*out));
	pl->n_acts -= n;
	return n;
}

uint32_t placement_cat_size(struct placement *pl, uint32_t cat)
{
	struct pcat *c = spate_idmap_get(pl->by_id, cat);
	return c ? c->subs.n : 0;
}
