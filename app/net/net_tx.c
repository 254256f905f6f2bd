/* net_tx.c - UDP frames from payloads (net.h).
 *
 * Unknown next-hop MAC: the finished frame is held (neigh.h: a few per
 * host, a bounded number in all) and an ARP request goes out (rate
 * limited per address); the answer releases it. A host that does not
 * answer within NEIGH_MAX_AGE_S has its frames dropped, counted as
 * arp_unresolved; a frame that cannot be held is dropped, counted as
 * no_neighbour. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_udp.h>

#include "infra/counters.h"
#include "net/net.h"
#include "link/svc_addr.h"

#define NEIGH_MAX_AGE_S 3 /* three requests, a second apart */

void net_tx_queue(struct net *n, struct rte_mbuf *m)
{
	n->emit(n->ctx, m);
}

static uint32_t next_hop(const struct net *n, uint32_t dst)
{
	return n->gw != 0 && ((dst ^ n->ip) & n->mask) != 0 ? n->gw : dst;
}

void net_udp_output(struct net *n, struct rte_mbuf *m, struct spate_dest to)
{
	net_udp_output_from(n, m, n->udp_port, to);
}

void net_udp_output_from(struct net *n, struct rte_mbuf *m, uint16_t src_port, struct spate_dest to)
{
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	size_t len = rte_pktmbuf_data_len(m);
	const size_t hdrs = sizeof(*eth) + sizeof(*ip) + sizeof(*udp);

	/* Only unicast destinations other than ourselves can be reached. */
	if (to.ipv4 == 0 || to.ipv4 == n->ip || (to.ipv4 >> 28) >= 14) {
		spated_cnt.no_neighbour++;
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

	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + sizeof(*udp) + len));
	ip->packet_id = rte_cpu_to_be_16(n->ip_id++);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	uint32_t from = src_port == n->udp_port ? svc_addr_src_for(to.ipv4, to.port) : 0;
	ip->src_addr = rte_cpu_to_be_32(from != 0 ? from : n->ip);
	ip->dst_addr = rte_cpu_to_be_32(to.ipv4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);

	udp->src_port = rte_cpu_to_be_16(src_port);
	udp->dst_port = rte_cpu_to_be_16(to.port);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + len));
	udp->dgram_cksum = 0;
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);

	uint32_t hop = next_hop(n, to.ipv4);
	uint16_t port;
	const struct rte_ether_addr *mac = neigh_lookup(&n->neigh, hop, &port);
	if (mac != NULL) {
		eth->dst_addr = *mac;
		eth->src_addr = n->macs[net_port_index(n, port)];
		m->port = port;
		net_tx_queue(n, m);
		return;
	}
	if (neigh_want_request(&n->neigh, hop, rte_get_tsc_cycles(), n->arp_gap))
		net_arp_request(n, hop);
	if (neigh_hold(&n->neigh, hop, m)) {
		spated_cnt.arp_held++;
		return;
	}
	spated_cnt.no_neighbour++;
	rte_pktmbuf_free(m);
}

void net_neigh_learned(struct net *n, uint32_t ip, const struct rte_ether_addr *mac, uint16_t port)
{
	void *held[NEIGH_HOLD];
	unsigned int k = neigh_take_held(&n->neigh, ip, held);

	for (unsigned int i = 0; i < k; i++) {
		struct rte_mbuf *m = held[i];
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		eth->dst_addr = *mac;
		eth->src_addr = n->macs[net_port_index(n, port)];
		m->port = port;
		spated_cnt.arp_released++;
		net_tx_queue(n, m);
	}
}

void net_neigh_expire(struct net *n)
{
	neigh_expire(&n->neigh, rte_get_tsc_cycles(), NEIGH_MAX_AGE_S * rte_get_tsc_hz());
}
