/* net_counters.h - the net module's own counters, one cause each
 * (spliced into SPATED_FOREACH_COUNTER, infra/counters.h): what the RX
 * side makes of frames, what the TX side sends, and the ports' own
 * figures. */
#ifndef SPATED_NET_COUNTERS_H
#define SPATED_NET_COUNTERS_H

/* The RX side: frames parsed down to Spate datagrams (net_rx.c,
 * net_arp_icmp.c). */
/* clang-format off */
#define NET_FOREACH_RX_COUNTER(X)                                       \
	X(rx)                /* frames received */                           \
	X(rx_bytes)          /* their bytes (Ethernet header included) */    \
	X(rx_multiseg)       /* chained mbufs: not handled, dropped */       \
	X(rx_runt)           /* shorter than an Ethernet header */           \
	X(rx_other_mac)      /* unicast to another MAC */                    \
	X(rx_other_ethertype)/* neither ARP nor IPv4 (IPv6, VLAN, ...) */    \
	X(arp_requests)      /* ARP requests for our address */              \
	X(arp_replies)       /* ARP replies we sent */                       \
	X(arp_learned)       /* ARP replies to us (answers to our requests)*/\
	X(arp_other)         /* ARP not for us, or malformed */              \
	X(arp_sent)          /* ARP requests we sent (unknown neighbour) */  \
	X(ip_bad_header)     /* version, IHL or total length wrong */        \
	X(ip_bad_csum)       /* IPv4 header checksum wrong */                \
	X(ip_fragment)       /* MF set or offset != 0: not reassembled */    \
	X(ip_over_mtu)       /* longer than spated.mtu: kernel-reassembled */\
	X(ip_truncated)      /* IP length beyond the frame: cut short */     \
	X(ip_not_ours)       /* destination is not our address */            \
	X(ip_other_proto)    /* neither ICMP nor UDP */                      \
	X(icmp_echo)         /* echo requests answered */                    \
	X(icmp_bad)          /* short or bad ICMP checksum */                \
	X(icmp_other)        /* ICMP other than echo request */              \
	X(udp_bad_len)       /* UDP length disagrees with the IP length */   \
	X(udp_bad_csum)      /* non-zero UDP checksum that does not verify */\
	X(udp_bad_src)       /* from 0.0.0.0, multicast or broadcast */      \
	X(udp_other_port)    /* UDP to a port we do not serve */
/* clang-format on */

/* The TX side: notifications, ACKs and NACKs built (notify.c), next
 * hops resolved (net_tx.c, neigh.c), frames sent (stage_tx.c). */
/* clang-format off */
#define NET_FOREACH_TX_COUNTER(X)                                       \
	X(notifications)     /* (event, sub) pairs put into NOTIFY messages */\
	X(notify_msgs)       /* NOTIFY messages */                           \
	X(notify_dgrams)     /* datagrams carrying NOTIFY messages */        \
	X(acks)              /* ACK messages sent */\
	X(nacks)             /* NACK messages sent (see msg_err by code) */\
	X(receiver_evicted)  /* receiver table full: oldest entry reused */  \
	X(no_neighbour)      /* datagram dropped: no address, or no room to hold it */ \
	X(arp_held)          /* datagrams held while ARP resolved their next hop */ \
	X(arp_released)      /* of which sent once the answer came */          \
	X(arp_unresolved)    /* of which dropped: no answer, or entry reused */ \
	X(no_mbuf)           /* mbuf pool empty when building a frame */     \
	X(tx)                /* frames sent */                               \
	X(tx_bytes)          /* their bytes (Ethernet header included) */\
	X(tx_drops)          /* frames the port did not take: freed */   \
	X(tx_bursts)         /* rte_eth_tx_burst calls (af_packet: sendto) */
/* clang-format on */

/* The ports' own figures (rte_eth_stats summed over the ports) and the
 * af_packet kernel ring's: set, not counted, by the main lcore's
 * housekeeping (port_stats.h), so they sit in its block only. */
/* clang-format off */
#define SPATED_FOREACH_PORT_COUNTER(X)                                  \
	X(port_ipackets)     /* frames the ports received (rte_eth_stats) */\
	X(port_imissed)      /* frames the ports dropped: RX queue full */\
	X(port_ierrors)      /* frames the ports received in error */\
	X(port_rx_nombuf)    /* frames dropped: no mbuf for the RX ring */\
	X(port_opackets)     /* frames the ports sent */\
	X(port_oerrors)      /* frames the ports failed to send */\
	X(port_kernel_drops) /* af_packet: frames the kernel's ring dropped */ \
	X(port_kernel_packets) /* af_packet: frames the kernel offered it */ \
	X(port_kernel_reasm_ok) /* af_packet: datagrams the kernel reassembled */\
	X(port_kernel_reasm_fails) /* af_packet: fragments it gave up on */
/* clang-format on */

#endif
