/* test_app_config.c - spated's own configuration keys (app/config/config.c) and
 * the operator's groups (app/config/ops_conf.c), without DPDK: every limit at its
 * minimum, maximum and one past each, unknown keys and groups named with
 * their file and line, the run-time keys `spatectl set` changes (trailing
 * garbage, signs, empty values), and what a value reads back as. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_conf.h"
#include "check.h"
#include "config/config.h"
#include "config/spated_params.h"
#include "config/ops_conf.h"

static char conf_path[64];
static char err[1024];
static struct spated_conf conf;

/* Load `text` as a whole file into a fresh default conf: spated_conf_load's
 * return value, its message in err. */
static int load(const char *text)
{
	return app_conf_load_text(&conf, conf_path, text, err, sizeof(err));
}

static int loadf(const char *fmt, ...)
{
	char text[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return load(text);
}

/* err must be exactly "PATH:LINE: MSG". */
#define CHECK_ERR(line, ...)                                                                  \
	do {                                                                                  \
		char want_[1024], msg_[900];                                                  \
		snprintf(msg_, sizeof(msg_), __VA_ARGS__);                                    \
		snprintf(want_, sizeof(want_), "%s:%d: %s", conf_path, line, msg_);           \
		check_count++;                                                                \
		if (strcmp(err, want_) != 0) {                                                \
			fprintf(stderr, "%s:%d: error\n  got  '%s'\n  want '%s'\n", __FILE__, \
				__LINE__, err, want_);                                        \
			check_failed();                                                       \
		}                                                                             \
	} while (0)

/* ---- spated's integer keys: min, max, one past each ---- */

struct ukey {
	const char *name;
	long long min, max;
	uint32_t (*get)(void);
};

#define GETTER(f)                     \
	static uint32_t get_##f(void) \
	{                             \
		return conf.f;        \
	}
GETTER(udp_port)
GETTER(mtu)
GETTER(mbufs)
GETTER(rx_desc)
GETTER(tx_desc)
GETTER(stats_interval)
GETTER(idle_spin_us)
GETTER(idle_sleep_us)
GETTER(ring_size)
GETTER(msgs)
GETTER(backlog_max)
GETTER(rcu_warn_ms)

static const struct ukey ukeys[] = {
	{ "udp_port", 1, 65535, get_udp_port },
	{ "mtu", 576, 9000, get_mtu },
	{ "mbufs", 0, 1 << 20, get_mbufs },
	{ "rx_desc", 32, 16384, get_rx_desc },
	{ "tx_desc", 32, 16384, get_tx_desc },
	{ "stats_interval", 0, 86400, get_stats_interval },
	{ "idle_spin_us", 0, 1000000, get_idle_spin_us },
	{ "idle_sleep_us", 0, 100000, get_idle_sleep_us },
	{ "ring_size", 0, 1 << 20, get_ring_size },
	{ "msgs", 0, 1 << 22, get_msgs },
	{ "backlog_max", 0, 1 << 20, get_backlog_max },
	{ "rcu_warn_ms", 0, 600000, get_rcu_warn_ms },
};

static void test_uint_keys(void)
{
	for (size_t i = 0; i < sizeof(ukeys) / sizeof(ukeys[0]); i++) {
		const struct ukey *k = &ukeys[i];
		/* the maximum is taken and stored exactly (2 and 4-byte fields) */
		CHECK_EQ_INT(loadf("spated: {\n  %s = %lld;\n};\n", k->name, k->max), 0);
		CHECK_EQ_INT(k->get(), k->max);
		CHECK_EQ_INT(loadf("spated: {\n  %s = %lld;\n};\n", k->name, k->max + 1), -1);
		CHECK_ERR(2, "spated.%s = %lld is out of range [%lld, %lld]", k->name, k->max + 1,
			  k->min, k->max);
		CHECK_EQ_INT(loadf("spated: {\n\n  %s = %lld;\n};\n", k->name, k->min - 1), -1);
		CHECK_ERR(3, "spated.%s = %lld is out of range [%lld, %lld]", k->name, k->min - 1,
			  k->min, k->max);
		/* the minimum: 0 is "derived" where a floor applies by hand */
		CHECK_EQ_INT(loadf("spated: { %s = %lld; };\n", k->name, k->min), 0);
		CHECK_EQ_INT(k->get(), k->min);
		/* a 64-bit literal far out of range is refused, not truncated */
		CHECK_EQ_INT(loadf("spated: { %s = 4294967297L; };\n", k->name), -1);
		CHECK_EQ_INT(loadf("spated: { %s = \"1\"; };\n", k->name), -1);
		CHECK_ERR(1, "spated.%s must be an integer", k->name);
	}
	/* a value inside the range lands in its own field only */
	CHECK_EQ_INT(load("spated: { rx_desc = 1000; tx_desc = 2000; mtu = 4000; };\n"), 0);
	CHECK_EQ_INT(conf.rx_desc, 1000);
	CHECK_EQ_INT(conf.tx_desc, 2000);
	CHECK_EQ_INT(conf.mtu, 4000);
	CHECK_EQ_INT(conf.udp_port, 47100);
}

/* Set by hand, mbufs, ring_size, msgs and backlog_max each have a floor. */
static void test_floors(void)
{
	static const struct {
		const char *key;
		uint32_t min;
	} fl[] = {
		{ "mbufs", 1023 },
		{ "ring_size", 64 },
		{ "msgs", 1023 },
		{ "backlog_max", 32 },
	};

	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		uint32_t below = fl[i].min - 1;
		if (strcmp(fl[i].key, "ring_size") == 0)
			below = 32; /* a power of 2: the floor, not the shape, refuses it */
		CHECK_EQ_INT(loadf("spated: {\n  %s = %u;\n};\n", fl[i].key, below), -1);
		CHECK_ERR(2, "spated.%s = %u is below %u (0: derived from the memory)", fl[i].key,
			  below, fl[i].min);
		CHECK_EQ_INT(loadf("spated: { %s = %u; };\n", fl[i].key, fl[i].min), 0);
	}
	CHECK_EQ_INT(load("spated: {\n  ring_size = 96;\n};\n"), -1);
	CHECK_ERR(2, "spated.ring_size = 96 must be a power of 2");
	CHECK_EQ_INT(load("spated: { ring_size = 1048576; };\n"), 0);
	CHECK_EQ_INT(conf.ring_size, 1048576);
	CHECK_EQ_INT(load("spated: { ring_size = 65; };\n"), -1);
}

static void test_unknown(void)
{
	CHECK_EQ_INT(load("spated: {\n  mtu = 1500;\n  mtus = 1500;\n};\n"), -1);
	/* the message names the file, the line, the key and what is known
	 * (every key of the table among them; the list grows with spated) */
	char want_head[160];
	snprintf(want_head, sizeof(want_head),
		 "%s:3: spated: unknown setting 'mtus' (known: eal, port, ", conf_path);
	CHECK(strncmp(err, want_head, strlen(want_head)) == 0);
	for (size_t i = 0; i < sizeof(ukeys) / sizeof(ukeys[0]); i++) {
		char key[40];
		snprintf(key, sizeof(key), " %s,", ukeys[i].name);
		CHECK(strstr(err, key) != NULL);
	}
	CHECK(strstr(err, " zk_wait_ms)") != NULL);
	CHECK_EQ_INT(load("spate: { };\n\nspatd: { mtu = 1500; };\n"), -1);
	CHECK_ERR(3, "unknown group 'spatd' (known: spate, spated, cluster, journal, control, "
		     "access, metrics)");
	CHECK_EQ_INT(load("spated = 1;\n"), -1);
	CHECK_ERR(1, "'spated' must be a group { ... }");
	CHECK_EQ_INT(load("spated: {\n lcores: {\n  rx = 0;\n  mx = 1;\n };\n};\n"), -1);
	CHECK_ERR(4, "spated.lcores: unknown setting 'mx' (known: rx, tx, cluster, match)");
	CHECK_EQ_INT(load("spated: {\n port: { dev = \"x\"; };\n};\n"), -1);
	CHECK_ERR(2, "spated.port: unknown setting 'dev' (known: device)");
	CHECK_EQ_INT(load("journal: {\n  path = \"\";\n  sink = 1;\n};\n"), -1);
	CHECK_ERR(3, "journal: unknown setting 'sink' (known: path, sync, sync_interval_us, "
		     "compact_min, compact_factor)");
	CHECK_EQ_INT(load("access: {\n  rat = 1;\n};\n"), -1);
	CHECK_ERR(2, "access: unknown setting 'rat' (known: rate, burst, require_auth, keys)");
	CHECK_EQ_INT(
		load("control: { mode = \"0600\"; };\nmetrics: {\n listen = \"\";\n x = 1; };\n"),
		-1);
	CHECK_ERR(4, "metrics: unknown setting 'x' (known: listen)");
	CHECK_EQ_INT(load("this is not libconfig\n"), -1);
	CHECK(strncmp(err, conf_path, strlen(conf_path)) == 0 &&
	      strncmp(err + strlen(conf_path), ":1: ", 4) == 0);
	/* a missing file: line 0 */
	char missing[80];
	snprintf(missing, sizeof(missing), "%s.absent", conf_path);
	spated_conf_free(&conf);
	spated_conf_default(&conf);
	CHECK_EQ_INT(spated_conf_load(&conf, missing, err, sizeof(err)), -1);
	char want[128];
	snprintf(want, sizeof(want), "%s:0: cannot read file", missing);
	CHECK(strcmp(err, want) == 0);
	/* NULL: the defaults, untouched */
	CHECK_EQ_INT(spated_conf_load(&conf, NULL, err, sizeof(err)), 0);
	CHECK_EQ_INT(conf.udp_port, 47100);
}

static void test_defaults(void)
{
	spated_conf_free(&conf);
	spated_conf_default(&conf);
	CHECK_EQ_INT(conf.ipv4, 0xc6120001);
	CHECK_EQ_INT(conf.prefix_len, -1);
	CHECK_EQ_INT(conf.udp_port, 47100);
	CHECK_EQ_INT(conf.mtu, 1500);
	CHECK_EQ_INT(conf.rx_desc, 512);
	CHECK_EQ_INT(conf.tx_desc, 512);
	CHECK_EQ_INT(conf.idle_spin_us, 1000);
	CHECK_EQ_INT(conf.idle_sleep_us, 0);
	CHECK_EQ_INT(conf.rcu_cpu, -1);
	CHECK_EQ_INT(conf.rcu_warn_ms, 1000);
	CHECK_EQ_INT(conf.lcores.n_rx, 1);
	CHECK_EQ_INT(conf.lcores.rx[0], -1);
	CHECK_EQ_INT(conf.lcores.tx, -1);
	CHECK_EQ_INT(conf.lcores.cluster, -1);
	CHECK_EQ_INT(conf.lcores.n_match, 1);
	CHECK_EQ_INT(conf.lcores.match[0], -1);
	CHECK_EQ_INT(conf.n_eal, 1);
	CHECK(strcmp(conf.eal[0], "--file-prefix=spated") == 0);
	CHECK(strcmp(conf.category_engine, "drt") == 0);
	CHECK_EQ_INT(conf.ops.control_mode, 0600);
	CHECK_EQ_INT(conf.ops.burst, 100);
	CHECK_EQ_INT(spated_conf_mask(&conf), 0);
	/* the shipped configuration loads */
	spated_conf_free(&conf);
	spated_conf_default(&conf);
	CHECK_EQ_INT(spated_conf_load(&conf, SPATE_SRC "/conf/spated.conf", err, sizeof(err)), 0);
	CHECK_EQ_INT(conf.ipv4, 0xc000020a);
	CHECK_EQ_INT(conf.prefix_len, 24);
	CHECK_EQ_INT(spated_conf_mask(&conf), 0xffffff00);
}

static void test_addresses(void)
{
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3/32\"; };\n"), 0);
	CHECK_EQ_INT(conf.ipv4, 0x0a010203);
	CHECK_EQ_INT(conf.prefix_len, 32);
	CHECK_EQ_INT(spated_conf_mask(&conf), 0xffffffff);
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3/1\"; };\n"), 0);
	CHECK_EQ_INT(spated_conf_mask(&conf), 0x80000000);
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3\"; };\n"), 0);
	CHECK_EQ_INT(conf.prefix_len, -1);
	static const char *const bad_prefix[] = { "0", "33", "", "24x", "-1" };
	for (size_t i = 0; i < sizeof(bad_prefix) / sizeof(bad_prefix[0]); i++) {
		CHECK_EQ_INT(loadf("spated: {\n ipv4 = \"10.1.2.3/%s\";\n};\n", bad_prefix[i]), -1);
		CHECK_ERR(2,
			  "spated.ipv4 = \"10.1.2.3/%s\": the prefix length after '/' must be 1 to "
			  "32",
			  bad_prefix[i]);
	}
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2\"; };\n"), -1);
	CHECK_ERR(1, "spated.ipv4 must be a dotted IPv4 address string, with an optional /prefix");
	CHECK_EQ_INT(load("spated: { ipv4 = 5; };\n"), -1);
	CHECK_ERR(1, "spated.ipv4 must be a dotted IPv4 address string, with an optional /prefix");
	/* unicast: not 0/8, 127/8, 224/4 and up; their neighbours are */
	static const char *const not_unicast[] = { "0.1.2.3", "127.0.0.1", "224.0.0.1", "240.0.0.1",
						   "255.255.255.255" };
	for (size_t i = 0; i < sizeof(not_unicast) / sizeof(not_unicast[0]); i++) {
		CHECK_EQ_INT(loadf("spated: { ipv4 = \"%s\"; };\n", not_unicast[i]), -1);
		CHECK_ERR(1, "spated.ipv4 = %s is not a unicast address", not_unicast[i]);
	}
	static const char *const unicast[] = { "1.0.0.0", "126.255.255.255", "128.0.0.1",
					       "223.255.255.255" };
	for (size_t i = 0; i < sizeof(unicast) / sizeof(unicast[0]); i++)
		CHECK_EQ_INT(loadf("spated: { ipv4 = \"%s\"; };\n", unicast[i]), 0);

	/* gateway: on the link, not ourselves, needs the prefix */
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3/24\"; gateway = \"10.1.2.1\"; };\n"), 0);
	CHECK_EQ_INT(conf.gateway, 0x0a010201);
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3/24\";\n gateway = \"10.1.3.1\"; };\n"), -1);
	CHECK_ERR(2, "spated.gateway is not another address of the link 10.1.2.3/24");
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3/24\";\n gateway = \"10.1.2.3\"; };\n"), -1);
	CHECK_ERR(2, "spated.gateway is not another address of the link 10.1.2.3/24");
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3\";\n gateway = \"10.1.2.1\"; };\n"), -1);
	CHECK_ERR(2, "spated.gateway needs the link's prefix in spated.ipv4 (\"198.18.0.1/24\")");
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3/24\";\n gateway = \"127.0.0.1\"; };\n"), -1);
	CHECK_ERR(2, "spated.gateway must be a dotted unicast IPv4 address string");
	CHECK_EQ_INT(load("spated: { ipv4 = \"10.1.2.3/8\"; gateway = \"10.200.0.1\"; };\n"), 0);
}

/* The cluster group gives each host its address (host_conf.c reads it;
 * config.c says whether spated.ipv4 was given too). */
static void test_cluster(void)
{
	static const char hosts[] =
		"cluster: {\n hosts = ( { host = 1; role = \"front\"; ipv4 = \"10.0.0.1\"; },\n"
		" { host = 2; role = \"match\"; ipv4 = \"10.0.0.2\"; lcores = 1; } );\n};\n";

	CHECK_EQ_INT(
		loadf("spated: { peer_auth = \"none\"; debug_hooks = true; host_id = 1; };\n%s",
		      hosts),
		0);
	CHECK_EQ_INT(conf.ipv4, 0x0a000001);
	CHECK_EQ_INT(conf.hosts.n_peers, 1);
	CHECK_EQ_INT(conf.hosts.peer[0].ipv4, 0x0a000002);
	CHECK_EQ_INT(loadf("spated: { peer_auth = \"none\"; debug_hooks = true; host_id = 1; ipv4 "
			   "= \"10.0.0.1\"; };\n%s",
			   hosts),
		     0);
	CHECK_EQ_INT(loadf("spated: { peer_auth = \"none\"; debug_hooks = true; host_id = 1; ipv4 "
			   "= \"10.0.0.9\"; };\n%s",
			   hosts),
		     -1);
	CHECK_ERR(1, "spated.ipv4 differs from host 1's address in cluster.hosts");
	CHECK_EQ_INT(
		loadf("spated: { peer_auth = \"none\"; debug_hooks = true; host_id = 2; };\n%s",
		      hosts),
		0);
	CHECK_EQ_INT(conf.ipv4, 0x0a000002);
	CHECK_EQ_INT(
		loadf("spated: { peer_auth = \"none\"; debug_hooks = true; host_id = 3; };\n%s",
		      hosts),
		-1);
	CHECK_ERR(1, "spated.host_id = 3 is not in cluster.hosts (1, 2)");
}

static void test_lcores(void)
{
	CHECK_EQ_INT(load("spated: { lcores: { rx = 1023; tx = 0; cluster = 5; "
			  "match = [ 1, 2, 3 ]; }; };\n"),
		     0);
	CHECK_EQ_INT(conf.lcores.n_rx, 1);
	CHECK_EQ_INT(conf.lcores.rx[0], 1023);
	CHECK_EQ_INT(conf.lcores.tx, 0);
	CHECK_EQ_INT(conf.lcores.cluster, 5);
	CHECK_EQ_INT(conf.lcores.n_match, 3);
	CHECK_EQ_INT(conf.lcores.match[2], 3);
	CHECK_EQ_INT(load("spated: { lcores: {\n tx = 1024; }; };\n"), -1);
	CHECK_ERR(2, "spated.lcores.tx = 1024 is out of range [0, 1023]");
	CHECK_EQ_INT(load("spated: { lcores: {\n cluster = -1; }; };\n"), -1);
	CHECK_ERR(2, "spated.lcores.cluster = -1 is out of range [0, 1023]");
	CHECK_EQ_INT(load("spated: { lcores: { tx = \"1\"; }; };\n"), -1);
	CHECK_ERR(1, "spated.lcores.tx must be an integer");
	CHECK_EQ_INT(load("spated: { lcores: { rx = [ 0, 1, 2, 3, 4, 5, 6, 7 ]; }; };\n"), 0);
	CHECK_EQ_INT(conf.lcores.n_rx, 8);
	CHECK_EQ_INT(conf.lcores.rx[7], 7);
	CHECK_EQ_INT(load("spated: { lcores: { rx = [ 5, 6 ]; match = [ 9, 8 ]; }; };\n"), 0);
	CHECK_EQ_INT(conf.lcores.n_rx, 2);
	CHECK_EQ_INT(conf.lcores.rx[0], 5);
	CHECK_EQ_INT(conf.lcores.rx[1], 6);
	CHECK_EQ_INT(conf.lcores.match[0], 9);
	CHECK_EQ_INT(conf.lcores.match[1], 8);
	CHECK_EQ_INT(load("spated: { lcores: { match = [ 1024, 1 ]; }; };\n"), -1);
	CHECK_ERR(1, "spated.lcores.match[] = 1024 is out of range [0, 1023]");
	CHECK_EQ_INT(load("spated: { lcores: { rx = [ 0, 1, 2, 3, 4, 5, 6, 7, 8 ]; }; };\n"), -1);
	CHECK_ERR(1, "spated.lcores.rx must be an lcore id or a list of 1 to 8 lcore ids [ N, ... ]"
		     " (one RX queue each)");
	CHECK_EQ_INT(load("spated: { lcores: { rx = [ ]; }; };\n"), -1);
	CHECK_EQ_INT(load("spated: { lcores: { match = [ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "
			  "12, 13, 14, 15 ]; }; };\n"),
		     0);
	CHECK_EQ_INT(conf.lcores.n_match, 16);
	CHECK_EQ_INT(conf.lcores.match[15], 15);
	CHECK_EQ_INT(load("spated: { lcores: { match = [ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "
			  "12, 13, 14, 15, 16 ]; }; };\n"),
		     -1);
	CHECK_ERR(1, "spated.lcores.match must be a list of 1 to 16 lcore ids [ N, ... ]");
	CHECK_EQ_INT(load("spated: { lcores: { match = [ 0,\n 1024 ]; }; };\n"), -1);
	CHECK_ERR(2, "spated.lcores.match[] = 1024 is out of range [0, 1023]");
	CHECK_EQ_INT(load("spated: { lcores = 1; };\n"), -1);

	/* rcu_cpu: -1 (not pinned) to 1023 */
	CHECK_EQ_INT(load("spated: { rcu_cpu = 1023; };\n"), 0);
	CHECK_EQ_INT(conf.rcu_cpu, 1023);
	CHECK_EQ_INT(load("spated: { rcu_cpu = -1; };\n"), 0);
	CHECK_EQ_INT(conf.rcu_cpu, -1);
	CHECK_EQ_INT(load("spated: { rcu_cpu = 1024; };\n"), -1);
	CHECK_ERR(1, "spated.rcu_cpu = 1024 is out of range [-1, 1023]");
	CHECK_EQ_INT(load("spated: { rcu_cpu = -2; };\n"), -1);
	CHECK_ERR(1, "spated.rcu_cpu = -2 is out of range [-1, 1023]");
}

static void test_strings(void)
{
	char text[2048], big[300];

	/* eal: up to 64 arguments, replacing the default */
	strcpy(text, "spated: { eal = [ ");
	for (int i = 0; i < 64; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s\"a%d\"",
			 i ? ", " : "", i);
	strcat(text, " ]; };\n");
	CHECK_EQ_INT(load(text), 0);
	CHECK_EQ_INT(conf.n_eal, 64);
	CHECK(strcmp(conf.eal[63], "a63") == 0);
	strcpy(strstr(text, " ]; };"), ", \"x\" ]; };\n");
	CHECK_EQ_INT(load(text), -1);
	CHECK_ERR(1, "spated.eal has 65 arguments, at most 64");
	CHECK_EQ_INT(load("spated: { eal = [ \"-l\", 3 ]; };\n"), -1);
	CHECK_EQ_INT(load("spated: { eal = ( \"-l\",\n 3 ); };\n"), -1);
	CHECK_ERR(2, "spated.eal[1] must be a string");

	/* port.device: a string of at most 255 bytes, or 1 to 4 of them */
	memset(big, 'd', 255);
	big[255] = '\0';
	CHECK_EQ_INT(loadf("spated: { port: { device = \"%s\"; }; };\n", big), 0);
	CHECK_EQ_INT(conf.n_devices, 1);
	CHECK_EQ_INT(strlen(conf.devices[0]), 255);
	CHECK_EQ_INT(loadf("spated: { port: { device = \"%sd\"; }; };\n", big), -1);
	CHECK_ERR(1, "spated.port.device is too long");
	CHECK_EQ_INT(load("spated: { port: { device = [ \"a\", \"b\", \"c\", \"d\" ]; }; };\n"), 0);
	CHECK_EQ_INT(conf.n_devices, 4);
	CHECK(strcmp(conf.devices[3], "d") == 0);
	CHECK_EQ_INT(
		load("spated: { port: { device = [ \"a\", \"b\", \"c\", \"d\", \"e\" ]; }; };\n"),
		-1);
	CHECK_ERR(1, "spated.port.device must be a vdev string or a list of 1 to 4 of them");
	CHECK_EQ_INT(load("spated: { port: { device = [ ]; }; };\n"), -1);
	CHECK_EQ_INT(load("spated: { port: { device = ( \"a\", 1 ); }; };\n"), -1);
	CHECK_ERR(1, "spated.port.device must be a string or a list of strings");

	/* category_engine: at most 31 bytes, and an engine */
	CHECK_EQ_INT(load("spated: { category_engine = \"rein\"; };\n"), 0);
	CHECK(strcmp(conf.category_engine, "rein") == 0);
	CHECK_EQ_INT(load("spated: {\n category_engine = \"nope\"; };\n"), -1);
	CHECK_ERR(2, "spated.category_engine 'nope' is not an engine (spate-match --list-engines)");
	CHECK_EQ_INT(load("spated: { category_engine = \"0123456789012345678901234567890\"; };\n"),
		     -1);
	CHECK(strstr(err, "is not an engine") != NULL);
	CHECK_EQ_INT(load("spated: { category_engine = \"01234567890123456789012345678901\"; };\n"),
		     -1);
	CHECK_ERR(1, "spated.category_engine must be a string of at most 31 bytes");
	memset(big, 'p', 255);
	big[255] = '\0';
	CHECK_EQ_INT(loadf("spated: { preload = \"%s\"; };\n", big), 0);
	CHECK_EQ_INT(strlen(conf.preload), 255);
	CHECK_EQ_INT(loadf("spated: { preload = \"%sp\"; };\n", big), -1);
	CHECK_ERR(1, "spated.preload must be a string of at most 255 bytes");

	/* debug hooks, and what needs them */
	CHECK_EQ_INT(load("spated: { debug_hooks = true; };\n"), 0);
	CHECK(conf.debug_hooks);
	CHECK_EQ_INT(load("spated: { debug_hooks = 1; };\n"), -1);
	CHECK_ERR(1, "spated.debug_hooks must be true or false");
	CHECK_EQ_INT(load("spated: {\n peer_drop_ppm = 10; };\n"), -1);
	CHECK_ERR(2,
		  "spated.peer_drop_ppm is fault injection for tests: it needs debug_hooks = true");
	CHECK_EQ_INT(load("spated: { peer_drop_ppm = 10; debug_hooks = true; };\n"), 0);
	CHECK_EQ_INT(load("spated: {\n peer_auth = \"none\"; };\n"), -1);
	CHECK_ERR(2, "spated.peer_auth = \"none\" lets anyone who can send UDP to port 47110 "
		     "change this host's state: tests and benchmarks only (debug_hooks = true)");
	CHECK_EQ_INT(load("spated: { peer_auth = \"none\"; debug_hooks = true; };\n"), 0);
}

/* ---- run time: spated.idle_spin_us and spated.idle_sleep_us ---- */

static int rset(const char *name, const char *value)
{
	struct spate_param_ref r = spate_param_find_ctl(&spated_param_table, name);

	err[0] = '\0';
	if (r.row == NULL || r.row->reach != SPATE_PARAM_LIVE) {
		snprintf(err, sizeof(err), "%s is not live", name);
		return -1;
	}
	return spate_param_parse(r, spate_param_obj(r, &conf), value, err, sizeof(err));
}

static int rget(const char *name, char *buf, size_t len)
{
	struct spate_param_ref r = spate_param_find_ctl(&spated_param_table, name);

	if (!spate_param_in_ctl(r))
		return -1;
	return spate_param_format(r, spate_param_obj(r, &conf), buf, len);
}

static void test_runtime(void)
{
	char buf[32], name[96];
	struct spate_param_ref r;
	size_t n_live = 0;

	spated_conf_free(&conf);
	spated_conf_default(&conf);
	/* of the spated group, the idle times alone change live */
	for (size_t i = 0; (r = spate_param_at(&spated_param_table, i)).row != NULL; i++)
		if (strcmp(r.sec->group, "spated") == 0 && r.row->reach == SPATE_PARAM_LIVE) {
			spate_param_ctl_name(r, name, sizeof(name));
			CHECK(strcmp(name,
				     n_live ? "spated.idle_sleep_us" : "spated.idle_spin_us") == 0);
			n_live++;
		}
	CHECK_EQ_INT(n_live, 2);
	CHECK_EQ_INT(rget("spated.idle_spin_us", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "1000") == 0);
	CHECK_EQ_INT(rget("spated.mtu", buf, sizeof(buf)), -1);
	CHECK_EQ_INT(rget("idle_spin_us", buf, sizeof(buf)), -1);

	CHECK_EQ_INT(rset("spated.idle_sleep_us", "100000"), 0);
	CHECK_EQ_INT(conf.idle_sleep_us, 100000);
	CHECK_EQ_INT(conf.idle_spin_us, 1000);
	CHECK_EQ_INT(rget("spated.idle_sleep_us", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "100000") == 0);
	CHECK_EQ_INT(rset("spated.idle_sleep_us", "0"), 0);
	CHECK_EQ_INT(conf.idle_sleep_us, 0);
	CHECK_EQ_INT(rset("spated.idle_spin_us", "1000000"), 0);
	CHECK_EQ_INT(conf.idle_spin_us, 1000000);
	/* refused, the value unchanged */
	static const char *const bad[] = { "1000001", "-1",   "12x", "",
					   "5 ",      "0x10", "1e3", "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_INT(rset("spated.idle_spin_us", bad[i]), -1);
		char want[200];
		if (i < 2)
			snprintf(want, sizeof(want),
				 "spated.idle_spin_us = %s is out of range [0, 1000000]", bad[i]);
		else
			snprintf(want, sizeof(want), "spated.idle_spin_us: '%s' is not an integer",
				 bad[i]);
		CHECK(strcmp(err, want) == 0);
		CHECK_EQ_INT(conf.idle_spin_us, 1000000);
	}
	/* a refusal's ERANGE does not stick to the next value */
	CHECK_EQ_INT(rset("spated.idle_spin_us", "99999999999999999999"), -1);
	CHECK_EQ_INT(rset("spated.idle_spin_us", "7"), 0);
	CHECK_EQ_INT(conf.idle_spin_us, 7);
	CHECK_EQ_INT(rset("spated.idle_sleep_us", "100001"), -1);
	CHECK(strcmp(err, "spated.idle_sleep_us = 100001 is out of range [0, 100000]") == 0);
	CHECK_EQ_INT(rset("spated.mtu", "1500"), -1);

	/* the overrides file: only the run-time keys of spated */
	char ov[80];
	snprintf(ov, sizeof(ov), "%s.overrides", conf_path);
	FILE *f = fopen(ov, "w");
	fputs("spated: {\n  idle_sleep_us = 77;\n};\ncontrol: { log_level = \"debug\"; };\n", f);
	fclose(f);
	CHECK_EQ_INT(
		loadf("control: { overrides = \"%s\"; };\nspated: { idle_sleep_us = 5; };\n", ov),
		0);
	CHECK_EQ_INT(conf.idle_sleep_us, 77);
	CHECK_EQ_INT(conf.ops.log_level, 8);
	/* the overrides file cannot name another one */
	f = fopen(ov, "w");
	fputs("control: { overrides = \"/nonexistent/other\"; };\n", f);
	fclose(f);
	CHECK_EQ_INT(loadf("control: { overrides = \"%s\"; };\n", ov), 0);
	CHECK(strcmp(conf.ops.overrides_path, ov) == 0);
	f = fopen(ov, "w");
	fputs("spated: {\n  idle_sleep_us = 77;\n  mtu = 1400;\n};\n", f);
	fclose(f);
	CHECK_EQ_INT(loadf("control: { overrides = \"%s\"; };\n", ov), -1);
	char want[300];
	snprintf(want, sizeof(want),
		 "%s:3: spated.mtu is not a run-time setting "
		 "(spatectl show params lists them)",
		 ov);
	CHECK(strcmp(err, want) == 0);
	CHECK_EQ_INT(conf.mtu, 1500);
	f = fopen(ov, "w");
	fputs("spated: {\n  idle_sleep_us = 100001;\n};\n", f);
	fclose(f);
	CHECK_EQ_INT(loadf("control: { overrides = \"%s\"; };\n", ov), -1);
	snprintf(want, sizeof(want),
		 "%s:2: spated.idle_sleep_us = 100001 is out of range [0, 100000]", ov);
	CHECK(strcmp(err, want) == 0);
	f = fopen(ov, "w");
	fputs("spated: { };\nspatd: { };\n", f);
	fclose(f);
	CHECK_EQ_INT(loadf("control: { overrides = \"%s\"; };\n", ov), -1);
	CHECK(strstr(err, ":2: unknown group 'spatd'") != NULL);
	f = fopen(ov, "w");
	fputs("spated = 3;\n", f);
	fclose(f);
	CHECK_EQ_INT(loadf("control: { overrides = \"%s\"; };\n", ov), -1);
	snprintf(want, sizeof(want), "%s:1: 'spated' must be a group { ... }", ov);
	CHECK(strcmp(err, want) == 0);
	unlink(ov);
	/* absent overrides file: nothing read, no error */
	CHECK_EQ_INT(
		loadf("control: { overrides = \"%s\"; };\nspated: { idle_sleep_us = 5; };\n", ov),
		0);
	CHECK_EQ_INT(conf.idle_sleep_us, 5);
}

/* ---- ops_conf: journal, control, access, metrics ---- */

static void test_ops_file(void)
{
	static const struct {
		const char *group, *key;
		long long min, max;
	} nums[] = {
		{ "journal", "sync_interval_us", 100, 10000000 },
		{ "journal", "compact_min", 16, 1000000000 },
		{ "journal", "compact_factor", 2, 1000 },
		{ "access", "burst", 1, 1000000000 },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		char name[64], buf[64];
		snprintf(name, sizeof(name), "%s.%s", nums[i].group, nums[i].key);
		CHECK_EQ_INT(
			loadf("%s: {\n %s = %lld;\n};\n", nums[i].group, nums[i].key, nums[i].max),
			0);
		CHECK_EQ_INT(ops_conf_get(&conf.ops, name, buf, sizeof(buf)), 0);
		CHECK_EQ_INT(strtoll(buf, NULL, 10), nums[i].max);
		CHECK_EQ_INT(
			loadf("%s: {\n %s = %lld;\n};\n", nums[i].group, nums[i].key, nums[i].min),
			0);
		CHECK_EQ_INT(ops_conf_get(&conf.ops, name, buf, sizeof(buf)), 0);
		CHECK_EQ_INT(strtoll(buf, NULL, 10), nums[i].min);
		CHECK_EQ_INT(loadf("%s: {\n %s = %lld;\n};\n", nums[i].group, nums[i].key,
				   nums[i].max + 1),
			     -1);
		CHECK_ERR(2, "%s.%s = %lld is out of range [%lld, %lld]", nums[i].group,
			  nums[i].key, nums[i].max + 1, nums[i].min, nums[i].max);
		CHECK_EQ_INT(loadf("%s: {\n\n %s = %lld;\n};\n", nums[i].group, nums[i].key,
				   nums[i].min - 1),
			     -1);
		CHECK_ERR(3, "%s.%s = %lld is out of range [%lld, %lld]", nums[i].group,
			  nums[i].key, nums[i].min - 1, nums[i].min, nums[i].max);
		CHECK_EQ_INT(loadf("%s: { %s = 1.5; };\n", nums[i].group, nums[i].key), -1);
		CHECK_ERR(1, "%s.%s must be an integer", nums[i].group, nums[i].key);
	}
	/* access.rate: a number, 0 to 1e9, integer or float */
	CHECK_EQ_INT(load("access: { rate = 2.5; };\n"), 0);
	CHECK(conf.ops.rate == 2.5);
	CHECK_EQ_INT(load("access: { rate = 1000000000; };\n"), 0);
	CHECK(conf.ops.rate == 1e9);
	CHECK_EQ_INT(load("access: { rate = 1000000000.5; };\n"), -1);
	CHECK_ERR(1, "access.rate = 1000000000.5 is out of range [0, 1e+09]");
	CHECK_EQ_INT(load("access: { rate = -0.5; };\n"), -1);
	CHECK_ERR(1, "access.rate = -0.5 is out of range [0, 1e+09]");
	CHECK_EQ_INT(load("access: { rate = \"1\"; };\n"), -1);
	CHECK_ERR(1, "access.rate must be a number");
	CHECK_EQ_INT(load("access: { require_auth = 1; };\n"), -1);
	CHECK_ERR(1, "access.require_auth must be true or false");
	CHECK_EQ_INT(load("access: {\n  require_auth = true;\n};\n"), -1);
	CHECK_ERR(2, "access.require_auth is true but access.keys is empty");

	/* control.mode: octal, at most 0777 */
	CHECK_EQ_INT(load("control: { mode = \"0777\"; };\n"), 0);
	CHECK_EQ_INT(conf.ops.control_mode, 0777);
	CHECK_EQ_INT(load("control: { mode = \"0\"; };\n"), 0);
	CHECK_EQ_INT(conf.ops.control_mode, 0);
	static const char *const bad_mode[] = { "1000", "0778", "", "rw", "0660 " };
	for (size_t i = 0; i < sizeof(bad_mode) / sizeof(bad_mode[0]); i++) {
		CHECK_EQ_INT(loadf("control: { mode = \"%s\"; };\n", bad_mode[i]), -1);
		CHECK_ERR(1, "control.mode: '%s' is not an octal file mode (\"0600\" to \"0777\")",
			  bad_mode[i]);
	}
	CHECK_EQ_INT(load("control: { mode = 600; };\n"), -1);
	CHECK_ERR(1, "control.mode must be a string");
	CHECK_EQ_INT(load("control: { log_level = \"emerg\"; };\n"), 0);
	CHECK_EQ_INT(conf.ops.log_level, 1);
	CHECK_EQ_INT(load("control: { log_level = \"debug\"; };\n"), 0);
	CHECK_EQ_INT(conf.ops.log_level, 8);
	CHECK_EQ_INT(load("control: { log_level = \"\"; };\n"), -1);
	CHECK_ERR(1,
		  "control.log_level: '' is not one of emerg, alert, crit, err, warning, notice, "
		  "info, debug");
	CHECK_EQ_INT(load("journal: { sync = \"interval\"; };\n"), 0);
	CHECK_EQ_INT(load("journal: { sync = \"sometimes\"; };\n"), -1);
	CHECK_ERR(1, "journal.sync: 'sometimes' is not one of none, always, interval");
	/* strings: at most their field's size - 1 */
	char big[300];
	memset(big, 's', 107);
	big[107] = '\0';
	CHECK_EQ_INT(loadf("control: { socket = \"%s\"; };\n", big), 0);
	CHECK_EQ_INT(strlen(conf.ops.control_socket), 107);
	CHECK_EQ_INT(loadf("control: { socket = \"%ss\"; };\n", big), -1);
	CHECK_ERR(1, "control.socket must be a string of at most 107 bytes");
	CHECK_EQ_INT(load("journal = 1;\n"), -1);
	CHECK_ERR(1, "'journal' must be a group { ... }");

	/* metrics.listen */
	CHECK_EQ_INT(load("metrics: { listen = \"127.0.0.1:65535\"; };\n"), 0);
	CHECK_EQ_INT(load("metrics: {\n listen = \"127.0.0.1:65536\"; };\n"), -1);
	CHECK_ERR(2,
		  "metrics.listen = \"127.0.0.1:65536\": want \"A.B.C.D:PORT\" (port 1 to 65535), "
		  "e.g. \"127.0.0.1:9180\"");
	uint32_t ip = 0;
	uint16_t port = 0;
	CHECK_EQ_INT(ops_conf_parse_listen("10.0.0.1:1", &ip, &port), 0);
	CHECK_EQ_INT(ip, 0x0a000001);
	CHECK_EQ_INT(port, 1);
	CHECK_EQ_INT(ops_conf_parse_listen("10.0.0.1:65535", &ip, &port), 0);
	CHECK_EQ_INT(port, 65535);
	static const char *const bad_listen[] = { "10.0.0.1:0",   "10.0.0.1:",
						  "10.0.0.1",     "10.0.0:80",
						  "10.0.0.1:80x", "255.255.255.255255:80",
						  "10.0.0.1:-80" };
	for (size_t i = 0; i < sizeof(bad_listen) / sizeof(bad_listen[0]); i++)
		CHECK_EQ_INT(ops_conf_parse_listen(bad_listen[i], &ip, &port), -1);
}

static void test_ops_keys(void)
{
	char hex[200];

	memset(hex, 'a', 32);
	hex[32] = '\0';
	CHECK_EQ_INT(
		loadf("access: { require_auth = true;\n keys = ( { client = 4294967295L; key = "
		      "\"%s\"; }, { client = 1; key = \"00ff%s\"; } ); };\n",
		      hex, hex),
		0);
	CHECK_EQ_INT(conf.ops.n_keys, 2);
	CHECK_EQ_INT(conf.ops.keys[0].client, 4294967295u);
	CHECK_EQ_INT(conf.ops.keys[0].len, 16);
	CHECK_EQ_INT(conf.ops.keys[0].key[15], 0xaa);
	CHECK_EQ_INT(conf.ops.keys[1].client, 1);
	CHECK_EQ_INT(conf.ops.keys[1].len, 18);
	CHECK_EQ_INT(conf.ops.keys[1].key[0], 0x00);
	CHECK_EQ_INT(conf.ops.keys[1].key[1], 0xff);
	CHECK_EQ_INT(conf.ops.keys[1].key[2], 0xaa);
	CHECK(conf.ops.require_auth);
	/* upper-case hex, 128 digits (64 bytes) */
	memset(hex, 'F', 128);
	hex[128] = '\0';
	hex[0] = '9';
	CHECK_EQ_INT(loadf("access: { keys = ( { client = 9; key = \"%s\"; } ); };\n", hex), 0);
	CHECK_EQ_INT(conf.ops.keys[0].len, 64);
	CHECK_EQ_INT(conf.ops.keys[0].key[0], 0x9f);
	CHECK_EQ_INT(conf.ops.keys[0].key[63], 0xff);
	memset(hex, 'a', 130);
	hex[130] = '\0';
	CHECK_EQ_INT(loadf("access: { keys = (\n { client = 9; key = \"%s\"; } ); };\n", hex), -1);
	CHECK_ERR(2,
		  "access.keys[0]: key must be 32 to 128 hex digits (16 to 64 bytes), even count");
	hex[30] = '\0';
	CHECK_EQ_INT(loadf("access: { keys = ( { client = 9; key = \"%s\"; } ); };\n", hex), -1);
	CHECK_ERR(1,
		  "access.keys[0]: key must be 32 to 128 hex digits (16 to 64 bytes), even count");
	hex[30] = 'a';
	hex[33] = '\0';
	CHECK_EQ_INT(loadf("access: { keys = ( { client = 9; key = \"%s\"; } ); };\n", hex), -1);
	hex[32] = '\0';
	hex[31] = 'g';
	CHECK_EQ_INT(loadf("access: { keys = ( { client = 9; key = \"%s\"; } ); };\n", hex), -1);
	CHECK_ERR(1, "access.keys[0]: key has a non-hex digit");
	hex[31] = '/';
	CHECK_EQ_INT(loadf("access: { keys = ( { client = 9; key = \"%s\"; } ); };\n", hex), -1);
	hex[31] = 'a';
	CHECK_EQ_INT(loadf("access: { keys = ( { client = 0; key = \"%s\"; } ); };\n", hex), -1);
	CHECK_ERR(1, "access.keys[0]: client = 0 is out of range [1, 4294967295]");
	CHECK_EQ_INT(
		loadf("access: { keys = ( { client = 4294967296L; key = \"%s\"; } ); };\n", hex),
		-1);
	CHECK_ERR(1, "access.keys[0]: client = 4294967296 is out of range [1, 4294967295]");
	CHECK_EQ_INT(
		loadf("access: { keys = ( { client = 3; key = \"%s\"; },\n { client = 3; key = "
		      "\"%s\"; } ); };\n",
		      hex, hex),
		-1);
	CHECK_ERR(2, "access.keys[1]: client 3 has a key already");
	CHECK_EQ_INT(loadf("access: { keys = ( { client = 3; key = \"%s\"; x = 1; } ); };\n", hex),
		     -1);
	CHECK_ERR(1, "access.keys[0] must be { client = N; key = \"hex\"; }");
	CHECK_EQ_INT(load("access: { keys = 1; };\n"), -1);
	CHECK_ERR(1, "access.keys must be a list ( { client = N; key = \"hex\"; }, ... )");
}

static int oset(struct ops_conf *c, const char *name, const char *value)
{
	err[0] = '\0';
	return ops_conf_set(c, name, value, err, sizeof(err));
}

static void test_ops_runtime(void)
{
	struct ops_conf c;
	char buf[64];

	ops_conf_default(&c);
	CHECK_EQ_INT(oset(&c, "access.burst", "1000000000"), 0);
	CHECK_EQ_INT(c.burst, 1000000000);
	CHECK_EQ_INT(oset(&c, "access.burst", "1000000001"), -1);
	CHECK(strcmp(err, "access.burst = 1000000001 is out of range [1, 1000000000]") == 0);
	CHECK_EQ_INT(oset(&c, "access.burst", "0"), -1);
	CHECK(strcmp(err, "access.burst = 0 is out of range [1, 1000000000]") == 0);
	CHECK_EQ_INT(oset(&c, "access.burst", "1"), 0);
	CHECK_EQ_INT(c.burst, 1);
	CHECK_EQ_INT(oset(&c, "access.burst", "2.5"), -1);
	CHECK(strcmp(err, "access.burst: '2.5' is not an integer") == 0);
	CHECK_EQ_INT(oset(&c, "access.burst", "7x"), -1);
	CHECK(strcmp(err, "access.burst: '7x' is not an integer") == 0);
	CHECK_EQ_INT(oset(&c, "access.burst", ""), -1);
	CHECK(strcmp(err, "access.burst: '' is not an integer") == 0);
	CHECK_EQ_INT(oset(&c, "access.burst", "nan"), -1);
	CHECK(strcmp(err, "access.burst: 'nan' is not an integer") == 0);
	CHECK_EQ_INT(c.burst, 1);
	CHECK_EQ_INT(oset(&c, "journal.sync_interval_us", "99"), -1);
	CHECK(strcmp(err, "journal.sync_interval_us = 99 is out of range [100, 10000000]") == 0);
	CHECK_EQ_INT(oset(&c, "journal.sync_interval_us", "100"), 0);
	CHECK_EQ_INT(c.journal.sync_interval_us, 100);
	CHECK_EQ_INT(oset(&c, "journal.compact_factor", "1001"), -1);
	CHECK_EQ_INT(oset(&c, "journal.compact_factor", "1000"), 0);
	CHECK_EQ_INT(c.journal.compact_factor, 1000);
	CHECK_EQ_INT(oset(&c, "journal.compact_min", "15"), -1);
	CHECK_EQ_INT(oset(&c, "journal.compact_min", "16"), 0);
	CHECK_EQ_INT(c.journal.compact_min, 16);
	CHECK_EQ_INT(oset(&c, "access.rate", "0.25"), 0);
	CHECK(c.rate == 0.25);
	CHECK_EQ_INT(ops_conf_get(&c, "access.rate", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "0.25") == 0);
	CHECK_EQ_INT(oset(&c, "access.rate", "-0.25"), -1);
	CHECK(strcmp(err, "access.rate = -0.25 is out of range [0, 1e+09]") == 0);
	CHECK_EQ_INT(oset(&c, "access.require_auth", "true"), 0);
	CHECK(c.require_auth);
	CHECK_EQ_INT(ops_conf_get(&c, "access.require_auth", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "true") == 0);
	CHECK_EQ_INT(oset(&c, "access.require_auth", "false"), 0);
	CHECK(!c.require_auth);
	CHECK_EQ_INT(oset(&c, "access.require_auth", "yes"), -1);
	CHECK(strcmp(err, "access.require_auth: 'yes' is not true or false") == 0);
	CHECK_EQ_INT(oset(&c, "access.require_auth", "true "), -1);
	CHECK_EQ_INT(oset(&c, "control.log_level", "warning"), 0);
	CHECK_EQ_INT(c.log_level, 5);
	CHECK_EQ_INT(ops_conf_get(&c, "control.log_level", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "warning") == 0);
	CHECK_EQ_INT(oset(&c, "control.log_level", "loud"), -1);
	CHECK(strcmp(err,
		     "control.log_level: 'loud' is not one of emerg, alert, crit, err, warning, "
		     "notice, info, debug") == 0);
	CHECK_EQ_INT(oset(&c, "journal.sync", "none"), 0);
	CHECK_EQ_INT(ops_conf_get(&c, "journal.sync", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "none") == 0);
	CHECK_EQ_INT(oset(&c, "journal.sync", "always"), 0);
	CHECK_EQ_INT(ops_conf_get(&c, "journal.sync", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "always") == 0);
	CHECK_EQ_INT(oset(&c, "journal.sync", "never"), -1);
	CHECK(strcmp(err, "journal.sync: 'never' is not one of none, always, interval") == 0);
	/* not at run time, or not at all */
	CHECK_EQ_INT(oset(&c, "journal.path", "/x"), -1);
	CHECK(strcmp(err, "journal.path changes at the next start only") == 0);
	CHECK_EQ_INT(oset(&c, "control.mode", "0600"), -1);
	CHECK(strcmp(err, "control.mode changes at the next start only") == 0);
	CHECK_EQ_INT(oset(&c, "access.keys", "x"), -1);
	CHECK(strcmp(err, "unknown setting 'access.keys'") == 0);
	CHECK_EQ_INT(oset(&c, "journalsync", "none"), -1);
	CHECK(strcmp(err, "unknown setting 'journalsync'") == 0);
	CHECK_EQ_INT(oset(&c, "journal.", "none"), -1);
	CHECK_EQ_INT(oset(&c, "access.burst.x", "1"), -1);

	/* get: every kind's text */
	ops_conf_default(&c);
	CHECK_EQ_INT(ops_conf_get(&c, "control.mode", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "0600") == 0);
	CHECK_EQ_INT(ops_conf_get(&c, "control.log_level", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "default") == 0);
	CHECK_EQ_INT(ops_conf_get(&c, "access.burst", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "100") == 0);
	CHECK_EQ_INT(ops_conf_get(&c, "access.rate", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "0") == 0);
	CHECK_EQ_INT(ops_conf_get(&c, "access.require_auth", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "false") == 0);
	CHECK_EQ_INT(ops_conf_get(&c, "journal.path", buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "") == 0);
	CHECK_EQ_INT(ops_conf_get(&c, "journal.nope", buf, sizeof(buf)), -1);
	CHECK_EQ_INT(ops_conf_get(&c, "access.keys", buf, sizeof(buf)), -1);
	/* text or not (spatectl --json) */
	CHECK(ops_conf_is_text("journal.path"));
	CHECK(ops_conf_is_text("journal.sync"));
	CHECK(ops_conf_is_text("control.mode"));
	CHECK(ops_conf_is_text("control.log_level"));
	CHECK(ops_conf_is_text("metrics.listen"));
	CHECK(!ops_conf_is_text("access.rate"));
	CHECK(!ops_conf_is_text("access.burst"));
	CHECK(!ops_conf_is_text("access.require_auth"));
	CHECK(!ops_conf_is_text("journal.compact_min"));
	CHECK(!ops_conf_is_text("spated.mtu"));
	ops_conf_free(&c);
}

int main(void)
{
	snprintf(conf_path, sizeof(conf_path), "/tmp/spate-test-app-config-%d.conf", (int)getpid());
	spated_conf_default(&conf);
	test_defaults();
	test_uint_keys();
	test_floors();
	test_unknown();
	test_addresses();
	test_lcores();
	test_cluster();
	test_strings();
	test_runtime();
	test_ops_file();
	test_ops_keys();
	test_ops_runtime();
	spated_conf_free(&conf);
	unlink(conf_path);
	return check_summary("app_config");
}
