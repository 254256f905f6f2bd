/* spate_hist.h - a log-linear histogram of unsigned 64-bit values (TSC
 * cycles of latency in spated): below 16 one bucket per value, above it
 * 16 equal buckets per power of two, so a value's bucket spans at most
 * 1/16 (6.25%) of it, up to 2^40 (the last bucket takes anything above).
 *
 * Recording is an index computation (one count-leading-zeros), three
 * adds and a compare: no locks, no atomics. Each histogram has one
 * writer (an lcore's own); readers copy or sum several (spate_hist_add)
 * without stopping it, and may see a count a few records older than the
 * bucket beside it, which is what a reader of live counters expects.
 */
#ifndef SPATE_HIST_H
#define SPATE_HIST_H

#include <stdint.h>

#define SPATE_HIST_SUB_BITS 4
#define SPATE_HIST_SUB (1u << SPATE_HIST_SUB_BITS)
#define SPATE_HIST_MAX_BITS 40
#define SPATE_HIST_BUCKETS ((SPATE_HIST_MAX_BITS - SPATE_HIST_SUB_BITS + 1) * SPATE_HIST_SUB)

struct spate_hist {
	uint64_t count, sum, max;
	uint64_t b[SPATE_HIST_BUCKETS];
};

/* The bucket of v. */
static inline unsigned int spate_hist_index(uint64_t v)
{
	if (v < SPATE_HIST_SUB)
		return (unsigned int)v;
	unsigned int e = 63u - (unsigned int)__builtin_clzll(v); /* >= SUB_BITS */
	if (e >= SPATE_HIST_MAX_BITS)
		return SPATE_HIST_BUCKETS - 1;
	return (e - SPATE_HIST_SUB_BITS + 1) * SPATE_HIST_SUB +
	       (unsigned int)((v >> (e - SPATE_HIST_SUB_BITS)) & (SPATE_HIST_SUB - 1));
}

static inline void spate_hist_record(struct spate_hist *h, uint64_t v)
{
	h->b[spate_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

/* The smallest and the largest value bucket i holds (the last bucket's
 * largest: UINT64_MAX). */
uint64_t spate_hist_lower(unsigned int i);
uint64_t spate_hist_upper(unsigned int i);

/* dst += src: counts and sums added, the larger max kept. */
void spate_hist_add(struct spate_hist *dst, const struct spate_hist *src);
/* dst = a - b, for a taken after b from the same histograms (a window):
 * counts and sums subtracted; max: the largest value of the window's
 * highest bucket, at most a's max (within 1/16 above the true one). */
void spate_hist_sub(struct spate_hist *dst, const struct spate_hist *a, const struct spate_hist *b);

/* The q-quantile (0 < q <= 1) by nearest rank: the largest value of the
 * bucket holding the ceil(q * count)-th smallest value, but at most max.
 * Never below the true quantile, at most 1/16 above it. 0 when empty. */
uint64_t spate_hist_quantile(const struct spate_hist *h, double q);

/* How many values are at most `bound`, counting whole buckets: those
 * whose largest value is <= bound. Never above the true count; a
 * Prometheus bucket's cumulative count ("le"). */
uint64_t spate_hist_count_le(const struct spate_hist *h, uint64_t bound);

#endif
