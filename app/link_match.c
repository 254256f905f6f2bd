/* link_match.c - a match host's side of the link stage (stage_link.h):
 * the front's messages become pipeline messages for the local matching
 * stages, interned through a spate_matcher of this host whose "engine"
 * is this file (as the cluster stage does on a front), and the matching
 * stages' feedback goes back to the front. */
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "link_int.h"
#include "spate_err.h"

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
		spated_cnt.cat_unknown++;
		return -1;
	}
	*l = (uint32_t)(v - 1);
	return 0;
}

static struct pl_msg *new_msg(struct stage_link *s, uint8_t type, uint32_t cat, uint32_t other)
{
	struct pl_msg *m = pl_msg_get(s->msg_pool, 1);

	if (m != NULL) {
		m->type = type;
		m->cat = cat;
		m->other = other;
	}
	return m;
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
	struct pl_msg *m = pl_msg_get(s->msg_pool, 0);
	if (m == NULL) {
		spated_cnt.msg_no_memory++;
		return;
	}
	m->type = PL_EVENT;
	m->cat = 0;
	s->cur = m;
	spate_matcher_event(s->mm, &pm->inner.u.ev, &s->mv);
	m->u.ev.seq = pm->ev_seq;
	m->u.ev.parts = pm->parts;
	m->u.ev.n_cat = pm->n_cat;
	for (uint16_t i = 0; i < pm->n_cat; i++)
		m->u.ev.cats[i] = spate_peer_cat(pm, i);
	send_to(s, m->u.ev.cats[0], m);
}

static void on_sub_add(struct stage_link *s, const struct spate_peer_msg *pm)
{
	const struct spate_raw_sub *rs = &pm->inner.u.sub;
	struct pl_msg *m = new_msg(s, PL_SUB_ADD, pm->cat, 0);

	if (m == NULL)
		return;
	s->cur = m;
	/* the front checked ids, owners and quotas: one owner here */
	int rc = spate_matcher_sub_add(s->mm, rs, 0);
	if (rc != 0 && rc != -SPATE_E_DUPLICATE_ID) {
		spated_cnt.msg_no_memory++;
		pl_msg_put(s->msg_pool, m);
		return;
	}
	if (rc != 0) {
		/* an id re-added with other content: replace ours */
		spate_matcher_sub_del(s->mm, rs->id, 0);
		spate_matcher_sub_add(s->mm, rs, 0);
	}
	m->u.sub.reply = reply_of(&pm->reply, rs->id);
	m->u.sub.drop_cat = 0;
	send_to(s, pm->cat, m);
}

static void deliver_one(struct stage_link *s, const struct spate_peer_msg *pm)
{
	struct pl_msg *m;
	uint32_t l;

	switch (pm->type) {
	case SPATE_PEER_CREATE:
		if (pm->lcore >= s->n_workers) {
			spated_cnt.cat_unknown++;
			return;
		}
		if (spate_idmap_put(s->lcore_of, pm->cat, (void *)(uintptr_t)(pm->lcore + 1u)) != 0)
			spated_cnt.msg_no_memory++;
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
		if (pm->other != s->host_id || pm->lcore >= s->n_workers) {
			spated_cnt.peer_unsupported++;
			return;
		}
		if ((m = new_msg(s, PL_MOVE, pm->cat, pm->lcore)) != NULL)
			send_to(s, pm->cat, m);
		return;
	case SPATE_PEER_EXPECT:
		if (pm->other != s->host_id || lcore_for(s, pm->cat, &l) != 0) {
			spated_cnt.peer_unsupported++;
			return;
		}
		if ((m = new_msg(s, PL_EXPECT, pm->cat, 0)) != NULL)
			ring_out_push(&s->to_stage[pm->lcore < s->n_workers ? pm->lcore : l], m);
		return;
	default:
		spated_cnt.peer_unsupported++; /* handoffs between hosts: not built yet */
	}
}

void link_match_deliver(struct stage_link *s, struct link_peer *p, const uint8_t *body,
			size_t len, uint16_t count)
{
	struct spate_peer_reader r;
	struct spate_peer_msg pm;

	(void)p;
	spate_peer_reader_init(&r, body, len, count);
	while (spate_peer_next(&r, s->lim, &pm) == 1)
		deliver_one(s, &pm);
}

/* The matching stages' feedback, to the front (the first peer). */
unsigned int link_match_poll(struct stage_link *s)
{
	struct link_peer *p = &s->peers[0];
	unsigned int work = 0;

	for (uint32_t w = 0; w < s->n_workers && !p->blocked; w++) {
		for (;;) {
			struct pl_msg *m = s->held[w];
			void *obj;
			if (m == NULL) {
				if (rte_ring_sc_dequeue(s->from_stage[w], &obj) != 0)
					break;
				m = obj;
			}
			struct spate_peer_writer out;
			spate_peer_writer_init(&out, s->scratch, s->body_cap);
			if (m->type == PL_FEEDBACK &&
			    spate_peer_put_feedback(&out, m->u.fb.seq, m->u.fb.parts, m->u.fb.cats,
						    m->u.fb.n) == 0 &&
			    link_append(s, p, &out) != 0) {
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
	s->mm = spate_matcher_create_engine(c->match_conf, &link_ops, &s->eng);
	if (s->lcore_of == NULL || s->mm == NULL)
		return -1;
	for (uint32_t w = 0; w < c->n_workers; w++)
		if (ring_out_init(&s->to_stage[w], c->to_stage[w], 1, drop_msg, s) != 0)
			return -1;
	return 0;
}

void link_match_fini(struct stage_link *s)
{
	spate_matcher_destroy(s->mm);
	spate_idmap_destroy(s->lcore_of);
	spate_matchvec_free(&s->mv);
}
