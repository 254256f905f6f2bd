/* stage_tx.h - the TX stage: the one owner of the port's TX queue. It
 * drains one ring per producing stage and sends:
 *   PKT_FRAME   as is (ARP and ping answers from RX),
 *   PKT_PAYLOAD a Spate datagram: the receiver's next sequence number is
 *               stamped here (so a receiver sees one sequence whichever
 *               lcore built its datagrams), then IPv4/UDP headers and
 *               checksums, to the neighbour's MAC,
 *   PKT_NEIGH   learned by RX: into the neighbour table used above.
 * Frames the port does not take after a few tries are dropped, counted. */
#ifndef SPATED_STAGE_TX_H
#define SPATED_STAGE_TX_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_ring.h>

struct stage_tx_conf {
	uint16_t port_id, queue_id;
	/* every port (ports[0] = port_id, macs[0] = mac): frames go out of
	 * the one their next hop is behind */
	uint16_t n_ports;
	const uint16_t *ports;
	const struct rte_ether_addr *macs;
	struct rte_mempool *pool;
	struct rte_ether_addr mac;
	uint32_t ipv4;
	uint32_t mask, gw; /* off-link destinations go through gw (0: none) */
	uint16_t udp_port;
	size_t max_payload;
	uint32_t max_messages;
	uint16_t burst; /* most frames per rte_eth_tx_burst (tx_desc) */
	struct rte_ring **in;
	uint32_t n_in;
};

struct stage_tx;

struct stage_tx *stage_tx_create(const struct stage_tx_conf *c);
/* One poll over every input ring. Returns the packets handled. */
unsigned int stage_tx_poll(struct stage_tx *s);
void stage_tx_destroy(struct stage_tx *s);

#endif
