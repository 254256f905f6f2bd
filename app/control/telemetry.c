/* telemetry.c - the counters as DPDK telemetry commands, so the stock
 * client reads them without spatectl:
 *
 *   dpdk-telemetry.py -f spated      then   /spate/stats
 *
 * /spate/stats     every counter, summed over the lcores
 * /spate/errors    refused headers and messages by reason (hdr_*, msg_*)
 * /spate/journal   the journal's figures
 * /spate/info      version, DPDK version, uptime, subscriptions, clients
 * /spate/port      the ports' drops and the af_packet kernel ring's
 *                  (port_*, also in /spate/stats) and every non-zero xstat
 * /spate/latency   per stage (rx_to_matched, rx_to_tx): count and
 *                  p50/p90/p99/p999 (99.9%)/max/mean in nanoseconds (latency.h)
 * /spate/params    every setting spatectl names, with the value in force,
 *                  a dict per group: {"drt": {"alpha": "0.2", ...}, ...}
 *                  (/spate/params,NAME: that one); integers as numbers,
 *                  the rest as strings (DPDK 22.11 has no double)
 * Callbacks run on DPDK's telemetry thread and read the data plane's
 * plain counters without locks: aligned 64-bit loads, a value may be one
 * burst old, which is what a reader of counters expects. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "infra/counters.h"
#include "store/durable.h"
#include "main/info.h"
#include "infra/latency.h"
#include "net/port_stats.h"
#include "main/spated_log.h"
#include "control/control.h"
#include "control/ctl_params.h"
#include "control/telemetry.h"

static int tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct spated_counters sum;

	(void)cmd;
	(void)params;
	spated_counters_sum(&sum);
	rte_tel_data_start_dict(d);
#define TEL_COUNTER(name) rte_tel_data_add_dict_u64(d, #name, sum.name);
	SPATED_FOREACH_COUNTER(TEL_COUNTER)
#undef TEL_COUNTER
	return 0;
}

static int tel_errors(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct spated_counters sum;
	char key[64];

	(void)cmd;
	(void)params;
	spated_counters_sum(&sum);
	rte_tel_data_start_dict(d);
	for (int i = 1; i < SPATE_E__COUNT; i++) {
		snprintf(key, sizeof(key), "hdr_%s", spate_err_name(i));
		rte_tel_data_add_dict_u64(d, key, sum.hdr_err[i]);
		snprintf(key, sizeof(key), "msg_%s", spate_err_name(i));
		rte_tel_data_add_dict_u64(d, key, sum.msg_err[i]);
	}
	return 0;
}

static void tel_figure(void *ctx, const char *name, uint64_t v)
{
	rte_tel_data_add_dict_u64(ctx, name, v);
}

static int tel_journal(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	durable_figures(spated_durable, tel_figure, d);
	return 0;
}

static int tel_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct spated_info in;

	(void)cmd;
	(void)params;
	spated_info_get(&in);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", in.version);
	rte_tel_data_add_dict_string(d, "dpdk", in.dpdk);
	rte_tel_data_add_dict_u64(d, "uptime_s", (uint64_t)in.uptime_s);
	rte_tel_data_add_dict_u64(d, "subscriptions", in.subscriptions);
	rte_tel_data_add_dict_u64(d, "clients", in.clients);
	return 0;
}

/* Nanoseconds: telemetry's numbers are integers or plain doubles. */
static uint64_t ns(double s)
{
	return (uint64_t)(s * 1e9 + 0.5);
}

static int tel_latency(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static struct spate_hist h; /* the telemetry thread's own */

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	for (int st = 0; st < SPATED_LAT__COUNT; st++) {
		struct rte_tel_data *s = rte_tel_data_alloc();
		struct spated_lat_summary sum;
		char key[24];
		if (s == NULL)
			return -ENOMEM;
		spated_lat_sum(st, &h);
		spated_lat_summarize(&h, &sum);
		rte_tel_data_start_dict(s);
		rte_tel_data_add_dict_u64(s, "count", sum.count);
		for (int q = 0; q < SPATED_LAT_NQ; q++) {
			snprintf(key, sizeof(key), "%s_ns", spated_lat_qkey[q]);
			rte_tel_data_add_dict_u64(s, key, ns(sum.q_s[q]));
		}
		rte_tel_data_add_dict_u64(s, "max_ns", ns(sum.max_s));
		rte_tel_data_add_dict_u64(s, "mean_ns", ns(sum.mean_s));
		rte_tel_data_add_dict_container(d, spated_lat_name(st), s, 0);
	}
	return 0;
}

static void tel_xstat(void *ctx, const char *name, uint64_t v)
{
	rte_tel_data_add_dict_u64(ctx, name, v);
}

static int tel_port(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct spated_counters sum;

	(void)cmd;
	(void)params;
	spated_counters_sum(&sum);
	rte_tel_data_start_dict(d);
#define TEL_PORT(name) rte_tel_data_add_dict_u64(d, #name, sum.name);
	SPATED_FOREACH_PORT_COUNTER(TEL_PORT)
#undef TEL_PORT
	port_stats_xstats(tel_xstat, d);
	return 0;
}

/* One setting into d under `key` (its name after the group's dot). */
static int tel_add_param(struct rte_tel_data *d, const char *name, const char *key)
{
	char buf[256];

	if (control_param_get(name, buf, sizeof(buf)) != 0)
		return -EINVAL;
	if (!ctl_param_is_text(name) && buf[0] != '\0' && strspn(buf, "0123456789") == strlen(buf))
		return rte_tel_data_add_dict_u64(d, key, strtoull(buf, NULL, 10));
	if (!ctl_param_is_text(name) && buf[0] == '-' && buf[1] != '\0' &&
	    strspn(buf + 1, "0123456789") == strlen(buf + 1))
		return rte_tel_data_add_dict_int(d, key, atoi(buf));
	return rte_tel_data_add_dict_string(d, key, buf);
}

/* Telemetry's names allow no dot: a dict per group ("drt", "limits",
 * "journal", ...), each setting by its key in it. */
static int tel_params(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char name[96], group[96], other[96];

	(void)cmd;
	rte_tel_data_start_dict(d);
	for (size_t i = 0; ctl_param_name(i, false, name, sizeof(name)) != NULL; i++) {
		const char *dot = strchr(name, '.');
		if (dot == NULL || (params != NULL && params[0] != '\0' &&
				    strcmp(ctl_param_canonical(params), name) != 0))
			continue;
		snprintf(group, sizeof(group), "%.*s", (int)(dot - name), name);
		/* a group's first setting: its dict, with all of the group */
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = ctl_param_name(k, false, other, sizeof(other)) == NULL ||
				strncmp(other, name, (size_t)(dot - name) + 1) != 0 ||
				(params != NULL && params[0] != '\0');
		if (!first)
			continue;
		struct rte_tel_data *g = rte_tel_data_alloc();
		if (g == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(g);
		for (size_t k = i; ctl_param_name(k, false, other, sizeof(other)) != NULL; k++)
			if (strncmp(other, name, (size_t)(dot - name) + 1) == 0 &&
			    (params == NULL || params[0] == '\0' ||
			     strcmp(ctl_param_canonical(params), other) == 0))
				tel_add_param(g, other, other + (dot - name) + 1);
		rte_tel_data_add_dict_container(d, group, g, 0);
	}
	return 0;
}

void telemetry_register(void)
{
	if (rte_telemetry_register_cmd("/spate/stats", tel_stats,
				       "Spate counters and subscription count. No parameters") !=
		    0 ||
	    rte_telemetry_register_cmd(
		    "/spate/errors", tel_errors,
		    "Refused headers (hdr_*) and messages (msg_*) by reason. No parameters") != 0 ||
	    rte_telemetry_register_cmd("/spate/journal", tel_journal,
				       "Subscription journal figures. No parameters") != 0 ||
	    rte_telemetry_register_cmd("/spate/info", tel_info,
				       "Version, uptime, subscriptions, clients. No parameters") !=
		    0 ||
	    rte_telemetry_register_cmd("/spate/port", tel_port,
				       "The ports' drops and the kernel ring's (port_*), every "
				       "non-zero xstat (pN_name). No parameters") != 0 ||
	    rte_telemetry_register_cmd(
		    "/spate/latency", tel_latency,
		    "Latency per stage (rx_to_matched, rx_to_tx), ns. No parameters") != 0 ||
	    rte_telemetry_register_cmd("/spate/params", tel_params,
				       "Settings in force, as spatectl show params. Parameters: "
				       "none, or a setting's name") != 0)
		SPATED_LOG(WARNING, "telemetry: cannot register the /spate commands\n");
}
