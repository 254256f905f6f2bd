/* net_module.c - what the net module registers (module.h,
 * pipeline_int.h): the ports and the packet pool, the RX stages (one per
 * port and queue) and the TX stage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "infra/counters.h"
#include "infra/module.h"
#include "infra/pipeline_int.h"
#include "infra/pl_msg.h"
#include "infra/sizing.h"
#include "net/port.h"
#include "net/port_find.h"
#include "net/port_stats.h"
#include "net/stage_rx.h"
#include "net/stage_tx.h"

/* The ports the configuration names, sized from the memory we are
 * given, started with lcores.n_rx RX queues and one TX queue. */
static void ports_init(struct spated *d)
{
	struct spated_conf *conf = &d->conf;

	d->n_ports =
		port_find(conf, !d->have_vdev, d->conf_path, d->eal_argc, d->eal_given, d->ports);
	/* Frames up to the MTU in one segment; the private area carries what
	 * a packet is to the next stage (pl_msg.h). */
	uint32_t room = RTE_MBUF_DEFAULT_DATAROOM;
	if (conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN > room)
		room = conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	/* Pools, rings and backlogs left at 0: from the memory we are given. */
	struct sizing_in sz = {
		.mem = sizing_memory(),
		.mbuf_bytes = rte_mempool_calc_obj_size(sizeof(struct rte_mbuf) + PKT_META_SIZE +
								RTE_PKTMBUF_HEADROOM + room,
							0, NULL),
		.msg_bytes = rte_mempool_calc_obj_size(sizeof(struct pl_msg), 0, NULL),
		.workers = conf->lcores.n_match,
	};
	sizing_derive(conf, &sz);
	printf("spated: sizing: %" PRIu64 " MB to size from: mbufs %u (%zu MB), msgs %u (%zu MB), "
	       "ring_size %u, backlog_max %u\n",
	       sz.mem >> 20, conf->mbufs, (size_t)conf->mbufs * sz.mbuf_bytes >> 20, conf->msgs,
	       (size_t)conf->msgs * sz.msg_bytes >> 20, conf->ring_size, conf->backlog_max);
	d->pkt_pool =
		rte_pktmbuf_pool_create("spated_mbufs", conf->mbufs, 256, PKT_META_SIZE,
					(uint16_t)(room + RTE_PKTMBUF_HEADROOM), rte_socket_id());
	if (d->pkt_pool == NULL)
		rte_exit(EXIT_FAILURE, "rte_pktmbuf_pool_create(%u mbufs): err=%d, port=%u\n",
			 conf->mbufs, rte_errno, d->ports[0]);
	for (uint16_t i = 0; i < d->n_ports; i++)
		port_start(d->ports[i], d->pkt_pool, (uint16_t)conf->lcores.n_rx,
			   (uint16_t)conf->rx_desc, (uint16_t)conf->tx_desc, conf->mtu,
			   &d->macs[i]);
	port_stats_init(d->ports, d->n_ports);
}

static void ports_stop(struct spated *d)
{
	port_stats_fini();
	for (uint16_t i = 0; i < d->n_ports; i++)
		port_close(d->ports[i]);
}

static void ports_fini(struct spated *d)
{
	rte_mempool_free(d->pkt_pool);
}

static struct spated_module ports_module = {
	.name = "ports",
	.order = SPATED_ORDER_PORTS,
	.init = ports_init,
	.stop = ports_stop,
	.fini = ports_fini,
};
SPATED_MODULE(ports_module)

static unsigned int poll_rx(void *a)
{
	return stage_rx_poll(a);
}

/* RX stage q polls queue q % n_rx of port q / n_rx. */
static void rx_create(struct pipeline *p)
{
	const struct spated_conf *conf = p->conf;
	const uint32_t n_rx = conf->lcores.n_rx;

	for (uint32_t q = 0; q < p->n_rxs; q++) {
		struct stage_rx_conf rc = {
			.port_id = p->ports[q / n_rx],
			.queue_id = (uint16_t)(q % n_rx),
			.pool = p->pkt_pool,
			.mac = p->macs[q / n_rx],
			.ipv4 = conf->ipv4,
			.udp_port = conf->udp_port,
			.mtu = (uint16_t)conf->mtu,
			.lim = &conf->common.limits,
			.to_cluster = p->rings.rx_to_cluster[q],
			.to_tx = p->rings.rx_to_tx[q],
			.to_link = p->rings.rx_to_link[q],
			.peer_port = SPATED_PEER_PORT,
		};
		p->rx[q] = stage_rx_create(&rc);
		if (p->rx[q] == NULL)
			rte_exit(EXIT_FAILURE, "RX stage %u: err=%d, port=%u\n", q, -ENOMEM,
				 p->ports[0]);
		pipeline_place(p, conf->lcores.rx[q % n_rx], "rx", poll_rx, p->rx[q],
			       offsetof(struct spated_counters, cycles_rx));
	}
}

static void rx_destroy(struct pipeline *p)
{
	for (uint32_t q = 0; q < SPATED_RX_MAX; q++)
		stage_rx_destroy(p->rx[q]);
}

static struct pipeline_stage rx_stage = {
	.name = "rx",
	.order = PIPELINE_ORDER_RX,
	.destroy_order = PIPELINE_DESTROY_RX,
	.create = rx_create,
	.destroy = rx_destroy,
};
PIPELINE_STAGE(rx_stage)

static unsigned int poll_tx(void *a)
{
	return stage_tx_poll(a);
}

static void tx_create(struct pipeline *p)
{
	const struct spated_conf *conf = p->conf;
	struct stage_tx_conf tc = {
		.port_id = p->ports[0],
		.queue_id = 0,
		.pool = p->pkt_pool,
		.mac = p->macs[0],
		.n_ports = p->n_ports,
		.ports = p->ports,
		.macs = p->macs,
		.ipv4 = conf->ipv4,
		.mask = spated_conf_mask(conf),
		.gw = conf->gateway,
		.udp_port = conf->udp_port,
		.max_payload = p->max_payload,
		.max_messages = conf->common.limits.max_messages,
		.in = p->rings.tx_in,
		.n_in = p->rings.n_tx_in,
		.burst = (uint16_t)conf->tx_desc,
	};

	p->tx = stage_tx_create(&tc);
	if (p->tx == NULL)
		rte_exit(EXIT_FAILURE, "TX stage: err=%d, port=%u\n", -ENOMEM, p->ports[0]);
	pipeline_place(p, conf->lcores.tx, "tx", poll_tx, p->tx,
		       offsetof(struct spated_counters, cycles_tx));
}

static void tx_destroy(struct pipeline *p)
{
	stage_tx_destroy(p->tx);
}

static struct pipeline_stage tx_stage = {
	.name = "tx",
	.order = PIPELINE_ORDER_TX,
	.destroy_order = PIPELINE_DESTROY_TX,
	.create = tx_create,
	.destroy = tx_destroy,
};
PIPELINE_STAGE(tx_stage)
