/* rcu_watch.c - the grace-period watchdog (rcu_watch.h). One static probe:
 * `pending` is set by housekeeping before call_rcu and cleared by the
 * callback on the call_rcu thread (release), which also stores when it
 * ran; housekeeping reads both (acquire) and does all the logging and
 * counting on its own lcore. */
#include <inttypes.h>
#include <stdbool.h>

#include <rte_cycles.h>
#include <urcu/urcu-qsbr.h>

#include "infra/counters.h"
#include "infra/rcu_watch.h"
#include "main/spated_log.h"

/* Probes are queued at most this often: cheap, and a stall shows within
 * the threshold plus this. */
#define RCU_WATCH_PERIOD_MS 50

static struct {
	struct rcu_head head;
	int pending;      /* written by both threads: atomics */
	uint64_t done_at; /* by the callback, before pending = 0 */
	uint64_t started; /* housekeeping only, from here on */
	uint64_t next_probe;
	bool warned;
} w;

static void probe_done(struct rcu_head *head)
{
	(void)head;
	__atomic_store_n(&w.done_at, rte_get_timer_cycles(), __ATOMIC_RELAXED);
	__atomic_store_n(&w.pending, 0, __ATOMIC_RELEASE);
}

static uint64_t ms_of(uint64_t cycles)
{
	return cycles * 1000 / rte_get_timer_hz();
}

void rcu_watch_poll(uint64_t now, uint32_t warn_ms)
{
	if (warn_ms == 0)
		return;
	if (__atomic_load_n(&w.pending, __ATOMIC_ACQUIRE)) {
		uint64_t waited = ms_of(now - w.started);
		if (!w.warned && waited >= warn_ms) {
			w.warned = true;
			spated_cnt.rcu_slow++;
			SPATED_LOG(
				WARNING,
				"RCU grace period pending for %" PRIu64 " ms (threshold %u ms): "
				"an lcore reports no quiescent state, reclamation is held back\n",
				waited, warn_ms);
		}
		return;
	}
	if (w.started != 0) {
		/* the last probe completed: report it if it was slow */
		uint64_t took = ms_of(__atomic_load_n(&w.done_at, __ATOMIC_RELAXED) - w.started);
		if (!w.warned && took >= warn_ms) {
			/* slow but never seen pending (the main lcore itself
			 * was held up): warn now */
			w.warned = true;
			spated_cnt.rcu_slow++;
			SPATED_LOG(WARNING,
				   "RCU grace period took %" PRIu64 " ms (threshold %u ms)\n", took,
				   warn_ms);
		}
		if (w.warned) {
			spated_cnt.rcu_resumed++;
			SPATED_LOG(NOTICE,
				   "RCU grace period completed after %" PRIu64
				   " ms: reclamation resumed\n",
				   took);
		}
		w.started = 0;
		w.warned = false;
	}
	if (now < w.next_probe)
		return;
	w.next_probe = now + rte_get_timer_hz() / 1000 * RCU_WATCH_PERIOD_MS;
	w.started = now;
	__atomic_store_n(&w.pending, 1, __ATOMIC_RELAXED);
	urcu_qsbr_call_rcu(&w.head, probe_done);
}
