/* test_mprein.c - MP-REIN's helper threads join events (issue 24: the
 * results stay exact whether a helper joins or not, so test_rein cannot
 * see a helper that never wakes):
 *   - with one helper and parallel marking from the first slot, a burst
 *     of events is joined by the helper (helper_joined_events above 0);
 *   - after a pause far longer than a helper spins (it sleeps on a
 *     futex), the next bursts are joined again: the offer wakes it;
 *   - with one attribute constrained (one task) no event goes parallel;
 *   - every event's matches are brute force's.
 * Deadlines are generous and derived from nothing but a bound on the
 * bursts (a loaded machine delays the helper, it never stops it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "matcher/spate_matcher.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long long stat_of(struct spate_matcher *m, const char *key)
{
	char buf[1024], pat[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	spate_matcher_engine_stats(m, f);
	fclose(f);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = strstr(buf, pat);
	CHECK(p != NULL);
	return p ? atoll(p + strlen(pat)) : -1;
}

static struct spate_matcher *make(const char *engine)
{
	struct spate_matcher_conf conf;

	spate_matcher_conf_default(&conf);
	conf.engine = engine;
	conf.params.mprein_workers = 1;
	conf.params.mprein_par_min = 1;
	struct spate_matcher *m = spate_matcher_create(&conf);
	CHECK(m != NULL);
	return m;
}

static const char *const names[] = { "a", "b", "c", "d" };

static void gen_sub(struct spate_raw_sub *s, uint64_t id)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->rect = (struct spate_rect){ -1800000, -900000, 1800000, 900000 };
	s->n_cons = 1 + check_below(3);
	for (uint32_t i = 0; i < s->n_cons; i++) {
		s->cons[i].name = spate_str_of(names[check_below(4)]);
		s->cons[i].op = (uint8_t)(SPATE_OP_GE + check_below(SPATE_OP_NE));
		s->cons[i].value = check_below(1000) * 1000.0;
	}
}

static void gen_event(struct spate_raw_event *e, uint64_t id)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->n_attr = 4;
	for (uint32_t i = 0; i < 4; i++) {
		e->attr[i].name = spate_str_of(names[i]);
		e->attr[i].value = check_below(1000) * 1000.0;
	}
}

static uint64_t n_events;

/* One event through both: the same number of matches. */
static void event(struct spate_matcher *m, struct spate_matcher *ref)
{
	struct spate_matchvec a = { 0 }, b = { 0 };
	struct spate_raw_event e;

	gen_event(&e, ++n_events);
	CHECK_EQ_INT(spate_matcher_event(m, &e, &a), 0);
	CHECK_EQ_INT(spate_matcher_event(ref, &e, &b), 0);
	CHECK_EQ_INT(a.n, b.n);
	spate_matchvec_free(&a);
	spate_matchvec_free(&b);
}

/* Bursts of events until the helper joined one more (at most 20 s). */
static bool joined_again(struct spate_matcher *m, struct spate_matcher *ref)
{
	long long before = stat_of(m, "helper_joined_events");
	double end = now_s() + 20;

	while (now_s() < end) {
		for (int i = 0; i < 200; i++)
			event(m, ref);
		if (stat_of(m, "helper_joined_events") > before)
			return true;
	}
	return false;
}

int main(void)
{
	struct spate_matcher *m = make("mprein"), *ref = make("brute");
	struct spate_raw_sub s;

	check_rng = 3;
	for (uint64_t id = 1; id <= 3000; id++) {
		gen_sub(&s, id);
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 0), 0);
		CHECK_EQ_INT(spate_matcher_sub_add(ref, &s, 0), 0);
	}
	CHECK_EQ_INT(stat_of(m, "threads"), 2);
	CHECK(joined_again(m, ref));
	for (int round = 0; round < 3; round++) {
		/* 20 ms: the helper spins 50 us, then sleeps */
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
		CHECK(joined_again(m, ref));
	}
	CHECK(stat_of(m, "parallel_events") == stat_of(m, "events"));
	spate_matcher_destroy(m);
	spate_matcher_destroy(ref);

	/* one attribute constrained: one task, nothing to share, no event
	 * goes parallel */
	m = make("mprein");
	ref = make("brute");
	for (uint64_t id = 1; id <= 100; id++) {
		gen_sub(&s, id);
		s.n_cons = 1;
		s.cons[0].name = spate_str_of("a");
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 0), 0);
		CHECK_EQ_INT(spate_matcher_sub_add(ref, &s, 0), 0);
	}
	for (int i = 0; i < 10; i++)
		event(m, ref);
	CHECK_EQ_INT(stat_of(m, "events"), 10);
	CHECK_EQ_INT(stat_of(m, "parallel_events"), 0);
	spate_matcher_destroy(m);
	spate_matcher_destroy(ref);
	return check_summary("mprein");
}
