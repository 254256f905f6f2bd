/* ctl_params.c - the parameter table as spatectl and telemetry see it
 * (ctl_params.h). What a `set` does beyond storing the value is one hook
 * per section (the matcher takes drt values, the access control its rate,
 * the journal its sync policy): a new row of a section needs no code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "cluster/access.h"
#include "config/spated_params.h"
#include "control/ctl_params.h"
#include "main/spated_log.h"
#include "store/durable.h"

const char *ctl_param_canonical(const char *name)
{
	return strcmp(name, "log_level") == 0 ? "control.log_level" : name;
}

static bool is_section(struct spate_param_ref r, const char *group)
{
	return strcmp(r.sec->group, group) == 0;
}

/* The struct a row's running value is read from: the matcher's copy of
 * the drt parameters (a match host has none: the configured ones). */
static const void *running_obj(const struct control_target *t, struct spate_param_ref r)
{
	if (is_section(r, "spate.drt") && t->matcher != NULL)
		return &spate_matcher_get_conf(t->matcher)->params.drt;
	return spate_param_obj(r, t->conf);
}

int ctl_param_get(const struct control_target *t, const char *name, char *buf, size_t len)
{
	struct spate_param_ref r =
		spate_param_find_ctl(&spated_param_table, ctl_param_canonical(name));

	if (r.row == NULL)
		return -1;
	if (strcmp(r.row->key, "log_level") == 0 && is_section(r, "control")) {
		/* DPDK's level of the log type: what is in force */
		struct ops_conf now = { .log_level = (uint32_t)rte_log_get_level(spated_logtype) };
		return spate_param_format(r, &now, buf, len);
	}
	return spate_param_format(r, running_obj(t, r), buf, len);
}

/* What a live value does beyond its field, per section. `next` is the
 * whole configuration with the new value; 0, or -1 (err) to refuse it. */
static int apply(const struct control_target *t, struct spate_param_ref r,
		 const struct spated_conf *next, char *err, size_t errlen)
{
	if (is_section(r, "spate.drt")) {
		struct spate_engine_params p = spate_matcher_get_conf(t->matcher)->params;
		p.drt = next->common.matcher.params.drt;
		if (spate_matcher_set_params(t->matcher, &p, err, errlen) != 0)
			return -1;
		t->conf->common.matcher.params = p;
		return 0;
	}
	if (is_section(r, "spate")) {
		spate_matcher_set_quotas(t->matcher, next->common.matcher.max_subs,
					 next->common.matcher.max_subs_per_client);
		return 0;
	}
	if (is_section(r, "access") && next->ops.require_auth && next->ops.n_keys == 0) {
		snprintf(err, errlen, "access.require_auth: no keys configured (access.keys)");
		return -1;
	}
	if (is_section(r, "access")) {
		spate_ratelimit_set(access_ratelimit(spated_access), next->ops.rate,
				    next->ops.burst);
		spate_auth_set_required(access_auth(spated_access), next->ops.require_auth);
	}
	if (is_section(r, "journal") && durable_journal(spated_durable))
		spate_journal_set_conf(durable_journal(spated_durable), &next->ops.journal);
	if (is_section(r, "control") && next->ops.log_level)
		rte_log_set_level(spated_logtype, next->ops.log_level);
	return 0;
}

int ctl_param_set(const struct control_target *t, const char *name, const char *value, char *err,
		  size_t errlen)
{
	struct spate_param_ref r =
		spate_param_find_ctl(&spated_param_table, ctl_param_canonical(name));
	char cur[256], want[256], ctl[96];
	int rc = -1;

	if (r.row == NULL) {
		snprintf(err, errlen, "unknown setting '%s'", name);
		return -1;
	}
	spate_param_ctl_name(r, ctl, sizeof(ctl));
	/* the whole configuration, the new value in it (a shallow copy: the
	 * owned pointers stay the live one's and are never freed here) */
	struct spated_conf *next = malloc(sizeof(*next));
	if (next == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*next = *t->conf;
	if (is_section(r, "spate.drt") && t->matcher != NULL)
		next->common.matcher.params = spate_matcher_get_conf(t->matcher)->params;
	if (spate_param_parse(r, spate_param_obj(r, next), value, err, errlen) != 0)
		goto out;
	if (r.row->reach != SPATE_PARAM_LIVE) {
		/* what shapes the grids, the pipeline or the notifier: only the
		 * value it started with */
		ctl_param_get(t, ctl, cur, sizeof(cur));
		spate_param_format(r, spate_param_obj(r, next), want, sizeof(want));
		if (r.row->reach != SPATE_PARAM_RESTART || strcmp(cur, want) != 0) {
			snprintf(err, errlen, "%s changes at the next start only", ctl);
			goto out;
		}
		rc = 0;
		goto out;
	}
	if (apply(t, r, next, err, errlen) != 0)
		goto out;
	/* In place, one word: the lcores read these very fields. */
	spate_param_copy_field(r.row, spate_param_obj(r, t->conf), spate_param_obj(r, next));
	rc = 0;
out:
	free(next);
	return rc;
}

const char *ctl_param_name(size_t i, bool config, char *buf, size_t len)
{
	struct spate_param_ref r;

	for (size_t k = 0; (r = spate_param_at(&spated_param_table, k)).row != NULL; k++) {
		if (!spate_param_in_ctl(r) || (!config && r.row->reach == SPATE_PARAM_CONFIG))
			continue;
		if (i-- == 0) {
			spate_param_ctl_name(r, buf, len);
			return buf;
		}
	}
	return NULL;
}

bool ctl_param_is_text(const char *name)
{
	struct spate_param_ref r =
		spate_param_find_ctl(&spated_param_table, ctl_param_canonical(name));

	return r.row != NULL && spate_param_is_text(r.row);
}

int ctl_param_save(config_t *cfg, const char *name, const char *value)
{
	struct spate_param_ref r =
		spate_param_find_ctl(&spated_param_table, ctl_param_canonical(name));
	char path[160];

	if (r.row == NULL)
		return -1;
	/* the groups along the path ("spate", "drt"), made as needed */
	spate_param_path(r, path, sizeof(path));
	config_setting_t *g = config_root_setting(cfg);
	char *key = path;
	for (char *dot; (dot = strchr(key, '.')) != NULL; key = dot + 1) {
		*dot = '\0';
		config_setting_t *sub = config_setting_get_member(g, key);
		g = sub ? sub : config_setting_add(g, key, CONFIG_TYPE_GROUP);
		if (g == NULL)
			return -1;
	}
	return spate_param_add_setting(r.row, g, key, value);
}
