/* spate_engine.c - the match predicate, the match vector and the registry
 * of engines. */
#include <stdlib.h>
#include <string.h>

#include "matcher/spate_engine.h"
#include "proto/spate_err.h"

/* Both arrays sorted ascending: is every element of `need` in `have`? */
static bool sorted_subset(const uint32_t *need, uint16_t n_need, const uint32_t *have,
			  uint16_t n_have)
{
	uint16_t j = 0;

	for (uint16_t i = 0; i < n_need; i++) {
		while (j < n_have && have[j] < need[i])
			j++;
		if (j == n_have || have[j] != need[i])
			return false;
		j++;
	}
	return true;
}

bool spate_sub_keywords_in(const struct spate_sub *s, const struct spate_event *e)
{
	return sorted_subset(s->kw, s->n_kw, e->kw, e->n_kw);
}

bool spate_sub_constraints_hold(const struct spate_sub *s, const struct spate_event *e)
{
	/* Constraints and attributes are both sorted by attribute id. */
	uint16_t j = 0;
	for (uint16_t i = 0; i < s->n_cons; i++) {
		const struct spate_constraint *c = &s->cons[i];
		while (j < e->n_attr && e->attr[j].attr < c->attr)
			j++;
		if (j == e->n_attr || e->attr[j].attr != c->attr)
			return false;
		if (!spate_op_holds(c->op, e->attr[j].value, c->value))
			return false;
	}
	return true;
}

bool spate_sub_matches(const struct spate_sub *s, const struct spate_event *e)
{
	if (e->lon < s->rect.min_lon || e->lon > s->rect.max_lon || e->lat < s->rect.min_lat ||
	    e->lat > s->rect.max_lat)
		return false;
	return spate_sub_keywords_in(s, e) && spate_sub_constraints_hold(s, e);
}

int spate_matchvec_grow_push(struct spate_matchvec *mv, const struct spate_sub *s)
{
	size_t ncap = mv->cap ? mv->cap * 2 : 64;
	const struct spate_sub **nv = realloc(mv->v, ncap * sizeof(*nv));

	if (nv == NULL)
		return -SPATE_E_NO_MEMORY;
	mv->v = nv;
	mv->cap = ncap;
	mv->v[mv->n++] = s;
	return 0;
}

void spate_matchvec_free(struct spate_matchvec *mv)
{
	free(mv->v);
	memset(mv, 0, sizeof(*mv));
}

void spate_engine_params_default(struct spate_engine_params *p)
{
	drt_params_default(&p->drt);
	spate_schema_default(&p->schema);
	p->ivx_groups = 0;
	p->mprein_workers = -1;
	p->mprein_par_min = 0;
	p->drt_time_workers = false;
	p->drt_only_worker = 0;
}

extern const struct spate_engine_ops spate_engine_brute;
extern const struct spate_engine_ops spate_engine_grid;
extern const struct spate_engine_ops spate_engine_drt;
extern const struct spate_engine_ops spate_engine_kdtree;
extern const struct spate_engine_ops spate_engine_rein;
extern const struct spate_engine_ops spate_engine_mprein;
extern const struct spate_engine_ops spate_engine_rein_list;
extern const struct spate_engine_ops spate_engine_ivx;

/* The first entry is the default engine: keep the fastest exact one first. */
static const struct spate_engine_ops *const engines[] = {
	&spate_engine_drt,  &spate_engine_grid,   &spate_engine_brute,
	&spate_engine_rein, &spate_engine_mprein, &spate_engine_rein_list,
	&spate_engine_ivx,  &spate_engine_kdtree, NULL,
};

const struct spate_engine_ops *spate_engine_find(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return engines[0];
	for (size_t i = 0; engines[i] != NULL; i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}

const struct spate_engine_ops *const *spate_engine_list(void)
{
	return engines;
}
