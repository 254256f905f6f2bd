/* spate_conf.c - the "spate" section of the libconfig file (spate_conf.h).
 * One table of integer parameters (name, range, where it goes) so that
 * adding a limit is one line and every error names the key, its line and
 * the allowed range. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "conf/spate_conf.h"
#include "engines/ivx/ivx_index.h"
#include "matcher/spate_engine.h"

struct int_param {
	const char *path; /* relative to the "spate" group */
	long long min, max;
	size_t offset; /* of a uint32_t inside struct spate_conf */
};

#define CONF_U32(field) offsetof(struct spate_conf, field)

static const struct int_param int_params[] = {
	{ "limits.max_keywords", 1, SPATE_KW_MAX_HARD, CONF_U32(limits.max_keywords) },
	{ "limits.max_keyword_len", 1, SPATE_KW_LEN_MAX_HARD, CONF_U32(limits.max_keyword_len) },
	{ "limits.max_constraints", 1, SPATE_CONS_MAX_HARD, CONF_U32(limits.max_constraints) },
	{ "limits.max_attrs", 1, SPATE_ATTR_MAX_HARD, CONF_U32(limits.max_attrs) },
	{ "limits.max_name_len", 1, SPATE_NAME_LEN_MAX_HARD, CONF_U32(limits.max_name_len) },
	{ "limits.max_messages", 1, 1024, CONF_U32(limits.max_messages) },
	{ "quotas.max_subs", 0, UINT32_MAX, CONF_U32(matcher.max_subs) },
	{ "quotas.max_subs_per_client", 0, UINT32_MAX, CONF_U32(matcher.max_subs_per_client) },
	{ "ivx.groups", 0, IVX_GROUPS_MAX, CONF_U32(matcher.params.ivx_groups) },
};

void spate_conf_default(struct spate_conf *c)
{
	memset(c, 0, sizeof(*c));
	spate_limits_default(&c->limits);
	spate_matcher_conf_default(&c->matcher);
	snprintf(c->engine, sizeof(c->engine), "%s", spate_engine_find(NULL)->name);
	c->matcher.engine = c->engine;
}

static const config_setting_t *last_error_setting;

const config_setting_t *spate_conf_last_error_setting(void)
{
	return last_error_setting;
}

int spate_conf_error(char *err, size_t errlen, const char *path, const config_setting_t *s,
		     const char *fmt, ...)
{
	last_error_setting = s;
	char msg[400]; /* the longest: an unknown key with the list of known ones */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* an included file's setting is named by that file */
	const char *file = s ? config_setting_source_file(s) : NULL;
	snprintf(err, errlen, "%s:%u: %s", file ? file : path,
		 s ? config_setting_source_line(s) : 0, msg);
	return -1;
}

/* The "drt" group: every key is a DRt parameter, validated by its setter. */
static int read_drt(struct spate_conf *c, const config_setting_t *g, const char *path, char *err,
		    size_t errlen)
{
	if (!config_setting_is_group(g))
		return spate_conf_error(err, errlen, path, g, "spate.drt must be a group { ... }");
	for (int i = 0; i < config_setting_length(g); i++) {
		config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		char text[64], why[160];
		switch (config_setting_type(s)) {
		case CONFIG_TYPE_INT:
		case CONFIG_TYPE_INT64:
			snprintf(text, sizeof(text), "%lld", config_setting_get_int64(s));
			break;
		case CONFIG_TYPE_FLOAT:
			snprintf(text, sizeof(text), "%.17g", config_setting_get_float(s));
			break;
		case CONFIG_TYPE_STRING:
			snprintf(text, sizeof(text), "%s", config_setting_get_string(s));
			break;
		default:
			return spate_conf_error(err, errlen, path, s,
						"spate.drt.%s must be a number or a string",
						config_setting_name(s));
		}
		if (drt_params_set(&c->matcher.params.drt, config_setting_name(s), text, why,
				   sizeof(why)) != 0)
			return spate_conf_error(err, errlen, path, s, "spate.drt: %s", why);
	}
	return 0;
}

/* A number setting (int or float) into *v; false if it is neither. */
static bool conf_number(const config_setting_t *s, double *v)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		*v = (double)config_setting_get_int64(s);
		return true;
	case CONFIG_TYPE_FLOAT:
		*v = config_setting_get_float(s);
		return true;
	default:
		return false;
	}
}

/* One attribute domain group { [name = "..";] min = ..; max = ..; cells = ..; }
 * (`what` names it in errors); cells defaults to *cells. */
static int read_domain(const config_setting_t *g, const char *what, bool named, const char *path,
		       const char **name, double *min, double *max, long long *cells, char *err,
		       size_t errlen)
{
	bool have_min = false, have_max = false;

	if (!config_setting_is_group(g))
		return spate_conf_error(err, errlen, path, g, "%s must be a group { ... }", what);
	*name = NULL;
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		if (named && strcmp(key, "name") == 0) {
			*name = config_setting_get_string(s);
			if (*name == NULL)
				return spate_conf_error(err, errlen, path, s,
							"%s.name must be a string", what);
		} else if (strcmp(key, "min") == 0 || strcmp(key, "max") == 0) {
			bool is_min = strcmp(key, "min") == 0;
			if (!conf_number(s, is_min ? min : max))
				return spate_conf_error(err, errlen, path, s,
							"%s.%s must be a number", what, key);
			if (is_min)
				have_min = true;
			else
				have_max = true;
		} else if (strcmp(key, "cells") == 0) {
			int type = config_setting_type(s);
			if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
				return spate_conf_error(err, errlen, path, s,
							"%s.cells must be an integer", what);
			*cells = config_setting_get_int64(s);
		} else {
			return spate_conf_error(err, errlen, path, s,
						"%s: unknown key '%s' (%smin, max, cells)", what,
						key, named ? "name, " : "");
		}
	}
	if (named && *name == NULL)
		return spate_conf_error(err, errlen, path, g, "%s: name is missing", what);
	if (!have_min || !have_max)
		return spate_conf_error(err, errlen, path, g, "%s: min and max are required", what);
	return 0;
}

/* spate.attributes = ( { name; min; max; cells; }, ... ) and
 * spate.attribute_default = { min; max; cells; }: the schema. */
static int read_schema(struct spate_conf *c, const config_setting_t *top, const char *path,
		       char *err, size_t errlen)
{
	struct spate_schema *sc = &c->matcher.params.schema;
	const config_setting_t *s;
	const char *name;
	char what[64], why[160];
	double min, max;
	long long cells;

	if ((s = config_setting_lookup((config_setting_t *)top, "attribute_default")) != NULL) {
		cells = sc->dflt.cells;
		if (read_domain(s, "spate.attribute_default", false, path, &name, &min, &max,
				&cells, err, errlen) != 0)
			return -1;
		if (spate_schema_check_domain(min, max, cells, why, sizeof(why)) != 0)
			return spate_conf_error(err, errlen, path, s, "spate.attribute_default: %s",
						why);
		sc->dflt = (struct spate_attr_domain){ min, max, (uint32_t)cells };
	}
	if ((s = config_setting_lookup((config_setting_t *)top, "attributes")) == NULL)
		return 0;
	if (!config_setting_is_list(s))
		return spate_conf_error(err, errlen, path, s,
					"spate.attributes must be a list ( { ... }, ... )");
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *g = config_setting_get_elem(s, (unsigned)i);
		snprintf(what, sizeof(what), "spate.attributes[%d]", i);
		cells = sc->dflt.cells;
		if (read_domain(g, what, true, path, &name, &min, &max, &cells, err, errlen) != 0)
			return -1;
		if (spate_schema_add(sc, name, min, max, cells, why, sizeof(why)) != 0)
			return spate_conf_error(err, errlen, path, g, "%s: %s", what, why);
	}
	return 0;
}

static int read_engine(struct spate_conf *c, const config_setting_t *s, const char *path, char *err,
		       size_t errlen)
{
	const char *name = config_setting_get_string(s);

	if (name == NULL)
		return spate_conf_error(err, errlen, path, s, "spate.engine must be a string");
	if (spate_engine_find(name) == NULL || strlen(name) >= sizeof(c->engine)) {
		char list[256] = "";
		for (const struct spate_engine_ops *const *e = spate_engine_list(); *e; e++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? ", " : "", (*e)->name);
		return spate_conf_error(err, errlen, path, s,
					"spate.engine: unknown engine '%s' (known: %s)", name,
					list);
	}
	snprintf(c->engine, sizeof(c->engine), "%s", name);
	return 0;
}

/* The schema's keys are read together, after the rest (read_schema). */
static int read_later(struct spate_conf *c, const config_setting_t *s, const char *path, char *err,
		      size_t errlen)
{
	(void)c;
	(void)s;
	(void)path;
	(void)err;
	(void)errlen;
	return 0;
}

/* The keys of "spate" other than the integer groups of int_params. */
static const struct {
	const char *name;
	int (*read)(struct spate_conf *c, const config_setting_t *s, const char *path, char *err,
		    size_t errlen);
} spate_keys[] = {
	{ "engine", read_engine },
	{ "drt", read_drt },
	{ "attributes", read_later },
	{ "attribute_default", read_later },
};
#define N_SPATE_KEYS (sizeof(spate_keys) / sizeof(spate_keys[0]))
#define N_INT_PARAMS (sizeof(int_params) / sizeof(int_params[0]))

/* Is `group` the group part of int_params[i].path ("limits" of "limits.x")? */
static bool in_group(size_t i, const char *group, size_t glen)
{
	return strncmp(int_params[i].path, group, glen) == 0 && int_params[i].path[glen] == '.';
}

/* Every name a group of "spate" may hold, for an error: its int_params
 * keys (group != NULL), or the keys and groups of "spate" itself. */
static void known_names(const char *group, char *buf, size_t len)
{
	size_t glen = group ? strlen(group) : 0;

	buf[0] = '\0';
	for (size_t i = 0; group == NULL && i < N_SPATE_KEYS; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "",
			 spate_keys[i].name);
	for (size_t i = 0; i < N_INT_PARAMS; i++) {
		const char *p = int_params[i].path, *dot = strchr(p, '.');
		if (group != NULL && !in_group(i, group, glen))
			continue;
		if (group == NULL && i > 0 && in_group(i - 1, p, (size_t)(dot - p)))
			continue; /* the group is listed already */
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%.*s", buf[0] ? ", " : "",
			 group ? (int)strlen(dot + 1) : (int)(dot - p), group ? dot + 1 : p);
	}
}

static int unknown(const char *group, const config_setting_t *s, const char *path, char *err,
		   size_t errlen)
{
	char known[256];

	known_names(group, known, sizeof(known));
	return spate_conf_error(err, errlen, path, s, "spate%s%s: unknown setting '%s' (known: %s)",
				group ? "." : "", group ? group : "", config_setting_name(s),
				known);
}

/* A group of int_params ("limits", "quotas", "ivx"): each key must be one
 * of its entries, in range. */
static int read_int_group(struct spate_conf *c, const config_setting_t *g, const char *path,
			  char *err, size_t errlen)
{
	const char *group = config_setting_name(g);

	if (!config_setting_is_group(g))
		return spate_conf_error(err, errlen, path, g, "spate.%s must be a group { ... }",
					group);
	for (int k = 0; k < config_setting_length(g); k++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)k);
		const struct int_param *p = NULL;
		for (size_t i = 0; i < N_INT_PARAMS && p == NULL; i++)
			if (in_group(i, group, strlen(group)) &&
			    strcmp(int_params[i].path + strlen(group) + 1,
				   config_setting_name(s)) == 0)
				p = &int_params[i];
		if (p == NULL)
			return unknown(group, s, path, err, errlen);
		int type = config_setting_type(s);
		if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
			return spate_conf_error(err, errlen, path, s, "spate.%s must be an integer",
						p->path);
		long long v = config_setting_get_int64(s);
		if (v < p->min || v > p->max)
			return spate_conf_error(err, errlen, path, s,
						"spate.%s = %lld is out of range [%lld, %lld]",
						p->path, v, p->min, p->max);
		*(uint32_t *)((char *)c + p->offset) = (uint32_t)v;
	}
	return 0;
}

int spate_conf_read(struct spate_conf *c, const config_t *cfg, const char *path, char *err,
		    size_t errlen)
{
	/* libconfig's lookups take non-const settings; they do not modify. */
	config_setting_t *top = config_lookup(cfg, "spate");

	c->matcher.engine = c->engine;
	if (top == NULL)
		return 0;
	if (!config_setting_is_group(top))
		return spate_conf_error(err, errlen, path, top, "'spate' must be a group { ... }");
	/* Every key through its reader, in the file's order: a key no
	 * reader knows is an error, never a silently ignored typo. */
	for (int k = 0; k < config_setting_length(top); k++) {
		const config_setting_t *s = config_setting_get_elem(top, (unsigned)k);
		const char *name = config_setting_name(s);
		int rc = 1;
		for (size_t i = 0; i < N_SPATE_KEYS && rc > 0; i++)
			if (strcmp(name, spate_keys[i].name) == 0)
				rc = spate_keys[i].read(c, s, path, err, errlen);
		for (size_t i = 0; i < N_INT_PARAMS && rc > 0; i++)
			if (in_group(i, name, strlen(name)))
				rc = read_int_group(c, s, path, err, errlen);
		if (rc > 0)
			return unknown(NULL, s, path, err, errlen);
		if (rc < 0)
			return -1;
	}
	return read_schema(c, top, path, err, errlen);
}

int spate_conf_read_file(config_t *cfg, const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (slash != NULL && n < sizeof(dir)) {
		memcpy(dir, path, n);
		dir[n] = '\0';
		config_set_include_dir(cfg, n ? dir : "/");
	}
	return config_read_file(cfg, path);
}

int spate_conf_load(struct spate_conf *c, const char *path, char *err, size_t errlen)
{
	config_t cfg;
	int rc;

	config_init(&cfg);
	if (spate_conf_read_file(&cfg, path) != CONFIG_TRUE) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			snprintf(err, errlen, "%s: cannot read file", path);
		else
			snprintf(err, errlen, "%s:%d: %s", path, config_error_line(&cfg),
				 config_error_text(&cfg));
		config_destroy(&cfg);
		return -1;
	}
	rc = spate_conf_read(c, &cfg, path, err, errlen);
	config_destroy(&cfg);
	return rc;
}

/* ---- run time: the integer table by name, values as text ---- */

size_t spate_conf_int_count(void)
{
	return sizeof(int_params) / sizeof(int_params[0]);
}

const char *spate_conf_int_name(size_t i)
{
	return i < spate_conf_int_count() ? int_params[i].path : NULL;
}

static const struct int_param *find_int(const char *path)
{
	for (size_t i = 0; i < spate_conf_int_count(); i++)
		if (strcmp(int_params[i].path, path) == 0)
			return &int_params[i];
	return NULL;
}

int spate_conf_int_set(struct spate_conf *c, const char *path, const char *value, char *err,
		       size_t errlen)
{
	const struct int_param *p = find_int(path);
	char *end;

	if (p == NULL) {
		snprintf(err, errlen, "unknown setting '%s'", path);
		return -1;
	}
	long long v = strtoll(value, &end, 10);
	if (end == value || *end != '\0') {
		snprintf(err, errlen, "%s: '%s' is not an integer", path, value);
		return -1;
	}
	if (v < p->min || v > p->max) {
		snprintf(err, errlen, "%s = %lld is out of range [%lld, %lld]", path, v, p->min,
			 p->max);
		return -1;
	}
	*(uint32_t *)((char *)c + p->offset) = (uint32_t)v;
	return 0;
}

int spate_conf_int_get(const struct spate_conf *c, const char *path, char *buf, size_t len)
{
	const struct int_param *p = find_int(path);

	if (p == NULL)
		return -1;
	snprintf(buf, len, "%u", *(const uint32_t *)((const char *)c + p->offset));
	return 0;
}
