/* cluster_counters.h - the cluster module's own counters, one cause
 * each (spliced into SPATED_FOREACH_COUNTER, infra/counters.h). */
#ifndef SPATED_CLUSTER_COUNTERS_H
#define SPATED_CLUSTER_COUNTERS_H

/* clang-format off */
#define CLUSTER_FOREACH_COUNTER(X)                                           \
	X(cat_unknown_action) /* a merge or move the clustering decided for a category the stage does not track: skipped */\
	X(cat_unknown_ack)   /* a retransmission to ACK behind its category, which the stage does not track: no ACK */
/* clang-format on */

#endif
