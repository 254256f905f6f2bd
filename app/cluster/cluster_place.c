/* cluster_place.c - the cluster stage's clustering (cluster_int.h).
 *
 * The spate_matcher in front calls back into this file as its "engine"
 * (cluster_front_ops): sub_add/sub_del/match there place, forward and
 * route instead of indexing, and the answers come back asynchronously
 * from the matching stages. The clustering is DRt-Cluster's
 * (lib/engines/drt/drt_cluster.h); this file keeps what a distributed
 * caller needs on top of it: each category's owner and size, each
 * subscription's category at placement, and where merged categories went
 * (to find a subscription's category now), and it gathers the matching
 * stages' feedback per event for the correlation counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "cluster/category_dir.h"
#include "cluster/cluster_int.h"
#include "infra/counters.h"
#include "infra/latency.h"
#include "proto/spate_err.h"

/* A new version of cat's directory entry. */
void cluster_publish(struct stage_cluster *s, uint32_t cat)
{
	struct ccat *c = ccat_of(s, cat);

	if (c != NULL && category_dir_set(s->dir, cat, c->worker, c->size) != 0)
		spated_cnt.msg_no_memory++;
}

static void forget_cat(struct stage_cluster *s, uint32_t cat)
{
	free(spate_idmap_del(s->cats, cat));
	category_dir_del(s->dir, cat);
}

/* Move: the old owner hands it over, the new one holds its messages till
 * then. EXPECT first: nothing for cat may reach `to` before it. */
static void move(struct stage_cluster *s, uint32_t cat, uint32_t from, uint32_t to)
{
	struct pl_msg *x =
		control_msg(s, PL_EXPECT, cat, from); /* from: the link names the old owner */
	struct pl_msg *mv = control_msg(s, PL_MOVE, cat, to);

	if (x == NULL || mv == NULL) {
		if (x)
			pl_msg_put(s->msg_pool, x);
		if (mv)
			pl_msg_put(s->msg_pool, mv);
		return; /* counted: the category stays where it is, unreachable */
	}
	send_to(s, to, x);
	send_to(s, from, mv);
}

/* Carry out what the clustering decided, in its order. */
void cluster_run_actions(struct stage_cluster *s)
{
	size_t n;

	while ((n = drt_cluster_take_actions(s->cl, s->acts, MAX_ACTIONS)) > 0)
		for (size_t i = 0; i < n; i++) {
			const struct drt_action *a = &s->acts[i];
			struct ccat *c = ccat_of(s, a->cat);
			if (c == NULL) {
				SPATED_CAT_UNKNOWN(cat_unknown_action);
				continue;
			}
			if (a->kind == DRT_ACTION_MOVE) {
				move(s, a->cat, a->from_worker, a->to_worker);
				spated_cnt.move_subs += c->size;
				c->came_from |= 1ull << (a->from_worker % 64);
				c->worker = a->to_worker;
				cluster_publish(s, a->cat);
				continue;
			}
			/* MERGE cat into a->into; across workers: move, then merge there */
			struct ccat *into = ccat_of(s, a->into);
			if (into == NULL) {
				SPATED_CAT_UNKNOWN(cat_unknown_action);
				continue;
			}
			if (a->from_worker != a->to_worker) {
				move(s, a->cat, a->from_worker, a->to_worker);
				into->came_from |= 1ull << (a->from_worker % 64);
				spated_cnt.merges_between++;
				spated_cnt.merge_subs_between += c->size;
			} else {
				spated_cnt.merge_subs_in_node += c->size;
			}
			into->came_from |= c->came_from;
			struct pl_msg *mg = control_msg(s, PL_MERGE, a->into, a->cat);
			if (mg != NULL)
				send_to(s, a->to_worker, mg);
			into->size += c->size;
			if (spate_idmap_put(s->fwd, a->cat, (void *)(uintptr_t)(a->into + 1)) != 0)
				spated_cnt
					.msg_no_memory++; /* only a retransmission's ACK needs it */
			forget_cat(s, a->cat);
			cluster_publish(s, a->into);
		}
}

/* Category c - 1 now (merges followed; 0: none). */
uint32_t cluster_follow_cat(struct stage_cluster *s, uintptr_t c)
{
	uintptr_t next;

	while (c != 0 && (next = (uintptr_t)spate_idmap_get(s->fwd, c - 1)) != 0)
		c = next;
	return c ? (uint32_t)(c - 1) : 0;
}

/* The category a placed subscription is in now. */
uint32_t cluster_current_cat(struct stage_cluster *s, uint64_t sub_id)
{
	return cluster_follow_cat(s, (uintptr_t)spate_idmap_get(s->home, sub_id));
}

void cluster_copy_sub(struct pl_sub *ps, const struct spate_sub *q)
{
	ps->sub = *q;
	ps->sub.engine_word = 0; /* the front's engine's, not the receiver's */
	ps->sub.kw = NULL;
	ps->sub.cons = NULL;
	memcpy(ps->kw, q->kw, q->n_kw * sizeof(*q->kw));
	memcpy(ps->cons, q->cons, q->n_cons * sizeof(*q->cons));
}

static int front_sub_add(struct spate_engine *e, const struct spate_sub *q)
{
	struct stage_cluster *s = e->s;
	struct drt_placement pl;
	struct drt_removal rm;
	int rc = drt_cluster_place(s->cl, q, &pl);

	if (rc != 0)
		return rc;
	struct ccat *c = ccat_of(s, pl.cat);
	if (c == NULL) {
		c = calloc(1, sizeof(*c));
		if (c == NULL || spate_idmap_put(s->cats, pl.cat, c) != 0) {
			free(c);
			goto undo;
		}
	}
	struct pl_msg *m = control_msg(s, PL_SUB_ADD, pl.cat, 0);
	if (m == NULL || spate_idmap_put(s->home, q->id, (void *)(uintptr_t)(pl.cat + 1)) != 0) {
		if (m)
			pl_msg_put(s->msg_pool, m);
		goto undo;
	}
	c->worker = pl.worker;
	c->size++;
	m->u.sub.reply = s->cur;
	cluster_copy_sub(&m->u.sub, q);
	send_to(s, pl.worker, m);
	cluster_publish(s, pl.cat); /* new, or one more subscription */
	s->forwarded = 1;
	cluster_run_actions(s); /* merges it caused, after the add itself */
	return 0;
undo:
	drt_cluster_remove(s->cl, q, &rm);
	if (rm.emptied)
		forget_cat(s, rm.cat);
	return -SPATE_E_NO_MEMORY;
}

static void front_sub_del(struct spate_engine *e, const struct spate_sub *q)
{
	struct stage_cluster *s = e->s;
	struct drt_removal rm;

	if (drt_cluster_remove(s->cl, q, &rm) != 0)
		return;
	spate_idmap_del(s->home, q->id);
	uint64_t *tag = spate_matcher_del_tag(s->m, q->id);
	if (tag != NULL)
		*tag = (uint64_t)rm.cat + 1; /* a retransmission's ACK goes behind it */
	struct pl_msg *m = control_msg(s, PL_SUB_DEL, rm.cat, 0);
	if (m != NULL) {
		m->u.sub.reply = s->cur;
		m->u.sub.drop_cat = rm.emptied;
		m->u.sub.sub.id = q->id;
		send_to(s, rm.worker, m);
		s->forwarded = 1;
	}
	if (rm.emptied) {
		forget_cat(s, rm.cat);
	} else {
		struct ccat *c = ccat_of(s, rm.cat);
		if (c != NULL)
			c->size--;
		cluster_publish(s, rm.cat);
	}
}

/* One event part for `worker`: the event and up to PL_EVENT_CATS of its
 * categories there. */
static struct pl_msg *event_part(struct stage_cluster *s, const struct spate_event *ev,
				 uint32_t seq, uint16_t parts)
{
	struct pl_msg *m = pl_msg_get(s->msg_pool, 0);

	if (m == NULL) {
		spated_cnt.msg_no_memory++;
		return NULL;
	}
	m->type = PL_EVENT;
	m->cat = 0;
	struct pl_event *pe = &m->u.ev;
	pe->id = ev->id;
	pe->lon = ev->lon;
	pe->lat = ev->lat;
	pe->n_kw = ev->n_kw;
	pe->n_attr = ev->n_attr;
	pe->n_cat = 0;
	pe->seq = seq;
	pe->rx_tsc = s->cur_rx_tsc;
	pe->parts = parts;
	memcpy(pe->kw, ev->kw, ev->n_kw * sizeof(*ev->kw));
	memcpy(pe->attr, ev->attr, ev->n_attr * sizeof(*ev->attr));
	return m;
}

/* Start gathering the feedback of an event sent in `parts` parts. */
static void fb_open(struct stage_cluster *s, uint32_t seq, uint16_t parts)
{
	struct fb_slot *f = &s->fb[seq % FB_SLOTS];

	if (f->parts_left > 0 && f->n > 1)
		drt_cluster_feedback(s->cl, f->cats, f->n); /* parts lost: use what came */
	f->seq = seq;
	f->parts_left = parts;
	f->n = 0;
}

/* One worker's matching categories for event `seq`. */
static void fb_part(struct stage_cluster *s, const struct pl_feedback *fb)
{
	if (fb->parts == 1) {
		drt_cluster_feedback(s->cl, fb->cats, fb->n);
		return;
	}
	struct fb_slot *f = &s->fb[fb->seq % FB_SLOTS];
	if (f->seq != fb->seq || f->parts_left == 0)
		return; /* too late: the slot went to a newer event */
	for (uint16_t i = 0; i < fb->n && f->n < FB_CATS; i++)
		f->cats[f->n++] = fb->cats[i];
	if (--f->parts_left == 0 && f->n > 1)
		drt_cluster_feedback(s->cl, f->cats, f->n);
}

static int front_match(struct spate_engine *e, const struct spate_event *ev,
		       struct spate_matchvec *mv)
{
	struct stage_cluster *s = e->s;
	const struct drt_route *r;
	size_t n = drt_cluster_route(s->cl, ev, &r);
	uint32_t seq = ++s->fb_seq;
	uint16_t parts = 0;

	(void)mv;
	spated_cnt.events++;
	if (n == 0) /* in no category: matched, with nothing */
		spated_lat_record(SPATED_LAT_RX_MATCHED, s->cur_rx_tsc, rte_rdtsc());
	for (size_t i = 0; i < n; i++)
		spated_cnt.events_routed++;
	/* how many parts: a worker's categories in PL_EVENT_CATS chunks */
	for (uint32_t w = 0; w < s->n_workers; w++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			k += r[i].worker == w;
		parts += (uint16_t)((k + PL_EVENT_CATS - 1) / PL_EVENT_CATS);
	}
	if (parts > 1)
		fb_open(s, seq, parts);
	for (uint32_t w = 0; w < s->n_workers; w++) {
		struct pl_msg *m = NULL;
		for (size_t i = 0; i < n; i++) {
			if (r[i].worker != w)
				continue;
			if (m != NULL && m->u.ev.n_cat == PL_EVENT_CATS) {
				send_to(s, w, m);
				m = NULL;
			}
			if (m == NULL && (m = event_part(s, ev, seq, parts)) == NULL)
				break; /* counted: this worker's part is lost */
			m->u.ev.cats[m->u.ev.n_cat++] = r[i].cat;
		}
		if (m != NULL)
			send_to(s, w, m);
	}
	if (drt_cluster_period_due(s->cl))
		drt_cluster_period_end(s->cl); /* no memory: no moves this period */
	cluster_run_actions(s);                /* moves decided at the end of a load period */
	return 0;
}

static void front_destroy(struct spate_engine *e)
{
	(void)e;
}

/* Operators' changes (spatectl, run by control_poll on this lcore): the
 * clustering takes new parameters; what shapes the grids or the workers
 * waits for the next start. */
static int front_set_params(struct spate_engine *e, const struct spate_engine_params *p, char *err,
			    size_t errlen)
{
	const struct drt_params *now = &spate_matcher_get_conf(e->s->m)->params.drt;
	struct drt_params np = p->drt;

	if (np.workers != now->workers || np.cat_cell != now->cat_cell) {
		snprintf(err, errlen, "%s changes at the next start only (it shapes the %s)",
			 np.workers != now->workers ? "workers" : "cat_cell",
			 np.workers != now->workers ? "pipeline" : "categories' grids");
		return -1;
	}
	np.workers = e->s->n_workers; /* the cluster plans for the real workers */
	return drt_cluster_set_params(e->s->cl, &np, err, errlen);
}

static void front_rebalance(struct spate_engine *e)
{
	drt_cluster_period_end(e->s->cl);
	cluster_run_actions(e->s);
}

static void front_categories(const struct spate_engine *e, spate_category_fn fn, void *ctx)
{
	drt_cluster_each_category(e->s->cl, fn, ctx);
}

const struct spate_engine_ops cluster_front_ops = {
	.name = "pipeline",
	.help = "spated's cluster stage: places, routes and forwards to matching lcores",
	.destroy = front_destroy,
	.sub_add = front_sub_add,
	.sub_del = front_sub_del,
	.match = front_match,
	.set_params = front_set_params,
	.rebalance = front_rebalance,
	.categories = front_categories,
};

void cluster_feedback(void *ctx, void *obj)
{
	struct stage_cluster *s = ctx;

	fb_part(s, &((struct pl_msg *)obj)->u.fb);
	pl_msg_put(s->msg_pool, obj);
}
