/* stage_link.c - the link stage's channels (stage_link.h): frames from
 * RX are checked by the codec and handed to their peer's channel, which
 * delivers each body once and in order to the role's translation; the
 * role's messages are batched per peer into frame bodies; and every
 * channel's due frames (new, retransmitted, pure acks) go to TX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "infra/counters.h"
#include "link/link_int.h"
#include "proto/spate_be.h"
#include "proto/spate_err.h"

#define PEER_WINDOW 32

static uint64_t now_ns(const struct stage_link *s)
{
	unsigned __int128 t = (unsigned __int128)rte_get_tsc_cycles() * s->ns_per_tsc_q32;

	return (uint64_t)(t >> 32);
}

/* Fault injection (spated.peer_drop_ppm, tests only): drop this frame? */
static int test_drop(struct stage_link *s)
{
	if (s->drop_ppm == 0)
		return 0;
	s->rng ^= s->rng << 13; /* xorshift64 */
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	if (s->rng % 1000000 >= s->drop_ppm)
		return 0;
	spated_cnt.peer_dropped_test++;
	return 1;
}

struct link_peer *link_peer_of(struct stage_link *s, uint32_t host)
{
	for (uint32_t i = 0; i < s->n_peers; i++)
		if (s->peers[i].host == host)
			return &s->peers[i];
	return NULL;
}

/* Hand p's waiting bodies, then its current one, to its channel: 0 (or
 * nothing to hand), -1 window full. */
static int flush_peer(struct stage_link *s, struct link_peer *p)
{
	if (p->pending)
		return -1; /* held until it speaks (or is found dead) */
	if (p->down) {
		/* nobody to take it: a dead host's share is rebuilt elsewhere */
		spated_cnt.peer_down_dropped += p->w.count;
		spate_peer_writer_init(&p->w, p->body, s->body_cap);
		p->blocked = 0;
		return 0;
	}
	while (p->ov_head != NULL) {
		struct pend_body *b = p->ov_head;
		if (spate_peer_chan_queue(p->ch, b->bytes, b->len, b->count) != 0) {
			p->blocked = 1;
			return -1;
		}
		spated_cnt.peer_msgs_out += b->count;
		p->ov_head = b->next;
		if (p->ov_head == NULL)
			p->ov_tail = NULL;
		free(b);
	}
	if (p->w.count == 0) {
		p->blocked = 0;
		link_repl_flushed(p);
		return 0;
	}
	int rc = spate_peer_chan_queue(p->ch, p->w.buf, p->w.len, p->w.count);
	if (rc == -SPATE_E_NO_MEMORY) {
		if (!p->blocked)
			spated_cnt.peer_window_full++;
		p->blocked = 1;
		return -1;
	}
	/* -BAD_LENGTH cannot happen: bodies are built within body_cap */
	spated_cnt.peer_msgs_out += p->w.count;
	p->blocked = 0;
	spate_peer_writer_init(&p->w, p->body, s->body_cap);
	link_repl_flushed(p);
	return 0;
}

int link_append(struct stage_link *s, struct link_peer *p, const struct spate_peer_writer *w)
{
	if (w->count == 0)
		return 0;
	if (p->w.len + w->len > p->w.cap && flush_peer(s, p) != 0)
		return -1;
	memcpy(p->w.buf + p->w.len, w->buf, w->len);
	p->w.len += w->len;
	p->w.count = (uint16_t)(p->w.count + w->count);
	return 0;
}

int link_append_force(struct stage_link *s, struct link_peer *p, const struct spate_peer_writer *w)
{
	if (link_append(s, p, w) == 0)
		return 0;
	struct pend_body *b = malloc(sizeof(*b) + p->w.len);
	if (b == NULL)
		return -1;
	b->next = NULL;
	b->len = p->w.len;
	b->count = p->w.count;
	memcpy(b->bytes, p->w.buf, p->w.len);
	if (p->ov_tail)
		p->ov_tail->next = b;
	else
		p->ov_head = b;
	p->ov_tail = b;
	spate_peer_writer_init(&p->w, p->body, s->body_cap);
	return link_append(s, p, w) == 0 ? 0 : -1;
}

struct deliver_ctx {
	struct stage_link *s;
	struct link_peer *p;
};

static void deliver(void *ctx, const uint8_t *body, size_t len, uint16_t count)
{
	struct deliver_ctx *d = ctx;

	spated_cnt.peer_msgs_in += count;
	if (d->s->role == SPATED_ROLE_FRONT)
		link_front_deliver(d->s, d->p, body, len, count);
	else
		link_match_deliver(d->s, d->p, body, len, count);
}

/* Room for every message a data frame from p may carry? */
static int has_room(struct stage_link *s, struct link_peer *p)
{
	if (s->role == SPATED_ROLE_FRONT)
		/* only relayed events need the cluster stage's room */
		return p->lcores != 0 || s->can_take == NULL || s->can_take(s->workers_ctx);
	for (uint32_t w = 0; w < s->n_workers; w++)
		if (ring_out_backlog(&s->to_stage[w]) > s->backlog_max)
			return 0;
	return rte_mempool_avail_count(s->msg_pool) > s->pool_margin;
}

static void peer_down(struct stage_link *s, struct link_peer *p, int fence);
static void peer_up(struct stage_link *s, struct link_peer *p);

/* The first few refusals of a kind are told: a codec refusal is a bug
 * or a foreign sender, an authentication failure a misconfigured key or
 * an attack. */
static void tell(uint64_t n, const char *what, size_t len, const uint8_t *buf,
		 struct spate_dest src)
{
	if (n > 5)
		return;
	fprintf(stderr,
		"spated: link: inter-host frame of %zu bytes from %u.%u.%u.%u:%u (host %u) "
		"refused: %s%s\n",
		len, src.ipv4 >> 24, (src.ipv4 >> 16) & 0xff, (src.ipv4 >> 8) & 0xff,
		src.ipv4 & 0xff, src.port, len >= 12 ? spate_be32(buf + 8) : 0, what,
		n == 5 ? " (further ones only counted)" : "");
}

/* A frame with no message naming `dst_epoch` as p's incarnation (0: a
 * hello, "who are you now?"), signed: the static peers' handshake. */
static void send_pure(struct stage_link *s, struct link_peer *p, uint32_t dst_epoch)
{
	uint8_t frame[SPATE_PEER_OVERHEAD];
	struct spate_peer_hdr h = { .length = sizeof(frame),
				    .src_host = s->host_id,
				    .src_epoch = s->epoch,
				    .dst_host = p->host,
				    .dst_epoch = dst_epoch };
	struct spate_dest to = { p->ipv4, SPATED_PEER_PORT };

	spate_peer_hdr_encode(frame, &h);
	spate_peer_auth_sign(s->auth, frame, sizeof(frame));
	if (!test_drop(s))
		tx_out_peer(&s->to_tx, to, frame, sizeof(frame));
	spated_cnt.peer_frames_out++;
}

/* Static peers (no ZooKeeper to name incarnations): each incarnation's
 * epoch is its boot time (main.c), and a peer's epoch is learned only
 * from a frame naming ours - made after the peer heard this incarnation,
 * so never one recorded before this host started. A peer that does not
 * know ours says hello (dst_epoch 0) and is answered with a frame naming
 * its epoch; a newer epoch naming ours is the peer restarted; an older
 * one, or one naming another epoch of ours, is a replay (peer_auth_epoch).
 * 0: the frame goes on to the channel. */
static int static_epochs(struct stage_link *s, struct link_peer *p, const struct spate_peer_hdr *h,
			 const uint8_t *buf, size_t len, struct spate_dest src)
{
	if (h->dst_epoch == 0) {
		/* a hello (a pure ack: the codec allows no more): answered, a few
		 * a heartbeat at most (replayed hellos cost nothing more) */
		if (s->now - p->hello_window >= s->hb_ns) {
			p->hello_window = s->now;
			p->hello_replies = 0;
		}
		if (p->hello_replies++ < 4)
			send_pure(s, p, h->src_epoch);
		return -1;
	}
	if (h->dst_epoch != s->epoch || (p->epoch != 0 && h->src_epoch < p->epoch)) {
		tell(++spated_cnt.peer_auth_epoch,
		     h->dst_epoch != s->epoch ? "made for another incarnation of this host "
						"(replayed from before it started?)"
					      : "from an older incarnation of its host (replayed? "
						"or its clock went back)",
		     len, buf, src);
		return -1;
	}
	if (h->src_epoch == p->epoch)
		return 0;
	if (p->epoch != 0) {
		fprintf(stderr, "spated: link: host %u restarted (epoch %u, was %u)\n", p->host,
			h->src_epoch, p->epoch);
		peer_down(s, p, 0); /* comes up again below, as a new incarnation */
	}
	spate_peer_chan_reset(p->ch, h->src_epoch);
	p->epoch = h->src_epoch;
	p->pending = 0;
	spated_cnt.peer_handshakes++;
	fprintf(stderr, "spated: link: host %u (epoch %u) bound\n", p->host, p->epoch);
	return 0;
}

/* Who may change this host's state: in this order, each refusal counted
 * apart and nothing remembered of a refused frame.
 *  1. a well-formed header (peer_bad),
 *  2. from a configured peer, to this host (peer_unknown_host),
 *  3. from that peer's configured address and port (peer_auth_addr),
 *  4. signed by a cluster key (peer_auth_fail) - before its messages are
 *     even parsed, and after the cheap checks so spoofed floods from
 *     elsewhere cost no MAC,
 *  5. every message well-formed (peer_bad),
 *  6. from a member (ZooKeeper) naming its current incarnation and ours
 *     (peer_stale, peer_auth_epoch),
 *  7. each sequence number once (peer_dup), in the channel. */
static void frame_in(struct stage_link *s, struct rte_mbuf *m)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	size_t len = rte_pktmbuf_data_len(m);
	struct spate_dest src = pkt_meta(m)->peer;
	struct spate_peer_hdr h;
	uint32_t slot;

	spated_cnt.peer_frames_in++;
	if (test_drop(s))
		return;
	int rc = spate_peer_decode_hdr(buf, len, &h);
	if (rc != 0) {
		tell(++spated_cnt.peer_bad, spate_err_name(rc), len, buf, src);
		return;
	}
	struct link_peer *p = link_peer_of(s, h.src_host);
	if (p == NULL || h.dst_host != s->host_id) {
		spated_cnt.peer_unknown_host++;
		return;
	}
	if (src.ipv4 != p->ipv4 || src.port != SPATED_PEER_PORT) {
		tell(++spated_cnt.peer_auth_addr, "not from its host's configured address", len,
		     buf, src);
		return;
	}
	if (spate_peer_auth_verify(s->auth, buf, len, &slot) != 0) {
		tell(++spated_cnt.peer_auth_fail,
		     "wrong tag or unknown key (forged, or another "
		     "cluster key)",
		     len, buf, src);
		return;
	}
	rc = spate_peer_decode(buf, len, s->lim, &h);
	if (rc != 0) {
		tell(++spated_cnt.peer_bad, spate_err_name(rc), len, buf, src);
		return;
	}
	if (s->view == NULL) {
		if (static_epochs(s, p, &h, buf, len, src) != 0)
			return;
	} else if (p->epoch == 0 || p->epoch == p->dead_epoch || h.src_epoch != p->epoch ||
		   h.dst_epoch != s->epoch) {
		/* an incarnation ZooKeeper has not (or no more) named; an old
		 * incarnation's frame replayed, or one that does not know ours
		 * yet (the channel is reset when ZooKeeper confirms a restart) */
		if (p->epoch == 0 || p->epoch == p->dead_epoch)
			spated_cnt.peer_stale++;
		else
			spated_cnt.peer_auth_epoch++;
		/* never a change of state: a newer incarnation is believed when
		 * ZooKeeper lists it, the old one is dead when it falls silent */
		return;
	}
	p->heard = s->now;
	if (p->down)
		peer_up(s, p); /* bound to a live epoch (dead ones are refused above) */
	if (h.count > 0 && !has_room(s, p)) {
		/* not acknowledged: the sender keeps it and sends it again, its
		 * window fills and the backpressure reaches its RX, as on one
		 * box; nothing that was acknowledged is ever dropped */
		spated_cnt.peer_backpressure++;
		return;
	}
	spated_cnt.peer_auth_old_key += slot != 0;
	const struct spate_peer_chan_stats *cs = spate_peer_chan_stats(p->ch);
	uint64_t dup = cs->duplicates, bad_acks = cs->bad_acks;
	struct deliver_ctx d = { s, p };
	spate_peer_chan_clock(p->ch, now_ns(s)); /* its round-trip samples */
	spate_peer_chan_receive(p->ch, buf, &h, deliver, &d);
	spated_cnt.peer_dup += cs->duplicates - dup;
	spated_cnt.peer_bad_ack += cs->bad_acks - bad_acks;
}

/* Every channel's due frames; a pure ack to each peer that got nothing
 * for a heartbeat period (down peers bound to a live epoch too: that is
 * how they hear us and come up). */
static unsigned int frames_out(struct stage_link *s)
{
	uint8_t frame[SPATE_PEER_FRAME_MAX];
	unsigned int n = 0;

	for (uint32_t i = 0; i < s->n_peers; i++) {
		struct link_peer *p = &s->peers[i];
		if (s->view == NULL && p->epoch == 0 && s->now - p->hello_at >= s->hb_ns) {
			send_pure(s, p, 0); /* static peers: who are you now? */
			p->hello_at = s->now;
			n++;
		}
		if (p->epoch == 0 || p->epoch == p->dead_epoch)
			continue;
		if (s->now - p->sent >= s->hb_ns)
			spate_peer_chan_owe_ack(p->ch);
		uint64_t before = spate_peer_chan_stats(p->ch)->retransmits;
		size_t len;
		while ((len = spate_peer_chan_poll(p->ch, s->now, frame, sizeof(frame))) > 0) {
			struct spate_dest to = { p->ipv4, SPATED_PEER_PORT };
			spate_peer_auth_sign(s->auth, frame, len);
			if (!test_drop(s))
				tx_out_peer(&s->to_tx, to, frame, len);
			spated_cnt.peer_frames_out++;
			p->sent = s->now;
			n++;
		}
		spated_cnt.peer_retransmits += spate_peer_chan_stats(p->ch)->retransmits - before;
	}
	return n;
}

static void free_pending(struct link_peer *p)
{
	while (p->ov_head != NULL) {
		struct pend_body *b = p->ov_head;
		p->ov_head = b->next;
		free(b);
	}
	p->ov_tail = NULL;
}

/* The role's view of p (front: its workers in the clustering). */
static void role_down(struct stage_link *s, struct link_peer *p)
{
	if (!p->role_up)
		return;
	p->role_up = 0;
	if (s->role == SPATED_ROLE_FRONT)
		link_front_peer_down(s, p);
	else
		link_match_peer_down(s, p);
}

static void role_up(struct stage_link *s, struct link_peer *p)
{
	if (s->role == SPATED_ROLE_FRONT && p->lcores == 0)
		link_repl_peer_up(s, p); /* a fellow front, every incarnation: a copy */
	if (p->role_up)
		return;
	p->role_up = 1;
	if (s->role == SPATED_ROLE_FRONT)
		link_front_peer_up(s, p);
}

/* p's incarnation ended (silent, restarted, or gone from ZooKeeper):
 * nothing in flight to or from it counts any more (the front rebuilds
 * what it held elsewhere). `fence`: it fell silent, ZooKeeper is asked
 * to fence it (it may be alive behind a broken link). */
static void peer_down(struct stage_link *s, struct link_peer *p, int fence)
{
	uint32_t lost = spate_peer_chan_reset(p->ch, p->epoch);

	if (!p->down || p->pending)
		fprintf(stderr,
			"spated: link: host %u (epoch %u) left; %u frames to it unacknowledged\n",
			p->host, p->epoch, lost);
	if (!p->down)
		spated_cnt.peer_hosts_down++;
	free_pending(p);
	spated_cnt.peer_down_dropped += p->w.count;
	spate_peer_writer_init(&p->w, p->body, s->body_cap);
	p->blocked = 0;
	p->down = 1;
	p->pending = 0;
	p->repl_dirty = 0;
	p->repl_seq = 0;
	p->dead_epoch = p->epoch;
	if (fence && s->view != NULL)
		host_view_fence(s->view, p->host, p->epoch);
	role_down(s, p);
}

static void peer_up(struct stage_link *s, struct link_peer *p)
{
	fprintf(stderr, "spated: link: host %u up (epoch %u)\n", p->host, p->epoch);
	p->down = 0;
	p->pending = 0;
	spated_cnt.peer_hosts_up++;
	role_up(s, p);
}

/* ZooKeeper lists incarnation `epoch` of p: the channel starts over with
 * it, and it comes up once it is heard (within dead_ms). */
static void bind(struct stage_link *s, struct link_peer *p, uint32_t epoch)
{
	spate_peer_chan_reset(p->ch, epoch);
	p->epoch = epoch;
	p->pending = 1;
	p->bound_at = s->now;
	p->heard = 0;
}

/* ZooKeeper's view changed: a peer listed with a newer epoch is a new
 * incarnation (the one we knew is gone); one listed no more is left to
 * its heartbeats (its session may have expired while it lives: it joins
 * again under the same epoch); one listed again under an epoch found
 * dead is fenced again. */
static void read_view(struct stage_link *s)
{
	uint32_t host[SPATED_PEERS_MAX], epoch[SPATED_PEERS_MAX];

	for (uint32_t i = 0; i < s->n_peers; i++)
		host[i] = s->peers[i].host;
	if (!host_view_take(s->view, &s->view_seen, host, epoch, s->n_peers))
		return;
	for (uint32_t i = 0; i < s->n_peers && !s->view_read; i++)
		if (epoch[i] == 0) {
			/* absent from the start: the clustering must not use it */
			fprintf(stderr,
				"spated: link: host %u is not a member: down until it joins\n",
				s->peers[i].host);
			role_down(s, &s->peers[i]);
		}
	s->view_read = 1;
	for (uint32_t i = 0; i < s->n_peers; i++) {
		struct link_peer *p = &s->peers[i];
		p->zk_epoch = epoch[i];
		if (epoch[i] > p->epoch && epoch[i] > p->dead_epoch) {
			if (!p->down || p->pending)
				peer_down(s, p, 0);
			bind(s, p, epoch[i]);
		} else if (epoch[i] != 0 && epoch[i] == p->dead_epoch) {
			host_view_fence(s->view, p->host, epoch[i]);
		}
	}
}

/* Hosts this one heard after time t (itself included). */
static uint32_t heard_after(const struct stage_link *s, uint64_t t)
{
	uint32_t n = 1;

	for (uint32_t i = 0; i < s->n_peers; i++) {
		const struct link_peer *q = &s->peers[i];
		n += !q->down && q->heard > t;
	}
	return n;
}

/* Heartbeats: a peer up and silent for dead_ms is dead, and ZooKeeper
 * is asked to fence it - if this host heard a majority of the cluster
 * (itself included) *since* that peer's silence reached dead_ms. A host
 * cut off (its link down, its CPU or the kernel's networking stalled)
 * hears everyone fall silent within a heartbeat of each other: counting
 * those still inside dead_ms as heard, as a plain "heard lately" would,
 * gave it a majority for the first few it judged, and it fenced healthy
 * hosts (seen: a match host whose data link went down fenced the two
 * others 300 ms later, and the cluster lost every match host). Heard
 * after the silence, none of them counts: it waits, counting
 * (quorum_waits), and the majority side decides and fences. The cost
 * on the majority side: the verdict waits for the next frame of a
 * majority, at most a heartbeat period. One bound and not heard within
 * dead_ms is not used meanwhile (what waited for it goes elsewhere) but
 * not fenced: it never had anything of ours, and it may only be late to
 * see us in ZooKeeper; it comes up when it speaks. */
static void check_alive(struct stage_link *s)
{
	int waiting = 0;

	for (uint32_t i = 0; i < s->n_peers; i++) {
		struct link_peer *p = &s->peers[i];
		if (p->pending && s->now - p->bound_at > s->dead_ns) {
			fprintf(stderr,
				"spated: link: host %u (epoch %u) not heard in %u ms: not used"
				" until it speaks\n",
				p->host, p->epoch, (unsigned)(s->dead_ns / 1000000));
			p->pending = 0;
			role_down(s, p);
			continue;
		}
		if (p->down || s->now - p->heard <= s->dead_ns)
			continue;
		uint32_t heard = heard_after(s, p->heard + s->dead_ns);
		if (2 * heard <= s->n_peers + 1 && p->zk_epoch == p->epoch) {
			/* told and counted once the majority's next heartbeats are
			 * late: before that, waiting for them is the normal verdict */
			if (s->now - p->heard <= s->dead_ns + 2 * s->hb_ns)
				continue;
			if (!s->quorum_lost)
				fprintf(stderr,
					"spated: link: host %u silent, but this host heard %u of %u"
					" hosts since: not a majority, it does not judge\n",
					p->host, heard, s->n_peers + 1);
			s->quorum_lost = 1;
			waiting = 1;
			spated_cnt.quorum_waits++;
			continue;
		}
		fprintf(stderr, "spated: link: host %u (epoch %u) silent for %llu ms: dead\n",
			p->host, p->epoch, (unsigned long long)((s->now - p->heard) / 1000000));
		spated_cnt.peer_hb_dead++;
		peer_down(s, p, 1);
	}
	if (!waiting && s->quorum_lost) {
		fprintf(stderr, "spated: link: this host hears a majority again (%u of %u)\n",
			heard_after(s, s->now - s->dead_ns), s->n_peers + 1);
		s->quorum_lost = 0;
	}
}

unsigned int stage_link_poll(struct stage_link *s)
{
	struct rte_mbuf *pkts[PL_BURST];
	unsigned int work, nb;

	work = 0;
	uint64_t prev = s->now;
	s->now = now_ns(s);
	if (prev != 0 && s->now - prev > s->hb_ns) {
		/* this lcore did not run for a while (a long journal sync, the
		 * machine's scheduler): peers' silence meanwhile was not
		 * observed, it does not count against them */
		spated_cnt.link_stalls++;
		for (uint32_t i = 0; i < s->n_peers; i++) {
			s->peers[i].heard += s->now - prev - s->hb_ns;
			s->peers[i].bound_at += s->now - prev - s->hb_ns;
		}
	}
	if (s->view != NULL)
		read_view(s);
	for (uint32_t q = 0; q < s->n_rx; q++) {
		nb = rte_ring_sc_dequeue_burst(s->from_rx[q], (void **)pkts, PL_BURST, NULL);
		for (unsigned int i = 0; i < nb; i++) {
			frame_in(s, pkts[i]);
			rte_pktmbuf_free(pkts[i]);
		}
		work += nb;
	}
	/* bodies the window refused last time go first */
	for (uint32_t i = 0; i < s->n_peers; i++)
		if (s->peers[i].blocked)
			flush_peer(s, &s->peers[i]);
	work += s->role == SPATED_ROLE_FRONT ? link_front_poll(s) + link_repl_poll(s)
					     : link_match_poll(s);
	for (uint32_t i = 0; i < s->n_peers; i++)
		flush_peer(s, &s->peers[i]);
	for (uint32_t w = 0; w < s->n_workers; w++)
		ring_out_flush(&s->to_stage[w]);
	/* after what came in: a peer's last frames may have waited in RX */
	if (s->view != NULL)
		check_alive(s);
	/* retransmission timers count as work only when they send */
	work += frames_out(s);
	tx_out_flush(&s->to_tx);
	return work;
}

int stage_link_peer_state(const struct stage_link *s, uint32_t i, uint32_t *host, int *up)
{
	if (s == NULL || i >= s->n_peers)
		return -1;
	*host = s->peers[i].host;
	*up = !__atomic_load_n(&s->peers[i].down, __ATOMIC_RELAXED);
	return 0;
}

struct stage_link *stage_link_create(const struct stage_link_conf *c)
{
	const struct host_conf *h = c->hosts;
	struct stage_link *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->hosts = h;
	s->role = h->role;
	s->adopt = c->adopt;
	s->pkt_pool = c->pkt_pool;
	s->n_ports = c->n_ports < 4 ? c->n_ports : 4;
	for (uint16_t i = 0; i < s->n_ports; i++) {
		s->ports[i] = c->ports[i];
		s->macs[i] = c->macs[i];
	}
	if (c->match_conf != NULL) {
		/* a fellow front's copy: every subscription it holds, whatever
		 * the quotas say here */
		s->copy_conf = *c->match_conf;
		s->copy_conf.max_subs = s->copy_conf.max_subs_per_client = 0;
	}
	s->host_id = h->host_id;
	s->epoch = c->epoch;
	s->view = c->view;
	s->workers_changed = c->workers_changed;
	s->relayed = c->relayed;
	s->can_take = c->can_take;
	s->waiting = c->waiting;
	s->backlog_max = c->backlog_max ? c->backlog_max : 1024;
	/* a frame carries at most this many messages; other lcores' caches
	 * are not ours to take from */
	s->pool_margin = SPATE_PEER_BODY_MAX / SPATE_PEER_MSG_HDR_LEN +
			 rte_lcore_count() * (c->msg_pool->cache_size * 3 / 2 + 1);
	s->workers_ctx = c->workers_ctx;
	s->from_rx = calloc(c->n_rx, sizeof(*s->from_rx));
	if (s->from_rx == NULL) {
		free(s);
		return NULL;
	}
	memcpy(s->from_rx, c->from_rx, c->n_rx * sizeof(*s->from_rx));
	s->n_rx = c->n_rx;
	s->msg_pool = c->msg_pool;
	s->lim = c->lim;
	s->n_workers = c->n_workers;
	s->drop_ppm = h->drop_ppm;
	s->rng = 0x9e3779b97f4a7c15ull ^ h->host_id;
	s->ns_per_tsc_q32 = (uint64_t)(((unsigned __int128)1000000000 << 32) / rte_get_tsc_hz());
	s->hb_ns = (uint64_t)h->hb_ms * 1000000u;
	s->dead_ns = (uint64_t)h->dead_ms * 1000000u;
	size_t cap = c->max_frame < SPATE_PEER_FRAME_MAX ? c->max_frame : SPATE_PEER_FRAME_MAX;
	s->body_cap = cap - SPATE_PEER_OVERHEAD;

	s->peers = calloc(h->n_peers, sizeof(*s->peers));
	s->from_stage = calloc(c->n_workers, sizeof(*s->from_stage));
	s->to_stage = calloc(c->n_workers, sizeof(*s->to_stage));
	s->held = calloc(c->n_workers, sizeof(*s->held));
	s->auth = spate_peer_auth_create(c->keys ? c->keys->key : NULL,
					 c->keys ? c->keys->n_keys : 0);
	if (s->peers == NULL || s->from_stage == NULL || s->to_stage == NULL || s->held == NULL ||
	    s->auth == NULL || tx_out_init(&s->to_tx, c->to_tx, c->pkt_pool) != 0)
		goto fail;
	s->n_peers = h->n_peers;
	for (uint32_t i = 0; i < h->n_peers; i++) {
		struct link_peer *p = &s->peers[i];
		p->host = h->peer[i].host;
		p->ipv4 = h->peer[i].ipv4;
		p->lcores = h->peer[i].lcores;
		/* with ZooKeeper each peer is down until the view names its epoch
		 * and it is heard; static peers are up, what is for them held
		 * until the handshake binds their epoch (static_epochs) */
		p->epoch = 0;
		p->down = c->view != NULL;
		p->pending = c->view == NULL;
		p->role_up = 1;
		p->ch = spate_peer_chan_create(h->host_id, c->epoch, p->host, 1, PEER_WINDOW,
					       (uint64_t)h->rto_ms * 1000000u);
		if (p->ch == NULL)
			goto fail;
		spate_peer_writer_init(&p->w, p->body, s->body_cap);
	}
	memcpy(s->from_stage, c->from_stage, c->n_workers * sizeof(*s->from_stage));
	int rc = s->role == SPATED_ROLE_FRONT ? link_front_init(s, c) : link_match_init(s, c);
	if (rc != 0)
		goto fail;
	return s;
fail:
	stage_link_destroy(s);
	return NULL;
}

void stage_link_destroy(struct stage_link *s)
{
	if (s == NULL)
		return;
	if (s->role == SPATED_ROLE_FRONT) {
		link_repl_fini(s);
		link_front_fini(s);
	} else {
		link_match_fini(s);
	}
	void *m;
	for (uint32_t q = 0; s->from_rx && q < s->n_rx; q++)
		while (rte_ring_sc_dequeue(s->from_rx[q], &m) == 0)
			rte_pktmbuf_free(m);
	for (uint32_t w = 0; s->held && w < s->n_workers; w++)
		if (s->held[w] != NULL)
			pl_msg_put(s->msg_pool, s->held[w]);
	for (uint32_t w = 0; s->from_stage && w < s->n_workers; w++)
		while (s->from_stage[w] && rte_ring_sc_dequeue(s->from_stage[w], &m) == 0)
			pl_msg_put(s->msg_pool, m);
	for (uint32_t w = 0; s->to_stage && w < s->n_workers; w++)
		ring_out_fini(&s->to_stage[w]);
	for (uint32_t i = 0; s->peers && i < s->n_peers; i++) {
		spate_peer_chan_destroy(s->peers[i].ch);
		free_pending(&s->peers[i]);
	}
	tx_out_fini(&s->to_tx);
	spate_peer_auth_destroy(s->auth);
	free(s->from_rx);
	free(s->peers);
	free(s->from_stage);
	free(s->to_stage);
	free(s->held);
	free(s);
}
