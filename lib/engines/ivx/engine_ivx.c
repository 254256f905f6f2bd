/* engine_ivx.c - the `ivx` engine: Spate's own interval index
 * (ivx_index.h) behind the engine interface, for content-based streams.
 * Rectangles, keywords and != constraints are checked when candidates are
 * confirmed, so the engine is exact on any stream. */
#include <stdlib.h>

#include "engines/ivx/ivx_index.h"

struct spate_engine {
	struct ivx_index *x;
};

static struct spate_engine *ivx_engine_create(const struct spate_engine_params *p)
{
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->x = ivx_create(p ? &p->schema : NULL, p ? p->ivx_groups : 0);
	if (e->x == NULL) {
		free(e);
		return NULL;
	}
	return e;
}

static void ivx_engine_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	ivx_destroy(e->x);
	free(e);
}

static int ivx_engine_add(struct spate_engine *e, const struct spate_sub *s)
{
	return ivx_add(e->x, s);
}

static void ivx_engine_del(struct spate_engine *e, const struct spate_sub *s)
{
	(void)ivx_del(e->x, s);
}

static int ivx_engine_match(struct spate_engine *e, const struct spate_event *ev,
			    struct spate_matchvec *mv)
{
	return ivx_match(e->x, ev, mv);
}

static void ivx_engine_stats(const struct spate_engine *e, FILE *f)
{
	fputc('{', f);
	ivx_stats(e->x, f);
	fputc('}', f);
}

const struct spate_engine_ops spate_engine_ivx = {
	.name = "ivx",
	.help = "Spate's interval index: one precomputed bit set of certain failures per "
		"attribute and value group, ORed; the rest confirmed",
	.create = ivx_engine_create,
	.destroy = ivx_engine_destroy,
	.sub_add = ivx_engine_add,
	.sub_del = ivx_engine_del,
	.match = ivx_engine_match,
	.stats = ivx_engine_stats,
};
