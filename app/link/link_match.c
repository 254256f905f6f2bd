/* link_match.c - a match host's side of the link stage (stage_link.h):
 * the front's messages become pipeline messages for the local matching
 * stages, interned through a spate_matcher of this host whose "engine"
 * is this file (as the cluster stage does on a front), and the matching
 * stages' feedback goes back to the front. */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "match/cat_index.h"
#include "infra/counters.h"
#include "link/link_int.h"
#include "proto/spate_err.h"

/* A category leaving for another host (MOVE seen, index not yet here),
 * by category and the lcore that hands it over: a category may be
 * leaving from one lcore while the front already sends it on again from
 * another (it came back meanwhile), and one lcore may have several MOVEs
 * of a category queued (it comes and goes before the first arrived):
 * a FIFO per key, in the lcore's order. */
struct leave {
	struct leave *next;
	uint32_t host;
	uint16_t lcore;
	uint64_t version;
	uint32_t front_epoch; /* of the front that moved it: HANDOFF_END carries it */
};

/* A category arriving from another host, rebuilt sub by sub. */
struct arrive {
	struct cat_index *idx;
	uint32_t n;
	uint32_t lcore; /* + 1, from the sender's CREATE; 0 = not said */
	uint32_t from;  /* the sending host */
};

/* Handoffs of a category owed by one host, per matching worker here:
 * EXPECTs seen less HANDOFF_ENDs received (a handoff may overtake its
 * EXPECT: then negative for a while). If that host's incarnation ends
 * while some are owed, they never come: an empty one stands in, on the
 * worker that waits for it (the front sends the category's
 * subscriptions again). Per worker, because a category that comes and
 * goes between the hosts is owed to one lcore, then another: with one
 * count, every stand-in went to the last EXPECT's lcore, the other
 * worker waited for ever, its own MOVEs of the category parked behind
 * (seen in multihost-failover-rehome under load: 134-1,999 matches
 * missing after the failover). */
struct expect {
	uint32_t epoch; /* the sender's incarnation the last EXPECT named (0: unknown) */
	int pending[];  /* [n_workers] */
};

static void drop_msg(void *ctx, void *obj)
{
	struct stage_link *s = ctx;

	/* only when a lossless backlog cannot grow (no memory) */
	spated_cnt.msg_no_memory++;
	pl_msg_put(s->msg_pool, obj);
}

/* The dictionary matcher's engine: copy what it interned into s->cur. */
static void eng_destroy(struct spate_engine *e)
{
	(void)e;
}

static int eng_sub_add(struct spate_engine *e, const struct spate_sub *q)
{
	struct pl_sub *ps = &e->s->cur->u.sub;

	ps->sub = *q;
	ps->sub.kw = NULL;
	ps->sub.cons = NULL;
	memcpy(ps->kw, q->kw, q->n_kw * sizeof(*q->kw));
	memcpy(ps->cons, q->cons, q->n_cons * sizeof(*q->cons));
	return 0;
}

static void eng_sub_del(struct spate_engine *e, const struct spate_sub *q)
{
	(void)e;
	(void)q;
}

static int eng_match(struct spate_engine *e, const struct spate_event *ev,
		     struct spate_matchvec *mv)
{
	struct pl_event *pe = &e->s->cur->u.ev;

	(void)mv;
	pe->id = ev->id;
	pe->lon = ev->lon;
	pe->lat = ev->lat;
	pe->n_kw = ev->n_kw;
	pe->n_attr = ev->n_attr;
	memcpy(pe->kw, ev->kw, ev->n_kw * sizeof(*ev->kw));
	memcpy(pe->attr, ev->attr, ev->n_attr * sizeof(*ev->attr));
	return 0;
}

static const struct spate_engine_ops link_ops = {
	.name = "link",
	.help = "spated's link stage on a match host: interns what the front sends",
	.destroy = eng_destroy,
	.sub_add = eng_sub_add,
	.sub_del = eng_sub_del,
	.match = eng_match,
};

static struct pl_reply reply_of(const struct spate_peer_reply *r, uint64_t id)
{
	struct pl_reply pr = { { r->ipv4, r->port }, r->req_seq, r->req_type, id };

	if (r->ipv4 == 0 && r->port == 0)
		pr.req_type = 0; /* a rebuild or preload: nobody asked */
	return pr;
}

/* The local worker cat's messages go to, per the front's last CREATE. */
static int lcore_for(struct stage_link *s, uint32_t cat, uint32_t *l)
{
	uintptr_t v = (uintptr_t)spate_idmap_get(s->lcore_of, cat);

	if (v == 0) {
		if (SPATED_CAT_UNKNOWN(cat_unknown_lcore) < 5)
			fprintf(stderr,
				"spated: link: category %u: no CREATE said where it lives\n", cat);
		return -1;
	}
	*l = (uint32_t)(v - 1);
	return 0;
}

static struct pl_msg *new_msg(struct stage_link *s, uint8_t type, uint32_t cat, uint32_t other)
{
	return pl_msg_control(s->msg_pool, type, cat, other);
}

static void send_to(struct stage_link *s, uint32_t cat, struct pl_msg *m)
{
	uint32_t l;

	if (lcore_for(s, cat, &l) != 0) {
		pl_msg_put(s->msg_pool, m);
		return;
	}
	ring_out_push(&s->to_stage[l], m);
}

static void on_event(struct stage_link *s, const struct spate_peer_msg *pm)
{
	if (pm->n_cat > PL_EVENT_CATS) {
		spated_cnt.msg_no_memory++; /* the front never sends more */
		return;
	}
	/* never dropped once acknowledged: from the heap if the pool ran dry
	 * (has_room in stage_link.c keeps that rare) */
	struct pl_msg *m = pl_msg_get(s->msg_pool, 1);
	if (m == NULL) {
		spated_cnt.msg_no_memory++;
		return;
	}
	m->type = PL_EVENT;
	m->cat = 0;
	s->cur = m;
	spate_matcher_event(s->mm, &pm->inner.u.ev, &s->mv);
	m->u.ev.seq = pm->ev_seq;
	m->u.ev.rx_tsc = 0; /* the front's clock: not timed here */
	m->u.ev.parts = pm->parts;
	m->u.ev.n_cat = pm->n_cat;
	for (uint16_t i = 0; i < pm->n_cat; i++)
		m->u.ev.cats[i] = spate_peer_cat(pm, i);
	send_to(s, m->u.ev.cats[0], m);
}

/* Add rs to the dictionary matcher, its interned form in s->cur. An id
 * it holds already with the same content (a failover rebuild sends
 * again what this host may have) is taken as it is stored: the matcher
 * calls no engine for such a retransmission. */
static int intern_sub(struct stage_link *s, const struct spate_raw_sub *rs)
{
	const struct spate_sub *q = spate_matcher_sub_find(s->mm, rs->id);
	int rc = spate_matcher_sub_add(s->mm, rs, 0);

	if (rc == -SPATE_E_DUPLICATE_ID) {
		/* an id re-added with other content: replace ours */
		spate_matcher_sub_del(s->mm, rs->id, 0);
		return spate_matcher_sub_add(s->mm, rs, 0);
	}
	if (rc == 0 && q != NULL)
		eng_sub_add(&s->eng, q);
	return rc;
}

static void on_sub_add(struct stage_link *s, const struct spate_peer_msg *pm)
{
	const struct spate_raw_sub *rs = &pm->inner.u.sub;
	struct pl_msg *m = new_msg(s, PL_SUB_ADD, pm->cat, 0);

	if (m == NULL)
		return;
	s->cur = m;
	/* the front checked ids, owners and quotas: one owner here */
	if (intern_sub(s, rs) != 0) {
		spated_cnt.msg_no_memory++;
		pl_msg_put(s->msg_pool, m);
		return;
	}
	m->u.sub.reply = reply_of(&pm->reply, rs->id);
	m->u.sub.drop_cat = 0;
	send_to(s, pm->cat, m);
}

static uint64_t leave_key(uint32_t cat, uint32_t lcore)
{
	return (uint64_t)lcore << 32 | cat;
}

/* MOVE: to another lcore here, or to another host (the matching stage
 * hands the index to this link, poll_leaving ships it). */
static void on_move(struct stage_link *s, struct link_peer *front, const struct spate_peer_msg *pm)
{
	struct pl_msg *m;

	if (pm->other == s->host_id) {
		if (pm->lcore >= s->n_workers) {
			spated_cnt.peer_unsupported++;
			return;
		}
		if ((m = new_msg(s, PL_MOVE, pm->cat, pm->lcore)) != NULL)
			send_to(s, pm->cat, m);
		return;
	}
	uint32_t l;
	if (lcore_for(s, pm->cat, &l) != 0)
		return;
	struct leave *lv = malloc(sizeof(*lv));
	if (link_peer_of(s, pm->other) == NULL || lv == NULL) {
		free(lv);
		spated_cnt.peer_unsupported++; /* a host we have no channel to */
		return;
	}
	*lv = (struct leave){ NULL, pm->other, pm->lcore, pm->version, front->epoch };
	uint64_t key = leave_key(pm->cat, l);
	struct leave *q = spate_idmap_get(s->leaving, key);
	if (q != NULL) {
		while (q->next != NULL)
			q = q->next;
		q->next = lv;
	} else if (spate_idmap_put(s->leaving, key, lv) != 0) {
		free(lv);
		spated_cnt.msg_no_memory++;
		return;
	}
	if ((m = new_msg(s, PL_MOVE, pm->cat, s->n_workers)) != NULL)
		send_to(s, pm->cat, m);
}

static struct arrive *arrive_get(struct stage_link *s, uint32_t cat, uint32_t from)
{
	struct arrive *a = spate_idmap_get(s->arriving, cat);

	if (a != NULL)
		return a;
	a = calloc(1, sizeof(*a));
	if (a != NULL)
		a->from = from;
	if (a == NULL || (a->idx = cat_index_create(s->cat_engine, s->cat_cell)) == NULL ||
	    spate_idmap_put(s->arriving, cat, a) != 0) {
		if (a)
			cat_index_destroy(a->idx);
		free(a);
		spated_cnt.msg_no_memory++;
		return NULL;
	}
	return a;
}

static uint64_t expect_key(uint32_t host, uint32_t cat)
{
	return (uint64_t)host << 32 | cat;
}

/* One more (d = 1) or one fewer (d = -1) handoff of cat owed by host
 * to worker lcore here. */
static struct expect *expect_add(struct stage_link *s, uint32_t host, uint32_t cat, uint32_t lcore,
				 int d)
{
	uint64_t key = expect_key(host, cat);
	struct expect *e = spate_idmap_get(s->expecting, key);

	if (e == NULL) {
		e = calloc(1, sizeof(*e) + s->n_workers * sizeof(e->pending[0]));
		if (e == NULL || spate_idmap_put(s->expecting, key, e) != 0) {
			free(e);
			spated_cnt.msg_no_memory++;
			return NULL;
		}
	}
	e->pending[lcore] += d;
	for (uint32_t l = 0; l < s->n_workers; l++)
		if (e->pending[l] != 0)
			return e;
	free(spate_idmap_del(s->expecting, key));
	return NULL;
}

/* The handoffs of cat that host owes will never come: an empty index
 * in their place lets the matching stage run what it parked. */
static void abandon(struct stage_link *s, uint32_t host, uint32_t cat)
{
	struct expect *e = spate_idmap_del(s->expecting, expect_key(host, cat));

	for (uint32_t l = 0; e != NULL && l < s->n_workers; l++)
		for (int i = 0; i < e->pending[l]; i++) {
			struct pl_msg *m =
				new_msg(s, PL_HANDOFF, cat, s->drop_gen[pl_front_of(cat)]);
			struct cat_index *idx = cat_index_create(s->cat_engine, s->cat_cell);
			if (m == NULL || idx == NULL) {
				if (m)
					pl_msg_put(s->msg_pool, m);
				cat_index_destroy(idx);
				spated_cnt.msg_no_memory++;
				continue;
			}
			m->u.idx = idx;
			ring_out_push(&s->to_stage[l], m);
			spated_cnt.handoffs_abandoned++;
		}
	free(e);
}

static void on_expect(struct stage_link *s, const struct spate_peer_msg *pm)
{
	struct pl_msg *m;

	if (pm->lcore >= s->n_workers) {
		spated_cnt.peer_unsupported++;
		return;
	}
	if ((m = new_msg(s, PL_EXPECT, pm->cat, 0)) == NULL)
		return;
	ring_out_push(&s->to_stage[pm->lcore], m);
	if (pm->other == s->host_id)
		return; /* between lcores here: no network involved */
	struct expect *e = expect_add(s, pm->other, pm->cat, pm->lcore, 1);
	if (e == NULL)
		return;
	e->epoch = (uint32_t)pm->version;
	struct link_peer *from = link_peer_of(s, pm->other);
	/* from an incarnation already gone (the front learned later) */
	if (from != NULL && e->epoch != 0 && e->epoch <= from->dead_epoch)
		abandon(s, pm->other, pm->cat);
}

static void on_handoff_sub(struct stage_link *s, struct link_peer *p,
			   const struct spate_peer_msg *pm)
{
	const struct spate_raw_sub *rs = &pm->inner.u.sub;
	struct arrive *a = arrive_get(s, pm->cat, p->host);

	if (a == NULL)
		return;
	s->cur = s->scratch_msg;
	int rc = intern_sub(s, rs);
	struct pl_sub *ps = &s->scratch_msg->u.sub;
	struct spate_sub q = ps->sub;
	q.kw = ps->kw;
	q.cons = ps->cons;
	if (rc != 0 || cat_index_add(a->idx, &q) != 0) {
		spated_cnt.msg_no_memory++;
		return;
	}
	a->n++;
	spated_cnt.peer_handoff_subs_in++;
}

static struct link_peer *front_of(struct stage_link *s, uint32_t cat);

static void on_handoff_end(struct stage_link *s, struct link_peer *p,
			   const struct spate_peer_msg *pm)
{
	struct arrive *a = arrive_get(s, pm->cat, p->host);
	struct link_peer *f = front_of(s, pm->cat);
	struct pl_msg *m;

	if (f->down || f->epoch != pm->version) {
		/* moved by a front incarnation gone since (its categories were
		 * dropped here, and a new one numbers its own from the same ids) */
		spated_cnt.handoffs_stale++;
		if (a != NULL) {
			spate_idmap_del(s->arriving, pm->cat);
			cat_index_destroy(a->idx);
			free(a);
		}
		return;
	}
	/* owed to the worker the sender's CREATE named (the MOVE's, as the
	 * EXPECT's), else to where the category lives here */
	uintptr_t to = a != NULL && a->lcore != 0
			       ? a->lcore
			       : (uintptr_t)spate_idmap_get(s->lcore_of, pm->cat);
	if (to != 0)
		expect_add(s, p->host, pm->cat, (uint32_t)(to - 1), -1);
	if (a == NULL)
		return;
	spate_idmap_del(s->arriving, pm->cat);
	if (a->n != pm->other) {
		spated_cnt.peer_handoff_bad++;
		fprintf(stderr,
			"spated: link: category %u arrived with %u subscriptions, %u sent\n",
			pm->cat, a->n, pm->other);
	}
	uint32_t l = a->lcore - 1;
	if ((a->lcore == 0 && lcore_for(s, pm->cat, &l) != 0) ||
	    (m = new_msg(s, PL_HANDOFF, pm->cat, s->drop_gen[pl_front_of(pm->cat)])) == NULL) {
		cat_index_destroy(a->idx);
	} else {
		/* to the lcore of the sender's CREATE: the front may have
		 * merged the category away meanwhile (the merge waits for it) */
		m->u.idx = a->idx;
		ring_out_push(&s->to_stage[l], m);
	}
	free(a);
}

static void deliver_one(struct stage_link *s, struct link_peer *p, const struct spate_peer_msg *pm)
{
	struct pl_msg *m;
	struct arrive *a;

	switch (pm->type) {
	case SPATE_PEER_CREATE:
		if (pm->lcore >= s->n_workers) {
			SPATED_CAT_UNKNOWN(cat_unknown_create_lcore);
			return;
		}
		/* from another match host: where the handoff that follows goes
		 * (only the front's CREATEs route the front's messages: the
		 * category may have moved on here meanwhile) */
		if (p->lcores != 0) {
			if ((a = arrive_get(s, pm->cat, p->host)) != NULL)
				a->lcore = pm->lcore + 1u;
		} else if (spate_idmap_put(s->lcore_of, pm->cat,
					   (void *)(uintptr_t)(pm->lcore + 1u)) != 0) {
			spated_cnt.msg_no_memory++;
		}
		return;
	case SPATE_PEER_EVENT:
		on_event(s, pm);
		return;
	case SPATE_PEER_SUB_ADD:
		on_sub_add(s, pm);
		return;
	case SPATE_PEER_SUB_DEL:
		spate_matcher_sub_del(s->mm, pm->id, 0);
		if ((m = new_msg(s, PL_SUB_DEL, pm->cat, 0)) == NULL)
			return;
		m->u.sub.reply = reply_of(&pm->reply, pm->id);
		m->u.sub.drop_cat = pm->drop_cat;
		m->u.sub.sub.id = pm->id;
		send_to(s, pm->cat, m);
		if (pm->drop_cat)
			spate_idmap_del(s->lcore_of, pm->cat);
		return;
	case SPATE_PEER_ACK:
		if ((m = new_msg(s, PL_ACK, pm->cat, 0)) == NULL)
			return;
		m->u.ack = reply_of(&pm->reply, pm->id);
		send_to(s, pm->cat, m);
		return;
	case SPATE_PEER_MERGE:
		if ((m = new_msg(s, PL_MERGE, pm->cat, pm->other)) == NULL)
			return;
		send_to(s, pm->cat, m);
		spate_idmap_del(s->lcore_of, pm->other);
		return;
	case SPATE_PEER_MOVE:
		on_move(s, p, pm);
		return;
	case SPATE_PEER_EXPECT:
		on_expect(s, pm);
		return;
	case SPATE_PEER_HANDOFF_SUB:
		on_handoff_sub(s, p, pm);
		return;
	case SPATE_PEER_HANDOFF_END:
		on_handoff_end(s, p, pm);
		return;
	default:
		spated_cnt.peer_unsupported++; /* FEEDBACK is for fronts */
	}
}

void link_match_deliver(struct stage_link *s, struct link_peer *p, const uint8_t *body, size_t len,
			uint16_t count)
{
	struct spate_peer_reader r;
	struct spate_peer_msg pm;

	spate_peer_reader_init(&r, body, len, count);
	while (spate_peer_next(&r, s->lim, &pm) == 1)
		deliver_one(s, p, &pm);
}

struct ship {
	struct stage_link *s;
	struct link_peer *p;
	uint32_t cat, n;
	int err;
};

static void ship_sub(void *ctx, const struct spate_sub *q)
{
	struct ship *sh = ctx;
	struct stage_link *s = sh->s;
	struct spate_peer_writer out;

	spate_peer_writer_init(&out, s->scratch, s->body_cap);
	spate_matcher_raw_sub(s->mm, q, s->rsub);
	if (spate_peer_put_handoff_sub(&out, sh->cat, 0, s->rsub) != 0 ||
	    link_append_force(s, sh->p, &out) != 0) {
		sh->err = 1;
		return;
	}
	sh->n++;
}

static void forget_sub(void *ctx, const struct spate_sub *q)
{
	struct stage_link *s = ctx;

	spate_matcher_sub_del(s->mm, q->id, 0);
}

/* A matching stage handed over a category leaving for another host:
 * CREATE (its lcore there), every subscription, HANDOFF_END with the
 * count, on the channel to that host. Never held back half-way: what the
 * window does not take waits in memory (link_append_force). */
static void ship_to(struct stage_link *s, struct pl_msg *m, struct leave *lv);

/* A handoff to a host whose new incarnation the front has seen and this
 * host not yet (the MOVE's version names the destination's epoch): it
 * waits, in order, until ZooKeeper's view here catches up. */
struct deferred {
	struct deferred *next;
	struct pl_msg *m;
	struct leave *lv;
};

static int must_wait(const struct link_peer *p, const struct leave *lv)
{
	return p != NULL && (p->down || p->epoch < lv->version) && lv->version > p->dead_epoch &&
	       lv->version != 0;
}

static void defer(struct stage_link *s, struct pl_msg *m, struct leave *lv)
{
	struct deferred *d = malloc(sizeof(*d));

	if (d == NULL) {
		spated_cnt.msg_no_memory++;
		ship_to(s, m, lv); /* dropped there as for a dead host: counted */
		return;
	}
	*d = (struct deferred){ NULL, m, lv };
	if (s->def_tail)
		s->def_tail->next = d;
	else
		s->def_head = d;
	s->def_tail = d;
}

/* The deferred handoffs whose destination is up now (or known gone). */
static unsigned int run_deferred(struct stage_link *s)
{
	unsigned int n = 0;

	while (s->def_head != NULL) {
		struct deferred *d = s->def_head;
		if (must_wait(link_peer_of(s, d->lv->host), d->lv))
			break; /* the later ones wait behind it */
		s->def_head = d->next;
		if (s->def_head == NULL)
			s->def_tail = NULL;
		ship_to(s, d->m, d->lv);
		free(d);
		n++;
	}
	return n;
}

static void ship(struct stage_link *s, uint32_t lcore, struct pl_msg *m)
{
	if (m->other < s->drop_gen[pl_front_of(m->cat)]) {
		/* handed over before the stage dropped its front's categories:
		 * its MOVE was forgotten with them */
		spated_cnt.handoffs_stale++;
		cat_index_destroy(m->u.idx);
		pl_msg_put(s->msg_pool, m);
		return;
	}
	uint64_t key = leave_key(m->cat, lcore);
	struct leave *lv = spate_idmap_del(s->leaving, key);
	if (lv != NULL && lv->next != NULL && spate_idmap_put(s->leaving, key, lv->next) != 0)
		spated_cnt.msg_no_memory++; /* the later MOVEs are lost: counted */
	if (lv != NULL && (s->def_head != NULL || must_wait(link_peer_of(s, lv->host), lv))) {
		defer(s, m, lv);
		return;
	}
	ship_to(s, m, lv);
}

static void ship_to(struct stage_link *s, struct pl_msg *m, struct leave *lv)
{
	struct link_peer *p = lv ? link_peer_of(s, lv->host) : NULL;
	struct spate_peer_writer out;

	if (p == NULL || p->down) {
		/* a host that died meanwhile: the front rebuilds it elsewhere */
		if (p == NULL)
			SPATED_CAT_UNKNOWN(cat_unknown_ship_host);
		else
			spated_cnt.handoffs_abandoned++;
		/* its subscriptions stay in the dictionary: the front's rebuild
		 * may have put them in a category here already, and forgetting
		 * them would drop keywords that category's copies still use */
		goto done;
	}
	struct ship sh = { s, p, m->cat, 0, 0 };
	spate_peer_writer_init(&out, s->scratch, s->body_cap);
	if (spate_peer_put_create(&out, m->cat, lv->lcore) != 0 ||
	    link_append_force(s, p, &out) != 0)
		sh.err = 1;
	if (!sh.err)
		cat_index_foreach(m->u.idx, ship_sub, &sh);
	spate_peer_writer_init(&out, s->scratch, s->body_cap);
	if (sh.err || spate_peer_put_handoff_end(&out, m->cat, sh.n, lv->front_epoch) != 0 ||
	    link_append_force(s, p, &out) != 0) {
		spated_cnt.msg_no_memory++; /* the count will not match there: logged */
	}
	spated_cnt.peer_handoff_subs += sh.n;
	cat_index_foreach(m->u.idx, forget_sub, s);
	/* lcore_of[cat] stays: the category may be back already, announced
	 * again by the front */
done:
	free(lv);
	cat_index_destroy(m->u.idx);
	pl_msg_put(s->msg_pool, m);
}

/* The front a category belongs to (its id names it). */
static struct link_peer *front_of(struct stage_link *s, uint32_t cat)
{
	return &s->peers[s->front_peer[pl_front_of(cat)]];
}

/* The matching stages' feedback, to the fronts; categories leaving. */
unsigned int link_match_poll(struct stage_link *s)
{
	unsigned int work = run_deferred(s);
	void *obj;

	for (uint32_t w = 0; w < s->n_workers; w++)
		while (s->handoff_in[w] != NULL &&
		       rte_ring_sc_dequeue(s->handoff_in[w], &obj) == 0) {
			ship(s, w, obj);
			work++;
		}

	for (uint32_t w = 0; w < s->n_workers; w++) {
		for (;;) {
			struct pl_msg *m = s->held[w];
			if (m == NULL) {
				if (rte_ring_sc_dequeue(s->from_stage[w], &obj) != 0)
					break;
				m = obj;
			}
			struct link_peer *p = front_of(s, m->u.fb.origin);
			if (p->blocked) {
				s->held[w] = m;
				break;
			}
			struct spate_peer_writer out;
			spate_peer_writer_init(&out, s->scratch, s->body_cap);
			int rc = m->type == PL_DONE
					 ? spate_peer_put_done(&out, (uint16_t)w, m->u.fb.seq)
				 : m->type == PL_FEEDBACK
					 ? spate_peer_put_feedback(&out, m->u.fb.seq, m->u.fb.parts,
								   m->u.fb.cats, m->u.fb.n)
					 : -1;
			if (rc == 0 && link_append(s, p, &out) != 0) {
				s->held[w] = m;
				break;
			}
			s->held[w] = NULL;
			pl_msg_put(s->msg_pool, m);
			work++;
		}
	}
	return work;
}

int link_match_init(struct stage_link *s, const struct stage_link_conf *c)
{
	s->eng.s = s;
	s->lcore_of = spate_idmap_create();
	s->leaving = spate_idmap_create();
	s->arriving = spate_idmap_create();
	s->expecting = spate_idmap_create();
	s->scratch_msg = malloc(sizeof(*s->scratch_msg));
	s->rsub = malloc(sizeof(*s->rsub));
	s->handoff_in = calloc(c->n_workers, sizeof(*s->handoff_in));
	s->cat_engine = c->cat_engine;
	s->cat_cell = c->cat_cell;
	/* events may be parked behind a handoff that brings their keywords'
	 * first subscriptions here: intern them all (spate_matcher.h) */
	struct spate_matcher_conf mc = *c->match_conf;
	mc.intern_event_strings = true;
	s->mm = spate_matcher_create_engine(&mc, &link_ops, &s->eng);
	if (s->lcore_of == NULL || s->leaving == NULL || s->arriving == NULL ||
	    s->expecting == NULL || s->scratch_msg == NULL || s->rsub == NULL ||
	    s->handoff_in == NULL || s->mm == NULL)
		return -1;
	if (c->handoff_in != NULL)
		memcpy(s->handoff_in, c->handoff_in, c->n_workers * sizeof(*s->handoff_in));
	/* the fronts by rank (host id order): a category id's top bits */
	int fronts = 0;
	for (uint32_t i = 0; i < s->n_peers; i++)
		if (s->peers[i].lcores == 0) {
			uint32_t r = host_conf_front_rank(c->hosts, s->peers[i].host);
			if (r < 16)
				s->front_peer[r] = i;
			fronts++;
		}
	if (fronts == 0)
		return -1; /* host_conf_check makes sure there is one */
	for (uint32_t w = 0; w < c->n_workers; w++)
		if (ring_out_init(&s->to_stage[w], c->to_stage[w], 1, drop_msg, s) != 0)
			return -1;
	return 0;
}

static void free_arrive(uint64_t key, void *val, void *ctx)
{
	struct arrive *a = val;

	(void)key;
	(void)ctx;
	cat_index_destroy(a->idx);
	free(a);
}

static void free_leave(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	while (val != NULL) {
		struct leave *lv = val;
		val = lv->next;
		free(lv);
	}
}

static void free_expect(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	free(val);
}

struct keys {
	uint32_t host, n, cap;
	uint64_t *k;
};

static void key_of_host(uint64_t key, void *val, void *ctx)
{
	struct keys *x = ctx;
	const struct arrive *a = val;

	if (x->n < x->cap && (x->k != NULL) &&
	    (a == NULL ? (uint32_t)(key >> 32) == x->host : a->from == x->host))
		x->k[x->n++] = key;
}

static void key_of_sender(uint64_t key, void *val, void *ctx)
{
	(void)val;
	key_of_host(key, NULL, ctx);
}

/* What this link holds for front `rank`'s categories, by key. */
struct of_rank {
	uint32_t rank, n, cap, shift; /* shift: where the category sits in the key */
	uint64_t *k;
};

static void key_of_rank(uint64_t key, void *val, void *ctx)
{
	struct of_rank *x = ctx;

	(void)val;
	if (pl_front_of((uint32_t)(key >> x->shift)) == x->rank && x->n < x->cap)
		x->k[x->n++] = key;
}

/* The keys of map m whose category (key >> shift, low 32 bits) is of
 * front rank; free_fn(key, val) for each, then removed. */
static void forget_rank(struct spate_idmap *m, uint32_t rank, uint32_t shift,
			void (*free_fn)(uint64_t key, void *val, void *ctx))
{
	struct of_rank x = { rank, 0, (uint32_t)spate_idmap_count(m), shift, NULL };

	x.k = malloc((x.cap ? x.cap : 1) * sizeof(*x.k));
	if (x.k == NULL) {
		spated_cnt.msg_no_memory++;
		return;
	}
	spate_idmap_foreach(m, key_of_rank, &x);
	for (uint32_t i = 0; i < x.n; i++) {
		void *v = spate_idmap_del(m, x.k[i]);
		if (free_fn != NULL)
			free_fn(x.k[i], v, NULL);
	}
	free(x.k);
}

/* A front left: the category ids it made mean nothing any more (a new
 * incarnation numbers its own from the same ids, another front may take
 * its subscriptions over). Everything this host holds for them goes: the
 * matching stages drop the categories, the link its routes, moves,
 * handoffs and expectations. Handoffs of them still on their way are
 * discarded where they land (drop generations, HANDOFF_END's front
 * epoch). The other fronts' categories are not touched. */
static void drop_front(struct stage_link *s, struct link_peer *p)
{
	uint32_t rank = host_conf_front_rank(s->hosts, p->host);

	if (rank >= PL_FRONTS)
		return;
	forget_rank(s->lcore_of, rank, 0, NULL);
	forget_rank(s->arriving, rank, 0, free_arrive);
	forget_rank(s->leaving, rank, 0, free_leave);
	forget_rank(s->expecting, rank, 0, free_expect); /* key: host << 32 | cat */
	for (struct deferred **dp = &s->def_head; *dp != NULL;) {
		struct deferred *d = *dp;
		if (pl_front_of(d->m->cat) != rank) {
			dp = &d->next;
			continue;
		}
		*dp = d->next;
		cat_index_destroy(d->m->u.idx);
		pl_msg_put(s->msg_pool, d->m);
		free(d->lv);
		free(d);
	}
	s->def_tail = NULL;
	for (struct deferred *d = s->def_head; d != NULL; d = d->next)
		s->def_tail = d;
	s->drop_gen[rank]++;
	for (uint32_t w = 0; w < s->n_workers; w++) {
		struct pl_msg *m = new_msg(s, PL_DROP_FRONT, 0, rank);
		if (m != NULL)
			ring_out_push(&s->to_stage[w], m);
	}
	if (p->epoch != 0)
		fprintf(stderr,
			"spated: link: front %u (epoch %u) left: its categories are dropped here\n",
			p->host, p->epoch);
}

void link_match_peer_down(struct stage_link *s, struct link_peer *p)
{
	if (p->lcores == 0) {
		drop_front(s, p);
		return;
	}
	struct keys x = { p->host, 0, 0, NULL };
	/* handoffs it had begun: half an index is no index */
	x.cap = (uint32_t)spate_idmap_count(s->arriving);
	x.k = malloc((x.cap ? x.cap : 1) * sizeof(*x.k));
	spate_idmap_foreach(s->arriving, key_of_host, &x);
	for (uint32_t i = 0; i < x.n; i++) {
		struct arrive *a = spate_idmap_del(s->arriving, x.k[i]);
		/* not forgotten in the dictionary: see ship_to */
		cat_index_destroy(a->idx);
		free(a);
	}
	free(x.k);
	/* and the ones it owed */
	x.n = 0;
	x.cap = (uint32_t)spate_idmap_count(s->expecting);
	x.k = malloc((x.cap ? x.cap : 1) * sizeof(*x.k));
	spate_idmap_foreach(s->expecting, key_of_sender, &x);
	for (uint32_t i = 0; i < x.n; i++)
		abandon(s, p->host, (uint32_t)x.k[i]); /* what is owed; the rest forgotten */
	free(x.k);
}

void link_match_fini(struct stage_link *s)
{
	void *obj;

	for (uint32_t w = 0; s->handoff_in && w < s->n_workers; w++)
		while (s->handoff_in[w] != NULL &&
		       rte_ring_sc_dequeue(s->handoff_in[w], &obj) == 0) {
			struct pl_msg *m = obj;
			cat_index_destroy(m->u.idx);
			pl_msg_put(s->msg_pool, m);
		}
	while (s->def_head != NULL) {
		struct deferred *d = s->def_head;
		s->def_head = d->next;
		cat_index_destroy(d->m->u.idx);
		pl_msg_put(s->msg_pool, d->m);
		free(d->lv);
		free(d);
	}
	spate_idmap_destroy_each(s->arriving, free_arrive, NULL);
	spate_idmap_destroy_each(s->leaving, free_leave, NULL);
	spate_idmap_destroy_each(s->expecting, free_expect, NULL);
	spate_matcher_destroy(s->mm);
	spate_idmap_destroy(s->lcore_of);
	spate_matchvec_free(&s->mv);
	free(s->scratch_msg);
	free(s->rsub);
	free(s->handoff_in);
}
