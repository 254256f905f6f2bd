/* engine_grid.c - a uniform spatial grid: each subscription is listed in
 * the cells its rectangle overlaps (wide ones, over GRID_WIDE_CELLS cells,
 * in one side list), and an event is checked only against the lists of its
 * own cell and the wide list. Exact: candidates are confirmed with
 * spate_sub_matches(). The building block of the category indexes. */
#include <stdint.h>
#include <stdlib.h>

#include "matcher/spate_engine.h"
#include "proto/spate_err.h"
#include "util/spate_ptrvec.h"

#define GRID_CELL_UNITS (1 * SPATE_COORD_SCALE) /* 1 degree */
#define GRID_NX 360                             /* cells of GRID_CELL_UNITS over 360 degrees */
#define GRID_NY 180
#define GRID_WIDE_CELLS 64

struct spate_engine {
	struct spate_ptrvec *cells; /* GRID_NX * GRID_NY */
	struct spate_ptrvec wide;
};

/* Cell of a coordinate; the upper border (180 or 90) folds into the last
 * cell so every valid coordinate has one. Monotone, so a point inside a
 * rectangle always falls in a cell the rectangle covers. */
static uint32_t cell_of(int32_t v, int32_t max, uint32_t n)
{
	uint32_t c = (uint32_t)(((int64_t)v + max) / GRID_CELL_UNITS);
	return c < n ? c : n - 1;
}

static struct spate_engine *grid_create(const struct spate_engine_params *params)
{
	(void)params;
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->cells = calloc((size_t)GRID_NX * GRID_NY, sizeof(*e->cells));
	if (e->cells == NULL) {
		free(e);
		return NULL;
	}
	return e;
}

static void grid_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	for (size_t i = 0; i < (size_t)GRID_NX * GRID_NY; i++)
		free(e->cells[i].v);
	free(e->cells);
	free(e->wide.v);
	free(e);
}

struct cell_span {
	uint32_t x0, x1, y0, y1;
};

static struct cell_span span_of(const struct spate_rect *r)
{
	return (struct cell_span){
		cell_of(r->min_lon, SPATE_LON_MAX, GRID_NX),
		cell_of(r->max_lon, SPATE_LON_MAX, GRID_NX),
		cell_of(r->min_lat, SPATE_LAT_MAX, GRID_NY),
		cell_of(r->max_lat, SPATE_LAT_MAX, GRID_NY),
	};
}

static bool is_wide(const struct cell_span *c)
{
	return (uint64_t)(c->x1 - c->x0 + 1) * (c->y1 - c->y0 + 1) > GRID_WIDE_CELLS;
}

static void grid_sub_del(struct spate_engine *e, const struct spate_sub *s)
{
	struct cell_span c = span_of(&s->rect);

	if (is_wide(&c)) {
		spate_ptrvec_remove(&e->wide, s);
		return;
	}
	for (uint32_t y = c.y0; y <= c.y1; y++)
		for (uint32_t x = c.x0; x <= c.x1; x++)
			spate_ptrvec_remove(&e->cells[(size_t)y * GRID_NX + x], s);
}

static int grid_sub_add(struct spate_engine *e, const struct spate_sub *s)
{
	struct cell_span c = span_of(&s->rect);

	if (is_wide(&c))
		return spate_ptrvec_push(&e->wide, s) ? -SPATE_E_NO_MEMORY : 0;
	for (uint32_t y = c.y0; y <= c.y1; y++)
		for (uint32_t x = c.x0; x <= c.x1; x++)
			if (spate_ptrvec_push(&e->cells[(size_t)y * GRID_NX + x], s) != 0) {
				/* undo the cells done so far: remove is a no-op
				 * where the sub was not pushed */
				grid_sub_del(e, s);
				return -SPATE_E_NO_MEMORY;
			}
	return 0;
}

static int match_list(const struct spate_ptrvec *l, const struct spate_event *ev,
		      struct spate_matchvec *mv)
{
	for (uint32_t i = 0; i < l->n; i++) {
		const struct spate_sub *s = l->v[i];
		if (spate_sub_matches(s, ev) && spate_matchvec_push(mv, s) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	return 0;
}

static int grid_match(struct spate_engine *e, const struct spate_event *ev,
		      struct spate_matchvec *mv)
{
	uint32_t x = cell_of(ev->lon, SPATE_LON_MAX, GRID_NX);
	uint32_t y = cell_of(ev->lat, SPATE_LAT_MAX, GRID_NY);
	int rc = match_list(&e->cells[(size_t)y * GRID_NX + x], ev, mv);

	return rc ? rc : match_list(&e->wide, ev, mv);
}

const struct spate_engine_ops spate_engine_grid = {
	.name = "grid",
	.help = "uniform 1-degree grid over the rectangles, exact check of candidates",
	.create = grid_create,
	.destroy = grid_destroy,
	.sub_add = grid_sub_add,
	.sub_del = grid_sub_del,
	.match = grid_match,
};
