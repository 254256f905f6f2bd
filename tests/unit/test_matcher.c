/* test_matcher.c - the matcher's id, ownership and quota rules, and every
 * registered engine against a naive matcher written on the raw (string)
 * forms, over many generated workloads with interleaved deletes. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proto/spate_err.h"
#include "matcher/spate_matcher.h"

static const char *const vocab[] = {
	"a", "b", "c", "d", "e", "f", "g", "h", "caf\xc3\xa9", "x:y", "long_keyword_here", "z"
};
static const char *const names[] = { "pop", "elev", "t", "q" };
#define NV (sizeof(vocab) / sizeof(vocab[0]))
#define NN (sizeof(names) / sizeof(names[0]))

static struct spate_str str_of(const char *s)
{
	return (struct spate_str){ s, (uint32_t)strlen(s) };
}

/* Coordinates on a coarse lattice so borders and equal values are hit. */
static int32_t coord(int32_t max)
{
	int64_t step = max / 8;
	return (int32_t)((int64_t)check_below(17) * step - max + (int64_t)check_below(3) - 1);
}

static int32_t clamp(int32_t v, int32_t max)
{
	return v < -max ? -max : v > max ? max : v;
}

/* A local coordinate: a 0.25-degree lattice over [-3, 3] degrees, plus or
 * minus one unit, so small rectangles and cell borders of a grid are hit. */
static int32_t local_coord(void)
{
	return ((int32_t)check_below(25) - 12) * (SPATE_COORD_SCALE / 4) + (int32_t)check_below(3) -
	       1;
}

static double value(void)
{
	static const double vals[] = { -1, 0, 0.5, 1, 2, 3, 100, 1e9 };
	return vals[check_below(8)];
}

static void gen_sub(struct spate_raw_sub *s, uint64_t id)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	int32_t a = clamp(coord(SPATE_LON_MAX), SPATE_LON_MAX);
	int32_t b = clamp(coord(SPATE_LON_MAX), SPATE_LON_MAX);
	int32_t c = clamp(coord(SPATE_LAT_MAX), SPATE_LAT_MAX);
	int32_t d = clamp(coord(SPATE_LAT_MAX), SPATE_LAT_MAX);
	s->rect = (struct spate_rect){ a < b ? a : b, c < d ? c : d, a < b ? b : a, c < d ? d : c };
	if (check_below(2) == 0) {
		int32_t x = local_coord(), y = local_coord();
		int32_t w = (int32_t)check_below(9) * (SPATE_COORD_SCALE / 4);
		int32_t h = (int32_t)check_below(9) * (SPATE_COORD_SCALE / 4);
		s->rect = (struct spate_rect){ x, y, x + w, y + h };
	}
	if (check_below(10) == 0)
		s->rect = (struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX,
					       SPATE_LAT_MAX };
	s->n_kw = check_below(4);
	for (uint32_t i = 0; i < s->n_kw; i++)
		s->kw[i] = str_of(vocab[check_below(NV)]); /* repeats allowed */
	s->n_cons = check_below(4) == 0 ? check_below(3) + 1 : 0;
	for (uint32_t i = 0; i < s->n_cons; i++)
		s->cons[i] =
			(struct spate_raw_constraint){ str_of(names[check_below(NN)]),
						       (uint8_t)(check_below(6) + 1), value() };
}

static void gen_event(struct spate_raw_event *e, uint64_t id)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->lon = clamp(coord(SPATE_LON_MAX), SPATE_LON_MAX);
	e->lat = clamp(coord(SPATE_LAT_MAX), SPATE_LAT_MAX);
	if (check_below(2) == 0) {
		e->lon = local_coord();
		e->lat = local_coord();
	}
	e->n_kw = check_below(8);
	for (uint32_t i = 0; i < e->n_kw; i++)
		e->kw[i] = str_of(vocab[check_below(NV)]);
	/* some keywords no subscription uses */
	if (check_below(3) == 0 && e->n_kw < 8)
		e->kw[e->n_kw++] = str_of("never_subscribed");
	e->n_attr = check_below(4);
	for (uint32_t i = 0; i < e->n_attr; i++)
		e->attr[i] = (struct spate_raw_attr){ str_of(names[check_below(NN)]), value() };
}

static bool str_eq(struct spate_str a, struct spate_str b)
{
	return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

/* The naive reference, straight from the definition. */
static bool naive_match(const struct spate_raw_sub *s, const struct spate_raw_event *e)
{
	if (e->lon < s->rect.min_lon || e->lon > s->rect.max_lon || e->lat < s->rect.min_lat ||
	    e->lat > s->rect.max_lat)
		return false;
	for (uint32_t i = 0; i < s->n_kw; i++) {
		bool found = false;
		for (uint32_t j = 0; j < e->n_kw && !found; j++)
			found = str_eq(s->kw[i], e->kw[j]);
		if (!found)
			return false;
	}
	for (uint32_t i = 0; i < s->n_cons; i++) {
		const struct spate_raw_attr *a = NULL;
		for (uint32_t j = 0; j < e->n_attr && !a; j++)
			if (str_eq(s->cons[i].name, e->attr[j].name))
				a = &e->attr[j]; /* the first value wins */
		if (a == NULL || !spate_op_holds(s->cons[i].op, a->value, s->cons[i].value))
			return false;
	}
	return true;
}

static void test_rules(void)
{
	struct spate_matcher_conf conf;
	spate_matcher_conf_default(&conf);
	conf.engine = "brute";
	conf.max_subs = 5;
	conf.max_subs_per_client = 3;
	struct spate_matcher *m = spate_matcher_create(&conf);
	struct spate_raw_sub s;

	gen_sub(&s, 1);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 10), 0);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 10), 0); /* retransmission */
	CHECK_EQ_INT(spate_matcher_sub_count(m), 1);
	CHECK_EQ_INT(spate_matcher_client_count(m), 1);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 11), -SPATE_E_DUPLICATE_ID);
	s.rect.max_lon = s.rect.min_lon;
	s.rect.max_lat = s.rect.min_lat;
	s.n_kw = 1;
	s.kw[0] = str_of("zzz_unique");
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 10), -SPATE_E_DUPLICATE_ID);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 11), -SPATE_E_NOT_OWNER);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 10), -SPATE_E_UNKNOWN_ID);
	for (uint64_t id = 2; id <= 3; id++) {
		gen_sub(&s, id);
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 10), 0);
	}
	gen_sub(&s, 4);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 10), -SPATE_E_OVER_QUOTA);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 12), 0);
	gen_sub(&s, 5);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 12), 0);
	gen_sub(&s, 6);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 13), -SPATE_E_OVER_QUOTA); /* global */
	CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 10), 0);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 10), -SPATE_E_UNKNOWN_ID);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 10), 0); /* room again */
	CHECK(spate_matcher_sub_find(m, 6) != NULL && spate_matcher_sub_find(m, 1) == NULL);
	CHECK_EQ_INT(spate_matcher_sub_count(m), 5);
	CHECK_EQ_INT(spate_matcher_client_count(m), 2); /* 10 and 12; 13 was refused */
	CHECK_EQ_INT(spate_matcher_sub_del(m, 4, 12), 0);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 5, 12), 0);
	CHECK_EQ_INT(spate_matcher_client_count(m), 1); /* 12 has none left */
	spate_matcher_destroy(m);

	conf.engine = "no-such-engine";
	CHECK(spate_matcher_create(&conf) == NULL);
}

/* Retransmitted deletes: with a delete memory, a repeat by the same
 * owner is recognised (nothing deleted twice, the engine untouched), a
 * truly unknown id or another owner's repeat stays UNKNOWN_ID, a re-added
 * id's delete is a real one, and the memory is bounded (oldest out). */
static void test_delete_memory(void)
{
	struct spate_matcher_conf conf;
	spate_matcher_conf_default(&conf);
	struct spate_matcher *m = spate_matcher_create(&conf);
	struct spate_raw_sub s;

	for (uint64_t id = 1; id <= 8; id++) {
		gen_sub(&s, id);
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 10), 0);
	}
	/* no memory (the default): a repeat is unknown */
	CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 10), 0);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 10), -SPATE_E_UNKNOWN_ID);
	CHECK(spate_matcher_del_tag(m, 1) == NULL);

	CHECK_EQ_INT(spate_matcher_remember_deletes(m, 3), 0);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 10), 0);
	CHECK_EQ_INT(spate_matcher_sub_count(m), 6);
	uint64_t *tag = spate_matcher_del_tag(m, 2);
	CHECK(tag != NULL && *tag == 0);
	if (tag)
		*tag = 77;
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 10), SPATE_MATCHER_DEL_REPEAT);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 10), SPATE_MATCHER_DEL_REPEAT);
	CHECK(spate_matcher_del_tag(m, 2) != NULL && *spate_matcher_del_tag(m, 2) == 77);
	CHECK_EQ_INT(spate_matcher_sub_count(m), 6);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 11), -SPATE_E_UNKNOWN_ID);  /* not its owner */
	CHECK_EQ_INT(spate_matcher_sub_del(m, 99, 10), -SPATE_E_UNKNOWN_ID); /* never there */
	CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 10), -SPATE_E_UNKNOWN_ID);  /* before the memory */
	/* re-added: its next delete is real, then a repeat again */
	gen_sub(&s, 2);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 12), 0);
	CHECK(spate_matcher_del_tag(m, 2) == NULL);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 10), -SPATE_E_NOT_OWNER);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 12), 0);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 12), SPATE_MATCHER_DEL_REPEAT);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 10), -SPATE_E_UNKNOWN_ID);
	/* bounded: three more deletes push 2 out */
	for (uint64_t id = 3; id <= 5; id++)
		CHECK_EQ_INT(spate_matcher_sub_del(m, id, 10), 0);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 12), -SPATE_E_UNKNOWN_ID);
	for (uint64_t id = 3; id <= 5; id++)
		CHECK_EQ_INT(spate_matcher_sub_del(m, id, 10), SPATE_MATCHER_DEL_REPEAT);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 6, 10), 0);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 3, 10), -SPATE_E_UNKNOWN_ID);
	CHECK_EQ_INT(spate_matcher_sub_count(m), 2);
	/* matching is untouched by the memory: the remaining subs only */
	struct spate_matchvec mv = { 0 };
	struct spate_raw_event e = { .id = 1 };
	CHECK_EQ_INT(spate_matcher_event(m, &e, &mv), 0);
	for (size_t i = 0; i < mv.n; i++)
		CHECK(mv.v[i]->id == 7 || mv.v[i]->id == 8);
	spate_matchvec_free(&mv);
	spate_matcher_destroy(m);
}

#define MAX_LIVE 400

static uint64_t total_matches, total_events;

static bool intern_events; /* run_workload's matchers intern event strings */

static void run_workload(const char *engine, const struct drt_params *drt, uint64_t seed, int n_ops)
{
	static struct spate_raw_sub live[MAX_LIVE];
	static bool used[MAX_LIVE];
	struct spate_matcher_conf conf;
	spate_matcher_conf_default(&conf);
	conf.engine = engine;
	if (drt)
		conf.params.drt = *drt;
	conf.intern_event_strings = intern_events;
	struct spate_matcher *m = spate_matcher_create(&conf);
	struct spate_matchvec mv = { 0 };
	struct spate_raw_event e;
	uint64_t next_id = 1;
	int mismatches = 0;

	check_rng = seed * 2654435761u + 1;
	memset(used, 0, sizeof(used));
	for (int op = 0; op < n_ops && mismatches < 5; op++) {
		uint32_t r = check_below(10);
		uint32_t slot = check_below(MAX_LIVE);
		if (r < 3 && !used[slot]) {
			gen_sub(&live[slot], next_id++);
			CHECK_EQ_INT(spate_matcher_sub_add(m, &live[slot], 0), 0);
			used[slot] = true;
		} else if (r < 4 && used[slot]) {
			CHECK_EQ_INT(spate_matcher_sub_del(m, live[slot].id, 0), 0);
			used[slot] = false;
		} else {
			gen_event(&e, op);
			CHECK_EQ_INT(spate_matcher_event(m, &e, &mv), 0);
			/* expected: ids ascending */
			uint64_t want[MAX_LIVE];
			size_t nw = 0;
			for (uint32_t i = 0; i < MAX_LIVE; i++)
				if (used[i] && naive_match(&live[i], &e))
					want[nw++] = live[i].id;
			for (size_t i = 1; i < nw; i++)
				for (size_t j = i; j > 0 && want[j - 1] > want[j]; j--) {
					uint64_t t = want[j];
					want[j] = want[j - 1];
					want[j - 1] = t;
				}
			total_matches += nw;
			total_events++;
			bool same = nw == mv.n;
			for (size_t i = 0; same && i < nw; i++)
				same = mv.v[i]->id == want[i];
			if (!same) {
				mismatches++;
				fprintf(stderr,
					"%s seed %llu op %d: engine gave %zu matches, naive %zu\n",
					engine, (unsigned long long)seed, op, mv.n, nw);
			}
			CHECK(same);
		}
	}
	spate_matchvec_free(&mv);
	spate_matcher_destroy(m);
}

/* An engine that only records what the matcher hands it: the interned
 * ids of the last event and of the last subscription. */
struct spate_engine {
	uint32_t ev_kw[8], ev_attr[8], sub_kw[8], sub_attr[8];
	uint16_t ev_nkw, ev_nattr, sub_nkw, sub_ncons;
};

static int rec_add(struct spate_engine *e, const struct spate_sub *q)
{
	e->sub_nkw = q->n_kw < 8 ? q->n_kw : 8;
	e->sub_ncons = q->n_cons < 8 ? q->n_cons : 8;
	for (uint16_t i = 0; i < e->sub_nkw; i++)
		e->sub_kw[i] = q->kw[i];
	for (uint16_t i = 0; i < e->sub_ncons; i++)
		e->sub_attr[i] = q->cons[i].attr;
	return 0;
}

static void rec_del(struct spate_engine *e, const struct spate_sub *q)
{
	(void)e;
	(void)q;
}

static int rec_match(struct spate_engine *e, const struct spate_event *ev,
		     struct spate_matchvec *mv)
{
	(void)mv;
	e->ev_nkw = ev->n_kw < 8 ? ev->n_kw : 8;
	e->ev_nattr = ev->n_attr < 8 ? ev->n_attr : 8;
	for (uint16_t i = 0; i < e->ev_nkw; i++)
		e->ev_kw[i] = ev->kw[i];
	for (uint16_t i = 0; i < e->ev_nattr; i++)
		e->ev_attr[i] = ev->attr[i].attr;
	return 0;
}

static const struct spate_engine_ops rec_ops = {
	.name = "record",
	.sub_add = rec_add,
	.sub_del = rec_del,
	.match = rec_match,
};

/* An event interned before the first subscription using its keyword and
 * attribute (a match host parks events for a category whose handoff
 * brings that subscription): with intern_event_strings it carries the
 * ids the subscription gets later; without, both are dropped as unused. */
static void test_event_interning(void)
{
	for (int on = 0; on <= 1; on++) {
		struct spate_engine rec = { 0 };
		struct spate_matcher_conf conf;
		spate_matcher_conf_default(&conf);
		conf.intern_event_strings = on;
		struct spate_matcher *m = spate_matcher_create_engine(&conf, &rec_ops, &rec);
		struct spate_matchvec mv = { 0 };
		struct spate_raw_event ev = { .id = 1, .n_kw = 2, .n_attr = 1 };
		ev.kw[0] = str_of("river");
		ev.kw[1] = str_of("gallery");
		ev.attr[0] = (struct spate_raw_attr){ str_of("age"), 5 };
		CHECK(m != NULL);
		CHECK(spate_matcher_event(m, &ev, &mv) == 0);
		CHECK(rec.ev_nkw == (on ? 2 : 0));
		CHECK(rec.ev_nattr == (on ? 1 : 0));
		struct spate_raw_sub sub = { .id = 7, .n_kw = 1, .n_cons = 1 };
		sub.rect = (struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX,
						SPATE_LAT_MAX };
		sub.kw[0] = str_of("gallery");
		sub.cons[0] = (struct spate_raw_constraint){ str_of("age"), SPATE_OP_GT, 4 };
		CHECK(spate_matcher_sub_add(m, &sub, 1) == 0);
		CHECK(rec.sub_nkw == 1 && rec.sub_ncons == 1);
		if (on) {
			CHECK(rec.ev_kw[0] == rec.sub_kw[0] || rec.ev_kw[1] == rec.sub_kw[0]);
			CHECK(rec.ev_attr[0] == rec.sub_attr[0]);
		}
		spate_matchvec_free(&mv);
		spate_matcher_destroy(m);
	}
}

/* An event's keywords reach the engine as the subscriptions' ids,
 * ascending, each once, the unknown ones dropped, whatever their order
 * and repeats (one pass does all three: spate_matcher_sort_unique). */
static void test_event_keywords(void)
{
	static const char *const order[][7] = {
		{ "c", "zz", "a", "c", "b", "a", "b" },
		{ "zz", "zz", "b", "a", "c", "c", "y" },
		{ "a", "b", "c", "a", "b", "c", "zz" },
		{ "c", "b", "a", "c", "b", "a", "a" },
	};
	struct spate_engine rec = { 0 };
	struct spate_matcher_conf conf;
	spate_matcher_conf_default(&conf);
	struct spate_matcher *m = spate_matcher_create_engine(&conf, &rec_ops, &rec);
	struct spate_matchvec mv = { 0 };
	struct spate_raw_sub sub = { .id = 1, .n_kw = 3 };
	sub.rect =
		(struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX, SPATE_LAT_MAX };
	sub.kw[0] = str_of("b"); /* interned first: ids not in name order */
	sub.kw[1] = str_of("c");
	sub.kw[2] = str_of("a");
	CHECK(m != NULL);
	CHECK(spate_matcher_sub_add(m, &sub, 1) == 0);
	uint32_t want[3] = { rec.sub_kw[0], rec.sub_kw[1], rec.sub_kw[2] };
	CHECK(want[0] < want[1] && want[1] < want[2]);
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		struct spate_raw_event ev = { .id = o, .n_kw = 7 };
		for (uint32_t i = 0; i < 7; i++)
			ev.kw[i] = str_of(order[o][i]);
		CHECK(spate_matcher_event(m, &ev, &mv) == 0);
		CHECK_EQ_INT(rec.ev_nkw, 3);
		for (uint32_t i = 0; i < 3; i++)
			CHECK_EQ_INT(rec.ev_kw[i], want[i]);
	}
	spate_matchvec_free(&mv);
	spate_matcher_destroy(m);
}

/* Attribute names of 8 to 16 bytes that share their first 8 bytes or
 * their last 8, or differ in length only, at the same place of
 * consecutive events: each event finds its own name's subscription (the
 * matcher remembers the id last seen at each place), and a name unknown
 * at one event is found once a subscription brings it. */
static void test_attr_names(void)
{
	static const char *const attr_names[] = { "population_aa",    "population_bb",
						  "populatio",        "populatio1",
						  "xpopulation_aa",   "abcdefghijklmnop",
						  "abcdefgXijklmnop", "abcdefghijklmnoX" };
	enum { N = sizeof(attr_names) / sizeof(attr_names[0]) };
	struct spate_matcher_conf conf;
	spate_matcher_conf_default(&conf);
	conf.engine = "brute";
	struct spate_matcher *m = spate_matcher_create(&conf);
	struct spate_matchvec mv = { 0 };

	CHECK(m != NULL);
	for (uint32_t k = 0; k <= N; k++) {
		if (k > 0) { /* sub k: names[k - 1] > 5, between two events with that name */
			struct spate_raw_sub sub = { .id = k, .n_cons = 1 };
			struct spate_raw_event ev = { .id = 0, .n_attr = 1 };
			sub.rect = (struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX,
							SPATE_LON_MAX, SPATE_LAT_MAX };
			sub.cons[0] = (struct spate_raw_constraint){ str_of(attr_names[k - 1]),
								     SPATE_OP_GT, 5 };
			ev.attr[0] = (struct spate_raw_attr){ str_of(attr_names[k - 1]), 10 };
			CHECK(spate_matcher_event(m, &ev, &mv) == 0);
			CHECK_EQ_INT(mv.n, 0);
			CHECK(spate_matcher_sub_add(m, &sub, 1) == 0);
			CHECK(spate_matcher_event(m, &ev, &mv) == 0);
			CHECK(mv.n == 1 && mv.v[0]->id == k);
		}
		for (uint32_t r = 0; r < 3 * N; r++) {
			uint32_t i = (r * 5 + k) % N; /* names in a shuffled order, place 0 */
			struct spate_raw_event ev = { .id = r, .n_attr = 2 };
			ev.attr[0] = (struct spate_raw_attr){ str_of(attr_names[i]), 10 };
			ev.attr[1] = (struct spate_raw_attr){ str_of("other_name_x"), 1 };
			CHECK(spate_matcher_event(m, &ev, &mv) == 0);
			if (i < k) { /* its subscription is in: that one alone */
				CHECK_EQ_INT(mv.n, 1);
				CHECK(mv.n == 1 && mv.v[0]->id == i + 1);
			} else {
				CHECK_EQ_INT(mv.n, 0);
			}
		}
	}
	spate_matchvec_free(&mv);
	spate_matcher_destroy(m);
}

/* The configuration a matcher reports names the engine it runs (the
 * default when none was asked; never the caller's string, which may
 * change after the create). */
static void test_conf_engine(void)
{
	struct spate_matcher_conf conf;
	char name[16] = "grid";

	spate_matcher_conf_default(&conf);
	struct spate_matcher *m = spate_matcher_create(&conf);
	CHECK(m != NULL && spate_matcher_get_conf(m)->engine != NULL);
	CHECK(strcmp(spate_matcher_get_conf(m)->engine, spate_engine_find(NULL)->name) == 0);
	spate_matcher_destroy(m);
	conf.engine = name;
	m = spate_matcher_create(&conf);
	strcpy(name, "changed");
	CHECK(strcmp(spate_matcher_get_conf(m)->engine, "grid") == 0);
	CHECK(strcmp(spate_matcher_engine_name(m), "grid") == 0);
	spate_matcher_destroy(m);
}

/* The stored form keeps one attribute's constraints sorted by operator,
 * then value (documented for spate_matcher_foreach_sub: the journal's
 * snapshot is written from it). */
static void visit_cons(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	(void)owner;
	*(struct spate_raw_sub *)ctx = *rs;
}

static void test_constraint_order(void)
{
	struct spate_matcher_conf conf;
	struct spate_raw_sub s = { .id = 5, .rect = { -10, -10, 10, 10 }, .n_cons = 5 }, got;
	static const uint8_t want_op[5] = { SPATE_OP_GE, SPATE_OP_GE, SPATE_OP_LE, SPATE_OP_LT,
					    SPATE_OP_NE };
	static const double want_v[5] = { 0, 1, 5, 9, 3 };

	s.cons[0] = (struct spate_raw_constraint){ { "a", 1 }, SPATE_OP_NE, 3 };
	s.cons[1] = (struct spate_raw_constraint){ { "a", 1 }, SPATE_OP_LT, 9 };
	s.cons[2] = (struct spate_raw_constraint){ { "a", 1 }, SPATE_OP_LE, 5 };
	s.cons[3] = (struct spate_raw_constraint){ { "a", 1 }, SPATE_OP_GE, 1 };
	s.cons[4] = (struct spate_raw_constraint){ { "a", 1 }, SPATE_OP_GE, 0 };
	spate_matcher_conf_default(&conf);
	conf.engine = "brute";
	struct spate_matcher *m = spate_matcher_create(&conf);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 0), 0);
	memset(&got, 0, sizeof(got));
	CHECK_EQ_INT(spate_matcher_foreach_sub(m, visit_cons, &got), 0);
	CHECK_EQ_INT(got.n_cons, 5);
	for (int i = 0; i < 5; i++) {
		CHECK_EQ_INT(got.cons[i].op, want_op[i]);
		CHECK(got.cons[i].value == want_v[i]);
	}
	spate_matcher_destroy(m);
}

/* A figure of the engine's stats ("key":N). */
static long long stat_of(struct spate_matcher *m, const char *key)
{
	char *buf = NULL, want[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	long long v = -1;

	spate_matcher_engine_stats(m, f);
	fclose(f);
	snprintf(want, sizeof(want), "\"%s\":", key);
	const char *at = strstr(buf, want);
	if (at)
		v = strtoll(at + strlen(want), NULL, 10);
	free(buf);
	return v;
}

/* The kd-tree's partitions after its rebuilds (at 64, 128, ..., 4096
 * subs): median splits over 4096 small rectangles spread at random fill
 * its 64 partitions evenly (a rectangle across a split is listed twice). */
static void test_kdtree_balance(void)
{
	struct spate_matcher_conf conf;
	struct spate_raw_sub s;

	spate_matcher_conf_default(&conf);
	conf.engine = "kdtree";
	struct spate_matcher *m = spate_matcher_create(&conf);
	check_rng = 77;
	for (uint64_t id = 1; id <= 4096; id++) {
		memset(&s, 0, sizeof(s));
		s.id = id;
		/* in 64 bits: 350 degrees of fixed point exceed an int32 */
		int32_t x = (int32_t)((int64_t)check_below(350u * SPATE_COORD_SCALE) -
				      175LL * SPATE_COORD_SCALE);
		int32_t y = (int32_t)((int64_t)check_below(170u * SPATE_COORD_SCALE) -
				      85LL * SPATE_COORD_SCALE);
		s.rect = (struct spate_rect){ x, y, x + SPATE_COORD_SCALE / 100,
					      y + SPATE_COORD_SCALE / 100 };
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 0), 0);
	}
	long long parts = stat_of(m, "partitions"), listed = stat_of(m, "listed");
	long long largest = stat_of(m, "largest_partition");
	CHECK_EQ_INT(parts, 64);
	CHECK_EQ_INT(stat_of(m, "rebuilds"), 7);
	CHECK(listed >= 4096 && listed < 4096 + 4096 / 8);
	CHECK(largest >= (listed + parts - 1) / parts); /* some partition holds its share */
	CHECK(largest <= 2 * 4096 / 64);                /* and none twice of it */
	spate_matcher_destroy(m);
}

/* An interned event back to its raw form (what the multi-host link
 * re-encodes): every keyword and attribute name, every value. */
static void test_raw_event(void)
{
	struct spate_matcher_conf conf;
	struct spate_raw_sub rs = { .id = 7, .n_kw = 2, .n_cons = 3 };
	struct spate_raw_event re;

	spate_matcher_conf_default(&conf);
	struct spate_matcher *m = spate_matcher_create(&conf);
	rs.rect = (struct spate_rect){ 0, 0, 10, 10 };
	rs.kw[0] = spate_str_of("alpha");
	rs.kw[1] = spate_str_of("beta");
	static const char *const an[] = { "speed", "alt", "temp" };
	for (int i = 0; i < 3; i++)
		rs.cons[i] = (struct spate_raw_constraint){ spate_str_of(an[i]), SPATE_OP_GE, 1 };
	CHECK_EQ_INT(spate_matcher_sub_add(m, &rs, 1), 0);
	const struct spate_sub *s = spate_matcher_sub_find(m, 7);
	CHECK(s != NULL && s->n_cons == 3 && s->n_kw == 2);
	if (s == NULL || s->n_cons != 3 || s->n_kw != 2) {
		spate_matcher_destroy(m);
		return;
	}
	struct spate_attr attrs[3];
	for (int i = 0; i < 3; i++)
		attrs[i] = (struct spate_attr){ s->cons[i].attr, 10.5 + i };
	struct spate_event ev = {
		.id = 99, .lon = -3, .lat = 4, .n_kw = 2, .n_attr = 3, .kw = s->kw, .attr = attrs
	};
	memset(&re, 0xa5, sizeof(re));
	spate_matcher_raw_event(m, &ev, &re);
	CHECK_EQ_INT(re.id, 99);
	CHECK_EQ_INT(re.lon, -3);
	CHECK_EQ_INT(re.lat, 4);
	CHECK_EQ_INT(re.n_kw, 2);
	CHECK_EQ_INT(re.n_attr, 3);
	for (int i = 0; i < 2; i++) {
		struct spate_raw_sub back;
		spate_matcher_raw_sub(m, s, &back);
		CHECK(re.kw[i].len == back.kw[i].len &&
		      memcmp(re.kw[i].p, back.kw[i].p, re.kw[i].len) == 0);
	}
	bool same_names = true;
	for (int i = 0; i < 3; i++) {
		struct spate_raw_sub back;
		spate_matcher_raw_sub(m, s, &back);
		same_names &=
			re.attr[i].name.len == back.cons[i].name.len &&
			memcmp(re.attr[i].name.p, back.cons[i].name.p, re.attr[i].name.len) == 0;
		CHECK(re.attr[i].value == 10.5 + i);
	}
	CHECK(same_names);
	spate_matcher_destroy(m);
}

int main(void)
{
	test_raw_event();
	check_rng = 1;
	test_kdtree_balance();
	check_rng = 1;
	test_constraint_order();
	test_conf_engine();
	test_attr_names();
	test_rules();
	test_delete_memory();
	test_event_interning();
	test_event_keywords();
	/* interning every event string changes no result */
	intern_events = true;
	for (const struct spate_engine_ops *const *e = spate_engine_list(); *e; e++)
		for (uint64_t seed = 41; seed <= 45; seed++)
			run_workload((*e)->name, NULL, seed, 3000);
	intern_events = false;
	for (const struct spate_engine_ops *const *e = spate_engine_list(); *e; e++)
		for (uint64_t seed = 1; seed <= 40; seed++)
			run_workload((*e)->name, NULL, seed, 3000);
	/* DRt under pressure: few categories allowed (many merges), short
	 * periods (many rebalancing rounds), several workers, every variant. */
	for (uint32_t variant = DRT_SIM_NONFRE; variant <= DRT_SIM_FRE_CO; variant++)
		for (uint64_t seed = 1; seed <= 10; seed++) {
			struct drt_params p;
			drt_params_default(&p);
			p.variant = variant;
			p.cmax = 1 + (uint32_t)(seed % 8);
			p.lambda = 50 + 20 * (uint32_t)seed;
			p.workers = 1 + (uint32_t)(seed % 4);
			p.route_cell = seed % 2 ? 5 : 0.3;
			p.new_th = 0.3 + 0.1 * (double)(seed % 5);
			run_workload("drt", &p, seed, 3000);
		}
	/* The workloads must be able to fail: plenty of events match. */
	printf("matcher: %llu events, %llu matches\n", (unsigned long long)total_events,
	       (unsigned long long)total_matches);
	CHECK(total_matches > total_events / 4);
	return check_summary("matcher");
}
