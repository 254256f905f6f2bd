/* net.h - the small IPv4 host spated is on its port: Ethernet, ARP, IPv4,
 * ICMP echo and UDP, enough for clients on the same link to reach the
 * Spate service and for `ping` to work. Checksums are computed and
 * checked in software: vdevs such as net_af_packet offer no offloads.
 *
 * Every frame given to net_rx ends in a counter (counters.h) and is either
 * answered in place (ARP, ICMP), or its UDP payload is handed to on_udp
 * and the mbuf freed. Data-path errors are never fatal.
 */
#ifndef SPATED_NET_H
#define SPATED_NET_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "neigh.h"
#include "spate_types.h"

#define NET_TX_BURST 32

/* A UDP payload for our port; buf lives until the callback returns. */
typedef void (*net_udp_fn)(void *ctx, const uint8_t *buf, size_t len, struct spate_dest src);

struct net {
	uint16_t port_id;
	struct rte_mempool *mp;
	struct rte_ether_addr mac;
	uint32_t ip;         /* host order */
	uint16_t udp_port;
	uint16_t ip_id;
	uint64_t arp_gap;    /* tsc cycles between ARP requests for one address */
	struct neigh_table neigh;
	net_udp_fn on_udp;
	void *ctx;
	uint16_t n_tx;
	struct rte_mbuf *tx[NET_TX_BURST];
};

void net_init(struct net *n, uint16_t port_id, struct rte_mempool *mp,
	      const struct rte_ether_addr *mac, uint32_t ip, uint16_t udp_port,
	      net_udp_fn on_udp, void *ctx);

/* net_rx.c: one received frame; always consumes m. */
void net_rx(struct net *n, struct rte_mbuf *m);

/* net_arp_icmp.c: ARP frame (len bytes from eth), ICMP in an IPv4
 * packet of ip_len bytes; both consume m. */
void net_arp_input(struct net *n, struct rte_mbuf *m, size_t len);
void net_icmp_input(struct net *n, struct rte_mbuf *m, struct rte_ipv4_hdr *ip, size_t ip_len);
void net_arp_request(struct net *n, uint32_t ip);

/* net_tx.c: a UDP datagram from our port to `to` (copies buf). Has the
 * spated_send_fn signature (notify.h); ctx is the struct net. */
void net_udp_send(void *ctx, struct spate_dest to, const void *buf, size_t len);
/* Queue a finished frame; sent by net_tx_flush or when the queue fills. */
void net_tx_queue(struct net *n, struct rte_mbuf *m);
void net_tx_flush(struct net *n);

#endif
