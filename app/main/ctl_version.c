/* ctl_version.c - `spatectl show version` (ctl_cmd.h). */
#include "control/ctl_cmd.h"
#include "main/info.h"

/* Runs on the control thread: it answers even when the data plane is
 * stuck (the figures are plain loads, info.h). */
static int cmd_show_version(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	struct spated_info in;

	(void)r;
	(void)err;
	(void)errlen;
	spated_info_get(&in);
	ctl_out_str(o, "version", in.version);
	ctl_out_str(o, "dpdk", in.dpdk);
	ctl_out_dbl(o, "uptime_s", in.uptime_s);
	ctl_out_u64(o, "subscriptions", in.subscriptions);
	ctl_out_u64(o, "clients", in.clients);
	return 0;
}

static struct ctl_cmd show_version_cmd = {
	.path = "show version",
	.usage = "show version",
	.help = "spated's and DPDK's versions, uptime, subscriptions, clients",
	.fn = cmd_show_version,
	.rank = CTL_RANK_VERSION,
};
CTL_COMMAND(show_version_cmd)
