/* tx_out.c - packets to the TX stage (tx_out.h). */
#include <string.h>

#include "infra/counters.h"
#include "infra/pl_msg.h"
#include "net/tx_out.h"

static void drop_packet(void *ctx, void *obj)
{
	struct tx_out *t = ctx;
	struct rte_mbuf *m = obj;
	struct pkt_meta *pm = pkt_meta(m);

	spated_cnt.ring_full_tx++;
	if (pm->kind == PKT_NEIGH && t->neigh_lost)
		t->neigh_lost(t->ctx, pm->peer.ipv4);
	rte_pktmbuf_free(m);
}

int tx_out_init(struct tx_out *t, struct rte_ring *ring, struct rte_mempool *pool)
{
	memset(t, 0, sizeof(*t));
	t->pool = pool;
	return ring_out_init(&t->ring, ring, 0, drop_packet, t);
}

static void put(struct tx_out *t, struct spate_dest to, const void *buf, size_t len, uint8_t kind)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t->pool);

	if (m == NULL) {
		spated_cnt.no_mbuf++;
		return;
	}
	/* rte_pktmbuf_alloc leaves RTE_PKTMBUF_HEADROOM (128) in front:
	 * room for the 42 bytes of Ethernet, IPv4 and UDP headers. */
	void *p = len <= UINT16_MAX ? rte_pktmbuf_append(m, (uint16_t)len) : NULL;
	if (p == NULL) {
		spated_cnt.no_mbuf++; /* larger than an mbuf: mtu is checked at start */
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(p, buf, len);
	struct pkt_meta *pm = pkt_meta(m);
	pm->kind = kind;
	pm->peer = to;
	pm->rx_tsc = t->stamp;
	ring_out_push(&t->ring, m);
}

void tx_out_payload(void *ctx, struct spate_dest to, const void *buf, size_t len)
{
	put(ctx, to, buf, len, PKT_PAYLOAD);
}

void tx_out_peer(struct tx_out *t, struct spate_dest to, const void *buf, size_t len)
{
	put(t, to, buf, len, PKT_PEER);
}

void tx_out_packet(struct tx_out *t, struct rte_mbuf *m)
{
	ring_out_push(&t->ring, m);
}

void tx_out_flush(struct tx_out *t)
{
	ring_out_flush(&t->ring);
}

void tx_out_fini(struct tx_out *t)
{
	ring_out_fini(&t->ring);
}
