/* ops_conf.c - the journal, control and access groups (ops_conf.h).
 * One table of keys per group (name, kind, range, destination), so every
 * error names the key, its line and what is allowed, and unknown keys are
 * errors rather than silently ignored typos. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/ops_conf.h"
#include "conf/spate_conf.h"

enum key_kind { K_STR, K_U32, K_DOUBLE, K_BOOL, K_SYNC, K_LOGLEVEL, K_MODE };

/* rte_log's levels, 1 (emerg) to 8 (debug), by name. */
static const char *const log_levels[] = { "",        "emerg",  "alert", "crit", "err",
					  "warning", "notice", "info",  "debug" };
#define N_LOG_LEVELS (sizeof(log_levels) / sizeof(log_levels[0]))

struct key {
	const char *name;
	enum key_kind kind;
	double min, max;  /* numbers */
	size_t off, size; /* destination in struct ops_conf; size of a string */
};

#define OFF(f) offsetof(struct ops_conf, f)
#define STR(n, f)                                                         \
	{                                                                 \
		n, K_STR, 0, 0, OFF(f), sizeof(((struct ops_conf *)0)->f) \
	}

static const struct key journal_keys[] = {
	STR("path", journal_path),
	{ "sync", K_SYNC, 0, 0, OFF(journal.sync), 0 },
	{ "sync_interval_us", K_U32, 100, 10000000, OFF(journal.sync_interval_us), 0 },
	{ "compact_min", K_U32, 16, 1e9, OFF(journal.compact_min), 0 },
	{ "compact_factor", K_U32, 2, 1000, OFF(journal.compact_factor), 0 },
};

static const struct key control_keys[] = {
	STR("socket", control_socket),
	/* a string, since libconfig has no octal numbers: "0660" */
	{ "mode", K_MODE, 0, 0777, OFF(control_mode), 0 },
	STR("group", control_group),
	STR("overrides", overrides_path),
	{ "log_level", K_LOGLEVEL, 0, 0, OFF(log_level), 0 },
};

static const struct key metrics_keys[] = {
	STR("listen", metrics_listen),
};

static const struct key access_keys[] = {
	{ "rate", K_DOUBLE, 0, 1e9, OFF(rate), 0 },
	{ "burst", K_U32, 1, 1000000000, OFF(burst), 0 },
	{ "require_auth", K_BOOL, 0, 0, OFF(require_auth), 0 },
};

void ops_conf_default(struct ops_conf *c)
{
	memset(c, 0, sizeof(*c));
	spate_journal_conf_default(&c->journal);
	c->control_mode = 0600;
	c->burst = 100;
}

void ops_conf_free(struct ops_conf *c)
{
	free(c->keys);
	c->keys = NULL;
	c->n_keys = 0;
}

static int range_error(char *err, size_t errlen, const char *group, const struct key *k, double v)
{
	/* the value in full ("10000001", not "1e+07" beside a bound of 1e+07) */
	snprintf(err, errlen, "%s.%s = %.15g is out of range [%g, %g]", group, k->name, v, k->min,
		 k->max);
	return -1;
}

static int parse_named(const struct key *k, const char *v)
{
	if (k->kind == K_SYNC)
		return spate_journal_sync_parse(v);
	for (size_t i = 1; i < N_LOG_LEVELS; i++)
		if (strcmp(v, log_levels[i]) == 0)
			return (int)i;
	return -1;
}

static const char *named_choices(const struct key *k)
{
	return k->kind == K_SYNC ? "none, always, interval"
				 : "emerg, alert, crit, err, warning, notice, info, debug";
}

static int read_key(struct ops_conf *c, const char *group, const struct key *k,
		    const config_setting_t *s, const char *path, char *err, size_t errlen)
{
	char *at = (char *)c + k->off;
	int type = config_setting_type(s);

	switch (k->kind) {
	case K_STR:
	case K_SYNC:
	case K_LOGLEVEL:
	case K_MODE: {
		const char *v = config_setting_get_string(s);
		if (v == NULL)
			return spate_conf_error(err, errlen, path, s, "%s.%s must be a string",
						group, k->name);
		if (k->kind == K_MODE) {
			char *end;
			unsigned long m = strtoul(v, &end, 8);
			if (*v == '\0' || *end != '\0' || m > 0777)
				return spate_conf_error(err, errlen, path, s,
							"%s.%s: '%s' is not an octal file mode "
							"(\"0600\" to \"0777\")",
							group, k->name, v);
			*(uint32_t *)at = (uint32_t)m;
			return 0;
		}
		if (k->kind != K_STR) {
			int n = parse_named(k, v);
			if (n < 0)
				return spate_conf_error(err, errlen, path, s,
							"%s.%s: '%s' is not one of %s", group,
							k->name, v, named_choices(k));
			*(uint32_t *)at = (uint32_t)n;
			return 0;
		}
		if (strlen(v) >= k->size)
			return spate_conf_error(err, errlen, path, s,
						"%s.%s is longer than %zu bytes", group, k->name,
						k->size - 1);
		snprintf(at, k->size, "%s", v);
		return 0;
	}
	case K_BOOL:
		if (type != CONFIG_TYPE_BOOL)
			return spate_conf_error(err, errlen, path, s, "%s.%s must be true or false",
						group, k->name);
		*(bool *)at = config_setting_get_bool(s);
		return 0;
	case K_U32:
	case K_DOUBLE: {
		double v;
		if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64)
			v = (double)config_setting_get_int64(s);
		else if (type == CONFIG_TYPE_FLOAT && k->kind == K_DOUBLE)
			v = config_setting_get_float(s);
		else
			return spate_conf_error(err, errlen, path, s, "%s.%s must be %s", group,
						k->name,
						k->kind == K_U32 ? "an integer" : "a number");
		if (v < k->min || v > k->max) {
			char why[200];
			range_error(why, sizeof(why), group, k, v);
			return spate_conf_error(err, errlen, path, s, "%s", why);
		}
		if (k->kind == K_U32)
			*(uint32_t *)at = (uint32_t)v;
		else
			*(double *)at = v;
		return 0;
	}
	}
	return 0;
}

int ops_conf_parse_listen(const char *s, uint32_t *ip, uint16_t *port)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strrchr(s, ':');
	struct in_addr a;
	char *end;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	long p = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || p < 1 || p > 65535 ||
	    inet_pton(AF_INET, host, &a) != 1)
		return -1;
	*ip = ntohl(a.s_addr);
	*port = (uint16_t)p;
	return 0;
}

static int hex_nibble(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = (char)tolower((unsigned char)ch);
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* keys = ( { client = N; key = "hex"; }, ... ) */
static int read_keys(struct ops_conf *c, const config_setting_t *s, const char *path, char *err,
		     size_t errlen)
{
	int n = config_setting_length(s);

	if (!config_setting_is_list(s) && !config_setting_is_array(s))
		return spate_conf_error(
			err, errlen, path, s,
			"access.keys must be a list ( { client = N; key = \"hex\"; }, ... )");
	if (n > OPS_KEYS_MAX)
		return spate_conf_error(err, errlen, path, s,
					"access.keys has %d entries, at most %d", n, OPS_KEYS_MAX);
	free(c->keys);
	c->n_keys = 0;
	c->keys = calloc((size_t)n + 1, sizeof(*c->keys));
	if (c->keys == NULL)
		return spate_conf_error(err, errlen, path, s, "out of memory");
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		long long client;
		const char *hex;
		struct ops_key *k = &c->keys[c->n_keys];

		if (!config_setting_is_group(e) || config_setting_length(e) != 2 ||
		    !config_setting_lookup_int64(e, "client", &client) ||
		    !config_setting_lookup_string(e, "key", &hex))
			return spate_conf_error(
				err, errlen, path, e,
				"access.keys[%d] must be { client = N; key = \"hex\"; }", i);
		if (client < 1 || client > UINT32_MAX)
			return spate_conf_error(
				err, errlen, path, e,
				"access.keys[%d]: client = %lld is out of range [1, %u]", i, client,
				UINT32_MAX);
		size_t len = strlen(hex);
		/* 16 bytes at least: a shorter HMAC key is guessable. */
		if (len % 2 != 0 || len < 32 || len > 2 * OPS_KEY_MAX)
			return spate_conf_error(err, errlen, path, e,
						"access.keys[%d]: key must be 32 to %d hex digits "
						"(16 to %d bytes), even count",
						i, 2 * OPS_KEY_MAX, OPS_KEY_MAX);
		for (size_t b = 0; b < len / 2; b++) {
			int hi = hex_nibble(hex[2 * b]), lo = hex_nibble(hex[2 * b + 1]);
			if (hi < 0 || lo < 0)
				return spate_conf_error(err, errlen, path, e,
							"access.keys[%d]: key has a non-hex digit",
							i);
			k->key[b] = (uint8_t)(hi << 4 | lo);
		}
		for (uint32_t j = 0; j < c->n_keys; j++)
			if (c->keys[j].client == (uint32_t)client)
				return spate_conf_error(
					err, errlen, path, e,
					"access.keys[%d]: client %lld has a key already", i,
					client);
		k->client = (uint32_t)client;
		k->len = (uint8_t)(len / 2);
		c->n_keys++;
	}
	return 0;
}

static int read_group(struct ops_conf *c, const config_t *cfg, const char *group,
		      const struct key *keys, size_t n_keys, const char *path, char *err,
		      size_t errlen)
{
	config_setting_t *g = config_lookup(cfg, group);

	if (g == NULL)
		return 0;
	if (!config_setting_is_group(g))
		return spate_conf_error(err, errlen, path, g, "'%s' must be a group { ... }",
					group);
	for (int i = 0; i < config_setting_length(g); i++) {
		config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(s);
		int rc = 1;

		for (size_t k = 0; k < n_keys && rc > 0; k++)
			if (strcmp(name, keys[k].name) == 0)
				rc = read_key(c, group, &keys[k], s, path, err, errlen);
		if (rc > 0 && strcmp(group, "access") == 0 && strcmp(name, "keys") == 0)
			rc = read_keys(c, s, path, err, errlen);
		if (rc > 0) {
			char known[256] = "";
			for (size_t k = 0; k < n_keys; k++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s%s", k ? ", " : "", keys[k].name);
			return spate_conf_error(
				err, errlen, path, s, "%s: unknown setting '%s' (known: %s%s)",
				group, name, known, strcmp(group, "access") == 0 ? ", keys" : "");
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Every group of this file: what ops_conf_read reads, what the run-time
 * names resolve in, and (ops_conf_group_name) the top-level groups a
 * configuration may hold besides spate and spated. One table, so a group
 * added here is read and known at once. */
struct group {
	const char *name;
	const struct key *keys;
	size_t n;
};

static const struct group groups[] = {
	{ "journal", journal_keys, sizeof(journal_keys) / sizeof(journal_keys[0]) },
	{ "control", control_keys, sizeof(control_keys) / sizeof(control_keys[0]) },
	{ "access", access_keys, sizeof(access_keys) / sizeof(access_keys[0]) },
	{ "metrics", metrics_keys, sizeof(metrics_keys) / sizeof(metrics_keys[0]) },
};

int ops_conf_read(struct ops_conf *c, const config_t *cfg, const char *path, char *err,
		  size_t errlen)
{
	uint32_t ip;
	uint16_t port;

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		if (read_group(c, cfg, groups[g].name, groups[g].keys, groups[g].n, path, err,
			       errlen) != 0)
			return -1;
	if (c->metrics_listen[0] != '\0' &&
	    ops_conf_parse_listen(c->metrics_listen, &ip, &port) != 0)
		return spate_conf_error(
			err, errlen, path, config_lookup(cfg, "metrics.listen"),
			"metrics.listen = \"%s\": want \"A.B.C.D:PORT\" (port 1 to 65535), "
			"e.g. \"127.0.0.1:9180\"",
			c->metrics_listen);
	if (c->require_auth && c->n_keys == 0)
		return spate_conf_error(err, errlen, path,
					config_lookup(cfg, "access.require_auth"),
					"access.require_auth is true but access.keys is empty");
	return 0;
}

int ops_conf_read_overrides(struct ops_conf *c, struct spate_conf *common,
			    int (*more)(void *ctx, const config_t *cfg, const char *path, char *err,
					size_t errlen),
			    void *ctx, char *err, size_t errlen)
{
	char path[sizeof(c->overrides_path)];
	config_t cfg;
	int rc;

	/* Read before the file may change it (it cannot name another). */
	snprintf(path, sizeof(path), "%s", c->overrides_path);
	if (path[0] == '\0' || access(path, F_OK) != 0)
		return 0;
	config_init(&cfg);
	if (spate_conf_read_file(&cfg, path) != CONFIG_TRUE) {
		snprintf(err, errlen, "%s:%d: %s", path, config_error_line(&cfg),
			 config_error_type(&cfg) == CONFIG_ERR_FILE_IO ? "cannot read file"
								       : config_error_text(&cfg));
		config_destroy(&cfg);
		return -1;
	}
	rc = spate_conf_read(common, &cfg, path, err, errlen);
	if (rc == 0)
		rc = ops_conf_read(c, &cfg, path, err, errlen);
	if (rc == 0 && more != NULL)
		rc = more(ctx, &cfg, path, err, errlen);
	snprintf(c->overrides_path, sizeof(c->overrides_path), "%s", path);
	config_destroy(&cfg);
	return rc;
}

/* ---- run time: the same keys by "group.key" name, values as text ---- */

const char *ops_conf_group_name(size_t i)
{
	return i < sizeof(groups) / sizeof(groups[0]) ? groups[i].name : NULL;
}

/* Changeable while running: the others (paths, socket) need a restart. */
static const char *const runtime_names[] = {
	"journal.sync",           "journal.sync_interval_us", "journal.compact_min",
	"journal.compact_factor", "control.log_level",        "access.rate",
	"access.burst",           "access.require_auth",
};
#define N_RUNTIME (sizeof(runtime_names) / sizeof(runtime_names[0]))

size_t ops_conf_runtime_count(void)
{
	return N_RUNTIME;
}

const char *ops_conf_runtime_name(size_t i)
{
	return i < N_RUNTIME ? runtime_names[i] : NULL;
}

static const struct key *find_key(const char *name, const char **group)
{
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		size_t gl = strlen(groups[g].name);
		if (strncmp(name, groups[g].name, gl) != 0 || name[gl] != '.')
			continue;
		for (size_t k = 0; k < groups[g].n; k++)
			if (strcmp(name + gl + 1, groups[g].keys[k].name) == 0) {
				*group = groups[g].name;
				return &groups[g].keys[k];
			}
	}
	return NULL;
}

static bool is_runtime(const char *name)
{
	for (size_t i = 0; i < N_RUNTIME; i++)
		if (strcmp(name, runtime_names[i]) == 0)
			return true;
	return false;
}

bool ops_conf_is_text(const char *name)
{
	const char *group;
	const struct key *k = find_key(name, &group);

	return k != NULL && k->kind != K_U32 && k->kind != K_DOUBLE && k->kind != K_BOOL;
}

int ops_conf_get(const struct ops_conf *c, const char *name, char *buf, size_t len)
{
	const char *group;
	const struct key *k = find_key(name, &group);

	if (k == NULL)
		return -1;
	const char *at = (const char *)c + k->off;
	switch (k->kind) {
	case K_STR:
		snprintf(buf, len, "%s", at);
		break;
	case K_U32:
		snprintf(buf, len, "%u", *(const uint32_t *)at);
		break;
	case K_MODE:
		snprintf(buf, len, "0%o", *(const uint32_t *)at);
		break;
	case K_DOUBLE:
		spate_format_double(buf, len, *(const double *)at);
		break;
	case K_BOOL:
		snprintf(buf, len, "%s", *(const bool *)at ? "true" : "false");
		break;
	case K_SYNC:
		snprintf(buf, len, "%s", spate_journal_sync_name((int)*(const uint32_t *)at));
		break;
	case K_LOGLEVEL: {
		uint32_t l = *(const uint32_t *)at;
		snprintf(buf, len, "%s", l < N_LOG_LEVELS && l ? log_levels[l] : "default");
		break;
	}
	}
	return 0;
}

int ops_conf_set(struct ops_conf *c, const char *name, const char *value, char *err, size_t errlen)
{
	const char *group;
	const struct key *k = find_key(name, &group);
	char *end;

	if (k == NULL || !is_runtime(name)) {
		snprintf(err, errlen,
			 k ? "%s changes at the next start only" : "unknown setting '%s'", name);
		return -1;
	}
	char *at = (char *)c + k->off;
	switch (k->kind) {
	case K_U32:
	case K_DOUBLE: {
		double v = strtod(value, &end);
		if (end == value || *end != '\0' || v != v) {
			snprintf(err, errlen, "%s: '%s' is not a number", name, value);
			return -1;
		}
		if (k->kind == K_U32 && v != (double)(long long)v) {
			snprintf(err, errlen, "%s: '%s' is not an integer", name, value);
			return -1;
		}
		if (v < k->min || v > k->max)
			return range_error(err, errlen, group, k, v);
		if (k->kind == K_U32)
			*(uint32_t *)at = (uint32_t)v;
		else
			*(double *)at = v;
		return 0;
	}
	case K_BOOL:
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
			snprintf(err, errlen, "%s: '%s' is not true or false", name, value);
			return -1;
		}
		*(bool *)at = value[0] == 't';
		return 0;
	case K_SYNC:
	case K_LOGLEVEL: {
		int n = parse_named(k, value);
		if (n < 0) {
			snprintf(err, errlen, "%s: '%s' is not one of %s", name, value,
				 named_choices(k));
			return -1;
		}
		*(uint32_t *)at = (uint32_t)n;
		return 0;
	}
	case K_STR:
	case K_MODE:
		break;
	}
	snprintf(err, errlen, "%s changes at the next start only", name);
	return -1;
}
