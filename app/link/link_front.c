/* link_front.c - the front's side of the link stage (stage_link.h): the
 * cluster stage's messages for remote workers as inter-host messages,
 * and their feedback back. Runs on the cluster stage's lcore: it reads
 * the cluster matcher's dictionaries to turn interned events and
 * subscriptions back into client messages. */
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "infra/counters.h"
#include "link/link_int.h"
#include "proto/spate_err.h"

/* Categories whose announcement a message changes, applied once the
 * message is queued (a held message is encoded again later). */
struct said_change {
	uint32_t n;
	uint32_t cat[PL_EVENT_CATS + 1];
	uint32_t val[PL_EVENT_CATS + 1]; /* worker + 1; 0 = forget */
};

static void drop_feedback(void *ctx, void *obj)
{
	struct stage_link *s = ctx;

	spated_cnt.feedback_lost++;
	pl_msg_put(s->msg_pool, obj);
}

/* Event numbers kept per remote worker at most (4 MB): a match host that
 * never says DONE (an older version during a rolling upgrade) must not
 * grow the front without end; past it the oldest are forgotten, and
 * that host's losses are undercounted (said once). */
#define EV_FIFO_MAX (1u << 20)

static void fifo_push(struct ev_fifo *f, uint32_t seq)
{
	if (f->n == EV_FIFO_MAX) {
		if (!f->capped)
			fprintf(stderr,
				"spated: link: %u events sent to a match host and never"
				" confirmed matched (DONE): an older version there? Its losses are"
				" no longer all counted\n",
				f->n);
		f->capped = 1;
		f->head = (f->head + 1) % f->cap;
		f->n--;
	}
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 1024;
		uint32_t *v = malloc(cap * sizeof(*v));
		if (v == NULL) {
			spated_cnt.msg_no_memory++; /* this event's loss would go uncounted */
			return;
		}
		for (uint32_t i = 0; i < f->n; i++)
			v[i] = f->v[(f->head + i) % f->cap];
		free(f->v);
		f->v = v;
		f->head = 0;
		f->cap = cap;
	}
	f->v[(f->head + f->n++) % f->cap] = seq;
}

/* Every event up to seq (serial order: numbers wrap) is matched. */
static void fifo_done(struct ev_fifo *f, uint32_t seq)
{
	f->capped = 0;
	while (f->n > 0 && (int32_t)(f->v[f->head] - seq) <= 0) {
		f->head = (f->head + 1) % f->cap;
		f->n--;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static struct spate_peer_reply peer_reply(const struct pl_reply *r)
{
	struct spate_peer_reply pr = { r->to.ipv4, r->to.port, r->req_type, r->req_seq };

	if (r->req_type == 0) /* preloaded: answer nobody */
		pr = (struct spate_peer_reply){ 0, 0, SPATE_MSG_SUB_ADD, 0 };
	return pr;
}

/* CREATE(cat, lcore) when cat's messages came from another worker
 * last (or never): the match host routes what follows to this lcore. */
static int announce(struct stage_link *s, struct spate_peer_writer *w, struct said_change *ch,
		    uint32_t cat, uint32_t worker)
{
	uintptr_t said = (uintptr_t)spate_idmap_get(s->said, cat);

	for (uint32_t i = 0; i < ch->n; i++)
		if (ch->cat[i] == cat)
			said = ch->val[i];
	if (said == (uintptr_t)worker + 1)
		return 0;
	ch->cat[ch->n] = cat;
	ch->val[ch->n++] = worker + 1;
	return spate_peer_put_create(w, cat, s->w_lcore[worker]);
}

static void forget(struct said_change *ch, uint32_t cat)
{
	ch->cat[ch->n] = cat;
	ch->val[ch->n++] = 0;
}

/* The inter-host messages for message m from worker w's ring. */
static int encode(struct stage_link *s, uint32_t w, const struct pl_msg *m,
		  struct spate_peer_writer *out, struct said_change *ch)
{
	uint32_t pi = s->w_peer[w];
	int rc = 0;

	switch (m->type) {
	case PL_EVENT: {
		const struct pl_event *pe = &m->u.ev;
		struct spate_event ev = pl_event_view(pe);
		/* only a move sets several apart: then CREATEs come first */
		for (uint16_t i = 0; i < pe->n_cat && rc == 0; i++)
			rc = announce(s, out, ch, pe->cats[i], w);
		spate_matcher_raw_event(s->fm, &ev, s->rev);
		if (rc == 0)
			rc = spate_peer_put_event(out, pe->seq, pe->parts, pe->cats, pe->n_cat,
						  s->rev);
		break;
	}
	case PL_SUB_ADD: {
		struct spate_sub q = m->u.sub.sub;
		q.kw = m->u.sub.kw;
		q.cons = m->u.sub.cons;
		spate_matcher_raw_sub(s->fm, &q, s->rsub);
		struct spate_peer_reply r = peer_reply(&m->u.sub.reply);
		rc = announce(s, out, ch, m->cat, w);
		if (rc == 0)
			rc = spate_peer_put_sub_add(out, m->cat, 0, &r, s->rsub);
		break;
	}
	case PL_SUB_DEL: {
		struct spate_peer_reply r = peer_reply(&m->u.sub.reply);
		r.req_type = SPATE_MSG_SUB_DEL;
		rc = announce(s, out, ch, m->cat, w);
		if (rc == 0)
			rc = spate_peer_put_sub_del(out, m->cat, m->u.sub.drop_cat, &r,
						    m->u.sub.sub.id);
		if (m->u.sub.drop_cat)
			forget(ch, m->cat);
		break;
	}
	case PL_ACK: {
		struct spate_peer_reply r = peer_reply(&m->u.ack);
		rc = announce(s, out, ch, m->cat, w);
		if (rc == 0)
			rc = spate_peer_put_ack(out, m->cat, &r, m->u.ack.id);
		break;
	}
	case PL_MERGE:
		rc = announce(s, out, ch, m->cat, w);
		if (rc == 0)
			rc = spate_peer_put_merge(out, m->cat, m->other);
		forget(ch, m->other);
		break;
	case PL_MOVE: {
		/* to another lcore of that host, or to another host (its link
		 * ships the category to the new owner host) */
		uint32_t to = m->other;
		if (to >= s->n_workers) {
			SPATED_CAT_UNKNOWN(cat_unknown_move_worker);
			return 0;
		}
		rc = announce(s, out, ch, m->cat, w);
		if (rc == 0)
			/* the version names the destination's incarnation: an old
			 * owner that has not seen it join yet waits for it */
			rc = spate_peer_put_move(out, m->cat, s->peers[s->w_peer[to]].host,
						 s->w_lcore[to], s->peers[s->w_peer[to]].epoch);
		break;
	}
	case PL_EXPECT: {
		/* from: the old owner, as the cluster stage moved it (the rings
		 * are drained in worker order, so what was announced last may
		 * be a later owner's) */
		uint32_t from = m->other < s->n_workers ? m->other : w;
		uint32_t from_host = s->peers[s->w_peer[from]].host;
		uint32_t from_epoch = s->peers[s->w_peer[from]].epoch;
		rc = announce(s, out, ch, m->cat, w);
		/* the version field names the old owner's incarnation: if it
		 * dies, the new owner knows this handoff will never come */
		if (rc == 0)
			rc = spate_peer_put_expect(out, m->cat, from_host, s->w_lcore[w],
						   from_epoch);
		if (from_host != s->peers[pi].host)
			spated_cnt.peer_moves++;
		break;
	}
	default:
		SPATED_CAT_UNKNOWN(cat_unknown_link_type);
	}
	return rc;
}

static void apply(struct stage_link *s, const struct said_change *ch)
{
	for (uint32_t i = 0; i < ch->n; i++) {
		if (ch->val[i] == 0)
			spate_idmap_del(s->said, ch->cat[i]);
		else if (spate_idmap_put(s->said, ch->cat[i], (void *)(uintptr_t)ch->val[i]) != 0)
			spated_cnt.msg_no_memory++; /* re-announced next time: harmless */
	}
}

unsigned int link_front_poll(struct stage_link *s)
{
	unsigned int work = 0;

	for (uint32_t w = 0; w < s->n_workers; w++) {
		struct link_peer *p = &s->peers[s->w_peer[w]];
		while (!p->blocked) {
			struct pl_msg *m = s->held[w];
			void *obj;
			if (m == NULL) {
				if (rte_ring_sc_dequeue(s->from_stage[w], &obj) != 0)
					break;
				m = obj;
			}
			struct spate_peer_writer out;
			struct said_change ch;
			ch.n = 0;
			spate_peer_writer_init(&out, s->scratch, s->body_cap);
			if (encode(s, w, m, &out, &ch) != 0) {
				/* cannot be carried (too big for a frame): counted, dropped */
				spated_cnt.peer_bad++;
			} else if (link_append(s, p, &out) != 0) {
				s->held[w] = m;
				break;
			} else if (m->type == PL_EVENT) {
				fifo_push(&s->inflight[w], m->u.ev.seq);
			}
			apply(s, &ch);
			s->held[w] = NULL;
			pl_msg_put(s->msg_pool, m);
			work++;
		}
	}
	return work;
}

void link_front_deliver(struct stage_link *s, struct link_peer *p, const uint8_t *body, size_t len,
			uint16_t count)
{
	struct spate_peer_reader r;
	struct spate_peer_msg pm;
	uint32_t pi = (uint32_t)(p - s->peers), w0 = 0;

	/* feedback may enter the cluster by any of that host's rings */
	while (w0 < s->n_workers && s->w_peer[w0] != pi)
		w0++;
	spate_peer_reader_init(&r, body, len, count);
	while (spate_peer_next(&r, s->lim, &pm) == 1) {
		if (pm.type >= SPATE_PEER_REPL_ADD && pm.type <= SPATE_PEER_REPL_SYNC &&
		    p->lcores == 0) {
			link_repl_deliver(s, p, &pm);
			continue;
		}
		if (pm.type == SPATE_PEER_DONE && p->lcores != 0) {
			for (uint32_t w = w0; w < s->n_workers; w++)
				if (s->w_peer[w] == pi && s->w_lcore[w] == pm.lcore)
					fifo_done(&s->inflight[w], pm.ev_seq);
			continue;
		}
		if (pm.type == SPATE_PEER_RELAY && p->lcores == 0 && s->relayed != NULL) {
			spated_cnt.peer_relayed_in++;
			s->relayed(s->workers_ctx, &pm.inner.u.ev);
			continue;
		}
		if (pm.type != SPATE_PEER_FEEDBACK || w0 == s->n_workers) {
			SPATED_CAT_UNKNOWN(cat_unknown_peer_msg);
			continue;
		}
		struct pl_msg *f = pl_msg_get(s->msg_pool, 0);
		if (f == NULL) {
			spated_cnt.feedback_lost++;
			continue;
		}
		f->type = PL_FEEDBACK;
		f->u.fb.seq = pm.ev_seq;
		f->u.fb.parts = pm.parts;
		f->u.fb.n = pm.n_cat < PL_EVENT_CATS ? pm.n_cat : PL_EVENT_CATS;
		for (uint16_t i = 0; i < f->u.fb.n; i++)
			f->u.fb.cats[i] = spate_peer_cat(&pm, i);
		ring_out_push(&s->to_stage[w0], f);
	}
}

void stage_link_relay(void *link, const struct spate_raw_event *ev)
{
	struct stage_link *s = link;
	struct spate_peer_writer out;

	spate_peer_writer_init(&out, s->scratch, s->body_cap);
	if (spate_peer_put_relay(&out, ev) != 0) {
		spated_cnt.peer_bad++; /* cannot happen: it came in one datagram */
		return;
	}
	for (uint32_t i = 0; i < s->n_peers; i++) {
		struct link_peer *p = &s->peers[i];
		if (p->lcores != 0 || p->down)
			continue;
		/* never dropped: an event the other front misses is a wrong answer */
		if (link_append_force(s, p, &out) != 0)
			spated_cnt.msg_no_memory++;
		else
			spated_cnt.peer_relayed_out++;
	}
}

struct said_of {
	uint32_t pi, n, cap;
	const uint32_t *w_peer;
	uint64_t *cat;
};

static void said_of_peer(uint64_t cat, void *val, void *ctx)
{
	struct said_of *x = ctx;
	uintptr_t w = (uintptr_t)val;

	if (w == 0 || x->w_peer[w - 1] != x->pi || x->n == x->cap)
		return;
	x->cat[x->n++] = cat;
}

/* The front's workers that are lcores of peer pi (at most
 * SPATED_MATCH_MAX: host_conf_check). */
static uint32_t peer_workers(const struct stage_link *s, uint32_t pi, uint32_t *w)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < s->n_workers && n < SPATED_MATCH_MAX; k++)
		if (s->w_peer[k] == pi)
			w[n++] = k;
	return n;
}

/* Event sequence numbers, growing (count_lost). */
struct seq_vec {
	uint32_t *v;
	size_t n, cap;
	int no_memory;
};

static void seq_add(struct seq_vec *q, uint32_t seq)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;
		uint32_t *v = realloc(q->v, cap * sizeof(*v));
		if (v == NULL) {
			q->no_memory = 1;
			return;
		}
		q->v = v;
		q->cap = cap;
	}
	q->v[q->n++] = seq;
}

static void seq_of_event(void *ctx, void *obj)
{
	const struct pl_msg *m = obj;

	if (m->type == PL_EVENT)
		seq_add(ctx, m->u.ev.seq);
}

/* The events a dead host's workers had of ours, unconfirmed: sent and
 * not yet DONE, still waiting here to be sent, or still in the cluster
 * stage's backlog for them (it discards that when told they are down).
 * Counted once each (an event may have had parts on several of its
 * lcores). */
static void count_lost(struct stage_link *s, const struct link_peer *p, const uint32_t *dead,
		       uint32_t n)
{
	struct seq_vec q = { NULL, 0, 0, 0 };
	void *objs[64];

	for (uint32_t i = 0; i < n; i++) {
		struct ev_fifo *f = &s->inflight[dead[i]];
		for (uint32_t j = 0; j < f->n; j++)
			seq_add(&q, f->v[(f->head + j) % f->cap]);
		f->n = f->head = 0;
		if (s->held[dead[i]] != NULL)
			seq_of_event(&q, s->held[dead[i]]);
		/* a look at the ring's events: they are dropped just after */
		unsigned int got =
			rte_ring_sc_dequeue_burst(s->from_stage[dead[i]], objs, 64, NULL);
		while (got > 0) {
			for (unsigned int j = 0; j < got; j++) {
				seq_of_event(&q, objs[j]);
				pl_msg_put(s->msg_pool, objs[j]);
				spated_cnt.peer_down_dropped++;
			}
			got = rte_ring_sc_dequeue_burst(s->from_stage[dead[i]], objs, 64, NULL);
		}
		if (s->waiting != NULL)
			s->waiting(s->workers_ctx, dead[i], seq_of_event, &q);
	}
	if (q.no_memory)
		spated_cnt.msg_no_memory++; /* counted short, not wrong */
	if (q.n > 0)
		qsort(q.v, q.n, sizeof(*q.v), cmp_u32);
	uint64_t lost = 0;
	for (size_t j = 0; j < q.n; j++)
		lost += j == 0 || q.v[j] != q.v[j - 1];
	free(q.v);
	spated_cnt.events_lost_host += lost;
	if (lost > 0)
		fprintf(stderr,
			"spated: link: %llu events were in flight to host %u when it died,"
			" never confirmed matched (events_lost_host)\n",
			(unsigned long long)lost, p->host);
}

void link_front_peer_down(struct stage_link *s, struct link_peer *p)
{
	uint32_t pi = (uint32_t)(p - s->peers), dead[SPATED_MATCH_MAX];
	uint32_t n = peer_workers(s, pi, dead);
	uint64_t cats0 = spated_cnt.failover_cats, subs0 = spated_cnt.failover_subs;
	void *obj;

	count_lost(s, p, dead, n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = dead[i];
		if (s->held[w] != NULL) {
			pl_msg_put(s->msg_pool, s->held[w]);
			s->held[w] = NULL;
			spated_cnt.peer_down_dropped++;
		}
		while (rte_ring_sc_dequeue(s->from_stage[w], &obj) == 0) {
			pl_msg_put(s->msg_pool, obj);
			spated_cnt.peer_down_dropped++;
		}
	}
	/* what it was told is gone with it: a category placed on its
	 * workers again is announced again */
	struct said_of x = { pi, 0, (uint32_t)spate_idmap_count(s->said), s->w_peer, NULL };
	x.cat = malloc((x.cap ? x.cap : 1) * sizeof(*x.cat));
	if (x.cat != NULL) {
		spate_idmap_foreach(s->said, said_of_peer, &x);
		for (uint32_t i = 0; i < x.n; i++)
			spate_idmap_del(s->said, x.cat[i]);
	}
	free(x.cat);
	if (n == 0 || s->workers_changed == NULL)
		return; /* a fellow front: none of our workers */
	s->workers_changed(s->workers_ctx, dead, n, 0);
	fprintf(stderr,
		"spated: link: %llu categories rebuilt on live hosts from %llu subscriptions"
		" in %llu us\n",
		(unsigned long long)(spated_cnt.failover_cats - cats0),
		(unsigned long long)(spated_cnt.failover_subs - subs0),
		(unsigned long long)spated_cnt.failover_us);
}

void link_front_peer_up(struct stage_link *s, struct link_peer *p)
{
	uint32_t up[SPATED_MATCH_MAX];
	uint32_t n = peer_workers(s, (uint32_t)(p - s->peers), up);

	if (n != 0 && s->workers_changed != NULL)
		s->workers_changed(s->workers_ctx, up, n, 1);
}

int link_front_init(struct stage_link *s, const struct stage_link_conf *c)
{
	const struct host_conf *h = c->hosts;
	uint32_t w = 0;

	s->fm = c->front_matcher;
	s->said = spate_idmap_create();
	s->w_peer = calloc(c->n_workers, sizeof(*s->w_peer));
	s->w_lcore = calloc(c->n_workers, sizeof(*s->w_lcore));
	s->inflight = calloc(c->n_workers ? c->n_workers : 1, sizeof(*s->inflight));
	s->rev = malloc(sizeof(*s->rev));
	s->rsub = malloc(sizeof(*s->rsub));
	if (s->fm == NULL || s->said == NULL || s->w_peer == NULL || s->w_lcore == NULL ||
	    s->inflight == NULL || s->rev == NULL || s->rsub == NULL)
		return -1;
	for (uint32_t i = 0; i < h->n_peers; i++)
		for (uint32_t l = 0; l < h->peer[i].lcores && w < c->n_workers; l++, w++) {
			s->w_peer[w] = i;
			s->w_lcore[w] = (uint16_t)l;
		}
	for (w = 0; w < c->n_workers; w++)
		if (ring_out_init(&s->to_stage[w], c->to_stage[w], 0, drop_feedback, s) != 0)
			return -1;
	return 0;
}

void link_front_fini(struct stage_link *s)
{
	spate_idmap_destroy(s->said);
	free(s->w_peer);
	free(s->w_lcore);
	for (uint32_t w = 0; s->inflight != NULL && w < s->n_workers; w++)
		free(s->inflight[w].v);
	free(s->inflight);
	free(s->rev);
	free(s->rsub);
}
