/* net_arp_icmp.c - ARP (answer for our address, learn, ask) and ICMP echo.
 * Replies are built in the received mbuf: no allocation on these paths. */
#include <string.h>

#include <rte_arp.h>
#include <rte_icmp.h>

#include "infra/counters.h"
#include "net/net.h"
#include "link/svc_addr.h"

void net_arp_input(struct net *n, struct rte_mbuf *m, size_t len)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eth + 1);

	if (len < sizeof(*eth) + sizeof(*a) ||
	    a->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    a->arp_hlen != RTE_ETHER_ADDR_LEN || a->arp_plen != 4) {
		spated_cnt.arp_other++;
		goto drop;
	}
	uint32_t sip = rte_be_to_cpu_32(a->arp_data.arp_sip);
	uint32_t tip = rte_be_to_cpu_32(a->arp_data.arp_tip);
	uint16_t op = rte_be_to_cpu_16(a->arp_opcode);

	if (tip != n->ip && !svc_addr_has(tip)) {
		spated_cnt.arp_other++;
		goto drop;
	}
	/* The sender asked us or answered us: either way it is our
	 * neighbour and about to talk to us. */
	/* A reply answers a request of TX, which may have forgotten an
	 * address this table still knows (the tables age apart): it is
	 * passed on even when it is no news here. */
	if (sip != 0 && rte_is_unicast_ether_addr(&a->arp_data.arp_sha))
		net_learn(n, sip, &a->arp_data.arp_sha, op == RTE_ARP_OP_REPLY);

	if (op == RTE_ARP_OP_REPLY) {
		spated_cnt.arp_learned++;
		goto drop;
	}
	if (op != RTE_ARP_OP_REQUEST) {
		spated_cnt.arp_other++;
		goto drop;
	}
	spated_cnt.arp_requests++;
	/* Turn the request around: target = the asker, sender = us (the
	 * address asked for: ours, or a service address we serve). */
	a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	a->arp_data.arp_tha = a->arp_data.arp_sha;
	a->arp_data.arp_tip = a->arp_data.arp_sip;
	a->arp_data.arp_sha = n->mac;
	a->arp_data.arp_sip = rte_cpu_to_be_32(tip);
	eth->dst_addr = a->arp_data.arp_tha;
	eth->src_addr = n->mac;
	spated_cnt.arp_replies++;
	net_tx_queue(n, m);
	return;
drop:
	rte_pktmbuf_free(m);
}

struct rte_mbuf *net_arp_frame(struct rte_mempool *mp, uint16_t port,
			       const struct rte_ether_addr *mac, uint32_t sip, uint32_t tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *a;

	if (m == NULL) {
		spated_cnt.no_mbuf++;
		return NULL;
	}
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*a));
	if (eth == NULL) {
		spated_cnt.no_mbuf++;
		rte_pktmbuf_free(m);
		return NULL;
	}
	a = (struct rte_arp_hdr *)(eth + 1);
	memset(&eth->dst_addr, 0xff, sizeof(eth->dst_addr));
	eth->src_addr = *mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	a->arp_data.arp_sha = *mac;
	a->arp_data.arp_sip = rte_cpu_to_be_32(sip);
	memset(&a->arp_data.arp_tha, 0, sizeof(a->arp_data.arp_tha));
	m->port = port;
	a->arp_data.arp_tip = rte_cpu_to_be_32(tip);
	return m;
}

static void arp_request_on(struct net *n, uint16_t port, const struct rte_ether_addr *mac,
			   uint32_t ip)
{
	struct rte_mbuf *m = net_arp_frame(n->mp, port, mac, n->ip, ip);

	if (m == NULL)
		return;
	spated_cnt.arp_sent++;
	net_tx_queue(n, m);
}

void net_arp_request(struct net *n, uint32_t ip)
{
	for (uint16_t i = 0; i < n->n_ports; i++)
		arp_request_on(n, n->ports[i], &n->macs[i], ip);
}

void net_icmp_input(struct net *n, struct rte_mbuf *m, struct rte_ipv4_hdr *ip, size_t ip_len)
{
	size_t ihl = rte_ipv4_hdr_len(ip), icmp_len = ip_len - ihl;
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	if (icmp_len < sizeof(*icmp) || rte_raw_cksum(icmp, icmp_len) != 0xffff) {
		spated_cnt.icmp_bad++;
		goto drop;
	}
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || icmp->icmp_code != 0) {
		spated_cnt.icmp_other++;
		goto drop;
	}
	/* Echo reply in place: same identifier, sequence and data, from the
	 * address asked (ours or a service address). */
	rte_be32_t asked = ip->dst_addr;
	eth->dst_addr = eth->src_addr;
	eth->src_addr = n->mac;
	ip->dst_addr = ip->src_addr;
	ip->src_addr = asked;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, icmp_len);
	/* Drop Ethernet padding the request may have carried. */
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - sizeof(*eth) - ip_len));
	spated_cnt.icmp_echo++;
	net_tx_queue(n, m);
	return;
drop:
	rte_pktmbuf_free(m);
}
