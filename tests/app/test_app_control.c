/* test_app_control.c - spated's control socket (app/control/control.c) as spatectl
 * sees it, without a port: the EAL without hugepages, a matcher with a few
 * subscriptions, control_start on a socket in /tmp, and this thread as the
 * data plane (control_poll) while a client thread asks. Every answer is
 * checked whole: the status line, the words, the numbers. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/sockios.h>

#include <libconfig.h>
#include <math.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "cluster/access.h"
#include "app_eal.h"
#include "check.h"
#include "config/config.h"
#include "control/control.h"
#include "control/ctl_cmd.h"
#include "infra/counters.h"
#include "infra/debug_stall.h"
#include "infra/latency.h"
#include "main/spated_log.h"
#include "matcher/spate_matcher.h"

static char sock_path[108];
static char port_name[64];
static char ov_path[128];
static struct spated_conf conf;
static struct spate_matcher *matcher;

/* ---- one request, answered while this thread serves the data plane ---- */

struct ask {
	const char *line;
	size_t len;
	char ans[65536];
	size_t got;
	atomic_bool done;
};

static void *client(void *arg)
{
	struct ask *a = arg;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		/* a control thread that is stuck fails the check, not the run */
		struct timeval tv = { 30, 0 };
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		(void)!write(fd, a->line, a->len);
		shutdown(fd, SHUT_WR);
		ssize_t n;
		while (a->got < sizeof(a->ans) - 1 &&
		       (n = read(fd, a->ans + a->got, sizeof(a->ans) - 1 - a->got)) > 0)
			a->got += (size_t)n;
	}
	a->ans[a->got] = '\0';
	if (fd >= 0)
		close(fd);
	atomic_store(&a->done, true);
	return NULL;
}

static struct ask the_ask;

/* The whole answer to `line` (raw bytes, no newline added). */
static const char *ask_raw(const char *line, size_t len)
{
	pthread_t t;
	struct ask *a = &the_ask;

	memset(a, 0, sizeof(*a));
	a->line = line;
	a->len = len;
	pthread_create(&t, NULL, client, a);
	/* bounded: 20 s of polls */
	for (int i = 0; i < 200000 && !atomic_load(&a->done); i++) {
		control_poll();
		usleep(100);
	}
	pthread_join(t, NULL);
	return a->ans;
}

static const char *ask(const char *line)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "%s\n", line);
	return ask_raw(buf, strlen(buf));
}

#define CHECK_ASK(line, want)                                                                \
	do {                                                                                 \
		const char *got_ = ask(line);                                                \
		check_count++;                                                               \
		if (strcmp(got_, want) != 0) {                                               \
			fprintf(stderr, "%s:%d: '%s'\n  got  '%s'\n  want '%s'\n", __FILE__, \
				__LINE__, line, got_, want);                                 \
			check_failed();                                                      \
		}                                                                            \
	} while (0)

/* ---- the subscriptions: sizes chosen so the largest-first order is known ---- */

static void add_sub(uint64_t id, int32_t lon, const char *kw, uint32_t owner)
{
	struct spate_raw_sub rs;

	memset(&rs, 0, sizeof(rs));
	rs.id = id;
	rs.rect = (struct spate_rect){ lon, 0, lon + 10, 10 };
	rs.n_kw = 1;
	rs.kw[0] = (struct spate_str){ kw, (uint32_t)strlen(kw) };
	CHECK_EQ_INT(spate_matcher_sub_add(matcher, &rs, owner), 0);
}

static void test_parse(void)
{
	CHECK_ASK("", "error\nunknown command (spatectl help lists them)\n");
	CHECK_ASK("shwo stats", "error\nunknown command (spatectl help lists them)\n");
	CHECK_ASK("show", "error\nunknown command (spatectl help lists them)\n");
	CHECK_ASK("json", "error\nunknown command (spatectl help lists them)\n");
	CHECK_ASK("set a b c", "error\nusage: set NAME VALUE\n");
	CHECK_ASK("set a", "error\nusage: set NAME VALUE\n");
	CHECK_ASK("get", "error\nusage: get NAME\n");
	CHECK_ASK("get a b", "error\nusage: get NAME\n");
	CHECK_ASK("help me", "error\nusage: help\n");
	CHECK_ASK("show stats now", "error\nusage: show stats\n");
	CHECK_ASK("show subs --count --count", "error\nusage: show subs --count\n");
	CHECK_ASK("show categories 1 2 3 4 5 6 7", "error\nusage: show categories [--top N] "
						   "[--worker W] [--page P]\n");
	CHECK_ASK("debug stall 1", "error\nusage: debug stall WORKER MS\n");
	/* tabs and CRLF separate words too */
	CHECK_ASK("get\taccess.burst\r", "ok\naccess.burst: 100\n");
	/* no newline: the end of the stream ends the line */
	const char *a = ask_raw("get access.burst", 16);
	CHECK(strcmp(a, "ok\naccess.burst: 100\n") == 0);
	/* at most 1023 bytes */
	char big[1100];
	memset(big, 'x', sizeof(big));
	a = ask_raw(big, sizeof(big));
	CHECK(strcmp(a, "error\nrequest line too long (at most 1023 bytes)\n") == 0);
	memset(big, ' ', 1022);
	memcpy(big + 1000, "help", 4);
	big[1022] = '\n';
	a = ask_raw(big, 1023);
	CHECK(strncmp(a, "ok\nshow stats: counters per lcore", 33) == 0);
}

static void test_get_set(void)
{
	CHECK_ASK("get access.burst", "ok\naccess.burst: 100\n");
	CHECK_ASK("json get access.burst", "ok\n{\"access.burst\":100}\n");
	CHECK_ASK("json get control.mode", "ok\n{\"control.mode\":\"0600\"}\n");
	CHECK_ASK("get nope", "error\nunknown setting 'nope' (spatectl show params lists them)\n");
	CHECK_ASK("set nope 1",
		  "error\nunknown setting 'nope' (spatectl show params lists them)\n");

	/* spated's own run-time keys: trailing garbage, signs, the bound */
	CHECK_ASK("set spated.idle_sleep_us 100000", "ok\nspated.idle_sleep_us: 100000\n");
	CHECK_EQ_INT(conf.idle_sleep_us, 100000);
	CHECK_ASK("set spated.idle_sleep_us 100001",
		  "error\nspated.idle_sleep_us = 100001 is out of range [0, 100000]\n");
	CHECK_ASK("set spated.idle_sleep_us 5x",
		  "error\nspated.idle_sleep_us: '5x' is not an integer\n");
	CHECK_ASK("set spated.idle_sleep_us -1",
		  "error\nspated.idle_sleep_us = -1 is out of range [0, 100000]\n");
	CHECK_EQ_INT(conf.idle_sleep_us, 100000);
	CHECK_ASK("set spated.idle_sleep_us 0", "ok\nspated.idle_sleep_us: 0\n");
	CHECK_EQ_INT(conf.idle_sleep_us, 0);
	CHECK_ASK("get spated.idle_spin_us", "ok\nspated.idle_spin_us: 1000\n");
	CHECK_ASK("get spated.mtu",
		  "error\nunknown setting 'spated.mtu' (spatectl show params lists them)\n");

	/* the library's limits and quotas */
	CHECK_ASK("set quotas.max_subs 3", "ok\nquotas.max_subs: 3\n");
	CHECK_EQ_INT(conf.common.matcher.max_subs, 3);
	CHECK_EQ_INT(spate_matcher_get_conf(matcher)->max_subs, 3);
	CHECK_ASK("show subs --count", "ok\ncount: 3\nmax_subs: 3\nmax_subs_per_client: 0\n");
	CHECK_ASK("set quotas.max_subs 0", "ok\nquotas.max_subs: 0\n");
	CHECK_ASK("set quotas.max_subs_per_client 2", "ok\nquotas.max_subs_per_client: 2\n");
	CHECK_ASK("show subs", "ok\ncount: 3\nmax_subs: 0\nmax_subs_per_client: 2\n");
	CHECK_ASK("show subs --all", "error\nonly 'show subs --count' is supported\n");
	CHECK_ASK("set quotas.max_subs_per_client 0", "ok\nquotas.max_subs_per_client: 0\n");
	char cur[64], line[128], want[256];
	CHECK_EQ_INT(spate_conf_int_get(&conf.common, "limits.max_messages", cur, sizeof(cur)), 0);
	snprintf(line, sizeof(line), "set limits.max_messages %s", cur);
	snprintf(want, sizeof(want), "ok\nlimits.max_messages: %s\n", cur);
	CHECK_ASK(line, want);
	snprintf(line, sizeof(line), "set limits.max_messages %lld", atoll(cur) - 1);
	CHECK_ASK(line, "error\nlimits.max_messages changes at the next start only\n");

	/* drt parameters, through the matcher */
	CHECK_ASK("set drt.cmax 0", "error\ndrt.cmax = 0 is out of range [1, 1000000]\n");
	CHECK_ASK("set drt.cmax 77", "ok\ndrt.cmax: 77\n");
	CHECK_EQ_INT(spate_matcher_get_conf(matcher)->params.drt.cmax, 77);
	CHECK_EQ_INT(conf.common.matcher.params.drt.cmax, 77);

	/* the ops groups */
	CHECK_ASK("set access.burst 0",
		  "error\naccess.burst = 0 is out of range [1, 1000000000]\n");
	CHECK_ASK("set access.burst 12x", "error\naccess.burst: '12x' is not an integer\n");
	CHECK_ASK("set access.burst 250", "ok\naccess.burst: 250\n");
	CHECK_EQ_INT(conf.ops.burst, 250);
	CHECK_ASK("set access.require_auth true",
		  "error\naccess.require_auth: no keys configured (access.keys)\n");
	CHECK(!conf.ops.require_auth);
	CHECK_ASK("set access.require_auth false", "ok\naccess.require_auth: false\n");
	CHECK_ASK("set journal.path /tmp/x",
		  "error\njournal.path changes at the next start only\n");
	CHECK_ASK("set log_level debug", "ok\ncontrol.log_level: debug\n");
	CHECK_EQ_INT(conf.ops.log_level, 8);
	CHECK_EQ_INT(rte_log_get_level(spated_logtype), RTE_LOG_DEBUG); /* in force */
	CHECK_ASK("get log_level", "ok\ncontrol.log_level: debug\n");
	CHECK_ASK("set control.log_level warning", "ok\ncontrol.log_level: warning\n");
	CHECK_ASK("json get control.log_level", "ok\n{\"control.log_level\":\"warning\"}\n");
	CHECK_ASK("set access.rate 2.5", "ok\naccess.rate: 2.5\n");
	CHECK_ASK("json get access.rate", "ok\n{\"access.rate\":2.5}\n");
	/* another section's setting leaves the log level where it is (an
	 * EAL --log-level, say, is not overridden by the file's) */
	rte_log_set_level(spated_logtype, RTE_LOG_ERR);
	CHECK_ASK("set access.rate 2.5", "ok\naccess.rate: 2.5\n");
	CHECK_EQ_INT(rte_log_get_level(spated_logtype), RTE_LOG_ERR);
	rte_log_set_level(spated_logtype, RTE_LOG_WARNING);
}

static void test_save(void)
{
	/* every `set` that took, the last value of each name, in a file the
	 * next start reads */
	ask("save");
	char want[300];
	snprintf(want, sizeof(want), "ok\nfile: %s\nsettings: 9\n", ov_path);
	CHECK(strcmp(the_ask.ans, want) == 0);
	struct spated_conf c2;
	char err[512];
	spated_conf_default(&c2);
	snprintf(c2.ops.overrides_path, sizeof(c2.ops.overrides_path), "%s", ov_path);
	CHECK_EQ_INT(spated_conf_read_overrides(&c2, err, sizeof(err)), 0);
	CHECK_EQ_INT(c2.idle_sleep_us, 0);
	CHECK_EQ_INT(c2.common.matcher.max_subs, 0);
	CHECK_EQ_INT(c2.common.matcher.params.drt.cmax, 77);
	CHECK_EQ_INT(c2.ops.burst, 250);
	CHECK_EQ_INT(c2.ops.log_level, 5);
	CHECK(c2.ops.rate == 2.5);
	CHECK(!c2.ops.require_auth);
	spated_conf_free(&c2);
	/* the file as written: each type as the main config has it */
	FILE *f = fopen(ov_path, "r");
	char text[4096] = "";
	size_t got = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	if (f)
		fclose(f);
	text[got] = '\0';
	CHECK(strstr(text, "require_auth = false;") != NULL);
	CHECK(strstr(text, "rate = 2.5;") != NULL);
	CHECK(strstr(text, "cmax = 77L;") != NULL); /* a number, as the main file has it */
	CHECK(strstr(text, "log_level = \"warning\";") != NULL);
	CHECK(strstr(text, "idle_sleep_us = 0L;") != NULL);
}

static void test_categories(void)
{
	/* 3 subscriptions: how the engine files them is its business; the
	 * page arithmetic and the flags are control's */
	CHECK_ASK("show categories --top -1", "error\n--top needs a number >= 0\n");
	CHECK_ASK("show categories --page -2", "error\n--page needs a number >= 0\n");
	CHECK_ASK("show categories --worker -3", "error\n--worker needs a number >= 0\n");
	CHECK_ASK("show categories --top 5x", "error\n--top needs a number >= 0\n");
	CHECK_ASK("show categories --top", "error\n--top needs a number >= 0\n");
	CHECK_ASK("show categories --top ''", "error\n--top needs a number >= 0\n");
	CHECK_ASK("show categories --bogus 1",
		  "error\nunknown option '--bogus' (--top N, --worker W, --page P)\n");
	CHECK_ASK("show categories --top 1 --pgae 1",
		  "error\nunknown option '--pgae' (--top N, --worker W, --page P)\n");

	ask("json show categories");
	const char *a = the_ask.ans;
	CHECK(strncmp(a, "ok\n{\"categories\":[", 18) == 0);
	unsigned long total = 0, shown = 0, page = 9;
	const char *t = strstr(a, "],\"total\":");
	CHECK(t != NULL &&
	      sscanf(t, "],\"total\":%lu,\"page\":%lu,\"shown\":%lu}", &total, &page, &shown) == 3);
	CHECK(total >= 1);
	CHECK_EQ_INT(shown, total);
	CHECK_EQ_INT(page, 0);
	/* the subs of all categories add up to the subscriptions */
	unsigned long subs = 0, s;
	for (const char *p = a; (p = strstr(p, "\"subs\":")) != NULL; p++)
		if (sscanf(p, "\"subs\":%lu", &s) == 1)
			subs += s;
	CHECK_EQ_INT(subs, 3);
	char line[128], want[160];
	/* page past the end: nothing shown, the total kept */
	snprintf(line, sizeof(line), "json show categories --top 1 --page %lu", total);
	snprintf(want, sizeof(want),
		 "ok\n{\"categories\":[],\"total\":%lu,\"page\":%lu,\"shown\":0}\n", total, total);
	CHECK_ASK(line, want);
	/* the last page: exactly one */
	snprintf(line, sizeof(line), "json show categories --top 1 --page %lu", total - 1);
	ask(line);
	snprintf(want, sizeof(want), "],\"total\":%lu,\"page\":%lu,\"shown\":1}\n", total,
		 total - 1);
	CHECK(strstr(the_ask.ans, want) != NULL);
	CHECK_ASK("json show categories --top 0",
		  total == 1 ? "ok\n{\"categories\":[],\"total\":1,\"page\":0,\"shown\":0}\n"
			     : "?");
	/* a worker that has none */
	CHECK_ASK("json show categories --worker 9",
		  "ok\n{\"categories\":[],\"total\":0,\"page\":0,\"shown\":0}\n");
	/* the one category, every field */
	CHECK_ASK("json show categories",
		  "ok\n{\"categories\":[{\"id\":1,\"worker\":0,\"subs\":3,"
		  "\"min_lon\":0,\"min_lat\":0,\"max_lon\":1.1e-05,\"max_lat\":1e-06,\"events\":0,"
		  "\"inserts\":3,\"deletes\":0}],\"total\":1,\"page\":0,\"shown\":1}\n");
	/* far away, other keywords: other categories, listed largest first */
	add_sub(10, 1000000000, "far", 9);
	add_sub(11, 1000000000, "far", 9);
	add_sub(12, 1000000000, "far", 9);
	add_sub(13, 1000000000, "far", 9);
	add_sub(14, -1000000000, "west", 9);
	static const char c1[] = "{\"id\":1,\"worker\":0,\"subs\":3,\"min_lon\":0,\"min_lat\":0,"
				 "\"max_lon\":1.1e-05,\"max_lat\":1e-06,\"events\":0,\"inserts\":3,"
				 "\"deletes\":0}";
	static const char c2[] =
		"{\"id\":2,\"worker\":0,\"subs\":4,\"min_lon\":100,\"min_lat\":0,"
		"\"max_lon\":100.000001,\"max_lat\":1e-06,\"events\":0,\"inserts\":4,"
		"\"deletes\":0}";
	static const char c3[] =
		"{\"id\":3,\"worker\":0,\"subs\":1,\"min_lon\":-100,\"min_lat\":0,"
		"\"max_lon\":-99.999999,\"max_lat\":1e-06,\"events\":0,\"inserts\":1,"
		"\"deletes\":0}";
	char all[1024];
	snprintf(all, sizeof(all),
		 "ok\n{\"categories\":[%s,%s,%s],\"total\":3,\"page\":0,\"shown\":3}\n", c2, c1,
		 c3);
	CHECK_ASK("json show categories", all);
	snprintf(all, sizeof(all), "ok\n{\"categories\":[%s],\"total\":3,\"page\":1,\"shown\":1}\n",
		 c1);
	CHECK_ASK("json show categories --top 1 --page 1", all);
	snprintf(all, sizeof(all), "ok\n{\"categories\":[%s],\"total\":3,\"page\":1,\"shown\":1}\n",
		 c3);
	CHECK_ASK("json show categories --page 1 --top 2", all);
	snprintf(all, sizeof(all),
		 "ok\n{\"categories\":[%s,%s],\"total\":3,\"page\":0,\"shown\":2}\n", c2, c1);
	CHECK_ASK("json show categories --top 2 --worker 0", all);
	CHECK_ASK("json show placement", "ok\n{\"workers\":[{\"worker\":0,\"categories\":3,"
					 "\"subs\":8,\"events\":0}]}\n");
	for (uint64_t id = 10; id <= 14; id++)
		CHECK_EQ_INT(spate_matcher_sub_del(matcher, id, 9), 0);
	/* placement: one line per worker, the subs add up */
	ask("json show placement");
	CHECK(strncmp(the_ask.ans, "ok\n{\"workers\":[{\"worker\":0,\"categories\":", 40) == 0);
	subs = 0;
	for (const char *p = the_ask.ans; (p = strstr(p, "\"subs\":")) != NULL; p++)
		if (sscanf(p, "\"subs\":%lu", &s) == 1)
			subs += s;
	CHECK_EQ_INT(subs, 3);
}

static void test_debug(void)
{
	CHECK_ASK("debug stall 2 10", "error\nWORKER must be a matching worker, 0 to 1\n");
	CHECK_ASK("debug stall x 10", "error\nWORKER must be a matching worker, 0 to 1\n");
	CHECK_ASK("debug stall 1x 10", "error\nWORKER must be a matching worker, 0 to 1\n");
	CHECK_ASK("debug stall 1 0", "error\nMS must be 1 to 60000\n");
	CHECK_ASK("debug stall 1 60001", "error\nMS must be 1 to 60000\n");
	CHECK_ASK("debug stall 1 5s", "error\nMS must be 1 to 60000\n");
	CHECK_ASK("debug stall 1 60000", "ok\nworker: 1\nstall_ms: 60000\n");
	CHECK_ASK("debug stall 0 1", "ok\nworker: 0\nstall_ms: 1\n");
	conf.debug_hooks = false;
	CHECK_ASK("debug stall 0 1",
		  "error\ndebug hooks are off (spated.debug_hooks = true enables them)\n");
	conf.debug_hooks = true;
}

static void test_show(void)
{
	/* counters: this thread's block and the totals */
	spated_counters_bind(rte_lcore_id());
	spated_cnt.rx = 41;
	spated_cnt.ring_full_rx = 7;
	spated_cnt.msg_err[SPATE_E_INVERTED_RECT] = 3;
	ask("json show stats");
	const char *a = the_ask.ans;
	CHECK(strncmp(a, "ok\n{\"total\":{\"polls\":", 21) == 0);
	CHECK(strstr(a, ",\"rx\":41,") != NULL);
	CHECK(strstr(a, ",\"ring_full_rx\":7,") != NULL);
	char want[128];
	snprintf(want, sizeof(want), "\"msg_err\":{\"%s\":3}",
		 spate_err_name(SPATE_E_INVERTED_RECT));
	CHECK(strstr(a, want) != NULL);
	CHECK(strstr(a, "\"hdr_err\":{}") != NULL);
	CHECK(strstr(a, "\"lcores\":{\"0\":{\"polls\":") != NULL);
	CHECK(strstr(a, ",\"subscriptions\":3,") != NULL);
	spated_cnt.rx = 0;
	spated_cnt.ring_full_rx = 0;
	spated_cnt.msg_err[SPATE_E_INVERTED_RECT] = 0;

	ask("show config");
	a = the_ask.ans;
	static const char head[] = "ok\nfile: (defaults)\nrole: both\nengine: drt\nspated: \n"
				   "  ipv4: 10.9.8.7/24\n  gateway: 10.9.8.1\n  udp_port: 47100\n"
				   "  mtu: 1500\n";
	CHECK(strstr(a, "\n  rx_desc: 512\n  tx_desc: 512\n") != NULL);
	CHECK(strncmp(a, head, sizeof(head) - 1) == 0);
	CHECK(strstr(a, "\n  drt.alpha: 0.2\n") != NULL); /* the first setting too */
	char port_line[160];
	snprintf(port_line, sizeof(port_line),
		 "  ports: \n    - \n      port: 0\n      name: net_ring_%s\n"
		 "      driver: net_ring\n      mac: ",
		 port_name);
	CHECK(strstr(a, port_line) != NULL);
	/* each setting once */
	CHECK(strstr(a, "\n  journal.sync: always\n") != NULL);
	CHECK(strstr(strstr(a, "\n  journal.sync: always\n") + 1, "\n  journal.sync: ") == NULL);
	CHECK(strstr(a, "\n  journal.path: \n") != NULL);
	CHECK(strstr(a, "\n  metrics.listen: \n") != NULL);
	CHECK(strstr(a, "\n  access.burst: 250\n") != NULL);
	CHECK(strstr(a, "\n  control.mode: 0600\n") != NULL);
	CHECK(strstr(a, "\n  access.keys: 0\n") != NULL);
	ask("show params");
	CHECK(strncmp(the_ask.ans, "ok\ndrt.", 7) == 0);
	CHECK(strstr(the_ask.ans, "\nspated.idle_sleep_us: 0\n") != NULL);
	CHECK(strstr(the_ask.ans, "\naccess.require_auth: false\n") != NULL);
	ask("json show params");
	CHECK(strstr(the_ask.ans, "\"journal.sync\":\"always\"") != NULL);
	CHECK(strstr(the_ask.ans, "\"spated.idle_spin_us\":1000") != NULL);
	ask("help");
	CHECK(strstr(the_ask.ans, "\nset NAME VALUE: change a setting now (validated; the value in "
				  "force is printed back)\n") != NULL);
	CHECK(strncmp(the_ask.ans, "ok\nshow stats: ", 15) == 0);
	ask("show version");
	CHECK(strncmp(the_ask.ans, "ok\nversion: ", 12) == 0);
	/* latency: one sample of RX to TX, shown in microseconds (0.1 us) */
	spate_hist_record(&spated_lat_slots[0].h[SPATED_LAT_RX_TX], 123456789);
	struct spate_hist h;
	struct spated_lat_summary sum;
	spated_lat_sum(SPATED_LAT_RX_TX, &h);
	spated_lat_summarize(&h, &sum);
	char want_max[64], num[40];
	spate_format_double(num, sizeof(num), round(sum.max_s * 1e7) / 10);
	snprintf(want_max, sizeof(want_max), "\"max_us\":%s,", num);
	ask("json show latency");
	CHECK(strstr(the_ask.ans, "\"rx_to_tx\":{\"count\":1,") != NULL);
	CHECK(strstr(the_ask.ans, want_max) != NULL);
	char want_q[64];
	spate_format_double(num, sizeof(num), round(sum.q_s[0] * 1e7) / 10);
	snprintf(want_q, sizeof(want_q), "\"p50_us\":%s,", num);
	CHECK(strstr(strstr(the_ask.ans, "rx_to_tx"), want_q) != NULL);
	ask("json show latency --window");
	CHECK(strstr(the_ask.ans, "\"rx_to_tx\":{\"count\":1,") != NULL);
	ask("json show latency --window"); /* nothing since the last window */
	CHECK(strstr(the_ask.ans, "\"rx_to_tx\":{\"count\":0,") != NULL);
	ask("json show latency"); /* since start */
	CHECK(strstr(the_ask.ans, "\"rx_to_tx\":{\"count\":1,") != NULL);
	CHECK_ASK("show latency --all", "error\nunknown option '--all' (--window)\n");
	ask("json show lcores");
	CHECK(strncmp(the_ask.ans, "ok\n{\"lcores\":[{\"lcore\":0,\"socket\":", 34) == 0);
	CHECK(strstr(the_ask.ans, "\"runs\":\"cluster stage, control requests\"") != NULL);
	CHECK_ASK("journal compact", "error\nno journal configured (journal.path)\n");
}

/* ---- clients of their own: slow, hasty, many, in a chosen order ---- */

/* Two commands of the test's own (ctl_cmd.h): an answer of any size,
 * and a data-plane command whose runs are recorded in order. */
static int cmd_bulk(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	long n = atol(r->argv[0]);

	(void)err;
	(void)errlen;
	for (long i = 0; i < n; i++)
		fputc(i % 64 == 63 ? '\n' : 'a' + (int)(i % 26), o->f);
	return 0;
}

static struct ctl_cmd bulk_cmd = {
	.path = "test bulk",
	.min_args = 1,
	.max_args = 1,
	.usage = "test bulk BYTES",
	.help = "(test) an answer of BYTES bytes",
	.fn = cmd_bulk,
	.rank = 1000,
};
CTL_COMMAND(bulk_cmd)

static long dp_ran[16];
static int n_dp_ran;

static int cmd_dp(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (n_dp_ran < 16)
		dp_ran[n_dp_ran++] = atol(r->argv[0]);
	ctl_out_str(o, "tag", r->argv[0]);
	return 0;
}

static struct ctl_cmd dp_cmd = {
	.path = "test dp",
	.min_args = 1,
	.max_args = 1,
	.usage = "test dp TAG",
	.help = "(test) runs on the data plane",
	.fn = cmd_dp,
	.on_dp = true,
	.rank = 1001,
};
CTL_COMMAND(dp_cmd)

/* Is the answer s (n bytes) "ok\n" and then `test bulk bytes`'s? */
static bool bulk_ok(const char *s, size_t n, long bytes)
{
	if (n != 3 + (size_t)bytes || memcmp(s, "ok\n", 3) != 0)
		return false;
	for (long i = 0; i < bytes; i++)
		if (s[3 + i] != (i % 64 == 63 ? '\n' : 'a' + (int)(i % 26)))
			return false;
	return true;
}

static int cl_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		fd = -1;
	}
	CHECK(fd >= 0);
	return fd;
}

/* Send s and wait until the server has read it all (nothing left in
 * the socket: SIOCOUTQ), the data plane served meanwhile when dp. */
static void cl_send(int fd, const char *s, bool dp)
{
	int outq = 1;

	CHECK_EQ_INT(write(fd, s, strlen(s)), (long)strlen(s));
	for (int i = 0; i < 200000 && ioctl(fd, SIOCOUTQ, &outq) == 0 && outq > 0; i++) {
		if (dp)
			control_poll();
		usleep(100);
	}
	CHECK_EQ_INT(outq, 0);
}

/* Read until the server closes (at most cap - 1 bytes kept, a NUL
 * after them); the data plane served meanwhile when dp. Bounded: 30 s. */
static size_t cl_read_all(int fd, char *buf, size_t cap, bool dp)
{
	size_t got = 0;
	char sink[4096];

	for (int i = 0; i < 300000; i++) {
		char *to = got < cap - 1 ? buf + got : sink;
		size_t room = got < cap - 1 ? cap - 1 - got : sizeof(sink);
		ssize_t n = recv(fd, to, room, MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n > 0) {
			got += to == sink ? 0 : (size_t)n;
			continue;
		}
		if (dp)
			control_poll();
		usleep(100);
	}
	buf[got] = '\0';
	return got;
}

/* Wait until counter `name` has moved by `by` since `from` (bounded). */
#define WAIT_COUNTER(from, name, by)                                                    \
	do {                                                                            \
		struct spated_counters now_;                                            \
		spated_counters_sum(&now_);                                             \
		for (int i_ = 0; i_ < 100000 && now_.name - (from).name < (by); i_++) { \
			usleep(100);                                                    \
			spated_counters_sum(&now_);                                     \
		}                                                                       \
		CHECK_EQ_INT(now_.name - (from).name, by);                              \
	} while (0)

/* A client that reads slowly does not hold up the others: its answer
 * (larger than any socket buffer) is sent as it takes it, whole and in
 * order. One that hangs up in the middle of its answer is counted
 * (ctl_hangups), and costs no signal. */
static void test_slow_reader(void)
{
	static char big[1100000];
	struct spated_counters c0;
	char first[3];

	spated_counters_sum(&c0);
	int a = cl_connect();
	cl_send(a, "test bulk 1000000\n", false);
	CHECK_EQ_INT(recv(a, first, 3, MSG_WAITALL), 3); /* the answer has begun */
	CHECK(memcmp(first, "ok\n", 3) == 0);
	/* a stalls; b is served meanwhile */
	CHECK_ASK("get access.burst", "ok\naccess.burst: 250\n");
	CHECK_ASK("test bulk 1", "ok\na");
	CHECK_ASK("test bulk 0", "ok\n");
	CHECK_ASK("test bulk 100",
		  "ok\nabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk\n"
		  "mnopqrstuvwxyzabcdefghijklmnopqrstuv");
	memcpy(big, "ok\n", 3);
	size_t n = cl_read_all(a, big + 3, sizeof(big) - 3, false);
	CHECK(bulk_ok(big, n + 3, 1000000));
	close(a);
	/* gone in the middle of its answer */
	int h = cl_connect();
	cl_send(h, "test bulk 1000000\n", false);
	CHECK_EQ_INT(recv(h, first, 3, MSG_WAITALL), 3);
	close(h);
	WAIT_COUNTER(c0, ctl_hangups, 1);
	/* gone before its answer: the line came, then the end */
	h = cl_connect();
	cl_send(h, "test bulk 1000000", false);
	close(h);
	WAIT_COUNTER(c0, ctl_hangups, 2);
	/* gone after a line without its newline: that is the request (a
	 * data-plane one), answered into the void */
	h = cl_connect();
	cl_send(h, "get acc", false);
	close(h);
	/* one that says nothing at all */
	h = cl_connect();
	close(h);
	CHECK_ASK("get access.burst", "ok\naccess.burst: 250\n");
	struct spated_counters c1;
	spated_counters_sum(&c1);
	CHECK_EQ_INT(c1.ctl_hangups - c0.ctl_hangups, 3);
	CHECK_EQ_INT(c1.ctl_timeouts - c0.ctl_timeouts, 0);
	CHECK_EQ_INT(c1.ctl_busy - c0.ctl_busy, 0);
	CHECK_EQ_INT(c1.ctl_clients - c0.ctl_clients, 10);
}

/* A line in pieces, each read before the next is sent: one request. */
static void test_partial_lines(void)
{
	char buf[256];
	int fd = cl_connect();

	cl_send(fd, "get acc", true);
	cl_send(fd, "ess.bu", true);
	cl_send(fd, "rst\n", true);
	cl_read_all(fd, buf, sizeof(buf), true);
	CHECK(strcmp(buf, "ok\naccess.burst: 250\n") == 0);
	close(fd);
	/* 1000 bytes, then 100 more: too long once 1023 are in */
	char line[1101];
	memset(line, ' ', 1100);
	line[1100] = '\0';
	fd = cl_connect();
	line[1000] = '\0';
	cl_send(fd, line, true);
	line[1000] = ' ';
	CHECK_EQ_INT(write(fd, line + 1000, 100), 100);
	cl_read_all(fd, buf, sizeof(buf), true);
	CHECK(strcmp(buf, "error\nrequest line too long (at most 1023 bytes)\n") == 0);
	close(fd);
	/* 1022 bytes, then the newline: the longest line there is */
	memset(line, ' ', 1022);
	memcpy(line + 1000, "get access.burst", 16);
	line[1016] = '\0';
	fd = cl_connect();
	cl_send(fd, line, true);
	cl_send(fd, "      \n", true);
	cl_read_all(fd, buf, sizeof(buf), true);
	CHECK(strcmp(buf, "ok\naccess.burst: 250\n") == 0);
	close(fd);
}

/* 16 clients at once; the 17th is told "busy" at once and counted; all
 * 16 are answered, whatever order they speak in; and then their slots
 * serve 16 more. */
static void test_many(void)
{
	enum { MAX = 16 };
	int fd[MAX + 1];
	char buf[256];
	struct spated_counters c0, c1;

	spated_counters_sum(&c0);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i <= MAX; i++)
			fd[i] = cl_connect();
		cl_read_all(fd[MAX], buf, sizeof(buf), true);
		CHECK(strcmp(buf, "error\nbusy: 16 control clients are connected; try again\n") ==
		      0);
		close(fd[MAX]);
		for (int i = MAX - 1; i >= 0; i--) {
			cl_send(fd[i], i % 2 ? "get access.burst\n" : "get control.mode\n", true);
			cl_read_all(fd[i], buf, sizeof(buf), true);
			CHECK(strcmp(buf, i % 2 ? "ok\naccess.burst: 250\n"
						: "ok\ncontrol.mode: 0600\n") == 0);
			close(fd[i]);
		}
	}
	spated_counters_sum(&c1);
	CHECK_EQ_INT(c1.ctl_busy - c0.ctl_busy, 2);
	CHECK_EQ_INT(c1.ctl_clients - c0.ctl_clients, 2 * MAX);
	CHECK_EQ_INT(c1.ctl_hangups - c0.ctl_hangups, 0);
}

/* The data plane runs one request at a time, in the order their lines
 * were complete (not the order of the connections). */
static void test_dp_order(void)
{
	enum { N = 5 };
	int fd[N];
	char buf[256], want[64];

	n_dp_ran = 0;
	for (int i = 0; i < N; i++)
		fd[i] = cl_connect();
	for (int i = N - 1; i >= 0; i--) {
		snprintf(want, sizeof(want), "test dp %d\n", 50 + i);
		cl_send(fd[i], want, false); /* nothing runs yet: no control_poll */
	}
	CHECK_EQ_INT(n_dp_ran, 0);
	for (int i = N - 1; i >= 0; i--) {
		cl_read_all(fd[i], buf, sizeof(buf), true);
		snprintf(want, sizeof(want), "ok\ntag: %d\n", 50 + i);
		CHECK(strcmp(buf, want) == 0);
		close(fd[i]);
	}
	CHECK_EQ_INT(n_dp_ran, N);
	for (int i = 0; i < N && i < n_dp_ran; i++)
		CHECK_EQ_INT(dp_ran[i], 50 + N - 1 - i);
}

/* Every deadline, in one 10 s wait: a client that says nothing is cut
 * after 5 s, one that does not take its answer too; a request the data
 * plane does not take within 10 s is answered so, the one behind it as
 * well, and the data plane's late answer is dropped (it runs later,
 * and the next request goes through). */
static void test_deadline(void)
{
	char buf[256];
	static char big[1100000];
	struct spated_counters c0;

	spated_counters_sum(&c0);
	n_dp_ran = 0;
	int x = cl_connect(), y = cl_connect();
	cl_send(x, "test dp 100\n", false);
	cl_send(y, "test dp 101\n", false);
	int w = cl_connect();
	cl_send(w, "test bulk 1000000\n", false);
	CHECK_EQ_INT(recv(w, buf, 3, MSG_WAITALL), 3); /* being written to, then stalled */
	int idle = cl_connect();
	cl_read_all(idle, buf, sizeof(buf), false);
	CHECK(strcmp(buf, "error\ntimed out: no whole request line within 5 s\n") == 0);
	close(idle);
	/* w's deadline came first: cut short */
	size_t n = cl_read_all(w, big, sizeof(big), false);
	CHECK(n < 1000000);
	close(w);
	cl_read_all(x, buf, sizeof(buf), false);
	CHECK(strcmp(buf, "error\nthe data plane did not answer within 10 s\n") == 0);
	close(x);
	cl_read_all(y, buf, sizeof(buf), false);
	CHECK(strcmp(buf, "error\nthe data plane did not answer within 10 s\n") == 0);
	close(y);
	struct spated_counters c1;
	spated_counters_sum(&c1);
	CHECK_EQ_INT(c1.ctl_timeouts - c0.ctl_timeouts, 4);
	CHECK_EQ_INT(n_dp_ran, 0);
	/* the data plane wakes: x runs (its answer dropped), y never */
	CHECK_ASK("test dp 102", "ok\ntag: 102\n");
	CHECK_EQ_INT(n_dp_ran, 2);
	CHECK_EQ_INT(dp_ran[0], 100);
	CHECK_EQ_INT(dp_ran[1], 102);
	spated_counters_sum(&c1);
	CHECK_EQ_INT(c1.ctl_timeouts - c0.ctl_timeouts, 4);
	CHECK_EQ_INT(c1.ctl_hangups - c0.ctl_hangups, 0);
}

/* Starting again: over a socket a crashed run left (removed, the new
 * one serves), never over a file that is not a socket (refused, the
 * file kept), and not at all with control.socket "none". */
static void test_restart(struct control_target *t)
{
	char err[512];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	close(fd); /* left behind, as by a crash */
	CHECK_EQ_INT(control_start(t, err, sizeof(err)), 0);
	CHECK_ASK("get access.burst", "ok\naccess.burst: 250\n");
	control_stop();
	CHECK(access(sock_path, F_OK) != 0);
	/* a regular file there */
	FILE *f = fopen(sock_path, "w");
	CHECK(f != NULL);
	if (f != NULL)
		fclose(f);
	CHECK_EQ_INT(control_start(t, err, sizeof(err)), -1);
	char want[300];
	snprintf(want, sizeof(want), "control socket %s: Address already in use", sock_path);
	CHECK(strcmp(err, want) == 0);
	CHECK(access(sock_path, F_OK) == 0);
	control_stop();
	CHECK(access(sock_path, F_OK) == 0); /* not ours: kept */
	unlink(sock_path);
	/* none */
	char keep[sizeof(conf.ops.control_socket)];
	memcpy(keep, conf.ops.control_socket, sizeof(keep));
	snprintf(conf.ops.control_socket, sizeof(conf.ops.control_socket), "none");
	char here[512], tmp[64];
	/* the pid in the name: see tools/mutation-test.py reap_dirs */
	snprintf(tmp, sizeof(tmp), "/tmp/spate-app-control-%d-XXXXXX", (int)getpid());
	CHECK(getcwd(here, sizeof(here)) != NULL && mkdtemp(tmp) != NULL && chdir(tmp) == 0);
	CHECK_EQ_INT(control_start(t, err, sizeof(err)), 0);
	CHECK(access("none", F_OK) != 0); /* no socket of that name */
	control_stop();
	CHECK(chdir(here) == 0 && rmdir(tmp) == 0);
	memcpy(conf.ops.control_socket, keep, sizeof(keep));
	/* the configured log level, put in force at start (0: left alone) */
	uint32_t was = conf.ops.log_level;
	int level = rte_log_get_level(spated_logtype);
	conf.ops.log_level = 0;
	control_apply_log_level(&conf);
	CHECK_EQ_INT(rte_log_get_level(spated_logtype), level);
	conf.ops.log_level = level == RTE_LOG_NOTICE ? RTE_LOG_ERR : RTE_LOG_NOTICE;
	control_apply_log_level(&conf);
	CHECK_EQ_INT(rte_log_get_level(spated_logtype), conf.ops.log_level);
	conf.ops.log_level = was;
}

/* A failed check exits at once under SPATE_CHECK_FAILFAST (mutation
 * runs): the socket and the overrides file go all the same. */
static void remove_files(void)
{
	unlink(sock_path);
	unlink(ov_path);
}

int main(void)
{
	char err[512];

	app_eal_start("app-control");
	atexit(remove_files);
	snprintf(sock_path, sizeof(sock_path), "/tmp/spate-app-control-%d.sock", (int)getpid());
	snprintf(ov_path, sizeof(ov_path), "/tmp/spate-app-control-%d.overrides", (int)getpid());
	spated_conf_default(&conf);
	snprintf(conf.ops.control_socket, sizeof(conf.ops.control_socket), "%s", sock_path);
	snprintf(conf.ops.overrides_path, sizeof(conf.ops.overrides_path), "%s", ov_path);
	conf.debug_hooks = true;
	conf.lcores.n_match = 2;
	conf.ipv4 = 0x0a090807;
	conf.prefix_len = 24;
	conf.gateway = 0x0a090801;
	conf.common.matcher.engine = "drt";
	matcher = spate_matcher_create(&conf.common.matcher);
	spated_access = access_create(&conf.ops);
	if (matcher == NULL || spated_access == NULL) {
		fprintf(stderr, "no matcher or access\n");
		return 2;
	}
	add_sub(1, 0, "a", 7);
	add_sub(2, 0, "a", 7);
	add_sub(3, 100, "b", 8);
	/* a port to list (show config): two rings */
	struct rte_ring *rr = rte_ring_create("app_ctl_r", 64, SOCKET_ID_ANY, 0);
	snprintf(port_name, sizeof(port_name), "rctl%d", (int)getpid());
	int port = rr ? rte_eth_from_rings(port_name, &rr, 1, &rr, 1, 0) : -1;
	uint16_t ports[1] = { (uint16_t)port };
	if (port != 0) {
		fprintf(stderr, "no port\n");
		return 2;
	}
	struct control_target t = { .conf = &conf,
				    .matcher = matcher,
				    .dp_lcore = rte_lcore_id(),
				    .n_ports = 1,
				    .ports = ports };
	if (control_start(&t, err, sizeof(err)) != 0) {
		fprintf(stderr, "control_start: %s\n", err);
		return 2;
	}
	test_parse();
	test_get_set();
	test_save();
	test_categories();
	test_debug();
	test_show();
	/* a setting by name, as telemetry reads it */
	char val[64];
	CHECK_EQ_INT(control_param_get("access.burst", val, sizeof(val)), 0);
	CHECK(strcmp(val, "250") == 0);
	CHECK_EQ_INT(control_param_get("nope", val, sizeof(val)), -1);
	test_slow_reader();
	test_partial_lines();
	test_many();
	test_dp_order();
	test_deadline();
	control_stop();
	CHECK(access(sock_path, F_OK) != 0); /* the socket is removed */
	test_restart(&t);
	rte_eth_dev_close(0);
	access_destroy(spated_access);
	spate_matcher_destroy(matcher);
	spated_conf_free(&conf);
	unlink(ov_path);
	return check_summary("app_control");
}
