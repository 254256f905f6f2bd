/* spate_ratelimit.h - per-client token buckets for subscription
 * operations: `rate` tokens a second, at most `burst` saved up; each
 * SUB_ADD/SUB_DEL takes one, and without one it is NACKed RATE_LIMITED.
 *
 * The table is bounded (max_clients): client ids are 32 bits and anyone
 * can claim any of them, so past the bound the remaining clients share one
 * overflow bucket rather than growing memory without end. Time is passed
 * in (microseconds, monotonic), so tests drive it. */
#ifndef SPATE_RATELIMIT_H
#define SPATE_RATELIMIT_H

#include <stdint.h>

struct spate_ratelimit;

/* rate 0 = unlimited. NULL on no memory. */
struct spate_ratelimit *spate_ratelimit_create(double rate, uint32_t burst, uint32_t max_clients);
void spate_ratelimit_destroy(struct spate_ratelimit *rl);
/* Change rate and burst; buckets keep their tokens (capped to burst). */
void spate_ratelimit_set(struct spate_ratelimit *rl, double rate, uint32_t burst);
double spate_ratelimit_rate(const struct spate_ratelimit *rl);
uint32_t spate_ratelimit_burst(const struct spate_ratelimit *rl);

/* Take one token for `client` at time now_us: 0, or -SPATE_E_RATE_LIMITED. */
int spate_ratelimit_take(struct spate_ratelimit *rl, uint32_t client, uint64_t now_us);

#endif
