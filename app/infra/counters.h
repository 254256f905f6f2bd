/* counters.h - every packet spated sees ends in exactly one counter (or
 * more when it is also answered), so drops are never silent.
 *
 * One X-macro lists the scalar counters: the struct and the JSON printer
 * come from it, so adding a reason is one line. Modules keep their own
 * lists (cluster_counters.h, match_counters.h, link_counters.h), spliced
 * in here. docs/counters.md documents every one (a test checks). Per-error-code counters
 * (indexed by enum spate_err) sit next to them.
 */
#ifndef SPATED_COUNTERS_H
#define SPATED_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

#include "cluster/cluster_counters.h"
#include "link/link_counters.h"
#include "match/match_counters.h"
#include "proto/spate_err.h"

/* The ports' own figures (rte_eth_stats summed over the ports) and the
 * af_packet kernel ring's: set, not counted, by the main lcore's
 * housekeeping (port_stats.h), so they sit in its block only. */
/* clang-format off */
#define SPATED_FOREACH_PORT_COUNTER(X)                                       \
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

/* clang-format off */
#define SPATED_FOREACH_COUNTER(X)                                            \
	X(polls)             /* iterations of the poll loop */               \
	X(busy_polls)        /* of which found frames */                     \
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
	X(udp_other_port)    /* UDP to a port we do not serve */             \
	X(dgrams)            /* Spate datagrams handed to the frame handler*/\
	X(bad_header)        /* Spate header refused: dropped, no reply */   \
	X(from_server)       /* datagrams with the server flag: ignored */   \
	X(auth_dropped)      /* unsigned/badly signed/replayed: see hdr_err */\
	X(messages)          /* messages read */                             \
	X(bad_messages)      /* messages refused (see bad_msg by code) */    \
	X(events)            /* EVENT messages matched */                    \
	X(matches)           /* (event, sub) pairs matched */                \
	X(sub_adds)          /* SUB_ADD accepted */                          \
	X(sub_dels)          /* SUB_DEL accepted */                          \
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
	X(tx_bursts)         /* rte_eth_tx_burst calls (af_packet: sendto) */\
	SPATED_FOREACH_PORT_COUNTER(X)                                       \
	X(ring_full_rx)      /* RX -> cluster ring full: datagram dropped */ \
	X(shed_events)       /* EVENT messages in those datagrams */        \
	X(overload_nacks)    /* OVERLOADED notices sent (1/client/100 ms) */\
	X(ring_full_tx)      /* -> TX ring full: frame dropped */          \
	X(ring_retry)        /* lossless ring full: kept in the backlog */ \
	X(backpressure)      /* cluster polls skipped: backlog too long */ \
	X(msg_no_memory)     /* message pool and heap empty: event part lost */\
	X(msg_heap)          /* pool empty: control message from the heap */\
	X(events_routed)     /* (event, category) pairs sent to matching */\
	X(cats_visited)      /* (event, category) pairs matched */         \
	X(parked)            /* messages held for a category in transit */ \
	X(rehomes_out)       /* categories handed to another lcore */     \
	X(rehomes_in)        /* categories received from another lcore */ \
	X(rehome_subs)       /* their subscriptions (DataTra, InNode) */  \
	X(merges)            /* categories merged into another */         \
	X(merges_between)    /* (cluster) merges decided across workers */ \
	X(merge_subs_in_node) /* (cluster) their subscriptions: merged on their worker */\
	X(merge_subs_between) /* (cluster) merged across: moved first (DataTra) */\
	X(move_subs)         /* (cluster) subscriptions of categories moved (balancing) */\
	X(cat_unknown)       /* sum of the cat_unknown_* causes below */\
	CLUSTER_FOREACH_COUNTER(X)                                           \
	MATCH_FOREACH_COUNTER(X)                                             \
	LINK_FOREACH_COUNTER(X)                                              \
	X(feedback_lost)     /* correlation feedback the ring did not take */\
	X(event_parts)       /* event messages a matching stage took */  \
	X(busy_cycles)       /* TSC cycles of polls that found work */      \
	X(match_cpu_ns)      /* thread CPU time of matching polls with work, ns */\
	X(cycles_rx)         /* of which in the RX stage */                 \
	X(cycles_cluster)    /* in the cluster stage */                     \
	X(cycles_match)      /* in matching stages */                       \
	X(cycles_tx)         /* in the TX stage */                          \
	X(rcu_slow)          /* RCU grace periods past spated.rcu_warn_ms */\
	X(rcu_resumed)       /* of which completed since (reclamation ran)*/\
	X(ctl_clients)       /* control socket connections served */       \
	X(ctl_busy)          /* connections refused: too many at once */    \
	X(ctl_timeouts)      /* cut: request or answer past its deadline */ \
	X(ctl_hangups)       /* gone before taking their answer */          \
	X(cycles_link)       /* in the inter-host link stage */            \
	X(peer_frames_in)    /* inter-host frames received */               \
	X(peer_bad)          /* refused by the codec (not acked: resent) */ \
	X(peer_unknown_host) /* from a host not among spated.peers */       \
	X(peer_stale)        /* from a host that is not a member now */     \
	X(peer_auth_fail)    /* a wrong tag or an unknown key: forged */     \
	X(peer_auth_addr)    /* not from the configured address of its host */\
	X(peer_auth_epoch)   /* naming another incarnation (a replay, a restart) */\
	X(peer_auth_old_key) /* accepted under the second key (a rotation) */\
	X(peer_dup)          /* a data frame seen before (resent, or replayed) */\
	X(peer_bad_ack)      /* acks of frames never sent */                \
	X(peer_frames_out)   /* inter-host frames put on the wire */        \
	X(peer_retransmits)  /* of which sent again */                      \
	X(peer_msgs_out)     /* inter-host messages queued */               \
	X(peer_msgs_in)      /* inter-host messages delivered */            \
	X(peer_window_full)  /* a channel's window was full: held back */   \
	X(peer_unsupported)  /* a message a match host cannot carry out */\
	X(peer_moves)        /* (front) categories moved between hosts */    \
	X(peer_handoff_subs) /* subscriptions shipped to another host (DataTra) */\
	X(peer_handoff_subs_in) /* subscriptions received from another host */\
	X(peer_handoff_bad)  /* a handoff whose count differs: a bug, logged */\
	X(peer_dropped_test) /* dropped on purpose (spated.peer_drop_ppm) */\
	X(peer_hosts_down)   /* peers whose ZooKeeper membership ended */   \
	X(peer_hosts_up)     /* peers that (re)joined with a new epoch */   \
	X(peer_down_dropped) /* messages for a dead peer, dropped */         \
	X(failover_cats)     /* (front) categories rebuilt on another host */\
	X(failover_subs)     /* (front) subscriptions sent for those rebuilds */\
	X(failover_us)       /* (front) time the last rebuild took, us */    \
	X(handoffs_abandoned) /* categories whose dead sender never finished */\
	X(rebuilt_after_move) /* categories rebuilt here after their MOVE to a host that died */\
	X(peer_relayed_out)  /* (front) client events relayed to the other fronts */\
	X(peer_relayed_in)   /* (front) events other fronts relayed here */\
	X(peer_backpressure) /* frames left unacknowledged: no room (resent later) */\
	X(handoffs_late)     /* a handoff abandoned for a dead host came after all */\
	X(zk_map_version)    /* the placement map's version in ZooKeeper (written or seen) */\
	X(zk_map_cats)       /* categories in it */\
	X(zk_map_writes)     /* (front) maps written */\
	X(idle_sleeps)       /* sleeps of an idle lcore (lcore_idle.h) */\
	X(front_cats_dropped) /* (match) categories of a front that left, dropped */\
	X(handoffs_stale)    /* handoffs of a front incarnation gone, discarded */\
	X(peer_hb_dead)      /* peers found dead by their silence (heartbeats) */\
	X(zk_rejoins)        /* ZooKeeper sessions expired and joined again */\
	X(zk_fences)         /* peers fenced in ZooKeeper (member node deleted) */\
	X(link_stalls)       /* link polls more than peer_hb_ms apart (not counted against peers) */\
	X(quorum_waits)      /* a silent peer not judged: this host hears no majority */\
	X(rebalances_up)     /* (front) load periods ended early: a match host came back */\
	X(repl_out)          /* (front) subscription changes copied to the other fronts */\
	X(repl_in)           /* (front) copies received from the other fronts */\
	X(repl_snapshots)    /* (front) whole copies sent to a front that came up */\
	X(repl_bad)          /* (front) a copy that does not add up: logged */\
	X(takeovers)         /* (front) dead fronts whose subscriptions came here */\
	X(adopted_subs)      /* (front) their subscriptions */\
	X(adopt_refused)     /* (front) of which refused (an id taken here already) */\
	X(garp_sent)         /* (front) gratuitous ARPs for service addresses */\
	X(peer_handshakes)   /* static peers: epochs bound by the handshake */\
	X(events_lost_host)  /* (front) events with a part in flight to a match host \
				when it died: sent, never confirmed matched (DONE) */
/* clang-format on */

struct spated_counters {
#define SPATED_COUNTER_FIELD(name) uint64_t name;
	SPATED_FOREACH_COUNTER(SPATED_COUNTER_FIELD)
#undef SPATED_COUNTER_FIELD
	/* Spate header refusals and message refusals, by enum spate_err. */
	uint64_t hdr_err[SPATE_E__COUNT];
	uint64_t msg_err[SPATE_E__COUNT];
};

/* One block of counters per lcore, each written by its own lcore only
 * (plain increments, no atomics: VPP's per-thread counters). Readers sum
 * the blocks; 64-bit loads are atomic on the machines DPDK runs on, so a
 * reader sees each counter at some recent value. `spated_cnt` names the
 * calling thread's block: spated_counters_bind() points it at the lcore's
 * own, and threads that never bind (the EAL's, unit tests) share a spare. */
#define SPATED_COUNTER_SLOTS 128 /* RTE_MAX_LCORE of Debian's DPDK build */

struct spated_counters_slot {
	struct spated_counters c;
} __attribute__((aligned(64)));

extern struct spated_counters_slot spated_cnt_slots[SPATED_COUNTER_SLOTS];
/* initial-exec: a plain %fs-relative load, not a __tls_get_addr call per
 * counter (the flags DPDK brings make this code PIC). */
extern __thread struct spated_counters *spated_cnt_self __attribute__((tls_model("initial-exec")));
#define spated_cnt (*spated_cnt_self)

/* One message for a category that is not where it should be, counted by
 * its cause (cat_unknown_*) and in the sum operators watch (cat_unknown,
 * 0 in a healthy run). Evaluates to the cause's count before. */
#define SPATED_CAT_UNKNOWN(cause) (spated_cnt.cat_unknown++, spated_cnt.cause++)

/* Make `spated_cnt` this thread's block for lcore `lcore_id`. */
void spated_counters_bind(unsigned int lcore_id);
/* Sum of every lcore's block into *out. */
void spated_counters_sum(struct spated_counters *out);

/* One JSON object on one line, then flush:
 * {"spated":"counters","uptime_s":N,"rx":N,...,"hdr_err":{"BAD_MAGIC":N},
 *  "msg_err":{...},"lcores":{"1":{"rx":N,...},...}} - the totals first,
 * then each lcore's non-zero counters (error maps list non-zero codes).
 * extra (may be NULL) adds ",\"key\":value" members before "lcores". */
void spated_counters_print(FILE *f, double uptime_s, void (*extra)(FILE *f));

#endif
