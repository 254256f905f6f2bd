/* match_module.c - what the match module registers (pipeline_int.h):
 * the matching stages of the workers on this host. */
#include <stdlib.h>

#include "infra/counters.h"
#include "infra/pipeline_int.h"
#include "match/stage_match.h"

static unsigned int poll_match(void *a)
{
	return stage_match_poll(a);
}

static void match_create(struct pipeline *p)
{
	const struct spated_conf *conf = p->conf;
	struct pipeline_rings *r = &p->rings;

	for (uint32_t w = 0; w < p->n_local; w++) {
		struct rte_ring *from_peers[SPATED_MATCH_MAX], *to_peers[SPATED_MATCH_MAX];
		for (uint32_t v = 0; v < p->n_workers; v++) {
			from_peers[v] = r->match_to_match[v][w];
			to_peers[v] = r->match_to_match[w][v];
		}
		struct stage_match_conf mc = {
			.worker = w,
			.n_workers = p->n_workers,
			.in = r->cluster_to_match[w],
			.peer_in = from_peers,
			.peer_out = to_peers,
			.to_tx = r->match_to_tx[w],
			.feedback = r->match_to_cluster[w],
			.to_link = r->match_to_link[w],
			.msg_pool = p->msg_pool,
			.pkt_pool = p->pkt_pool,
			.cat_engine = conf->category_engine,
			.cat_cell = conf->common.matcher.params.drt.cat_cell,
			.max_payload = p->max_payload,
			.max_messages = conf->common.limits.max_messages,
			.cpu_accounting = conf->cpu_accounting,
		};
		p->match[w] = stage_match_create(&mc);
		if (p->match[w] == NULL)
			rte_exit(EXIT_FAILURE, "matching stage %u: err=%d, port=%u\n", w, -ENOMEM,
				 p->ports[0]);
		pipeline_place(p, conf->lcores.match[w], "match", poll_match, p->match[w],
			       offsetof(struct spated_counters, cycles_match));
	}
}

static void match_destroy(struct pipeline *p)
{
	for (uint32_t w = 0; w < p->n_local; w++)
		stage_match_destroy(p->match[w]);
}

static struct pipeline_stage match_stage = {
	.name = "match",
	.order = PIPELINE_ORDER_MATCH,
	.destroy_order = PIPELINE_DESTROY_MATCH,
	.create = match_create,
	.destroy = match_destroy,
};
PIPELINE_STAGE(match_stage)
