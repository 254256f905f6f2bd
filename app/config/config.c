/* config.c - reads the "spated" group (see config.h) and the common
 * "spate" group through spate_conf_read(), so limits and quotas mean the
 * same thing to the daemon and to the offline tools. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libconfig.h>

#include "config/config.h"
#include "matcher/spate_engine.h"

/* No demo device and no --no-pci by default: without a port in the
 * configuration spated takes the ports the EAL probes, or says how to
 * bind one (port_find.h). */
static const char *const default_eal[] = {
	"--file-prefix=spated",
};

void spated_conf_default(struct spated_conf *c)
{
	memset(c, 0, sizeof(*c));
	spate_conf_default(&c->common);
	for (size_t i = 0; i < sizeof(default_eal) / sizeof(default_eal[0]); i++)
		c->eal[c->n_eal++] = strdup(default_eal[i]);
	c->ipv4 = 0xc6120001; /* 198.18.0.1 */
	c->prefix_len = -1;   /* not given: every destination is on the link */
	c->udp_port = 47100;
	c->mtu = 1500;
	c->mbufs = 0; /* 0: derived from the memory (sizing.h) */
	c->rx_desc = 512;
	c->tx_desc = 512;
	c->lcores = (struct spated_lcores){
		.n_rx = 1, .rx = { -1 }, .tx = -1, .cluster = -1, .n_match = 1, .match = { -1 }
	};
	c->ring_size = 0;
	c->msgs = 0;
	c->backlog_max = 0;
	snprintf(c->category_engine, sizeof(c->category_engine), "drt");
	c->rcu_cpu = -1;
	c->rcu_warn_ms = 1000;
	c->idle_spin_us = 1000;
	ops_conf_default(&c->ops);
	host_conf_default(&c->hosts);
}

void spated_conf_free(struct spated_conf *c)
{
	for (int i = 0; i < c->n_eal; i++)
		free(c->eal[i]);
	c->n_eal = 0;
	ops_conf_free(&c->ops);
	host_conf_wipe(&c->hosts);
}

/* Integer keys of the "spated" group: name, range, destination. */
struct uint_key {
	const char *name;
	long long min, max;
	size_t off;  /* offset in struct spated_conf */
	size_t size; /* 2 or 4 */
};

#define UKEY(n, lo, hi, field)                                   \
	{                                                        \
		n, lo, hi, offsetof(struct spated_conf, field),  \
			sizeof(((struct spated_conf *)0)->field) \
	}

static const struct uint_key uint_keys[] = {
	UKEY("udp_port", 1, 65535, udp_port),
	/* 576: the IPv4 minimum; 9000: jumbo, needs framesz on af_packet. */
	UKEY("mtu", 576, 9000, mtu),
	/* 0: derived from the memory spated is given (sizing.h) */
	UKEY("mbufs", 0, 1 << 20, mbufs),
	UKEY("rx_desc", 32, 16384, rx_desc),
	UKEY("tx_desc", 32, 16384, tx_desc),
	UKEY("stats_interval", 0, 86400, stats_interval),
	UKEY("idle_spin_us", 0, 1000000, idle_spin_us),
	UKEY("idle_sleep_us", 0, 100000, idle_sleep_us),
	UKEY("ring_size", 0, 1 << 20, ring_size),
	UKEY("msgs", 0, 1 << 22, msgs),
	UKEY("backlog_max", 0, 1 << 20, backlog_max),
	UKEY("rcu_warn_ms", 0, 600000, rcu_warn_ms),
};

static int read_uint(struct spated_conf *c, const config_setting_t *s, const struct uint_key *k,
		     const char *path, char *err, size_t errlen)
{
	int type = config_setting_type(s);

	if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
		return spate_conf_error(err, errlen, path, s, "spated.%s must be an integer",
					k->name);
	long long v = config_setting_get_int64(s);
	if (v < k->min || v > k->max)
		return spate_conf_error(err, errlen, path, s,
					"spated.%s = %lld is out of range [%lld, %lld]", k->name, v,
					k->min, k->max);
	if (k->size == 2)
		*(uint16_t *)((char *)c + k->off) = (uint16_t)v;
	else
		*(uint32_t *)((char *)c + k->off) = (uint32_t)v;
	return 0;
}

static int read_eal(struct spated_conf *c, const config_setting_t *s, const char *path, char *err,
		    size_t errlen)
{
	if (!config_setting_is_array(s) && !config_setting_is_list(s))
		return spate_conf_error(err, errlen, path, s,
					"spated.eal must be a list of strings [ \"...\", ... ]");
	int n = config_setting_length(s);
	if (n > SPATED_EAL_ARGS_MAX)
		return spate_conf_error(err, errlen, path, s,
					"spated.eal has %d arguments, at most %d", n,
					SPATED_EAL_ARGS_MAX);
	spated_conf_free(c);
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, i);
		const char *v = config_setting_get_string(e);
		if (v == NULL)
			return spate_conf_error(err, errlen, path, e,
						"spated.eal[%d] must be a string", i);
		c->eal[c->n_eal++] = strdup(v);
	}
	return 0;
}

static int read_device(struct spated_conf *c, const config_setting_t *e, const char *path,
		       char *err, size_t errlen)
{
	const char *v = config_setting_get_string(e);

	if (v == NULL)
		return spate_conf_error(err, errlen, path, e,
					"spated.port.device must be a string or a list of strings");
	if (strlen(v) >= sizeof(c->devices[0]))
		return spate_conf_error(err, errlen, path, e, "spated.port.device is too long");
	snprintf(c->devices[c->n_devices++], sizeof(c->devices[0]), "%s", v);
	return 0;
}

static int read_port(struct spated_conf *c, const config_setting_t *s, const char *path, char *err,
		     size_t errlen)
{
	if (!config_setting_is_group(s))
		return spate_conf_error(err, errlen, path, s,
					"spated.port must be a group { device = \"...\"; }");
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *e = config_setting_get_elem(s, i);
		const char *name = config_setting_name(e);
		if (strcmp(name, "device") != 0)
			return spate_conf_error(err, errlen, path, e,
						"spated.port: unknown setting '%s' (known: device)",
						name);
		c->n_devices = 0;
		if (config_setting_type(e) == CONFIG_TYPE_STRING)
			return read_device(c, e, path, err, errlen);
		int n = config_setting_length(e);
		if ((!config_setting_is_array(e) && !config_setting_is_list(e)) || n < 1 ||
		    n > SPATED_PORTS_MAX)
			return spate_conf_error(err, errlen, path, e,
						"spated.port.device must be a vdev string or a "
						"list of 1 to %d of them",
						SPATED_PORTS_MAX);
		for (int k = 0; k < n; k++)
			if (read_device(c, config_setting_get_elem(e, k), path, err, errlen) != 0)
				return -1;
	}
	return 0;
}

/* A unicast address: 0/8, 127/8, 224/4 and up cannot be on a link. */
static bool is_unicast(uint32_t ip)
{
	return (ip >> 24) != 0 && (ip >> 24) != 127 && (ip >> 28) < 14;
}

/* "A.B.C.D" or "A.B.C.D/N" (the link's prefix, for the gateway). */
static int read_ipv4(struct spated_conf *c, const config_setting_t *s, const char *path, char *err,
		     size_t errlen)
{
	const char *v = config_setting_get_string(s);
	char addr[INET_ADDRSTRLEN + 4];
	struct in_addr a;
	int prefix = -1;

	if (v != NULL) {
		snprintf(addr, sizeof(addr), "%s", v);
		char *slash = strchr(addr, '/');
		if (slash != NULL) {
			char *end;
			long n = strtol(slash + 1, &end, 10);
			if (*end != '\0' || end == slash + 1 || n < 1 || n > 32)
				return spate_conf_error(err, errlen, path, s,
							"spated.ipv4 = \"%s\": the prefix length "
							"after '/' must be 1 to 32",
							v);
			prefix = (int)n;
			*slash = '\0';
		}
	}
	if (v == NULL || inet_pton(AF_INET, addr, &a) != 1)
		return spate_conf_error(err, errlen, path, s,
					"spated.ipv4 must be a dotted IPv4 address string, with an "
					"optional /prefix");
	uint32_t ip = ntohl(a.s_addr);
	if (!is_unicast(ip))
		return spate_conf_error(err, errlen, path, s,
					"spated.ipv4 = %s is not a unicast address", v);
	c->ipv4 = ip;
	c->prefix_len = prefix;
	return 0;
}

static int read_gateway(struct spated_conf *c, const config_setting_t *s, const char *path,
			char *err, size_t errlen)
{
	const char *v = config_setting_get_string(s);
	struct in_addr a;

	if (v == NULL || inet_pton(AF_INET, v, &a) != 1 || !is_unicast(ntohl(a.s_addr)))
		return spate_conf_error(
			err, errlen, path, s,
			"spated.gateway must be a dotted unicast IPv4 address string");
	c->gateway = ntohl(a.s_addr);
	return 0;
}

static int read_lcore_id(const config_setting_t *s, const char *what, int *out, const char *path,
			 char *err, size_t errlen)
{
	if (config_setting_type(s) != CONFIG_TYPE_INT)
		return spate_conf_error(err, errlen, path, s,
					"spated.lcores.%s must be an lcore id (integer)", what);
	int v = config_setting_get_int(s);
	if (v < 0 || v >= 1024)
		return spate_conf_error(err, errlen, path, s,
					"spated.lcores.%s = %d is out of range [0, 1023]", what, v);
	*out = v;
	return 0;
}

/* spated.lcores.WHAT = [ N, ... ]: 1 to max ids into out[], their count in *n. */
static int read_lcore_list(const config_setting_t *s, const char *what, const char *shape,
			   const char *why, int max, int *out, uint32_t *n, const char *path,
			   char *err, size_t errlen)
{
	int len = config_setting_length(s);
	char elem[32];

	if ((!config_setting_is_array(s) && !config_setting_is_list(s)) || len < 1 || len > max)
		return spate_conf_error(
			err, errlen, path, s,
			"spated.lcores.%s must be %s of 1 to %d lcore ids [ N, ... ]%s", what,
			shape, max, why);
	snprintf(elem, sizeof(elem), "%s[]", what);
	for (int k = 0; k < len; k++)
		if (read_lcore_id(config_setting_get_elem(s, k), elem, &out[k], path, err,
				  errlen) != 0)
			return -1;
	*n = (uint32_t)len;
	return 0;
}

static int read_lcores(struct spated_conf *c, const config_setting_t *g, const char *path,
		       char *err, size_t errlen)
{
	if (!config_setting_is_group(g))
		return spate_conf_error(err, errlen, path, g,
					"spated.lcores must be a group { rx = N or [ N, ... ]; tx "
					"= N; cluster = N; match = [ N, ... ]; }");
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, i);
		const char *name = config_setting_name(s);
		int rc;

		if (strcmp(name, "rx") == 0 && config_setting_type(s) == CONFIG_TYPE_INT) {
			rc = read_lcore_id(s, name, &c->lcores.rx[0], path, err, errlen);
			c->lcores.n_rx = 1;
		} else if (strcmp(name, "rx") == 0) {
			rc = read_lcore_list(s, "rx", "an lcore id or a list",
					     " (one RX queue each)", SPATED_RX_MAX, c->lcores.rx,
					     &c->lcores.n_rx, path, err, errlen);
		} else if (strcmp(name, "tx") == 0)
			rc = read_lcore_id(s, name, &c->lcores.tx, path, err, errlen);
		else if (strcmp(name, "cluster") == 0)
			rc = read_lcore_id(s, name, &c->lcores.cluster, path, err, errlen);
		else if (strcmp(name, "match") == 0) {
			rc = read_lcore_list(s, "match", "a list", "", SPATED_MATCH_MAX,
					     c->lcores.match, &c->lcores.n_match, path, err,
					     errlen);
		} else
			return spate_conf_error(err, errlen, path, s,
						"spated.lcores: unknown setting '%s' (known: rx, "
						"tx, cluster, match)",
						name);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static int read_string(const config_setting_t *s, const char *key, char *out, size_t outlen,
		       const char *path, char *err, size_t errlen)
{
	const char *v = config_setting_get_string(s);

	if (v == NULL || strlen(v) >= outlen)
		return spate_conf_error(err, errlen, path, s,
					"spated.%s must be a string of at most %zu bytes", key,
					outlen - 1);
	snprintf(out, outlen, "%s", v);
	return 0;
}

static int read_spated(struct spated_conf *c, const config_t *cfg, const char *path, char *err,
		       size_t errlen)
{
	/* libconfig lookups take non-const pointers; they do not modify. */
	config_setting_t *top = config_lookup(cfg, "spated");

	if (top == NULL)
		return 0;
	if (!config_setting_is_group(top))
		return spate_conf_error(err, errlen, path, top, "'spated' must be a group { ... }");
	for (int i = 0; i < config_setting_length(top); i++) {
		const config_setting_t *s = config_setting_get_elem(top, i);
		const char *name = config_setting_name(s);
		int rc = 1;

		if (strcmp(name, "eal") == 0)
			rc = read_eal(c, s, path, err, errlen);
		else if (strcmp(name, "port") == 0)
			rc = read_port(c, s, path, err, errlen);
		else if (strcmp(name, "ipv4") == 0)
			rc = read_ipv4(c, s, path, err, errlen);
		else if (strcmp(name, "gateway") == 0)
			rc = read_gateway(c, s, path, err, errlen);
		else if (strcmp(name, "lcores") == 0)
			rc = read_lcores(c, s, path, err, errlen);
		else if (strcmp(name, "preload") == 0)
			rc = read_string(s, name, c->preload, sizeof(c->preload), path, err,
					 errlen);
		else if (strcmp(name, "category_engine") == 0)
			rc = read_string(s, name, c->category_engine, sizeof(c->category_engine),
					 path, err, errlen);
		else if (strcmp(name, "rcu_cpu") == 0) {
			if (config_setting_type(s) != CONFIG_TYPE_INT ||
			    config_setting_get_int(s) < -1 || config_setting_get_int(s) > 1023)
				return spate_conf_error(err, errlen, path, s,
							"spated.rcu_cpu must be -1 (not pinned) or "
							"a CPU in [0, 1023]");
			c->rcu_cpu = config_setting_get_int(s);
			rc = 0;
		} else if (strcmp(name, "debug_hooks") == 0 ||
			   strcmp(name, "cpu_accounting") == 0) {
			bool *flag = strcmp(name, "debug_hooks") == 0 ? &c->debug_hooks
								      : &c->cpu_accounting;

			if (config_setting_type(s) != CONFIG_TYPE_BOOL)
				return spate_conf_error(err, errlen, path, s,
							"spated.%s must be true or false", name);
			*flag = config_setting_get_bool(s);
			rc = 0;
		}
		if (rc > 0)
			rc = host_conf_read(&c->hosts, s, path, err, errlen);
		for (size_t k = 0; rc > 0 && k < sizeof(uint_keys) / sizeof(uint_keys[0]); k++)
			if (strcmp(name, uint_keys[k].name) == 0)
				rc = read_uint(c, s, &uint_keys[k], path, err, errlen);
		if (rc > 0)
			return spate_conf_error(err, errlen, path, s,
						"spated: unknown setting '%s' (known: eal, port, "
						"ipv4, gateway, udp_port, "
						"mtu, mbufs, rx_desc, tx_desc, stats_interval, "
						"idle_spin_us, idle_sleep_us, lcores, "
						"ring_size, msgs, backlog_max, category_engine, "
						"rcu_cpu, rcu_warn_ms, "
						"debug_hooks, cpu_accounting, preload, role, "
						"host_id, peers, peer_rto_ms, peer_drop_ppm, "
						"peer_key_file, peer_auth, zookeeper, zk_root, "
						"zk_session_ms, zk_wait_ms)",
						name);
		if (rc < 0)
			return -1;
	}
	config_setting_t *cl = config_lookup(cfg, "cluster");
	if (cl != NULL && host_conf_read_cluster(&c->hosts, cl, top, &c->ipv4,
						 config_setting_lookup(top, "ipv4") != NULL,
						 c->lcores.n_match, path, err, errlen) != 0)
		return -1;
	if (spate_engine_find(c->category_engine) == NULL)
		return spate_conf_error(
			err, errlen, path, config_setting_lookup(top, "category_engine"),
			"spated.category_engine '%s' is not an engine (spate-match --list-engines)",
			c->category_engine);
	if (host_conf_check(&c->hosts, top, path, SPATED_MATCH_MAX, err, errlen) != 0)
		return -1;
	if (c->hosts.drop_ppm != 0 && !c->debug_hooks)
		return spate_conf_error(err, errlen, path,
					config_setting_lookup(top, "peer_drop_ppm"),
					"spated.peer_drop_ppm is fault injection for tests: it "
					"needs debug_hooks = true");
	if (c->hosts.auth_none && !c->debug_hooks)
		return spate_conf_error(
			err, errlen, path, config_setting_lookup(top, "peer_auth"),
			"spated.peer_auth = \"none\" lets anyone who can send UDP to port %u "
			"change this host's state: tests and benchmarks only (debug_hooks = true)",
			SPATED_PEER_PORT);
	if (c->gateway != 0) {
		const config_setting_t *g = config_setting_lookup(top, "gateway");
		if (c->prefix_len < 0)
			return spate_conf_error(err, errlen, path, g,
						"spated.gateway needs the link's prefix in "
						"spated.ipv4 (\"198.18.0.1/24\")");
		uint32_t mask = spated_conf_mask(c);
		if (((c->gateway ^ c->ipv4) & mask) != 0 || c->gateway == c->ipv4)
			return spate_conf_error(
				err, errlen, path, g,
				"spated.gateway is not another address of the link %u.%u.%u.%u/%d",
				c->ipv4 >> 24, (c->ipv4 >> 16) & 255, (c->ipv4 >> 8) & 255,
				c->ipv4 & 255, c->prefix_len);
	}
	if (c->ring_size & (c->ring_size - 1))
		return spate_conf_error(err, errlen, path, config_setting_lookup(top, "ring_size"),
					"spated.ring_size = %u must be a power of 2", c->ring_size);
	/* 0 is "derived"; set by hand, each has its floor */
	static const struct {
		const char *key;
		size_t off;
		uint32_t min;
	} floors[] = {
		{ "mbufs", offsetof(struct spated_conf, mbufs), 1023 },
		{ "ring_size", offsetof(struct spated_conf, ring_size), 64 },
		{ "msgs", offsetof(struct spated_conf, msgs), 1023 },
		{ "backlog_max", offsetof(struct spated_conf, backlog_max), 32 },
	};
	for (size_t i = 0; i < sizeof(floors) / sizeof(floors[0]); i++) {
		uint32_t v = *(const uint32_t *)((const char *)c + floors[i].off);
		if (v != 0 && v < floors[i].min)
			return spate_conf_error(
				err, errlen, path, config_setting_lookup(top, floors[i].key),
				"spated.%s = %u is below %u (0: derived from the memory)",
				floors[i].key, v, floors[i].min);
	}
	return 0;
}

/* ---- run time: the keys that change while spated runs ---- */

static const char *const runtime_names[] = { "spated.idle_spin_us", "spated.idle_sleep_us" };
#define N_RUNTIME (sizeof(runtime_names) / sizeof(runtime_names[0]))

/* The uint_keys entry of a run-time name ("spated.KEY"), or NULL. */
static const struct uint_key *runtime_key(const char *name)
{
	for (size_t i = 0; i < N_RUNTIME; i++)
		if (strcmp(name, runtime_names[i]) == 0)
			for (size_t k = 0; k < sizeof(uint_keys) / sizeof(uint_keys[0]); k++)
				if (strcmp(name + 7, uint_keys[k].name) == 0)
					return &uint_keys[k];
	return NULL;
}

const char *spated_conf_runtime_name(size_t i)
{
	return i < N_RUNTIME ? runtime_names[i] : NULL;
}

int spated_conf_runtime_get(const struct spated_conf *c, const char *name, char *buf, size_t len)
{
	const struct uint_key *k = runtime_key(name);

	if (k == NULL)
		return -1;
	snprintf(buf, len, "%u",
		 __atomic_load_n((const uint32_t *)((const char *)c + k->off), __ATOMIC_RELAXED));
	return 0;
}

int spated_conf_runtime_set(struct spated_conf *c, const char *name, const char *value, char *err,
			    size_t errlen)
{
	const struct uint_key *k = runtime_key(name);
	char *end;

	if (k == NULL) {
		snprintf(err, errlen, "%s cannot change while spated runs", name);
		return -1;
	}
	errno = 0;
	long long v = strtoll(value, &end, 10);
	if (*value == '\0' || *end != '\0' || errno != 0 || v < k->min || v > k->max) {
		snprintf(err, errlen, "%s = '%s': want an integer in [%lld, %lld]", name, value,
			 k->min, k->max);
		return -1;
	}
	__atomic_store_n((uint32_t *)((char *)c + k->off), (uint32_t)v, __ATOMIC_RELAXED);
	return 0;
}

int spated_conf_read_runtime(struct spated_conf *c, const config_t *cfg, const char *path,
			     char *err, size_t errlen)
{
	config_setting_t *top = config_lookup(cfg, "spated");

	if (top == NULL)
		return 0;
	if (!config_setting_is_group(top))
		return spate_conf_error(err, errlen, path, top, "'spated' must be a group { ... }");
	for (int i = 0; i < config_setting_length(top); i++) {
		const config_setting_t *s = config_setting_get_elem(top, i);
		char name[96];
		snprintf(name, sizeof(name), "spated.%s", config_setting_name(s));
		const struct uint_key *k = runtime_key(name);
		if (k == NULL)
			return spate_conf_error(
				err, errlen, path, s,
				"%s is not a run-time setting (spatectl show params lists them)",
				name);
		if (read_uint(c, s, k, path, err, errlen) != 0)
			return -1;
	}
	return 0;
}

/* The top-level groups: each must be one a reader takes ("spate", read
 * by spate_conf_read; "spated" and "cluster", read here; the groups of
 * ops_conf), so a
 * misspelt group is an error, not a section silently ignored. */
static int check_groups(const config_t *cfg, const char *path, char *err, size_t errlen)
{
	const config_setting_t *root = config_root_setting(cfg);

	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
		const char *name = config_setting_name(s);
		bool known = strcmp(name, "spate") == 0 || strcmp(name, "spated") == 0 ||
			     strcmp(name, "cluster") == 0;
		for (size_t g = 0; !known && ops_conf_group_name(g) != NULL; g++)
			known = strcmp(name, ops_conf_group_name(g)) == 0;
		if (known)
			continue;
		char list[128] = "spate, spated, cluster";
		for (size_t g = 0; ops_conf_group_name(g) != NULL; g++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), ", %s",
				 ops_conf_group_name(g));
		return spate_conf_error(err, errlen, path, s, "unknown group '%s' (known: %s)",
					name, list);
	}
	return 0;
}

/* The rest of an overrides file: its groups, and the run-time keys of
 * "spated" (a hand-edited file is checked like the main one). */
static int read_overrides_spated(void *ctx, const config_t *cfg, const char *path, char *err,
				 size_t errlen)
{
	if (check_groups(cfg, path, err, errlen) != 0)
		return -1;
	return spated_conf_read_runtime(ctx, cfg, path, err, errlen);
}

int spated_conf_read_tree(struct spated_conf *c, const config_t *cfg, const char *path, char *err,
			  size_t errlen)
{
	int rc = check_groups(cfg, path, err, errlen);

	if (rc == 0)
		rc = spate_conf_read(&c->common, cfg, path, err, errlen);

	if (rc == 0)
		rc = read_spated(c, cfg, path, err, errlen);
	if (rc == 0)
		rc = ops_conf_read(&c->ops, cfg, path, err, errlen);
	return rc;
}

int spated_conf_load(struct spated_conf *c, const char *path, char *err, size_t errlen)
{
	config_t cfg;
	int rc;

	if (path == NULL)
		return 0;
	config_init(&cfg);
	if (spate_conf_read_file(&cfg, path) != CONFIG_TRUE) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			snprintf(err, errlen, "%s:0: cannot read file", path);
		else
			snprintf(err, errlen, "%s:%d: %s", path, config_error_line(&cfg),
				 config_error_text(&cfg));
		config_destroy(&cfg);
		return -1;
	}
	rc = spated_conf_read_tree(c, &cfg, path, err, errlen);
	config_destroy(&cfg);
	if (rc == 0)
		rc = spated_conf_read_overrides(c, err, errlen);
	return rc;
}

int spated_conf_read_overrides(struct spated_conf *c, char *err, size_t errlen)
{
	return ops_conf_read_overrides(&c->ops, &c->common, read_overrides_spated, c, err, errlen);
}
