/* spate_param.c - the code every parameter row shares (spate_param.h):
 * read from libconfig, parse from text, format, list, document. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf/spate_conf.h"
#include "conf/spate_param.h"
#include "proto/spate_types.h"

static bool is_int_type(enum spate_param_type t)
{
	return t == SPATE_PARAM_U32 || t == SPATE_PARAM_U16 || t == SPATE_PARAM_INT;
}

/* "group.key", or "key" for the root's section. */
static void join(char *buf, size_t len, const char *group, const char *key)
{
	snprintf(buf, len, "%s%s%s", group, group[0] ? "." : "", key);
}

void spate_param_path(struct spate_param_ref ref, char *buf, size_t len)
{
	join(buf, len, ref.sec->group, ref.row->key);
}

void spate_param_ctl_name(struct spate_param_ref ref, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", ref.sec->ctl, ref.row->key);
}

bool spate_param_in_ctl(struct spate_param_ref ref)
{
	return ref.row != NULL && ref.row->reach != SPATE_PARAM_FILE &&
	       ref.row->type != SPATE_PARAM_CUSTOM;
}

size_t spate_param_count(const struct spate_param_section *sec)
{
	size_t n = 0;

	while (sec->rows[n].key != NULL)
		n++;
	return n;
}

struct spate_param_ref spate_param_at(const struct spate_param_table *t, size_t i)
{
	for (size_t s = 0; s < t->n; s++) {
		size_t n = spate_param_count(t->sec[s]);
		if (i < n)
			return (struct spate_param_ref){ t->sec[s], &t->sec[s]->rows[i] };
		i -= n;
	}
	return (struct spate_param_ref){ NULL, NULL };
}

struct spate_param_ref spate_param_find(const struct spate_param_table *t, const char *path)
{
	char buf[160];
	struct spate_param_ref r;

	for (size_t i = 0; (r = spate_param_at(t, i)).row != NULL; i++) {
		spate_param_path(r, buf, sizeof(buf));
		if (strcmp(buf, path) == 0)
			return r;
	}
	return r;
}

struct spate_param_ref spate_param_find_ctl(const struct spate_param_table *t, const char *name)
{
	char buf[160];
	struct spate_param_ref r;

	for (size_t i = 0; (r = spate_param_at(t, i)).row != NULL; i++) {
		if (!spate_param_in_ctl(r))
			continue;
		spate_param_ctl_name(r, buf, sizeof(buf));
		if (strcmp(buf, name) == 0)
			return r;
	}
	return r;
}

/* The child of gpath that `path` lies in ("spate.limits" for gpath
 * "spate" and path "spate.limits.max_keywords"), into child; false if
 * path is not inside gpath. */
static bool child_of(const char *gpath, const char *path, char *child, size_t len)
{
	size_t gl = strlen(gpath);

	if (gl > 0 && (strncmp(path, gpath, gl) != 0 || path[gl] != '.'))
		return false;
	const char *c = path + gl + (gl > 0);
	size_t n = strcspn(c, ".");
	snprintf(child, len, "%.*s", (int)n, c);
	return true;
}

/* A row's path as the group gpath sees it: the cluster group holds the
 * rows marked SPATE_PARAM_CLUSTER under their own key. */
static void path_in(struct spate_param_ref r, const char *gpath, char *buf, size_t len)
{
	if (strcmp(gpath, "cluster") == 0 && (r.row->flags & SPATE_PARAM_CLUSTER))
		join(buf, len, "cluster", r.row->key);
	else
		spate_param_path(r, buf, len);
}

bool spate_param_is_group(const struct spate_param_table *t, const char *gpath)
{
	char path[160], child[80];
	struct spate_param_ref r;

	for (size_t i = 0; (r = spate_param_at(t, i)).row != NULL; i++) {
		path_in(r, gpath, path, sizeof(path));
		if (child_of(gpath, path, child, sizeof(child)))
			return true;
	}
	return false;
}

/* Is `word` one of the comma-separated names in list? */
static bool listed(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n == wl && strncmp(p, word, wl) == 0)
			return true;
		p += n;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

void spate_param_known(const struct spate_param_table *t, const char *gpath, char *buf, size_t len)
{
	char path[160], child[80];
	struct spate_param_ref r;

	buf[0] = '\0';
	for (size_t i = 0; (r = spate_param_at(t, i)).row != NULL; i++) {
		path_in(r, gpath, path, sizeof(path));
		if (!child_of(gpath, path, child, sizeof(child)) || listed(buf, child))
			continue;
		size_t at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s", at ? ", " : "", child);
	}
}

/* The choices of an ENUM row, "a, b, c" (the unnamed values left out). */
static void choices(const struct spate_param *row, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; row->choices[i] != NULL; i++)
		if (row->choices[i][0] != '\0') {
			size_t at = strlen(buf);
			snprintf(buf + at, len - at, "%s%s", at ? ", " : "", row->choices[i]);
		}
}

static int choice_index(const struct spate_param *row, const char *name)
{
	for (int i = 0; row->choices[i] != NULL; i++)
		if (row->choices[i][0] != '\0' && strcmp(row->choices[i], name) == 0)
			return i;
	return -1;
}

/* Store an integer into a field of 1, 2 or 4 bytes (the row's size;
 * 0 means the type's own). Atomic: lcores read some of these live. */
static void store_int(const struct spate_param *row, void *obj, long long v)
{
	char *at = (char *)obj + row->off;
	size_t size = row->size;

	if (size == 0)
		size = row->type == SPATE_PARAM_U16 ? 2 : 4;
	if (size == 1)
		__atomic_store_n((uint8_t *)at, (uint8_t)v, __ATOMIC_RELAXED);
	else if (size == 2)
		__atomic_store_n((uint16_t *)at, (uint16_t)v, __ATOMIC_RELAXED);
	else if (row->type == SPATE_PARAM_INT)
		__atomic_store_n((int *)at, (int)v, __ATOMIC_RELAXED);
	else
		__atomic_store_n((uint32_t *)at, (uint32_t)v, __ATOMIC_RELAXED);
}

static long long load_int(const struct spate_param *row, const void *obj)
{
	const char *at = (const char *)obj + row->off;
	size_t size = row->size;

	if (size == 0)
		size = row->type == SPATE_PARAM_U16 ? 2 : 4;
	if (size == 1)
		return __atomic_load_n((const uint8_t *)at, __ATOMIC_RELAXED);
	if (size == 2)
		return __atomic_load_n((const uint16_t *)at, __ATOMIC_RELAXED);
	if (row->type == SPATE_PARAM_INT)
		return __atomic_load_n((const int *)at, __ATOMIC_RELAXED);
	return __atomic_load_n((const uint32_t *)at, __ATOMIC_RELAXED);
}

static void store_double(const struct spate_param *row, void *obj, double v)
{
	__atomic_store((double *)((char *)obj + row->off), &v, __ATOMIC_RELAXED);
}

static double load_double(const struct spate_param *row, const void *obj)
{
	double v;

	__atomic_load((const double *)((const char *)obj + row->off), &v, __ATOMIC_RELAXED);
	return v;
}

/* A number in range (integral for the integer types) into the field;
 * `what` names it. 0, or -1 with the message in err. */
static int store_number(const struct spate_param *row, void *obj, const char *what, double v,
			char *err, size_t errlen)
{
	if (is_int_type(row->type)) {
		if (v < row->min || v > row->max) {
			snprintf(err, errlen, "%s = %.17g is out of range [%.17g, %.17g]", what, v,
				 row->min, row->max);
			return -1;
		}
		store_int(row, obj, (long long)v);
		return 0;
	}
	if (v < row->min || v > row->max) {
		/* the value in full ("10000001", not "1e+07" beside a bound of
		 * 1e+07; 1.0000000000000002, not 1 beside a bound of 1) */
		snprintf(err, errlen, "%s = %.17g is out of range [%g, %g]", what, v, row->min,
			 row->max);
		return -1;
	}
	store_double(row, obj, v);
	return 0;
}

static int parse_mode(const char *text, uint32_t *mode)
{
	char *end;
	unsigned long m = strtoul(text, &end, 8);

	if (*text == '\0' || *end != '\0' || m > 0777)
		return -1;
	*mode = (uint32_t)m;
	return 0;
}

/* A number row's value from text: decimal digits for the integer types
 * ("0x10" or "1e3" is not what was meant), a finite number for doubles.
 * 0, or -1 with "what: 'text' is not ..." in err. */
static int parse_number(const struct spate_param *row, const char *what, const char *text,
			double *v, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	if (is_int_type(row->type)) {
		long long i = strtoll(text, &end, 10);
		if (end == text || *end != '\0' || errno == ERANGE) {
			snprintf(err, errlen, "%s: '%s' is not an integer", what, text);
			return -1;
		}
		*v = (double)i;
		return 0;
	}
	*v = strtod(text, &end);
	if (end == text || *end != '\0' || errno == ERANGE || !isfinite(*v)) {
		snprintf(err, errlen, "%s: '%s' is not a number", what, text);
		return -1;
	}
	return 0;
}

int spate_param_parse(struct spate_param_ref ref, void *obj, const char *text, char *err,
		      size_t errlen)
{
	const struct spate_param *row = ref.row;
	char name[96], list[160];

	spate_param_ctl_name(ref, name, sizeof(name));
	switch (row->type) {
	case SPATE_PARAM_U32:
	case SPATE_PARAM_U16:
	case SPATE_PARAM_INT:
	case SPATE_PARAM_DOUBLE: {
		double v;
		if (parse_number(row, name, text, &v, err, errlen) != 0)
			return -1;
		return store_number(row, obj, name, v, err, errlen);
	}
	case SPATE_PARAM_BOOL:
		if (strcmp(text, "true") != 0 && strcmp(text, "false") != 0) {
			snprintf(err, errlen, "%s: '%s' is not true or false", name, text);
			return -1;
		}
		__atomic_store_n((bool *)((char *)obj + row->off), text[0] == 't',
				 __ATOMIC_RELAXED);
		return 0;
	case SPATE_PARAM_ENUM: {
		int i = choice_index(row, text);
		if (i < 0) {
			choices(row, list, sizeof(list));
			snprintf(err, errlen, "%s: '%s' is not one of %s", name, text, list);
			return -1;
		}
		store_int(row, obj, i);
		return 0;
	}
	case SPATE_PARAM_MODE: {
		uint32_t m;
		if (parse_mode(text, &m) != 0) {
			snprintf(err, errlen,
				 "%s: '%s' is not an octal file mode (\"0600\" to \"0777\")", name,
				 text);
			return -1;
		}
		store_int(row, obj, m);
		return 0;
	}
	case SPATE_PARAM_STRING:
		if (strlen(text) >= row->size) {
			snprintf(err, errlen, "%s must be a string of at most %zu bytes", name,
				 row->size - 1);
			return -1;
		}
		snprintf((char *)obj + row->off, row->size, "%s", text);
		return 0;
	case SPATE_PARAM_CUSTOM:
		break;
	}
	snprintf(err, errlen, "%s: not settable from text", name);
	return -1;
}

int spate_param_format(struct spate_param_ref ref, const void *obj, char *buf, size_t len)
{
	const struct spate_param *row = ref.row;
	const char *at = (const char *)obj + row->off;

	switch (row->type) {
	case SPATE_PARAM_U32:
	case SPATE_PARAM_U16:
	case SPATE_PARAM_INT:
		snprintf(buf, len, "%lld", load_int(row, obj));
		return 0;
	case SPATE_PARAM_DOUBLE:
		spate_format_double(buf, len, load_double(row, obj));
		return 0;
	case SPATE_PARAM_BOOL:
		snprintf(buf, len, "%s",
			 __atomic_load_n((const bool *)at, __ATOMIC_RELAXED) ? "true" : "false");
		return 0;
	case SPATE_PARAM_ENUM: {
		long long v = load_int(row, obj);
		size_t n = 0;
		while (row->choices[n] != NULL)
			n++;
		/* "": a value no name sets (the log level's 0, "default");
		 * past the table (memory damage): "?", never past it */
		snprintf(buf, len, "%s",
			 v < 0 || (size_t)v >= n ? "?"
			 : row->choices[v][0]    ? row->choices[v]
						 : "default");
		return 0;
	}
	case SPATE_PARAM_MODE:
		snprintf(buf, len, "0%llo", (unsigned long long)load_int(row, obj));
		return 0;
	case SPATE_PARAM_STRING:
		snprintf(buf, len, "%s", at);
		return 0;
	case SPATE_PARAM_CUSTOM:
		break;
	}
	return -1;
}

bool spate_param_is_text(const struct spate_param *row)
{
	return row->type == SPATE_PARAM_STRING || row->type == SPATE_PARAM_ENUM ||
	       row->type == SPATE_PARAM_MODE;
}

void spate_param_copy_field(const struct spate_param *row, void *dst, const void *src)
{
	switch (row->type) {
	case SPATE_PARAM_U32:
	case SPATE_PARAM_U16:
	case SPATE_PARAM_INT:
	case SPATE_PARAM_ENUM:
	case SPATE_PARAM_MODE:
		store_int(row, dst, load_int(row, src));
		break;
	case SPATE_PARAM_DOUBLE:
		store_double(row, dst, load_double(row, src));
		break;
	case SPATE_PARAM_BOOL:
		__atomic_store_n((bool *)((char *)dst + row->off),
				 *(const bool *)((const char *)src + row->off), __ATOMIC_RELAXED);
		break;
	case SPATE_PARAM_STRING:
		memcpy((char *)dst + row->off, (const char *)src + row->off, row->size);
		break;
	case SPATE_PARAM_CUSTOM:
		break;
	}
}

int spate_param_add_setting(const struct spate_param *row, config_setting_t *group, const char *key,
			    const char *text)
{
	config_setting_t *s;

	switch (row->type) {
	case SPATE_PARAM_BOOL:
		s = config_setting_add(group, key, CONFIG_TYPE_BOOL);
		return s && config_setting_set_bool(s, strcmp(text, "true") == 0) ? 0 : -1;
	case SPATE_PARAM_DOUBLE:
		s = config_setting_add(group, key, CONFIG_TYPE_FLOAT);
		return s && config_setting_set_float(s, strtod(text, NULL)) ? 0 : -1;
	case SPATE_PARAM_U32:
	case SPATE_PARAM_U16:
	case SPATE_PARAM_INT:
		s = config_setting_add(group, key, CONFIG_TYPE_INT64);
		return s && config_setting_set_int64(s, strtoll(text, NULL, 10)) ? 0 : -1;
	default:
		s = config_setting_add(group, key, CONFIG_TYPE_STRING);
		return s && config_setting_set_string(s, text) ? 0 : -1;
	}
}

/* ---- the libconfig reader ---- */

int spate_param_read_setting(struct spate_param_ref ref, void *obj, const config_setting_t *s,
			     const char *what, const char *file, char *err, size_t errlen)
{
	const struct spate_param *row = ref.row;
	char path[160], why[300], list[160];
	int type = config_setting_type(s);
	bool is_num =
		type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64 || type == CONFIG_TYPE_FLOAT;

	if (what == NULL) {
		spate_param_path(ref, path, sizeof(path));
		what = path;
	}
	if (row->type == SPATE_PARAM_CUSTOM)
		return row->read(obj, s, file, err, errlen);
	/* the drt group took every value as text: numbers as strings too */
	if (ref.sec->text_numbers && type == CONFIG_TYPE_STRING &&
	    (is_int_type(row->type) || row->type == SPATE_PARAM_DOUBLE)) {
		double v;
		if (parse_number(row, what, config_setting_get_string(s), &v, why, sizeof(why)) !=
			    0 ||
		    store_number(row, obj, what, v, why, sizeof(why)) != 0)
			return spate_conf_error(err, errlen, file, s, "%s", why);
		return 0;
	}
	switch (row->type) {
	case SPATE_PARAM_U32:
	case SPATE_PARAM_U16:
	case SPATE_PARAM_INT:
	case SPATE_PARAM_DOUBLE: {
		double v;
		if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64) {
			long long i = config_setting_get_int64(s);
			/* exact: a 64-bit literal far out of range is refused */
			if (i < row->min || i > row->max) {
				if (is_int_type(row->type))
					return spate_conf_error(
						err, errlen, file, s,
						"%s = %lld is out of range [%.17g, %.17g]", what, i,
						row->min, row->max);
				return spate_conf_error(err, errlen, file, s,
							"%s = %lld is out of range [%g, %g]", what,
							i, row->min, row->max);
			}
			v = (double)i;
		} else if (type == CONFIG_TYPE_FLOAT && row->type == SPATE_PARAM_DOUBLE) {
			v = config_setting_get_float(s);
		} else {
			return spate_conf_error(err, errlen, file, s, "%s must be %s", what,
						is_int_type(row->type) ? "an integer" : "a number");
		}
		if (store_number(row, obj, what, v, why, sizeof(why)) != 0)
			return spate_conf_error(err, errlen, file, s, "%s", why);
		return 0;
	}
	case SPATE_PARAM_BOOL:
		if (type != CONFIG_TYPE_BOOL)
			return spate_conf_error(err, errlen, file, s, "%s must be true or false",
						what);
		*(bool *)((char *)obj + row->off) = config_setting_get_bool(s);
		return 0;
	case SPATE_PARAM_ENUM: {
		const char *v = config_setting_get_string(s);
		char num[32];
		if (v == NULL && ref.sec->text_numbers && is_num) {
			snprintf(num, sizeof(num), "%g",
				 type == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
							   : (double)config_setting_get_int64(s));
			v = num;
		}
		choices(row, list, sizeof(list));
		if (v == NULL)
			return spate_conf_error(err, errlen, file, s, "%s must be one of %s", what,
						list);
		int i = choice_index(row, v);
		if (i < 0)
			return spate_conf_error(err, errlen, file, s, "%s: '%s' is not one of %s",
						what, v, list);
		store_int(row, obj, i);
		return 0;
	}
	case SPATE_PARAM_MODE: {
		/* a string, since libconfig has no octal numbers: "0660" */
		const char *v = config_setting_get_string(s);
		uint32_t m;
		if (v == NULL)
			return spate_conf_error(err, errlen, file, s, "%s must be a string", what);
		if (parse_mode(v, &m) != 0)
			return spate_conf_error(err, errlen, file, s,
						"%s: '%s' is not an octal file mode (\"0600\" to "
						"\"0777\")",
						what, v);
		store_int(row, obj, m);
		return 0;
	}
	case SPATE_PARAM_STRING: {
		const char *v = config_setting_get_string(s);
		if (v == NULL || strlen(v) >= row->size)
			return spate_conf_error(err, errlen, file, s,
						"%s must be a string of at most %zu bytes", what,
						row->size - 1);
		snprintf((char *)obj + row->off, row->size, "%s", v);
		return 0;
	}
	case SPATE_PARAM_CUSTOM:
		break;
	}
	return 0;
}

int spate_param_read_entry(const struct spate_param *rows, void *obj, const config_setting_t *g,
			   const char *what, const char *file, char *err, size_t errlen)
{
	const struct spate_param_section sec = { what, "", 0, false, rows };
	char path[160], known[400];

	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(s);
		size_t k = 0;
		while (rows[k].key != NULL && strcmp(rows[k].key, name) != 0)
			k++;
		if (rows[k].key == NULL) {
			known[0] = '\0';
			for (k = 0; rows[k].key != NULL; k++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s%s", k ? ", " : "", rows[k].key);
			return spate_conf_error(err, errlen, file, s,
						"%s: unknown setting '%s' (known: %s)", what, name,
						known);
		}
		join(path, sizeof(path), what, name);
		if (spate_param_read_setting((struct spate_param_ref){ &sec, &rows[k] }, obj, s,
					     path, file, err, errlen) != 0)
			return -1;
	}
	return 0;
}

int spate_param_read_group(const struct spate_param_table *t, void *root, const config_setting_t *g,
			   const char *gpath, const char *file, char *err, size_t errlen)
{
	char known[1024];

	if (!config_setting_is_group(g))
		return spate_conf_error(err, errlen, file, g,
					strchr(gpath, '.') ? "%s must be a group { ... }"
							   : "'%s' must be a group { ... }",
					gpath);
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		char path[160];
		join(path, sizeof(path), gpath, config_setting_name(s));
		struct spate_param_ref r = spate_param_find(t, path);
		int rc = 0;

		if (r.row != NULL) {
			if (r.row->type != SPATE_PARAM_CUSTOM || r.row->read != NULL)
				rc = spate_param_read_setting(r, spate_param_obj(r, root), s, NULL,
							      file, err, errlen);
		} else if (spate_param_is_group(t, path)) {
			rc = spate_param_read_group(t, root, s, path, file, err, errlen);
		} else {
			spate_param_known(t, gpath, known, sizeof(known));
			if (gpath[0] == '\0')
				return spate_conf_error(err, errlen, file, s,
							"unknown group '%s' (known: %s)",
							config_setting_name(s), known);
			return spate_conf_error(err, errlen, file, s,
						"%s: unknown setting '%s' (known: %s)", gpath,
						config_setting_name(s), known);
		}
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* ---- the generated document ---- */

static const char *type_name(const struct spate_param *row)
{
	static const char *const names[] = {
		[SPATE_PARAM_U32] = "integer",     [SPATE_PARAM_U16] = "integer",
		[SPATE_PARAM_INT] = "integer",     [SPATE_PARAM_DOUBLE] = "number",
		[SPATE_PARAM_BOOL] = "boolean",    [SPATE_PARAM_STRING] = "string",
		[SPATE_PARAM_ENUM] = "choice",     [SPATE_PARAM_MODE] = "octal string",
		[SPATE_PARAM_CUSTOM] = "see help",
	};
	return names[row->type];
}

static const char *reach_name(enum spate_param_reach r)
{
	switch (r) {
	case SPATE_PARAM_LIVE:
		return "live (`spatectl set`)";
	case SPATE_PARAM_RESTART:
		return "restart (`show params`, `get`)";
	case SPATE_PARAM_CONFIG:
		return "restart (`get`, `show config`)";
	case SPATE_PARAM_FILE:
		break;
	}
	return "restart";
}

static void range_text(const struct spate_param *row, char *buf, size_t len)
{
	buf[0] = '\0';
	if (is_int_type(row->type))
		snprintf(buf, len, "%.17g to %.17g", row->min, row->max);
	else if (row->type == SPATE_PARAM_DOUBLE)
		snprintf(buf, len, "%g to %g", row->min, row->max);
	else if (row->type == SPATE_PARAM_ENUM)
		choices(row, buf, len);
	else if (row->type == SPATE_PARAM_STRING)
		snprintf(buf, len, "up to %zu bytes", row->size - 1);
	else if (row->type == SPATE_PARAM_MODE)
		snprintf(buf, len, "\"0000\" to \"0777\"");
	else if (row->type == SPATE_PARAM_BOOL)
		snprintf(buf, len, "true, false");
}

/* Pipes would end a markdown table cell. */
static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", out);
		else
			fputc(*s, out);
}

void spate_param_print_md(const struct spate_param_table *t, FILE *out)
{
	size_t total = 0;
	struct spate_param_ref q;

	for (size_t i = 0; (q = spate_param_at(t, i)).row != NULL; i++)
		for (size_t e = 0; q.row->entry && q.row->entry[e].key; e++)
			total++;
	for (size_t s = 0; s < t->n; s++)
		total += spate_param_count(t->sec[s]);
	fprintf(out,
		"# Parameters\n\n"
		"<!-- Generated from the parameter table (lib/conf/spate_param.h and the\n"
		"     rows of each module): do not edit. Regenerate with\n"
		"     `build/tests/app/test_app_params --write docs/parameters.md`;\n"
		"     the test app_params fails while this file and the table differ. -->\n\n"
		"Every key spated's configuration file may hold: %zu parameters. A key\n"
		"or group not listed here is refused with its file and line\n"
		"(`spated --check-config`). *Run time* says when a value takes effect:\n"
		"`live` ones change with `spatectl set NAME VALUE` (NAME is the spatectl\n"
		"name; `spatectl save` keeps them for the next start), the others at\n"
		"the next start. Keys marked *(cluster)* may also be set once for the\n"
		"whole cluster in the cluster group (docs/operations.md).\n",
		total);
	for (size_t s = 0; s < t->n; s++) {
		const struct spate_param_section *sec = t->sec[s];
		if (spate_param_count(sec) == 0)
			continue;
		fprintf(out, "\n## %s\n\n", sec->group[0] ? sec->group : "top-level groups");
		fprintf(out, "| Key | spatectl name | Type | Range | Default | Run time | "
			     "Description |\n|---|---|---|---|---|---|---|\n");
		for (size_t i = 0; sec->rows[i].key != NULL; i++) {
			struct spate_param_ref r = { sec, &sec->rows[i] };
			char path[160], name[96], range[200];
			spate_param_path(r, path, sizeof(path));
			spate_param_ctl_name(r, name, sizeof(name));
			range_text(r.row, range, sizeof(range));
			fprintf(out, "| `%s`%s | %s%s%s | %s | ", path,
				r.row->flags & SPATE_PARAM_CLUSTER ? " (cluster)" : "",
				spate_param_in_ctl(r) ? "`" : "",
				spate_param_in_ctl(r) ? name : "-",
				spate_param_in_ctl(r) ? "`" : "", type_name(r.row));
			md_cell(out, range);
			fputs(" | ", out);
			md_cell(out, r.row->def ? r.row->def : "");
			fprintf(out, " | %s | ", reach_name(r.row->reach));
			md_cell(out, r.row->help);
			fputs(" |\n", out);
			for (size_t e = 0; r.row->entry && r.row->entry[e].key; e++) {
				const struct spate_param *er = &r.row->entry[e];
				range_text(er, range, sizeof(range));
				fprintf(out, "| `%s%s.%s` | - | %s | ", path,
					r.row->flags & SPATE_PARAM_ONE_GROUP ? "" : "[]", er->key,
					type_name(er));
				md_cell(out, range);
				fputs(" | ", out);
				md_cell(out, er->def ? er->def : "");
				fprintf(out, " | %s | ", reach_name(er->reach));
				md_cell(out, er->help);
				fputs(" |\n", out);
			}
		}
	}
}
