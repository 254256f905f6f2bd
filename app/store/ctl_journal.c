/* ctl_journal.c - `spatectl journal compact` (ctl_cmd.h). */
#include <stdio.h>
#include <string.h>

#include "control/ctl_cmd.h"
#include "matcher/spate_matcher.h"
#include "store/durable.h"

static int cmd_compact(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	if (spated_durable == NULL) {
		snprintf(err, errlen, "no journal configured (journal.path)");
		return -1;
	}
	int rc = durable_compact(spated_durable);
	if (rc != 0) {
		snprintf(err, errlen, "compaction failed: %s", strerror(-rc));
		return -1;
	}
	ctl_out_u64(o, "subscriptions", spate_matcher_sub_count(r->t->matcher));
	return 0;
}

static struct ctl_cmd journal_compact_cmd = {
	.path = "journal compact",
	.usage = "journal compact",
	.help = "rewrite the journal as a snapshot now",
	.fn = cmd_compact,
	.on_dp = true,
	.clustering = true,
	.rank = CTL_RANK_JOURNAL,
};
CTL_COMMAND(journal_compact_cmd)
