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

#endif
