/* drt_geo.h - the live categories' rectangles side by side, for the
 * placement's scans over all of them.
 *
 * At cmax, with no co-match counted yet, a subscription that fits no
 * nearby category goes to the spatially nearest of ALL categories
 * (drt_cluster.c, place_nearest): on real places one insert in ten
 * compared all 256, at 8,515 instructions a scan (docs/benchmarks.md),
 * the categories' summaries read one scattered struct at a time. Here
 * the rectangles and areas sit in arrays of doubles by the category's
 * slot, and SpatialSim (docs/algorithms.md) is computed two at a time,
 * with the same operations in the same order as the scalar formula, so
 * the values and the chosen category are the same to the bit.
 */
#ifndef DRT_GEO_H
#define DRT_GEO_H

#include <stddef.h>
#include <stdint.h>

#include "proto/spate_types.h"

struct drt_geo {
	double *v; /* DRT_GEO_ROWS rows of cap doubles */
	uint32_t cap;
};

/* Room for cap entries (kept ones stay). 0 or -1 on no memory (g kept). */
int drt_geo_reserve(struct drt_geo *g, uint32_t cap);
void drt_geo_free(struct drt_geo *g);
size_t drt_geo_bytes(const struct drt_geo *g);
/* Entry i (< cap): rectangle r, its area and the area SpatialSim uses. */
void drt_geo_set(struct drt_geo *g, uint32_t i, const struct spate_rect *r, double area,
		 double area_sim);
/* Entry `to` becomes a copy of entry `from`. */
void drt_geo_move(struct drt_geo *g, uint32_t to, uint32_t from);
/* SpatialSim(entry i, r) = area_sim / (area_sim + ex), ex = A(MBR(entry
 * i, r)) - area, for i < n, in an array of g's (valid until g changes). */
const double *drt_geo_sims(struct drt_geo *g, uint32_t n, const struct spate_rect *r);

#endif
