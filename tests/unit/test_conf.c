/* test_conf.c - the "spate" section of the configuration (spate_conf.c)
 * and the DRt parameter table (drt_params.c), at their boundaries:
 * every integer key at min, min - 1, max and max + 1, from a file and at
 * run time (spatectl's path); every error message exact, with the line
 * of the setting it names; unknown keys listed with the known ones; the
 * attribute schema; @include beside the file; and every DRt parameter at
 * and past both ends of its range. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "engines/drt/drt_params.h"
#include "engines/ivx/ivx_index.h"
#include "conf/spate_conf.h"
#include "matcher/spate_engine.h"
#include "matcher/spate_schema.h"

#define CHECK_STR(a, b)                                                                        \
	do {                                                                                   \
		check_count++;                                                                 \
		if (strcmp((a), (b)) != 0) {                                                   \
			fprintf(stderr, "%s:%d: got '%s'\n%*swant '%s'\n", __FILE__, __LINE__, \
				(a), (int)strlen(__FILE__) + 8, "", (b));                      \
			check_failed();                                                        \
		}                                                                              \
	} while (0)

static char err[512];

/* Read `text` as a whole file into c (defaults first); the return of
 * spate_conf_read, -2 when libconfig itself refuses the text. */
static int read_text(struct spate_conf *c, const char *text)
{
	config_t cfg;
	int rc;

	spate_conf_default(c);
	err[0] = '\0';
	config_init(&cfg);
	if (config_read_string(&cfg, text) != CONFIG_TRUE) {
		config_destroy(&cfg);
		return -2;
	}
	check_dirty_stack(); /* libconfig's parse may have left zeros there */
	rc = spate_conf_read(c, &cfg, "t.conf", err, sizeof(err));
	config_destroy(&cfg);
	return rc;
}

static uint32_t int_value(const struct spate_conf *c, const char *path)
{
	char buf[32];
	CHECK_EQ_INT(spate_conf_int_get(c, path, buf, sizeof(buf)), 0);
	return (uint32_t)strtoul(buf, NULL, 10);
}

struct int_key {
	const char *path;
	long long min, max;
};

/* The table the code must hold, written out here from the documented
 * limits (conf/demo.conf, spate_types.h): a bound changed there turns
 * this red. */
static const struct int_key keys[] = {
	{ "limits.max_keywords", 1, 64 },
	{ "limits.max_keyword_len", 1, 255 },
	{ "limits.max_constraints", 1, 32 },
	{ "limits.max_attrs", 1, 32 },
	{ "limits.max_name_len", 1, 255 },
	{ "limits.max_messages", 1, 1024 },
	{ "quotas.max_subs", 0, 4294967295LL },
	{ "quotas.max_subs_per_client", 0, 4294967295LL },
	{ "ivx.groups", 0, 256 },
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* The value lands where it belongs: in the struct field the engine and
 * the codec read, not only in the text spate_conf_int_get gives back. */
static uint32_t field_of(const struct spate_conf *c, size_t i)
{
	const uint32_t f[] = { c->limits.max_keywords,      c->limits.max_keyword_len,
			       c->limits.max_constraints,   c->limits.max_attrs,
			       c->limits.max_name_len,      c->limits.max_messages,
			       c->matcher.max_subs,         c->matcher.max_subs_per_client,
			       c->matcher.params.ivx_groups };
	return f[i];
}

static void test_int_table(void)
{
	struct spate_conf c;
	char text[256], want[256];

	CHECK_EQ_INT(spate_conf_int_count(), N_KEYS);
	CHECK(spate_conf_int_name(N_KEYS) == NULL);
	CHECK(spate_conf_int_name((size_t)-1) == NULL);
	for (size_t i = 0; i < N_KEYS; i++) {
		const struct int_key *k = &keys[i];
		const char *dot = strchr(k->path, '.');
		CHECK_STR(spate_conf_int_name(i), k->path);

		/* from a file: min and max accepted and stored, one past refused */
		for (int end = 0; end < 4; end++) {
			long long v = end == 0   ? k->min
				      : end == 1 ? k->max
				      : end == 2 ? k->min - 1
						 : k->max + 1;
			snprintf(text, sizeof(text),
				 "spate: {\n  %.*s: {\n    %s = %lldL;\n  };\n};\n",
				 (int)(dot - k->path), k->path, dot + 1, v);
			int rc = read_text(&c, text);
			if (end < 2) {
				CHECK_EQ_INT(rc, 0);
				CHECK_EQ_INT(field_of(&c, i), (uint32_t)v);
				CHECK_EQ_INT(int_value(&c, k->path), (uint32_t)v);
			} else {
				CHECK_EQ_INT(rc, -1);
				snprintf(want, sizeof(want),
					 "t.conf:3: spate.%s = %lld is out of range [%lld, %lld]",
					 k->path, v, k->min, k->max);
				CHECK_STR(err, want);
			}
		}
		/* at run time: the same bounds, the same field */
		spate_conf_default(&c);
		for (int end = 0; end < 4; end++) {
			long long v = end == 0   ? k->min
				      : end == 1 ? k->max
				      : end == 2 ? k->min - 1
						 : k->max + 1;
			char value[32];
			snprintf(value, sizeof(value), "%lld", v);
			int rc = spate_conf_int_set(&c, k->path, value, err, sizeof(err));
			if (end < 2) {
				CHECK_EQ_INT(rc, 0);
				CHECK_EQ_INT(field_of(&c, i), (uint32_t)v);
			} else {
				CHECK_EQ_INT(rc, -1);
				snprintf(want, sizeof(want),
					 "%s = %lld is out of range [%lld, %lld]", k->path, v,
					 k->min, k->max);
				CHECK_STR(err, want);
				CHECK_EQ_INT(field_of(&c, i), (uint32_t)k->max); /* unchanged */
			}
		}
		/* a float or a string where an integer belongs */
		snprintf(text, sizeof(text), "spate: { %.*s: { %s = 1.0; }; };",
			 (int)(dot - k->path), k->path, dot + 1);
		CHECK_EQ_INT(read_text(&c, text), -1);
		snprintf(want, sizeof(want), "t.conf:1: spate.%s must be an integer", k->path);
		CHECK_STR(err, want);
	}
	/* run time: not an integer, trailing garbage, unknown names */
	spate_conf_default(&c);
	const char *bad[] = { "", "12x", "x", " 3 ", "1.5", "0x10" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_INT(
			spate_conf_int_set(&c, "limits.max_keywords", bad[i], err, sizeof(err)),
			-1);
		snprintf(want, sizeof(want), "limits.max_keywords: '%s' is not an integer", bad[i]);
		CHECK_STR(err, want);
	}
	CHECK_EQ_INT(c.limits.max_keywords, 16);
	CHECK_EQ_INT(spate_conf_int_set(&c, "limits.max_keyword", "3", err, sizeof(err)), -1);
	CHECK_STR(err, "unknown setting 'limits.max_keyword'");
	CHECK_EQ_INT(spate_conf_int_set(&c, "max_keywords", "3", err, sizeof(err)), -1);
	char buf[8] = "x";
	CHECK_EQ_INT(spate_conf_int_get(&c, "limits", buf, sizeof(buf)), -1);
	CHECK_STR(buf, "x");
	CHECK_EQ_INT(spate_conf_int_set(&c, "limits.max_messages", "+7", err, sizeof(err)), 0);
	CHECK_EQ_INT(c.limits.max_messages, 7);
}

static void test_defaults(void)
{
	struct spate_conf c;
	struct spate_limits lim;

	memset(&c, 0x5a, sizeof(c));
	spate_conf_default(&c);
	spate_limits_default(&lim);
	CHECK(memcmp(&c.limits, &lim, sizeof(lim)) == 0);
	CHECK_STR(c.engine, spate_engine_find(NULL)->name);
	CHECK(c.matcher.engine == c.engine);
	CHECK_EQ_INT(c.matcher.max_subs, 0);
	CHECK_EQ_INT(c.matcher.max_subs_per_client, 0);
	/* no "spate" group: defaults kept, engine pointer set */
	CHECK_EQ_INT(read_text(&c, "other: { x = 1; };"), 0);
	CHECK(c.matcher.engine == c.engine);
	CHECK(memcmp(&c.limits, &lim, sizeof(lim)) == 0);
	CHECK_EQ_INT(read_text(&c, "spate = 3;"), -1);
	CHECK_STR(err, "t.conf:1: 'spate' must be a group { ... }");
	CHECK_EQ_INT(read_text(&c, "spate: { };"), 0);
}

static void test_keys(void)
{
	struct spate_conf c;

	CHECK_EQ_INT(
		read_text(&c, "spate: {\n engine = \"grid\";\n limits: { max_keywords = 5; };\n};"),
		0);
	CHECK_STR(c.engine, "grid");
	CHECK_STR(c.matcher.engine, "grid");
	CHECK_EQ_INT(c.limits.max_keywords, 5);
	/* every engine the registry lists is accepted by name */
	for (const struct spate_engine_ops *const *e = spate_engine_list(); *e; e++) {
		char text[128];
		snprintf(text, sizeof(text), "spate: { engine = \"%s\"; };", (*e)->name);
		CHECK_EQ_INT(read_text(&c, text), 0);
		CHECK_STR(c.engine, (*e)->name);
	}
	CHECK_EQ_INT(read_text(&c, "spate: {\n\n engine = \"nope\"; };"), -1);
	char want[400] = "t.conf:3: spate.engine: unknown engine 'nope' (known: ";
	for (const struct spate_engine_ops *const *e = spate_engine_list(); *e; e++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
			 e == spate_engine_list() ? "" : ", ", (*e)->name);
	strcat(want, ")");
	CHECK_STR(err, want);
	CHECK_EQ_INT(read_text(&c, "spate: { engine = 3; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.engine must be a string");
	/* unknown keys: named, with the known ones listed */
	CHECK_EQ_INT(read_text(&c, "spate: {\n enigne = \"drt\"; };"), -1);
	CHECK_STR(err, "t.conf:2: spate: unknown setting 'enigne' (known: drt, engine, attributes, "
		       "attribute_default, limits, quotas, ivx)");
	CHECK_EQ_INT(read_text(&c, "spate: { limits: { max_keywords = 4; max_kw = 1; }; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.limits: unknown setting 'max_kw' (known: max_keywords, "
		       "max_keyword_len, max_constraints, max_attrs, max_name_len, max_messages)");
	CHECK_EQ_INT(read_text(&c, "spate: { quotas: { max_sub = 1; }; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.quotas: unknown setting 'max_sub' (known: max_subs, "
		       "max_subs_per_client)");
	CHECK_EQ_INT(read_text(&c, "spate: { ivx: { group = 1; }; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.ivx: unknown setting 'group' (known: groups)");
	/* a key of one group is not known in another */
	CHECK_EQ_INT(read_text(&c, "spate: { quotas: { max_keywords = 1; }; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.quotas: unknown setting 'max_keywords' (known: max_subs, "
		       "max_subs_per_client)");
	/* a group's name as a prefix only ("limit", "limitsx") is unknown */
	CHECK_EQ_INT(read_text(&c, "spate: { limit: { max_keywords = 1; }; };"), -1);
	CHECK(strstr(err, "unknown setting 'limit'") != NULL);
	CHECK_EQ_INT(read_text(&c, "spate: { limitsx: { max_keywords = 1; }; };"), -1);
	CHECK(strstr(err, "unknown setting 'limitsx'") != NULL);
	CHECK_EQ_INT(read_text(&c, "spate: { limits = 3; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.limits must be a group { ... }");
	/* the first error stops the read; the values before it are set */
	CHECK_EQ_INT(read_text(&c, "spate: { limits: { max_keywords = 3; max_attrs = 0; "
				   "max_constraints = 2; }; };"),
		     -1);
	CHECK_EQ_INT(c.limits.max_keywords, 3);
	CHECK_EQ_INT(c.limits.max_constraints, 16);
	CHECK_STR(err, "t.conf:1: spate.limits.max_attrs = 0 is out of range [1, 32]");
	/* the setting it names, for --check-config's next round */
	config_t cfg;
	config_init(&cfg);
	CHECK_EQ_INT(config_read_string(
			     &cfg, "spate: { limits: { max_keywords = 3;\n max_attrs = 0; }; };"),
		     CONFIG_TRUE);
	CHECK_EQ_INT(spate_conf_read(&c, &cfg, "u.conf", err, sizeof(err)), -1);
	CHECK(spate_conf_last_error_setting() == config_lookup(&cfg, "spate.limits.max_attrs"));
	CHECK_STR(err, "u.conf:2: spate.limits.max_attrs = 0 is out of range [1, 32]");
	config_destroy(&cfg);
	/* 64-bit values do not wrap into range */
	CHECK_EQ_INT(read_text(&c, "spate: { limits: { max_keywords = 4294967297L; }; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.limits.max_keywords = 4294967297 is out of range [1, 64]");
	CHECK_EQ_INT(read_text(&c, "spate: { quotas: { max_subs = 4294967296L; }; };"), -1);
	CHECK_EQ_INT(spate_conf_int_set(&c, "quotas.max_subs", "4294967296", err, sizeof(err)), -1);
	CHECK_EQ_INT(spate_conf_int_set(&c, "quotas.max_subs", "-1", err, sizeof(err)), -1);
	CHECK_STR(err, "quotas.max_subs = -1 is out of range [0, 4294967295]");
}

static void test_drt_group(void)
{
	struct spate_conf c;

	CHECK_EQ_INT(read_text(&c, "spate: { drt: { alpha = 0.75; cmax = 9; variant = \"fre\"; "
				   "lambda = 100L; }; };"),
		     0);
	CHECK(c.matcher.params.drt.alpha == 0.75);
	CHECK_EQ_INT(c.matcher.params.drt.cmax, 9);
	CHECK_EQ_INT(c.matcher.params.drt.variant, DRT_SIM_FRE);
	CHECK_EQ_INT(c.matcher.params.drt.lambda, 100);
	CHECK_EQ_INT(read_text(&c, "spate: { drt: { sigma = \"0.5\"; }; };"), 0);
	CHECK(c.matcher.params.drt.sigma == 0.5);
	/* a float that prints with all its digits */
	CHECK_EQ_INT(read_text(&c, "spate: { drt: { alpha = 0.1; }; };"), 0);
	CHECK(c.matcher.params.drt.alpha == 0.1);
	CHECK_EQ_INT(read_text(&c, "spate: {\n drt: {\n  alpha = 1.5; }; };"), -1);
	CHECK_STR(err, "t.conf:3: spate.drt.alpha = 1.5 is out of range [0, 1]");
	CHECK_EQ_INT(read_text(&c, "spate: { drt: { cmax = 0; }; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.drt.cmax = 0 is out of range [1, 1000000]");
	CHECK_EQ_INT(read_text(&c, "spate: { drt: { alhpa = 0.5; }; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.drt: unknown setting 'alhpa' (known: alpha, new_th, cmax, "
		       "merge_th, merge_each, merge_finite, lambda, sigma, route_cell, cat_cell, "
		       "workers, variant, c_ins, c_del, cat_cap, place_slack, rare_kw)");
	CHECK_EQ_INT(read_text(&c, "spate: {\n drt: {\n\n  alpha = true; }; };"), -1);
	CHECK_STR(err, "t.conf:4: spate.drt.alpha must be a number");
	CHECK_EQ_INT(read_text(&c, "spate: { drt = 1; };"), -1);
	CHECK_STR(err, "t.conf:1: spate.drt must be a group { ... }");
}

static void test_schema(void)
{
	struct spate_conf c;
	const struct spate_schema *s = &c.matcher.params.schema;

	CHECK_EQ_INT(
		read_text(&c,
			  "spate: {\n attributes = (\n { name = \"price\"; min = 0; "
			  "max = 10.5; cells = 7; },\n { name = \"r\"; min = -1.0; max = 1L; } );\n"
			  " attribute_default = { min = 2.0; max = 3; cells = 65536; };\n};"),
		0);
	CHECK_EQ_INT(s->n, 2);
	CHECK_STR(s->name[0], "price");
	CHECK(s->attr[0].min == 0 && s->attr[0].max == 10.5);
	CHECK_EQ_INT(s->attr[0].cells, 7);
	CHECK_STR(s->name[1], "r");
	CHECK(s->attr[1].min == -1 && s->attr[1].max == 1);
	/* cells defaults to the default domain's, read first whatever the order */
	CHECK_EQ_INT(s->attr[1].cells, 65536);
	CHECK(s->dflt.min == 2 && s->dflt.max == 3);
	CHECK_EQ_INT(s->dflt.cells, 65536);
	/* no attribute_default: the built-in default's cells */
	CHECK_EQ_INT(
		read_text(&c, "spate: { attributes = ( { name = \"a\"; min = 0; max = 1; } ); };"),
		0);
	CHECK_EQ_INT(s->attr[0].cells, SPATE_DOMAIN_DEFAULT_CELLS);
	CHECK_EQ_INT(s->dflt.cells, SPATE_DOMAIN_DEFAULT_CELLS);

	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "spate: { attributes = 3; };",
		  "t.conf:1: spate.attributes must be a list ( { ... }, ... )" },
		{ "spate: { attributes = ( 3 ); };",
		  "t.conf:1: spate.attributes[0] must be a group { ... }" },
		{ "spate: { attributes = ( { name = \"a\"; min = 0; max = 1; },\n { min = 0; max = "
		  "1; } ); };",
		  "t.conf:2: spate.attributes[1]: name is missing" },
		{ "spate: { attributes = ( { name = 1; min = 0; max = 1; } ); };",
		  "t.conf:1: spate.attributes[0].name must be a string of at most 255 bytes" },
		{ "spate: { attributes = ( { name = \"a\"; max = 1; } ); };",
		  "t.conf:1: spate.attributes[0]: min and max are required" },
		{ "spate: { attributes = ( { name = \"a\"; min = 1; } ); };",
		  "t.conf:1: spate.attributes[0]: min and max are required" },
		{ "spate: { attributes = ( { name = \"a\"; min = \"0\"; max = 1; } ); };",
		  "t.conf:1: spate.attributes[0].min must be a number" },
		{ "spate: { attributes = ( { name = \"a\"; min = 0; max = true; } ); };",
		  "t.conf:1: spate.attributes[0].max must be a number" },
		{ "spate: { attributes = ( { name = \"a\"; min = 0; max = 1; cells = 2.0; } ); };",
		  "t.conf:1: spate.attributes[0].cells must be an integer" },
		{ "spate: { attributes = ( { name = \"a\"; min = 0; max = 1; cell = 2; } ); };",
		  "t.conf:1: spate.attributes[0]: unknown setting 'cell' (known: name, min, max, "
		  "cells)" },
		{ "spate: { attributes = ( { name = \"a\"; min = 0; max = 1; cells = 0; } ); };",
		  "t.conf:1: spate.attributes[0].cells = 0 is out of range [1, 65536]" },
		{ "spate: { attributes = ( { name = \"a\"; min = 0; max = 1; cells = 65537; } ); "
		  "};",
		  "t.conf:1: spate.attributes[0].cells = 65537 is out of range [1, 65536]" },
		{ "spate: { attributes = ( { name = \"a\"; min = 1; max = 1; } ); };",
		  "t.conf:1: spate.attributes[0]: min = 1, max = 1: want finite numbers with min < "
		  "max" },
		{ "spate: { attributes = ( { name = \"a\"; min = 0; max = 1; },\n"
		  " { name = \"a\"; min = 0; max = 1; } ); };",
		  "t.conf:2: spate.attributes[1]: attribute 'a' is declared twice" },
		{ "spate: { attribute_default = 1; };",
		  "t.conf:1: spate.attribute_default must be a group { ... }" },
		{ "spate: { attribute_default = { name = \"x\"; min = 0; max = 1; }; };",
		  "t.conf:1: spate.attribute_default: unknown setting 'name' (known: min, max, "
		  "cells)" },
		{ "spate: { attribute_default = { min = 0; max = 1; cells = 65537; }; };",
		  "t.conf:1: spate.attribute_default.cells = 65537 is out of range [1, 65536]" },
		{ "spate: { attribute_default = { min = 2; max = 1; }; };",
		  "t.conf:1: spate.attribute_default: min = 2, max = 1: want finite numbers with "
		  "min < max" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_INT(read_text(&c, bad[i].text), -1);
		CHECK_STR(err, bad[i].err);
	}
	/* cells at its bounds in the default domain too */
	CHECK_EQ_INT(
		read_text(&c, "spate: { attribute_default = { min = 0; max = 1; cells = 1; }; };"),
		0);
	CHECK_EQ_INT(s->dflt.cells, 1);
}

static void test_files(void)
{
	struct spate_conf c;
	char dir[] = "/tmp/test_conf.XXXXXX", path[256], inc[256];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/main.conf", dir);
	snprintf(inc, sizeof(inc), "%s/limits.inc", dir);
	FILE *f = fopen(inc, "w");
	fputs("limits: {\n  max_keywords = 7;\n  max_attrs = 99;\n};\n", f);
	fclose(f);
	f = fopen(path, "w");
	fputs("spate: {\n  engine = \"brute\";\n  @include \"limits.inc\"\n};\n", f);
	fclose(f);
	/* the include is found beside the file, whatever the working directory;
	 * the error names the included file (as the @include spells it) and its line */
	spate_conf_default(&c);
	CHECK_EQ_INT(spate_conf_load(&c, path, err, sizeof(err)), -1);
	char want[512];
	CHECK_STR(err, "limits.inc:3: spate.limits.max_attrs = 99 is out of range [1, 32]");
	CHECK_EQ_INT(c.limits.max_keywords, 7);
	f = fopen(inc, "w");
	fputs("limits: { max_keywords = 7; };\n", f);
	fclose(f);
	spate_conf_default(&c);
	CHECK_EQ_INT(spate_conf_load(&c, path, err, sizeof(err)), 0);
	CHECK_EQ_INT(c.limits.max_keywords, 7);
	CHECK_STR(c.engine, "brute");
	/* a syntax error: the file, the line, libconfig's text */
	f = fopen(path, "w");
	fputs("spate: {\n\n  engine = ;\n};\n", f);
	fclose(f);
	CHECK_EQ_INT(spate_conf_load(&c, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:3: syntax error", path);
	CHECK_STR(err, want);
	/* a file that is not there */
	unlink(path);
	CHECK_EQ_INT(spate_conf_load(&c, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: cannot read file", path);
	CHECK_STR(err, want);
	unlink(inc);
	rmdir(dir);
	/* spate_conf_error without a setting: line 0; the message is cut at errlen */
	char small[12];
	CHECK_EQ_INT(spate_conf_error(small, sizeof(small), "f.conf", NULL, "x %d", 5), -1);
	CHECK_STR(small, "f.conf:0: x");
	CHECK(spate_conf_last_error_setting() == NULL);
}

/* The DRt table: every parameter at both ends of its range and past
 * them, printed back exactly; integers refuse fractions. */
struct drt_key {
	const char *name;
	double min, max;
	int integer;
	const char *def;
};
static const struct drt_key drt_keys[] = {
	{ "alpha", 0, 1, 0, "0.2" },
	{ "new_th", 0, 1, 0, "0.5" },
	{ "cmax", 1, 1000000, 1, "256" },
	{ "merge_th", 0, 1e9, 0, "1" },
	{ "merge_each", 0, 1, 1, "0" },
	{ "merge_finite", 0, 1, 1, "0" },
	{ "lambda", 1, 1000000000, 1, "50000" },
	{ "sigma", 0, 10, 0, "0.2" },
	{ "route_cell", 0.01, 90, 0, "0.5" },
	{ "cat_cell", 0.01, 90, 0, "0.5" },
	{ "workers", 1, 1024, 1, "1" },
	{ "variant", 0, 0, 0, "freco" },
	{ "c_ins", 0, 1e9, 0, "0" },
	{ "c_del", 0, 1e9, 0, "0" },
	{ "cat_cap", 0, 1, 0, "0.1" },
	{ "place_slack", 0, 1e6, 0, "0.1" },
	{ "rare_kw", 0, 1000000, 1, "8" },
};
#define N_DRT (sizeof(drt_keys) / sizeof(drt_keys[0]))

static void test_drt_params(void)
{
	struct drt_params p;
	char buf[64], text[64], want[160];

	CHECK_EQ_INT(drt_params_count(), N_DRT);
	CHECK(drt_params_name(N_DRT) == NULL);
	CHECK(drt_params_help(N_DRT) == NULL);
	memset(&p, 0x77, sizeof(p));
	drt_params_default(&p);
	for (size_t i = 0; i < N_DRT; i++) {
		const struct drt_key *k = &drt_keys[i];
		CHECK_STR(drt_params_name(i), k->name);
		CHECK(drt_params_help(i) != NULL && strlen(drt_params_help(i)) > 10);
		CHECK_EQ_INT(drt_params_get(&p, k->name, buf, sizeof(buf)), 0);
		CHECK_STR(buf, k->def);
	}
	CHECK_EQ_INT(p.cmax, 256);
	CHECK_EQ_INT(p.variant, DRT_SIM_FRE_CO);
	CHECK_EQ_INT(p.merge_each, 0);
	for (size_t i = 0; i < N_DRT; i++) {
		const struct drt_key *k = &drt_keys[i];
		if (strcmp(k->name, "variant") == 0)
			continue;
		/* a step past each end: one for integers, a relative hair for doubles */
		/* (below 0 by a normal number: strtod calls a subnormal ERANGE) */
		double lo_out = k->integer    ? k->min - 1
				: k->min == 0 ? -1e-300
					      : nextafter(k->min, -INFINITY);
		double hi_out = k->integer ? k->max + 1 : nextafter(k->max, INFINITY);
		const double vals[4] = { k->min, k->max, lo_out, hi_out };
		for (int j = 0; j < 4; j++) {
			snprintf(text, sizeof(text), "%.17g", vals[j]);
			drt_params_default(&p);
			int rc = drt_params_set(&p, k->name, text, err, sizeof(err));
			if (j < 2) {
				CHECK_EQ_INT(rc, 0);
				CHECK_EQ_INT(drt_params_get(&p, k->name, buf, sizeof(buf)), 0);
				CHECK(strtod(buf, NULL) == vals[j]);
			} else {
				CHECK_EQ_INT(rc, -1);
				/* integer bounds in full, not 1e+06 */
				snprintf(want, sizeof(want),
					 k->integer ? "%s = %s is out of range [%.17g, %.17g]"
						    : "%s = %s is out of range [%g, %g]",
					 k->name, text, k->min, k->max);
				CHECK_STR(err, want);
				CHECK_EQ_INT(drt_params_get(&p, k->name, buf, sizeof(buf)), 0);
				CHECK_STR(buf, k->def);
			}
		}
		drt_params_default(&p);
		if (k->integer) {
			CHECK_EQ_INT(drt_params_set(&p, k->name, "1.5", err, sizeof(err)), -1);
			snprintf(want, sizeof(want), "%s: '1.5' is not an integer", k->name);
			CHECK_STR(err, want);
		}
		const char *nan_like[] = { "", "1x", "nan", "inf", "-inf", "1e999", "x" };
		for (size_t j = 0; j < sizeof(nan_like) / sizeof(nan_like[0]); j++) {
			CHECK_EQ_INT(drt_params_set(&p, k->name, nan_like[j], err, sizeof(err)),
				     -1);
			snprintf(want, sizeof(want), "%s: '%s' is not %s", k->name, nan_like[j],
				 k->integer ? "an integer" : "a number");
			CHECK_STR(err, want);
		}
		CHECK_EQ_INT(drt_params_get(&p, k->name, buf, sizeof(buf)), 0);
		CHECK_STR(buf, k->def);
	}
	/* each field is its own: setting one leaves the others at default */
	drt_params_default(&p);
	CHECK_EQ_INT(drt_params_set(&p, "lambda", "7", err, sizeof(err)), 0);
	CHECK_EQ_INT(drt_params_set(&p, "workers", "3", err, sizeof(err)), 0);
	CHECK_EQ_INT(drt_params_set(&p, "c_del", "2.5", err, sizeof(err)), 0);
	CHECK_EQ_INT(p.lambda, 7);
	CHECK_EQ_INT(p.workers, 3);
	CHECK(p.c_del == 2.5 && p.c_ins == 0 && p.sigma == 0.2 && p.cmax == 256);
	/* the variant by name */
	const char *vn[] = { "nonfre", "fre", "freco" };
	for (uint32_t v = 0; v < 3; v++) {
		CHECK_EQ_INT(drt_params_set(&p, "variant", vn[v], err, sizeof(err)), 0);
		CHECK_EQ_INT(p.variant, v);
		CHECK_EQ_INT(drt_params_get(&p, "variant", buf, sizeof(buf)), 0);
		CHECK_STR(buf, vn[v]);
	}
	/* a variant out of the table (memory damage, a newer peer's value)
	 * prints as "?", never past the table */
	p.variant = 4;
	CHECK_EQ_INT(drt_params_get(&p, "variant", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "?");
	p.variant = 2;
	CHECK_EQ_INT(drt_params_set(&p, "variant", "2", err, sizeof(err)), -1);
	CHECK_STR(err, "variant: '2' is not one of nonfre, fre, freco");
	CHECK_EQ_INT(drt_params_set(&p, "variant", "frec", err, sizeof(err)), -1);
	CHECK_EQ_INT(p.variant, 2);
	CHECK_EQ_INT(drt_params_set(&p, "nope", "1", err, sizeof(err)), -1);
	CHECK_STR(err, "unknown drt parameter 'nope'");
	strcpy(buf, "x");
	CHECK_EQ_INT(drt_params_get(&p, "nope", buf, sizeof(buf)), -1);
	CHECK_STR(buf, "x");
}

/* The schema's own checks (what read_schema relies on): name lengths at
 * 0, 1, 63 and 64 bytes, its characters, the count of declared
 * attributes at 64 and 65; the engine parameters' defaults. */
static void test_schema_direct(void)
{
	struct spate_schema sc;
	char name[80], why[160], want[200];

	spate_schema_default(&sc);
	CHECK_EQ_INT(spate_schema_check_domain(0, 1, 0, why, sizeof(why)), -1);
	CHECK_EQ_INT(spate_schema_check_domain(NAN, 1, 1, why, sizeof(why)), -1);
	CHECK_EQ_INT(spate_schema_check_domain(-1e308, 1e308, 1, why, sizeof(why)),
		     -1); /* max - min overflows */
	CHECK_EQ_INT(spate_schema_check_domain(0, 1, 65536, why, sizeof(why)), 0);
	for (size_t len = 0; len <= 64; len++) {
		memset(name, 'n', len);
		name[len] = '\0';
		if (len)
			name[0] = 'a' + (char)(len % 26);
		int rc = spate_schema_add(&sc, name, 0, 1, 1, why, sizeof(why));
		if (len >= 1 && len <= 63) {
			CHECK_EQ_INT(rc, 0);
		} else {
			CHECK_EQ_INT(rc, -1);
			snprintf(want, sizeof(want),
				 "name '%s': want 1..63 bytes of [A-Za-z0-9_.:-]", name);
			CHECK_STR(why, want);
		}
		if (len == 2)
			len = 61;
	}
	CHECK_EQ_INT(sc.n, 4);
	CHECK_EQ_INT(spate_schema_add(&sc, "a b", 0, 1, 1, why, sizeof(why)), -1);
	CHECK_EQ_INT(spate_schema_add(&sc, "A_z.0:-", 0, 1, 1, why, sizeof(why)), 0);
	for (uint32_t i = sc.n; i < SPATE_SCHEMA_MAX; i++) {
		snprintf(name, sizeof(name), "x%u", i);
		CHECK_EQ_INT(spate_schema_add(&sc, name, 0, 1, 1, why, sizeof(why)), 0);
	}
	CHECK_EQ_INT(spate_schema_add(&sc, "one_more", 0, 1, 1, why, sizeof(why)), -1);
	CHECK_STR(why, "more than 64 attributes declared");
	CHECK_EQ_INT(sc.n, SPATE_SCHEMA_MAX);

	struct spate_engine_params ep;
	memset(&ep, 0x55, sizeof(ep));
	spate_engine_params_default(&ep);
	CHECK_EQ_INT(ep.ivx_groups, 0);
	CHECK_EQ_INT(ep.mprein_workers, -1);
	CHECK_EQ_INT(ep.mprein_par_min, 0);
	CHECK_EQ_INT(ep.drt_time_workers, 0);
	CHECK_EQ_INT(ep.drt_only_worker, 0);
	CHECK_EQ_INT(ep.schema.n, 0);
	CHECK_EQ_INT(ep.schema.dflt.cells, 1000);
	CHECK_EQ_INT(ep.drt.cmax, 256);
}

int main(void)
{
	test_schema_direct();
	test_defaults();
	test_int_table();
	test_keys();
	test_drt_group();
	test_schema();
	test_files();
	test_drt_params();
	return check_summary("conf");
}
