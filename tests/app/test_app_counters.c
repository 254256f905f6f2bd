/* test_app_counters.c - per-lcore counters summed and printed
 * (app/infra/counters.c), and the control output's two renderings (app/control/ctl_out.c),
 * without DPDK. Outputs are compared whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/counters.h"
#include "control/ctl_out.h"
#include "util/spate_release.h"

static char *out;
static size_t out_len;

static FILE *open_out(void)
{
	free(out);
	out = NULL;
	return open_memstream(&out, &out_len);
}

static void extra(FILE *f)
{
	fputs(",\"x\":1", f);
}

static void test_counters(void)
{
	struct spated_counters sum;

	memset(spated_cnt_slots, 0, sizeof(spated_cnt_slots));
	spated_counters_bind(3);
	spated_cnt.rx = 5;
	spated_cnt.msg_err[SPATE_E_UNKNOWN_ID] = 2;
	spated_counters_bind(7);
	spated_cnt.rx = 2;
	spated_cnt.tx = 9;
	spated_cnt.msg_err[SPATE_E_UNKNOWN_ID] = 1;
	spated_cnt.hdr_err[SPATE_E_BAD_MAGIC] = 4;
	spated_cnt.hdr_err[SPATE_E_AUTH_FAILED] = 1;
	spated_counters_bind(SPATED_COUNTER_SLOTS - 1);
	spated_cnt.polls = 11;
	/* past the slots: the shared spare of unbound threads (the control
	 * threads'), summed but not listed per lcore */
	spated_counters_bind(SPATED_COUNTER_SLOTS);
	spated_cnt.rx = 1000;
	CHECK(&spated_cnt != &spated_cnt_slots[SPATED_COUNTER_SLOTS - 1].c);
	CHECK(&spated_cnt != &spated_cnt_slots[0].c);
	spated_counters_bind(7);
	CHECK(&spated_cnt == &spated_cnt_slots[7].c);

	spated_counters_sum(&sum);
	CHECK_EQ_INT(sum.rx, 1007);
	CHECK_EQ_INT(sum.tx, 9);
	CHECK_EQ_INT(sum.polls, 11);
	CHECK_EQ_INT(sum.msg_err[SPATE_E_UNKNOWN_ID], 3);
	CHECK_EQ_INT(sum.hdr_err[SPATE_E_BAD_MAGIC], 4);
	CHECK_EQ_INT(sum.hdr_err[SPATE_E_UNKNOWN_ID], 0);
	/* a counter late in the block, and the per-code arrays after it */
	spated_cnt.front_cats_dropped = 6;
	spated_cnt_slots[0].c.front_cats_dropped = 1;
	spated_counters_sum(&sum);
	CHECK_EQ_INT(sum.front_cats_dropped, 7);
	spated_cnt.front_cats_dropped = 0;
	spated_cnt_slots[0].c.front_cats_dropped = 0;

	FILE *f = open_out();
	spated_counters_print(f, 1.5, extra);
	fclose(f);
	char head[128];
	snprintf(head, sizeof(head),
		 "{\"spated\":\"counters\",\"version\":\"%s\",\"uptime_s\":1.500,"
		 "\"polls\":11,\"busy_polls\":0,\"rx\":1007,",
		 SPATE_RELEASE);
	CHECK(strncmp(out, head, strlen(head)) == 0);
	CHECK(strstr(out, ",\"tx\":9,") != NULL);
	char tail[400];
	snprintf(tail, sizeof(tail),
		 ",\"hdr_err\":{\"%s\":4,\"%s\":1},\"msg_err\":{\"%s\":3},"
		 "\"x\":1,\"lcores\":{\"3\":{\"rx\":5},\"7\":{\"rx\":2,\"tx\":9},\"%d\":{\"polls\":"
		 "11}}}\n",
		 spate_err_name(SPATE_E_BAD_MAGIC), spate_err_name(SPATE_E_AUTH_FAILED),
		 spate_err_name(SPATE_E_UNKNOWN_ID), SPATED_COUNTER_SLOTS - 1);
	CHECK(out_len >= strlen(tail) && strcmp(out + out_len - strlen(tail), tail) == 0);
	/* an lcore with only a per-code count is listed (it is not all zero) */
	spated_cnt_slots[9].c.msg_err[1] = 1;
	f = open_out();
	spated_counters_print(f, 0, NULL);
	fclose(f);
	CHECK(strstr(out, ",\"9\":{}") != NULL);
	CHECK(strstr(out, "\"msg_err\":{\"") != NULL);
	CHECK(strstr(out, "\"x\":1") == NULL);
	/* lcore 0 (the main lcore's slot) is listed too, first */
	spated_cnt_slots[0].c.rx = 4;
	f = open_out();
	spated_counters_print(f, 0, NULL);
	fclose(f);
	CHECK(strstr(out, ",\"lcores\":{\"0\":{\"rx\":4},\"3\":{\"rx\":5},") != NULL);
	CHECK(strstr(out, ",\"rx\":1011,") != NULL);
	memset(spated_cnt_slots, 0, sizeof(spated_cnt_slots));
	spated_counters_bind(SPATED_COUNTER_SLOTS + 5);
	spated_cnt.rx = 0;
	f = open_out();
	spated_counters_print(f, 0, NULL);
	fclose(f);
	CHECK(strstr(out, "\"hdr_err\":{},\"msg_err\":{},\"lcores\":{}}\n") != NULL);
}

/* One rendering of a fixed tree of values. */
static const char *render(bool json)
{
	struct ctl_out o;
	FILE *f = open_out();

	ctl_out_init(&o, f, json);
	ctl_out_u64(&o, "n", 18446744073709551615ull);
	ctl_out_dbl(&o, "d", 0.1);
	ctl_out_str(&o, "s", "a\"b\\c\n");
	ctl_out_bool(&o, "t", true);
	ctl_out_bool(&o, "f", false);
	ctl_out_obj(&o, "o");
	ctl_out_value(&o, "mode", "0600");
	ctl_out_value(&o, "neg", "-0.5");
	ctl_out_value(&o, "exp", "1e+09");
	ctl_out_value(&o, "b", "true");
	ctl_out_arr(&o, "a");
	ctl_out_u64(&o, NULL, 1);
	ctl_out_str(&o, NULL, "x");
	ctl_out_obj(&o, NULL);
	ctl_out_u64(&o, "k", 2);
	ctl_out_end(&o);
	ctl_out_end(&o);
	ctl_out_end(&o);
	ctl_out_dbl(&o, "inf", 1.0 / 0.0);
	ctl_out_arr(&o, "open"); /* closed by finish */
	ctl_out_u64(&o, NULL, 3);
	ctl_out_finish(&o);
	fclose(f);
	return out;
}

static void test_ctl_out(void)
{
	const char *j = render(true);
	CHECK(strcmp(j,
		     "{\"n\":18446744073709551615,\"d\":0.1,\"s\":\"a\\\"b\\\\c\\u000a\",\"t\":"
		     "true,"
		     "\"f\":false,\"o\":{\"mode\":\"0600\",\"neg\":-0.5,\"exp\":1e+09,\"b\":true,"
		     "\"a\":[1,\"x\",{\"k\":2}]},\"inf\":null,\"open\":[3]}\n") == 0);
	if (strcmp(j,
		   "{\"n\":18446744073709551615,\"d\":0.1,\"s\":\"a\\\"b\\\\c\\u000a\",\"t\":true,"
		   "\"f\":false,\"o\":{\"mode\":\"0600\",\"neg\":-0.5,\"exp\":1e+09,\"b\":true,"
		   "\"a\":[1,\"x\",{\"k\":2}]},\"inf\":null,\"open\":[3]}\n") != 0)
		fprintf(stderr, "json: %s", j);
	const char *t = render(false);
	static const char text[] =
		"n: 18446744073709551615\nd: 0.1\ns: a\"b\\c\n\nt: true\nf: false\n"
		"o: \n  mode: 0600\n  neg: -0.5\n  exp: 1e+09\n  b: true\n  a: \n"
		"    - 1\n    - x\n    - \n      k: 2\ninf: inf\nopen: \n  - 3\n";
	CHECK(strcmp(t, text) == 0);
	if (strcmp(t, text) != 0)
		fprintf(stderr, "text: %s", t);
	/* JSON's number grammar decides what ctl_out_value leaves unquoted */
	static const struct {
		const char *v;
		bool number;
	} nums[] = {
		{ "0", true },     { "-0", true },   { "10", true },       { "0.5", true },
		{ "1e5", true },   { "1E-5", true }, { "-1.25e+3", true }, { "01", false },
		{ "1.", false },   { ".5", false },  { "1e", false },      { "1e+", false },
		{ "-", false },    { "", false },    { "+1", false },      { "0x10", false },
		{ "1 ", false },   { "nan", false }, { "true", true },     { "false", true },
		{ "True", false },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		struct ctl_out o;
		FILE *f = open_out();
		ctl_out_init(&o, f, true);
		ctl_out_value(&o, "v", nums[i].v);
		ctl_out_finish(&o);
		fclose(f);
		char want[64];
		snprintf(want, sizeof(want), nums[i].number ? "{\"v\":%s}\n" : "{\"v\":\"%s\"}\n",
			 nums[i].v);
		check_count++;
		if (strcmp(out, want) != 0) {
			fprintf(stderr, "'%s': got %s want %s", nums[i].v, out, want);
			check_failed();
		}
	}
}

/* Deeper than CTL_OUT_DEPTH (8): the levels past it are not tracked,
 * so nothing is written past the level arrays. */
static void test_ctl_out_deep(void)
{
	struct ctl_out o;
	FILE *f = open_out();

	ctl_out_init(&o, f, true);
	for (int i = 0; i < 10; i++)
		ctl_out_obj(&o, "a");
	ctl_out_u64(&o, "v", 1);
	CHECK_EQ_INT(o.depth, CTL_OUT_DEPTH - 1);
	for (int i = 0; i < 10; i++)
		ctl_out_end(&o);
	CHECK_EQ_INT(o.depth, 0);
	ctl_out_u64(&o, "w", 2);
	ctl_out_finish(&o);
	fclose(f);
	/* (the JSON is then unbalanced: no command nests that deep) */
	CHECK(strncmp(out, "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":", 40) == 0);
}

int main(void)
{
	test_counters();
	test_ctl_out();
	test_ctl_out_deep();
	free(out);
	return check_summary("app_counters");
}
