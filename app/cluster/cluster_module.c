/* cluster_module.c - what the cluster module registers (module.h,
 * pipeline_int.h): the keys every datagram is checked against, the
 * cluster stage (on fronts), and the subscription journal it records
 * into and is replayed from. */
#include <stdio.h>
#include <stdlib.h>

#include "cluster/access.h"
#include "cluster/stage_cluster.h"
#include "infra/counters.h"
#include "infra/module.h"
#include "infra/pipeline_int.h"
#include "link/stage_link.h"
#include "link/zk_member.h"
#include "match/stage_match.h"
#include "proto/spate_err.h"
#include "store/durable.h"

/* Before the stages: the cluster stage checks every datagram with it. */
static void access_init(struct spated *d)
{
	spated_access = access_create(&d->conf.ops);
	if (spated_access == NULL)
		rte_exit(EXIT_FAILURE, "access control: err=%d, port=%u\n", -ENOMEM, 0u);
}

static void access_fini(struct spated *d)
{
	(void)d;
	access_destroy(spated_access);
}

static struct spated_module access_module = {
	.name = "access",
	.order = SPATED_ORDER_ACCESS,
	.init = access_init,
	.fini = access_fini,
};
SPATED_MODULE(access_module)

static unsigned int poll_cluster(void *a)
{
	return stage_cluster_poll(a);
}

static void cluster_create(struct pipeline *p)
{
	const struct spated_conf *conf = p->conf;
	const struct host_conf *hc = &conf->hosts;

	if (!p->front)
		return;
	struct stage_cluster_conf cc = {
		.in = p->rings.rx_to_cluster,
		.n_in = p->n_rxs,
		.to_match = p->rings.cluster_to_match,
		.feedback = p->rings.match_to_cluster,
		.n_workers = p->n_workers,
		.to_tx = p->rings.cluster_to_tx,
		.msg_pool = p->msg_pool,
		.pkt_pool = p->pkt_pool,
		.dir = p->dir,
		.common = &conf->common,
		.max_payload = p->max_payload,
		.backlog_max = conf->backlog_max,
		.preload = conf->preload,
		/* several fronts: each numbers its categories apart */
		.cat_base = hc->role == SPATED_ROLE_FRONT ? host_conf_front_rank(hc, hc->host_id)
								    << SPATED_CAT_FRONT_SHIFT
							  : 0,
	};
	p->cluster = stage_cluster_create(&cc);
	if (p->cluster == NULL)
		rte_exit(EXIT_FAILURE, "cluster stage: err=%d, port=%u\n", -ENOMEM, p->ports[0]);
	pipeline_place(p, conf->lcores.cluster, "cluster", poll_cluster, p->cluster,
		       offsetof(struct spated_counters, cycles_cluster));
}

static void cluster_destroy(struct pipeline *p)
{
	stage_cluster_destroy(p->cluster);
}

static struct pipeline_stage cluster_stage = {
	.name = "cluster",
	.order = PIPELINE_ORDER_CLUSTER,
	.destroy_order = PIPELINE_DESTROY_CLUSTER,
	.create = cluster_create,
	.destroy = cluster_destroy,
};
PIPELINE_STAGE(cluster_stage)

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

static struct durable *journal_open(struct pipeline *p, char *err, size_t errlen)
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

/* The journal (spated.journal.path): replayed into the stages before the
 * lcores start, recorded into from then on. */
static void journal_init(struct spated *d)
{
	const char *path = d->conf.ops.journal_path;
	char err[512];

	if (path[0] == '\0')
		return;
	if (!zk_member_serves(d->zk)) {
		/* another front took this front's service over while it was
		 * away: it holds those subscriptions now, ours are stale (a
		 * replay would bring back what was deleted since) */
		char aside[sizeof(d->conf.ops.journal_path) + 32];
		snprintf(aside, sizeof(aside), "%s.stale-%u", path, d->epoch);
		if (rename(path, aside) == 0)
			fprintf(stderr, "spated: a standby: the journal is stale, moved to %s\n",
				aside);
	}
	spated_durable = journal_open(d->pl, err, sizeof(err));
	if (spated_durable == NULL)
		rte_exit(EXIT_FAILURE, "%s\n", err);
}

static void journal_fini(struct spated *d)
{
	(void)d;
	durable_close(spated_durable); /* what is pending, synced */
	spated_durable = NULL;
}

static struct spated_module journal_module = {
	.name = "journal",
	.order = SPATED_ORDER_JOURNAL,
	.init = journal_init,
	.fini = journal_fini,
};
SPATED_MODULE(journal_module)
