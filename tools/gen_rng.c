/* gen_rng.c - spate-gen's random source (gen_rng.h). */
#include <math.h>
#include <stdlib.h>

#include "gen_rng.h"

void gen_rng_seed(struct gen_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t gen_rng_u64(struct gen_rng *r)
{
	/* splitmix64 (Steele, Lea, Flood 2014): passes BigCrush, one word
	 * of state. */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double gen_rng_unit(struct gen_rng *r)
{
	return (double)(gen_rng_u64(r) >> 11) * 0x1.0p-53;
}

double gen_rng_uniform(struct gen_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * gen_rng_unit(r);
}

uint64_t gen_rng_below(struct gen_rng *r, uint64_t n)
{
	/* Rejection keeps it exactly uniform. */
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = gen_rng_u64(r);
	while (x >= lim);
	return x % n;
}

double gen_rng_normal(struct gen_rng *r)
{
	double u = 1.0 - gen_rng_unit(r); /* (0, 1]: log is finite */
	double v = gen_rng_unit(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

int gen_zipf_init(struct gen_zipf *z, size_t n, double s)
{
	z->n = n;
	z->cum = malloc(n * sizeof(*z->cum));
	if (z->cum == NULL)
		return -1;
	double acc = 0;
	for (size_t k = 0; k < n; k++) {
		acc += 1.0 / pow((double)(k + 1), s);
		z->cum[k] = acc;
	}
	return 0;
}

void gen_zipf_free(struct gen_zipf *z)
{
	free(z->cum);
	z->cum = NULL;
}

size_t gen_zipf_draw(const struct gen_zipf *z, struct gen_rng *r)
{
	double x = gen_rng_unit(r) * z->cum[z->n - 1];
	size_t lo = 0, hi = z->n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (z->cum[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo + 1;
}
