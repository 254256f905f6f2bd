/* net_tx.c - UDP frames from payloads (net.h).
 *
 * Unknown destination MAC: we send an ARP request (rate limited per
 * address, neigh.h) and drop the datagram, counted as no_neighbour. We do
 * not queue: a client that talks to us is learned from its own frames
 * before we answer it, so only notifications to third-party destinations
 * can miss, and only their first datagrams; holding mbufs for an
 * unanswered ARP would let a bad destination eat the pool. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_udp.h>

#include "counters.h"
#include "net.h"

void net_tx_queue(struct net *n, struct rte_mbuf *m)
{
	n->emit(n->ctx, m);
}

void net_udp_output(struct net *n, struct rte_mbuf *m, struct spate_dest to)
{
	const struct rte_ether_addr *mac;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	size_t len = rte_pktmbuf_data_len(m);
	const size_t hdrs = sizeof(*eth) + sizeof(*ip) + sizeof(*udp);

	/* Only unicast destinations other than ourselves can be reached. */
	if (to.ipv4 == 0 || to.ipv4 == n->ip || (to.ipv4 >> 28) >= 14 ||
	    (mac = neigh_lookup(&n->neigh, to.ipv4)) == NULL) {
		spated_cnt.no_neighbour++;
		if (to.ipv4 != 0 && to.ipv4 != n->ip && (to.ipv4 >> 28) < 14 &&
		    neigh_want_request(&n->neigh, to.ipv4, rte_get_tsc_cycles(), n->arp_gap))
			net_arp_request(n, to.ipv4);
		rte_pktmbuf_free(m);
		return;
	}
	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, (uint16_t)hdrs);
	if (eth == NULL) {
		spated_cnt.no_mbuf++; /* no headroom: the builder reserves it */
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
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + sizeof(*udp) + len));
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
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);

	net_tx_queue(n, m);
}
