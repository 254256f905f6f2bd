/* stage_match.c - a matching stage (stage_match.h).
 *
 * Each category held here is an entry: its index (NULL while it is on
 * its way here, or after it left), and a FIFO of parked messages. A
 * message for a category runs at once when the entry is runnable - index
 * here, no merge into it pending, nothing parked before it - and is
 * parked otherwise, so the category's messages always run in the order
 * the cluster stage sent them. An event message listing several
 * categories is shared by their queues (a reference count; one lcore,
 * no atomics).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "match/cat_index.h"
#include "infra/counters.h"
#include "infra/debug_stall.h"
#include "infra/latency.h"
#include "net/notify.h"
#include "infra/pl_msg.h"
#include "infra/ring_out.h"
#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"
#include "proto/spate_proto.h"
#include "match/stage_match.h"
#include "net/tx_out.h"

struct park {
	struct park *next;
	struct pl_msg *msg;
	uint8_t pull; /* the MERGE of msg waits here for this (partner) category */
};

struct mcat {
	uint32_t id;
	struct cat_index *idx; /* NULL: on its way here, or gone */
	uint8_t expecting;     /* EXPECT seen, handoff not yet here */
	uint32_t blocked;      /* merges into it waiting for their partner */
	struct park *head, *tail;
};

struct stage_match {
	uint32_t worker, n_workers;
	struct rte_ring *in;
	struct rte_ring **peer_in;
	struct ring_out *peer_out; /* [n_workers], unused for self */
	struct tx_out to_tx;
	struct ring_out feedback;
	struct ring_out to_link; /* handoffs to other hosts (match hosts) */
	struct rte_mempool *msg_pool;
	const char *cat_engine;
	double cat_cell;
	bool cpu_accounting; /* match_cpu_ns (spated.cpu_accounting) */
	struct notifier *nt;
	struct spate_idmap *cats; /* category id -> struct mcat */
	struct spate_matchvec mv;
	struct park *free_parks;
	uint32_t *ready; /* categories to drain: a merge into them completed */
	size_t n_ready, cap_ready;
	uint32_t drop_gen[PL_FRONTS]; /* PL_DROP_FRONTs run, per front rank */
	struct park *early;           /* handoffs from a later drop generation */
	/* match hosts: how far each front's events are matched here, told to
	 * its front (PL_DONE) so that it can count what a death of this host
	 * loses; held back while any event part waits parked */
	uint32_t parked_events;
	uint32_t done_seq[PL_FRONTS], done_origin[PL_FRONTS];
	uint8_t done_dirty[PL_FRONTS];
};

static void release(struct stage_match *s, struct pl_msg *m)
{
	if (--m->refs == 0)
		pl_msg_put(s->msg_pool, m);
}

static void drop_feedback(void *ctx, void *obj)
{
	struct stage_match *s = ctx;

	spated_cnt.feedback_lost++;
	pl_msg_put(s->msg_pool, obj);
}

static void drop_msg(void *ctx, void *obj)
{
	struct stage_match *s = ctx;
	struct pl_msg *m = obj;

	/* only when a handoff backlog cannot grow: the index goes too */
	if (m->type == PL_HANDOFF)
		cat_index_destroy(m->u.idx);
	pl_msg_put(s->msg_pool, m);
}

static struct mcat *cat_get(struct stage_match *s, uint32_t id)
{
	return spate_idmap_get(s->cats, id);
}

static struct mcat *cat_add(struct stage_match *s, uint32_t id, struct cat_index *idx)
{
	struct mcat *e = calloc(1, sizeof(*e));

	if (e == NULL || spate_idmap_put(s->cats, id, e) != 0) {
		free(e);
		return NULL;
	}
	e->id = id;
	e->idx = idx;
	return e;
}

static int runnable(const struct mcat *e)
{
	return e->idx != NULL && e->blocked == 0 && e->head == NULL;
}

/* Forget an entry with nothing left to do: no index, nothing parked,
 * nothing expected. */
static void settle(struct stage_match *s, struct mcat *e)
{
	if (e->idx == NULL && e->head == NULL && !e->expecting && e->blocked == 0) {
		spate_idmap_del(s->cats, e->id);
		free(e);
	}
}

static void park(struct stage_match *s, struct mcat *e, struct pl_msg *m, uint8_t pull)
{
	struct park *p = s->free_parks;

	if (p != NULL)
		s->free_parks = p->next;
	else if ((p = malloc(sizeof(*p))) == NULL) {
		/* cannot hold it: counted, the category misses this message */
		spated_cnt.msg_no_memory++;
		return;
	}
	p->next = NULL;
	p->msg = m;
	p->pull = pull;
	m->refs++;
	s->parked_events += m->type == PL_EVENT;
	if (e->tail)
		e->tail->next = p;
	else
		e->head = p;
	e->tail = p;
	spated_cnt.parked++;
}

static void reply(struct stage_match *s, const struct pl_reply *r, int code)
{
	if (r->req_type == 0)
		return; /* preloaded: nobody asked */
	notifier_reply(s->nt, r->to, r->req_type, code, r->req_seq, r->id);
}

static void match_in(struct stage_match *s, struct mcat *e, const struct spate_event *ev)
{
	spated_cnt.cats_visited++;
	if (cat_index_match(e->idx, ev, &s->mv) != 0)
		spated_cnt.msg_no_memory++;
}

static void notify(struct stage_match *s, uint64_t event_id)
{
	spated_cnt.matches += s->mv.n;
	if (notifier_add_matches(s->nt, event_id, &s->mv) != 0)
		spated_cnt.msg_no_memory++;
	s->mv.n = 0;
}

static void push_ready(struct stage_match *s, uint32_t id)
{
	if (s->n_ready == s->cap_ready) {
		size_t ncap = s->cap_ready ? s->cap_ready * 2 : 16;
		uint32_t *nr = realloc(s->ready, ncap * sizeof(*nr));
		if (nr == NULL) {
			spated_cnt.msg_no_memory++;
			return;
		}
		s->ready = nr;
		s->cap_ready = ncap;
	}
	s->ready[s->n_ready++] = id;
}

/* `from` (runnable) merges into `into`. */
static void merge_now(struct stage_match *s, struct mcat *into, struct mcat *from)
{
	if (cat_index_merge(into->idx, from->idx) != 0) {
		spated_cnt.msg_no_memory++; /* both kept; from's subs unreachable */
		return;
	}
	from->idx = NULL;
	spated_cnt.merges++;
	settle(s, from);
}

static void hand_off(struct stage_match *s, struct mcat *e, uint32_t to)
{
	struct ring_out *out = to == s->n_workers ? &s->to_link : &s->peer_out[to];

	if (to > s->n_workers || to == s->worker || out->ring == NULL) {
		SPATED_CAT_UNKNOWN(cat_unknown_move_to);
		return;
	}
	struct pl_msg *h = pl_msg_get(s->msg_pool, 1);
	if (h == NULL)
		return; /* counted; the category stays here, unreachable */
	h->type = PL_HANDOFF;
	h->cat = e->id;
	h->other = s->drop_gen[pl_front_of(e->id)];
	if (to < s->n_workers) /* DataTra between lcores; the link counts between hosts */
		spated_cnt.rehome_subs += cat_index_count(e->idx);
	h->u.idx = e->idx;
	e->idx = NULL;
	ring_out_push(out, h);
	spated_cnt.rehomes_out++;
}

/* Run one message for runnable entry e. Never frees e itself: the caller
 * settles it. `pull`: e is the partner a parked MERGE waited for. */
static void execute(struct stage_match *s, struct mcat *e, struct pl_msg *m, uint8_t pull)
{
	switch (m->type) {
	case PL_EVENT: {
		struct spate_event ev = pl_event_view(&m->u.ev);
		match_in(s, e, &ev);
		notify(s, ev.id);
		break;
	}
	case PL_SUB_ADD: {
		struct spate_sub sub = m->u.sub.sub;
		sub.kw = m->u.sub.kw;
		sub.cons = m->u.sub.cons;
		reply(s, &m->u.sub.reply, -cat_index_add(e->idx, &sub));
		break;
	}
	case PL_SUB_DEL: {
		int rc = cat_index_del(e->idx, m->u.sub.sub.id);
		if (m->u.sub.drop_cat && cat_index_count(e->idx) == 0) {
			cat_index_destroy(e->idx);
			e->idx = NULL;
		}
		reply(s, &m->u.sub.reply, -rc);
		break;
	}
	case PL_ACK:
		reply(s, &m->u.ack, 0);
		break;
	case PL_MERGE:
		if (pull) {
			/* e is the partner; m->cat the category it merges into */
			struct mcat *into = cat_get(s, m->cat);
			if (into == NULL || into->idx == NULL) {
				SPATED_CAT_UNKNOWN(cat_unknown_merge_into);
				break;
			}
			into->blocked--;
			merge_now(s, into, e); /* may settle e: caller re-checks by id */
			push_ready(s, into->id);
		} else {
			struct mcat *from = cat_get(s, m->other);
			if (from == NULL) {
				SPATED_CAT_UNKNOWN(cat_unknown_merge_from);
			} else if (runnable(from)) {
				merge_now(s, e, from);
			} else {
				e->blocked++;
				park(s, from, m, 1);
			}
		}
		break;
	case PL_MOVE:
		hand_off(s, e, m->other);
		break;
	case PL_EXPECT:
		break; /* the handoff came first: nothing to wait for */
	default:
		SPATED_CAT_UNKNOWN(cat_unknown_msg_type);
	}
}

/* After e left (a MOVE ran), what waits in its queue came after the
 * MOVE. The cluster stage sends a category's messages to a worker it
 * left only after an EXPECT (it comes back), except in a failover: the
 * host it was moving to died, and the front rebuilt it here, sending its
 * subscriptions again with nothing before them. Those start it anew,
 * from an empty index; left waiting for a handoff that never comes,
 * they and every later message for it were lost (seen in
 * multihost-failover-rehome under load: 134-1,999 matches missing). */
static void restart_if_rebuilt(struct stage_match *s, struct mcat *e)
{
	if (e->idx != NULL || e->head == NULL || e->expecting || e->blocked != 0 ||
	    e->head->msg->type == PL_EXPECT)
		return;
	if ((e->idx = cat_index_create(s->cat_engine, s->cat_cell)) == NULL)
		spated_cnt.msg_no_memory++;
	else
		spated_cnt.rebuilt_after_move++;
}

/* Run e's parked messages while it is runnable. */
static void drain(struct stage_match *s, uint32_t id)
{
	struct mcat *e = cat_get(s, id);

	while (e != NULL && e->head != NULL && e->idx != NULL && e->blocked == 0) {
		struct park *p = e->head;
		e->head = p->next;
		if (e->head == NULL)
			e->tail = NULL;
		struct pl_msg *m = p->msg;
		uint8_t pull = p->pull;
		p->next = s->free_parks;
		s->free_parks = p;
		s->parked_events -= m->type == PL_EVENT;
		uint8_t type = m->type;
		execute(s, e, m, pull);
		release(s, m);
		e = cat_get(s, id); /* a merge may have settled it */
		if (e != NULL && type == PL_MOVE)
			restart_if_rebuilt(s, e);
	}
	if (e != NULL)
		settle(s, e);
}

static void run_ready(struct stage_match *s)
{
	while (s->n_ready > 0)
		drain(s, s->ready[--s->n_ready]);
}

/* A message for category id: now, or parked behind what waits. */
static void dispatch(struct stage_match *s, uint32_t id, struct pl_msg *m)
{
	struct mcat *e = cat_get(s, id);

	if (e == NULL) {
		SPATED_CAT_UNKNOWN(cat_unknown_msg);
		return;
	}
	if (!runnable(e)) {
		park(s, e, m, 0);
		return;
	}
	execute(s, e, m, 0);
	if ((e = cat_get(s, id)) != NULL)
		settle(s, e);
}

/* Tell the cluster in which categories this part matched: always when
 * the event came in several parts (it gathers them), else only when
 * there is a pair to count. A hint: dropped when the pool or ring is
 * short. */
static void feedback(struct stage_match *s, const struct pl_event *pe, const uint32_t *cats,
		     uint16_t n)
{
	if (pe->parts <= 1 && n < 2)
		return;
	struct pl_msg *f = pl_msg_get(s->msg_pool, 0);
	if (f == NULL) {
		spated_cnt.feedback_lost++; /* a hint: matching stays exact */
		return;
	}
	f->type = PL_FEEDBACK;
	f->u.fb.origin = pe->cats[0];
	f->u.fb.seq = pe->seq;
	f->u.fb.parts = pe->parts;
	f->u.fb.n = n;
	memcpy(f->u.fb.cats, cats, n * sizeof(*cats));
	ring_out_push(&s->feedback, f);
}

static void on_event(struct stage_match *s, struct pl_msg *m)
{
	struct spate_event ev = pl_event_view(&m->u.ev);
	uint32_t hit[PL_EVENT_CATS];
	uint16_t n_hit = 0;

	spated_cnt.event_parts++;
	s->mv.n = 0;
	for (uint16_t i = 0; i < m->u.ev.n_cat; i++) {
		struct mcat *e = cat_get(s, m->u.ev.cats[i]);
		size_t before = s->mv.n;
		if (e == NULL) {
			SPATED_CAT_UNKNOWN(cat_unknown_event);
		} else if (runnable(e)) {
			match_in(s, e, &ev);
			if (s->mv.n > before)
				hit[n_hit++] = e->id;
		} else {
			park(s, e, m, 0); /* its matches, later, are not fed back */
		}
	}
	notify(s, ev.id);
	feedback(s, &m->u.ev, hit, n_hit);
	if (s->to_link.ring != NULL && m->u.ev.n_cat > 0) {
		uint32_t r = pl_front_of(m->u.ev.cats[0]);
		s->done_seq[r] = m->u.ev.seq;
		s->done_origin[r] = m->u.ev.cats[0];
		s->done_dirty[r] = 1;
	}
	/* timed as matched; what this burst sends is timed from its oldest
	 * event (the parked parts of a category in transit: not timed) */
	uint64_t t = m->u.ev.rx_tsc;
	if (t != 0) {
		spated_lat_record(SPATED_LAT_RX_MATCHED, t, rte_rdtsc());
		if (s->to_tx.stamp == 0 || t < s->to_tx.stamp)
			s->to_tx.stamp = t;
	}
}

static void on_handoff(struct stage_match *s, struct pl_msg *m);

static void free_parked(struct stage_match *s, struct mcat *e)
{
	while (e->head) {
		struct park *p = e->head;
		e->head = p->next;
		s->parked_events -= p->msg->type == PL_EVENT;
		release(s, p->msg);
		p->next = s->free_parks;
		s->free_parks = p;
	}
	e->tail = NULL;
}

struct of_front {
	uint32_t rank, n, cap;
	uint32_t *id;
};

static void cat_of_front(uint64_t key, void *val, void *ctx)
{
	struct of_front *x = ctx;

	(void)val;
	if (pl_front_of((uint32_t)key) == x->rank && x->n < x->cap)
		x->id[x->n++] = (uint32_t)key;
}

/* Front `rank` left: its categories go, with what is parked for them
 * (merges and events only ever involve one front's categories), and the
 * handoffs that waited for this drop may run. */
static void drop_front(struct stage_match *s, uint32_t rank)
{
	struct of_front x = { rank, 0, (uint32_t)spate_idmap_count(s->cats), NULL };

	x.id = malloc((x.cap ? x.cap : 1) * sizeof(*x.id));
	if (x.id == NULL) {
		spated_cnt.msg_no_memory++;
		return;
	}
	spate_idmap_foreach(s->cats, cat_of_front, &x);
	for (uint32_t i = 0; i < x.n; i++) {
		struct mcat *e = spate_idmap_del(s->cats, x.id[i]);
		free_parked(s, e);
		cat_index_destroy(e->idx);
		free(e);
	}
	spated_cnt.front_cats_dropped += x.n;
	free(x.id);
	s->drop_gen[rank]++;
	/* handoffs that came from a sender one drop ahead */
	struct park **pp = &s->early;
	while (*pp != NULL) {
		struct park *p = *pp;
		struct pl_msg *m = p->msg;
		if (m->other > s->drop_gen[pl_front_of(m->cat)]) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		p->next = s->free_parks;
		s->free_parks = p;
		on_handoff(s, m);
	}
}

static void on_msg(struct stage_match *s, struct pl_msg *m)
{
	struct mcat *e;

	if (m->type == PL_HANDOFF) {
		on_handoff(s, m); /* from another host, through the link stage */
		return;
	}
	if (m->type == PL_DROP_FRONT) {
		if (m->other < PL_FRONTS)
			drop_front(s, m->other);
		pl_msg_put(s->msg_pool, m);
		run_ready(s);
		return;
	}
	m->refs = 1;
	switch (m->type) {
	case PL_EVENT:
		on_event(s, m);
		break;
	case PL_SUB_ADD:
		/* the first subscription of a new category makes it here */
		if (cat_get(s, m->cat) == NULL) {
			struct cat_index *idx = cat_index_create(s->cat_engine, s->cat_cell);
			if (idx == NULL || cat_add(s, m->cat, idx) == NULL) {
				cat_index_destroy(idx);
				reply(s, &m->u.sub.reply, SPATE_E_NO_MEMORY);
				break;
			}
		}
		dispatch(s, m->cat, m);
		break;
	case PL_EXPECT:
		e = cat_get(s, m->cat);
		if (e == NULL) {
			e = cat_add(s, m->cat, NULL);
			if (e == NULL)
				spated_cnt.msg_no_memory++;
			else
				e->expecting = 1;
		} else {
			dispatch(s, m->cat, m);
		}
		break;
	default:
		dispatch(s, m->cat, m);
	}
	release(s, m);
	run_ready(s);
}

static void add_late(void *ctx, const struct spate_sub *q)
{
	if (cat_index_add(ctx, q) != 0)
		spated_cnt.msg_no_memory++;
}

static void on_handoff(struct stage_match *s, struct pl_msg *m)
{
	uint32_t gen = s->drop_gen[pl_front_of(m->cat)];

	if (m->other < gen) {
		/* of a front incarnation dropped since: its ids may be reused */
		spated_cnt.handoffs_stale++;
		cat_index_destroy(m->u.idx);
		pl_msg_put(s->msg_pool, m);
		return;
	}
	if (m->other > gen) {
		/* the sender ran a drop this lcore has still to run */
		struct park *p = s->free_parks;
		if (p != NULL)
			s->free_parks = p->next;
		else if ((p = malloc(sizeof(*p))) == NULL) {
			spated_cnt.msg_no_memory++;
			cat_index_destroy(m->u.idx);
			pl_msg_put(s->msg_pool, m);
			return;
		}
		p->msg = m;
		p->next = s->early;
		s->early = p;
		return;
	}
	struct mcat *e = cat_get(s, m->cat);

	if (e == NULL)
		e = cat_add(s, m->cat, NULL); /* came before its EXPECT */
	if (e != NULL && e->idx != NULL) {
		/* a handoff from a host that died: the link gave an empty index
		 * in its place, and the real one came after all (its last frames
		 * were on their way); every subscription is taken (an id already
		 * here is a retransmission), so nothing is lost either way */
		spated_cnt.handoffs_late++;
		cat_index_foreach(m->u.idx, add_late, e->idx);
		cat_index_destroy(m->u.idx);
	} else if (e == NULL) {
		SPATED_CAT_UNKNOWN(cat_unknown_handoff);
		cat_index_destroy(m->u.idx);
	} else {
		e->idx = m->u.idx;
		e->expecting = 0;
		spated_cnt.rehomes_in++;
		drain(s, m->cat);
	}
	pl_msg_put(s->msg_pool, m);
	run_ready(s);
}

struct stage_match *stage_match_create(const struct stage_match_conf *c)
{
	struct stage_match *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->worker = c->worker;
	s->n_workers = c->n_workers;
	s->in = c->in;
	s->msg_pool = c->msg_pool;
	s->cat_engine = c->cat_engine;
	s->cat_cell = c->cat_cell;
	s->cpu_accounting = c->cpu_accounting;
	s->cats = spate_idmap_create();
	s->peer_in = calloc(c->n_workers, sizeof(*s->peer_in));
	s->peer_out = calloc(c->n_workers, sizeof(*s->peer_out));
	if (s->cats == NULL || s->peer_in == NULL || s->peer_out == NULL ||
	    tx_out_init(&s->to_tx, c->to_tx, c->pkt_pool) != 0 ||
	    ring_out_init(&s->feedback, c->feedback, 0, drop_feedback, s) != 0 ||
	    (c->to_link != NULL && ring_out_init(&s->to_link, c->to_link, 1, drop_msg, s) != 0))
		goto fail;
	s->nt = notifier_create(c->max_payload, c->max_messages, tx_out_payload, &s->to_tx);
	if (s->nt == NULL)
		goto fail;
	for (uint32_t w = 0; w < c->n_workers; w++) {
		s->peer_in[w] = c->peer_in[w];
		if (c->peer_out[w] != NULL &&
		    ring_out_init(&s->peer_out[w], c->peer_out[w], 1, drop_msg, s) != 0)
			goto fail;
	}
	return s;
fail:
	stage_match_destroy(s);
	return NULL;
}

static void on_msg_obj(void *ctx, void *obj)
{
	on_msg(ctx, obj);
}

/* Match hosts, once a burst: each front whose events moved on hears how
 * far they are matched (nothing parked: a parked part is not done). */
static void tell_done(struct stage_match *s)
{
	if (s->to_link.ring == NULL || s->parked_events != 0)
		return;
	for (uint32_t r = 0; r < PL_FRONTS; r++) {
		if (!s->done_dirty[r])
			continue;
		struct pl_msg *d = pl_msg_get(s->msg_pool, 0);
		if (d == NULL)
			return; /* told next time */
		d->type = PL_DONE;
		d->u.fb.origin = s->done_origin[r];
		d->u.fb.seq = s->done_seq[r];
		d->u.fb.parts = 1;
		d->u.fb.n = 0;
		ring_out_push(&s->feedback, d);
		s->done_dirty[r] = 0;
	}
}

/* This thread's CPU time, ns: the time it ran, not the wall time that
 * passed while a shared core ran others too (TSC cycles count both). */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

unsigned int stage_match_poll(struct stage_match *s)
{
	void *objs[PL_BURST];
	unsigned int total = 0, nb;
	/* CPU time of polls with messages waiting (match_cpu_ns): a system
	 * call a poll with work, none for idle polls. On fewer cores than
	 * lcores it is the matching work each lcore did, whoever shared its
	 * core: Fig. 7's makespan (tools/pipeline-fig7.sh). Off unless
	 * spated.cpu_accounting: two calls of a few hundred ns a poll would
	 * cost more than matching an event at low rates. */
	uint64_t cpu0 = !s->cpu_accounting || rte_ring_empty(s->in) ? 0 : thread_cpu_ns();

	debug_stall_point(s->worker); /* test hook, spated.debug_hooks */
	/* handoffs first: they release what is parked */
	for (uint32_t w = 0; w < s->n_workers; w++) {
		if (s->peer_in[w] == NULL)
			continue;
		nb = rte_ring_sc_dequeue_burst(s->peer_in[w], objs, PL_BURST, NULL);
		for (unsigned int i = 0; i < nb; i++)
			on_handoff(s, objs[i]);
		total += nb;
	}
	/* Everything the cluster queued: it turns one burst of datagrams
	 * into up to max_messages times as many messages, so a burst for a
	 * burst on a shared lcore would leave its backlog growing
	 * (backpressure) while the lcore idles. */
	total += ring_drain(s->in, on_msg_obj, s);
	tell_done(s);
	for (uint32_t w = 0; w < s->n_workers; w++)
		if (s->peer_out[w].ring != NULL)
			ring_out_flush(&s->peer_out[w]);
	ring_out_flush(&s->feedback);
	if (s->to_link.ring != NULL)
		ring_out_flush(&s->to_link);
	/* end of the burst: one datagram per receiver */
	notifier_flush(s->nt);
	tx_out_flush(&s->to_tx);
	s->to_tx.stamp = 0;
	if (cpu0 != 0)
		spated_cnt.match_cpu_ns += thread_cpu_ns() - cpu0;
	return total;
}

static void free_cat(uint64_t key, void *val, void *ctx)
{
	struct stage_match *s = ctx;
	struct mcat *e = val;

	(void)key;
	while (e->head) {
		struct park *p = e->head;
		e->head = p->next;
		release(s, p->msg);
		free(p);
	}
	cat_index_destroy(e->idx);
	free(e);
}

void stage_match_destroy(struct stage_match *s)
{
	if (s == NULL)
		return;
	spate_idmap_destroy_each(s->cats, free_cat, s);
	while (s->early) {
		struct park *p = s->early;
		s->early = p->next;
		drop_msg(s, p->msg);
		free(p);
	}
	while (s->free_parks) {
		struct park *p = s->free_parks;
		s->free_parks = p->next;
		free(p);
	}
	/* messages still in our input rings go back to the pool */
	void *m;
	while (s->in && rte_ring_sc_dequeue(s->in, &m) == 0)
		drop_msg(s, m);
	for (uint32_t w = 0; s->peer_in && w < s->n_workers; w++)
		while (s->peer_in[w] && rte_ring_sc_dequeue(s->peer_in[w], &m) == 0)
			drop_msg(s, m);
	for (uint32_t w = 0; s->peer_out && w < s->n_workers; w++)
		if (s->peer_out[w].ring != NULL)
			ring_out_fini(&s->peer_out[w]);
	notifier_destroy(s->nt);
	tx_out_fini(&s->to_tx);
	ring_out_fini(&s->feedback);
	ring_out_fini(&s->to_link);
	spate_matchvec_free(&s->mv);
	free(s->ready);
	free(s->peer_in);
	free(s->peer_out);
	free(s);
}
