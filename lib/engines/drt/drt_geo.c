/* drt_geo.c - the live categories' rectangles side by side (drt_geo.h). */
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engines/drt/drt_geo.h"

enum { ROW_X0, ROW_Y0, ROW_X1, ROW_Y1, ROW_AREA, ROW_ASIM, ROW_SIM, DRT_GEO_ROWS };

static double *row(const struct drt_geo *g, int r)
{
	return g->v + (size_t)r * g->cap;
}

int drt_geo_reserve(struct drt_geo *g, uint32_t cap)
{
	if (cap <= g->cap)
		return 0;
	double *v = malloc((size_t)DRT_GEO_ROWS * cap * sizeof(*v));
	if (v == NULL)
		return -1;
	for (int r = 0; r < DRT_GEO_ROWS && g->cap; r++)
		memcpy(v + (size_t)r * cap, row(g, r), g->cap * sizeof(*v));
	free(g->v);
	g->v = v;
	g->cap = cap;
	return 0;
}

void drt_geo_free(struct drt_geo *g)
{
	free(g->v);
	g->v = NULL;
	g->cap = 0;
}

size_t drt_geo_bytes(const struct drt_geo *g)
{
	return (size_t)DRT_GEO_ROWS * g->cap * sizeof(double);
}

void drt_geo_set(struct drt_geo *g, uint32_t i, const struct spate_rect *r, double area,
		 double area_sim)
{
	row(g, ROW_X0)[i] = r->min_lon;
	row(g, ROW_Y0)[i] = r->min_lat;
	row(g, ROW_X1)[i] = r->max_lon;
	row(g, ROW_Y1)[i] = r->max_lat;
	row(g, ROW_AREA)[i] = area;
	row(g, ROW_ASIM)[i] = area_sim;
}

void drt_geo_move(struct drt_geo *g, uint32_t to, uint32_t from)
{
	for (int r = 0; r < ROW_SIM; r++)
		row(g, r)[to] = row(g, r)[from];
}

/* The scalar formula (drt_cluster.c's spatial_sim on the same values):
 * the union's corners by comparison, its area as a product of
 * differences, then the ratio. */
static double sim_one(double x0, double y0, double x1, double y1, double area, double area_sim,
		      double rx0, double ry0, double rx1, double ry1)
{
	double ux0 = x0 < rx0 ? x0 : rx0, uy0 = y0 < ry0 ? y0 : ry0;
	double ux1 = x1 > rx1 ? x1 : rx1, uy1 = y1 > ry1 ? y1 : ry1;
	double ex = (ux1 - ux0) * (uy1 - uy0) - area;

	return area_sim / (area_sim + ex);
}

const double *drt_geo_sims(struct drt_geo *g, uint32_t n, const struct spate_rect *r)
{
	const double *x0 = row(g, ROW_X0), *y0 = row(g, ROW_Y0), *x1 = row(g, ROW_X1),
		     *y1 = row(g, ROW_Y1), *area = row(g, ROW_AREA), *asim = row(g, ROW_ASIM);
	double *out = row(g, ROW_SIM);
	double rx0 = r->min_lon, ry0 = r->min_lat, rx1 = r->max_lon, ry1 = r->max_lat;
	uint32_t i = 0;

#if defined(__SSE2__)
	/* minpd(a, b) is a < b ? a : b and maxpd(a, b) a > b ? a : b, as
	 * sim_one compares: the same values, two at a time */
	__m128d vx0 = _mm_set1_pd(rx0), vy0 = _mm_set1_pd(ry0);
	__m128d vx1 = _mm_set1_pd(rx1), vy1 = _mm_set1_pd(ry1);
	for (; i + 2 <= n; i += 2) {
		__m128d ux0 = _mm_min_pd(_mm_loadu_pd(x0 + i), vx0);
		__m128d uy0 = _mm_min_pd(_mm_loadu_pd(y0 + i), vy0);
		__m128d ux1 = _mm_max_pd(_mm_loadu_pd(x1 + i), vx1);
		__m128d uy1 = _mm_max_pd(_mm_loadu_pd(y1 + i), vy1);
		__m128d ex = _mm_sub_pd(_mm_mul_pd(_mm_sub_pd(ux1, ux0), _mm_sub_pd(uy1, uy0)),
					_mm_loadu_pd(area + i));
		__m128d as = _mm_loadu_pd(asim + i);
		_mm_storeu_pd(out + i, _mm_div_pd(as, _mm_add_pd(as, ex)));
	}
#endif
	for (; i < n; i++)
		out[i] = sim_one(x0[i], y0[i], x1[i], y1[i], area[i], asim[i], rx0, ry0, rx1, ry1);
	return out;
}
