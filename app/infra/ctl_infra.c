/* ctl_infra.c - spatectl's commands on the lcores and their counters:
 * show stats, show lcores, show latency, debug stall (ctl_cmd.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "control/ctl_cmd.h"
#include "infra/counters.h"
#include "infra/debug_stall.h"
#include "infra/latency.h"
#include "net/port_stats.h"
#include "store/durable.h"

static void out_counters(struct ctl_out *o, const struct spated_counters *c)
{
#define OUT_COUNTER(name) ctl_out_u64(o, #name, c->name);
	SPATED_FOREACH_COUNTER(OUT_COUNTER)
#undef OUT_COUNTER
	for (int m = 0; m < 2; m++) {
		const uint64_t *v = m ? c->msg_err : c->hdr_err;
		ctl_out_obj(o, m ? "msg_err" : "hdr_err");
		for (int i = 1; i < SPATE_E__COUNT; i++)
			if (v[i])
				ctl_out_u64(o, spate_err_name(i), v[i]);
		ctl_out_end(o);
	}
}

static void out_figure(void *ctx, const char *name, uint64_t v)
{
	ctl_out_u64(ctx, name, v);
}

static int cmd_show_stats(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	(void)err;
	(void)errlen;
	/* The totals, then each lcore's own block (read without locks:
	 * every counter is some recent value, counters.h). */
	struct spated_counters sum;
	unsigned int l;
	spated_counters_sum(&sum);
	ctl_out_obj(o, "total");
	out_counters(o, &sum);
	ctl_out_end(o);
	ctl_out_obj(o, "lcores");
	RTE_LCORE_FOREACH (l) {
		char id[16];
		snprintf(id, sizeof(id), "%u", l);
		ctl_out_obj(o, id);
		out_counters(o, &spated_cnt_slots[l].c);
		ctl_out_end(o);
	}
	ctl_out_end(o);
	if (r->t->matcher != NULL)
		ctl_out_u64(o, "subscriptions", spate_matcher_sub_count(r->t->matcher));
	ctl_out_obj(o, "port_xstats"); /* the port_* counters are in the totals */
	port_stats_xstats(out_figure, o);
	ctl_out_end(o);
	ctl_out_obj(o, "journal");
	durable_figures(spated_durable, out_figure, o);
	ctl_out_end(o);
	return 0;
}

static int cmd_show_lcores(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	unsigned int l;

	(void)r;
	(void)err;
	(void)errlen;
	ctl_out_arr(o, "lcores");
	RTE_LCORE_FOREACH (l) {
		ctl_out_obj(o, NULL);
		ctl_out_u64(o, "lcore", l);
		ctl_out_u64(o, "socket", rte_lcore_to_socket_id(l));
		if (l == r->t->dp_lcore)
			ctl_out_str(o, "runs",
				    r->t->matcher ? "cluster stage, control requests"
						  : "link stage, control requests");
		ctl_out_u64(o, "polls", spated_cnt_slots[l].c.polls);
		ctl_out_u64(o, "busy_polls", spated_cnt_slots[l].c.busy_polls);
		ctl_out_u64(o, "busy_cycles", spated_cnt_slots[l].c.busy_cycles);
		ctl_out_end(o);
	}
	ctl_out_end(o);
	return 0;
}

/* Fault injection for tests: refused unless spated.debug_hooks. */
static int cmd_debug_stall(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	char *end;

	if (!r->t->conf->debug_hooks) {
		snprintf(err, errlen,
			 "debug hooks are off (spated.debug_hooks = true enables them)");
		return -1;
	}
	unsigned long w = strtoul(r->argv[0], &end, 10);
	if (*end != '\0' || end == r->argv[0] || w >= r->t->conf->lcores.n_match) {
		snprintf(err, errlen, "WORKER must be a matching worker, 0 to %u",
			 r->t->conf->lcores.n_match - 1);
		return -1;
	}
	unsigned long ms = strtoul(r->argv[1], &end, 10);
	if (*end != '\0' || end == r->argv[1] || ms < 1 || ms > DEBUG_STALL_MS_MAX) {
		snprintf(err, errlen, "MS must be 1 to %u", DEBUG_STALL_MS_MAX);
		return -1;
	}
	debug_stall_arm((uint32_t)w, (uint32_t)ms);
	ctl_out_u64(o, "worker", w);
	ctl_out_u64(o, "stall_ms", ms);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Commands run on the control thread.                                */

/* The latency histograms (latency.h) as they were at the last `show
 * latency --window`: the next one shows what came since. */
static struct spate_hist lat_mark[SPATED_LAT__COUNT], lat_now, lat_win;

static int cmd_show_latency(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	bool window = r->argc == 1 && strcmp(r->argv[0], "--window") == 0;

	if (r->argc == 1 && !window) {
		snprintf(err, errlen, "unknown option '%s' (--window)", r->argv[0]);
		return -1;
	}
	for (int st = 0; st < SPATED_LAT__COUNT; st++) {
		struct spated_lat_summary s;
		spated_lat_sum(st, &lat_now);
		if (window) {
			spate_hist_sub(&lat_win, &lat_now, &lat_mark[st]);
			lat_mark[st] = lat_now;
		}
		spated_lat_summarize(window ? &lat_win : &lat_now, &s);
		ctl_out_obj(o, spated_lat_name(st));
		ctl_out_u64(o, "count", s.count);
		for (int q = 0; q < SPATED_LAT_NQ; q++) {
			char key[16];
			snprintf(key, sizeof(key), "%s_us", spated_lat_qname[q]);
			ctl_out_dbl(o, key, round(s.q_s[q] * 1e7) / 10);
		}
		ctl_out_dbl(o, "max_us", round(s.max_s * 1e7) / 10);
		ctl_out_dbl(o, "mean_us", round(s.mean_s * 1e7) / 10);
		ctl_out_end(o);
	}
	return 0;
}

static struct ctl_cmd show_stats_cmd = {
	.path = "show stats",
	.usage = "show stats",
	.help = "counters per lcore and per reason, journal figures",
	.fn = cmd_show_stats,
	.on_dp = true,
	.rank = CTL_RANK_STATS,
};
CTL_COMMAND(show_stats_cmd)

static struct ctl_cmd show_lcores_cmd = {
	.path = "show lcores",
	.usage = "show lcores",
	.help = "lcores, their roles and polls",
	.fn = cmd_show_lcores,
	.on_dp = true,
	.rank = CTL_RANK_LCORES,
};
CTL_COMMAND(show_lcores_cmd)

/* On the control thread: the histograms are read without locks. */
static struct ctl_cmd show_latency_cmd = {
	.path = "show latency",
	.max_args = 1,
	.usage = "show latency [--window]",
	.help = "RX to matched and RX to transmit: count, p50, p90, p99, p99.9, max, mean (us), "
		"since start or the last --window",
	.fn = cmd_show_latency,
	.rank = CTL_RANK_LATENCY,
};
CTL_COMMAND(show_latency_cmd)

/* On the control thread: the worker it stalls may be the data plane's. */
static struct ctl_cmd debug_stall_cmd = {
	.path = "debug stall",
	.min_args = 2,
	.max_args = 2,
	.usage = "debug stall WORKER MS",
	.help = "test hook: the matching worker stops (no RCU quiescent state) for MS ms; needs "
		"spated.debug_hooks",
	.fn = cmd_debug_stall,
	.rank = CTL_RANK_DEBUG,
};
CTL_COMMAND(debug_stall_cmd)
