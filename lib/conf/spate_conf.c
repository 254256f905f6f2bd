/* spate_conf.c - the "spate" section of the libconfig file (spate_conf.h).
 * Its keys are rows (spate_param.h): adding a limit is one row, and every
 * error names the key, its line and the allowed range. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "conf/spate_conf.h"
#include "conf/spate_param.h"
#include "engines/drt/drt_params.h"
#include "engines/ivx/ivx_index.h"
#include "matcher/spate_engine.h"

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
	char msg[1024]; /* the longest: an unknown key with the list of known ones */
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

/* One attribute domain as read: the keys are rows (so the names a group
 * may hold are the rows'), checked together by spate_schema_* after. */
struct domain_in {
	char name[256];  /* spate_schema_add checks it */
	double min, max; /* NAN: not given */
	uint32_t cells;
};

#define DOM(f) offsetof(struct domain_in, f), sizeof(((struct domain_in *)0)->f)
#define DOMAIN_ROWS                                                                            \
	{ "min",                                                                               \
	  SPATE_PARAM_DOUBLE,                                                                  \
	  SPATE_PARAM_FILE,                                                                    \
	  -DBL_MAX,                                                                            \
	  DBL_MAX,                                                                             \
	  "",                                                                                  \
	  DOM(min),                                                                            \
	  NULL,                                                                                \
	  NULL,                                                                                \
	  0,                                                                                   \
	  "lowest value (required)" },                                                         \
		{ "max",                                                                       \
		  SPATE_PARAM_DOUBLE,                                                          \
		  SPATE_PARAM_FILE,                                                            \
		  -DBL_MAX,                                                                    \
		  DBL_MAX,                                                                     \
		  "",                                                                          \
		  DOM(max),                                                                    \
		  NULL,                                                                        \
		  NULL,                                                                        \
		  0,                                                                           \
		  "highest value, above min (required)" },                                     \
	{                                                                                      \
		"cells", SPATE_PARAM_U32, SPATE_PARAM_FILE, 1, SPATE_SCHEMA_CELLS_MAX, "1000", \
			DOM(cells), NULL, NULL, 0,                                             \
			"cells of the attribute's index between min and max"                   \
	}

static const struct spate_param attr_rows[] = {
	{ "name", SPATE_PARAM_STRING, SPATE_PARAM_FILE, 0, 0, "", DOM(name), NULL, NULL, 0,
	  "the attribute's name, 1 to 63 of A-Z a-z 0-9 _ . : - (required)" },
	DOMAIN_ROWS,
	{ NULL },
};
static const struct spate_param dflt_rows[] = { DOMAIN_ROWS, { NULL } };

/* One attribute domain group (`what` names it in errors); d->cells is
 * the default's. */
static int read_domain(const config_setting_t *g, const char *what, bool named, const char *path,
		       struct domain_in *d, char *err, size_t errlen)
{
	if (!config_setting_is_group(g))
		return spate_conf_error(err, errlen, path, g, "%s must be a group { ... }", what);
	d->name[0] = '\0';
	d->min = d->max = NAN;
	if (spate_param_read_entry(named ? attr_rows : dflt_rows, d, g, what, path, err, errlen) !=
	    0)
		return -1;
	if (named && d->name[0] == '\0' && config_setting_get_member(g, "name") == NULL)
		return spate_conf_error(err, errlen, path, g, "%s: name is missing", what);
	if (isnan(d->min) || isnan(d->max))
		return spate_conf_error(err, errlen, path, g, "%s: min and max are required", what);
	return 0;
}

/* spate.attributes = ( { name; min; max; cells; }, ... ) and
 * spate.attribute_default = { min; max; cells; }: the schema. */
int spate_conf_read_schema(struct spate_conf *c, const config_setting_t *top, const char *path,
			   char *err, size_t errlen)
{
	struct spate_schema *sc = &c->matcher.params.schema;
	const config_setting_t *s;
	char what[64], why[160];
	struct domain_in d;

	if ((s = config_setting_lookup((config_setting_t *)top, "attribute_default")) != NULL) {
		d.cells = sc->dflt.cells;
		if (read_domain(s, "spate.attribute_default", false, path, &d, err, errlen) != 0)
			return -1;
		if (spate_schema_check_domain(d.min, d.max, d.cells, why, sizeof(why)) != 0)
			return spate_conf_error(err, errlen, path, s, "spate.attribute_default: %s",
						why);
		sc->dflt = (struct spate_attr_domain){ d.min, d.max, d.cells };
	}
	if ((s = config_setting_lookup((config_setting_t *)top, "attributes")) == NULL)
		return 0;
	if (!config_setting_is_list(s))
		return spate_conf_error(err, errlen, path, s,
					"spate.attributes must be a list ( { ... }, ... )");
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *g = config_setting_get_elem(s, (unsigned)i);
		snprintf(what, sizeof(what), "spate.attributes[%d]", i);
		d.cells = sc->dflt.cells;
		if (read_domain(g, what, true, path, &d, err, errlen) != 0)
			return -1;
		if (spate_schema_add(sc, d.name, d.min, d.max, d.cells, why, sizeof(why)) != 0)
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

/* The rows of the "spate" group (spate_param.h); the drt engine's are in
 * drt_params.c. The schema (attributes, attribute_default) is read after
 * the rest: its keys depend on each other. */
#define CONF_U32(field) offsetof(struct spate_conf, field)
#define LIMIT(key, hard, def, help)                                              \
	{                                                                        \
		"limits." #key, SPATE_PARAM_U32, SPATE_PARAM_LIVE, 1, hard, def, \
			CONF_U32(limits.key), 0, NULL, NULL, 0, help             \
	}

static int read_engine_row(void *obj, const config_setting_t *s, const char *path, char *err,
			   size_t errlen)
{
	return read_engine(obj, s, path, err, errlen);
}

const struct spate_param spate_conf_rows[] = {
	{ "engine", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "drt", 0, 0, NULL, read_engine_row,
	  0,
	  "the matching engine of the offline tools (spate-match --list-engines); spated "
	  "matches with spated.category_engine inside its categories" },
	{ "attributes", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "( )", 0, 0, NULL, NULL, 0,
	  "the numeric attributes' schema: ( { name = \"price\"; min = 0.0; max = 1000.0; "
	  "cells = 100; }, ... ) (docs/protocol.md)",
	  attr_rows },
	{ "attribute_default", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0,
	  "{ min = 0.0; max = 1000000.0; cells = 1000; }", 0, 0, NULL, NULL, SPATE_PARAM_ONE_GROUP,
	  "the domain of an attribute the schema does not name: { min; max; cells; }", dflt_rows },
	LIMIT(max_keywords, SPATE_KW_MAX_HARD, "16", "keywords in one event or subscription"),
	LIMIT(max_keyword_len, SPATE_KW_LEN_MAX_HARD, "64", "bytes of one keyword"),
	LIMIT(max_constraints, SPATE_CONS_MAX_HARD, "16", "numeric constraints of a subscription"),
	LIMIT(max_attrs, SPATE_ATTR_MAX_HARD, "16", "numeric attributes of an event"),
	LIMIT(max_name_len, SPATE_NAME_LEN_MAX_HARD, "32", "bytes of an attribute's name"),
	{ "limits.max_messages", SPATE_PARAM_U32, SPATE_PARAM_RESTART, 1, 1024, "64",
	  CONF_U32(limits.max_messages), 0, NULL, NULL, 0,
	  "messages in one datagram (the notifier packs to the value it started with)" },
	{ "quotas.max_subs", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 0, UINT32_MAX, "0",
	  CONF_U32(matcher.max_subs), 0, NULL, NULL, 0, "subscriptions in all, 0 = unlimited" },
	{ "quotas.max_subs_per_client", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 0, UINT32_MAX, "0",
	  CONF_U32(matcher.max_subs_per_client), 0, NULL, NULL, 0,
	  "subscriptions of one client, 0 = unlimited" },
	{ "ivx.groups", SPATE_PARAM_U32, SPATE_PARAM_RESTART, 0, IVX_GROUPS_MAX, "0",
	  CONF_U32(matcher.params.ivx_groups), 0, NULL, NULL, 0,
	  "value groups of the ivx engine's interval indexes (0 = its own choice); they are "
	  "laid out for it at start" },
	{ NULL },
};
#define N_ROWS (sizeof(spate_conf_rows) / sizeof(spate_conf_rows[0]) - 1)

/* The offline tools' table: the "spate" group alone, in struct spate_conf. */
static const struct spate_param_section lib_spate = { "spate", "", 0, false, spate_conf_rows };
static const struct spate_param_section lib_drt = { "spate.drt", "drt.",
						    offsetof(struct spate_conf, matcher.params.drt),
						    true, drt_param_rows };
static const struct spate_param_section *const lib_sections[] = { &lib_drt, &lib_spate };
static const struct spate_param_table lib_table = { lib_sections, 2 };

int spate_conf_read(struct spate_conf *c, const config_t *cfg, const char *path, char *err,
		    size_t errlen)
{
	/* libconfig's lookups take non-const settings; they do not modify. */
	config_setting_t *top = config_lookup(cfg, "spate");

	c->matcher.engine = c->engine;
	if (top == NULL)
		return 0;
	/* Every key through its row, in the file's order: a key no row
	 * names is an error, never a silently ignored typo. */
	if (spate_param_read_group(&lib_table, c, top, "spate", path, err, errlen) != 0)
		return -1;
	return spate_conf_read_schema(c, top, path, err, errlen);
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

/* ---- run time: the integer rows by name, values as text ---- */

/* The integer rows of the group, as the callers of spate_conf_int_*
 * knew them: limits.*, quotas.*, ivx.groups. */
static const struct spate_param *int_row(size_t i)
{
	for (size_t k = 0; k < N_ROWS; k++)
		if (spate_conf_rows[k].type == SPATE_PARAM_U32 && i-- == 0)
			return &spate_conf_rows[k];
	return NULL;
}

size_t spate_conf_int_count(void)
{
	size_t n = 0;

	while (int_row(n) != NULL)
		n++;
	return n;
}

const char *spate_conf_int_name(size_t i)
{
	const struct spate_param *r = int_row(i);

	return r ? r->key : NULL;
}

static struct spate_param_ref find_int(const char *path)
{
	const struct spate_param *r;

	for (size_t i = 0; (r = int_row(i)) != NULL; i++)
		if (strcmp(r->key, path) == 0)
			break;
	return (struct spate_param_ref){ &lib_spate, r };
}

int spate_conf_int_set(struct spate_conf *c, const char *path, const char *value, char *err,
		       size_t errlen)
{
	struct spate_param_ref r = find_int(path);

	if (r.row == NULL) {
		snprintf(err, errlen, "unknown setting '%s'", path);
		return -1;
	}
	return spate_param_parse(r, c, value, err, errlen);
}

int spate_conf_int_get(const struct spate_conf *c, const char *path, char *buf, size_t len)
{
	struct spate_param_ref r = find_int(path);

	return r.row == NULL ? -1 : spate_param_format(r, c, buf, len);
}
