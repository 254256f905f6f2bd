/* link_module.c - what the link module registers (module.h,
 * pipeline_int.h): this host's membership (its epoch; ZooKeeper's view
 * of the peers when configured) and, on several hosts, the link stage. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cluster/stage_cluster.h"
#include "control/control.h"
#include "infra/counters.h"
#include "infra/module.h"
#include "infra/pipeline_int.h"
#include "link/stage_link.h"
#include "link/zk_member.h"

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

/* Multi-host with ZooKeeper: an epoch and the peers' view first (the
 * link binds its channels to them) */
static void member_init(struct spated *d)
{
	const struct spated_conf *conf = &d->conf;
	char err[512];

	d->epoch = 1;
	if (conf->hosts.role != SPATED_ROLE_BOTH && conf->hosts.zookeeper[0] == '\0') {
		d->epoch = static_epoch();
		printf("spated: static peers: this incarnation is epoch %u (its boot time)\n",
		       d->epoch);
	}
	if (conf->hosts.zookeeper[0] != '\0') {
		host_view_init(&d->view);
		d->zk = zk_member_start(&conf->hosts, conf->ipv4,
					conf->hosts.role == SPATED_ROLE_MATCH ? conf->lcores.n_match
									      : 0,
					&d->view, &d->epoch, err, sizeof(err));
		if (d->zk == NULL)
			rte_exit(EXIT_FAILURE, "%s\n", err);
	}
}

/* Leave at once: peers see a clean exit, not a session expiry later. */
static void member_stop(struct spated *d)
{
	zk_member_stop(d->zk);
}

static struct spated_module member_module = {
	.name = "member",
	.order = SPATED_ORDER_MEMBER,
	.init = member_init,
	.stop = member_stop,
};
SPATED_MODULE(member_module)

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

static void waiting(void *ctx, uint32_t w, void (*fn)(void *fctx, void *obj), void *fctx)
{
	stage_cluster_waiting(ctx, w, fn, fctx);
}

static int adopt(void *ctx, uint32_t owner, const struct spate_raw_sub *rs)
{
	return stage_cluster_adopt(ctx, owner, rs);
}

static void relayed(void *ctx, const struct spate_raw_event *ev)
{
	stage_cluster_relayed(ctx, ev);
}

/* Another front among the peers: share the events; with ZooKeeper, copy
 * the subscriptions (it stands by for us). */
static void join_fronts(struct pipeline *p)
{
	const struct host_conf *hc = &p->conf->hosts;

	for (uint32_t i = 0; i < hc->n_peers; i++)
		if (hc->peer[i].lcores == 0) {
			stage_cluster_set_relay(p->cluster, stage_link_relay, p->link);
			if (p->view != NULL)
				stage_cluster_set_repl(p->cluster, stage_link_repl_add,
						       stage_link_repl_del, stage_link_repl_done,
						       p->link);
			return;
		}
}

static void link_create(struct pipeline *p)
{
	const struct spated_conf *conf = p->conf;
	const struct host_conf *hc = &conf->hosts;
	const int front = p->front;

	if (!p->multi)
		return;
	struct stage_link_conf lc = {
		.hosts = hc,
		.epoch = p->epoch,
		.from_rx = p->rings.rx_to_link,
		.n_rx = p->n_rxs,
		.to_tx = p->rings.link_to_tx,
		.msg_pool = p->msg_pool,
		.pkt_pool = p->pkt_pool,
		.max_frame = p->max_payload,
		.lim = &conf->common.limits,
		.n_workers = p->n_workers,
		/* front: cluster -> workers, feedback back; match: the reverse */
		.from_stage = front ? p->rings.cluster_to_match : p->rings.match_to_cluster,
		.to_stage = front ? p->rings.match_to_cluster : p->rings.cluster_to_match,
		.front_matcher = front ? stage_cluster_matcher(p->cluster) : NULL,
		.match_conf = &conf->common.matcher,
		.handoff_in = p->rings.match_to_link,
		.cat_engine = conf->category_engine,
		.cat_cell = conf->common.matcher.params.drt.cat_cell,
		.view = p->view,
		.keys = &hc->keys,
		.workers_changed = front ? workers_changed : NULL,
		.relayed = front ? relayed : NULL,
		.can_take = front ? can_take : NULL,
		.waiting = front ? waiting : NULL,
		.adopt = front ? adopt : NULL,
		.n_ports = p->n_ports,
		.ports = p->ports,
		.macs = p->macs,
		.backlog_max = conf->backlog_max,
		.workers_ctx = p->cluster,
	};
	p->link = stage_link_create(&lc);
	if (p->link == NULL)
		rte_exit(EXIT_FAILURE, "link stage (%s): err=%d, port=%u\n",
			 host_conf_role_name(hc->role), -ENOMEM, p->ports[0]);
	if (front)
		join_fronts(p);
	/* on a front the link reads the cluster matcher's dictionaries: same
	 * lcore; on a match host it takes the cluster's lcore */
	pipeline_place(p, conf->lcores.cluster, "cluster", front ? poll_link : poll_link_ctl,
		       p->link, offsetof(struct spated_counters, cycles_link));
}

static void link_destroy(struct pipeline *p)
{
	stage_link_destroy(p->link);
}

static struct pipeline_stage link_stage = {
	.name = "link",
	.order = PIPELINE_ORDER_LINK,
	.destroy_order = PIPELINE_DESTROY_LINK,
	.create = link_create,
	.destroy = link_destroy,
};
PIPELINE_STAGE(link_stage)
