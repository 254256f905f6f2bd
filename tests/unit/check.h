/* check.h - the smallest test harness: CHECK counts failures and says
 * where; a test's main returns check_summary(). */
#ifndef SPATE_CHECK_H
#define SPATE_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures, check_count;

/* SPATE_CHECK_FAILFAST set (tools/mutation-test.py sets it): exit at the
 * first failed check instead of running the rest of the test. */
static inline void check_failed(void)
{
	check_failures++;
	if (getenv("SPATE_CHECK_FAILFAST"))
		exit(1);
}

/* clang-format off */
#define CHECK(cond)                                                           \
	do {                                                                  \
		check_count++;                                                \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                             \
			check_failed();                                       \
		}                                                             \
	} while (0)
/* clang-format on */

#define CHECK_EQ_INT(a, b)                                                                    \
	do {                                                                                  \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);               \
		check_count++;                                                                \
		if (check_a_ != check_b_) {                                                   \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
				__LINE__, #a, check_a_, #b, check_b_);                        \
			check_failed();                                                       \
		}                                                                             \
	} while (0)

/* The tests' random source: xorshift64, seeded by assigning check_rng
 * (never 0), so every run draws the same workloads. */
static uint64_t check_rng = 1;

static inline uint64_t check_rand(void)
{
	check_rng ^= check_rng << 13;
	check_rng ^= check_rng >> 7;
	check_rng ^= check_rng << 17;
	return check_rng;
}

/* Uniform-ish in [0, n), n > 0. */
static inline uint32_t check_below(uint32_t n)
{
	return (uint32_t)(check_rand() % n);
}

/* Fill the stack below the caller with non-zero bytes, so that a buffer
 * or a field the code under test forgets to set shows garbage instead
 * of the zeros a fresh stack happens to hold. Call it right before the
 * call under test, from the same function. */
static __attribute__((noinline, unused)) void check_dirty_stack(void)
{
	volatile unsigned char junk[16384];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

static inline int check_summary(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
