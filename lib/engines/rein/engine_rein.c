/* engine_rein.c - REIN (Qian et al.): per attribute, the value domain is
 * split into cells (the schema's, rein_core.h) and each subscription's
 * interval on the attribute is held twice, in the low-bound bucket array by
 * its low end and in the high-bound array by its high end; buckets are
 * unsorted vectors (append insert, scan delete). An event marks, in a bit
 * set over subscription slots, every subscription it certainly fails:
 * whole buckets beyond the event value's cell without comparing, the
 * value's own cell by comparing. Unmarked subscriptions are candidates and
 * are confirmed with spate_sub_matches(), which also checks the rectangle,
 * keywords and != constraints (not indexed), so the engine is exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/rein/rein_core.h"
#include "proto/spate_err.h"

struct rein_ent {
	double bound;
	uint32_t slot;
	bool strict;
};

struct rein_vec {
	struct rein_ent *v;
	uint32_t n, cap;
};

struct rein_attr {
	uint32_t n; /* intervals held */
	struct rein_dom dom;
	struct rein_vec *low, *high; /* dom.cells buckets each */
};

struct spate_engine {
	struct rein_slots sl;
	struct spate_schema schema;
	void **attrs; /* struct rein_attr *, by attribute id (rein_attr_get) */
	uint32_t n_attrs;
	struct rein_iv *iv;
	uint32_t iv_cap;
	uint64_t n_events;
};

static struct spate_engine *rein_create(const struct spate_engine_params *p)
{
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	if (p)
		e->schema = p->schema;
	else
		spate_schema_default(&e->schema);
	if (rein_slots_init(&e->sl) != 0) {
		free(e);
		return NULL;
	}
	return e;
}

static void rein_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	for (uint32_t a = 0; a < e->n_attrs; a++) {
		struct rein_attr *at = e->attrs[a];
		if (at == NULL)
			continue;
		for (uint32_t c = 0; at->low && c < at->dom.cells; c++) {
			free(at->low[c].v);
			free(at->high[c].v);
		}
		free(at->low);
		free(at->high);
		free(at);
	}
	free(e->attrs);
	free(e->iv);
	rein_slots_fini(&e->sl);
	free(e);
}

static int vec_reserve(struct rein_vec *v)
{
	if (v->n < v->cap)
		return 0;
	uint32_t nc = v->cap ? v->cap * 2 : 4;
	struct rein_ent *nv = realloc(v->v, nc * sizeof(*nv));
	if (nv == NULL)
		return -SPATE_E_NO_MEMORY;
	v->v = nv;
	v->cap = nc;
	return 0;
}

static struct rein_attr *attr_get(struct spate_engine *e, uint32_t a)
{
	struct rein_attr *at = rein_attr_get(&e->attrs, &e->n_attrs, a, sizeof(*at));

	if (at == NULL || at->low != NULL)
		return at;
	rein_dom_init(&at->dom, spate_schema_domain(&e->schema, a));
	void *low, *high;
	if (rein_buckets_alloc(&low, &high, at->dom.cells, sizeof(*at->low)) != 0)
		return NULL;
	at->low = low;
	at->high = high;
	return at;
}

static int rein_sub_add(struct spate_engine *e, const struct spate_sub *s)
{
	uint32_t n = rein_intervals_buf(s, &e->iv, &e->iv_cap);

	if (n == UINT32_MAX)
		return -SPATE_E_NO_MEMORY;
	/* Reserve everything first so that nothing fails half-way. */
	for (uint32_t i = 0; i < n; i++) {
		struct rein_attr *at = attr_get(e, e->iv[i].attr);
		if (at == NULL || vec_reserve(&at->low[rein_cell(&at->dom, e->iv[i].lo)]) != 0 ||
		    vec_reserve(&at->high[rein_cell(&at->dom, e->iv[i].hi)]) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	int64_t slot = rein_slots_alloc(&e->sl, s);
	if (slot < 0)
		return (int)slot;
	for (uint32_t i = 0; i < n; i++) {
		const struct rein_iv *iv = &e->iv[i];
		struct rein_attr *at = e->attrs[iv->attr];
		struct rein_vec *lv = &at->low[rein_cell(&at->dom, iv->lo)];
		struct rein_vec *hv = &at->high[rein_cell(&at->dom, iv->hi)];
		lv->v[lv->n++] = (struct rein_ent){ iv->lo, (uint32_t)slot, iv->lo_strict };
		hv->v[hv->n++] = (struct rein_ent){ iv->hi, (uint32_t)slot, iv->hi_strict };
		at->n++;
	}
	return 0;
}

static void vec_remove(struct rein_vec *v, uint32_t slot)
{
	for (uint32_t i = 0; i < v->n; i++)
		if (v->v[i].slot == slot) {
			v->v[i] = v->v[--v->n];
			return;
		}
}

static void rein_sub_del(struct spate_engine *e, const struct spate_sub *s)
{
	uint32_t n = rein_intervals_buf(s, &e->iv, &e->iv_cap); /* fits: the add grew it */
	int64_t slot = rein_slots_free(&e->sl, s);

	if (slot < 0 || n == UINT32_MAX)
		return;
	for (uint32_t i = 0; i < n; i++) {
		const struct rein_iv *iv = &e->iv[i];
		struct rein_attr *at = e->attrs[iv->attr];
		vec_remove(&at->low[rein_cell(&at->dom, iv->lo)], (uint32_t)slot);
		vec_remove(&at->high[rein_cell(&at->dom, iv->hi)], (uint32_t)slot);
		at->n--;
	}
}

static void mark_all(uint64_t *mark, const struct rein_vec *v)
{
	for (uint32_t i = 0; i < v->n; i++)
		rein_mark(mark, v->v[i].slot);
}

static int rein_match(struct spate_engine *e, const struct spate_event *ev,
		      struct spate_matchvec *mv)
{
	uint64_t *mark = e->sl.mark;
	uint16_t j = 0;

	rein_slots_clear_marks(&e->sl);
	for (uint32_t a = 0; a < e->n_attrs; a++) {
		const struct rein_attr *at = e->attrs[a];
		if (at == NULL || at->n == 0)
			continue;
		while (j < ev->n_attr && ev->attr[j].attr < a)
			j++;
		if (j == ev->n_attr || ev->attr[j].attr != a || isnan(ev->attr[j].value)) {
			/* No value: every interval on the attribute fails. */
			for (uint32_t c = 0; c < at->dom.cells; c++)
				mark_all(mark, &at->low[c]);
			continue;
		}
		double v = ev->attr[j].value;
		uint32_t b = rein_cell(&at->dom, v);
		for (uint32_t c = b + 1; c < at->dom.cells; c++)
			mark_all(mark, &at->low[c]); /* low end > v */
		for (uint32_t c = 0; c < b; c++)
			mark_all(mark, &at->high[c]); /* high end < v */
		const struct rein_vec *lv = &at->low[b], *hv = &at->high[b];
		for (uint32_t i = 0; i < lv->n; i++)
			if (!rein_lo_ok(v, lv->v[i].bound, lv->v[i].strict))
				rein_mark(mark, lv->v[i].slot);
		for (uint32_t i = 0; i < hv->n; i++)
			if (!rein_hi_ok(v, hv->v[i].bound, hv->v[i].strict))
				rein_mark(mark, hv->v[i].slot);
	}
	e->n_events++;
	return rein_slots_confirm(&e->sl, ev, mv);
}

static void rein_stats(const struct spate_engine *e, FILE *f)
{
	uint32_t used_attrs = 0;

	for (uint32_t a = 0; a < e->n_attrs; a++)
		used_attrs += e->attrs[a] && ((const struct rein_attr *)e->attrs[a])->n;
	fprintf(f, "{\"subs\":%zu,\"slots\":%u,\"attrs\":%u,\"events\":%llu,\"candidates\":%llu}",
		spate_idmap_count(e->sl.pos), e->sl.n, used_attrs, (unsigned long long)e->n_events,
		(unsigned long long)e->sl.candidates);
}

const struct spate_engine_ops spate_engine_rein = {
	.name = "rein",
	.help = "REIN: per-attribute cell buckets of interval ends, mark the certain "
		"non-matches, confirm the rest",
	.create = rein_create,
	.destroy = rein_destroy,
	.sub_add = rein_sub_add,
	.sub_del = rein_sub_del,
	.match = rein_match,
	.stats = rein_stats,
};
