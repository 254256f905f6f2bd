/* metrics.c - the metrics page (metrics.h): every figure spated keeps,
 * named and labelled by Prometheus' conventions. */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include <urcu/urcu-qsbr.h>

#include "cluster/category_dir.h"
#include "config/config.h"
#include "infra/counters.h"
#include "store/durable.h"
#include "main/info.h"
#include "infra/latency.h"
#include "control/metrics.h"
#include "infra/pipeline.h"
#include "proto/spate_err.h"
#include "proto/spate_types.h"
#include "link/stage_link.h"

/* ---- the exposition: families and samples ---- */

struct mw {
	FILE *f;
	bool om; /* OpenMetrics 1.0, else the text format 0.0.4 */
};

/* # HELP and # TYPE of a family. `name` is its samples' name: OpenMetrics
 * names a counter family without the _total its samples carry. */
static void family(struct mw *w, const char *name, const char *type, const char *help)
{
	size_t n = strlen(name);

	if (w->om && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
		n -= 6;
	fprintf(w->f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name, type);
}

/* A label value as the formats want it: \\, \" and \n escaped. */
static void label_value(char *out, size_t len, const char *v)
{
	size_t o = 0;

	for (; *v && o + 3 < len; v++) {
		if (*v == '\\' || *v == '"' || *v == '\n')
			out[o++] = '\\';
		out[o++] = *v == '\n' ? 'n' : *v;
	}
	out[o] = '\0';
}

static void sample_u64(struct mw *w, const char *name, const char *labels, uint64_t v)
{
	fprintf(w->f, "%s%s%s%s %" PRIu64 "\n", name, *labels ? "{" : "", labels,
		*labels ? "}" : "", v);
}

static void sample_dbl(struct mw *w, const char *name, const char *labels, double v)
{
	char buf[40];

	spate_format_double(buf, sizeof(buf), v);
	fprintf(w->f, "%s%s%s%s %s\n", name, *labels ? "{" : "", labels, *labels ? "}" : "", buf);
}

/* A family of one unlabelled sample. */
static void single(struct mw *w, const char *name, const char *type, const char *help, double v)
{
	family(w, name, type, help);
	sample_dbl(w, name, "", v);
}

/* ---- the counters of counters.h ---- */

struct counter {
	const char *name;
	size_t off;
};

static const struct counter counters[] = {
#define COUNTER_ENTRY(n) { #n, offsetof(struct spated_counters, n) },
	SPATED_FOREACH_COUNTER(COUNTER_ENTRY)
#undef COUNTER_ENTRY
};
#define N_COUNTERS (sizeof(counters) / sizeof(counters[0]))

/* Counters with a name of their own (the rest: spate_<name>_total);
 * scale 0: the count as it is, else times scale (ns to seconds). */
static const struct {
	const char *counter, *metric, *help;
	double scale;
} renamed[] = {
	{ "rx", "spate_rx_frames_total", "Frames received from the ports." },
	{ "rx_bytes", "spate_rx_bytes_total",
	  "Bytes of the frames received (Ethernet header included)." },
	{ "tx", "spate_tx_frames_total", "Frames handed to the ports." },
	{ "tx_bytes", "spate_tx_bytes_total", "Bytes of the frames handed to the ports." },
	{ "dgrams", "spate_datagrams_received_total", "Spate datagrams received." },
	{ "messages", "spate_messages_received_total", "Spate messages read." },
	{ "events", "spate_events_received_total",
	  "EVENT messages received and routed to their categories." },
	{ "matches", "spate_matches_total", "(event, subscription) pairs matched." },
	{ "notifications", "spate_notifications_total",
	  "(event, subscription) pairs put into NOTIFY messages." },
	{ "sub_adds", "spate_subscriptions_added_total", "SUB_ADD requests accepted." },
	{ "sub_dels", "spate_subscriptions_deleted_total", "SUB_DEL requests accepted." },
	{ "busy_cycles", "spate_busy_cycles_total", "TSC cycles of polls that found work." },
	{ "polls", "spate_polls_total", "Iterations of the lcores' poll loops." },
	{ "match_cpu_ns", "spate_match_cpu_seconds_total",
	  "Thread CPU time of matching polls with work (spated.cpu_accounting).", 1e-9 },
};

/* Counters of things dropped: spate_drops_total{cause="<counter>"}. */
static const char *const drops[] = {
	"rx_multiseg",       "rx_runt",           "rx_other_mac",      "rx_other_ethertype",
	"arp_other",         "ip_bad_header",     "ip_bad_csum",       "ip_fragment",
	"ip_not_ours",       "ip_other_proto",    "icmp_bad",          "icmp_other",
	"udp_bad_len",       "udp_bad_csum",      "udp_other_port",    "bad_header",
	"from_server",       "auth_dropped",      "no_neighbour",      "arp_unresolved",
	"no_mbuf",           "tx_drops",          "ring_full_rx",      "ring_full_tx",
	"msg_no_memory",     "cat_unknown",       "feedback_lost",     "peer_bad",
	"peer_unknown_host", "peer_stale",        "peer_auth_fail",    "peer_auth_addr",
	"peer_auth_epoch",   "peer_dropped_test", "peer_down_dropped",
};

/* TSC cycles per stage: spate_stage_cycles_total{stage="<after cycles_>"}. */
static const char *const stage_cycles[] = {
	"cycles_rx", "cycles_cluster", "cycles_match", "cycles_tx", "cycles_link",
};

/* Counters that hold a value, not a count (set by the main lcore). */
static const struct {
	const char *counter, *metric, *help;
	double scale;
} values[] = {
	{ "zk_map_version", "spate_zk_map_version", "The placement map's version in ZooKeeper.",
	  1 },
	{ "zk_map_cats", "spate_zk_map_categories", "Categories in the placement map.", 1 },
	{ "failover_us", "spate_failover_last_seconds",
	  "(front) How long the last failover rebuild took.", 1e-6 },
};

/* The ports' figures: per port from rte_eth_stats below; the kernel's
 * ring under af_packet as summed counters. */
static const struct {
	const char *counter, *metric, *help;
} port_sums[] = {
	{ "port_kernel_drops", "spate_port_kernel_drops_total",
	  "af_packet: frames the kernel's receive ring dropped (all ports)." },
	{ "port_kernel_packets", "spate_port_kernel_packets_total",
	  "af_packet: frames the kernel offered the receive ring (all ports)." },
};

#define IN_LIST(list, field, name, found)                              \
	for (size_t i_ = 0; i_ < sizeof(list) / sizeof(list[0]); i_++) \
		if (strcmp(list[i_] field, name) == 0)                 \
	found = 1

/* Exported by a family of its own (or, port_*, not per lcore). */
static int special(const char *name)
{
	int found = strncmp(name, "port_", 5) == 0;

	IN_LIST(renamed, .counter, name, found);
	IN_LIST(drops, , name, found);
	IN_LIST(stage_cycles, , name, found);
	IN_LIST(values, .counter, name, found);
	return found;
}

static const struct counter *counter_named(const char *name)
{
	for (size_t i = 0; i < N_COUNTERS; i++)
		if (strcmp(counters[i].name, name) == 0)
			return &counters[i];
	return NULL;
}

static uint64_t at(const struct spated_counters *c, const struct counter *k)
{
	return *(const uint64_t *)((const char *)c + k->off);
}

/* The sum of every block and what is not an lcore's: the control
 * threads' (spated_counters_sum adds the unbound threads' block). */
struct blocks {
	struct spated_counters sum, rest;
};

static void read_blocks(struct blocks *b)
{
	spated_counters_sum(&b->sum);
	b->rest = b->sum;
	uint64_t *rest = (uint64_t *)&b->rest;
	for (unsigned int l = 0; l < SPATED_COUNTER_SLOTS; l++) {
		const uint64_t *v = (const uint64_t *)&spated_cnt_slots[l].c;
		for (size_t i = 0; i < sizeof(b->rest) / sizeof(uint64_t); i++)
			rest[i] -= v[i];
	}
}

static void sample_scaled(struct mw *w, const char *metric, const char *labels, uint64_t v,
			  double scale)
{
	if (scale == 0)
		sample_u64(w, metric, labels, v);
	else
		sample_dbl(w, metric, labels, (double)v * scale);
}

/* One sample per lcore (and lcore="control" when the control threads
 * counted some): labels, then `extra` ("cause=...") after lcore. scale
 * 0: the count as it is; else the count times scale (a counter kept in
 * ns exported in the base unit, seconds). */
static void per_lcore_scaled(struct mw *w, const struct blocks *b, const char *metric,
			     const struct counter *k, const char *extra, double scale)
{
	char labels[160];
	unsigned int l;

	RTE_LCORE_FOREACH (l) {
		snprintf(labels, sizeof(labels), "lcore=\"%u\"%s%s", l, *extra ? "," : "", extra);
		sample_scaled(w, metric, labels, at(&spated_cnt_slots[l].c, k), scale);
	}
	if (at(&b->rest, k) != 0) {
		snprintf(labels, sizeof(labels), "lcore=\"control\"%s%s", *extra ? "," : "", extra);
		sample_scaled(w, metric, labels, at(&b->rest, k), scale);
	}
}

static void per_lcore(struct mw *w, const struct blocks *b, const char *metric,
		      const struct counter *k, const char *extra)
{
	per_lcore_scaled(w, b, metric, k, extra, 0);
}

static void render_counters(struct mw *w, const struct blocks *b)
{
	char metric[96], help[160], extra[96];

	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
		family(w, renamed[i].metric, "counter", renamed[i].help);
		per_lcore_scaled(w, b, renamed[i].metric, counter_named(renamed[i].counter), "",
				 renamed[i].scale);
	}
	family(w, "spate_drops_total", "counter",
	       "Frames, datagrams and messages dropped, by cause (the counter of "
	       "app/infra/counters.h).");
	for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		const struct counter *k = counter_named(drops[i]);
		if (k == NULL)
			continue;
		snprintf(extra, sizeof(extra), "cause=\"%s\"", drops[i]);
		per_lcore(w, b, "spate_drops_total", k, extra);
	}
	family(w, "spate_stage_cycles_total", "counter",
	       "TSC cycles spent in each stage by polls that found work.");
	for (size_t i = 0; i < sizeof(stage_cycles) / sizeof(stage_cycles[0]); i++) {
		snprintf(extra, sizeof(extra), "stage=\"%s\"", stage_cycles[i] + 7);
		per_lcore(w, b, "spate_stage_cycles_total", counter_named(stage_cycles[i]), extra);
	}
	family(w, "spate_refused_total", "counter",
	       "Spate headers and messages refused, by reason (the NACK code's name).");
	for (int m = 0; m < 2; m++)
		for (int e = 1; e < SPATE_E__COUNT; e++) {
			struct counter k = { "", (m ? offsetof(struct spated_counters, msg_err)
						    : offsetof(struct spated_counters, hdr_err)) +
							 (size_t)e * sizeof(uint64_t) };
			snprintf(extra, sizeof(extra), "what=\"%s\",cause=\"%s\"",
				 m ? "message" : "header", spate_err_name(e));
			per_lcore(w, b, "spate_refused_total", &k, extra);
		}
	/* the rest under their own names: adding a counter is one line in
	 * counters.h, and it is here */
	for (size_t i = 0; i < N_COUNTERS; i++) {
		if (special(counters[i].name))
			continue;
		snprintf(metric, sizeof(metric), "spate_%s_total", counters[i].name);
		snprintf(help, sizeof(help), "spated's counter %s (app/infra/counters.h).",
			 counters[i].name);
		family(w, metric, "counter", help);
		per_lcore(w, b, metric, &counters[i], "");
	}
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		const struct counter *k = counter_named(values[i].counter);
		if (k != NULL)
			single(w, values[i].metric, "gauge", values[i].help,
			       (double)at(&b->sum, k) * values[i].scale);
	}
	for (size_t i = 0; i < sizeof(port_sums) / sizeof(port_sums[0]); i++) {
		const struct counter *k = counter_named(port_sums[i].counter);
		if (k != NULL)
			single(w, port_sums[i].metric, "counter", port_sums[i].help,
			       (double)at(&b->sum, k));
	}
}

/* ---- the ports, per port ---- */

static void render_ports(struct mw *w, const struct metrics_source *src)
{
	static const struct {
		const char *metric, *help;
		size_t off;
	} f[] = {
		{ "spate_port_rx_packets_total",
		  "Frames the port received (rte_eth_stats ipackets).",
		  offsetof(struct rte_eth_stats, ipackets) },
		{ "spate_port_rx_missed_total",
		  "Frames the port dropped: RX queues full (imissed).",
		  offsetof(struct rte_eth_stats, imissed) },
		{ "spate_port_rx_errors_total", "Erroneous frames the port received (ierrors).",
		  offsetof(struct rte_eth_stats, ierrors) },
		{ "spate_port_rx_nombuf_total", "RX mbuf allocation failures (rx_nombuf).",
		  offsetof(struct rte_eth_stats, rx_nombuf) },
		{ "spate_port_tx_packets_total", "Frames the port sent (opackets).",
		  offsetof(struct rte_eth_stats, opackets) },
		{ "spate_port_tx_errors_total", "Frames the port failed to send (oerrors).",
		  offsetof(struct rte_eth_stats, oerrors) },
	};
	struct rte_eth_stats st[8];
	uint16_t n = src->n_ports < 8 ? src->n_ports : 8;
	char labels[32];

	for (uint16_t p = 0; p < n; p++)
		if (rte_eth_stats_get(src->ports[p], &st[p]) != 0)
			memset(&st[p], 0, sizeof(st[p]));
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		family(w, f[i].metric, "counter", f[i].help);
		for (uint16_t p = 0; p < n; p++) {
			snprintf(labels, sizeof(labels), "port=\"%u\"", src->ports[p]);
			sample_u64(w, f[i].metric, labels,
				   *(const uint64_t *)((const char *)&st[p] + f[i].off));
		}
	}
}

/* ---- gauges ---- */

struct ring_w {
	struct mw *w;
	int capacity; /* this pass writes capacities, else entries */
};

static void ring_sample(void *ctx, const struct rte_ring *r)
{
	struct ring_w *rw = ctx;
	char name[2 * RTE_RING_NAMESIZE], labels[2 * RTE_RING_NAMESIZE + 16];

	label_value(name, sizeof(name), r->name);
	snprintf(labels, sizeof(labels), "ring=\"%s\"", name);
	sample_u64(rw->w, rw->capacity ? "spate_ring_capacity" : "spate_ring_entries", labels,
		   rw->capacity ? rte_ring_get_capacity(r) : rte_ring_count(r));
}

static void pool_samples(struct mw *w, const char *metric, const struct metrics_source *src,
			 int size)
{
	struct rte_mempool *mp[2] = { src->pkt_pool, pipeline_msg_pool(src->pl) };
	char labels[2 * RTE_MEMPOOL_NAMESIZE + 16], name[2 * RTE_MEMPOOL_NAMESIZE];

	for (int i = 0; i < 2; i++) {
		if (mp[i] == NULL)
			continue;
		label_value(name, sizeof(name), mp[i]->name);
		snprintf(labels, sizeof(labels), "pool=\"%s\"", name);
		sample_u64(w, metric, labels, size ? mp[i]->size : rte_mempool_in_use_count(mp[i]));
	}
}

static const struct {
	const char *figure, *metric, *type, *help;
	double scale;
} journal[] = {
	{ "enabled", "spate_journal_enabled", "gauge", "1 when subscriptions are journaled.", 1 },
	{ "file_bytes", "spate_journal_bytes", "gauge", "Bytes of the journal file.", 1 },
	{ "file_records", "spate_journal_records", "gauge", "Records in the journal file.", 1 },
	{ "appended", "spate_journal_appended_total", "counter", "Records appended.", 1 },
	{ "syncs", "spate_journal_syncs_total", "counter", "fdatasync calls.", 1 },
	{ "write_errors", "spate_journal_write_errors_total", "counter", "Failed writes.", 1 },
	{ "record_no_memory", "spate_journal_record_no_memory_total", "counter",
	  "Records lost to no memory.", 1 },
	{ "compactions", "spate_journal_compactions_total", "counter",
	  "Compactions (snapshots) written.", 1 },
	{ "holds", "spate_journal_holds_total", "counter",
	  "ACKs held until their record was durable.", 1 },
	{ "hold_us_total", "spate_journal_hold_seconds_total", "counter", "Time ACKs were held.",
	  1e-6 },
	{ "hold_us_max", "spate_journal_hold_max_seconds", "gauge", "Longest an ACK was held.",
	  1e-6 },
	{ "replayed_records", "spate_journal_replayed_records", "gauge",
	  "Records replayed at start.", 1 },
	{ "replayed_refused", "spate_journal_replayed_refused", "gauge",
	  "Records refused at start.", 1 },
	{ "replay_cut_bytes", "spate_journal_replay_cut_bytes", "gauge",
	  "Bytes of a torn tail cut at start.", 1 },
};
#define N_JOURNAL (sizeof(journal) / sizeof(journal[0]))

static void journal_figure(void *ctx, const char *name, uint64_t v)
{
	double *got = ctx;

	for (size_t i = 0; i < N_JOURNAL; i++)
		if (strcmp(journal[i].figure, name) == 0)
			got[i] = (double)v * journal[i].scale;
}

static void render_gauges(struct mw *w, const struct metrics_source *src)
{
	struct spated_info in;
	char labels[96];
	uint32_t n = pipeline_workers(src->pl), cats[SPATED_MATCH_MAX];
	uint64_t subs[SPATED_MATCH_MAX];

	spated_info_get(&in);
	single(w, "spate_subscriptions", "gauge", "Subscriptions stored on this host.",
	       (double)in.subscriptions);
	single(w, "spate_clients", "gauge", "Clients with at least one subscription.",
	       (double)in.clients);
	single(w, "spate_uptime_seconds", "gauge", "Seconds since spated started.", in.uptime_s);

	/* the directory is an RCU structure: read online, for a moment */
	urcu_qsbr_thread_online();
	category_dir_per_worker(pipeline_dir(src->pl), n, cats, subs);
	urcu_qsbr_thread_offline();
	family(w, "spate_categories", "gauge", "Categories per matching worker.");
	for (uint32_t i = 0; i < n; i++) {
		snprintf(labels, sizeof(labels), "worker=\"%u\"", i);
		sample_u64(w, "spate_categories", labels, cats[i]);
	}
	family(w, "spate_worker_subscriptions", "gauge", "Subscriptions per matching worker.");
	for (uint32_t i = 0; i < n; i++) {
		snprintf(labels, sizeof(labels), "worker=\"%u\"", i);
		sample_u64(w, "spate_worker_subscriptions", labels, subs[i]);
	}
	family(w, "spate_worker_lcore", "gauge",
	       "1 for each matching worker on this host and the lcore it runs on.");
	for (uint32_t i = 0; i < n; i++) {
		unsigned int l = pipeline_worker_lcore(src->pl, i);
		if (l == UINT32_MAX)
			continue;
		snprintf(labels, sizeof(labels), "worker=\"%u\",lcore=\"%u\"", i, l);
		sample_u64(w, "spate_worker_lcore", labels, 1);
	}

	struct ring_w rw = { w, 0 };
	family(w, "spate_ring_entries", "gauge", "Objects waiting in each stage-to-stage ring.");
	pipeline_visit_rings(src->pl, ring_sample, &rw);
	rw.capacity = 1;
	family(w, "spate_ring_capacity", "gauge", "Slots of each stage-to-stage ring.");
	pipeline_visit_rings(src->pl, ring_sample, &rw);

	family(w, "spate_mempool_in_use", "gauge",
	       "Objects of each pool in use (packets, messages).");
	pool_samples(w, "spate_mempool_in_use", src, 0);
	family(w, "spate_mempool_size", "gauge", "Objects in each pool.");
	pool_samples(w, "spate_mempool_size", src, 1);

	double got[N_JOURNAL] = { 0 };
	durable_figures(spated_durable, journal_figure, got);
	for (size_t i = 0; i < N_JOURNAL; i++)
		single(w, journal[i].metric, journal[i].type, journal[i].help, got[i]);

	struct stage_link *link = pipeline_link(src->pl);
	uint32_t host, up_count = 0;
	int up;
	family(w, "spate_peer_up", "gauge", "1 when the peer host is up (a member), else 0.");
	for (uint32_t i = 0; stage_link_peer_state(link, i, &host, &up) == 0; i++) {
		snprintf(labels, sizeof(labels), "host=\"%u\"", host);
		sample_u64(w, "spate_peer_up", labels, (uint64_t)up);
		up_count += (uint32_t)up;
	}
	single(w, "spate_peers_up", "gauge", "Peer hosts up.", up_count);
}

/* ---- latency histograms ---- */

static void render_latency(struct mw *w)
{
	/* seconds; a bucket counts whole histogram buckets at most its bound
	 * (spate_hist_count_le: up to 1/16 below the truth) */
	static const double le[] = { 1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4,
				     1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1,  0.5,  1 };
	static struct spate_hist h; /* this thread's own */
	double hz = spated_lat_seconds(1) > 0 ? 1 / spated_lat_seconds(1) : 0;
	char labels[96], v[40];

	family(w, "spate_latency_seconds", "histogram",
	       "Time from a datagram's RX burst to its event matched (stage=rx_to_matched) "
	       "and to its NOTIFY handed to the port (stage=rx_to_tx).");
	for (int st = 0; st < SPATED_LAT__COUNT; st++) {
		uint64_t total = 0;
		spated_lat_sum(st, &h);
		for (unsigned int i = 0; i < SPATE_HIST_BUCKETS; i++)
			total += h.b[i];
		for (size_t i = 0; i < sizeof(le) / sizeof(le[0]); i++) {
			spate_format_double(v, sizeof(v), le[i]);
			snprintf(labels, sizeof(labels), "stage=\"%s\",le=\"%s\"",
				 spated_lat_name(st), v);
			sample_u64(w, "spate_latency_seconds_bucket", labels,
				   spate_hist_count_le(&h, (uint64_t)(le[i] * hz)));
		}
		snprintf(labels, sizeof(labels), "stage=\"%s\",le=\"+Inf\"", spated_lat_name(st));
		sample_u64(w, "spate_latency_seconds_bucket", labels, total);
		snprintf(labels, sizeof(labels), "stage=\"%s\"", spated_lat_name(st));
		sample_dbl(w, "spate_latency_seconds_sum", labels, spated_lat_seconds(h.sum));
		sample_u64(w, "spate_latency_seconds_count", labels, total);
	}
}

static void render_info(struct mw *w)
{
	struct spated_info in;
	char version[64], dpdk[96], labels[200];

	spated_info_get(&in);
	label_value(version, sizeof(version), in.version);
	label_value(dpdk, sizeof(dpdk), in.dpdk);
	snprintf(labels, sizeof(labels), "version=\"%s\",dpdk=\"%s\"", version, dpdk);
	/* OpenMetrics has an info type; the text format a gauge of 1 */
	if (w->om)
		fprintf(w->f, "# HELP spate_build spated's version and DPDK's.\n# TYPE spate_build "
			      "info\n");
	else
		family(w, "spate_build_info", "gauge", "spated's version and DPDK's.");
	sample_u64(w, "spate_build_info", labels, 1);
}

void metrics_render(FILE *f, bool om, const struct metrics_source *src)
{
	static struct blocks b; /* large: this thread's own */
	struct mw w = { f, om };

	read_blocks(&b);
	render_info(&w);
	render_gauges(&w, src);
	render_counters(&w, &b);
	render_ports(&w, src);
	render_latency(&w);
	if (om)
		fputs("# EOF\n", f);
}
