/* drt_grid.h - the two-level grid DRt files subscriptions in, shared by
 * the routing index (drt_cluster.c) and the category index
 * (drt_category.c).
 *
 * Level 0 has cells of the configured interval; level 1 cells are
 * DRT_GRID_COARSE times larger; level 2 is one row for the whole world.
 * A rectangle is filed on the finest level where it covers at most
 * `max_cells` cells, in every cell it covers there; a point is looked up
 * in its one cell on each level. Cell indexes are unique across levels
 * and fit in 32 bits, so (cell << 32 | keyword) is a table key. Cells are
 * monotone in the coordinate (the upper border folds into the last
 * cell), so a point inside a rectangle falls in a cell it covers.
 */
#ifndef DRT_GRID_H
#define DRT_GRID_H

#include <stdint.h>

#include "proto/spate_types.h"

#define DRT_GRID_COARSE 8
/* The most cells a rectangle is filed in on levels 0 and 1 before it goes
 * a level up, in the routing index and in every category alike: on the
 * same cell size both file a subscription under the same keys, which
 * drt_category_match_keys() relies on. */
#define DRT_GRID_FILE_CELLS 16
#define DRT_GRID_L1_BIT (1ull << 30)
#define DRT_GRID_WORLD 0xfffffffeull /* the level 2 row */

struct drt_grid {
	int64_t units;     /* level 0 cell side, 1e-7 degree */
	double inv[2];     /* 1 / cell side on levels 0 and 1 */
	uint32_t nx, ny;   /* level 0 */
	uint32_t nx1, ny1; /* level 1 */
};

struct drt_span {
	uint32_t x0, x1, y0, y1;
	int level;
};

/* cell_deg in [0.01, 90]. */
static inline void drt_grid_init(struct drt_grid *g, double cell_deg)
{
	g->units = (int64_t)(cell_deg * SPATE_COORD_SCALE + 0.5);
	g->nx = (uint32_t)((2 * (int64_t)SPATE_LON_MAX + g->units - 1) / g->units);
	g->ny = (uint32_t)((2 * (int64_t)SPATE_LAT_MAX + g->units - 1) / g->units);
	g->nx1 = (g->nx + DRT_GRID_COARSE - 1) / DRT_GRID_COARSE;
	g->inv[0] = 1.0 / (double)g->units;
	g->inv[1] = 1.0 / (double)(g->units * DRT_GRID_COARSE);
	g->ny1 = (g->ny + DRT_GRID_COARSE - 1) / DRT_GRID_COARSE;
}

/* A multiply, not a 64-bit division (spans are computed several times
 * per insert and delete, and divisions were their cost): any function of the coordinate works as long as it is
 * monotone and everyone uses the same one, and a product of a
 * non-negative integer with a positive constant, truncated, is. */
static inline uint32_t drt_grid_coord(int64_t v, int64_t max, double inv, uint32_t n)
{
	uint32_t c = (uint32_t)((double)(v + max) * inv);
	return c < n ? c : n - 1;
}

/* The span of r on level 0 or 1. */
static inline struct drt_span drt_grid_span_on(const struct drt_grid *g, const struct spate_rect *r,
					       int level)
{
	double u = g->inv[level != 0];
	uint32_t nx = level ? g->nx1 : g->nx, ny = level ? g->ny1 : g->ny;

	return (struct drt_span){
		drt_grid_coord(r->min_lon, SPATE_LON_MAX, u, nx),
		drt_grid_coord(r->max_lon, SPATE_LON_MAX, u, nx),
		drt_grid_coord(r->min_lat, SPATE_LAT_MAX, u, ny),
		drt_grid_coord(r->max_lat, SPATE_LAT_MAX, u, ny),
		level,
	};
}

static inline uint64_t drt_grid_span_cells(const struct drt_span *s)
{
	return (uint64_t)(s->x1 - s->x0 + 1) * (s->y1 - s->y0 + 1);
}

/* The span of r on level 0 if it covers at most max0 cells there, else
 * on level 1 if at most max1, else the world row. */
static inline struct drt_span drt_grid_span_fit(const struct drt_grid *g,
						const struct spate_rect *r, uint32_t max0,
						uint32_t max1)
{
	struct drt_span s = drt_grid_span_on(g, r, 0);

	if (drt_grid_span_cells(&s) <= max0)
		return s;
	s = drt_grid_span_on(g, r, 1);
	if (drt_grid_span_cells(&s) <= max1)
		return s;
	return (struct drt_span){ 0, 0, 0, 0, 2 };
}

/* The finest level on which r covers at most max_cells cells. */
static inline struct drt_span drt_grid_span(const struct drt_grid *g, const struct spate_rect *r,
					    uint32_t max_cells)
{
	return drt_grid_span_fit(g, r, max_cells, max_cells);
}

/* The index of cell (x, y) of a level. */
static inline uint64_t drt_grid_cell(const struct drt_grid *g, int level, uint32_t x, uint32_t y)
{
	if (level == 2)
		return DRT_GRID_WORLD;
	return level ? DRT_GRID_L1_BIT | ((uint64_t)y * g->nx1 + x) : (uint64_t)y * g->nx + x;
}

/* The first cell of a span (where a subscription is counted once). */
static inline uint64_t drt_grid_first(const struct drt_grid *g, const struct drt_span *s)
{
	return drt_grid_cell(g, s->level, s->x0, s->y0);
}

/* The cell of a point on a level. */
static inline uint64_t drt_grid_point(const struct drt_grid *g, int32_t lon, int32_t lat, int level)
{
	struct spate_rect pt = { lon, lat, lon, lat };
	struct drt_span s =
		level < 2 ? drt_grid_span_on(g, &pt, level) : (struct drt_span){ 0, 0, 0, 0, 2 };

	return drt_grid_first(g, &s);
}

#endif
