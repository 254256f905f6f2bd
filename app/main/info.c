/* info.c - version, uptime, subscriptions, clients (info.h). */
#include <rte_cycles.h>
#include <rte_version.h>

#include "main/info.h"
#include "util/spate_release.h"

static const struct spate_matcher *info_matcher;
static uint64_t info_start;

void spated_info_start(const struct spate_matcher *m)
{
	info_matcher = m;
	info_start = rte_get_timer_cycles();
}

void spated_info_get(struct spated_info *out)
{
	out->version = SPATE_RELEASE;
	out->dpdk = rte_version();
	out->uptime_s = (double)(rte_get_timer_cycles() - info_start) / (double)rte_get_timer_hz();
	out->subscriptions = info_matcher ? spate_matcher_sub_count(info_matcher) : 0;
	out->clients = info_matcher ? spate_matcher_client_count(info_matcher) : 0;
}
