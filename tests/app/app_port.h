/* app_port.h - ports and rings for the app/ stage tests: a net_ring
 * port made of two rte_rings (the test puts frames into its RX ring and
 * reads what was sent from its TX ring), and draining a ring of mbufs. */
#ifndef SPATE_APP_PORT_H
#define SPATE_APP_PORT_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

/* A started port of one RX and one TX ring: its port id, or -1. The
 * name is short: the driver names rings after it. */
static inline int app_ring_port(const char *tag, struct rte_mempool *pool,
				struct rte_ring **rx_ring, struct rte_ring **tx_ring)
{
	char name[64];
	struct rte_eth_conf ec;

	snprintf(name, sizeof(name), "r%s%d", tag, (int)getpid());
	int p = rte_eth_from_rings(name, rx_ring, 1, tx_ring, 1, (unsigned int)rte_socket_id());
	memset(&ec, 0, sizeof(ec));
	if (p < 0 || rte_eth_dev_configure((uint16_t)p, 1, 1, &ec) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)p, 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)p, 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)p) != 0)
		return -1;
	return p;
}

/* Up to max mbufs out of r into out[]: how many. */
static inline unsigned int app_drain(struct rte_ring *r, struct rte_mbuf **out, unsigned int max)
{
	unsigned int n = 0;
	void *obj = NULL;

	while (n < max && rte_ring_dequeue(r, &obj) == 0)
		out[n++] = obj;
	return n;
}

static inline void app_free_all(struct rte_mbuf **v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free(v[i]);
}

#endif
