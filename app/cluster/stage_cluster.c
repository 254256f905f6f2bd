/* stage_cluster.c - the cluster stage (stage_cluster.h).
 *
 * The spate_matcher in front calls back into this file as its "engine"
 * (front_ops): sub_add/sub_del/match there place, forward and route
 * instead of indexing, and the answers come back asynchronously from the
 * matching stages. The clustering is DRt-Cluster's (lib/engines/drt/drt_cluster.h);
 * this stage keeps what a distributed caller needs on top of it: each
 * category's owner and size, each subscription's category at placement,
 * and where merged categories went (to find a subscription's category
 * now), and it gathers the matching stages' feedback per event for the
 * correlation counts.
 *
 * With a journal (durable.h), every applied SUB_ADD/SUB_DEL from the
 * network is recorded, and from then until the record is durable all
 * output of this stage is held in its rings' backlogs (hold()), in
 * order: the matching stages ACK a change only once they have it, so no
 * ACK leaves before its record is safe, and events queue behind the
 * changes they must see. Replayed and preloaded operations have no one
 * to answer and are not recorded again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "cluster/access.h"
#include "control/control.h"
#include "infra/counters.h"
#include "store/durable.h"
#include "infra/latency.h"
#include "net/notify.h"
#include "infra/pl_msg.h"
#include "engines/drt/drt_cluster.h"
#include "matcher/spate_idmap.h"
#include "infra/ring_out.h"
#include "proto/spate_err.h"
#include "matcher/spate_matcher.h"
#include "proto/spate_proto.h"
#include "stream/spate_stream.h"
#include "cluster/stage_cluster.h"
#include "net/tx_out.h"

#define MAX_ACTIONS 64
#define FB_SLOTS 1024   /* events whose feedback parts are being gathered */
#define FB_CATS 32      /* categories per event kept for correlation */
#define DEL_MEMORY 4096 /* recent deletes recognised when retransmitted */
/* A match host back (or new): the load period ends this long after, so
 * balancing gives it work within seconds, not after lambda events (at
 * the default 50,000 that may be minutes, or never under a steady load). */
#define REBALANCE_AFTER_UP_MS 1000

/* A category as this stage tracks it. */
struct ccat {
	uint32_t worker, size;
	/* workers (bit w % 64) it or a category merged into it was moved
	 * away from: if one dies, a handoff from it may never have come */
	uint64_t came_from;
	uint8_t rebuild; /* failover: send its subscriptions again */
};

/* Feedback of one event split over several workers. */
struct fb_slot {
	uint32_t seq;
	uint16_t parts_left, n;
	uint32_t cats[FB_CATS];
};

/* The matcher's engine: a way back to the stage. */
struct spate_engine {
	struct stage_cluster *s;
};

struct stage_cluster {
	struct spate_engine front;
	struct spate_matcher *m;
	struct drt_cluster *cl;
	struct spate_idmap *cats; /* category id -> struct ccat */
	struct spate_idmap *home; /* sub id -> category id + 1 at placement */
	struct spate_idmap *fwd;  /* merged category id -> id + 1 merged into */
	struct rte_ring **fb_in;  /* [n_workers] feedback from the workers */
	uint32_t fb_seq;
	struct fb_slot *fb;
	struct category_dir *dir;
	const struct spate_limits *lim;
	struct rte_ring **in;
	uint32_t n_in, next_in;
	uint32_t n_workers;
	struct ring_out *to_match;
	struct tx_out to_tx;
	struct rte_mempool *msg_pool;
	struct notifier *nt; /* NACKs */
	uint32_t backlog_max;
	struct durable *dur; /* NULL: no journal */
	/* several fronts: a client's event goes to the others too */
	void (*relay)(void *ctx, const struct spate_raw_event *ev);
	void *relay_ctx;
	/* several fronts: each subscription change copied to the others,
	 * answers held until they have it (stage_link_repl_*) */
	void (*repl_add)(void *ctx, const struct spate_raw_sub *rs, uint32_t owner);
	void (*repl_del)(void *ctx, uint64_t id, uint32_t owner);
	int (*repl_done)(void *ctx);
	void *repl_ctx;
	int holding;           /* output held until the journal is durable */
	uint64_t rebalance_at; /* timer cycles: end the load period then (0: no) */
	int last_nack;         /* the code of the last refusal (replay counts them) */
	/* the request being handled */
	struct pl_reply cur;
	uint64_t cur_rx_tsc; /* the datagram being read: its RX stamp */
	int forwarded;
	struct spate_matchvec mv; /* always empty: matches happen downstream */
	struct spate_msg msg;     /* a decoded message is a few KB: not on the stack */
	struct drt_action acts[MAX_ACTIONS];
	/* datagrams taken from RX but not handled yet (held back) */
	struct rte_mbuf *pending[PL_BURST];
	unsigned int n_pending, next_pending;
	/* the pool count includes other lcores' caches, which this lcore
	 * cannot take from: keep that much more */
	unsigned int pool_margin;
	/* the pool's free count when last read, less an upper bound of what
	 * the datagrams handled since took (reading the count sums every
	 * lcore's cache: once a poll, not once a datagram) */
	unsigned int pool_est;
	/* subscriptions to apply from a stream file first (spated.preload) */
	struct spate_stream_reader pre;
	int pre_open;
	struct spate_stream_op pre_op;
};

static void drop_msg(void *ctx, void *obj)
{
	struct stage_cluster *s = ctx;
	pl_msg_put(s->msg_pool, obj);
}

static void send_to(struct stage_cluster *s, uint32_t worker, struct pl_msg *m)
{
	ring_out_push(&s->to_match[worker % s->n_workers], m);
}

/* A control message (never dropped: from the heap if the pool is dry). */
static struct pl_msg *control(struct stage_cluster *s, uint8_t type, uint32_t cat, uint32_t other)
{
	return pl_msg_control(s->msg_pool, type, cat, other);
}

static struct ccat *ccat_of(struct stage_cluster *s, uint32_t cat)
{
	return spate_idmap_get(s->cats, cat);
}

/* A new version of cat's directory entry. */
static void publish(struct stage_cluster *s, uint32_t cat)
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
		control(s, PL_EXPECT, cat, from); /* from: the link names the old owner */
	struct pl_msg *mv = control(s, PL_MOVE, cat, to);

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
static void run_actions(struct stage_cluster *s)
{
	size_t n;

	while ((n = drt_cluster_take_actions(s->cl, s->acts, MAX_ACTIONS)) > 0)
		for (size_t i = 0; i < n; i++) {
			const struct drt_action *a = &s->acts[i];
			struct ccat *c = ccat_of(s, a->cat);
			if (c == NULL) {
				spated_cnt.cat_unknown++;
				continue;
			}
			if (a->kind == DRT_ACTION_MOVE) {
				move(s, a->cat, a->from_worker, a->to_worker);
				spated_cnt.move_subs += c->size;
				c->came_from |= 1ull << (a->from_worker % 64);
				c->worker = a->to_worker;
				publish(s, a->cat);
				continue;
			}
			/* MERGE cat into a->into; across workers: move, then merge there */
			struct ccat *into = ccat_of(s, a->into);
			if (into == NULL) {
				spated_cnt.cat_unknown++;
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
			struct pl_msg *mg = control(s, PL_MERGE, a->into, a->cat);
			if (mg != NULL)
				send_to(s, a->to_worker, mg);
			into->size += c->size;
			if (spate_idmap_put(s->fwd, a->cat, (void *)(uintptr_t)(a->into + 1)) != 0)
				spated_cnt
					.msg_no_memory++; /* only a retransmission's ACK needs it */
			forget_cat(s, a->cat);
			publish(s, a->into);
		}
}

/* Category c - 1 now (merges followed; 0: none). */
static uint32_t follow_cat(struct stage_cluster *s, uintptr_t c)
{
	uintptr_t next;

	while (c != 0 && (next = (uintptr_t)spate_idmap_get(s->fwd, c - 1)) != 0)
		c = next;
	return c ? (uint32_t)(c - 1) : 0;
}

/* The category a placed subscription is in now. */
static uint32_t current_cat(struct stage_cluster *s, uint64_t sub_id)
{
	return follow_cat(s, (uintptr_t)spate_idmap_get(s->home, sub_id));
}

static void copy_sub(struct pl_sub *ps, const struct spate_sub *q)
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
	struct pl_msg *m = control(s, PL_SUB_ADD, pl.cat, 0);
	if (m == NULL || spate_idmap_put(s->home, q->id, (void *)(uintptr_t)(pl.cat + 1)) != 0) {
		if (m)
			pl_msg_put(s->msg_pool, m);
		goto undo;
	}
	c->worker = pl.worker;
	c->size++;
	m->u.sub.reply = s->cur;
	copy_sub(&m->u.sub, q);
	send_to(s, pl.worker, m);
	publish(s, pl.cat); /* new, or one more subscription */
	s->forwarded = 1;
	run_actions(s); /* merges it caused, after the add itself */
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
	struct pl_msg *m = control(s, PL_SUB_DEL, rm.cat, 0);
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
		publish(s, rm.cat);
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
	run_actions(s);                        /* moves decided at the end of a load period */
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
	run_actions(e->s);
}

static void front_categories(const struct spate_engine *e, spate_category_fn fn, void *ctx)
{
	uint32_t n = drt_cluster_count(e->s->cl);

	for (uint32_t i = 0; i < n; i++) {
		struct drt_cat_info c;
		drt_cluster_cat_at(e->s->cl, i, &c);
		struct spate_category_info ci = {
			.id = c.id,
			.worker = c.worker,
			.n_subs = c.size,
			.mbr = c.mbr,
			.events = c.t_num,
			.inserts = c.n_ins,
			.deletes = c.n_del,
		};
		fn(ctx, &ci);
	}
}

static const struct spate_engine_ops front_ops = {
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

static void nack(struct stage_cluster *s, int code)
{
	s->last_nack = code;
	spated_cnt.bad_messages++;
	spated_cnt.msg_err[code < SPATE_E__COUNT ? code : 0]++;
	/* No address: a preloaded line, nobody to answer. (Not req_type 0:
	 * that is also a NACK for a message whose type could not be read.) */
	if (s->cur.to.ipv4 != 0)
		notifier_reply(s->nt, s->cur.to, s->cur.req_type, code, s->cur.req_seq, s->cur.id);
}

/* An idempotent retransmission: ACK once the original is applied, i.e.
 * after it on the owner of category `cat`. A retransmitted delete whose
 * category is gone (emptied by it or later): ACKed here, as nothing of
 * that category is left to wait for. */
static void ack_behind(struct stage_cluster *s, uint32_t cat, int deleted)
{
	struct ccat *c = ccat_of(s, cat);

	if (c == NULL && deleted) {
		if (s->cur.req_type != 0) /* 0: preloaded, nobody to answer */
			notifier_reply(s->nt, s->cur.to, s->cur.req_type, 0, s->cur.req_seq,
				       s->cur.id);
		return;
	}
	if (c == NULL) {
		spated_cnt.cat_unknown++;
		return;
	}
	struct pl_msg *m = control(s, PL_ACK, cat, 0);
	if (m != NULL) {
		m->u.ack = s->cur;
		send_to(s, c->worker, m);
	}
}

/* Hold (or let go) everything this stage sends. */
static void hold(struct stage_cluster *s, int on)
{
	if (s->holding == on)
		return;
	s->holding = on;
	for (uint32_t w = 0; w < s->n_workers; w++)
		s->to_match[w].hold = on;
	s->to_tx.ring.hold = on;
}

/* Commit the journal; once nothing is pending, release what was held.
 * `force`: sync now (a backlog is full), whatever the interval policy. */
static void settle(struct stage_cluster *s, bool force)
{
	if (s->holding && durable_commit(s->dur, force) == 1 &&
	    (s->repl_done == NULL || s->repl_done(s->repl_ctx)))
		hold(s, 0);
}

/* A subscription change applied: journaled and copied to the other
 * fronts, and everything this stage sends held until both are safe. */
static void record_add(struct stage_cluster *s, const struct spate_raw_sub *rs, uint32_t owner)
{
	durable_sub_add(s->dur, rs, owner);
	if (s->repl_add != NULL)
		s->repl_add(s->repl_ctx, rs, owner);
	hold(s, s->dur != NULL || s->repl_add != NULL);
}

static void record_del(struct stage_cluster *s, uint64_t id, uint32_t owner)
{
	durable_sub_del(s->dur, id, owner);
	if (s->repl_del != NULL)
		s->repl_del(s->repl_ctx, id, owner);
	hold(s, s->dur != NULL || s->repl_del != NULL);
}

static void on_message(struct stage_cluster *s, const struct spate_hdr *hdr, struct spate_dest src,
		       struct spate_msg *msg)
{
	int rc;

	s->cur = (struct pl_reply){ src, hdr->seq, src.ipv4 ? msg->type : 0, msg->id };
	s->forwarded = 0;
	/* From the network (not replayed or preloaded): rate-limited. */
	if (src.ipv4 != 0 && (msg->type == SPATE_MSG_SUB_ADD || msg->type == SPATE_MSG_SUB_DEL) &&
	    access_sub_op(spated_access, hdr->client_id) != 0) {
		nack(s, SPATE_E_RATE_LIMITED);
		return;
	}
	switch (msg->type) {
	case SPATE_MSG_EVENT:
		rc = spate_matcher_event(s->m, &msg->u.ev, &s->mv);
		if (rc != 0)
			nack(s, -rc);
		else if (s->relay != NULL && src.ipv4 != 0)
			s->relay(s->relay_ctx, &msg->u.ev);
		return;
	case SPATE_MSG_SUB_ADD: {
		struct spate_raw_sub *rs = &msg->u.sub;
		/* 0.0.0.0:0 = "where this came from"; each zero half is filled
		 * on its own ("0.0.0.0:5000" = my address, port 5000). */
		if (rs->dest.ipv4 == 0)
			rs->dest.ipv4 = src.ipv4;
		if (rs->dest.port == 0)
			rs->dest.port = src.port;
		rc = spate_matcher_sub_add(s->m, rs, hdr->client_id);
		if (rc != 0) {
			nack(s, -rc);
		} else if (s->forwarded) {
			spated_cnt.sub_adds++;
			if (src.ipv4 != 0)
				record_add(s, rs, hdr->client_id);
		} else
			ack_behind(s, current_cat(s, rs->id), 0);
		return;
	}
	case SPATE_MSG_SUB_DEL:
		rc = spate_matcher_sub_del(s->m, msg->id, hdr->client_id);
		if (rc < 0) {
			nack(s, -rc);
		} else if (rc == SPATE_MATCHER_DEL_REPEAT) {
			uint64_t *tag = spate_matcher_del_tag(s->m, msg->id);
			ack_behind(s, follow_cat(s, tag ? (uintptr_t)*tag : 0), 1);
		} else {
			spated_cnt.sub_dels++;
			if (src.ipv4 != 0)
				record_del(s, msg->id, hdr->client_id);
		}
		return;
	default:
		nack(s, SPATE_E_NOT_ALLOWED); /* servers send those, clients do not */
	}
}

static void on_datagram(struct stage_cluster *s, struct rte_mbuf *mb)
{
	const uint8_t *buf = rte_pktmbuf_mtod(mb, const uint8_t *);
	size_t len = rte_pktmbuf_data_len(mb);
	struct spate_dest src = pkt_meta(mb)->peer;
	struct spate_hdr hdr;
	struct spate_reader rd;

	/* RX checked the header; decoding it again is cheap and keeps this
	 * stage from trusting anything it did not read itself. */
	if (spate_hdr_decode(buf, len, s->lim, &hdr) != 0) {
		spated_cnt.bad_header++;
		rte_pktmbuf_free(mb);
		return;
	}
	/* Keys: checked here, on the one lcore that owns the replay windows.
	 * Unsigned when required, a bad MAC, a replay: no reply, counted. */
	int arc = access_datagram(spated_access, buf, len, &hdr);
	if (arc != 0) {
		spated_cnt.auth_dropped++;
		spated_cnt.hdr_err[-arc < SPATE_E__COUNT ? -arc : 0]++;
		rte_pktmbuf_free(mb);
		return;
	}
	spate_reader_init(&rd, buf, len, &hdr);
	s->cur_rx_tsc = pkt_meta(mb)->rx_tsc;
	for (;;) {
		struct spate_msg *msg = &s->msg;
		/* When framing is lost the reader may not say what was refused:
		 * the NACK then names type 0, id 0 rather than stale values. */
		msg->type = 0;
		msg->id = 0;
		int rc = spate_reader_next(&rd, s->lim, msg);
		if (rc == 0)
			break;
		spated_cnt.messages++;
		if (rc == 1 && hdr.client_id != 0) {
			on_message(s, &hdr, src, msg);
		} else if (rc == 1) {
			/* Client 0 is the server's own (preloaded subscriptions):
			 * no datagram speaks for it. */
			s->cur = (struct pl_reply){ src, hdr.seq, msg->type, msg->id };
			nack(s, SPATE_E_RESERVED_CLIENT);
		} else {
			s->cur = (struct pl_reply){ src, hdr.seq, msg->type, msg->id };
			nack(s, -rc);
		}
	}
	s->cur_rx_tsc = 0; /* replayed, preloaded, relayed events: no stamp */
	rte_pktmbuf_free(mb);
}

struct stage_cluster *stage_cluster_create(const struct stage_cluster_conf *c)
{
	struct stage_cluster *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->front.s = s;
	s->dir = c->dir;
	s->lim = &c->common->limits;
	s->n_in = c->n_in;
	s->n_workers = c->n_workers;
	s->msg_pool = c->msg_pool;
	s->backlog_max = c->backlog_max;
	s->pool_margin = PL_BURST + rte_lcore_count() * (c->msg_pool->cache_size * 3 / 2 + 1);
	struct drt_params p = c->common->matcher.params.drt;
	p.workers = c->n_workers;
	s->cl = drt_cluster_create(&p);
	if (s->cl != NULL && c->cat_base != 0 && drt_cluster_set_id_base(s->cl, c->cat_base) != 0)
		goto fail;
	s->cats = spate_idmap_create();
	s->home = spate_idmap_create();
	s->fwd = spate_idmap_create();
	s->fb = calloc(FB_SLOTS, sizeof(*s->fb));
	s->fb_in = calloc(c->n_workers, sizeof(*s->fb_in));
	s->m = spate_matcher_create_engine(&c->common->matcher, &front_ops, &s->front);
	if (s->m != NULL && spate_matcher_remember_deletes(s->m, DEL_MEMORY) != 0)
		goto fail;
	s->in = calloc(c->n_in, sizeof(*s->in));
	s->to_match = calloc(c->n_workers, sizeof(*s->to_match));
	if (!s->cl || !s->cats || !s->home || !s->fwd || !s->fb || !s->fb_in || !s->m || !s->in ||
	    !s->to_match || tx_out_init(&s->to_tx, c->to_tx, c->pkt_pool) != 0)
		goto fail;
	s->nt = notifier_create(c->max_payload, c->common->limits.max_messages, tx_out_payload,
				&s->to_tx);
	if (s->nt == NULL)
		goto fail;
	memcpy(s->in, c->in, c->n_in * sizeof(*s->in));
	memcpy(s->fb_in, c->feedback, c->n_workers * sizeof(*s->fb_in));
	for (uint32_t w = 0; w < c->n_workers; w++)
		if (ring_out_init(&s->to_match[w], c->to_match[w], 1, drop_msg, s) != 0)
			goto fail;
	if (c->preload != NULL && c->preload[0] != '\0') {
		if (spate_stream_open(&s->pre, c->preload, s->lim) != 0) {
			fprintf(stderr, "spated: preload %s: cannot open\n", c->preload);
			goto fail;
		}
		s->pre_open = 1;
	}
	return s;
fail:
	stage_cluster_destroy(s);
	return NULL;
}

static void flush(struct stage_cluster *s)
{
	for (uint32_t w = 0; w < s->n_workers; w++)
		ring_out_flush(&s->to_match[w]);
	notifier_flush(s->nt);
	tx_out_flush(&s->to_tx);
}

/* Messages a datagram of `count` may take: each (and two spare) for every worker. */
static unsigned int dgram_need(const struct stage_cluster *s, unsigned int count)
{
	return (count + 2) * s->n_workers;
}

/* Room for one more datagram of `count` messages? Every lossless backlog
 * short enough, and the message pool able to take every message of it
 * for every worker (a datagram's events could go to all). Otherwise the
 * datagram waits, and RX's ring fills: overload is dropped, counted, at
 * the door, never as a lost part of an event or a lost change. */
static int has_room(struct stage_cluster *s, unsigned int count)
{
	for (uint32_t w = 0; w < s->n_workers; w++)
		if (ring_out_backlog(&s->to_match[w]) > s->backlog_max)
			return 0;
	return s->pool_est >= dgram_need(s, count) + s->pool_margin;
}

static void read_pool(struct stage_cluster *s)
{
	s->pool_est = rte_mempool_avail_count(s->msg_pool);
}

/* A datagram of `count` messages was handled. */
static void took(struct stage_cluster *s, unsigned int count)
{
	unsigned int need = dgram_need(s, count);

	s->pool_est = s->pool_est > need ? s->pool_est - need : 0;
}

static unsigned int dgram_count(struct rte_mbuf *mb)
{
	const uint8_t *b = rte_pktmbuf_mtod(mb, const uint8_t *);
	/* header offset 6: the message count (RX checked the header) */
	return rte_pktmbuf_data_len(mb) >= SPATE_HDR_LEN ? (unsigned int)(b[6] << 8 | b[7]) : 0;
}

/* Up to a burst of preloaded lines, as SUB_ADD/SUB_DEL of client 0 with
 * no one to answer; RX waits until the file is done. */
static unsigned int preload_step(struct stage_cluster *s)
{
	static const struct spate_hdr hdr = { 0 };
	const struct spate_dest none = { 0, 0 };
	char err[256];
	unsigned int n = 0;

	read_pool(s);
	while (n < PL_BURST && has_room(s, 1)) {
		struct spate_stream_op *op = &s->pre_op;
		int rc = spate_stream_next(&s->pre, op, err, sizeof(err));
		if (rc == 0) {
			spate_stream_close(&s->pre);
			s->pre_open = 0;
			printf("spated: preload done\n");
			fflush(stdout);
			break;
		}
		n++;
		took(s, 1);
		if (rc < 0) {
			fprintf(stderr, "spated: preload: %s\n", err);
			continue;
		}
		s->msg.type = op->kind == SPATE_LINE_SUB     ? SPATE_MSG_SUB_ADD
			      : op->kind == SPATE_LINE_UNSUB ? SPATE_MSG_SUB_DEL
							     : 0;
		if (s->msg.type == 0)
			continue; /* events are not preloaded */
		if (op->kind == SPATE_LINE_SUB) {
			s->msg.u.sub = op->u.sub;
			s->msg.id = op->u.sub.id;
		} else {
			s->msg.id = op->u.unsub_id;
		}
		on_message(s, &hdr, none, &s->msg);
	}
	flush(s);
	return n;
}

static void fb_obj(void *ctx, void *obj)
{
	struct stage_cluster *s = ctx;

	fb_part(s, &((struct pl_msg *)obj)->u.fb);
	pl_msg_put(s->msg_pool, obj);
}

unsigned int stage_cluster_poll(struct stage_cluster *s)
{
	unsigned int total = 0;

	if (s->rebalance_at != 0 && rte_get_timer_cycles() >= s->rebalance_at) {
		/* a worker came back: balancing gives it its share now */
		s->rebalance_at = 0;
		spated_cnt.rebalances_up++;
		drt_cluster_period_end(s->cl);
		run_actions(s);
	}

	/* correlation feedback from the workers (a hint: never held back),
	 * all of it: a worker's poll may answer many event parts */
	for (uint32_t w = 0; w < s->n_workers; w++)
		ring_drain(s->fb_in[w], fb_obj, s);
	settle(s, false); /* an interval policy's sync comes due with no traffic too */
	flush(s);         /* the backlogs first */
	if (s->pre_open)
		return preload_step(s);
	/* the RX rings in turn, one burst each, handled while there is room;
	 * the pool read once a poll that has a datagram (summing its lcore
	 * caches is a tenth of an idle poll's cost) */
	bool pool_read = false;
	for (uint32_t k = 0; k <= s->n_in; k++) {
		if (s->n_pending == s->next_pending) {
			if (k == s->n_in)
				break;
			uint32_t r = (s->next_in + k) % s->n_in;
			s->n_pending = rte_ring_sc_dequeue_burst(s->in[r], (void **)s->pending,
								 PL_BURST, NULL);
			s->next_pending = 0;
		}
		while (s->next_pending < s->n_pending) {
			struct rte_mbuf *mb = s->pending[s->next_pending];
			unsigned int count = dgram_count(mb);
			if (!pool_read) {
				read_pool(s);
				pool_read = true;
			}
			if (!has_room(s, count)) {
				read_pool(s); /* the estimate may be low */
				if (!has_room(s, count)) {
					/* Held output filled a backlog: sync now, let it go. */
					settle(s, true);
					flush(s);
				}
			}
			if (!has_room(s, count)) {
				spated_cnt.backpressure++;
				return total;
			}
			s->next_pending++;
			on_datagram(s, mb);
			took(s, count);
			total++;
		}
	}
	s->next_in++;
	settle(s, false); /* one sync for the burst's sub operations */
	flush(s);
	control_poll(); /* operators' requests, between two polls: no lock */
	return total;
}

struct spate_matcher *stage_cluster_matcher(struct stage_cluster *s)
{
	return s->m;
}

void stage_cluster_set_durable(struct stage_cluster *s, struct durable *d)
{
	s->dur = d;
}

int stage_cluster_apply(void *arg, uint32_t owner, const struct spate_msg *msg)
{
	struct stage_cluster *s = arg;
	const struct spate_hdr hdr = { .client_id = owner };
	const struct spate_dest none = { 0, 0 };

	if (msg->type != SPATE_MSG_SUB_ADD && msg->type != SPATE_MSG_SUB_DEL)
		return -SPATE_E_NOT_ALLOWED;
	s->msg = *msg;
	s->last_nack = 0;
	on_message(s, &hdr, none, &s->msg);
	return -s->last_nack;
}

int stage_cluster_ready(struct stage_cluster *s)
{
	read_pool(s);
	return has_room(s, 1);
}

void stage_cluster_flush(struct stage_cluster *s)
{
	flush(s);
}

void stage_cluster_set_repl(struct stage_cluster *s,
			    void (*add)(void *ctx, const struct spate_raw_sub *rs, uint32_t owner),
			    void (*del)(void *ctx, uint64_t id, uint32_t owner),
			    int (*done)(void *ctx), void *ctx)
{
	s->repl_add = add;
	s->repl_del = del;
	s->repl_done = done;
	s->repl_ctx = ctx;
}

int stage_cluster_adopt(void *arg, uint32_t owner, const struct spate_raw_sub *rs)
{
	struct stage_cluster *s = arg;

	s->msg.type = SPATE_MSG_SUB_ADD;
	s->msg.id = rs->id;
	s->msg.u.sub = *rs;
	int rc = stage_cluster_apply(s, owner, &s->msg);
	if (rc == 0 && s->forwarded)
		record_add(s, rs, owner); /* ours now: in our journal, copied on */
	return rc;
}

void stage_cluster_set_relay(struct stage_cluster *s,
			     void (*fn)(void *ctx, const struct spate_raw_event *ev), void *ctx)
{
	s->relay = fn;
	s->relay_ctx = ctx;
}

void stage_cluster_relayed(struct stage_cluster *s, const struct spate_raw_event *ev)
{
	s->cur = (struct pl_reply){ { 0, 0 }, 0, 0, ev->id };
	s->forwarded = 0;
	if (spate_matcher_event(s->m, ev, &s->mv) != 0)
		spated_cnt.msg_no_memory++; /* an event the other front took: nobody to NACK */
}

/* ---- failover (multi-host: docs/multihost.md) ---- */

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
	uint32_t cat = current_cat(s, rs->id);
	struct ccat *c = ccat_of(s, cat);

	(void)owner;
	if (c == NULL || !c->rebuild)
		return;
	const struct spate_sub *q = spate_matcher_sub_find(s->m, rs->id);
	struct pl_msg *m = q ? control(s, PL_SUB_ADD, cat, 0) : NULL;
	if (m == NULL) {
		spated_cnt.msg_no_memory++;
		return;
	}
	memset(&m->u.sub.reply, 0, sizeof(m->u.sub.reply));
	m->u.sub.drop_cat = 0;
	copy_sub(&m->u.sub, q);
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
	flush(s);
}

int stage_cluster_workers_down(struct stage_cluster *s, const uint32_t *w, uint32_t n)
{
	uint64_t t0 = rte_get_timer_cycles();
	struct mark m = { worker_mask(w, n), 0 };
	int rc = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (w[i] >= s->n_workers)
			continue;
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
		publish(s, info.id);
	}
	spate_idmap_foreach(s->cats, mark_rebuild, &m);
	resend_marked(s);
	spated_cnt.failover_us = (rte_get_timer_cycles() - t0) * 1000000 / rte_get_timer_hz();
	return rc;
}

void stage_cluster_workers_up(struct stage_cluster *s, const uint32_t *w, uint32_t n)
{
	struct mark m = { 0, 0 };

	for (uint32_t i = 0; i < n; i++)
		if (w[i] < s->n_workers && !drt_cluster_worker_up(s->cl, w[i])) {
			drt_cluster_worker_set(s->cl, w[i], true);
			m.on |= 1ull << (w[i] % 64);
		}
	/* categories left on them while every worker was down lost what was
	 * sent meanwhile: the new incarnation gets them whole */
	if (m.on != 0) {
		spate_idmap_foreach(s->cats, mark_rebuild, &m);
		resend_marked(s);
	}
	s->rebalance_at =
		rte_get_timer_cycles() + rte_get_timer_hz() * REBALANCE_AFTER_UP_MS / 1000;
}

static void free_ccat(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	free(val);
}

void stage_cluster_destroy(struct stage_cluster *s)
{
	if (s == NULL)
		return;
	if (s->pre_open)
		spate_stream_close(&s->pre);
	while (s->next_pending < s->n_pending)
		rte_pktmbuf_free(s->pending[s->next_pending++]);
	for (uint32_t r = 0; s->in && r < s->n_in; r++) {
		void *m;
		while (rte_ring_sc_dequeue(s->in[r], &m) == 0)
			rte_pktmbuf_free(m);
	}
	for (uint32_t w = 0; s->to_match && w < s->n_workers; w++)
		ring_out_fini(&s->to_match[w]);
	notifier_destroy(s->nt);
	tx_out_fini(&s->to_tx);
	for (uint32_t w = 0; s->fb_in && w < s->n_workers; w++) {
		void *m;
		while (s->fb_in[w] && rte_ring_sc_dequeue(s->fb_in[w], &m) == 0)
			pl_msg_put(s->msg_pool, m);
	}
	spate_matcher_destroy(s->m);
	drt_cluster_destroy(s->cl);
	spate_idmap_destroy_each(s->cats, free_ccat, NULL);
	spate_idmap_destroy(s->home);
	spate_idmap_destroy(s->fwd);
	free(s->fb);
	free(s->fb_in);
	spate_matchvec_free(&s->mv);
	free(s->in);
	free(s->to_match);
	free(s);
}
