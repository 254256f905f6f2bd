/* spate_hist.c - log-linear histograms (spate_hist.h). */
#include <math.h>

#include "util/spate_hist.h"

uint64_t spate_hist_lower(unsigned int i)
{
	if (i < SPATE_HIST_SUB)
		return i;
	unsigned int e = i / SPATE_HIST_SUB + SPATE_HIST_SUB_BITS - 1;
	return (uint64_t)(SPATE_HIST_SUB + i % SPATE_HIST_SUB) << (e - SPATE_HIST_SUB_BITS);
}

uint64_t spate_hist_upper(unsigned int i)
{
	return i + 1 >= SPATE_HIST_BUCKETS ? UINT64_MAX : spate_hist_lower(i + 1) - 1;
}

void spate_hist_add(struct spate_hist *dst, const struct spate_hist *src)
{
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	for (unsigned int i = 0; i < SPATE_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

void spate_hist_sub(struct spate_hist *dst, const struct spate_hist *a, const struct spate_hist *b)
{
	dst->count = a->count - b->count;
	dst->sum = a->sum - b->sum;
	dst->max = 0;
	for (unsigned int i = 0; i < SPATE_HIST_BUCKETS; i++) {
		dst->b[i] = a->b[i] - b->b[i];
		if (dst->b[i] != 0) /* the window's largest, to a bucket */
			dst->max = spate_hist_upper(i) < a->max ? spate_hist_upper(i) : a->max;
	}
}

uint64_t spate_hist_quantile(const struct spate_hist *h, double q)
{
	/* the buckets, not count: a reader racing the writer may see them
	 * a record apart */
	uint64_t n = 0, seen = 0;

	for (unsigned int i = 0; i < SPATE_HIST_BUCKETS; i++)
		n += h->b[i];
	if (n == 0)
		return 0;
	uint64_t rank = (uint64_t)ceil(q * (double)n);
	if (rank == 0)
		rank = 1;
	for (unsigned int i = 0; i < SPATE_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t u = spate_hist_upper(i);
			return u < h->max ? u : h->max;
		}
	}
	return h->max;
}

uint64_t spate_hist_count_le(const struct spate_hist *h, uint64_t bound)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < SPATE_HIST_BUCKETS && spate_hist_upper(i) <= bound; i++)
		n += h->b[i];
	return n;
}
