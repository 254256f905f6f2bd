/* test_hist.c - log-linear histograms (lib/util/spate_hist.h) against the
 * sorted values themselves: bucket bounds, quantiles, cumulative counts,
 * sums and windows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/spate_hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Every bucket's bounds: contiguous, in order, 1/16 wide at most, and the
 * index of each bound is the bucket. */
static void test_bounds(void)
{
	CHECK_EQ_INT(spate_hist_lower(0), 0);
	for (unsigned int i = 0; i < SPATE_HIST_BUCKETS; i++) {
		uint64_t lo = spate_hist_lower(i), hi = spate_hist_upper(i);
		CHECK(lo <= hi);
		CHECK_EQ_INT(spate_hist_index(lo), i);
		if (i + 1 < SPATE_HIST_BUCKETS) {
			CHECK_EQ_INT(spate_hist_index(hi), i);
			CHECK_EQ_INT(spate_hist_lower(i + 1), hi + 1);
			CHECK((hi - lo) * SPATE_HIST_SUB <= lo || lo < SPATE_HIST_SUB);
		}
	}
	CHECK_EQ_INT(spate_hist_index(UINT64_MAX), SPATE_HIST_BUCKETS - 1);
	CHECK_EQ_INT(spate_hist_index(1ull << SPATE_HIST_MAX_BITS), SPATE_HIST_BUCKETS - 1);
	CHECK_EQ_INT(spate_hist_index((1ull << SPATE_HIST_MAX_BITS) - 1), SPATE_HIST_BUCKETS - 1);
	/* every value below 2^20 lands between its bucket's bounds */
	for (uint64_t v = 0; v < (1u << 20); v++) {
		unsigned int i = spate_hist_index(v);
		if (spate_hist_lower(i) > v || spate_hist_upper(i) < v) {
			CHECK(!"value outside its bucket");
			break;
		}
	}
}

/* n values drawn by `draw`: quantiles within [true, true * 17/16],
 * count_le never above the truth and at least the count at bound*15/16,
 * count, sum and max exact. */
static void test_against_sorted(uint64_t (*draw)(void), size_t n)
{
	struct spate_hist *h = calloc(1, sizeof(*h));
	uint64_t *v = malloc(n * sizeof(*v)), sum = 0;
	static const double qs[] = { 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0 };

	for (size_t i = 0; i < n; i++) {
		v[i] = draw();
		sum += v[i];
		spate_hist_record(h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	CHECK_EQ_INT(h->count, n);
	CHECK(h->sum == sum);
	CHECK(h->max == v[n - 1]);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		size_t rank = (size_t)ceil(qs[k] * (double)n);
		uint64_t truth = v[rank - 1], got = spate_hist_quantile(h, qs[k]);
		CHECK(got >= truth);
		CHECK(got <= truth + truth / SPATE_HIST_SUB);
	}
	for (int k = 0; k < 200; k++) {
		uint64_t bound = v[check_rand() % n] + check_rand() % 3;
		size_t le = 0, le_low = 0;
		for (size_t i = 0; i < n; i++) {
			le += v[i] <= bound;
			le_low += v[i] + v[i] / SPATE_HIST_SUB <= bound;
		}
		uint64_t got = spate_hist_count_le(h, bound);
		CHECK(got <= le);
		CHECK(got >= le_low);
	}
	free(v);
	free(h);
}

static uint64_t draw_small(void)
{
	return check_rand() % 40;
}
static uint64_t draw_uniform(void)
{
	return check_rand() % 1000000;
}
/* latencies: mostly 20-40k cycles, a tail up to tens of millions */
static uint64_t draw_tail(void)
{
	uint64_t r = check_rand();
	return r % 100 == 0 ? 100000 + r % 50000000 : 20000 + r % 20000;
}
static uint64_t draw_log(void)
{
	return 1ull << (check_rand() % SPATE_HIST_MAX_BITS) | check_rand() % 7;
}

static void test_sum_and_window(void)
{
	struct spate_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct spate_hist *all = calloc(1, sizeof(*all)), *w = calloc(1, sizeof(*w));
	struct spate_hist *early = calloc(1, sizeof(*early));

	for (int i = 0; i < 1000; i++)
		spate_hist_record(a, 100 + i);
	*early = *a;
	for (int i = 0; i < 1000; i++) {
		spate_hist_record(a, 5000 + i);
		spate_hist_record(b, 7);
	}
	spate_hist_add(all, a);
	spate_hist_add(all, b);
	CHECK_EQ_INT(all->count, 3000);
	CHECK_EQ_INT(all->max, 5999);
	CHECK_EQ_INT(spate_hist_count_le(all, 7), 1000);
	CHECK_EQ_INT(spate_hist_quantile(all, 1.0 / 3), 7);
	/* the window after `early`: only the 5000s */
	spate_hist_sub(w, a, early);
	CHECK_EQ_INT(w->count, 1000);
	CHECK(spate_hist_quantile(w, 0.001) >= 5000);
	CHECK_EQ_INT(w->max, 5999);
	CHECK_EQ_INT(spate_hist_count_le(w, 4999), 0);
	/* a window whose largest is below the overall max: to its bucket */
	struct spate_hist *late = calloc(1, sizeof(*late));
	*late = *a;
	spate_hist_record(a, 300);
	spate_hist_sub(w, a, late);
	CHECK_EQ_INT(w->count, 1);
	CHECK(w->max >= 300 && w->max <= 300 + 300 / SPATE_HIST_SUB);
	free(late);
	/* past 2^40 (five minutes of cycles): the last bucket, max exact */
	struct spate_hist *big = calloc(1, sizeof(*big));
	spate_hist_record(big, 1ull << 50);
	spate_hist_record(big, 3);
	CHECK(spate_hist_quantile(big, 1.0) == 1ull << 50);
	CHECK_EQ_INT(spate_hist_quantile(big, 0.5), 3);
	CHECK_EQ_INT(spate_hist_count_le(big, UINT64_MAX - 1), 1);
	free(big);
	struct spate_hist *empty = calloc(1, sizeof(*empty));
	CHECK_EQ_INT(spate_hist_quantile(empty, 0.5), 0);
	free(empty);
	free(a);
	free(b);
	free(all);
	free(w);
	free(early);
}

int main(void)
{
	check_rng = 12345;
	test_bounds();
	test_against_sorted(draw_small, 1000);
	test_against_sorted(draw_uniform, 100000);
	test_against_sorted(draw_tail, 100000);
	test_against_sorted(draw_log, 50000);
	test_sum_and_window();
	return check_summary("test_hist");
}
