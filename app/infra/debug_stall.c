/* debug_stall.c - the stall hook (debug_stall.h). */
#include <rte_cycles.h>

#include "infra/debug_stall.h"
#include "main/spated_log.h"

uint32_t debug_stall_ms[SPATED_MATCH_MAX];

void debug_stall_arm(uint32_t worker, uint32_t ms)
{
	__atomic_store_n(&debug_stall_ms[worker], ms, __ATOMIC_RELAXED);
}

void debug_stall_run(uint32_t worker)
{
	uint32_t ms = __atomic_exchange_n(&debug_stall_ms[worker], 0, __ATOMIC_RELAXED);

	SPATED_LOG(WARNING, "debug: matching worker %u stalls for %u ms (test hook)\n", worker, ms);
	/* rte_delay_us_block spins: the lcore stays RCU-online and busy */
	rte_delay_us_block((unsigned int)ms * 1000u);
	SPATED_LOG(NOTICE, "debug: matching worker %u resumes\n", worker);
}
