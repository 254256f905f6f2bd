/* rcu_watch.h - a watchdog on RCU grace periods.
 *
 * Every registered QSBR lcore must report quiescent states; one that stops
 * (stuck in a long loop, stalled by `spatectl debug stall`) holds every
 * grace period back, so the call_rcu thread frees nothing and old
 * category-directory versions pile up. The watchdog makes that visible:
 * from the main lcore's housekeeping it keeps one probe callback queued
 * with call_rcu at a time and times how long its grace period takes. A
 * probe still pending after the threshold (spated.rcu_warn_ms) logs a
 * warning through rte_log and counts rcu_slow (one per slow grace period);
 * when it completes, the duration is logged and rcu_resumed counted, so a
 * reader sees that reclamation runs again.
 */
#ifndef SPATED_RCU_WATCH_H
#define SPATED_RCU_WATCH_H

#include <stdint.h>

/* Housekeeping, on the main lcore (registered, online, with the
 * pipeline's call_rcu data): queue a probe if none is pending, warn about
 * one that is overdue, report one that completed late. now in timer
 * cycles; warn_ms 0 = the watchdog is off. */
void rcu_watch_poll(uint64_t now, uint32_t warn_ms);
/* At exit, after the last grace period (urcu_qsbr_barrier): nothing. The
 * probe is static, so there is nothing to free. */

#endif
