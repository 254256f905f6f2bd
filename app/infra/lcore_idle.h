/* lcore_idle.h - what a polling lcore does when its polls find nothing:
 * the idle strategy (spated.idle_spin_us and spated.idle_sleep_us, both
 * changed live by `spatectl set`).
 *
 * After a poll that found work the lcore spins - polls again at once -
 * for idle_spin_us, so a request/response client, or traffic whose gaps
 * are shorter than that, never waits for a wake-up: a sleep asked for
 * 50 us takes 80-140 us on a loaded virtual machine (docs/benchmarks.md,
 * "Latency"). Past that it sleeps between polls, IDLE_STEP_US longer
 * each time, up to idle_sleep_us: an lcore idle for good costs what the
 * plain sleep of idle_sleep_us costs, and one idle for a moment wakes
 * soon. idle_sleep_us = 0 is pure busy polling (dedicated cores).
 *
 * Sleeps are RCU-offline (a grace period never waits for a sleeping
 * lcore). rte_power_monitor (wait on the RX ring's address) is not used:
 * it needs WAITPKG or MONITORX, which virtual CPUs rarely expose, and a
 * PMD with get_monitor_addr, which net_af_packet has not; spated logs
 * what the CPU offers at start (lcore_idle_report).
 */
#ifndef SPATED_LCORE_IDLE_H
#define SPATED_LCORE_IDLE_H

#include <stdint.h>

#include "config/config.h"

#define IDLE_STEP_US 5

struct lcore_idle {
	uint64_t last_work; /* TSC of the last poll that found work */
	uint32_t sleep_us;  /* the last sleep; 0 = spinning */
};

void lcore_idle_init(struct lcore_idle *st);
/* After one turn of the lcore's stages that found `work` (frames,
 * messages): spin on, or sleep. c: the live configuration. */
void lcore_idle_after(struct lcore_idle *st, unsigned int work, const struct spated_conf *c);
/* One log line at start: the strategy in force and what the CPU offers. */
void lcore_idle_report(const struct spated_conf *c);

#endif
