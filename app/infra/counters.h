/* counters.h - every packet spated sees ends in exactly one counter (or
 * more when it is also answered), so drops are never silent.
 *
 * One X-macro lists the scalar counters: the struct and the JSON printer
 * come from it, so adding a reason is one line. Modules keep their own
 * lists (net_counters.h, cluster_counters.h, match_counters.h,
 * link_counters.h, control_counters.h), spliced in here. docs/counters.md
 * documents every one (a test checks). Per-error-code counters
 * (indexed by enum spate_err) sit next to them.
 */
#ifndef SPATED_COUNTERS_H
#define SPATED_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

#include "cluster/cluster_counters.h"
#include "control/control_counters.h"
#include "link/link_counters.h"
#include "match/match_counters.h"
#include "net/net_counters.h"
#include "proto/spate_err.h"

/* clang-format off */
#define SPATED_FOREACH_COUNTER(X)                                            \
	X(polls)             /* iterations of the poll loop */               \
	X(busy_polls)        /* of which found frames */                     \
	NET_FOREACH_RX_COUNTER(X)                                            \
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
	NET_FOREACH_TX_COUNTER(X)                                            \
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
	CONTROL_FOREACH_COUNTER(X)                                           \
	X(cycles_link)       /* in the inter-host link stage */            \
	LINK_FOREACH_PEER_COUNTER(X)                                         \
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
				when it died: sent or waiting, never confirmed matched (DONE) */
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
