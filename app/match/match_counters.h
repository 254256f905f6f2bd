/* match_counters.h - the match module's own counters, one cause each
 * (spliced into SPATED_FOREACH_COUNTER, infra/counters.h). */
#ifndef SPATED_MATCH_COUNTERS_H
#define SPATED_MATCH_COUNTERS_H

/* clang-format off */
#define MATCH_FOREACH_COUNTER(X)                                             \
	X(cat_unknown_msg)   /* a message for a category this worker does not hold: dropped */\
	X(cat_unknown_event) /* an event part's category not held here: not matched in it */\
	X(cat_unknown_merge_into) /* a MERGE into a category not held here (or handed away) */\
	X(cat_unknown_merge_from) /* a MERGE of a category not held here */\
	X(cat_unknown_move_to) /* a MOVE to a worker with no ring from here: the category stays */\
	X(cat_unknown_msg_type) /* a message of a type a category does not take: dropped */\
	X(cat_unknown_handoff) /* a handed-off category with no room for it here: its index freed */
/* clang-format on */

#endif
