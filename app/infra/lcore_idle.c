/* lcore_idle.c - the idle strategy of the polling lcores (lcore_idle.h). */
/* rte_cpu_get_intrinsics_support is experimental in DPDK 22.11 */
#define ALLOW_EXPERIMENTAL_API 1
#include <rte_cpuflags.h>
#include <rte_cycles.h>

#include <urcu/urcu-qsbr.h>

#include "infra/counters.h"
#include "infra/lcore_idle.h"
#include "main/spated_log.h"

static uint64_t tsc_per_us;

void lcore_idle_init(struct lcore_idle *st)
{
	if (tsc_per_us == 0)
		tsc_per_us = rte_get_tsc_hz() / 1000000 + 1;
	st->last_work = rte_rdtsc();
	st->sleep_us = 0;
}

void lcore_idle_after(struct lcore_idle *st, unsigned int work, const struct spated_conf *c)
{
	uint64_t now = rte_rdtsc();

	if (work != 0) {
		st->last_work = now;
		st->sleep_us = 0;
		return;
	}
	/* written by the control side on another lcore: plain word loads */
	uint32_t cap = __atomic_load_n(&c->idle_sleep_us, __ATOMIC_RELAXED);
	uint32_t spin = __atomic_load_n(&c->idle_spin_us, __ATOMIC_RELAXED);
	if (cap == 0 || now - st->last_work < (uint64_t)spin * tsc_per_us)
		return;
	st->sleep_us = st->sleep_us + IDLE_STEP_US < cap ? st->sleep_us + IDLE_STEP_US : cap;
	spated_cnt.idle_sleeps++;
	urcu_qsbr_thread_offline();
	rte_delay_us_sleep(st->sleep_us);
	urcu_qsbr_thread_online();
}

void lcore_idle_report(const struct spated_conf *c)
{
	struct rte_cpu_intrinsics in;

	rte_cpu_get_intrinsics_support(&in);
	SPATED_LOG(INFO,
		   "idle lcores: spin %u us after work, then sleep up to %u us%s; "
		   "rte_power_monitor %s\n",
		   c->idle_spin_us, c->idle_sleep_us,
		   c->idle_sleep_us == 0 ? " (busy polling)" : "",
		   in.power_monitor
			   ? "offered by the CPU, not used (the PMDs here have no monitor address)"
			   : "not offered by this CPU (no WAITPKG/MONITORX)");
}
