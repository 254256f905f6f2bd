/* cluster_failover.c - the cluster stage's rehoming (cluster_int.h).
 *
 * Multi-host failover (docs/multihost.md): when a match host dies, the
 * clustering gives its workers' categories to live ones and every
 * subscription of those categories is sent again; when it comes back,
 * what was left on it is sent whole and balancing gives it work soon.
 */
#include <string.h>

#include <rte_cycles.h>

#include "cluster/category_dir.h"
#include "cluster/cluster_int.h"
#include "infra/counters.h"
#include "proto/spate_err.h"

/* A match host back (or new): the load period ends this long after, so
 * balancing gives it work within seconds, not after lambda events (at
 * the default 50,000 that may be minutes, or never under a steady load). */
#define REBALANCE_AFTER_UP_MS 1000

struct rebuild_ctx {
	struct stage_cluster *s;
	uint64_t subs;
};

/* Workers as bits (w % 64; a front has at most SPATED_MATCH_MAX). */
static uint64_t worker_mask(const uint32_t *w, uint32_t n)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < n; i++)
		m |= 1ull << (w[i] % 64);
	return m;
}

/* Which categories a rebuild sends again: those moved away from a
 * worker in came_from (their handoff may never have come), and those
 * on a worker in on (counted: the new incarnation gets them whole). */
struct mark {
	uint64_t came_from, on;
};

static void mark_rebuild(uint64_t key, void *val, void *ctx)
{
	struct ccat *c = val;
	const struct mark *m = ctx;

	(void)key;
	if (m->on >> (c->worker % 64) & 1) {
		c->rebuild = 1;
		spated_cnt.failover_cats++;
	} else if (c->came_from & m->came_from) {
		c->rebuild = 1;
	}
}

static void clear_rebuild(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	((struct ccat *)val)->rebuild = 0;
}

/* One stored subscription: again to its category's worker if that
 * category is rebuilt (nobody is answered: reply type 0). */
static void resend_sub(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	struct rebuild_ctx *x = ctx;
	struct stage_cluster *s = x->s;
	uint32_t cat = cluster_current_cat(s, rs->id);
	struct ccat *c = ccat_of(s, cat);

	(void)owner;
	if (c == NULL || !c->rebuild)
		return;
	const struct spate_sub *q = spate_matcher_sub_find(s->m, rs->id);
	struct pl_msg *m = q ? control_msg(s, PL_SUB_ADD, cat, 0) : NULL;
	if (m == NULL) {
		spated_cnt.msg_no_memory++;
		return;
	}
	memset(&m->u.sub.reply, 0, sizeof(m->u.sub.reply));
	m->u.sub.drop_cat = 0;
	cluster_copy_sub(&m->u.sub, q);
	send_to(s, c->worker, m);
	x->subs++;
}

/* Every subscription of the categories marked, again to their workers. */
static void resend_marked(struct stage_cluster *s)
{
	struct rebuild_ctx x = { s, 0 };

	if (spate_matcher_foreach_sub(s->m, resend_sub, &x) != 0)
		spated_cnt.msg_no_memory++;
	spate_idmap_foreach(s->cats, clear_rebuild, NULL);
	spated_cnt.failover_subs += x.subs;
	stage_cluster_flush(s);
}

void stage_cluster_waiting(struct stage_cluster *s, uint32_t w, void (*fn)(void *ctx, void *obj),
			   void *ctx)
{
	if (w < s->n_workers)
		ring_out_each(&s->to_match[w], fn, ctx);
}

int stage_cluster_workers_down(struct stage_cluster *s, const uint32_t *w, uint32_t n)
{
	uint64_t t0 = rte_get_timer_cycles();
	struct mark m = { worker_mask(w, n), 0 };
	int rc = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (w[i] >= s->n_workers)
			continue;
		s->down |= 1ull << (w[i] % 64);
		/* what waits for the dead worker will never be taken */
		ring_out_discard(&s->to_match[w[i]]);
		int moved = drt_cluster_worker_set(s->cl, w[i], false);
		if (moved < 0)
			rc = moved; /* the last live worker: it stays, unreachable */
	}
	/* the categories the clustering gave new workers, and those that
	 * came from a dead worker (their handoff may never have come) */
	for (uint32_t i = 0; i < drt_cluster_count(s->cl); i++) {
		struct drt_cat_info info;
		drt_cluster_cat_at(s->cl, i, &info);
		struct ccat *c = ccat_of(s, info.id);
		if (c == NULL || c->worker == info.worker)
			continue;
		c->worker = info.worker;
		c->rebuild = 1;
		spated_cnt.failover_cats++;
		cluster_publish(s, info.id);
	}
	spate_idmap_foreach(s->cats, mark_rebuild, &m);
	resend_marked(s);
	spated_cnt.failover_us = (rte_get_timer_cycles() - t0) * 1000000 / rte_get_timer_hz();
	return rc;
}

void stage_cluster_workers_up(struct stage_cluster *s, const uint32_t *w, uint32_t n)
{
	struct mark m = { 0, 0 };

	for (uint32_t i = 0; i < n; i++) {
		uint64_t bit = 1ull << (w[i] % 64);
		if (w[i] >= s->n_workers || !(s->down & bit))
			continue;
		s->down &= ~bit;
		m.on |= bit;
		if (!drt_cluster_worker_up(s->cl, w[i]))
			drt_cluster_worker_set(s->cl, w[i], true);
	}
	/* categories left on them while every worker was down lost what was
	 * sent meanwhile: the new incarnation gets them whole (the last live
	 * worker's too: the clustering never marked it down) */
	if (m.on != 0) {
		spate_idmap_foreach(s->cats, mark_rebuild, &m);
		resend_marked(s);
	}
	s->rebalance_at =
		rte_get_timer_cycles() + rte_get_timer_hz() * REBALANCE_AFTER_UP_MS / 1000;
}
