/* debug_stall.h - a fault-injection hook for tests: stall one matching
 * worker for a while, so that its lcore neither polls its rings nor
 * reports RCU quiescent states (the grace-period watchdog, rcu_watch.h,
 * must notice). Armed by `spatectl debug stall WORKER MS`, which spated
 * refuses unless spated.debug_hooks = true; off by default.
 *
 * The matching stage calls debug_stall_point() once per poll: one load of
 * a word that is 0 unless a stall is armed.
 */
#ifndef SPATED_DEBUG_STALL_H
#define SPATED_DEBUG_STALL_H

#include <stdint.h>

#include "config/config.h"

#define DEBUG_STALL_MS_MAX 60000

/* Per worker: the stall length in ms, 0 = none armed. */
extern uint32_t debug_stall_ms[SPATED_MATCH_MAX];

/* Arm a stall of `ms` on `worker` (any thread). */
void debug_stall_arm(uint32_t worker, uint32_t ms);
/* Busy-wait the armed time, online and without a quiescent state, then
 * disarm. */
void debug_stall_run(uint32_t worker);

static inline void debug_stall_point(uint32_t worker)
{
	if (__builtin_expect(__atomic_load_n(&debug_stall_ms[worker], __ATOMIC_RELAXED) != 0, 0))
		debug_stall_run(worker);
}

#endif
