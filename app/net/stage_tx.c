/* stage_tx.c - the TX stage (stage_tx.h). */
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "infra/counters.h"
#include "infra/latency.h"
#include "net/net.h"
#include "net/notify.h"
#include "infra/pl_msg.h"
#include "infra/ring_out.h"
#include "net/stage_tx.h"

#define EXPIRE_POLLS 1024 /* polls between sweeps for unanswered ARP */

struct stage_tx {
	struct net net;
	uint32_t polls;
	uint16_t queue_id;
	struct notifier *seqs; /* only its receiver table: the sequence numbers */
	struct rte_ring **in;
	uint32_t n_in;
	/* Frames per port (net.ports[i]), sent once a poll: a whole poll's
	 * frames in one rte_eth_tx_burst where they fit (net_af_packet makes
	 * one sendto per call, the kernel's cost per call dominates). */
	uint16_t n_tx[NET_PORTS_MAX];
	uint16_t burst;
	struct rte_mbuf **tx[NET_PORTS_MAX];
	uint64_t *rx_tsc[NET_PORTS_MAX]; /* of each frame, 0 = not timed (latency.h) */
};

static void tx_flush_port(struct stage_tx *s, uint16_t i)
{
	uint16_t sent = 0, n = s->n_tx[i];
	struct rte_mbuf **v = s->tx[i];

	/* A few tries: af_packet takes less than a burst when its ring is
	 * momentarily full (its next call sends what the last one queued).
	 * Then give up: never block the poll loop. */
	for (int tries = 0; tries < 4 && sent < n; tries++) {
		sent += rte_eth_tx_burst(s->net.ports[i], s->queue_id, v + sent, n - sent);
		spated_cnt.tx_bursts++;
	}
	spated_cnt.tx += sent;
	uint64_t now = rte_rdtsc();
	for (uint16_t k = 0; k < sent; k++)
		spated_lat_record(SPATED_LAT_RX_TX, s->rx_tsc[i][k], now);
	for (uint16_t k = sent; k < n; k++) {
		spated_cnt.tx_drops++;
		spated_cnt.tx_bytes -= rte_pktmbuf_pkt_len(v[k]);
		rte_pktmbuf_free(v[k]);
	}
	s->n_tx[i] = 0;
}

static void tx_flush(struct stage_tx *s)
{
	for (uint16_t i = 0; i < s->net.n_ports; i++)
		if (s->n_tx[i] > 0)
			tx_flush_port(s, i);
}

/* A frame held for a neighbour that did not answer. */
static void drop_held(void *ctx, void *frame)
{
	(void)ctx;
	spated_cnt.arp_unresolved++;
	rte_pktmbuf_free(frame);
}

static void emit(void *ctx, struct rte_mbuf *m)
{
	struct stage_tx *s = ctx;
	/* m->port: where it goes (the port a request came in on, or the
	 * next hop's) */
	uint16_t i = net_port_index(&s->net, m->port);

	/* Counted now: after tx_burst the mbuf is no longer ours to read. */
	spated_cnt.tx_bytes += rte_pktmbuf_pkt_len(m);
	struct pkt_meta *pm = pkt_meta(m);
	s->rx_tsc[i][s->n_tx[i]] = pm->kind == PKT_PAYLOAD ? pm->rx_tsc : 0;
	s->tx[i][s->n_tx[i]++] = m;
	if (s->n_tx[i] == s->burst)
		tx_flush_port(s, i);
}

struct stage_tx *stage_tx_create(const struct stage_tx_conf *c)
{
	struct stage_tx *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	net_init(&s->net, c->port_id, c->pool, &c->mac, c->ipv4, c->udp_port);
	s->net.emit = emit;
	s->net.ctx = s;
	s->net.mask = c->mask;
	s->net.gw = c->gw;
	s->net.neigh.drop = drop_held;
	/* net_init set ports[0]: the others */
	s->net.n_ports = c->n_ports < NET_PORTS_MAX ? c->n_ports : NET_PORTS_MAX;
	for (uint16_t i = 1; i < s->net.n_ports; i++) {
		s->net.ports[i] = c->ports[i];
		s->net.macs[i] = c->macs[i];
	}
	s->queue_id = c->queue_id;
	s->burst = c->burst < PL_BURST ? PL_BURST : c->burst;
	for (uint16_t i = 0; i < s->net.n_ports; i++)
		if ((s->tx[i] = malloc(s->burst * sizeof(*s->tx[i]))) == NULL ||
		    (s->rx_tsc[i] = malloc(s->burst * sizeof(*s->rx_tsc[i]))) == NULL) {
			stage_tx_destroy(s);
			return NULL;
		}
	s->seqs = notifier_create(c->max_payload, c->max_messages, NULL, NULL);
	s->in = malloc((c->n_in + 1) * sizeof(*s->in));
	if (s->seqs == NULL || s->in == NULL) {
		stage_tx_destroy(s);
		return NULL;
	}
	memcpy(s->in, c->in, c->n_in * sizeof(*s->in));
	s->n_in = c->n_in;
	return s;
}

static void handle(struct stage_tx *s, struct rte_mbuf *m)
{
	struct pkt_meta *pm = pkt_meta(m);

	switch (pm->kind) {
	case PKT_FRAME:
		emit(s, m);
		return;
	case PKT_PAYLOAD:
		notifier_stamp(s->seqs, pm->peer, rte_pktmbuf_mtod(m, uint8_t *));
		net_udp_output(&s->net, m, pm->peer);
		return;
	case PKT_PEER:
		/* from the inter-host port (the same on every host: the
		 * destination's): receivers check the source */
		net_udp_output_from(&s->net, m, pm->peer.port, pm->peer);
		return;
	case PKT_NEIGH:
		neigh_learn(&s->net.neigh, pm->peer.ipv4, &pm->mac, m->port);
		net_neigh_learned(&s->net, pm->peer.ipv4, &pm->mac, m->port);
		break;
	}
	rte_pktmbuf_free(m);
}

static void handle_obj(void *ctx, void *obj)
{
	handle(ctx, obj);
}

unsigned int stage_tx_poll(struct stage_tx *s)
{
	unsigned int total = 0;

	/* Each ring drained: a matching stage may queue many datagrams in
	 * one of its polls, and frames left for the next poll would leave
	 * in more, smaller bursts. */
	for (uint32_t r = 0; r < s->n_in; r++)
		total += ring_drain(s->in[r], handle_obj, s);
	if (++s->polls % EXPIRE_POLLS == 0)
		net_neigh_expire(&s->net);
	tx_flush(s);
	return total;
}

void stage_tx_destroy(struct stage_tx *s)
{
	if (s == NULL)
		return;
	/* what is still queued goes back to the pool */
	for (uint32_t r = 0; s->in && r < s->n_in; r++) {
		void *m;
		while (rte_ring_sc_dequeue(s->in[r], &m) == 0)
			rte_pktmbuf_free(m);
	}
	neigh_expire(&s->net.neigh, UINT64_MAX, 0); /* what is held goes back */
	tx_flush(s);
	notifier_destroy(s->seqs);
	for (uint16_t i = 0; i < NET_PORTS_MAX; i++) {
		free(s->tx[i]);
		free(s->rx_tsc[i]);
	}
	free(s->in);
	free(s);
}
