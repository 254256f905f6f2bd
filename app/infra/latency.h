/* latency.h - how long spated holds an event, measured inside: each
 * Spate datagram is stamped with the TSC when its RX burst came off the
 * port (pkt_meta.rx_tsc), the stamp travels with the event's parts
 * (pl_event.rx_tsc) and with the NOTIFY datagrams built from them, and
 * two stages are timed against it:
 *
 *   rx_to_matched  an event part matched in its categories (the matching
 *                  stage), or found to have none (the cluster stage)
 *   rx_to_tx       a NOTIFY datagram handed to the port (after
 *                  rte_eth_tx_burst returned: the kick included); a
 *                  datagram carrying several events' notifications is
 *                  timed from the oldest of the burst that built it
 *
 * One log-linear histogram (lib/util/spate_hist.h) per stage and lcore, each
 * written by its own lcore only: no locks or atomics on the data path.
 * Readers (spatectl show latency, telemetry /spate/latency, the metrics
 * endpoint) sum the lcores'. Events from other hosts (a match host's, a
 * relay from another front) carry no stamp and are not timed.
 */
#ifndef SPATED_LATENCY_H
#define SPATED_LATENCY_H

#include <stdint.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "infra/counters.h"
#include "util/spate_hist.h"

enum spated_lat_stage {
	SPATED_LAT_RX_MATCHED,
	SPATED_LAT_RX_TX,
	SPATED_LAT__COUNT,
};

struct spated_lat_slot {
	struct spate_hist h[SPATED_LAT__COUNT];
} __attribute__((aligned(64)));

/* [SPATED_COUNTER_SLOTS]: by lcore id; the last one for threads that
 * are no lcore. */
extern struct spated_lat_slot spated_lat_slots[SPATED_COUNTER_SLOTS + 1];

/* Time stage `st` of something stamped rx_tsc (0: not stamped, not
 * timed) as of now. */
static inline void spated_lat_record(enum spated_lat_stage st, uint64_t rx_tsc, uint64_t now)
{
	unsigned int l = rte_lcore_id();

	if (rx_tsc == 0)
		return;
	if (l >= SPATED_COUNTER_SLOTS)
		l = SPATED_COUNTER_SLOTS;
	spate_hist_record(&spated_lat_slots[l].h[st], now - rx_tsc);
}

/* "rx_to_matched", "rx_to_tx". */
const char *spated_lat_name(enum spated_lat_stage st);
/* Every lcore's histogram of a stage, summed into *out (overwritten). */
void spated_lat_sum(enum spated_lat_stage st, struct spate_hist *out);
/* Cycles to seconds (the TSC's rate). */
double spated_lat_seconds(uint64_t cycles);

/* The quantiles every reader shows: p50, p90, p99, p99.9 (as a key
 * without a dot, which telemetry refuses: p999). */
#define SPATED_LAT_NQ 4
extern const double spated_lat_q[SPATED_LAT_NQ];
extern const char *const spated_lat_qname[SPATED_LAT_NQ];
extern const char *const spated_lat_qkey[SPATED_LAT_NQ];

struct spated_lat_summary {
	uint64_t count;
	double q_s[SPATED_LAT_NQ]; /* seconds */
	double max_s, mean_s;
};
void spated_lat_summarize(const struct spate_hist *h, struct spated_lat_summary *out);

#endif
