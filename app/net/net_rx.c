/* net_rx.c - Ethernet and IPv4/UDP input (net.h). */
#include <string.h>

#include <rte_cycles.h>
#include <rte_udp.h>

#include "infra/counters.h"
#include "net/net.h"
#include "link/svc_addr.h"

void net_init(struct net *n, uint16_t port_id, struct rte_mempool *mp,
	      const struct rte_ether_addr *mac, uint32_t ip, uint16_t udp_port)
{
	memset(n, 0, sizeof(*n));
	n->port_id = port_id;
	n->mp = mp;
	n->mac = *mac;
	n->ip = ip;
	n->udp_port = udp_port;
	n->arp_gap = rte_get_tsc_hz(); /* one request a second per address */
	n->n_ports = 1;
	n->ports[0] = port_id;
	n->macs[0] = *mac;
}

void net_learn(struct net *n, uint32_t ip, const struct rte_ether_addr *mac, bool tell_anyway)
{
	if ((neigh_learn(&n->neigh, ip, mac, n->port_id) || tell_anyway) && n->on_learn)
		n->on_learn(n->ctx, ip, mac);
}

static int is_unicast_ipv4(uint32_t ip)
{
	return ip != 0 && (ip >> 28) < 14; /* not 0.0.0.0, not multicast/class E */
}

/* Does the UDP checksum verify? Sum of pseudo-header and datagram,
 * checksum field included, is 0xffff when it does. (Done by hand: the
 * DPDK helper for this is still experimental API in 22.11.) */
static int udp_cksum_ok(const struct rte_ipv4_hdr *ip, const struct rte_udp_hdr *udp,
			size_t udp_len)
{
	uint32_t sum = (uint32_t)rte_raw_cksum(udp, udp_len) + rte_ipv4_phdr_cksum(ip, 0);

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

bool net_shed_cksum_ok(struct rte_mbuf *m, const uint8_t *buf, size_t len)
{
	/* udp_input's frame: Ethernet, IPv4, UDP, then buf */
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)buf - 1;

	return udp->dgram_cksum == 0 || udp_cksum_ok(ip, udp, len + sizeof(*udp));
}

static void udp_input(struct net *n, struct rte_mbuf *m, struct rte_ipv4_hdr *ip, size_t ip_len)
{
	size_t ihl = rte_ipv4_hdr_len(ip);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)((uint8_t *)ip + ihl);

	/* The UDP length must be the IP payload length exactly: the
	 * checksum (pseudo-header) and the Spate header both rely on it. */
	if (ip_len - ihl < sizeof(*udp) || rte_be_to_cpu_16(udp->dgram_len) != ip_len - ihl) {
		spated_cnt.udp_bad_len++;
		goto drop;
	}
	uint16_t dport = rte_be_to_cpu_16(udp->dst_port);
	net_udp_fn deliver = n->on_udp;
	struct spate_dest src = {
		.ipv4 = rte_be_to_cpu_32(ip->src_addr),
		.port = rte_be_to_cpu_16(udp->src_port),
	};
	/* Nobody can be answered at 0.0.0.0 or a group address, and inside
	 * spated a source of 0 means "replayed from the journal": such a
	 * datagram would skip the rate limit and the journal. */
	if (!is_unicast_ipv4(src.ipv4)) {
		spated_cnt.udp_bad_src++;
		goto drop;
	}
	if (n->peer_port != 0 && dport == n->peer_port && n->on_peer != NULL) {
		deliver = n->on_peer;
	} else if (dport != n->udp_port) {
		spated_cnt.udp_other_port++;
		goto drop;
	} else if (n->shed_udp) {
		n->on_shed(n->ctx, m, (const uint8_t *)(udp + 1), ip_len - ihl - sizeof(*udp), src);
		return;
	}
	/* 0 = the sender did not compute one (allowed for UDP over IPv4). */
	if (udp->dgram_cksum != 0 && !udp_cksum_ok(ip, udp, ip_len - ihl)) {
		spated_cnt.udp_bad_csum++;
		goto drop;
	}
	if (deliver != n->on_peer) {
		uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
		svc_addr_note(src.ipv4, src.port, dst == n->ip ? 0 : dst);
	}
	deliver(n->ctx, m, (const uint8_t *)(udp + 1), ip_len - ihl - sizeof(*udp), src);
	return;
drop:
	rte_pktmbuf_free(m);
}

/* An inter-host frame? Its source address is not believed before the
 * link stage has checked its tag: a forged one must not redirect this
 * host's frames to its peer (peers are learned by ARP instead). */
static int to_peer_port(const struct net *n, const struct rte_ipv4_hdr *ip, size_t tot)
{
	size_t ihl = rte_ipv4_hdr_len(ip);

	if (n->peer_port == 0 || ip->next_proto_id != IPPROTO_UDP ||
	    tot < ihl + sizeof(struct rte_udp_hdr))
		return 0;
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)((const uint8_t *)ip + ihl);
	return rte_be_to_cpu_16(udp->dst_port) == n->peer_port;
}

static void ipv4_input(struct net *n, struct rte_mbuf *m, struct rte_ether_hdr *eth, size_t len)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	size_t l3 = len - sizeof(*eth), ihl, tot;

	if (l3 < sizeof(*ip) || (ip->version_ihl >> 4) != 4 ||
	    (ihl = rte_ipv4_hdr_len(ip)) < sizeof(*ip) || ihl > l3) {
		spated_cnt.ip_bad_header++;
		goto drop;
	}
	/* A header with a correct checksum sums to 0xffff, itself included. */
	if (rte_raw_cksum(ip, ihl) != 0xffff) {
		spated_cnt.ip_bad_csum++;
		goto drop;
	}
	/* Shorter than the frame is fine (Ethernet pads to 60 bytes). */
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl) {
		spated_cnt.ip_bad_header++;
		goto drop;
	}
	/* Longer than the frame: cut short on the way. On af_packet, a
	 * datagram the kernel reassembled past the ring's frame size. */
	if (tot > l3) {
		spated_cnt.ip_truncated++;
		goto drop;
	}
	/* No reassembly: a Spate datagram always fits one frame. */
	if (rte_be_to_cpu_16(ip->fragment_offset) &
	    (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		spated_cnt.ip_fragment++;
		goto drop;
	}
	/* Whole, yet longer than the MTU: fragments the kernel put together
	 * (net_af_packet asks it to). Dropped like the fragments a NIC
	 * would hand us, so the limit (mtu - 28 bytes a datagram) is the
	 * same on every port. */
	if (n->mtu != 0 && tot > n->mtu) {
		spated_cnt.ip_over_mtu++;
		goto drop;
	}
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	if (dst != n->ip && !svc_addr_has(dst)) {
		spated_cnt.ip_not_ours++;
		goto drop;
	}
	/* The frame's source MAC is how to reach its source address: the
	 * host itself on our link, or the router it came through. */
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	if (is_unicast_ipv4(src) && rte_is_unicast_ether_addr(&eth->src_addr) &&
	    !to_peer_port(n, ip, tot))
		net_learn(n, src, &eth->src_addr, false);

	switch (ip->next_proto_id) {
	case IPPROTO_ICMP:
		net_icmp_input(n, m, ip, tot);
		return;
	case IPPROTO_UDP:
		udp_input(n, m, ip, tot);
		return;
	default:
		spated_cnt.ip_other_proto++;
	}
drop:
	rte_pktmbuf_free(m);
}

void net_rx(struct net *n, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth;
	size_t len = rte_pktmbuf_data_len(m);

	spated_cnt.rx++;
	spated_cnt.rx_bytes += rte_pktmbuf_pkt_len(m);
	/* Chains only come with jumbo frames and scattered RX, which we do
	 * not configure; parsing assumes one contiguous segment. */
	if (m->nb_segs != 1) {
		spated_cnt.rx_multiseg++;
		goto drop;
	}
	if (len < sizeof(*eth)) {
		spated_cnt.rx_runt++;
		goto drop;
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (rte_is_unicast_ether_addr(&eth->dst_addr) &&
	    !rte_is_same_ether_addr(&eth->dst_addr, &n->mac)) {
		spated_cnt.rx_other_mac++;
		goto drop;
	}
	switch (rte_be_to_cpu_16(eth->ether_type)) {
	case RTE_ETHER_TYPE_ARP:
		net_arp_input(n, m, len);
		return;
	case RTE_ETHER_TYPE_IPV4:
		ipv4_input(n, m, eth, len);
		return;
	default:
		spated_cnt.rx_other_ethertype++;
	}
drop:
	rte_pktmbuf_free(m);
}
