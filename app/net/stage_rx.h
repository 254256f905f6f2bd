/* stage_rx.h - the RX stage: poll one port queue, parse Ethernet, ARP,
 * IPv4, ICMP and UDP (net.h), check the Spate header, and steer: Spate
 * datagrams to the cluster stage, ARP and ping answers and learned
 * neighbours to the TX stage. Every frame ends in a counter. */
#ifndef SPATED_STAGE_RX_H
#define SPATED_STAGE_RX_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "proto/spate_types.h"

struct stage_rx_conf {
	uint16_t port_id, queue_id;
	struct rte_mempool *pool;
	struct rte_ether_addr mac;
	uint32_t ipv4;
	uint16_t udp_port;
	uint16_t mtu; /* longer IP packets are dropped (ip_over_mtu) */
	const struct spate_limits *lim;
	struct rte_ring *to_cluster, *to_tx;
	/* inter-host frames (UDP to peer_port) go to the link stage; NULL:
	 * a single box. to_cluster NULL: client datagrams are not served
	 * here (a match host): counted as udp_other_port. */
	struct rte_ring *to_link;
	uint16_t peer_port;
};

struct stage_rx;

struct stage_rx *stage_rx_create(const struct stage_rx_conf *c);
/* One poll: a burst in, steered. Returns the frames received. */
unsigned int stage_rx_poll(struct stage_rx *s);
void stage_rx_destroy(struct stage_rx *s);

#endif
