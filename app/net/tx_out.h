/* tx_out.h - a stage's way to the TX stage: one lossy SP/SC ring of
 * packets (pl_msg.h's PKT_*). A datagram built by the protocol side is
 * copied into an mbuf with headroom for the headers TX adds; a full ring
 * drops and counts (ring_full_tx), an empty pool counts no_mbuf. */
#ifndef SPATED_TX_OUT_H
#define SPATED_TX_OUT_H

#include <stddef.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "infra/ring_out.h"
#include "proto/spate_types.h"

struct tx_out {
	struct ring_out ring;
	struct rte_mempool *pool;
	/* Called for a PKT_NEIGH the ring did not take (RX forgets the
	 * neighbour so it tells TX again on its next frame). */
	void (*neigh_lost)(void *ctx, uint32_t ip);
	void *ctx;
	/* the RX stamp given to the datagrams built now (pkt_meta.rx_tsc;
	 * latency.h): the matching stage sets it per burst, 0 = none */
	uint64_t stamp;
};

/* 0, or -1 on no memory. */
int tx_out_init(struct tx_out *t, struct rte_ring *ring, struct rte_mempool *pool);
/* A Spate datagram for `to` (copied). The spated_send_fn of notify.h:
 * ctx is the struct tx_out. */
void tx_out_payload(void *ctx, struct spate_dest to, const void *buf, size_t len);
/* An inter-host frame for `to` (copied), sent as is (PKT_PEER). */
void tx_out_peer(struct tx_out *t, struct spate_dest to, const void *buf, size_t len);
/* A packet with its pkt_meta filled in. */
void tx_out_packet(struct tx_out *t, struct rte_mbuf *m);
void tx_out_flush(struct tx_out *t);
void tx_out_fini(struct tx_out *t);

#endif
