/* house.c - the main lcore's housekeeping (house.h), and the counters
 * line printed at exit (a module: module.h). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "cluster/category_dir.h"
#include "infra/counters.h"
#include "infra/pipeline.h"
#include "infra/rcu_watch.h"
#include "link/zk_member.h"
#include "main/house.h"
#include "main/service.h"
#include "net/port_stats.h"

/* Set by signal handlers, read by housekeeping: handlers do nothing
 * else, since almost nothing is async-signal-safe. */
static volatile sig_atomic_t quit_flag;
static volatile sig_atomic_t stats_flag;

static void on_quit(int sig)
{
	(void)sig;
	quit_flag = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	stats_flag = 1;
}

void house_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	/* A control or telemetry client that hangs up before its answer
	 * must cost an EPIPE, not the process. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

struct house {
	struct spated *d;
	uint64_t hz, start, stats_every, next_stats, next_map, next_port;
	uint32_t rcu_warn_ms;
};

static struct house house;

struct xstat_out {
	FILE *f;
	const char *sep;
};

static void print_xstat(void *ctx, const char *name, uint64_t v)
{
	struct xstat_out *x = ctx;

	fprintf(x->f, "%s\"%s\":%" PRIu64, x->sep, name, v);
	x->sep = ",";
}

/* The counters line's "port_xstats": every non-zero xstat of every port. */
static void print_port_xstats(FILE *f)
{
	struct xstat_out x = { f, "" };

	fputs(",\"port_xstats\":{", f);
	port_stats_xstats(print_xstat, &x);
	fputc('}', f);
}

/* The counters, then where the categories are (from the directory) and
 * what the port dropped before spated saw it:
 * {"spated":"pipeline","workers":[{"categories":N,"subs":N},...],
 *  "port":{"ipackets":N,"imissed":N,"rx_nombuf":N,"ierrors":N,...}}. */
static void print_stats(struct house *h, uint64_t now)
{
	struct pipeline *pl = h->d->pl;
	uint32_t n = pipeline_workers(pl), cats[SPATED_MATCH_MAX];
	uint64_t subs[SPATED_MATCH_MAX];
	struct rte_eth_stats es;

	port_stats_refresh();
	spated_counters_print(stdout, (double)(now - h->start) / (double)h->hz, print_port_xstats);
	category_dir_per_worker(pipeline_dir(pl), n, cats, subs);
	printf("{\"spated\":\"pipeline\",\"workers\":[");
	for (uint32_t w = 0; w < n; w++)
		printf("%s{\"categories\":%u,\"subs\":%" PRIu64 "}", w ? "," : "", cats[w],
		       subs[w]);
	if (rte_eth_stats_get(h->d->ports[0], &es) != 0)
		memset(&es, 0, sizeof(es));
	printf("],\"port\":{\"ipackets\":%" PRIu64 ",\"imissed\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64
	       ",\"ierrors\":%" PRIu64 ",\"opackets\":%" PRIu64 ",\"oerrors\":%" PRIu64 "}}\n",
	       es.ipackets, es.imissed, es.rx_nombuf, es.ierrors, es.opackets, es.oerrors);
	fflush(stdout);
}

/* The placement map in ZooKeeper, at most once a second. */
static void offer_map(struct house *h, uint64_t now)
{
	struct zk_member *zk = h->d->zk;
	uint64_t v, n, w;

	h->next_map = now + h->hz;
	zk_member_offer_dir(zk, pipeline_dir(h->d->pl));
	zk_member_map_state(zk, &v, &n, &w);
	spated_cnt.zk_map_version = v;
	spated_cnt.zk_map_cats = n;
	spated_cnt.zk_map_writes = w;
	zk_member_counts(zk, &spated_cnt.zk_rejoins, &spated_cnt.zk_fences);
}

static int housekeeping(void *ctx)
{
	struct house *h = ctx;
	struct spated *d = h->d;
	uint64_t now = rte_get_timer_cycles();

	if (now >= h->next_port) {
		/* the port_* counters, ten times a second (a syscall or two) */
		h->next_port = now + h->hz / 10;
		port_stats_refresh();
	}
	if (stats_flag || (h->stats_every != 0 && now >= h->next_stats)) {
		stats_flag = 0;
		if (h->stats_every != 0 && now >= h->next_stats)
			h->next_stats = now + h->stats_every;
		print_stats(h, now);
	}
	rcu_watch_poll(now, h->rcu_warn_ms);
	service_poll(now, pipeline_progress, d->pl);
	if (d->zk != NULL && now >= h->next_map)
		offer_map(h, now);
	if (zk_member_fenced(d->zk))
		d->exit_code = 3; /* fenced: another host may own our work now */
	return quit_flag || d->exit_code != 0;
}

static void print_ready(const struct spated *d)
{
	const struct spated_conf *c = &d->conf;
	char mac_s[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(mac_s, sizeof(mac_s), &d->macs[0]);
	printf("spated: ready ipv4=%u.%u.%u.%u udp=%u port=%u ports=%u mac=%s workers=%u lcores=%u "
	       "mtu=%u"
	       " role=%s host=%u\n",
	       c->ipv4 >> 24, (c->ipv4 >> 16) & 0xff, (c->ipv4 >> 8) & 0xff, c->ipv4 & 0xff,
	       c->udp_port, d->ports[0], d->n_ports, mac_s, pipeline_workers(d->pl),
	       rte_lcore_count(), c->mtu, host_conf_role_name(c->hosts.role), c->hosts.host_id);
	fflush(stdout);
}

void house_run(struct spated *d)
{
	struct house *h = &house;

	print_ready(d);
	h->d = d;
	h->hz = rte_get_timer_hz();
	h->start = rte_get_timer_cycles();
	h->stats_every = d->conf.stats_interval * h->hz;
	h->next_stats = h->start + h->stats_every;
	h->rcu_warn_ms = d->conf.rcu_warn_ms;
	service_ready();
	pipeline_run(d->pl, housekeeping, h);
	service_stopping(d->exit_code == 3   ? "fenced by ZooKeeper"
			 : d->exit_code == 4 ? "the front restarted"
					     : "asked to stop");
}

/* The last counters line, once the metrics thread no longer reads. */
static void stats_stop(struct spated *d)
{
	(void)d;
	print_stats(&house, rte_get_timer_cycles());
}

static struct spated_module stats_module = {
	.name = "stats",
	.order = SPATED_ORDER_STATS,
	.stop = stats_stop,
};
SPATED_MODULE(stats_module)
