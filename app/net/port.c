/* port.c - port bring-up (port.h). No offloads are asked for: spated
 * computes checksums itself, so any port, vdevs included, will do. */
#include <stdlib.h>

#include <rte_ethdev.h>

#include "net/port.h"

void port_start(uint16_t port_id, struct rte_mempool *mp, uint16_t n_rxq, uint16_t rx_desc,
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
		rte_exit(EXIT_FAILURE, "mtu %u above the port's maximum %u: err=%d, port=%u\n", mtu,
			 info.max_mtu, -EINVAL, port_id);
	if (n_rxq > info.max_rx_queues)
		rte_exit(EXIT_FAILURE,
			 "spated.lcores.rx asks for %u RX queues, the port has %u (net_af_packet: "
			 "add qpairs=%u to the vdev): err=%d, port=%u\n",
			 n_rxq, info.max_rx_queues, n_rxq, -EINVAL, port_id);
	/* Several queues: the same flow (one client's socket) always to the
	 * same queue, so each client's datagrams stay in order. */
	uint64_t rss = info.flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
	if (n_rxq > 1 && rss != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = rss;
	}
	rc = rte_eth_dev_configure(port_id, n_rxq, 1, &conf);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_dev_configure: err=%d, port=%u\n", rc, port_id);
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &rx_desc, &tx_desc);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "rte_eth_dev_adjust_nb_rx_tx_desc: err=%d, port=%u\n", rc,
			 port_id);
	for (uint16_t q = 0; q < n_rxq; q++) {
		rc = rte_eth_rx_queue_setup(port_id, q, rx_desc, (unsigned int)socket, NULL, mp);
		if (rc != 0)
			rte_exit(EXIT_FAILURE,
				 "rte_eth_rx_queue_setup(queue %u): err=%d, port=%u\n", q, rc,
				 port_id);
	}
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
