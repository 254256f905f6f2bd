/* pipeline.c - the shared parts and rings of the stages, the stages
 * their modules register (pipeline_int.h), and the lcore loop (pipeline.h). */
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
#include "infra/module.h"
#include "infra/pipeline.h"
#include "infra/pipeline_int.h"
#include "infra/pl_msg.h"
#include "proto/spate_err.h"
#include "cluster/stage_cluster.h"
#include "link/stage_link.h"
#include "match/stage_match.h"
#include "net/stage_rx.h"
#include "net/stage_tx.h"

static struct pipeline_stage *stages; /* sorted by order */

void pipeline_stage_register(struct pipeline_stage *st)
{
	struct pipeline_stage **at = &stages;

	while (*at != NULL && (*at)->order <= st->order)
		at = &(*at)->next;
	st->next = *at;
	*at = st;
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
	p->all_rings[p->n_rings++] = r;
	return r;
}

/* A ring into TX. */
static struct rte_ring *tx_ring(struct pipeline *p, const char *what)
{
	struct rte_ring *r = ring(p, what);

	p->rings.tx_in[p->rings.n_tx_in++] = r;
	return r;
}

/* The rings of the stages this host runs. */
static void rings_create(struct pipeline *p)
{
	struct pipeline_rings *r = &p->rings;

	for (uint32_t q = 0; q < p->n_rxs; q++) {
		r->rx_to_cluster[q] = p->front ? ring(p, "rx_to_cluster") : NULL;
		r->rx_to_tx[q] = tx_ring(p, "rx_to_tx");
		if (p->multi)
			r->rx_to_link[q] = ring(p, "rx_to_link");
	}
	if (p->front)
		r->cluster_to_tx = tx_ring(p, "cluster_to_tx");
	for (uint32_t w = 0; w < p->n_workers; w++) {
		r->cluster_to_match[w] = ring(p, "cluster_to_match");
		r->match_to_cluster[w] = ring(p, "match_to_cluster");
		if (w >= p->n_local)
			continue;
		r->match_to_tx[w] = tx_ring(p, "match_to_tx");
		if (p->multi)
			r->match_to_link[w] = ring(p, "match_to_link");
		for (uint32_t v = 0; v < p->n_workers; v++)
			if (v != w)
				r->match_to_match[w][v] = ring(p, "match_to_match");
	}
	/* after the matching stages' rings: TX drains its rings in this
	 * order, so a match host's DONE (through the link) leaves behind the
	 * notifications of the events it covers, which were queued before
	 * it; a kill between the two then loses no match the fronts believe
	 * delivered (events_lost_host). With TX on an lcore of its own the
	 * DONE may still overtake notifications queued during TX's drain. */
	if (p->multi)
		r->link_to_tx = tx_ring(p, "link_to_tx");
}

unsigned int pipeline_lcore_of(int id, const char *what)
{
	unsigned int l = id < 0 ? rte_get_main_lcore() : (unsigned int)id;

	if (l >= RTE_MAX_LCORE || !rte_lcore_is_enabled(l))
		rte_exit(EXIT_FAILURE,
			 "spated.lcores.%s = %d is not an enabled EAL lcore (see -l/--lcores): "
			 "err=%d, port=%u\n",
			 what, id, -EINVAL, 0u);
	return l;
}

void pipeline_place(struct pipeline *p, int id, const char *what, unsigned int (*poll)(void *),
		    void *arg, size_t cycles)
{
	struct lcore_plan *lp = &p->plans[pipeline_lcore_of(id, what)];

	lp->st[lp->n++] = (struct stage_ref){ poll, arg, cycles };
}

/* The message pool, the category directory and its RCU frees. */
static void shared_create(struct pipeline *p)
{
	const struct spated_conf *conf = p->conf;

	p->msg_pool = rte_mempool_create("spated_msgs", conf->msgs, sizeof(struct pl_msg), 64, 0,
					 NULL, NULL, NULL, NULL, (int)rte_socket_id(), 0);
	if (p->msg_pool == NULL)
		rte_exit(EXIT_FAILURE, "rte_mempool_create(%u messages): err=%d, port=%u\n",
			 conf->msgs, rte_errno, p->ports[0]);
	/* The directory is read by registered threads: this one too. */
	urcu_qsbr_register_thread();
	p->dir = category_dir_create();
	if (p->dir == NULL)
		rte_exit(EXIT_FAILURE, "category directory: err=%d, port=%u\n", -ENOMEM,
			 p->ports[0]);
	/* Frees of old directory versions run on this thread, off the
	 * data-plane CPUs when rcu_cpu names one. */
	p->crdp = urcu_qsbr_create_call_rcu_data(0, conf->rcu_cpu);
	if (p->crdp == NULL)
		rte_exit(EXIT_FAILURE, "call_rcu thread: err=%d, port=%u\n", -ENOMEM, p->ports[0]);
}

struct pipeline *pipeline_create(const struct spated_conf *conf, uint16_t n_ports,
				 const uint16_t *ports, const struct rte_ether_addr *macs,
				 struct rte_mempool *pkt_pool, uint32_t epoch,
				 struct host_view *view)
{
	const struct host_conf *hc = &conf->hosts;
	/* one RX stage per port and queue: queue q of every port on lcores.rx[q] */
	const uint32_t n_rxs = n_ports * conf->lcores.n_rx;

	if (n_rxs > SPATED_RX_MAX)
		rte_exit(EXIT_FAILURE,
			 "%u ports x %u RX queues: at most %d RX stages (spated.lcores.rx, "
			 "spated.port.device): err=%d, port=%u\n",
			 n_ports, conf->lcores.n_rx, SPATED_RX_MAX, -EINVAL, ports[0]);
	struct pipeline *p = calloc(1, sizeof(*p));
	if (p == NULL)
		rte_exit(EXIT_FAILURE, "pipeline: err=%d, port=%u\n", -ENOMEM, ports[0]);
	*p = (struct pipeline){
		.conf = conf,
		.n_ports = n_ports,
		.ports = ports,
		.macs = macs,
		.pkt_pool = pkt_pool,
		.epoch = epoch,
		.view = view,
		.front = hc->role != SPATED_ROLE_MATCH,
		.multi = hc->role != SPATED_ROLE_BOTH,
		.n_rxs = n_rxs,
		/* a front's workers are its match hosts' lcores; none of them here */
		.n_workers = hc->role == SPATED_ROLE_FRONT ? host_conf_remote_workers(hc)
							   : conf->lcores.n_match,
		.max_payload = conf->mtu - IPV4_UDP_HDRS,
	};
	p->n_local = hc->role == SPATED_ROLE_FRONT ? 0 : p->n_workers;
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		p->plans[l].p = p;
		p->plans[l].lcore = l;
	}
	shared_create(p);
	rings_create(p);
	for (struct pipeline_stage *st = stages; st != NULL; st = st->next)
		st->create(p);
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
	/* by destroy_order: TX last, it frees what the others left in its rings */
	int done = INT32_MIN;
	for (;;) {
		struct pipeline_stage *next = NULL;
		for (struct pipeline_stage *st = stages; st != NULL; st = st->next)
			if (st->destroy_order > done &&
			    (next == NULL || st->destroy_order < next->destroy_order))
				next = st;
		if (next == NULL)
			break;
		next->destroy(p);
		done = next->destroy_order;
	}
	/* old directory versions: wait for their frees, then the rest */
	urcu_qsbr_barrier();
	category_dir_destroy(p->dir);
	urcu_qsbr_set_thread_call_rcu_data(NULL);
	urcu_qsbr_call_rcu_data_free(p->crdp);
	for (unsigned int i = 0; i < p->n_rings; i++)
		rte_ring_free(p->all_rings[i]);
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
		fn(ctx, p->all_rings[i]);
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
	return pipeline_lcore_of(p->conf->lcores.cluster, "cluster");
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

/* The pipeline as a module (module.h): built once the ports and the
 * membership are up, freed after everything that reads it. */
static void pipeline_init(struct spated *d)
{
	d->pl = pipeline_create(&d->conf, d->n_ports, d->ports, d->macs, d->pkt_pool, d->epoch,
				d->zk != NULL ? &d->view : NULL);
}

static void pipeline_fini(struct spated *d)
{
	pipeline_destroy(d->pl);
}

static struct spated_module pipeline_module = {
	.name = "pipeline",
	.order = SPATED_ORDER_PIPELINE,
	.init = pipeline_init,
	.fini = pipeline_fini,
};
SPATED_MODULE(pipeline_module)
