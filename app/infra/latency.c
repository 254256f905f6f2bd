/* latency.c - the latency histograms' storage and readers (latency.h). */
#include <string.h>

#include "infra/latency.h"

struct spated_lat_slot spated_lat_slots[SPATED_COUNTER_SLOTS + 1];

const char *spated_lat_name(enum spated_lat_stage st)
{
	return st == SPATED_LAT_RX_MATCHED ? "rx_to_matched" : "rx_to_tx";
}

void spated_lat_sum(enum spated_lat_stage st, struct spate_hist *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int l = 0; l <= SPATED_COUNTER_SLOTS; l++)
		if (spated_lat_slots[l].h[st].count != 0)
			spate_hist_add(out, &spated_lat_slots[l].h[st]);
}

double spated_lat_seconds(uint64_t cycles)
{
	return (double)cycles / (double)rte_get_tsc_hz();
}

const double spated_lat_q[SPATED_LAT_NQ] = { 0.5, 0.9, 0.99, 0.999 };
const char *const spated_lat_qname[SPATED_LAT_NQ] = { "p50", "p90", "p99", "p99.9" };
const char *const spated_lat_qkey[SPATED_LAT_NQ] = { "p50", "p90", "p99", "p999" };

void spated_lat_summarize(const struct spate_hist *h, struct spated_lat_summary *out)
{
	out->count = h->count;
	for (int i = 0; i < SPATED_LAT_NQ; i++)
		out->q_s[i] = spated_lat_seconds(spate_hist_quantile(h, spated_lat_q[i]));
	out->max_s = spated_lat_seconds(h->max);
	out->mean_s = h->count ? spated_lat_seconds(h->sum) / (double)h->count : 0;
}
