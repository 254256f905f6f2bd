/* main.c - spated: command line, EAL, port, and the pipeline.
 *
 *   spated [-c FILE] [--check-config] [--salvage-journal] [-- EAL args]
 *
 * The data path is the pipeline (pipeline.h): RX -> cluster -> matching
 * workers -> TX on the lcores the configuration names. This file brings
 * the port up, hands it to the pipeline and does the main lcore's
 * housekeeping: signals and the counters line.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "cluster/category_dir.h"
#include "cluster/access.h"
#include "config/check_config.h"
#include "config/config.h"
#include "control/control.h"
#include "infra/counters.h"
#include "store/durable.h"
#include "main/info.h"
#include "control/metrics.h"
#include "infra/pipeline.h"
#include "infra/pl_msg.h"
#include "net/port.h"
#include "net/port_find.h"
#include "net/port_stats.h"
#include "infra/rcu_watch.h"
#include "infra/sizing.h"
#include "main/service.h"
#include "util/spate_release.h"
#include "link/stage_link.h"
#include "control/telemetry.h"
#include "link/zk_member.h"

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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spated [-c FILE] [--check-config] [--salvage-journal] [--version] [-- EAL "
		"args]\n"
		"  -c, --config FILE   libconfig file (groups 'spate' and 'spated')\n"
		"      --check-config  validate the configuration and exit\n"
		"      --salvage-journal  a journal damaged before its tail: keep it aside as\n"
		"                      <path>.damaged-TIME, replay its sound records, report\n"
		"                      the lost ones (without it such a journal stops the start)\n"
		"EAL args after '--' replace spated.eal from the file; when they have no\n"
		"--vdev, --vdev=<spated.port.device> is added. Without spated.port.device\n"
		"spated runs on every port the EAL probed (a NIC allowed with -a PCI).\n"
		"SIGUSR1 prints the counters as one JSON line; SIGINT/SIGTERM stop.\n");
}

static void install_signals(void)
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
	struct pipeline *pl;
	struct zk_member *zk;
	int exit_code;
	uint16_t port_id;
	uint64_t hz, start, stats_every, next_stats, next_map, next_port;
	uint32_t rcu_warn_ms;
};

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
	uint32_t n = pipeline_workers(h->pl), cats[SPATED_MATCH_MAX];
	uint64_t subs[SPATED_MATCH_MAX];
	struct rte_eth_stats es;

	port_stats_refresh();
	spated_counters_print(stdout, (double)(now - h->start) / (double)h->hz, print_port_xstats);
	category_dir_per_worker(pipeline_dir(h->pl), n, cats, subs);
	printf("{\"spated\":\"pipeline\",\"workers\":[");
	for (uint32_t w = 0; w < n; w++)
		printf("%s{\"categories\":%u,\"subs\":%" PRIu64 "}", w ? "," : "", cats[w],
		       subs[w]);
	if (rte_eth_stats_get(h->port_id, &es) != 0)
		memset(&es, 0, sizeof(es));
	printf("],\"port\":{\"ipackets\":%" PRIu64 ",\"imissed\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64
	       ",\"ierrors\":%" PRIu64 ",\"opackets\":%" PRIu64 ",\"oerrors\":%" PRIu64 "}}\n",
	       es.ipackets, es.imissed, es.rx_nombuf, es.ierrors, es.opackets, es.oerrors);
	fflush(stdout);
}

static int housekeeping(void *ctx)
{
	struct house *h = ctx;
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
	service_poll(now, pipeline_progress, h->pl);
	if (h->zk != NULL && now >= h->next_map) {
		/* the placement map in ZooKeeper, at most once a second */
		h->next_map = now + h->hz;
		zk_member_offer_dir(h->zk, pipeline_dir(h->pl));
		uint64_t v, n, w;
		zk_member_map_state(h->zk, &v, &n, &w);
		spated_cnt.zk_map_version = v;
		spated_cnt.zk_map_cats = n;
		spated_cnt.zk_map_writes = w;
		zk_member_counts(h->zk, &spated_cnt.zk_rejoins, &spated_cnt.zk_fences);
	}
	if (zk_member_fenced(h->zk))
		h->exit_code = 3; /* fenced: another host may own our work now */
	return quit_flag || h->exit_code != 0;
}

/* Static peers (no ZooKeeper to hand out epochs): an incarnation's epoch
 * is its boot time in quarter seconds since 2020, so a restarted host's
 * is newer than any it had before (its peers take only newer ones:
 * stage_link.c, static_epochs), and no frame recorded before it started
 * names it. A clock set back makes a restarted host look older: its
 * peers then refuse it until they restart too (logged there). */
static uint32_t static_epoch(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t q = ((int64_t)ts.tv_sec - 1577836800) * 4 + ts.tv_nsec / 250000000;
	return q > 1 && q < UINT32_MAX ? (uint32_t)q : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "salvage-journal", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL;
	int check_only = 0, salvage = 0, own_argc = argc, c;
	struct spated_conf conf;
	char err[1024]; /* an unknown key lists the known ones */

	/* Our options end at "--"; what follows belongs to the EAL. */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			own_argc = i;
			break;
		}
	while ((c = getopt_long(own_argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			conf_path = optarg;
			break;
		case 'C':
			check_only = 1;
			break;
		case 'S':
			salvage = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return spate_release_print("spated");
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < own_argc) {
		fprintf(stderr, "spated: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	if (check_only && conf_path != NULL)
		return check_config(conf_path, stdout) == 0 ? 0 : 1;
	spated_conf_default(&conf);
	if (spated_conf_load(&conf, conf_path, err, sizeof(err)) != 0) {
		fprintf(stderr, "spated: %s\n", err);
		spated_conf_free(&conf);
		return 1;
	}
	if (check_only) {
		printf("spated: %s: configuration OK\n", conf_path ? conf_path : "(defaults)");
		spated_conf_free(&conf);
		return 0;
	}
	/* This start only: never a setting, so it cannot stay on. */
	conf.ops.journal.salvage = salvage;
	if (salvage && conf.ops.journal_path[0] == '\0') {
		fprintf(stderr,
			"spated: --salvage-journal: no journal is configured (journal.path)\n");
		spated_conf_free(&conf);
		return 2;
	}

	/* EAL argv: ours after "--", else the file's; plus the vdev. */
	char *eal_argv[SPATED_EAL_ARGS_MAX + 64];
	char vdev_arg[SPATED_PORTS_MAX][300];
	int eal_argc = 0, have_vdev = 0;
	eal_argv[eal_argc++] = argv[0];
	if (own_argc < argc) {
		if (argc - own_argc - 1 > SPATED_EAL_ARGS_MAX + 60) {
			fprintf(stderr, "spated: too many EAL arguments\n");
			return 2;
		}
		for (int i = own_argc + 1; i < argc; i++)
			eal_argv[eal_argc++] = argv[i];
	} else {
		for (int i = 0; i < conf.n_eal; i++)
			eal_argv[eal_argc++] = conf.eal[i];
	}
	for (int i = 1; i < eal_argc; i++)
		if (strncmp(eal_argv[i], "--vdev", 6) == 0)
			have_vdev = 1;
	for (uint32_t d = 0; !have_vdev && d < conf.n_devices; d++) {
		snprintf(vdev_arg[d], sizeof(vdev_arg[d]), "--vdev=%s", conf.devices[d]);
		eal_argv[eal_argc++] = vdev_arg[d];
	}
	eal_argv[eal_argc] = NULL;
	/* rte_eal_init reorders eal_argv: keep them as given, for messages */
	char *eal_given[SPATED_EAL_ARGS_MAX + 64];
	memcpy(eal_given, eal_argv, sizeof(eal_argv));

	int rc = rte_eal_init(eal_argc, eal_argv);
	if (rc < 0)
		rte_exit(EXIT_FAILURE, "rte_eal_init: err=%d, port=%u\n", rte_errno, 0u);
	install_signals();
	control_apply_log_level(&conf);
	/* Before the stages: the cluster stage checks every datagram with it. */
	spated_access = access_create(&conf.ops);
	if (spated_access == NULL)
		rte_exit(EXIT_FAILURE, "access control: err=%d, port=%u\n", -ENOMEM, 0u);

	uint16_t ports[SPATED_PORTS_MAX];
	uint16_t n_ports = port_find(&conf, !have_vdev, conf_path, eal_argc, eal_given, ports);
	uint16_t port_id = ports[0];

	/* Frames up to the MTU in one segment; the private area carries what
	 * a packet is to the next stage (pl_msg.h). */
	uint32_t room = RTE_MBUF_DEFAULT_DATAROOM;
	if (conf.mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN > room)
		room = conf.mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	/* Pools, rings and backlogs left at 0: from the memory we are given. */
	struct sizing_in sz = {
		.mem = sizing_memory(),
		.mbuf_bytes = rte_mempool_calc_obj_size(sizeof(struct rte_mbuf) + PKT_META_SIZE +
								RTE_PKTMBUF_HEADROOM + room,
							0, NULL),
		.msg_bytes = rte_mempool_calc_obj_size(sizeof(struct pl_msg), 0, NULL),
		.workers = conf.lcores.n_match,
	};
	sizing_derive(&conf, &sz);
	printf("spated: sizing: %" PRIu64 " MB to size from: mbufs %u (%zu MB), msgs %u (%zu MB), "
	       "ring_size %u, backlog_max %u\n",
	       sz.mem >> 20, conf.mbufs, (size_t)conf.mbufs * sz.mbuf_bytes >> 20, conf.msgs,
	       (size_t)conf.msgs * sz.msg_bytes >> 20, conf.ring_size, conf.backlog_max);
	struct rte_mempool *mp =
		rte_pktmbuf_pool_create("spated_mbufs", conf.mbufs, 256, PKT_META_SIZE,
					(uint16_t)(room + RTE_PKTMBUF_HEADROOM), rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "rte_pktmbuf_pool_create(%u mbufs): err=%d, port=%u\n",
			 conf.mbufs, rte_errno, port_id);

	struct rte_ether_addr macs[SPATED_PORTS_MAX];
	for (uint16_t i = 0; i < n_ports; i++)
		port_start(ports[i], mp, (uint16_t)conf.lcores.n_rx, (uint16_t)conf.rx_desc,
			   (uint16_t)conf.tx_desc, conf.mtu, &macs[i]);
	struct rte_ether_addr mac = macs[0];
	port_stats_init(ports, n_ports);
	/* Multi-host with ZooKeeper: an epoch and the peers' view first (the
	 * link binds its channels to them) */
	static struct host_view view;
	struct zk_member *zk = NULL;
	uint32_t epoch = 1;
	if (conf.hosts.role != SPATED_ROLE_BOTH && conf.hosts.zookeeper[0] == '\0') {
		epoch = static_epoch();
		printf("spated: static peers: this incarnation is epoch %u (its boot time)\n",
		       epoch);
	}
	if (conf.hosts.zookeeper[0] != '\0') {
		host_view_init(&view);
		zk = zk_member_start(&conf.hosts, conf.ipv4,
				     conf.hosts.role == SPATED_ROLE_MATCH ? conf.lcores.n_match : 0,
				     &view, &epoch, err, sizeof(err));
		if (zk == NULL)
			rte_exit(EXIT_FAILURE, "%s\n", err);
	}
	struct pipeline *pl =
		pipeline_create(&conf, n_ports, ports, macs, mp, epoch, zk != NULL ? &view : NULL);
	if (conf.ops.journal_path[0] != '\0' && !zk_member_serves(zk)) {
		/* another front took this front's service over while it was
		 * away: it holds those subscriptions now, ours are stale (a
		 * replay would bring back what was deleted since) */
		char aside[sizeof(conf.ops.journal_path) + 32];
		snprintf(aside, sizeof(aside), "%s.stale-%u", conf.ops.journal_path, epoch);
		if (rename(conf.ops.journal_path, aside) == 0)
			fprintf(stderr, "spated: a standby: the journal is stale, moved to %s\n",
				aside);
	}
	if (conf.ops.journal_path[0] != '\0') {
		spated_durable = pipeline_journal_open(pl, err, sizeof(err));
		if (spated_durable == NULL)
			rte_exit(EXIT_FAILURE, "%s\n", err);
	}
	spated_info_start(pipeline_matcher(pl));
	telemetry_register();
	/* Control requests run on the cluster stage's lcore, which owns the
	 * matcher and the settings (stage_cluster_poll calls control_poll). */
	/* On a match host the link stage's lcore (the cluster's) runs them:
	 * no clustering commands there, `show cluster` everywhere. */
	struct control_target ctl = { &conf,
				      conf_path,
				      pipeline_matcher(pl),
				      pipeline_cluster_lcore(pl),
				      pipeline_link(pl),
				      conf.hosts.role == SPATED_ROLE_MATCH ? NULL
									   : pipeline_dir(pl),
				      n_ports,
				      ports };
	if (control_start(&ctl, err, sizeof(err)) != 0)
		rte_exit(EXIT_FAILURE, "%s\n", err);
	struct metrics_source msrc = { pl, mp, ports, n_ports };
	if (metrics_start(conf.ops.metrics_listen, &msrc, err, sizeof(err)) != 0)
		rte_exit(EXIT_FAILURE, "%s\n", err);

	char mac_s[RTE_ETHER_ADDR_FMT_SIZE];
	rte_ether_format_addr(mac_s, sizeof(mac_s), &mac);
	printf("spated: ready ipv4=%u.%u.%u.%u udp=%u port=%u ports=%u mac=%s workers=%u lcores=%u "
	       "mtu=%u"
	       " role=%s host=%u\n",
	       conf.ipv4 >> 24, (conf.ipv4 >> 16) & 0xff, (conf.ipv4 >> 8) & 0xff, conf.ipv4 & 0xff,
	       conf.udp_port, port_id, n_ports, mac_s, pipeline_workers(pl), rte_lcore_count(),
	       conf.mtu, host_conf_role_name(conf.hosts.role), conf.hosts.host_id);
	fflush(stdout);

	struct house h = { .pl = pl, .zk = zk, .port_id = port_id, .hz = rte_get_timer_hz() };
	h.start = rte_get_timer_cycles();
	h.stats_every = conf.stats_interval * h.hz;
	h.next_stats = h.start + h.stats_every;
	h.rcu_warn_ms = conf.rcu_warn_ms;
	service_ready();
	pipeline_run(pl, housekeeping, &h);
	service_stopping(h.exit_code == 3   ? "fenced by ZooKeeper"
			 : h.exit_code == 4 ? "the front restarted"
					    : "asked to stop");
	metrics_stop(); /* it reads the ports and the pipeline */

	print_stats(&h, rte_get_timer_cycles());
	/* leave at once: peers see a clean exit, not a session expiry later */
	zk_member_stop(zk);
	port_stats_fini();
	for (uint16_t i = 0; i < n_ports; i++)
		port_close(ports[i]);
	control_stop();
	durable_close(spated_durable); /* what is pending, synced */
	spated_durable = NULL;
	pipeline_destroy(pl);
	access_destroy(spated_access);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	spated_conf_free(&conf);
	return h.exit_code;
}
