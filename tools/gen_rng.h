/* gen_rng.h - spate-gen's random source and distributions: splitmix64
 * (one u64 of state, so a --seed reproduces a workload exactly on every
 * machine), uniform, normal and a Zipf sampler over ranks 1..n. */
#ifndef SPATE_TOOLS_GEN_RNG_H
#define SPATE_TOOLS_GEN_RNG_H

#include <stddef.h>
#include <stdint.h>

struct gen_rng {
	uint64_t s;
};

void gen_rng_seed(struct gen_rng *r, uint64_t seed);
uint64_t gen_rng_u64(struct gen_rng *r);
/* Uniform in [0, 1). */
double gen_rng_unit(struct gen_rng *r);
/* Uniform in [lo, hi). */
double gen_rng_uniform(struct gen_rng *r, double lo, double hi);
/* Uniform integer in [0, n), n >= 1. */
uint64_t gen_rng_below(struct gen_rng *r, uint64_t n);
/* Standard normal (Box-Muller). */
double gen_rng_normal(struct gen_rng *r);

/* P(rank k) proportional to 1/k^s, k = 1..n: a cumulative table searched
 * by bisection. */
struct gen_zipf {
	double *cum;
	size_t n;
};

int gen_zipf_init(struct gen_zipf *z, size_t n, double s);
void gen_zipf_free(struct gen_zipf *z);
/* A rank in [1, n]. */
size_t gen_zipf_draw(const struct gen_zipf *z, struct gen_rng *r);

#endif
