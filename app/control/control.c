/* control.c - the control socket, its thread, the request ring to the data
 * plane and the command table (control.h). Each command is one row:
 * words, argument count, usage, help, handler, and where it runs (the
 * data-plane lcore for anything touching its state, the control thread
 * for `save` and `help`). */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <libconfig.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "cluster/access.h"
#include "control/control.h"
#include "control/control_perm.h"
#include "infra/counters.h"
#include "link/ctl_cluster.h"
#include "control/ctl_out.h"
#include "control/ctl_params.h"
#include "infra/debug_stall.h"
#include "store/durable.h"
#include "main/info.h"
#include "infra/latency.h"
#include "net/port_stats.h"
#include "main/spated_log.h"

#define REQ_LINE_MAX 1024
#define ARGS_MAX 16
#define OVERRIDES_MAX 128

struct ctl_req {
	char line[REQ_LINE_MAX];
	int argc; /* words after the command's own */
	char *argv[ARGS_MAX];
	const struct command *cmd;
	bool json;
	/* the answer */
	int status; /* 0 ok, -1 error (message in out) */
	char *out;
	size_t out_len;
};

typedef int (*cmd_fn)(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen);

struct command {
	const char *words; /* "show stats" */
	int min_args, max_args;
	const char *usage;
	const char *help;
	cmd_fn fn;
	bool on_dp;      /* runs on the data-plane lcore */
	bool clustering; /* needs the cluster stage's matcher: not on a match host */
};

static struct control_target tgt;
static struct rte_ring *req_ring, *rsp_ring;
static pthread_t ctl_thread;
static atomic_bool ctl_stop;
static bool ctl_running;
static int listen_fd = -1;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
/* `set`s that succeeded, for `save` (control thread only). */
static struct {
	char name[64];
	char value[256];
} overrides[OVERRIDES_MAX];
static int n_overrides;

/* ---------------------------------------------------------------- */
/* Settings by name: the parameter table (ctl_params.h).              */

static const char *canonical(const char *name)
{
	return ctl_param_canonical(name);
}

static int param_get(const char *name, char *buf, size_t len)
{
	return ctl_param_get(&tgt, name, buf, len);
}

int control_param_get(const char *name, char *buf, size_t len)
{
	return tgt.conf != NULL ? param_get(name, buf, len) : -1;
}

/* A setting's value: typed in JSON (a number, a boolean), except the
 * text ones (paths, names, modes, choices) whatever they look like. */
static void out_setting(struct ctl_out *o, const char *name, const char *value)
{
	if (ctl_param_is_text(canonical(name)))
		ctl_out_str(o, name, value);
	else
		ctl_out_value(o, name, value);
}

/* ---------------------------------------------------------------- */
/* Commands run on the data plane.                                    */

static int cmd_get(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	char buf[256];

	if (param_get(r->argv[0], buf, sizeof(buf)) != 0) {
		snprintf(err, errlen, "unknown setting '%s' (spatectl show params lists them)",
			 r->argv[0]);
		return -1;
	}
	out_setting(o, canonical(r->argv[0]), buf);
	return 0;
}

static int cmd_set(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	char buf[256];

	if (param_get(r->argv[0], buf, sizeof(buf)) != 0) {
		snprintf(err, errlen, "unknown setting '%s' (spatectl show params lists them)",
			 r->argv[0]);
		return -1;
	}
	if (ctl_param_set(&tgt, r->argv[0], r->argv[1], err, errlen) != 0)
		return -1;
	param_get(r->argv[0], buf, sizeof(buf)); /* read back what is in force */
	out_setting(o, canonical(r->argv[0]), buf);
	return 0;
}

static int cmd_show_params(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	(void)err;
	(void)errlen;
	char name[96], buf[256];
	for (size_t i = 0; ctl_param_name(i, false, name, sizeof(name)) != NULL; i++)
		if (param_get(name, buf, sizeof(buf)) == 0)
			out_setting(o, name, buf);
	return 0;
}

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
	if (tgt.matcher != NULL)
		ctl_out_u64(o, "subscriptions", spate_matcher_sub_count(tgt.matcher));
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
		if (l == tgt.dp_lcore)
			ctl_out_str(o, "runs",
				    tgt.matcher ? "cluster stage, control requests"
						: "link stage, control requests");
		ctl_out_u64(o, "polls", spated_cnt_slots[l].c.polls);
		ctl_out_u64(o, "busy_polls", spated_cnt_slots[l].c.busy_polls);
		ctl_out_u64(o, "busy_cycles", spated_cnt_slots[l].c.busy_cycles);
		ctl_out_end(o);
	}
	ctl_out_end(o);
	return 0;
}

struct cat_list {
	struct spate_category_info *v;
	size_t n, cap;
	bool oom;
};

static void collect_cat(void *ctx, const struct spate_category_info *ci)
{
	struct cat_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct spate_category_info *v = realloc(l->v, cap * sizeof(*v));
		if (v == NULL) {
			l->oom = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *ci;
}

static int by_size(const void *a, const void *b)
{
	const struct spate_category_info *x = a, *y = b;

	if (x->n_subs != y->n_subs)
		return x->n_subs < y->n_subs ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

static int get_cats(struct cat_list *l, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	if (spate_matcher_categories(tgt.matcher, collect_cat, l) != 0) {
		snprintf(err, errlen, "engine %s has no categories (engine = \"drt\" has)",
			 spate_matcher_engine_name(tgt.matcher));
		return -1;
	}
	if (l->oom) {
		free(l->v);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* A number argument after a flag: --top N, --worker W, --page P. */
static int flag_value(struct ctl_req *r, const char *flag, long def, long *out, char *err,
		      size_t errlen)
{
	*out = def;
	for (int i = 0; i < r->argc; i++) {
		if (strcmp(r->argv[i], flag) != 0)
			continue;
		char *end;
		if (i + 1 >= r->argc || (*out = strtol(r->argv[i + 1], &end, 10), *end != '\0') ||
		    *out < 0) {
			snprintf(err, errlen, "%s needs a number >= 0", flag);
			return -1;
		}
	}
	return 0;
}

static int cmd_show_categories(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	struct cat_list l;
	long top, worker, page;

	for (int i = 0; i < r->argc; i += 2)
		if (strcmp(r->argv[i], "--top") != 0 && strcmp(r->argv[i], "--worker") != 0 &&
		    strcmp(r->argv[i], "--page") != 0) {
			snprintf(err, errlen, "unknown option '%s' (--top N, --worker W, --page P)",
				 r->argv[i]);
			return -1;
		}
	if (flag_value(r, "--top", 50, &top, err, errlen) ||
	    flag_value(r, "--worker", -1, &worker, err, errlen) ||
	    flag_value(r, "--page", 0, &page, err, errlen) || get_cats(&l, err, errlen))
		return -1;
	qsort(l.v, l.n, sizeof(*l.v), by_size);
	size_t matching = 0, shown = 0, skip = (size_t)(page * top);
	ctl_out_arr(o, "categories");
	for (size_t i = 0; i < l.n; i++) {
		const struct spate_category_info *c = &l.v[i];
		if (worker >= 0 && c->worker != (uint32_t)worker)
			continue;
		if (matching++ < skip || shown >= (size_t)top)
			continue;
		shown++;
		ctl_out_obj(o, NULL);
		ctl_out_u64(o, "id", c->id);
		ctl_out_u64(o, "worker", c->worker);
		ctl_out_u64(o, "subs", c->n_subs);
		ctl_out_dbl(o, "min_lon", c->mbr.min_lon / 1e7);
		ctl_out_dbl(o, "min_lat", c->mbr.min_lat / 1e7);
		ctl_out_dbl(o, "max_lon", c->mbr.max_lon / 1e7);
		ctl_out_dbl(o, "max_lat", c->mbr.max_lat / 1e7);
		ctl_out_u64(o, "events", c->events);
		ctl_out_u64(o, "inserts", c->inserts);
		ctl_out_u64(o, "deletes", c->deletes);
		ctl_out_end(o);
	}
	ctl_out_end(o);
	ctl_out_u64(o, "total", matching);
	ctl_out_u64(o, "page", (uint64_t)page);
	ctl_out_u64(o, "shown", shown);
	free(l.v);
	return 0;
}

static int cmd_show_placement(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	struct cat_list l;
	uint32_t workers = spate_matcher_get_conf(tgt.matcher)->params.drt.workers;

	(void)r;
	if (get_cats(&l, err, errlen))
		return -1;
	ctl_out_arr(o, "workers");
	for (uint32_t w = 0; w < workers; w++) {
		uint64_t cats = 0, subs = 0, events = 0;
		for (size_t i = 0; i < l.n; i++)
			if (l.v[i].worker == w) {
				cats++;
				subs += l.v[i].n_subs;
				events += l.v[i].events;
			}
		ctl_out_obj(o, NULL);
		ctl_out_u64(o, "worker", w);
		ctl_out_u64(o, "categories", cats);
		ctl_out_u64(o, "subs", subs);
		ctl_out_u64(o, "events", events);
		ctl_out_end(o);
	}
	ctl_out_end(o);
	free(l.v);
	return 0;
}

static int cmd_show_subs(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	if (r->argc > 0 && strcmp(r->argv[0], "--count") != 0) {
		snprintf(err, errlen, "only 'show subs --count' is supported");
		return -1;
	}
	const struct spate_matcher_conf *mc = spate_matcher_get_conf(tgt.matcher);
	ctl_out_u64(o, "count", spate_matcher_sub_count(tgt.matcher));
	ctl_out_u64(o, "max_subs", mc->max_subs);
	ctl_out_u64(o, "max_subs_per_client", mc->max_subs_per_client);
	return 0;
}

/* The ports in use, whether configured by name or probed by the EAL:
 * DPDK's name (PCI address or vdev), driver and MAC. */
static void out_ports(struct ctl_out *o)
{
	ctl_out_arr(o, "ports");
	for (uint16_t i = 0; i < tgt.n_ports; i++) {
		char name[RTE_ETH_NAME_MAX_LEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
		struct rte_eth_dev_info info;
		struct rte_ether_addr ea;
		ctl_out_obj(o, NULL);
		ctl_out_u64(o, "port", tgt.ports[i]);
		if (rte_eth_dev_get_name_by_port(tgt.ports[i], name) == 0)
			ctl_out_str(o, "name", name);
		if (rte_eth_dev_info_get(tgt.ports[i], &info) == 0 && info.driver_name != NULL)
			ctl_out_str(o, "driver", info.driver_name);
		if (rte_eth_macaddr_get(tgt.ports[i], &ea) == 0) {
			rte_ether_format_addr(mac, sizeof(mac), &ea);
			ctl_out_str(o, "mac", mac);
		}
		ctl_out_end(o);
	}
	ctl_out_end(o);
}

static int cmd_show_config(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	const struct spated_conf *c = tgt.conf;
	char buf[256], ip[24], name[96];

	(void)r;
	(void)err;
	(void)errlen;
	ctl_out_str(o, "file", tgt.conf_path ? tgt.conf_path : "(defaults)");
	ctl_out_str(o, "role", host_conf_role_name(c->hosts.role));
	if (tgt.matcher != NULL)
		ctl_out_str(o, "engine", spate_matcher_engine_name(tgt.matcher));
	ctl_out_obj(o, "spated");
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", c->ipv4 >> 24, (c->ipv4 >> 16) & 255,
		 (c->ipv4 >> 8) & 255, c->ipv4 & 255);
	if (c->prefix_len >= 0)
		snprintf(ip + strlen(ip), sizeof(ip) - strlen(ip), "/%d", c->prefix_len);
	ctl_out_str(o, "ipv4", ip);
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", c->gateway >> 24, (c->gateway >> 16) & 255,
		 (c->gateway >> 8) & 255, c->gateway & 255);
	ctl_out_str(o, "gateway", c->gateway ? ip : "none");
	ctl_out_u64(o, "udp_port", c->udp_port);
	ctl_out_u64(o, "mtu", c->mtu);
	ctl_out_u64(o, "mbufs", c->mbufs);
	ctl_out_u64(o, "rx_desc", c->rx_desc);
	ctl_out_u64(o, "tx_desc", c->tx_desc);
	ctl_out_arr(o, "devices");
	for (uint32_t d = 0; d < c->n_devices; d++)
		ctl_out_str(o, NULL, c->devices[d]);
	ctl_out_end(o);
	out_ports(o);
	ctl_out_end(o);
	ctl_out_obj(o, "settings");
	/* every name spatectl knows, each once */
	for (size_t i = 0; ctl_param_name(i, true, name, sizeof(name)) != NULL; i++)
		if (param_get(name, buf, sizeof(buf)) == 0)
			out_setting(o, name, buf);
	ctl_out_u64(o, "access.keys", c->ops.n_keys); /* how many, never the keys */
	ctl_out_end(o);
	return 0;
}

/* Runs on the control thread: it answers even when the data plane is
 * stuck (the figures are plain loads, info.h). */
static int cmd_show_version(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	struct spated_info in;

	(void)r;
	(void)err;
	(void)errlen;
	spated_info_get(&in);
	ctl_out_str(o, "version", in.version);
	ctl_out_str(o, "dpdk", in.dpdk);
	ctl_out_dbl(o, "uptime_s", in.uptime_s);
	ctl_out_u64(o, "subscriptions", in.subscriptions);
	ctl_out_u64(o, "clients", in.clients);
	return 0;
}

static int cmd_rebalance(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	if (spate_matcher_rebalance(tgt.matcher) != 0) {
		snprintf(err, errlen, "engine %s does not balance (engine = \"drt\" does)",
			 spate_matcher_engine_name(tgt.matcher));
		return -1;
	}
	ctl_out_str(o, "rebalance", "done");
	return 0;
}

static int cmd_compact(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	if (spated_durable == NULL) {
		snprintf(err, errlen, "no journal configured (journal.path)");
		return -1;
	}
	int rc = durable_compact(spated_durable);
	if (rc != 0) {
		snprintf(err, errlen, "compaction failed: %s", strerror(-rc));
		return -1;
	}
	ctl_out_u64(o, "subscriptions", spate_matcher_sub_count(tgt.matcher));
	return 0;
}

/* Fault injection for tests: refused unless spated.debug_hooks. */
static int cmd_debug_stall(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	char *end;

	if (!tgt.conf->debug_hooks) {
		snprintf(err, errlen,
			 "debug hooks are off (spated.debug_hooks = true enables them)");
		return -1;
	}
	unsigned long w = strtoul(r->argv[0], &end, 10);
	if (*end != '\0' || end == r->argv[0] || w >= tgt.conf->lcores.n_match) {
		snprintf(err, errlen, "WORKER must be a matching worker, 0 to %u",
			 tgt.conf->lcores.n_match - 1);
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

static int cmd_help(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen);

static int cmd_show_cluster(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	return ctl_show_cluster(tgt.link, tgt.dir, o, err, errlen);
}

static int cmd_save(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	const char *path = tgt.conf->ops.overrides_path;
	char tmp[300];
	config_t cfg;
	int rc = 0;

	(void)r;
	if (path[0] == '\0') {
		snprintf(err, errlen, "no overrides file configured (control.overrides)");
		return -1;
	}
	config_init(&cfg);
	for (int i = 0; i < n_overrides && rc == 0; i++)
		rc = ctl_param_save(&cfg, overrides[i].name, overrides[i].value);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* Written aside and renamed: the next start reads a whole file. */
	if (rc == 0 && config_write_file(&cfg, tmp) != CONFIG_TRUE)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	config_destroy(&cfg);
	if (rc != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	ctl_out_str(o, "file", path);
	ctl_out_u64(o, "settings", (uint64_t)n_overrides);
	return 0;
}

/* Remember a successful set for `save` (last value of a name wins). */
static void record_override(const char *name, const char *value)
{
	int i;

	for (i = 0; i < n_overrides; i++)
		if (strcmp(overrides[i].name, name) == 0)
			break;
	if (i == OVERRIDES_MAX)
		return;
	if (i == n_overrides)
		n_overrides++;
	snprintf(overrides[i].name, sizeof(overrides[i].name), "%s", name);
	snprintf(overrides[i].value, sizeof(overrides[i].value), "%s", value);
}

static const struct command commands[] = {
	{ "show stats", 0, 0, "show stats", "counters per lcore and per reason, journal figures",
	  cmd_show_stats, true },
	{ "show categories", 0, 6, "show categories [--top N] [--worker W] [--page P]",
	  "the engine's categories, largest first, N a page (default 50)", cmd_show_categories,
	  true, true },
	{ "show lcores", 0, 0, "show lcores", "lcores, their roles and polls", cmd_show_lcores,
	  true },
	{ "show placement", 0, 0, "show placement", "categories and subscriptions per worker",
	  cmd_show_placement, true, true },
	{ "show cluster", 0, 0, "show cluster",
	  "multi-host: this host, every peer (role, state, epoch, categories) and its channel "
	  "(RTT, retransmits)",
	  cmd_show_cluster, true },
	{ "show config", 0, 0, "show config", "the configuration in force, settings included",
	  cmd_show_config, true },
	{ "show version", 0, 0, "show version",
	  "spated's and DPDK's versions, uptime, subscriptions, clients", cmd_show_version, false },
	{ "show subs", 0, 1, "show subs --count", "how many subscriptions, and the quotas",
	  cmd_show_subs, true, true },
	{ "show params", 0, 0, "show params",
	  "every setting get and set name, with the value running (docs/parameters.md)",
	  cmd_show_params, true },
	{ "show latency", 0, 1, "show latency [--window]",
	  "RX to matched and RX to transmit: count, p50, p90, p99, p99.9, max, mean (us), since "
	  "start or the last --window",
	  cmd_show_latency, false },
	{ "get", 1, 1, "get NAME", "one setting's value", cmd_get, true },
	{ "set", 2, 2, "set NAME VALUE",
	  "change a setting now (validated; the value in force is printed back)", cmd_set, true,
	  true },
	{ "rebalance now", 0, 0, "rebalance now", "end the load period: balance the workers now",
	  cmd_rebalance, true, true },
	{ "journal compact", 0, 0, "journal compact", "rewrite the journal as a snapshot now",
	  cmd_compact, true, true },
	{ "debug stall", 2, 2, "debug stall WORKER MS",
	  "test hook: the matching worker stops (no RCU quiescent state) for MS ms; needs "
	  "spated.debug_hooks",
	  cmd_debug_stall, false },
	{ "save", 0, 0, "save",
	  "write the settings changed by `set` to control.overrides, read at the next start",
	  cmd_save, false, true },
	{ "help", 0, 0, "help", "this list", cmd_help, false },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static int cmd_help(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	(void)err;
	(void)errlen;
	for (size_t i = 0; i < N_COMMANDS; i++)
		ctl_out_str(o, commands[i].usage, commands[i].help);
	return 0;
}

/* Run a parsed request into r->out / r->status (either thread). */
static void run(struct ctl_req *r)
{
	char err[512] = "";
	struct ctl_out o;
	size_t len = 0;
	FILE *f = open_memstream(&r->out, &len);

	if (f == NULL) {
		r->status = -1;
		r->out = NULL;
		return;
	}
	ctl_out_init(&o, f, r->json);
	r->status = r->cmd->fn(r, &o, err, sizeof(err));
	if (r->status != 0) {
		/* The error replaces whatever was half printed. */
		fclose(f);
		free(r->out);
		f = open_memstream(&r->out, &len);
		if (f == NULL) {
			r->out = NULL;
			return;
		}
		fprintf(f, "%s\n", err);
	} else {
		ctl_out_finish(&o);
	}
	fclose(f);
	r->out_len = len;
}

void control_poll(void)
{
	struct ctl_req *r;

	if (req_ring == NULL || rte_ring_sc_dequeue(req_ring, (void **)&r) != 0)
		return;
	run(r);
	/* The ring has room: one request is in flight at a time. */
	rte_ring_sp_enqueue(rsp_ring, r);
}

/* ---------------------------------------------------------------- */
/* The control thread: socket, parsing, hand-off.                     */

/* Split the line, find the command. 0, or -1 with the reason in err. */
static int parse(struct ctl_req *r, char *err, size_t errlen)
{
	char *words[ARGS_MAX + 4];
	int n = 0;

	for (char *save = NULL, *w = strtok_r(r->line, " \t\r\n", &save);
	     w != NULL && n < ARGS_MAX + 4; w = strtok_r(NULL, " \t\r\n", &save))
		words[n++] = w;
	int first = 0;
	if (n > 0 && strcmp(words[0], "json") == 0) {
		r->json = true;
		first = 1;
	}
	for (size_t c = 0; c < N_COMMANDS; c++) {
		char copy[64];
		int k = 0, match = 1;
		snprintf(copy, sizeof(copy), "%s", commands[c].words);
		for (char *save = NULL, *w = strtok_r(copy, " ", &save); w;
		     w = strtok_r(NULL, " ", &save), k++)
			if (first + k >= n || strcmp(words[first + k], w) != 0)
				match = 0;
		if (!match)
			continue;
		r->cmd = &commands[c];
		r->argc = n - first - k;
		for (int i = 0; i < r->argc && i < ARGS_MAX; i++)
			r->argv[i] = words[first + k + i];
		if (r->argc < commands[c].min_args || r->argc > commands[c].max_args) {
			snprintf(err, errlen, "usage: %s", commands[c].usage);
			return -1;
		}
		if (commands[c].clustering && tgt.matcher == NULL) {
			snprintf(err, errlen,
				 "'%s': not on a match host (no clustering here: ask a front)",
				 commands[c].words);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown command (spatectl help lists them)");
	return -1;
}

/* Connections. Each client gets CTL_READ_MS from its connect to send its
 * line and CTL_WRITE_MS to take the answer; at most CTL_CLIENTS_MAX are
 * served at once and one more is told "busy" at once. Sockets are
 * non-blocking and every send is MSG_NOSIGNAL, so a slow, idle or vanished
 * client costs the thread nothing but a slot until its deadline, and
 * never a signal. The data plane sees one request at a time, in arrival
 * order. */
#define CTL_CLIENTS_MAX 16
#define CTL_READ_MS 5000
#define CTL_WRITE_MS 5000
#define CTL_DP_MS 10000 /* a data plane that answers later is stuck */

enum conn_state { CONN_FREE, CONN_READ, CONN_QUEUED, CONN_DP, CONN_WRITE };

struct conn {
	enum conn_state state;
	int fd;
	uint64_t deadline; /* ms (monotonic) when the current state ends */
	uint64_t seq;      /* arrival order, for the data plane's queue */
	size_t got;        /* request bytes read */
	struct ctl_req *r;
	char set_name[64]; /* what a `set` names, for `save` */
	char *ans;         /* "ok\n" or "error\n", then the body */
	size_t ans_len, ans_off;
};

static struct conn conns[CTL_CLIENTS_MAX];
static struct ctl_req *dp_req; /* on the data plane now, or NULL */
static struct conn *dp_conn;   /* whose it is; NULL once given up on */
static uint64_t conn_seq;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void req_free(struct ctl_req *r)
{
	if (r != NULL)
		free(r->out);
	free(r);
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	if (c->r != NULL && c->r == dp_req)
		dp_conn = NULL; /* the data plane still holds it: freed on return */
	else
		req_free(c->r);
	free(c->ans);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Send what the socket takes now. 1 done, 0 more to send, -1 gone. */
static int conn_flush(struct conn *c)
{
	while (c->ans_off < c->ans_len) {
		ssize_t w = send(c->fd, c->ans + c->ans_off, c->ans_len - c->ans_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0)
			return -1;
		c->ans_off += (size_t)w;
	}
	return 1;
}

/* Send what can be sent now; close when done or gone. */
static void conn_write(struct conn *c)
{
	int rc = conn_flush(c);

	if (rc < 0)
		spated_cnt.ctl_hangups++; /* EPIPE, ECONNRESET: it left first */
	if (rc != 0)
		conn_close(c);
}

/* The answer: the status line, then the body; sending starts at once. */
static void conn_answer(struct conn *c, bool ok, const char *body, size_t len)
{
	const char *status = ok ? "ok\n" : "error\n";
	size_t sl = strlen(status);

	c->ans = malloc(sl + len);
	if (c->ans == NULL) {
		conn_close(c);
		return;
	}
	memcpy(c->ans, status, sl);
	if (len > 0)
		memcpy(c->ans + sl, body, len);
	c->ans_len = sl + len;
	c->ans_off = 0;
	c->state = CONN_WRITE;
	c->deadline = now_ms() + CTL_WRITE_MS;
	conn_write(c);
}

static void conn_error(struct conn *c, const char *msg)
{
	char line[300];
	int n = snprintf(line, sizeof(line), "%s\n", msg);

	conn_answer(c, false, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* A request has run (here or on the data plane): answer it. */
static void conn_done(struct conn *c)
{
	struct ctl_req *r = c->r;

	c->r = NULL; /* answering may close c */
	if (r->status == 0 && c->set_name[0] != '\0') {
		/* The read-back value, as printed ("name: value" or JSON). */
		char buf[256];
		if (param_get(c->set_name, buf, sizeof(buf)) == 0) /* racy read of a scalar: fine */
			record_override(c->set_name, buf);
		SPATED_LOG(NOTICE, "control: set %s = %s\n", c->set_name, buf);
	}
	if (r->out == NULL)
		conn_error(c, "out of memory");
	else
		conn_answer(c, r->status == 0, r->out, r->out_len);
	req_free(r);
}

/* The line is in: parse it, run it here or queue it for the data plane. */
static void conn_request(struct conn *c)
{
	struct ctl_req *r = c->r;
	char err[256];

	if (parse(r, err, sizeof(err)) != 0) {
		conn_error(c, err);
		return;
	}
	/* Remember what `set` names before the words are consumed. */
	if (r->cmd->fn == cmd_set)
		snprintf(c->set_name, sizeof(c->set_name), "%s", canonical(r->argv[0]));
	if (!r->cmd->on_dp) {
		run(r);
		conn_done(c);
		return;
	}
	c->state = CONN_QUEUED;
	c->seq = conn_seq++;
	c->deadline = now_ms() + CTL_DP_MS;
}

static void conn_read(struct conn *c)
{
	char *line = c->r->line;
	ssize_t n = recv(c->fd, line + c->got, REQ_LINE_MAX - 1 - c->got, MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		/* The peer ended its side: what came is the request, if any. */
		if (c->got > 0)
			conn_request(c);
		else
			conn_close(c);
		return;
	}
	c->got += (size_t)n;
	line[c->got] = '\0';
	if (memchr(line, '\n', c->got) != NULL)
		conn_request(c);
	else if (c->got == REQ_LINE_MAX - 1)
		conn_error(c, "request line too long (at most 1023 bytes)");
}

static void conn_accept(void)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		struct conn *c = NULL;
		for (int i = 0; i < CTL_CLIENTS_MAX && c == NULL; i++)
			if (conns[i].state == CONN_FREE)
				c = &conns[i];
		struct ctl_req *r = c ? calloc(1, sizeof(*r)) : NULL;
		if (r == NULL) {
			char busy[100];
			int n = snprintf(
				busy, sizeof(busy),
				"error\nbusy: %d control clients are connected; try again\n",
				CTL_CLIENTS_MAX);
			spated_cnt.ctl_busy++;
			(void)send(fd, busy, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
			/* A request already queued, closed unread, turns the
			 * client's next read into ECONNRESET (AF_UNIX): its
			 * read after "busy" should be the end, not an error. */
			char sink[512];
			for (int k = 0; k < 8 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0;
			     k++)
				;
			close(fd);
			continue;
		}
		spated_cnt.ctl_clients++;
		*c = (struct conn){
			.state = CONN_READ, .fd = fd, .r = r, .deadline = now_ms() + CTL_READ_MS
		};
	}
}

/* The data plane's side: collect its answer, hand it the next request. */
static void conn_data_plane(uint64_t now)
{
	struct ctl_req *back;

	while (rte_ring_sc_dequeue(rsp_ring, (void **)&back) == 0) {
		if (back != dp_req) { /* cannot happen: one in flight at a time */
			req_free(back);
			continue;
		}
		dp_req = NULL;
		if (dp_conn == NULL) { /* given up on, or its client left */
			req_free(back);
			continue;
		}
		conn_done(dp_conn);
		dp_conn = NULL;
	}
	if (dp_req != NULL && dp_conn != NULL && now >= dp_conn->deadline) {
		/* Left to the data plane, which frees nothing: freed when it
		 * answers. */
		struct conn *c = dp_conn;
		dp_conn = NULL;
		c->r = NULL;
		spated_cnt.ctl_timeouts++;
		conn_error(c, "the data plane did not answer within 10 s");
	}
	if (dp_req != NULL)
		return;
	struct conn *next = NULL;
	for (int i = 0; i < CTL_CLIENTS_MAX; i++)
		if (conns[i].state == CONN_QUEUED && (next == NULL || conns[i].seq < next->seq))
			next = &conns[i];
	if (next == NULL)
		return;
	if (rte_ring_sp_enqueue(req_ring, next->r) != 0) {
		conn_error(next, "busy");
		return;
	}
	next->state = CONN_DP;
	dp_req = next->r;
	dp_conn = next;
}

/* Deadlines of clients still reading, queued or being written to. */
static void conn_deadlines(uint64_t now)
{
	for (int i = 0; i < CTL_CLIENTS_MAX; i++) {
		struct conn *c = &conns[i];
		if (c->state == CONN_FREE || c->state == CONN_DP || now < c->deadline)
			continue;
		spated_cnt.ctl_timeouts++;
		if (c->state == CONN_READ)
			conn_error(c, "timed out: no whole request line within 5 s");
		else if (c->state == CONN_QUEUED)
			conn_error(c, "the data plane did not answer within 10 s");
		else
			conn_close(c); /* it does not take its answer */
	}
}

static void *control_main(void *arg)
{
	struct pollfd p[1 + CTL_CLIENTS_MAX];
	struct conn *pc[1 + CTL_CLIENTS_MAX];

	(void)arg;
	for (int i = 0; i < CTL_CLIENTS_MAX; i++)
		conns[i].fd = -1;
	/* accept until EAGAIN: a client gone between poll and accept must not
	 * block the thread */
	fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK);
	while (!atomic_load(&ctl_stop)) {
		int n = 0;
		uint64_t now = now_ms(), wake = now + 200;
		p[n] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
		pc[n++] = NULL;
		for (int i = 0; i < CTL_CLIENTS_MAX; i++) {
			struct conn *c = &conns[i];
			if (c->state == CONN_FREE)
				continue;
			if (c->deadline < wake)
				wake = c->deadline;
			if (c->state != CONN_READ && c->state != CONN_WRITE)
				continue;
			p[n] = (struct pollfd){ .fd = c->fd,
						.events =
							c->state == CONN_READ ? POLLIN : POLLOUT };
			pc[n++] = c;
		}
		/* The data plane answers within a loop iteration: look often
		 * while it has a request. */
		struct timespec ts = { 0, dp_req != NULL
						  ? 100000
						  : (long)(wake > now ? wake - now : 0) * 1000000 };
		if (ppoll(p, (nfds_t)n, &ts, NULL) > 0) {
			for (int i = 1; i < n; i++) {
				if (p[i].revents == 0)
					continue;
				if (pc[i]->state == CONN_READ)
					conn_read(pc[i]);
				else if (pc[i]->state == CONN_WRITE)
					conn_write(pc[i]);
			}
			if (p[0].revents & POLLIN)
				conn_accept();
		}
		now = now_ms();
		conn_data_plane(now);
		conn_deadlines(now);
	}
	for (int i = 0; i < CTL_CLIENTS_MAX; i++)
		if (conns[i].state != CONN_FREE)
			conn_close(&conns[i]);
	return NULL;
}

void control_apply_log_level(const struct spated_conf *conf)
{
	if (conf->ops.log_level)
		rte_log_set_level(spated_logtype, conf->ops.log_level);
}

int control_start(struct control_target *t, char *err, size_t errlen)
{
	const struct ops_conf *oc = &t->conf->ops;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	tgt = *t;
	if (strcmp(oc->control_socket, "none") == 0)
		return 0;
	if (oc->control_socket[0] != '\0')
		snprintf(sock_path, sizeof(sock_path), "%s", oc->control_socket);
	else if ((size_t)snprintf(sock_path, sizeof(sock_path), "%s/spated.sock",
				  rte_eal_get_runtime_dir()) >= sizeof(sock_path)) {
		snprintf(err, errlen, "control socket path too long");
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	req_ring =
		rte_ring_create("spate_ctl_req", 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	rsp_ring =
		rte_ring_create("spate_ctl_rsp", 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (req_ring == NULL || rsp_ring == NULL) {
		snprintf(err, errlen, "control rings: %s", rte_strerror(rte_errno));
		return -1;
	}
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0) {
		snprintf(err, errlen, "control socket: %s", strerror(errno));
		return -1;
	}
	/* A socket left by a previous run (a crash) would make bind fail. */
	struct stat sb;
	if (lstat(sock_path, &sb) == 0 && S_ISSOCK(sb.st_mode))
		unlink(sock_path);
	/* Never, even for a moment, more open than configured. */
	mode_t old = umask(0177);
	int rc = bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	/* A deep backlog: a burst of clients (a monitoring fleet, scripts in a
	 * loop) must wait in it, to be served or told "busy", not have their
	 * connect() refused with EAGAIN while the control thread is busy. */
	if (rc != 0 || listen(listen_fd, SOMAXCONN) != 0) {
		snprintf(err, errlen, "control socket %s: %s", sock_path, strerror(errno));
		close(listen_fd);
		listen_fd = -1;
		return -1;
	}
	if (control_perm_apply(sock_path, oc->control_group, oc->control_mode,
			       rte_eal_get_runtime_dir(), err, errlen) != 0) {
		control_stop();
		return -1;
	}
	atomic_store(&ctl_stop, false);
	rc = rte_ctrl_thread_create(&ctl_thread, "spate-ctl", NULL, control_main, NULL);
	if (rc != 0) {
		snprintf(err, errlen, "control thread: %s", strerror(rc));
		control_stop();
		return -1;
	}
	ctl_running = true;
	SPATED_LOG(INFO, "control socket %s (mode 0%o)\n", sock_path, oc->control_mode);
	return 0;
}

void control_stop(void)
{
	if (ctl_running) {
		atomic_store(&ctl_stop, true);
		pthread_join(ctl_thread, NULL);
		ctl_running = false;
	}
	if (listen_fd >= 0) {
		close(listen_fd);
		listen_fd = -1;
		unlink(sock_path);
	}
	/* A request the data plane never answered (it has stopped). */
	void *left;
	while (req_ring != NULL && rte_ring_sc_dequeue(req_ring, &left) == 0)
		req_free(left);
	while (rsp_ring != NULL && rte_ring_sc_dequeue(rsp_ring, &left) == 0)
		req_free(left);
	dp_req = NULL;
	dp_conn = NULL;
	rte_ring_free(req_ring);
	rte_ring_free(rsp_ring);
	req_ring = rsp_ring = NULL;
}
