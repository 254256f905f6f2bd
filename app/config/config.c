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
#include <unistd.h>

#include <libconfig.h>

#include "config/config.h"
#include "config/spated_params.h"
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

static int read_eal(void *obj, const config_setting_t *s, const char *path, char *err,
		    size_t errlen)
{
	struct spated_conf *c = obj;

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

/* spated.port.device: a vdev string or a list of them. */
static int read_devices(void *obj, const config_setting_t *e, const char *path, char *err,
			size_t errlen)
{
	struct spated_conf *c = obj;

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
	return 0;
}

/* A unicast address: 0/8, 127/8, 224/4 and up cannot be on a link. */
static bool is_unicast(uint32_t ip)
{
	return (ip >> 24) != 0 && (ip >> 24) != 127 && (ip >> 28) < 14;
}

/* "A.B.C.D" or "A.B.C.D/N" (the link's prefix, for the gateway). */
static int read_ipv4(void *obj, const config_setting_t *s, const char *path, char *err,
		     size_t errlen)
{
	struct spated_conf *c = obj;
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

static int read_gateway(void *obj, const config_setting_t *s, const char *path, char *err,
			size_t errlen)
{
	struct spated_conf *c = obj;
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

/* spated.lcores.rx: one lcore id, or a list (one RX queue each). */
static int read_lcores_rx(void *obj, const config_setting_t *s, const char *path, char *err,
			  size_t errlen)
{
	struct spated_conf *c = obj;

	if (config_setting_type(s) == CONFIG_TYPE_INT) {
		c->lcores.n_rx = 1;
		return read_lcore_id(s, "rx", &c->lcores.rx[0], path, err, errlen);
	}
	return read_lcore_list(s, "rx", "an lcore id or a list", " (one RX queue each)",
			       SPATED_RX_MAX, c->lcores.rx, &c->lcores.n_rx, path, err, errlen);
}

static int read_lcores_match(void *obj, const config_setting_t *s, const char *path, char *err,
			     size_t errlen)
{
	struct spated_conf *c = obj;

	return read_lcore_list(s, "match", "a list", "", SPATED_MATCH_MAX, c->lcores.match,
			       &c->lcores.n_match, path, err, errlen);
}

/* The rows of the "spated" group (spate_param.h; the multi-host ones are
 * host_conf.c's). The order is the one "unknown setting" lists. */
#define SC(f) offsetof(struct spated_conf, f), sizeof(((struct spated_conf *)0)->f)
#define U32(key, reach, lo, hi, def, help)                                                       \
	{                                                                                        \
#key, SPATE_PARAM_U32, SPATE_PARAM_##reach, lo, hi, def, SC(key), NULL, NULL, 0, \
			help                                                                     \
	}
#define CUSTOM(key, def, fn, help)                                                            \
	{                                                                                     \
		key, SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, def, 0, 0, NULL, fn, 0, help \
	}

const struct spate_param spated_conf_rows[] = {
	CUSTOM("eal", "[ \"--file-prefix=spated\" ]", read_eal,
	       "DPDK EAL arguments, a list of strings (at most 64)"),
	CUSTOM("port.device", "every port the EAL probed", read_devices,
	       "the ports: a vdev string or a list of 1 to 4 (-a PCI or --vdev in eal otherwise)"),
	CUSTOM("ipv4", "198.18.0.1", read_ipv4,
	       "this host's address, \"A.B.C.D\" or \"A.B.C.D/N\" (the link's prefix)"),
	CUSTOM("gateway", "none", read_gateway,
	       "next hop off the link, \"A.B.C.D\" (needs the prefix in ipv4)"),
	{ "udp_port", SPATE_PARAM_U16, SPATE_PARAM_FILE, 1, 65535, "47100", SC(udp_port), NULL,
	  NULL, 0, "UDP port of the publish/subscribe protocol" },
	/* 576: the IPv4 minimum; 9000: jumbo, needs framesz on af_packet. */
	U32(mtu, FILE, 576, 9000, "1500", "largest IPv4 packet sent or received"),
	U32(mbufs, FILE, 0, 1 << 20, "0",
	    "packet buffers in the pool (0: derived from the memory, sizing.h; else at least "
	    "1023)"),
	U32(rx_desc, FILE, 32, 16384, "512", "RX descriptors per queue"),
	U32(tx_desc, FILE, 32, 16384, "512", "TX descriptors per queue"),
	U32(stats_interval, FILE, 0, 86400, "0",
	    "seconds between counter lines in the log, 0 = off"),
	U32(idle_spin_us, LIVE, 0, 1000000, "1000",
	    "an idle lcore keeps polling this long after its last work (lcore_idle.h)"),
	U32(idle_sleep_us, LIVE, 0, 100000, "0",
	    "then sleeps up to this between polls; 0 = busy poll"),
	CUSTOM("lcores.rx", "the main lcore", read_lcores_rx,
	       "RX stages: an lcore id or a list of 1 to 8 (one RX queue each)"),
	{ "lcores.tx", SPATE_PARAM_INT, SPATE_PARAM_FILE, 0, 1023, "-1", SC(lcores.tx), NULL, NULL,
	  0, "the TX stage's lcore (-1, unset: the main lcore)" },
	{ "lcores.cluster", SPATE_PARAM_INT, SPATE_PARAM_FILE, 0, 1023, "-1", SC(lcores.cluster),
	  NULL, NULL, 0, "the cluster stage's lcore (-1, unset: the main lcore)" },
	CUSTOM("lcores.match", "[ the main lcore ]", read_lcores_match,
	       "matching workers: a list of 1 to 16 lcore ids, one worker each"),
	U32(ring_size, FILE, 0, 1 << 20, "0",
	    "slots of every stage ring, a power of 2 (0: derived from the memory; else at least "
	    "64)"),
	U32(msgs, FILE, 0, 1 << 22, "0",
	    "pipeline messages in the pool (0: derived from the memory; else at least 1023)"),
	U32(backlog_max, FILE, 0, 1 << 20, "0",
	    "the cluster stage stops reading past this backlog (0: derived; else at least 32)"),
	{ "category_engine", SPATE_PARAM_STRING, SPATE_PARAM_FILE, 0, 0, "drt", SC(category_engine),
	  NULL, NULL, 0,
	  "the index inside each category: \"drt\" or a library engine (spate-match "
	  "--list-engines)" },
	{ "rcu_cpu", SPATE_PARAM_INT, SPATE_PARAM_FILE, -1, 1023, "-1", SC(rcu_cpu), NULL, NULL, 0,
	  "CPU of the call_rcu thread; -1 = not pinned" },
	U32(rcu_warn_ms, FILE, 0, 600000, "1000",
	    "warn about RCU grace periods longer than this, 0 = off"),
	{ "debug_hooks", SPATE_PARAM_BOOL, SPATE_PARAM_FILE, 0, 0, "false", SC(debug_hooks), NULL,
	  NULL, 0, "allow `spatectl debug ...` and fault injection (tests only)" },
	{ "cpu_accounting", SPATE_PARAM_BOOL, SPATE_PARAM_FILE, 0, 0, "false", SC(cpu_accounting),
	  NULL, NULL, 0,
	  "matching lcores count match_cpu_ns: two system calls a busy poll (benchmarks)" },
	{ "preload", SPATE_PARAM_STRING, SPATE_PARAM_FILE, 0, 0, "", SC(preload), NULL, NULL, 0,
	  "stream file of subscriptions applied at start" },
	{ NULL },
};

/* After every row of the file is read: what holds between settings
 * (the cluster file, the engine's name, the roles, the floors). */
static int check_spated(struct spated_conf *c, const config_t *cfg, const char *path, char *err,
			size_t errlen)
{
	/* libconfig lookups take non-const pointers; they do not modify. */
	config_setting_t *top = config_lookup(cfg, "spated");

	if (top == NULL)
		return 0;
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

/* drt.workers is the number of matching workers spated runs (a front's:
 * its match hosts' lcores), whatever the file says: the clustering plans
 * for them, and `spatectl show params` reports what runs. */
static void derive_workers(struct spated_conf *c)
{
	c->common.matcher.params.drt.workers = c->hosts.role == SPATED_ROLE_FRONT
						       ? host_conf_remote_workers(&c->hosts)
						       : c->lcores.n_match;
}

/* Every group and key through its row, in the file's order (a key or
 * group no row names is an error, never a silently ignored typo), then
 * the attribute schema, whose keys are read together. */
static int read_rows(struct spated_conf *c, const config_t *cfg, const char *path, char *err,
		     size_t errlen)
{
	if (spate_param_read_group(&spated_param_table, c, config_root_setting(cfg), "", path, err,
				   errlen) != 0)
		return -1;
	config_setting_t *spate = config_lookup(cfg, "spate");
	if (spate != NULL && spate_conf_read_schema(&c->common, spate, path, err, errlen) != 0)
		return -1;
	return 0;
}

/* The overrides file (control.overrides, written by `spatectl save`):
 * the groups of the main file, but of "spated" only its run-time keys. */
static int read_overrides_tree(struct spated_conf *c, const config_t *cfg, const char *path,
			       char *err, size_t errlen)
{
	const config_setting_t *top = config_lookup(cfg, "spated");

	for (int i = 0; top && config_setting_is_group(top) && i < config_setting_length(top);
	     i++) {
		const config_setting_t *s = config_setting_get_elem(top, (unsigned)i);
		char name[96];
		snprintf(name, sizeof(name), "spated.%s", config_setting_name(s));
		struct spate_param_ref r = spate_param_find(&spated_param_table, name);
		if (r.row == NULL || r.row->reach != SPATE_PARAM_LIVE)
			return spate_conf_error(
				err, errlen, path, s,
				"%s is not a run-time setting (spatectl show params lists them)",
				name);
	}
	if (read_rows(c, cfg, path, err, errlen) != 0)
		return -1;
	return ops_conf_check(&c->ops, cfg, path, err, errlen);
}

int spated_conf_read_tree(struct spated_conf *c, const config_t *cfg, const char *path, char *err,
			  size_t errlen)
{
	if (read_rows(c, cfg, path, err, errlen) != 0)
		return -1;
	if (check_spated(c, cfg, path, err, errlen) != 0)
		return -1;
	derive_workers(c);
	return ops_conf_check(&c->ops, cfg, path, err, errlen);
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
	char path[sizeof(c->ops.overrides_path)];
	config_t cfg;
	int rc;

	/* Read before the file may change it (it cannot name another). */
	snprintf(path, sizeof(path), "%s", c->ops.overrides_path);
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
	rc = read_overrides_tree(c, &cfg, path, err, errlen);
	derive_workers(c);
	snprintf(c->ops.overrides_path, sizeof(c->ops.overrides_path), "%s", path);
	config_destroy(&cfg);
	return rc;
}
