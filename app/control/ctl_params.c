/* ctl_params.c - the parameter table as spatectl and telemetry see it
 * (ctl_params.h). What a `set` does beyond storing the value is one hook
 * per section (the matcher takes drt values, the access control its rate,
 * the journal its sync policy): a new row of a section needs no code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "cluster/access.h"
#include "config/spated_params.h"
#include "control/ctl_cmd.h"
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

/* ---------------------------------------------------------------- */
/* spatectl's commands on the parameters (ctl_cmd.h).                 */

#define OVERRIDES_MAX 128

/* `set`s that succeeded, for `save` (control thread only). */
static struct {
	char name[64];
	char value[256];
} overrides[OVERRIDES_MAX];
static int n_overrides;

/* A setting's value: typed in JSON (a number, a boolean), except the
 * text ones (paths, names, modes, choices) whatever they look like. */
void ctl_param_out(struct ctl_out *o, const char *name, const char *value)
{
	if (ctl_param_is_text(ctl_param_canonical(name)))
		ctl_out_str(o, name, value);
	else
		ctl_out_value(o, name, value);
}

static int cmd_get(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	char buf[256];

	if (ctl_param_get(r->t, r->argv[0], buf, sizeof(buf)) != 0) {
		snprintf(err, errlen, "unknown setting '%s' (spatectl show params lists them)",
			 r->argv[0]);
		return -1;
	}
	ctl_param_out(o, ctl_param_canonical(r->argv[0]), buf);
	return 0;
}

static int cmd_set(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	char buf[256];

	if (ctl_param_get(r->t, r->argv[0], buf, sizeof(buf)) != 0) {
		snprintf(err, errlen, "unknown setting '%s' (spatectl show params lists them)",
			 r->argv[0]);
		return -1;
	}
	if (ctl_param_set(r->t, r->argv[0], r->argv[1], err, errlen) != 0)
		return -1;
	ctl_param_get(r->t, r->argv[0], buf, sizeof(buf)); /* read back what is in force */
	ctl_param_out(o, ctl_param_canonical(r->argv[0]), buf);
	return 0;
}

static int cmd_show_params(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	char name[96], buf[256];
	for (size_t i = 0; ctl_param_name(i, false, name, sizeof(name)) != NULL; i++)
		if (ctl_param_get(r->t, name, buf, sizeof(buf)) == 0)
			ctl_param_out(o, name, buf);
	return 0;
}

/* Remember a successful set for `save` (last value of a name wins). */
static void record_override(const char *name, const char *value)
{
	int i;

	for (i = 0; i < n_overrides; i++)
		if (strcmp(overrides[i].name, name) == 0)
			break;
	if (i == OVERRIDES_MAX)
		return;
	if (i == n_overrides)
		n_overrides++;
	snprintf(overrides[i].name, sizeof(overrides[i].name), "%s", name);
	snprintf(overrides[i].value, sizeof(overrides[i].value), "%s", value);
}

/* After a `set` answered ok (control thread): remember the value read
 * back, as printed, for `save`. */
static void after_set(struct ctl_req *r)
{
	char name[64], buf[256];

	snprintf(name, sizeof(name), "%s", ctl_param_canonical(r->argv[0]));
	if (ctl_param_get(r->t, name, buf, sizeof(buf)) == 0) /* racy read of a scalar: fine */
		record_override(name, buf);
	SPATED_LOG(NOTICE, "control: set %s = %s\n", name, buf);
}

static int cmd_save(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	const char *path = r->t->conf->ops.overrides_path;
	char tmp[300];
	config_t cfg;
	int rc = 0;

	(void)r;
	if (path[0] == '\0') {
		snprintf(err, errlen, "no overrides file configured (control.overrides)");
		return -1;
	}
	config_init(&cfg);
	for (int i = 0; i < n_overrides && rc == 0; i++)
		rc = ctl_param_save(&cfg, overrides[i].name, overrides[i].value);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* Written aside and renamed: the next start reads a whole file. */
	if (rc == 0 && config_write_file(&cfg, tmp) != CONFIG_TRUE)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	config_destroy(&cfg);
	if (rc != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	ctl_out_str(o, "file", path);
	ctl_out_u64(o, "settings", (uint64_t)n_overrides);
	return 0;
}

static struct ctl_cmd show_params_cmd = {
	.path = "show params",
	.usage = "show params",
	.help = "every setting get and set name, with the value running (docs/parameters.md)",
	.fn = cmd_show_params,
	.on_dp = true,
	.rank = CTL_RANK_PARAMS,
};
CTL_COMMAND(show_params_cmd)

static struct ctl_cmd get_cmd = {
	.path = "get",
	.min_args = 1,
	.max_args = 1,
	.usage = "get NAME",
	.help = "one setting's value",
	.fn = cmd_get,
	.on_dp = true,
	.rank = CTL_RANK_GET,
};
CTL_COMMAND(get_cmd)

static struct ctl_cmd set_cmd = {
	.path = "set",
	.min_args = 2,
	.max_args = 2,
	.usage = "set NAME VALUE",
	.help = "change a setting now (validated; the value in force is printed back)",
	.fn = cmd_set,
	.on_dp = true,
	.clustering = true,
	.after = after_set,
	.rank = CTL_RANK_SET,
};
CTL_COMMAND(set_cmd)

/* On the control thread: it owns the overrides. */
static struct ctl_cmd save_cmd = {
	.path = "save",
	.usage = "save",
	.help = "write the settings changed by `set` to control.overrides, read at the next start",
	.fn = cmd_save,
	.clustering = true,
	.rank = CTL_RANK_SAVE,
};
CTL_COMMAND(save_cmd)
