/* spated_params.h - spated's parameter table: every key its
 * configuration file may hold, one row each (lib/conf/spate_param.h),
 * gathered from the modules that own them. It alone drives the reader
 * (config.c), --check-config, spatectl show params|get|set|save, the
 * telemetry command /spate/params and docs/parameters.md. The root of
 * the table is struct spated_conf. */
#ifndef SPATED_PARAMS_H
#define SPATED_PARAMS_H

#include "conf/spate_param.h"

extern const struct spate_param_table spated_param_table;

#endif
