/* ctl_cluster.h - `spatectl show cluster`: this host and every peer of a
 * multi-host Spate, as the link stage sees them (docs/operations.md). */
#ifndef SPATED_CTL_CLUSTER_H
#define SPATED_CTL_CLUSTER_H

#include <stddef.h>

#include "cluster/category_dir.h"
#include "control/ctl_out.h"
#include "link/stage_link.h"

/* Runs on the link's lcore. dir: the front's category directory (the
 * categories each match host holds), NULL on a match host. 0, or -1
 * with err (one box: no cluster). */
int ctl_show_cluster(struct stage_link *link, struct category_dir *dir, struct ctl_out *o,
		     char *err, size_t errlen);

#endif
