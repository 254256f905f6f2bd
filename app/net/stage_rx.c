/* stage_rx.c - the RX stage (stage_rx.h). */
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "infra/counters.h"
#include "net/net.h"
#include "infra/pl_msg.h"
#include "infra/ring_out.h"
#include "proto/spate_proto.h"
#include "auth/spate_ratelimit.h"
#include "net/stage_rx.h"
#include "net/tx_out.h"

/* OVERLOADED notices: at most one per client per 100 ms (a bucket of
 * one token, ten a second), for this many clients; the rest share one. */
#define OVERLOAD_NACKS_PER_S 10.0
#define OVERLOAD_CLIENTS 4096

struct stage_rx {
	struct net net;
	uint16_t queue_id;
	const struct spate_limits *lim;
	struct ring_out to_cluster;
	unsigned int room; /* slots the cluster's ring had left for this poll */
	uint64_t rx_tsc;   /* when this poll's burst came off the port */
	struct tx_out to_tx;
	struct ring_out to_link;
	struct spate_ratelimit *overload; /* OVERLOADED notices per client */
	uint64_t tsc_per_us;
};

/* Tell the sender of a shed datagram, once in a while, that it was. */
static void overload_nack(struct stage_rx *s, const struct spate_dgram_peek *pk,
			  struct spate_dest to)
{
	uint8_t buf[SPATE_HDR_LEN + 32];
	struct spate_writer w;

	spate_writer_init(&w, buf, sizeof(buf), SPATE_FLAG_SERVER, 0, 0);
	if (spate_put_nack(&w, pk->first_type, SPATE_E_OVERLOADED, pk->hdr.seq, pk->first_id) != 0)
		return;
	spated_cnt.overload_nacks++;
	tx_out_payload(&s->to_tx, to, buf, spate_writer_finish(&w));
}

/* A client datagram the cluster's ring has no room for: dropped, counted
 * with the EVENTs in it, and its sender told OVERLOADED, at most once per
 * 100 ms per client id (so that the notices never become load of their
 * own). buf/len: the UDP payload, read unchecked (the walk is bounded);
 * verified: its UDP checksum was checked, else it is before a NACK. */
static void shed(struct stage_rx *s, struct rte_mbuf *m, const uint8_t *buf, size_t len,
		 struct spate_dest src, bool verified)
{
	struct spate_dgram_peek pk;

	spated_cnt.ring_full_rx++;
	if (spate_dgram_peek(buf, len, s->lim, &pk) == 0 && !(pk.hdr.flags & SPATE_FLAG_SERVER)) {
		spated_cnt.shed_events += pk.events;
		uint64_t now_us = rte_rdtsc() / s->tsc_per_us;
		if (s->overload != NULL &&
		    spate_ratelimit_take(s->overload, pk.hdr.client_id, now_us) == 0 &&
		    (verified || net_shed_cksum_ok(m, buf, len)))
			overload_nack(s, &pk, src);
	}
	rte_pktmbuf_free(m);
}

/* net.h's on_shed: the ring was full before the datagram was checked. */
static void on_shed(void *ctx, struct rte_mbuf *m, const uint8_t *buf, size_t len,
		    struct spate_dest src)
{
	shed(ctx, m, buf, len, src, false);
}

/* The ring took only part of a burst: checked datagrams, trimmed to
 * their payload, their source in the meta. */
static void drop_dgram(void *ctx, void *obj)
{
	struct rte_mbuf *m = obj;

	shed(ctx, m, rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
	     pkt_meta(m)->peer, true);
}

/* An inter-host frame the link stage's ring did not take: its channel
 * resends it. */
static void drop_peer(void *ctx, void *obj)
{
	(void)ctx;
	spated_cnt.ring_full_rx++;
	rte_pktmbuf_free(obj);
}

/* A UDP payload for our port: a Spate datagram with a sound header goes
 * to the cluster stage, trimmed to the payload, its source in the meta. */
static void on_udp(void *ctx, struct rte_mbuf *m, const uint8_t *buf, size_t len,
		   struct spate_dest src)
{
	struct stage_rx *s = ctx;
	struct spate_hdr hdr;
	int rc;

	spated_cnt.dgrams++;
	rc = spate_hdr_decode(buf, len, s->lim, &hdr);
	if (rc != 0) {
		spated_cnt.bad_header++;
		spated_cnt.hdr_err[-rc < SPATE_E__COUNT ? -rc : 0]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (hdr.flags & SPATE_FLAG_SERVER) {
		/* Another server's NOTIFY/ACK: answering it with a NACK could
		 * start a NACK ping-pong between two servers. */
		spated_cnt.from_server++;
		rte_pktmbuf_free(m);
		return;
	}
	rte_pktmbuf_adj(m, (uint16_t)(buf - rte_pktmbuf_mtod(m, const uint8_t *)));
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - len));
	struct pkt_meta *pm = pkt_meta(m);
	pm->kind = PKT_DGRAM;
	pm->peer = src;
	pm->rx_tsc = s->rx_tsc;
	ring_out_push(&s->to_cluster, m);
	if (s->room > 0 && --s->room == 0)
		s->net.shed_udp = true;
}

/* An inter-host frame: to the link stage, trimmed to the payload. The
 * codec checks it there; a dropped one is resent by its channel. */
static void on_peer(void *ctx, struct rte_mbuf *m, const uint8_t *buf, size_t len,
		    struct spate_dest src)
{
	struct stage_rx *s = ctx;

	rte_pktmbuf_adj(m, (uint16_t)(buf - rte_pktmbuf_mtod(m, const uint8_t *)));
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - len));
	struct pkt_meta *pm = pkt_meta(m);
	pm->kind = PKT_PEER;
	pm->peer = src;
	ring_out_push(&s->to_link, m);
}

static void emit_frame(void *ctx, struct rte_mbuf *m)
{
	struct stage_rx *s = ctx;

	pkt_meta(m)->kind = PKT_FRAME;
	m->port = s->net.port_id; /* an answer leaves where the question came in */
	tx_out_packet(&s->to_tx, m);
}

/* TX owns the neighbour table it sends with; RX tells it what it learns. */
static void on_learn(void *ctx, uint32_t ip, const struct rte_ether_addr *mac)
{
	struct stage_rx *s = ctx;
	struct rte_mbuf *m = rte_pktmbuf_alloc(s->net.mp);

	if (m == NULL) {
		spated_cnt.no_mbuf++;
		s->to_tx.neigh_lost(s, ip);
		return;
	}
	struct pkt_meta *pm = pkt_meta(m);
	pm->kind = PKT_NEIGH;
	pm->peer.ipv4 = ip;
	pm->peer.port = 0;
	pm->mac = *mac;
	m->port = s->net.port_id; /* the port it is behind */
	tx_out_packet(&s->to_tx, m);
}

/* TX did not hear of ip: forget it here too (an all-zero MAC), so the
 * next frame from it is news again. */
static void neigh_lost(void *ctx, uint32_t ip)
{
	struct stage_rx *s = ctx;
	struct rte_ether_addr zero = { { 0 } };

	neigh_learn(&s->net.neigh, ip, &zero, s->net.port_id);
}

struct stage_rx *stage_rx_create(const struct stage_rx_conf *c)
{
	struct stage_rx *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	/* no cluster stage here: no client port either */
	net_init(&s->net, c->port_id, c->pool, &c->mac, c->ipv4,
		 c->to_cluster != NULL ? c->udp_port : 0);
	s->net.mtu = c->mtu;
	s->net.on_udp = on_udp;
	s->net.emit = emit_frame;
	s->net.on_learn = on_learn;
	s->net.on_shed = on_shed;
	s->net.ctx = s;
	s->tsc_per_us = rte_get_tsc_hz() / 1000000 ? rte_get_tsc_hz() / 1000000 : 1;
	s->overload = spate_ratelimit_create(OVERLOAD_NACKS_PER_S, 1, OVERLOAD_CLIENTS);
	if (s->overload == NULL) {
		stage_rx_destroy(s);
		return NULL;
	}
	s->queue_id = c->queue_id;
	s->lim = c->lim;
	if (c->to_link != NULL) {
		s->net.peer_port = c->peer_port;
		s->net.on_peer = on_peer;
		if (ring_out_init(&s->to_link, c->to_link, 0, drop_peer, s) != 0) {
			stage_rx_destroy(s);
			return NULL;
		}
	}
	if ((c->to_cluster != NULL &&
	     ring_out_init(&s->to_cluster, c->to_cluster, 0, drop_dgram, s) != 0) ||
	    tx_out_init(&s->to_tx, c->to_tx, c->pool) != 0) {
		stage_rx_destroy(s);
		return NULL;
	}
	s->to_tx.neigh_lost = neigh_lost;
	s->to_tx.ctx = s;
	return s;
}

unsigned int stage_rx_poll(struct stage_rx *s)
{
	struct rte_mbuf *pkts[PL_BURST];

	/* Overload: datagrams past the room the cluster's ring has now are
	 * shed at once (net.h) rather than checked and then dropped. The
	 * room only grows meanwhile, so nothing is shed that would fit by
	 * the time of this poll's flush, but for what the cluster took in
	 * between on another lcore. */
	s->room = s->to_cluster.ring != NULL ? rte_ring_free_count(s->to_cluster.ring) : 0;
	s->net.shed_udp = s->to_cluster.ring != NULL && s->room == 0;
	uint16_t nb = rte_eth_rx_burst(s->net.port_id, s->queue_id, pkts, PL_BURST);
	if (nb != 0)
		s->rx_tsc = rte_rdtsc();

	for (uint16_t i = 0; i < nb; i++)
		net_rx(&s->net, pkts[i]);
	if (s->to_cluster.ring != NULL)
		ring_out_flush(&s->to_cluster);
	if (s->to_link.ring != NULL)
		ring_out_flush(&s->to_link);
	tx_out_flush(&s->to_tx);
	return nb;
}

void stage_rx_destroy(struct stage_rx *s)
{
	if (s == NULL)
		return;
	ring_out_fini(&s->to_cluster);
	ring_out_fini(&s->to_link);
	tx_out_fini(&s->to_tx);
	spate_ratelimit_destroy(s->overload);
	free(s);
}
