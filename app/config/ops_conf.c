/* ops_conf.c - the journal, control and access groups (ops_conf.h).
 * One row per key (spate_param.h), so every error names the key, its line
 * and what is allowed, and unknown keys are errors rather than silently
 * ignored typos. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/ops_conf.h"
#include "conf/spate_conf.h"
#include "conf/spate_param.h"

/* rte_log's levels, 1 (emerg) to 8 (debug), by name; 0 is DPDK's default. */
static const char *const log_levels[] = { "",        "emerg",  "alert", "crit",  "err",
					  "warning", "notice", "info",  "debug", NULL };
static const char *const sync_names[] = { "none", "always", "interval", NULL };

static int read_keys(void *obj, const config_setting_t *s, const char *path, char *err,
		     size_t errlen);

#define OC(f) offsetof(struct ops_conf, f), sizeof(((struct ops_conf *)0)->f)
#define STR(key, reach, f, def, help)                                                          \
	{                                                                                      \
		key, SPATE_PARAM_STRING, SPATE_PARAM_##reach, 0, 0, def, OC(f), NULL, NULL, 0, \
			help                                                                   \
	}

/* The rows of the four groups (spate_param.h): the paths and the socket
 * need a restart; the rest changes live (spatectl set). */
const struct spate_param ops_journal_rows[] = {
	STR("path", CONFIG, journal_path, "", "the subscriptions' journal; \"\" = no journal"),
	{ "sync", SPATE_PARAM_ENUM, SPATE_PARAM_LIVE, 0, 0, "always", OC(journal.sync), sync_names,
	  NULL, 0,
	  "none: write() before the ACK; always: fdatasync() every commit; interval: at most "
	  "sync_interval_us unsynced" },
	{ "sync_interval_us", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 100, 10000000, "10000",
	  OC(journal.sync_interval_us), NULL, NULL, 0,
	  "sync = \"interval\": the longest unsynced" },
	{ "compact_min", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 16, 1e9, "4096",
	  OC(journal.compact_min), NULL, NULL, 0,
	  "compact when the file holds more records than this" },
	{ "compact_factor", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 2, 1000, "2",
	  OC(journal.compact_factor), NULL, NULL, 0, "... and more than this x the live subs" },
	{ NULL },
};

const struct spate_param ops_control_rows[] = {
	STR("socket", CONFIG, control_socket, "",
	    "the control socket; \"\" = <EAL runtime dir>/spated.sock, \"none\" = no socket"),
	{ "mode", SPATE_PARAM_MODE, SPATE_PARAM_CONFIG, 0, 0777, "0600", OC(control_mode), NULL,
	  NULL, 0, "file mode of the socket (octal, a string: libconfig has no octal numbers)" },
	STR("group", CONFIG, control_group, "", "group owning the socket (\"\" = root's)"),
	STR("overrides", CONFIG, overrides_path, "",
	    "the file `spatectl save` writes and the next start reads after this one"),
	{ "log_level", SPATE_PARAM_ENUM, SPATE_PARAM_LIVE, 0, 0, "default", OC(log_level),
	  log_levels, NULL, 0, "of the \"spate\" log type (spatectl: log_level for short)" },
	{ NULL },
};

const struct spate_param ops_access_rows[] = {
	{ "rate", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 1e9, "0", OC(rate), NULL, NULL, 0,
	  "sub operations per second per client, 0 = unlimited" },
	{ "burst", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 1, 1e9, "100", OC(burst), NULL, NULL, 0,
	  "token bucket depth of rate" },
	{ "require_auth", SPATE_PARAM_BOOL, SPATE_PARAM_LIVE, 0, 0, "false", OC(require_auth), NULL,
	  NULL, 0, "drop datagrams without a valid HMAC (needs keys)" },
	{ "keys", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "( )", 0, 0, NULL, read_keys, 0,
	  "clients' HMAC keys: ( { client = N; key = \"<32 to 128 hex digits>\"; }, ... )" },
	{ NULL },
};

const struct spate_param ops_metrics_rows[] = {
	STR("listen", CONFIG, metrics_listen, "",
	    "\"A.B.C.D:PORT\" of the OpenMetrics endpoint, \"\" = off"),
	{ NULL },
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
static int read_keys(void *obj, const config_setting_t *s, const char *path, char *err,
		     size_t errlen)
{
	struct ops_conf *c = obj;
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

/* The groups with struct ops_conf as their root, for the functions below. */
static const struct spate_param_section sections[] = {
	{ "journal", "journal.", 0, false, ops_journal_rows },
	{ "control", "control.", 0, false, ops_control_rows },
	{ "access", "access.", 0, false, ops_access_rows },
	{ "metrics", "metrics.", 0, false, ops_metrics_rows },
};
static const struct spate_param_section *const section_list[] = { &sections[0], &sections[1],
								  &sections[2], &sections[3] };
static const struct spate_param_table table = { section_list, 4 };

int ops_conf_check(const struct ops_conf *c, const config_t *cfg, const char *path, char *err,
		   size_t errlen)
{
	uint32_t ip;
	uint16_t port;

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

bool ops_conf_is_text(const char *name)
{
	struct spate_param_ref r = spate_param_find_ctl(&table, name);

	return r.row != NULL && spate_param_is_text(r.row);
}

int ops_conf_get(const struct ops_conf *c, const char *name, char *buf, size_t len)
{
	struct spate_param_ref r = spate_param_find_ctl(&table, name);

	return r.row == NULL ? -1 : spate_param_format(r, c, buf, len);
}

int ops_conf_set(struct ops_conf *c, const char *name, const char *value, char *err, size_t errlen)
{
	struct spate_param_ref r = spate_param_find_ctl(&table, name);

	if (r.row == NULL || r.row->reach != SPATE_PARAM_LIVE) {
		snprintf(err, errlen,
			 r.row ? "%s changes at the next start only" : "unknown setting '%s'",
			 name);
		return -1;
	}
	return spate_param_parse(r, c, value, err, errlen);
}
