/* port.h - bring one ethdev port up with one RX and one TX queue, and
 * down again. Init errors are fatal (rte_exit) with the port and error. */
#ifndef SPATED_PORT_H
#define SPATED_PORT_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>

/* n_rxq RX queues (spread by RSS where the port has it; net_af_packet
 * spreads its qpairs by flow hash itself) and one TX queue. */
void port_start(uint16_t port_id, struct rte_mempool *mp, uint16_t n_rxq, uint16_t rx_desc,
		uint16_t tx_desc, uint32_t mtu, struct rte_ether_addr *mac);
void port_close(uint16_t port_id);

#endif
