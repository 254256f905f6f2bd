/* test_app_params.c - spated's parameter table (config/spated_params.h)
 * against what it drives, and the generator of docs/parameters.md:
 *
 *   test_app_params                      the checks below (meson: app_params)
 *   test_app_params --write FILE         write the document from the table
 *
 * - docs/parameters.md is exactly what the table prints: a row changed
 *   without regenerating the document fails here;
 * - every row's documented default is the value spated_conf_default()
 *   gives (the document cannot promise another default);
 * - every number row, through the real reader: its bounds are taken and
 *   read back, one past each is refused with "path = v is out of range
 *   [min, max]" at its line;
 * - in every group the table knows, and at the top level, an unknown key
 *   is refused at its line with the names the table gives;
 * - names are unique (config paths, spatectl names);
 * - drt.workers is the number of matching workers spated runs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_conf.h"
#include "check.h"
#include "config/config.h"
#include "config/spated_params.h"

static char conf_path[64];
static char err[2048];
static struct spated_conf conf;

static int loadf(const char *fmt, ...)
{
	char text[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return app_conf_load_text(&conf, conf_path, text, err, sizeof(err));
}

/* "a.b.c" as nested libconfig groups around `inner`: "a: { b: { c = 1; }; };". */
static void nest(char *buf, size_t len, const char *path, const char *inner)
{
	const char *dot = strchr(path, '.');

	if (dot == NULL) {
		snprintf(buf, len, "%s", inner);
		return;
	}
	char rest[1024];
	nest(rest, sizeof(rest), dot + 1, inner);
	snprintf(buf, len, "%.*s: {\n%s\n};", (int)(dot - path), path, rest);
}

static bool is_number(const struct spate_param *row)
{
	return row->type == SPATE_PARAM_U32 || row->type == SPATE_PARAM_U16 ||
	       row->type == SPATE_PARAM_INT || row->type == SPATE_PARAM_DOUBLE;
}

static void test_doc(void)
{
	char *text = NULL, path[512];
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	spate_param_print_md(&spated_param_table, mem);
	fclose(mem);
	snprintf(path, sizeof(path), "%s/docs/parameters.md", SPATE_SRC);
	FILE *f = fopen(path, "r");
	char *doc = calloc(1, len + 2);
	size_t got = f ? fread(doc, 1, len + 1, f) : 0;
	if (f)
		fclose(f);
	check_count++;
	if (got != len || memcmp(doc, text, len) != 0) {
		fprintf(stderr,
			"%s differs from the parameter table: regenerate it with\n"
			"  build/tests/app/test_app_params --write docs/parameters.md\n",
			path);
		check_failed();
	}
	free(doc);
	free(text);
}

static void test_defaults(void)
{
	struct spate_param_ref r;
	char buf[256], path[160];

	spated_conf_free(&conf);
	spated_conf_default(&conf);
	for (size_t i = 0; (r = spate_param_at(&spated_param_table, i)).row != NULL; i++) {
		CHECK(r.row->help != NULL && strlen(r.row->help) > 8);
		CHECK(r.row->def != NULL);
		if (r.row->type == SPATE_PARAM_CUSTOM)
			continue;
		CHECK_EQ_INT(spate_param_format(r, spate_param_obj(r, &conf), buf, sizeof(buf)), 0);
		spate_param_path(r, path, sizeof(path));
		check_count++;
		if (strcmp(buf, r.row->def) != 0) {
			fprintf(stderr, "%s: default %s in the table, %s in spated_conf_default\n",
				path, r.row->def, buf);
			check_failed();
		}
	}
}

static void test_names_unique(void)
{
	struct spate_param_ref a, b;
	char pa[160], pb[160];

	for (size_t i = 0; (a = spate_param_at(&spated_param_table, i)).row != NULL; i++)
		for (size_t k = i + 1; (b = spate_param_at(&spated_param_table, k)).row != NULL;
		     k++) {
			spate_param_path(a, pa, sizeof(pa));
			spate_param_path(b, pb, sizeof(pb));
			CHECK(strcmp(pa, pb) != 0);
			spate_param_ctl_name(a, pa, sizeof(pa));
			spate_param_ctl_name(b, pb, sizeof(pb));
			CHECK(!spate_param_in_ctl(a) || !spate_param_in_ctl(b) ||
			      strcmp(pa, pb) != 0);
		}
}

/* Every number row's bounds through the reader (the file's line of the
 * key is line 1 + the depth of its groups). */
static void test_ranges(void)
{
	struct spate_param_ref r;
	char path[160], text[1200], inner[200], want[400], buf[64];
	size_t n = 0;

	for (size_t i = 0; (r = spate_param_at(&spated_param_table, i)).row != NULL; i++) {
		if (!is_number(r.row))
			continue;
		spate_param_path(r, path, sizeof(path));
		int line = 1;
		for (const char *p = path; (p = strchr(p, '.')) != NULL; p++)
			line++;
		const char *key = strrchr(path, '.') + 1;
		double vals[4] = { r.row->min, r.row->max, r.row->min - 1, r.row->max + 1 };
		if (r.row->type == SPATE_PARAM_DOUBLE) {
			vals[2] = r.row->min - 0.5;
			vals[3] = r.row->max * 2 + 1;
		}
		for (int j = 0; j < 4; j++) {
			/* peer_drop_ppm is read only with debug_hooks */
			snprintf(inner, sizeof(inner), "%s%s = %.17g%s;",
				 strcmp(path, "spated.peer_drop_ppm") == 0 ? "debug_hooks = true; "
									   : "",
				 key, vals[j],
				 r.row->type == SPATE_PARAM_DOUBLE && vals[j] == (long long)vals[j]
					 ? ".0"
				 : vals[j] > 2147483647.0 || vals[j] < -2147483648.0 ? "L"
										     : "");
			nest(text, sizeof(text), path, inner);
			int rc = loadf("%s\n", text);
			if (j < 2) {
				if (rc != 0)
					fprintf(stderr, "%s\n", err);
				CHECK_EQ_INT(rc, 0);
				spate_param_format(r, spate_param_obj(r, &conf), buf, sizeof(buf));
				/* a derived value is spated's, not the file's */
				CHECK((r.row->flags & SPATE_PARAM_DERIVED) ||
				      strtod(buf, NULL) == vals[j]);
				continue;
			}
			CHECK_EQ_INT(rc, -1);
			if (r.row->type == SPATE_PARAM_DOUBLE)
				snprintf(want, sizeof(want),
					 "%s:%d: %s = %.17g is out of range [%g, %g]", conf_path,
					 line, path, vals[j], r.row->min, r.row->max);
			else
				snprintf(want, sizeof(want),
					 "%s:%d: %s = %.17g is out of range [%.17g, %.17g]",
					 conf_path, line, path, vals[j], r.row->min, r.row->max);
			check_count++;
			if (strcmp(err, want) != 0) {
				fprintf(stderr, "got  %s\nwant %s\n", err, want);
				check_failed();
			}
		}
		n++;
	}
	CHECK(n >= 50);
}

/* Every group of the table, and the top level: a key no row names is
 * refused, at its line, with the names the table lists. */
static void test_unknown_everywhere(void)
{
	struct spate_param_ref r;
	char path[160], group[160], text[1200], known[1024], want[1500];
	int groups = 0;

	for (size_t i = 0; (r = spate_param_at(&spated_param_table, i)).row != NULL; i++) {
		spate_param_path(r, path, sizeof(path));
		/* each group once: at its first row */
		char *dot = strrchr(path, '.');
		if (dot == NULL)
			continue;
		snprintf(group, sizeof(group), "%.*s", (int)(dot - path), path);
		bool seen = false;
		struct spate_param_ref q;
		for (size_t k = 0; k < i && !seen; k++) {
			char qp[160];
			q = spate_param_at(&spated_param_table, k);
			spate_param_path(q, qp, sizeof(qp));
			seen = strncmp(qp, group, strlen(group)) == 0 && qp[strlen(group)] == '.';
		}
		if (seen || strcmp(group, "cluster") == 0)
			continue;
		char inner[300];
		snprintf(inner, sizeof(inner), "%s = 1;\nno_such_key = 1;",
			 strcmp(r.row->key, "port.device") == 0 ? "device"
								: strrchr(path, '.') + 1);
		/* a first key of the group that reads clean with 1, or none */
		if (!is_number(r.row) || r.row->min > 1 || r.row->max < 1)
			snprintf(inner, sizeof(inner), "\nno_such_key = 1;");
		nest(text, sizeof(text), path, inner);
		int line = 2;
		for (const char *p = path; (p = strchr(p, '.')) != NULL; p++)
			line++;
		CHECK_EQ_INT(loadf("%s\n", text), -1);
		spate_param_known(&spated_param_table, group, known, sizeof(known));
		snprintf(want, sizeof(want), "%s:%d: %s: unknown setting 'no_such_key' (known: %s)",
			 conf_path, line, group, known);
		check_count++;
		if (strcmp(err, want) != 0) {
			fprintf(stderr, "got  %s\nwant %s\n", err, want);
			check_failed();
		}
		groups++;
	}
	CHECK(groups >= 11); /* spate.drt, spate.limits, ..., metrics */
	CHECK_EQ_INT(loadf("spated: { };\n\nno_such_group: { x = 1; };\n"), -1);
	spate_param_known(&spated_param_table, "", known, sizeof(known));
	CHECK(strcmp(known, "spate, spated, cluster, journal, control, access, metrics") == 0);
	snprintf(want, sizeof(want), "%s:3: unknown group 'no_such_group' (known: %s)", conf_path,
		 known);
	CHECK(strcmp(err, want) == 0);
	/* the cluster group: its own key and the rows marked for it, the
	 * four ZooKeeper keys and the heartbeats among them */
	CHECK_EQ_INT(loadf("spated: { host_id = 1; };\ncluster: {\n nope = 1;\n};\n"), -1);
	spate_param_known(&spated_param_table, "cluster", known, sizeof(known));
	CHECK(strcmp(known, "peer_rto_ms, peer_hb_ms, peer_dead_ms, peer_drop_ppm, "
			    "peer_key_file, peer_auth, zookeeper, zk_root, zk_session_ms, "
			    "zk_wait_ms, hosts") == 0);
	snprintf(want, sizeof(want), "%s:3: cluster: unknown setting 'nope' (known: %s)", conf_path,
		 known);
	CHECK(strcmp(err, want) == 0);
	/* the entries of a list: their keys from the entry rows */
	CHECK_EQ_INT(loadf("spated: { peers = ( {\n host = 2; colour = 1; } ); };\n"), -1);
	snprintf(want, sizeof(want),
		 "%s:2: spated.peers: unknown setting 'colour' (known: host, ipv4, lcores)",
		 conf_path);
	CHECK(strcmp(err, want) == 0);
	CHECK_EQ_INT(loadf("spated: { host_id = 1; };\ncluster: { hosts = (\n { host = 1; x = 2; "
			   "}, { host = 2; } ); };\n"),
		     -1);
	snprintf(want, sizeof(want),
		 "%s:3: cluster.hosts: unknown setting 'x' (known: host, role, ipv4, lcores, "
		 "service)",
		 conf_path);
	CHECK(strcmp(err, want) == 0);
	CHECK_EQ_INT(loadf("spated: { peers = ( {\n host = 0; } ); };\n"), -1);
	snprintf(want, sizeof(want), "%s:2: spated.peers.host = 0 is out of range [1, 4294967295]",
		 conf_path);
	CHECK(strcmp(err, want) == 0);
	/* spated's own list has every multi-host key */
	spate_param_known(&spated_param_table, "spated", known, sizeof(known));
	CHECK(strstr(known, "peer_hb_ms, peer_dead_ms") != NULL);
	CHECK(strstr(known, "zookeeper, zk_root, zk_session_ms, zk_wait_ms") != NULL);
}

static void test_workers(void)
{
	char buf[32];
	struct spate_param_ref r = spate_param_find_ctl(&spated_param_table, "drt.workers");

	CHECK(r.row != NULL && r.row->reach == SPATE_PARAM_RESTART);
	/* the file's value is not what runs: the matching lcores are */
	CHECK_EQ_INT(loadf("spate: { drt: { workers = 1; }; };\n"
			   "spated: { lcores: { match = [ 0, 1 ]; }; };\n"),
		     0);
	CHECK_EQ_INT(spate_param_format(r, spate_param_obj(r, &conf), buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "2") == 0);
	CHECK_EQ_INT(loadf("spated: { lcores: { match = [ 0, 1, 2 ]; }; };\n"), 0);
	CHECK_EQ_INT(conf.common.matcher.params.drt.workers, 3);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write") == 0) {
		FILE *f = fopen(argv[2], "w");
		if (f == NULL) {
			perror(argv[2]);
			return 2;
		}
		spate_param_print_md(&spated_param_table, f);
		return fclose(f) == 0 ? 0 : 2;
	}
	snprintf(conf_path, sizeof(conf_path), "/tmp/spate-test-app-params-%d.conf", (int)getpid());
	spated_conf_default(&conf);
	test_doc();
	test_defaults();
	test_names_unique();
	test_ranges();
	test_unknown_everywhere();
	test_workers();
	spated_conf_free(&conf);
	unlink(conf_path);
	return check_summary("app_params");
}
