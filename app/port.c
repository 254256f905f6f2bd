/* port.c - port bring-up (port.h). No offloads are asked for: spated
 * computes checksums itself, so any port, vdevs included, will do. */
#include <stdlib.h>

#include <rte_ethdev.h>

#include "port.h"

void port_start(uint16_t port_id, struct rte_mempool *mp, uint16_t rx_desc,
		uint16_t tx_desc, uint32_t mtu, struct rte_ether_addr *mac)
{
	struct rte_eth_conf conf = { .rxmode = { .mtu = mtu } };
	struct rte_eth_dev_info info;
	int socket = rte_eth_dev_socket_id(port_id);
	int rc;

	if (socket < 0)
		socket = (int)rte_socket_id();
	rc = rte_eth_dev_info_get(port_id, &info);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_dev_info_get: err=%d, port=%u\n", rc, port_id);
	if (mtu > info.max_mtu)
		rte_exit(EXIT_FAILURE, "mtu %u above the port's maximum %u: err=%d, port=%u\n",
			 mtu, info.max_mtu, -EINVAL, port_id);
	rc = rte_eth_dev_configure(port_id, 1, 1, &conf);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_dev_configure: err=%d, port=%u\n", rc, port_id);
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &rx_desc, &tx_desc);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_dev_adjust_nb_rx_tx_desc: err=%d, port=%u\n", rc, port_id);
	rc = rte_eth_rx_queue_setup(port_id, 0, rx_desc, (unsigned int)socket, NULL, mp);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_rx_queue_setup: err=%d, port=%u\n", rc, port_id);
	rc = rte_eth_tx_queue_setup(port_id, 0, tx_desc, (unsigned int)socket, NULL);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_tx_queue_setup: err=%d, port=%u\n", rc, port_id);
	rc = rte_eth_dev_start(port_id);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_dev_start: err=%d, port=%u\n", rc, port_id);
	rc = rte_eth_macaddr_get(port_id, mac);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_macaddr_get: err=%d, port=%u\n", rc, port_id);
}

void port_close(uint16_t port_id)
{
	/* Best effort at exit: nothing useful to do on failure. */
	(void)rte_eth_dev_stop(port_id);
	(void)rte_eth_dev_close(port_id);
}
