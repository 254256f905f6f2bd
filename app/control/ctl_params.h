/* ctl_params.h - spatectl's parameters (show params, get, set, save) and
 * telemetry's /spate/params, all from spated's parameter table
 * (config/spated_params.h): a row marked live is settable, a row marked
 * restart is reported, and no name is listed by hand here.
 *
 * Values are the ones running: the matcher's drt parameters (drt.workers
 * is the number of matching workers started), DPDK's log level. */
#ifndef SPATED_CTL_PARAMS_H
#define SPATED_CTL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include <libconfig.h>

#include "control/control.h"

/* "log_level" is short for control.log_level. */
const char *ctl_param_canonical(const char *name);
/* One value as text: 0, or -1 for a name spatectl does not know. Safe on
 * any thread (plain loads of scalars). */
int ctl_param_get(const struct control_target *t, const char *name, char *buf, size_t len);
/* Check and apply one value (data-plane lcore): 0, or -1 with a message
 * naming the allowed values. */
int ctl_param_set(const struct control_target *t, const char *name, const char *value, char *err,
		  size_t errlen);
/* The names `show params` lists (restart and live rows), in the table's
 * order, into buf; NULL past the last. With `config`, also the ones only
 * `get` and `show config` report. */
const char *ctl_param_name(size_t i, bool config, char *buf, size_t len);
/* Print a setting's value: typed in JSON (a number, a boolean), except
 * the text ones whatever they look like. */
struct ctl_out;
void ctl_param_out(struct ctl_out *o, const char *name, const char *value);
/* The value is text in JSON (a path, a name, a mode, a choice). */
bool ctl_param_is_text(const char *name);
/* Put name = value in an overrides tree, typed as the main file has it
 * and in its group. 0 or -1. */
int ctl_param_save(config_t *cfg, const char *name, const char *value);

#endif
