/* test_app_module.c - the module list (app/infra/module.c): inits run in
 * increasing order (registration order among equals), stops and finis in
 * the exact reverse, missing hooks skipped; and SPATED_CAT_UNKNOWN
 * (app/infra/counters.h) bumps its cause and the cat_unknown sum. No DPDK
 * needed: the modules here are the test's own, registered by hand (the
 * daemon's register from constructors in files this test does not link). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "infra/counters.h"
#include "infra/module.h"

static char trace[256];

static void note(const char *what, const char *name)
{
	size_t n = strlen(trace);

	snprintf(trace + n, sizeof(trace) - n, "%s%s:%s", n ? " " : "", what, name);
}

#define HOOKS(id)                                                       \
	static __attribute__((unused)) void init_##id(struct spated *d) \
	{                                                               \
		(void)d;                                                \
		note("init", #id);                                      \
	}                                                               \
	static __attribute__((unused)) void stop_##id(struct spated *d) \
	{                                                               \
		(void)d;                                                \
		note("stop", #id);                                      \
	}                                                               \
	static __attribute__((unused)) void fini_##id(struct spated *d) \
	{                                                               \
		(void)d;                                                \
		note("fini", #id);                                      \
	}
HOOKS(a)
HOOKS(b)
HOOKS(c)
HOOKS(d)

static void test_order(void)
{
	/* registered out of order; b and d share an order: b first */
	static struct spated_module c = { "c", 30, init_c, stop_c, fini_c, NULL };
	static struct spated_module b = { "b", 20, init_b, stop_b, fini_b, NULL };
	static struct spated_module a = { "a", 10, init_a, NULL, fini_a, NULL };
	static struct spated_module d = { "d", 20, init_d, stop_d, NULL, NULL };
	static struct spated_module none = { "none", 15, NULL, NULL, NULL, NULL };
	struct spated s;

	memset(&s, 0, sizeof(s));
	spated_module_register(&c);
	spated_module_register(&b);
	spated_module_register(&none);
	spated_module_register(&a);
	spated_module_register(&d);
	trace[0] = 0;
	spated_modules_init(&s);
	CHECK(strcmp(trace, "init:a init:b init:d init:c") == 0);
	fprintf(stderr, "init: %s\n", trace);
	trace[0] = 0;
	spated_modules_stop(&s);
	CHECK(strcmp(trace, "stop:c stop:d stop:b") == 0);
	fprintf(stderr, "stop: %s\n", trace);
	trace[0] = 0;
	spated_modules_fini(&s);
	CHECK(strcmp(trace, "fini:c fini:b fini:a") == 0);
	fprintf(stderr, "fini: %s\n", trace);
}

static void test_cat_unknown(void)
{
	struct spated_counters sum;

	memset(spated_cnt_slots, 0, sizeof(spated_cnt_slots));
	spated_counters_bind(2);
	CHECK_EQ_INT(SPATED_CAT_UNKNOWN(cat_unknown_lcore), 0);
	CHECK_EQ_INT(SPATED_CAT_UNKNOWN(cat_unknown_lcore), 1);
	spated_counters_bind(5);
	SPATED_CAT_UNKNOWN(cat_unknown_event);
	spated_counters_sum(&sum);
	CHECK_EQ_INT(sum.cat_unknown, 3);
	CHECK_EQ_INT(sum.cat_unknown_lcore, 2);
	CHECK_EQ_INT(sum.cat_unknown_event, 1);
	CHECK_EQ_INT(sum.cat_unknown_msg, 0);
}

int main(void)
{
	test_order();
	test_cat_unknown();
	return check_summary("app_module");
}
