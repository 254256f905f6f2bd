/* info.h - what this spated is and how it is doing, in a few figures:
 * version, uptime, subscriptions, clients. One reader serves DPDK
 * telemetry (/spate/info), `spatectl show version` and systemd's STATUS=
 * line; the figures are plain loads from other threads (a value may be
 * a burst old, as for the counters). */
#ifndef SPATED_INFO_H
#define SPATED_INFO_H

#include <stdint.h>

#include "matcher/spate_matcher.h"

struct spated_info {
	const char *version; /* SPATE_RELEASE */
	const char *dpdk;    /* rte_version() */
	double uptime_s;
	uint64_t subscriptions; /* stored on this host */
	uint64_t clients;       /* owners with at least one subscription */
};

/* At start, after rte_eal_init: the clock starts, the matcher is read
 * from then on (NULL: no subscriptions here). */
void spated_info_start(const struct spate_matcher *m);
void spated_info_get(struct spated_info *out);

#endif
