/* pipeline.c - building the stages and their rings, and the lcore loop
 * (pipeline.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include <urcu/urcu-qsbr.h>

#include "control/control.h"
#include "infra/counters.h"
#include "store/durable.h"
#include "infra/lcore_idle.h"
#include "infra/pipeline.h"
#include "infra/pl_msg.h"
#include "proto/spate_err.h"
#include "cluster/stage_cluster.h"
#include "link/stage_link.h"
#include "match/stage_match.h"
#include "net/stage_rx.h"
#include "net/stage_tx.h"

#define MAX_STAGES (3 + SPATED_RX_MAX + SPATED_MATCH_MAX)
#define IPV4_UDP_HDRS 28 /* IPv4 (no options) + UDP headers */

struct stage_ref {
	unsigned int (*poll)(void *arg);
	void *arg;
	size_t cycles; /* offset of its cycles counter in spated_counters */
};

struct lcore_plan {
	struct pipeline *p;
	unsigned int lcore;
	unsigned int n;
	struct stage_ref st[MAX_STAGES];
};

struct pipeline {
	const struct spated_conf *conf;
	uint32_t n_workers;
	struct rte_mempool *msg_pool;
	struct category_dir *dir;
	struct call_rcu_data *crdp;
	struct stage_rx *rx[SPATED_RX_MAX];
	struct stage_tx *tx;
	struct stage_cluster *cluster;
	struct stage_match *match[SPATED_MATCH_MAX];
	uint32_t n_local;        /* matching stages on this host */
	struct stage_link *link; /* multi-host only (host_conf.h) */
	struct rte_ring *rings[8 + 3 * SPATED_RX_MAX + 4 * SPATED_MATCH_MAX +
			       SPATED_MATCH_MAX * SPATED_MATCH_MAX];
	unsigned int n_rings;
	struct lcore_plan plans[RTE_MAX_LCORE];
	volatile int stop;
	uint64_t last_polls[RTE_MAX_LCORE]; /* pipeline_progress's view */
};

static unsigned int poll_rx(void *a)
{
	return stage_rx_poll(a);
}
static unsigned int poll_tx(void *a)
{
	return stage_tx_poll(a);
}
static unsigned int poll_cluster(void *a)
{
	return stage_cluster_poll(a);
}
static unsigned int poll_match(void *a)
{
	return stage_match_poll(a);
}
static unsigned int poll_link(void *a)
{
	return stage_link_poll(a);
}
/* a match host: its link's lcore runs the operators' requests, between
 * two polls (the front's cluster stage does it there) */
static unsigned int poll_link_ctl(void *a)
{
	control_poll();
	return stage_link_poll(a);
}

static struct rte_ring *ring(struct pipeline *p, const char *what)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "sp%u_%s", p->n_rings, what);
	struct rte_ring *r = rte_ring_create(name, p->conf->ring_size, (int)rte_socket_id(),
					     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		rte_exit(EXIT_FAILURE, "rte_ring_create(%s, %u): err=%d, port=%u\n", name,
			 p->conf->ring_size, rte_errno, 0u);
	p->rings[p->n_rings++] = r;
	return r;
}

/* The configured lcore of a stage (-1: main), checked against the EAL. */
static unsigned int lcore_of(int id, const char *what)
{
	unsigned int l = id < 0 ? rte_get_main_lcore() : (unsigned int)id;

	if (l >= RTE_MAX_LCORE || !rte_lcore_is_enabled(l))
		rte_exit(EXIT_FAILURE,
			 "spated.lcores.%s = %d is not an enabled EAL lcore (see -l/--lcores): "
			 "err=%d, port=%u\n",
			 what, id, -EINVAL, 0u);
	return l;
}

static void place(struct pipeline *p, int id, const char *what, unsigned int (*poll)(void *),
		  void *arg, size_t cycles)
{
	struct lcore_plan *lp = &p->plans[lcore_of(id, what)];

	lp->st[lp->n++] = (struct stage_ref){ poll, arg, cycles };
}

/* The link stage's word that a match host's workers died or are back:
 * the cluster stage (same lcore on a front) rebuilds or reuses them. */
static void workers_changed(void *ctx, const uint32_t *w, uint32_t n, int up)
{
	if (up)
		stage_cluster_workers_up(ctx, w, n);
	else if (stage_cluster_workers_down(ctx, w, n) != 0)
		fprintf(stderr, "spated: every match host is down: categories stay unreachable\n");
}

static int can_take(void *ctx)
{
	return stage_cluster_ready(ctx);
}

static int adopt(void *ctx, uint32_t owner, const struct spate_raw_sub *rs)
{
	return stage_cluster_adopt(ctx, owner, rs);
}

static void relayed(void *ctx, const struct spate_raw_event *ev)
{
	stage_cluster_relayed(ctx, ev);
}

struct pipeline *pipeline_create(const struct spated_conf *conf, uint16_t n_ports,
				 const uint16_t *ports, const struct rte_ether_addr *macs,
				 struct rte_mempool *pkt_pool, uint32_t epoch,
				 struct host_view *view)
{
	const uint16_t port_id = ports[0];
	const struct rte_ether_addr *mac = &macs[0];
	/* one RX stage per port and queue: queue q of every port on lcores.rx[q] */
	const uint32_t n_rxs = n_ports * conf->lcores.n_rx;

	if (n_rxs > SPATED_RX_MAX)
		rte_exit(EXIT_FAILURE,
			 "%u ports x %u RX queues: at most %d RX stages (spated.lcores.rx, "
			 "spated.port.device): err=%d, port=%u\n",
			 n_ports, conf->lcores.n_rx, SPATED_RX_MAX, -EINVAL, port_id);
	struct pipeline *p = calloc(1, sizeof(*p));
	uint32_t w, v;

	if (p == NULL)
		rte_exit(EXIT_FAILURE, "pipeline: err=%d, port=%u\n", -ENOMEM, port_id);
	p->conf = conf;
	const struct host_conf *hc = &conf->hosts;
	int front = hc->role != SPATED_ROLE_MATCH; /* runs the cluster stage */
	int multi = hc->role != SPATED_ROLE_BOTH;
	/* a front's workers are its match hosts' lcores; none of them here */
	p->n_workers =
		hc->role == SPATED_ROLE_FRONT ? host_conf_remote_workers(hc) : conf->lcores.n_match;
	p->n_local = hc->role == SPATED_ROLE_FRONT ? 0 : p->n_workers;
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		p->plans[l].p = p;
		p->plans[l].lcore = l;
	}
	size_t max_payload = conf->mtu - IPV4_UDP_HDRS;
	uint32_t max_messages = conf->common.limits.max_messages;

	p->msg_pool = rte_mempool_create("spated_msgs", conf->msgs, sizeof(struct pl_msg), 64, 0,
					 NULL, NULL, NULL, NULL, (int)rte_socket_id(), 0);
	if (p->msg_pool == NULL)
		rte_exit(EXIT_FAILURE, "rte_mempool_create(%u messages): err=%d, port=%u\n",
			 conf->msgs, rte_errno, port_id);
	/* The directory is read by registered threads: this one too. */
	urcu_qsbr_register_thread();
	p->dir = category_dir_create();
	if (p->dir == NULL)
		rte_exit(EXIT_FAILURE, "category directory: err=%d, port=%u\n", -ENOMEM, port_id);
	/* Frees of old directory versions run on this thread, off the
	 * data-plane CPUs when rcu_cpu names one. */
	p->crdp = urcu_qsbr_create_call_rcu_data(0, conf->rcu_cpu);
	if (p->crdp == NULL)
		rte_exit(EXIT_FAILURE, "call_rcu thread: err=%d, port=%u\n", -ENOMEM, port_id);

	/* Rings: one per producer/consumer pair. */
	struct rte_ring *rx_cl[SPATED_RX_MAX], *rx_tx[SPATED_RX_MAX];
	struct rte_ring *rx_link[SPATED_RX_MAX] = { NULL };
	struct rte_ring *tx_in[3 + SPATED_RX_MAX + SPATED_MATCH_MAX];
	uint32_t n_tx_in = 0, q;
	for (q = 0; q < n_rxs; q++) {
		rx_cl[q] = front ? ring(p, "rx_cl") : NULL;
		rx_tx[q] = tx_in[n_tx_in++] = ring(p, "rx_tx");
		if (multi)
			rx_link[q] = ring(p, "rx_link");
	}
	struct rte_ring *cl_tx = front ? (tx_in[n_tx_in++] = ring(p, "cl_tx")) : NULL;
	struct rte_ring *link_tx = multi ? (tx_in[n_tx_in++] = ring(p, "link_tx")) : NULL;
	struct rte_ring *cl_m[SPATED_MATCH_MAX], *m_tx[SPATED_MATCH_MAX], *m_cl[SPATED_MATCH_MAX];
	struct rte_ring *m_m[SPATED_MATCH_MAX][SPATED_MATCH_MAX] = { { NULL } };
	struct rte_ring *m_link[SPATED_MATCH_MAX] = { NULL }; /* handoffs to other hosts */
	for (w = 0; w < p->n_workers; w++) {
		/* on a match host: the link stage stands for the cluster */
		cl_m[w] = ring(p, "cl_m");
		m_cl[w] = ring(p, "m_cl");
		if (w >= p->n_local)
			continue;
		m_tx[w] = tx_in[n_tx_in++] = ring(p, "m_tx");
		if (multi)
			m_link[w] = ring(p, "m_link");
		for (v = 0; v < p->n_workers; v++)
			if (v != w)
				m_m[w][v] = ring(p, "m_m");
	}

	struct stage_tx_conf tc = {
		.port_id = port_id,
		.queue_id = 0,
		.pool = pkt_pool,
		.mac = *mac,
		.n_ports = n_ports,
		.ports = ports,
		.macs = macs,
		.ipv4 = conf->ipv4,
		.mask = spated_conf_mask(conf),
		.gw = conf->gateway,
		.udp_port = conf->udp_port,
		.max_payload = max_payload,
		.max_messages = max_messages,
		.in = tx_in,
		.n_in = n_tx_in,
		.burst = (uint16_t)conf->tx_desc,
	};
	struct stage_cluster_conf cc = {
		.in = rx_cl,
		.n_in = n_rxs,
		.to_match = cl_m,
		.feedback = m_cl,
		.n_workers = p->n_workers,
		.to_tx = cl_tx,
		.msg_pool = p->msg_pool,
		.pkt_pool = pkt_pool,
		.dir = p->dir,
		.common = &conf->common,
		.max_payload = max_payload,
		.backlog_max = conf->backlog_max,
		.preload = conf->preload,
		/* several fronts: each numbers its categories apart */
		.cat_base = hc->role == SPATED_ROLE_FRONT ? host_conf_front_rank(hc, hc->host_id)
								    << SPATED_CAT_FRONT_SHIFT
							  : 0,
	};
	/* RX stage q polls queue q of the port. */
	for (q = 0; q < n_rxs; q++) {
		struct stage_rx_conf rc = {
			.port_id = ports[q / conf->lcores.n_rx],
			.queue_id = (uint16_t)(q % conf->lcores.n_rx),
			.pool = pkt_pool,
			.mac = macs[q / conf->lcores.n_rx],
			.ipv4 = conf->ipv4,
			.udp_port = conf->udp_port,
			.mtu = (uint16_t)conf->mtu,
			.lim = &conf->common.limits,
			.to_cluster = rx_cl[q],
			.to_tx = rx_tx[q],
			.to_link = rx_link[q],
			.peer_port = SPATED_PEER_PORT,
		};
		p->rx[q] = stage_rx_create(&rc);
		if (p->rx[q] == NULL)
			rte_exit(EXIT_FAILURE, "RX stage %u: err=%d, port=%u\n", q, -ENOMEM,
				 port_id);
	}
	p->tx = stage_tx_create(&tc);
	if (front)
		p->cluster = stage_cluster_create(&cc);
	if (p->tx == NULL || (front && p->cluster == NULL))
		rte_exit(EXIT_FAILURE, "stages (tx, cluster): err=%d, port=%u\n", -ENOMEM, port_id);
	if (multi) {
		struct stage_link_conf lc = {
			.hosts = hc,
			.epoch = epoch,
			.from_rx = rx_link,
			.n_rx = n_rxs,
			.to_tx = link_tx,
			.msg_pool = p->msg_pool,
			.pkt_pool = pkt_pool,
			.max_frame = max_payload,
			.lim = &conf->common.limits,
			.n_workers = p->n_workers,
			/* front: cluster -> workers, feedback back; match: the reverse */
			.from_stage = front ? cl_m : m_cl,
			.to_stage = front ? m_cl : cl_m,
			.front_matcher = front ? stage_cluster_matcher(p->cluster) : NULL,
			.match_conf = &conf->common.matcher,
			.handoff_in = m_link,
			.cat_engine = conf->category_engine,
			.cat_cell = conf->common.matcher.params.drt.cat_cell,
			.view = view,
			.keys = &hc->keys,
			.workers_changed = front ? workers_changed : NULL,
			.relayed = front ? relayed : NULL,
			.can_take = front ? can_take : NULL,
			.adopt = front ? adopt : NULL,
			.n_ports = n_ports,
			.ports = ports,
			.macs = macs,
			.backlog_max = conf->backlog_max,
			.workers_ctx = p->cluster,
		};
		p->link = stage_link_create(&lc);
		if (p->link == NULL)
			rte_exit(EXIT_FAILURE, "link stage (%s): err=%d, port=%u\n",
				 host_conf_role_name(hc->role), -ENOMEM, port_id);
		for (uint32_t i = 0; front && i < hc->n_peers; i++)
			if (hc->peer[i].lcores == 0) {
				/* another front: share the events; with ZooKeeper,
				 * copy the subscriptions (it stands by for us) */
				stage_cluster_set_relay(p->cluster, stage_link_relay, p->link);
				if (view != NULL)
					stage_cluster_set_repl(p->cluster, stage_link_repl_add,
							       stage_link_repl_del,
							       stage_link_repl_done, p->link);
				break;
			}
	}
	for (w = 0; w < p->n_local; w++) {
		struct rte_ring *peer_in[SPATED_MATCH_MAX], *peer_out[SPATED_MATCH_MAX];
		for (v = 0; v < p->n_workers; v++) {
			peer_in[v] = m_m[v][w];
			peer_out[v] = m_m[w][v];
		}
		struct stage_match_conf mc = {
			.worker = w,
			.n_workers = p->n_workers,
			.in = cl_m[w],
			.peer_in = peer_in,
			.peer_out = peer_out,
			.to_tx = m_tx[w],
			.feedback = m_cl[w],
			.to_link = m_link[w],
			.msg_pool = p->msg_pool,
			.pkt_pool = pkt_pool,
			.cat_engine = conf->category_engine,
			.cat_cell = conf->common.matcher.params.drt.cat_cell,
			.max_payload = max_payload,
			.max_messages = max_messages,
			.cpu_accounting = conf->cpu_accounting,
		};
		p->match[w] = stage_match_create(&mc);
		if (p->match[w] == NULL)
			rte_exit(EXIT_FAILURE, "matching stage %u: err=%d, port=%u\n", w, -ENOMEM,
				 port_id);
	}

	for (q = 0; q < n_rxs; q++)
		place(p, conf->lcores.rx[q % conf->lcores.n_rx], "rx", poll_rx, p->rx[q],
		      offsetof(struct spated_counters, cycles_rx));
	if (front)
		place(p, conf->lcores.cluster, "cluster", poll_cluster, p->cluster,
		      offsetof(struct spated_counters, cycles_cluster));
	/* on a front the link reads the cluster matcher's dictionaries: same
	 * lcore; on a match host it takes the cluster's lcore */
	if (multi)
		place(p, conf->lcores.cluster, "cluster", front ? poll_link : poll_link_ctl,
		      p->link, offsetof(struct spated_counters, cycles_link));
	for (w = 0; w < p->n_local; w++)
		place(p, conf->lcores.match[w], "match", poll_match, p->match[w],
		      offsetof(struct spated_counters, cycles_match));
	place(p, conf->lcores.tx, "tx", poll_tx, p->tx,
	      offsetof(struct spated_counters, cycles_tx));
	return p;
}

/* One turn of every stage on this lcore (polls, busy_polls: the load
 * `spatectl show lcores` shows); the cycles of turns that found work are
 * counted, in all (busy_cycles) and per stage (cycles_rx, ...): cycles
 * per event and stage in the benchmark. */
static unsigned int poll_all(struct lcore_plan *lp)
{
	struct spated_counters *cnt = &spated_cnt;
	uint64_t t0 = rte_rdtsc(), t = t0;
	unsigned int work = 0;

	for (unsigned int i = 0; i < lp->n; i++) {
		unsigned int w = lp->st[i].poll(lp->st[i].arg);
		uint64_t now = rte_rdtsc();
		if (w != 0)
			*(uint64_t *)((char *)cnt + lp->st[i].cycles) += now - t;
		t = now;
		work += w;
	}
	cnt->polls++;
	if (work != 0) {
		cnt->busy_cycles += t - t0;
		cnt->busy_polls++;
	}
	return work;
}

/* An lcore with no stage sleeps RCU-offline: grace periods need not
 * wait for it. */
static void idle(uint32_t us)
{
	urcu_qsbr_thread_offline();
	rte_delay_us_sleep(us);
	urcu_qsbr_thread_online();
}

static int worker_loop(void *arg)
{
	struct lcore_plan *lp = arg;
	struct pipeline *p = lp->p;
	struct lcore_idle st;

	lcore_idle_init(&st);
	spated_counters_bind(lp->lcore);
	urcu_qsbr_register_thread();
	urcu_qsbr_set_thread_call_rcu_data(p->crdp);
	while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
		unsigned int work = poll_all(lp);
		urcu_qsbr_quiescent_state();
		lcore_idle_after(&st, work, p->conf);
	}
	urcu_qsbr_unregister_thread();
	return 0;
}

void pipeline_run(struct pipeline *p, int (*housekeeping)(void *ctx), void *ctx)
{
	unsigned int main_lcore = rte_get_main_lcore(), l;
	struct lcore_plan *mp = &p->plans[main_lcore];
	struct lcore_idle st;
	uint64_t polls = 0;

	RTE_LCORE_FOREACH_WORKER (l) {
		if (p->plans[l].n == 0)
			continue;
		if (rte_eal_remote_launch(worker_loop, &p->plans[l], l) != 0)
			rte_exit(EXIT_FAILURE, "rte_eal_remote_launch(lcore %u): err=%d, port=%u\n",
				 l, -EBUSY, 0u);
	}
	lcore_idle_report(p->conf);
	lcore_idle_init(&st);
	spated_counters_bind(main_lcore);
	urcu_qsbr_set_thread_call_rcu_data(p->crdp);
	/* registered in pipeline_create; online while it polls */
	for (;;) {
		unsigned int work = mp->n ? poll_all(mp) : 0;
		urcu_qsbr_quiescent_state();
		if (mp->n == 0 || ++polls % PIPELINE_HOUSEKEEPING == 0 || work == 0) {
			if (housekeeping(ctx) != 0)
				break;
		}
		if (mp->n == 0)
			idle(1000);
		else
			lcore_idle_after(&st, work, p->conf);
	}
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	/* Offline while waiting: the workers may still need a grace period. */
	urcu_qsbr_thread_offline();
	rte_eal_mp_wait_lcore();
	urcu_qsbr_thread_online();
}

void pipeline_destroy(struct pipeline *p)
{
	if (p == NULL)
		return;
	for (uint32_t q = 0; q < SPATED_RX_MAX; q++)
		stage_rx_destroy(p->rx[q]);
	stage_link_destroy(p->link);
	stage_cluster_destroy(p->cluster);
	for (uint32_t w = 0; w < p->n_local; w++)
		stage_match_destroy(p->match[w]);
	/* the others' queued packets reach TX's rings: TX frees them */
	stage_tx_destroy(p->tx);
	/* old directory versions: wait for their frees, then the rest */
	urcu_qsbr_barrier();
	category_dir_destroy(p->dir);
	urcu_qsbr_set_thread_call_rcu_data(NULL);
	urcu_qsbr_call_rcu_data_free(p->crdp);
	for (unsigned int i = 0; i < p->n_rings; i++)
		rte_ring_free(p->rings[i]);
	rte_mempool_free(p->msg_pool);
	urcu_qsbr_unregister_thread();
	free(p);
}

struct category_dir *pipeline_dir(struct pipeline *p)
{
	return p->dir;
}

uint32_t pipeline_workers(const struct pipeline *p)
{
	return p->n_workers;
}

void pipeline_visit_rings(const struct pipeline *p, void (*fn)(void *ctx, const struct rte_ring *r),
			  void *ctx)
{
	for (unsigned int i = 0; i < p->n_rings; i++)
		fn(ctx, p->rings[i]);
}

struct rte_mempool *pipeline_msg_pool(const struct pipeline *p)
{
	return p->msg_pool;
}

struct stage_link *pipeline_link(const struct pipeline *p)
{
	return p->link;
}

unsigned int pipeline_worker_lcore(const struct pipeline *p, uint32_t w)
{
	if (w >= p->n_local)
		return UINT32_MAX; /* on another host */
	int id = p->conf->lcores.match[w];
	return id < 0 ? rte_get_main_lcore() : (unsigned int)id;
}

struct spate_matcher *pipeline_matcher(struct pipeline *p)
{
	return p->cluster ? stage_cluster_matcher(p->cluster) : NULL;
}

unsigned int pipeline_cluster_lcore(const struct pipeline *p)
{
	return lcore_of(p->conf->lcores.cluster, "cluster");
}

/* Before the lcores start, this thread runs the stages: when the cluster
 * stage's backlogs are long, the matching stages take them in. */
static int drain_once(struct pipeline *p)
{
	unsigned int work = 0;

	stage_cluster_flush(p->cluster);
	for (uint32_t w = 0; w < p->n_local; w++)
		work += stage_match_poll(p->match[w]);
	return work != 0;
}

/* One replayed record: applied as the network's would be, once there is
 * room, so memory stays bounded however long the journal. A front has no
 * matching stage here to drain: its records wait in the backlogs for the
 * link stage, which sends them to the match hosts once the lcores run. */
static int replay_one(void *ctx, uint32_t owner, const struct spate_msg *msg)
{
	struct pipeline *p = ctx;
	unsigned int idle = 0;

	while (p->n_local > 0 && !stage_cluster_ready(p->cluster))
		if (!drain_once(p) && ++idle > 1000)
			return -SPATE_E_NO_MEMORY; /* stuck: counted as refused */
	return stage_cluster_apply(p->cluster, owner, msg);
}

struct durable *pipeline_journal_open(struct pipeline *p, char *err, size_t errlen)
{
	const struct spated_conf *c = p->conf;
	struct durable *d = durable_open(c->ops.journal_path, &c->ops.journal, replay_one, p,
					 stage_cluster_matcher(p->cluster), err, errlen);

	if (d == NULL)
		return NULL;
	for (unsigned int i = 0; i < 1000000 && drain_once(p); i++)
		;
	stage_cluster_set_durable(p->cluster, d);
	return d;
}

bool pipeline_progress(void *ctx)
{
	struct pipeline *p = ctx;
	bool moved = true;
	unsigned int l;

	RTE_LCORE_FOREACH_WORKER (l) {
		if (p->plans[l].n == 0)
			continue;
		/* written by lcore l only: a plain aligned load sees a recent value */
		uint64_t polls = __atomic_load_n(&spated_cnt_slots[l].c.polls, __ATOMIC_RELAXED);
		if (polls == p->last_polls[l])
			moved = false;
		p->last_polls[l] = polls;
	}
	return moved;
}
