/* stage_rx.c - the RX stage (stage_rx.h). */
#include <stdlib.h>

#include <rte_ethdev.h>

#include "counters.h"
#include "net.h"
#include "pl_msg.h"
#include "ring_out.h"
#include "spate_proto.h"
#include "stage_rx.h"
#include "tx_out.h"

struct stage_rx {
	struct net net;
	uint16_t queue_id;
	const struct spate_limits *lim;
	struct ring_out to_cluster;
	unsigned int room; /* slots the cluster's ring had left for this poll */
	struct tx_out to_tx;
	struct ring_out to_link;
};

static void drop_dgram(void *ctx, void *obj)
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
	s->net.on_udp = on_udp;
	s->net.emit = emit_frame;
	s->net.on_learn = on_learn;
	s->net.ctx = s;
	s->queue_id = c->queue_id;
	s->lim = c->lim;
	if (c->to_link != NULL) {
		s->net.peer_port = c->peer_port;
		s->net.on_peer = on_peer;
		if (ring_out_init(&s->to_link, c->to_link, 0, drop_dgram, s) != 0) {
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
	free(s);
}
