/* control_counters.h - the control socket's own counters, one cause
 * each (spliced into SPATED_FOREACH_COUNTER, infra/counters.h). */
#ifndef SPATED_CONTROL_COUNTERS_H
#define SPATED_CONTROL_COUNTERS_H

/* clang-format off */
#define CONTROL_FOREACH_COUNTER(X)                                      \
	X(ctl_clients)       /* control socket connections served */       \
	X(ctl_busy)          /* connections refused: too many at once */    \
	X(ctl_timeouts)      /* cut: request or answer past its deadline */ \
	X(ctl_hangups)       /* gone before taking their answer */
/* clang-format on */

#endif
