/* link_repl.c - a front's standby duty and its takeover of a dead front
 * (docs/multihost.md, "A front's failover").
 *
 * Every front copies its subscription operations to the other fronts
 * (REPL_ADD, REPL_DEL; a whole snapshot between two REPL_SYNCs when one
 * comes up) and its cluster stage holds every answer until the channels
 * acknowledged them (stage_link_repl_done): a subscription ACKed to a
 * client is on another front already. Each front keeps what another
 * sends it in a copy (a spate_matcher over an engine that keeps nothing
 * of its own).
 *
 * A front is a service: an address clients use and the subscriptions
 * made through it. ZooKeeper's service map says which front serves each
 * (zk_member.c). When a front dies, the host that finds it silent has
 * ZooKeeper fence it, and a front holding a complete copy of it claims
 * its services there (compare-and-set: one winner). The link sees the
 * map change: it feeds the copy into its own clustering (journaled and
 * copied on to the other fronts in turn: stage_cluster_adopt), answers
 * for the dead front's service addresses and announces them with
 * gratuitous ARP, so clients keep sending to the same address.
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>

#include "infra/counters.h"
#include "link/link_int.h"
#include "net/net.h"
#include "proto/spate_err.h"
#include "link/svc_addr.h"

#define GARP_TIMES 3          /* gratuitous ARPs per address taken */
#define GARP_GAP_NS 200000000 /* between them */

/* What a fellow front sent: its subscriptions, for incarnation epoch. */
struct repl_copy {
	struct spate_matcher *m;
	uint32_t epoch;
	int complete; /* a whole snapshot arrived (and what followed it) */
	uint32_t got; /* subscriptions the last snapshot carried */
};

/* The copy's engine keeps nothing: the matcher holds the subscriptions. */
static void copy_destroy(struct spate_engine *e)
{
	(void)e;
}

static int copy_sub_add(struct spate_engine *e, const struct spate_sub *q)
{
	(void)e, (void)q;
	return 0;
}

static void copy_sub_del(struct spate_engine *e, const struct spate_sub *q)
{
	(void)e, (void)q;
}

static int copy_match(struct spate_engine *e, const struct spate_event *ev,
		      struct spate_matchvec *mv)
{
	(void)e, (void)ev, (void)mv;
	return 0;
}

static const struct spate_engine_ops copy_ops = {
	.name = "copy",
	.help = "a fellow front's subscriptions, kept for its takeover",
	.destroy = copy_destroy,
	.sub_add = copy_sub_add,
	.sub_del = copy_sub_del,
	.match = copy_match,
};

static void copy_free(struct repl_copy *c)
{
	if (c == NULL)
		return;
	spate_matcher_destroy(c->m);
	free(c);
}

/* A fresh, empty copy of p's incarnation. */
static struct repl_copy *copy_new(struct stage_link *s, struct link_peer *p)
{
	struct repl_copy *c = calloc(1, sizeof(*c));

	if (c != NULL)
		c->m = spate_matcher_create_engine(&s->copy_conf, &copy_ops, &s->eng);
	if (c == NULL || c->m == NULL) {
		free(c);
		spated_cnt.msg_no_memory++;
		return NULL;
	}
	c->epoch = p->epoch;
	return c;
}

static int is_front(const struct link_peer *p)
{
	return p->lcores == 0;
}

/* Fronts that get copies now: fellow fronts up. */
static int copies_to(const struct link_peer *p)
{
	return is_front(p) && !p->down && !p->pending;
}

/* Messages in `out` to every fellow front up (never dropped: a copy with
 * a hole is no copy). */
static void repl_send(struct stage_link *s, const struct spate_peer_writer *out)
{
	for (uint32_t i = 0; i < s->n_peers; i++) {
		struct link_peer *p = &s->peers[i];
		if (!copies_to(p))
			continue;
		if (link_append_force(s, p, out) != 0)
			spated_cnt.msg_no_memory++;
		else
			p->repl_dirty = 1;
	}
}

void stage_link_repl_add(void *link, const struct spate_raw_sub *rs, uint32_t owner)
{
	struct stage_link *s = link;
	struct spate_peer_writer out;

	spate_peer_writer_init(&out, s->scratch, s->body_cap);
	if (spate_peer_put_repl_add(&out, owner, rs) != 0) {
		spated_cnt.peer_bad++; /* cannot happen: it came in one datagram */
		return;
	}
	repl_send(s, &out);
	spated_cnt.repl_out++;
}

void stage_link_repl_del(void *link, uint64_t id, uint32_t owner)
{
	struct stage_link *s = link;
	struct spate_peer_writer out;

	spate_peer_writer_init(&out, s->scratch, s->body_cap);
	spate_peer_put_repl_del(&out, owner, id);
	repl_send(s, &out);
	spated_cnt.repl_out++;
}

int stage_link_repl_done(void *link)
{
	struct stage_link *s = link;

	for (uint32_t i = 0; i < s->n_peers; i++) {
		struct link_peer *p = &s->peers[i];
		if (!copies_to(p))
			continue;
		if (p->repl_dirty ||
		    (p->repl_seq != 0 && !spate_peer_chan_acked(p->ch, p->repl_seq)))
			return 0;
	}
	return 1;
}

void link_repl_flushed(struct link_peer *p)
{
	if (p->repl_dirty) {
		p->repl_seq = spate_peer_chan_last_seq(p->ch);
		p->repl_dirty = 0;
	}
}

struct snap {
	struct stage_link *s;
	struct link_peer *p;
	uint32_t n;
	int err;
};

static void snap_one(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	struct snap *x = ctx;
	struct spate_peer_writer out;

	spate_peer_writer_init(&out, x->s->scratch, x->s->body_cap);
	if (spate_peer_put_repl_add(&out, owner, rs) != 0 ||
	    link_append_force(x->s, x->p, &out) != 0) {
		x->err = 1;
		return;
	}
	x->n++;
}

static void put_sync(struct stage_link *s, struct link_peer *p, uint32_t phase, uint32_t n)
{
	struct spate_peer_writer out;

	spate_peer_writer_init(&out, s->scratch, s->body_cap);
	spate_peer_put_repl_sync(&out, phase, n);
	if (link_append_force(s, p, &out) != 0)
		spated_cnt.msg_no_memory++;
}

/* A fellow front is up (a new incarnation): it gets everything this
 * front serves, then every change after it, in that order on the
 * channel. */
void link_repl_peer_up(struct stage_link *s, struct link_peer *p)
{
	struct snap x = { s, p, 0, 0 };

	if (s->fm == NULL)
		return;
	put_sync(s, p, 0, 0);
	if (spate_matcher_foreach_sub(s->fm, snap_one, &x) != 0 || x.err)
		spated_cnt.msg_no_memory++; /* the copy there stays incomplete: not taken over */
	else
		put_sync(s, p, 1, x.n);
	p->repl_dirty = 1;
	spated_cnt.repl_snapshots++;
	fprintf(stderr, "spated: link: front %u (epoch %u) gets a copy of %u subscriptions\n",
		p->host, p->epoch, x.n);
}

/* A copy's subscription changed: added again with other content or
 * another owner, it replaces the one there. */
static void copy_add(struct repl_copy *c, const struct spate_peer_msg *pm)
{
	int rc = spate_matcher_sub_add(c->m, &pm->inner.u.sub, pm->other);

	if (rc == -SPATE_E_DUPLICATE_ID) {
		const struct spate_sub *q = spate_matcher_sub_find(c->m, pm->id);
		if (q != NULL)
			spate_matcher_sub_del(c->m, pm->id, q->owner);
		rc = spate_matcher_sub_add(c->m, &pm->inner.u.sub, pm->other);
	}
	if (rc != 0)
		spated_cnt.msg_no_memory++;
}

void link_repl_deliver(struct stage_link *s, struct link_peer *p, const struct spate_peer_msg *pm)
{
	struct repl_copy *c = p->copy;

	spated_cnt.repl_in++;
	if (pm->type == SPATE_PEER_REPL_SYNC && pm->cat == 0) {
		/* a snapshot begins: what came before is replaced */
		copy_free(c);
		c = p->copy = copy_new(s, p);
		if (s->view != NULL)
			host_view_set_copy(s->view, p->host, 0);
		return;
	}
	if (c == NULL || c->epoch != p->epoch) {
		spated_cnt.repl_bad++; /* a change before any snapshot: cannot happen */
		return;
	}
	switch (pm->type) {
	case SPATE_PEER_REPL_ADD:
		copy_add(c, pm);
		return;
	case SPATE_PEER_REPL_DEL:
		spate_matcher_sub_del(c->m, pm->id, pm->other);
		return;
	default: /* SYNC end */
		c->got = pm->other;
		c->complete = 1;
		if (spate_matcher_sub_count(c->m) != pm->other) {
			spated_cnt.repl_bad++;
			fprintf(stderr,
				"spated: link: front %u's snapshot holds %llu subscriptions,"
				" %u sent\n",
				p->host, (unsigned long long)spate_matcher_sub_count(c->m),
				pm->other);
		}
		if (s->view != NULL)
			host_view_set_copy(s->view, p->host, p->epoch);
	}
}

struct adopt_ctx {
	struct stage_link *s;
	uint32_t n, refused;
};

static void adopt_one(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	struct adopt_ctx *x = ctx;

	if (x->s->adopt(x->s->workers_ctx, owner, rs) == 0)
		x->n++;
	else
		x->refused++;
}

/* Front `host`'s services are ours now: its subscriptions from our copy
 * into our clustering. */
static void adopt(struct stage_link *s, uint32_t host)
{
	struct link_peer *p = link_peer_of(s, host);
	uint64_t t0 = rte_get_timer_cycles();

	if (p != NULL && p->copy == NULL && p->taken_epoch != 0 && p->taken_epoch == p->epoch)
		return; /* another of its services: taken with the first */
	if (p == NULL || p->copy == NULL || !p->copy->complete) {
		fprintf(stderr,
			"spated: link: host %u's services are ours but no complete copy of it"
			" is here: its subscriptions are missing\n",
			host);
		spated_cnt.repl_bad++;
		return;
	}
	struct adopt_ctx x = { s, 0, 0 };
	if (s->adopt == NULL || spate_matcher_foreach_sub(p->copy->m, adopt_one, &x) != 0)
		spated_cnt.msg_no_memory++;
	p->taken_epoch = p->copy->epoch;
	copy_free(p->copy);
	p->copy = NULL;
	if (s->view != NULL)
		host_view_set_copy(s->view, host, 0);
	spated_cnt.adopted_subs += x.n;
	spated_cnt.adopt_refused += x.refused;
	spated_cnt.takeovers++;
	fprintf(stderr,
		"spated: link: took over front %u: %u subscriptions (%u refused) in %llu us\n",
		host, x.n, x.refused,
		(unsigned long long)((rte_get_timer_cycles() - t0) * 1000000 / rte_get_timer_hz()));
}

/* The address clients use for service `id` (a front's host id). */
static uint32_t svc_addr_of(const struct stage_link *s, uint32_t id)
{
	if (id == s->host_id)
		return s->hosts->service;
	for (uint32_t i = 0; i < s->n_peers; i++)
		if (s->peers[i].host == id)
			return s->hosts->peer[i].service;
	return 0;
}

static void garp(struct stage_link *s)
{
	for (uint32_t k = 0; k < s->n_served; k++)
		for (uint16_t i = 0; i < s->n_ports; i++) {
			struct rte_mbuf *m = net_arp_frame(s->pkt_pool, s->ports[i], &s->macs[i],
							   s->served[k], s->served[k]);
			if (m == NULL)
				continue;
			pkt_meta(m)->kind = PKT_FRAME;
			tx_out_packet(&s->to_tx, m);
			spated_cnt.garp_sent++;
		}
}

static void serve(struct stage_link *s, uint32_t id, int on)
{
	uint32_t a = svc_addr_of(s, id);

	if (a == 0)
		return; /* no address of its own: clients reach it some other way */
	svc_addr_set(a, on);
	for (uint32_t k = 0; k < s->n_served; k++)
		if (s->served[k] == a) {
			if (!on)
				s->served[k] = s->served[--s->n_served];
			return;
		}
	if (on && s->n_served < SPATED_PEERS_MAX + 1) {
		s->served[s->n_served++] = a;
		s->garp_left = GARP_TIMES;
		s->garp_next = 0;
	}
	fprintf(stderr, "spated: link: service %u: %s %u.%u.%u.%u\n", id,
		on ? "serving" : "no more", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}

unsigned int link_repl_poll(struct stage_link *s)
{
	uint32_t id[SPATED_PEERS_MAX + 1], owner[SPATED_PEERS_MAX + 1];
	int changed;
	unsigned int work = 0;

	if (s->view == NULL)
		return 0;
	uint32_t n = host_view_take_svc(s->view, &s->svc_seen, id, owner, &changed);
	for (uint32_t i = 0; changed && i < n; i++) {
		uint32_t k = 0;
		while (k < s->n_svc && s->svc_id[k] != id[i])
			k++;
		uint32_t prev = k < s->n_svc ? s->svc_owner[k] : 0;
		if (k == s->n_svc && s->n_svc < SPATED_PEERS_MAX + 1)
			s->svc_id[s->n_svc++] = id[i];
		if (k < SPATED_PEERS_MAX + 1)
			s->svc_owner[k] = owner[i];
		if (owner[i] == s->host_id && prev != s->host_id) {
			/* taken from a front during this run: its copy comes in
			 * (at start, what we serve is in our journal) */
			if (prev != 0 && s->svc_read)
				adopt(s, prev);
			serve(s, id[i], 1);
			work++;
		} else if (owner[i] != s->host_id && prev == s->host_id) {
			serve(s, id[i], 0);
		}
	}
	if (changed)
		s->svc_read = 1;
	if (s->garp_left > 0 && s->now >= s->garp_next) {
		garp(s);
		s->garp_left--;
		s->garp_next = s->now + GARP_GAP_NS;
	}
	return work;
}

int link_repl_copy_state(const struct link_peer *p, uint64_t *subs)
{
	*subs = p->copy != NULL ? spate_matcher_sub_count(p->copy->m) : 0;
	return p->copy != NULL && p->copy->complete && p->copy->epoch == p->epoch;
}

void link_repl_fini(struct stage_link *s)
{
	for (uint32_t i = 0; s->peers != NULL && i < s->n_peers; i++) {
		copy_free(s->peers[i].copy);
		s->peers[i].copy = NULL;
	}
	for (uint32_t k = 0; k < s->n_served; k++)
		svc_addr_set(s->served[k], 0);
}
