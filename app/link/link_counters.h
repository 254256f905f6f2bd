/* link_counters.h - the link module's own counters, one cause each
 * (spliced into SPATED_FOREACH_COUNTER, infra/counters.h). */
#ifndef SPATED_LINK_COUNTERS_H
#define SPATED_LINK_COUNTERS_H

/* clang-format off */
#define LINK_FOREACH_COUNTER(X)                                              \
	X(cat_unknown_lcore) /* (match) a message for a category no CREATE placed here: dropped */\
	X(cat_unknown_create_lcore) /* (match) a CREATE naming an lcore this host does not have */\
	X(cat_unknown_ship_host) /* (match) a handoff to a host not among the peers: dropped */\
	X(cat_unknown_move_worker) /* (front) a MOVE to a worker no match host has */\
	X(cat_unknown_link_type) /* (front) a stage message of a type the link cannot carry */\
	X(cat_unknown_peer_msg) /* (front) a peer message a front does not take (or from a host with no workers) */
/* clang-format on */

/* The inter-host channels: frames, acks, windows, handoffs, peers
 * coming and going (stage_link.c, link_front.c, link_match.c). */
/* clang-format off */
#define LINK_FOREACH_PEER_COUNTER(X)                                    \
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
	X(peer_down_dropped) /* messages for a dead peer, dropped */
/* clang-format on */

#endif
