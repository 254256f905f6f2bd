/* spated_params.c - the sections of spated's parameter table, in the
 * order the file's groups are listed (spated_params.h). */
#include <stddef.h>

#include "config/config.h"
#include "config/spated_params.h"
#include "engines/drt/drt_params.h"

/* The top level: the cluster group (read after spated: it names this
 * host by spated.host_id; host_conf.h). */
static const struct spate_param root_rows[] = {
	{ "cluster", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "none", 0, 0, NULL, NULL, 0,
	  "the cluster file's group, the same on every host (usually @include'd): hosts and the "
	  "keys marked (cluster) (docs/operations.md)" },
	{ "cluster.hosts", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "( )", 0, 0, NULL, NULL, 0,
	  "every host once: ( { host = N; role = \"front\"|\"match\"; ipv4 = \"A.B.C.D\"; "
	  "lcores = N (match); service = \"A.B.C.D\" (front, optional); }, ... )",
	  host_conf_host_entry_rows },
	{ NULL },
};

#define OPS(group)                                                                                 \
	static const struct spate_param_section sec_##group = { #group, #group ".",                \
								offsetof(struct spated_conf, ops), \
								false, ops_##group##_rows }
OPS(journal);
OPS(control);
OPS(access);
OPS(metrics);

static const struct spate_param_section sec_spate = { "spate", "",
						      offsetof(struct spated_conf, common), false,
						      spate_conf_rows };
static const struct spate_param_section sec_drt = {
	"spate.drt", "drt.", offsetof(struct spated_conf, common.matcher.params.drt), true,
	drt_param_rows
};
static const struct spate_param_section sec_spated = { "spated", "spated.", 0, false,
						       spated_conf_rows };
static const struct spate_param_section sec_hosts = { "spated", "spated.",
						      offsetof(struct spated_conf, hosts), false,
						      host_conf_rows };
static const struct spate_param_section sec_root = { "", "", 0, false, root_rows };

static const struct spate_param_section *const sections[] = {
	&sec_drt,     &sec_spate,   &sec_spated, &sec_hosts,   &sec_root,
	&sec_journal, &sec_control, &sec_access, &sec_metrics,
};

const struct spate_param_table spated_param_table = { sections,
						      sizeof(sections) / sizeof(sections[0]) };
