/* net_tx.c - building UDP frames and the TX queue (net.h).
 *
 * Unknown destination MAC: we send an ARP request (rate limited per
 * address, neigh.h) and drop the datagram, counted as no_neighbour. We do
 * not queue: a client that talks to us is learned from its own frames
 * before we answer it, so only notifications to third-party destinations
 * can miss, and only their first datagrams; holding mbufs for an
 * unanswered ARP would let a bad destination eat the pool. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_udp.h>

#include "counters.h"
#include "net.h"

void net_tx_flush(struct net *n)
{
	uint16_t sent = 0;

	/* A few tries: af_packet takes less than a burst when its ring is
	 * momentarily full. Then give up: never block the poll loop. */
	for (int tries = 0; tries < 4 && sent < n->n_tx; tries++)
		sent += rte_eth_tx_burst(n->port_id, 0, n->tx + sent, n->n_tx - sent);
	spated_cnt.tx += sent;
	for (uint16_t i = sent; i < n->n_tx; i++) {
		spated_cnt.tx_drops++;
		spated_cnt.tx_bytes -= rte_pktmbuf_pkt_len(n->tx[i]);
		rte_pktmbuf_free(n->tx[i]);
	}
	n->n_tx = 0;
}

void net_tx_queue(struct net *n, struct rte_mbuf *m)
{
	/* Counted now: after tx_burst the mbuf is no longer ours to read. */
	spated_cnt.tx_bytes += rte_pktmbuf_pkt_len(m);
	n->tx[n->n_tx++] = m;
	if (n->n_tx == NET_TX_BURST)
		net_tx_flush(n);
}

void net_udp_send(void *ctx, struct spate_dest to, const void *buf, size_t len)
{
	struct net *n = ctx;
	const struct rte_ether_addr *mac;
	struct rte_mbuf *m;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	size_t total = sizeof(*eth) + sizeof(*ip) + sizeof(*udp) + len;

	/* Only unicast destinations other than ourselves can be reached. */
	if (to.ipv4 == 0 || to.ipv4 == n->ip || (to.ipv4 >> 28) >= 14 ||
	    (mac = neigh_lookup(&n->neigh, to.ipv4)) == NULL) {
		spated_cnt.no_neighbour++;
		if (to.ipv4 != 0 && to.ipv4 != n->ip && (to.ipv4 >> 28) < 14 &&
		    neigh_want_request(&n->neigh, to.ipv4, rte_get_tsc_cycles(), n->arp_gap))
			net_arp_request(n, to.ipv4);
		return;
	}
	m = rte_pktmbuf_alloc(n->mp);
	if (m == NULL) {
		spated_cnt.no_mbuf++;
		return;
	}
	eth = total <= UINT16_MAX ? (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)total) : NULL;
	if (eth == NULL) {
		spated_cnt.no_mbuf++; /* larger than an mbuf: cannot happen with mtu checked */
		rte_pktmbuf_free(m);
		return;
	}
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	udp = (struct rte_udp_hdr *)(ip + 1);

	eth->dst_addr = *mac;
	eth->src_addr = n->mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(total - sizeof(*eth)));
	ip->packet_id = rte_cpu_to_be_16(n->ip_id++);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(n->ip);
	ip->dst_addr = rte_cpu_to_be_32(to.ipv4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);

	udp->src_port = rte_cpu_to_be_16(n->udp_port);
	udp->dst_port = rte_cpu_to_be_16(to.port);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + len));
	udp->dgram_cksum = 0;
	memcpy(udp + 1, buf, len);
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);

	net_tx_queue(n, m);
}
