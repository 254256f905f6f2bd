/* engine_brute.c - the reference engine: every event is checked against
 * every subscription with spate_sub_matches(). Obviously correct, and the
 * yardstick every other engine is compared with. */
#include <stdint.h>
#include <stdlib.h>

#include "matcher/spate_engine.h"
#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"

struct spate_engine {
	const struct spate_sub **subs;
	size_t n, cap;
	struct spate_idmap *pos; /* sub id -> index + 1 in subs[] */
};

static struct spate_engine *brute_create(const struct spate_engine_params *params)
{
	(void)params;
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->pos = spate_idmap_create();
	if (e->pos == NULL) {
		free(e);
		return NULL;
	}
	return e;
}

static void brute_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	spate_idmap_destroy(e->pos);
	free(e->subs);
	free(e);
}

static int brute_sub_add(struct spate_engine *e, const struct spate_sub *s)
{
	if (e->n == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 256;
		const struct spate_sub **ns = realloc(e->subs, ncap * sizeof(*ns));
		if (ns == NULL)
			return -SPATE_E_NO_MEMORY;
		e->subs = ns;
		e->cap = ncap;
	}
	if (spate_idmap_put(e->pos, s->id, (void *)(uintptr_t)(e->n + 1)) != 0)
		return -SPATE_E_NO_MEMORY;
	e->subs[e->n++] = s;
	return 0;
}

static void brute_sub_del(struct spate_engine *e, const struct spate_sub *s)
{
	uintptr_t p = (uintptr_t)spate_idmap_del(e->pos, s->id);

	if (p == 0)
		return;
	size_t i = p - 1;
	/* Swap the last one into the hole. */
	e->subs[i] = e->subs[--e->n];
	if (i < e->n)
		spate_idmap_put(e->pos, e->subs[i]->id, (void *)(uintptr_t)(i + 1));
}

static int brute_match(struct spate_engine *e, const struct spate_event *ev,
		       struct spate_matchvec *mv)
{
	for (size_t i = 0; i < e->n; i++)
		if (spate_sub_matches(e->subs[i], ev) && spate_matchvec_push(mv, e->subs[i]) != 0)
			return -SPATE_E_NO_MEMORY;
	return 0;
}

const struct spate_engine_ops spate_engine_brute = {
	.name = "brute",
	.help = "reference: scan every subscription (obviously correct, slow)",
	.create = brute_create,
	.destroy = brute_destroy,
	.sub_add = brute_sub_add,
	.sub_del = brute_sub_del,
	.match = brute_match,
};
