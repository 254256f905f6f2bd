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

#include "net/neigh.h"
#include "proto/spate_types.h"

#define NET_TX_BURST 32
#define NET_PORTS_MAX 4 /* ports spated is on (spated.port.device list) */

/* A UDP payload for our port: buf/len inside m. The callee owns m. */
typedef void (*net_udp_fn)(void *ctx, struct rte_mbuf *m, const uint8_t *buf, size_t len,
			   struct spate_dest src);
/* A finished frame to send; the callee owns m. */
typedef void (*net_emit_fn)(void *ctx, struct rte_mbuf *m);
/* A neighbour learned or changed (RX tells TX; see stage_rx.c). */
typedef void (*net_learn_fn)(void *ctx, uint32_t ip, const struct rte_ether_addr *mac);

struct net {
	uint16_t port_id;
	struct rte_mempool *mp;
	struct rte_ether_addr mac;
	/* Every port and its MAC (TX sends on all; RX has its own only):
	 * ports[0], macs[0] are port_id, mac. */
	uint16_t n_ports;
	uint16_t ports[NET_PORTS_MAX];
	struct rte_ether_addr macs[NET_PORTS_MAX];
	uint32_t ip; /* host order */
	uint16_t udp_port;
	uint16_t mtu; /* longest IP packet taken in (0: any) */
	uint16_t ip_id;
	uint64_t arp_gap; /* tsc cycles between ARP requests for one address */
	/* Next hop: a destination outside ip/mask goes to the gateway's MAC
	 * (gw 0: every destination is on the link, asked for by ARP). */
	uint32_t mask, gw;
	struct neigh_table neigh;
	net_udp_fn on_udp;
	net_emit_fn emit;
	net_learn_fn on_learn; /* may be NULL */
	/* Inter-host frames (docs/multihost.md): UDP to peer_port go to
	 * on_peer instead (0 / NULL: none, a single box). */
	uint16_t peer_port;
	net_udp_fn on_peer;
	/* The next stage cannot take a datagram now (its ring is full): UDP
	 * to udp_port goes to on_shed before its checksum is summed, so an
	 * overloaded lcore spends nothing on what it drops anyway (on_shed
	 * may check it with net_shed_cksum_ok when it answers). ARP, ping
	 * and inter-host frames are still served. */
	bool shed_udp;
	net_udp_fn on_shed;
	void *ctx;
};

/* The callbacks are set by the caller after net_init. */
void net_init(struct net *n, uint16_t port_id, struct rte_mempool *mp,
	      const struct rte_ether_addr *mac, uint32_t ip, uint16_t udp_port);

/* net_rx.c: one received frame; always consumes m. */
void net_rx(struct net *n, struct rte_mbuf *m);

/* For a datagram on_shed was given (buf, len: its UDP payload in m):
 * does its UDP checksum verify (or is there none)? */
bool net_shed_cksum_ok(struct rte_mbuf *m, const uint8_t *buf, size_t len);

/* net_arp_icmp.c: ARP frame (len bytes from eth), ICMP in an IPv4
 * packet of ip_len bytes; both consume m. */
void net_arp_input(struct net *n, struct rte_mbuf *m, size_t len);
void net_icmp_input(struct net *n, struct rte_mbuf *m, struct rte_ipv4_hdr *ip, size_t ip_len);
/* Ask for ip's MAC on every port. */
void net_arp_request(struct net *n, uint32_t ip);
/* A broadcast ARP request from sip for tip out of `port` (mac); with
 * sip == tip a gratuitous ARP, which tells the link that sip is at mac
 * now (a service address taken over). NULL (counted) on no mbuf. */
struct rte_mbuf *net_arp_frame(struct rte_mempool *mp, uint16_t port,
			       const struct rte_ether_addr *mac, uint32_t sip, uint32_t tip);
/* The index of `port` in n->ports (0, the first port, when it is not one
 * of n's ports). */
static inline uint16_t net_port_index(const struct net *n, uint16_t port)
{
	for (uint16_t i = 0; i < n->n_ports; i++)
		if (n->ports[i] == port)
			return i;
	return 0;
}

/* Learn ip -> mac from a frame addressed to us, telling on_learn when
 * it is news (or always, with tell_anyway). */
void net_learn(struct net *n, uint32_t ip, const struct rte_ether_addr *mac, bool tell_anyway);

/* net_tx.c: make m, whose data is a UDP payload, a frame from our port to
 * `to` (headers prepended in its headroom, checksums computed) and emit
 * it; consumes m. When the next hop's MAC is not known yet the frame is
 * held and an ARP request goes out (neigh.h); net_neigh_learned sends it
 * once the answer comes. */
void net_udp_output(struct net *n, struct rte_mbuf *m, struct spate_dest to);
/* The same from another local port (inter-host frames leave from the
 * port they are received on: peers check it). */
void net_udp_output_from(struct net *n, struct rte_mbuf *m, uint16_t src_port,
			 struct spate_dest to);
/* ip -> mac behind port learned (TX's table): send what was held for it. */
void net_neigh_learned(struct net *n, uint32_t ip, const struct rte_ether_addr *mac, uint16_t port);
/* Drop what waited too long for an ARP answer (call now and then). */
void net_neigh_expire(struct net *n);
/* Hand a finished frame to n->emit. */
void net_tx_queue(struct net *n, struct rte_mbuf *m);

#endif
