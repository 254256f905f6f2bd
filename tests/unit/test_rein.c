/* test_rein.c - the rein, rein-list, mprein and ivx engines against brute, through
 * spate_matcher, on what the generic matcher test does not stress: values
 * on the domain edges, on cell borders and outside the domain (infinities
 * and NaN too), = and !=, events lacking attributes, many constraints per
 * sub, interleaved inserts and deletes reusing slots, and 20,000+ subs;
 * with the default domain and with a declared schema (few cells, few ivx
 * groups, out-of-domain event values); and the schema's refusal of
 * out-of-domain constraint values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engines/drt/drt_category.h"
#include "engines/rein/rein_bucket.h"
#include "engines/rein/rein_core.h"
#include "proto/spate_err.h"
#include "matcher/spate_matcher.h"

static double unit(void)
{
	return (double)(check_rand() >> 11) / 9007199254740992.0;
}

static const char *const names[] = { "a0", "a1", "a2", "a3", "a4",  "a5",
				     "a6", "a7", "a8", "a9", "a10", "a11" };
#define NN (sizeof(names) / sizeof(names[0]))
/* The attribute names the generators draw from: names[], or 100 names
 * (ivx keeps a per-slot mask of attributes below id 64 and handles the
 * others differently, so both kinds must be exercised). */
static const char *const *cur_names = names;
static uint32_t cur_nn = NN;
static char many[100][8];
static const char *many_names[100];
static const char *const vocab[] = { "k1", "k2", "k3" };

static struct spate_str str_of(const char *s)
{
	return (struct spate_str){ s, (uint32_t)strlen(s) };
}

#define CELLW ((REIN_HI - REIN_LO) / REIN_CELLS)

static double edge_value(void)
{
	double b = REIN_LO + CELLW * (double)check_below(REIN_CELLS + 1);
	switch (check_below(18)) {
	case 0:
		return REIN_LO;
	case 1:
		return REIN_HI;
	case 2:
		return nextafter(REIN_LO, -INFINITY);
	case 3:
		return nextafter(REIN_HI, -INFINITY);
	case 4:
		return nextafter(REIN_HI, INFINITY);
	case 5:
		return b;
	case 6:
		return nextafter(b, -INFINITY);
	case 7:
		return nextafter(b, INFINITY);
	case 8:
		return -1;
	case 9:
		return -1e12;
	case 10:
		return 2 * REIN_HI;
	case 11:
		return INFINITY;
	case 12:
		return -INFINITY;
	case 13:
		return NAN;
	case 14:
		return -0.0;
	case 15:
		return REIN_LO + CELLW * 0.5;
	case 16:
		return REIN_HI - CELLW * 0.5;
	default:
		return b;
	}
}

static double gen_value(void)
{
	switch (check_below(4)) {
	case 0:
		return edge_value();
	case 1:
		return REIN_LO + CELLW * (double)check_below(REIN_CELLS + 1); /* borders */
	default:
		return REIN_LO - 0.05 * (REIN_HI - REIN_LO) + 1.1 * (REIN_HI - REIN_LO) * unit();
	}
}

#define N_ENG 10
static const char *const engine_names[N_ENG] = { "brute",  "rein", "rein-list", "mprein", "mprein",
						 "mprein", "ivx",  "ivx",       "ivx",    "ivx" };
/* ivx groups per engine above: the default, 3 (wide groups, many
 * candidates: confirmation must carry exactness alone), 64 (the widest
 * fail mask) and 100 (past it: the per-group path). */
static const uint32_t engine_groups[N_ENG] = { 0, 0, 0, 0, 0, 0, 0, 3, 64, 100 };
/* mprein: the default pool (from 2048 slots), the pool on every event
 * (one slot: the helper joins or is closed out, racing the caller), and
 * three helpers on every event. */
static const uint32_t engine_par_min[N_ENG] = { 0, 0, 0, 0, 1, 1 };
static const int32_t engine_workers[N_ENG] = { -1, -1, -1, -1, -1, 3, -1, -1, -1, -1 };

/* With a schema: a0..a11 declared on [0, 10^6] in 7 cells; constraint
 * values are then drawn inside the domain, event values still outside. */
static bool with_schema;
#define SCHEMA_CELLS 7

/* rein-list walks O(n) lists: it runs where the subs are few (its sorted
 * lists are the same order as mprein's skip lists, checked at size by
 * test_buckets). */
#define LIST_MAX_SUBS 5000

struct trio {
	bool on[N_ENG];
	struct spate_matcher *m[N_ENG];
	struct spate_matchvec mv[N_ENG];
	/* the live subs (copies), for the candidate counts */
	struct spate_raw_sub *live;
	uint32_t n_live, cap_live;
	uint64_t cand[N_ENG]; /* the engine's "candidates" before this event */
};

static void trio_init(struct trio *t, uint32_t n_subs)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < N_ENG; i++) {
		struct spate_matcher_conf conf;
		if (strcmp(engine_names[i], "rein-list") == 0 && n_subs > LIST_MAX_SUBS)
			continue;
		t->on[i] = true;
		spate_matcher_conf_default(&conf);
		conf.engine = engine_names[i];
		conf.params.ivx_groups = engine_groups[i];
		conf.params.mprein_par_min = engine_par_min[i];
		conf.params.mprein_workers = engine_workers[i];
		for (uint32_t a = 0; with_schema && a < NN; a++) {
			char why[128];
			CHECK_EQ_INT(spate_schema_add(&conf.params.schema, names[a], REIN_LO,
						      REIN_HI, SCHEMA_CELLS, why, sizeof(why)),
				     0);
		}
		t->m[i] = spate_matcher_create(&conf);
		CHECK(t->m[i] != NULL);
	}
}

static void trio_fini(struct trio *t)
{
	for (int i = 0; i < N_ENG; i++) {
		spate_matcher_destroy(t->m[i]);
		spate_matchvec_free(&t->mv[i]);
	}
	free(t->live);
}

static void trio_add(struct trio *t, const struct spate_raw_sub *s)
{
	for (int i = 0; i < N_ENG; i++)
		if (t->on[i])
			CHECK_EQ_INT(spate_matcher_sub_add(t->m[i], s, 0), 0);
	if (t->n_live == t->cap_live) {
		t->cap_live = t->cap_live ? 2 * t->cap_live : 1024;
		t->live = realloc(t->live, t->cap_live * sizeof(*t->live));
	}
	t->live[t->n_live++] = *s;
}

static void trio_del(struct trio *t, uint64_t id)
{
	for (int i = 0; i < N_ENG; i++)
		if (t->on[i])
			CHECK_EQ_INT(spate_matcher_sub_del(t->m[i], id, 0), 0);
	for (uint32_t k = 0; k < t->n_live; k++)
		if (t->live[k].id == id) {
			t->live[k] = t->live[--t->n_live];
			break;
		}
}

/* A figure of the engine's stats ("key":N), -1 if it has none. */
static long long engine_stat(struct spate_matcher *m, const char *key)
{
	char *buf = NULL, *at, want[64];
	size_t len = 0;
	long long n = -1;
	FILE *f = open_memstream(&buf, &len);

	spate_matcher_engine_stats(m, f);
	fclose(f);
	snprintf(want, sizeof(want), "\"%s\":", key);
	if ((at = strstr(buf, want)) != NULL)
		n = strtoll(at + strlen(want), NULL, 10);
	free(buf);
	return n;
}

/* The engine's cumulative "candidates" figure (-1: it has none). */
static long long engine_candidates(struct spate_matcher *m)
{
	return engine_stat(m, "candidates");
}

/* Does the event pass every indexed constraint of s (every one but !=
 * and NaN values): the attribute present, its value not NaN and within?
 * REIN's marks are exact for these, so the subs that pass are exactly
 * the candidates the rein-style engines confirm. */
static bool passes_intervals(const struct spate_raw_sub *s, const struct spate_raw_event *e)
{
	for (uint16_t c = 0; c < s->n_cons; c++) {
		const struct spate_raw_constraint *k = &s->cons[c];
		if (k->op == SPATE_OP_NE || isnan(k->value))
			continue;
		const struct spate_raw_attr *a = NULL;
		for (uint16_t i = 0; i < e->n_attr && a == NULL; i++)
			if (e->attr[i].name.len == k->name.len &&
			    memcmp(e->attr[i].name.p, k->name.p, k->name.len) == 0)
				a = &e->attr[i];
		if (a == NULL || isnan(a->value))
			return false;
		double v = a->value;
		bool ok = k->op == SPATE_OP_GE   ? v >= k->value
			  : k->op == SPATE_OP_GT ? v > k->value
			  : k->op == SPATE_OP_LE ? v <= k->value
			  : k->op == SPATE_OP_LT ? v < k->value
						 : v == k->value;
		if (!ok)
			return false;
	}
	return true;
}

static uint64_t n_events, n_matches;
static int n_mismatch;

static void trio_event(struct trio *t, const struct spate_raw_event *e, const char *what)
{
	for (int i = 0; i < N_ENG; i++)
		if (t->on[i])
			CHECK_EQ_INT(spate_matcher_event(t->m[i], e, &t->mv[i]), 0);
	n_events++;
	n_matches += t->mv[0].n;
	/* the exact candidate count of the engines that keep one (rein,
	 * rein-list, mprein): a mark missed or one too many turns it red
	 * even when confirmation hides it from the matches */
	long long want = -1;
	for (int i = 1; i < N_ENG; i++) {
		if (!t->on[i])
			continue;
		long long c = engine_candidates(t->m[i]);
		if (c < 0)
			continue;
		if (want < 0) {
			want = 0;
			for (uint32_t k = 0; k < t->n_live; k++)
				want += passes_intervals(&t->live[k], e);
		}
		if (c - (long long)t->cand[i] != want && n_mismatch++ < 10)
			fprintf(stderr,
				"%s: %s confirmed %lld candidates, %lld pass the intervals "
				"(event %llu)\n",
				what, engine_names[i], c - (long long)t->cand[i], want,
				(unsigned long long)e->id);
		CHECK_EQ_INT(c - (long long)t->cand[i], want);
		t->cand[i] = (uint64_t)c;
	}
	for (int i = 1; i < N_ENG; i++) {
		if (!t->on[i])
			continue;
		bool same = t->mv[i].n == t->mv[0].n;
		for (size_t k = 0; same && k < t->mv[0].n; k++)
			same = t->mv[i].v[k]->id == t->mv[0].v[k]->id;
		if (!same && n_mismatch++ < 10)
			fprintf(stderr, "%s: %s gave %zu matches, brute %zu (event %llu)\n", what,
				engine_names[i], t->mv[i].n, t->mv[0].n, (unsigned long long)e->id);
		CHECK(same);
	}
}

static void whole_world(struct spate_raw_sub *s, uint64_t id)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->rect =
		(struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX, SPATE_LAT_MAX };
}

/* Every operator on every edge value, one constraint per sub, against
 * every edge value and an event without the attribute. */
static void test_edges(void)
{
	static const double vals[] = { REIN_LO,
				       REIN_HI,
				       CELLW,
				       2 * CELLW,
				       -1,
				       2 * REIN_HI,
				       REIN_LO + CELLW / 2,
				       REIN_HI - CELLW / 2,
				       -0.0 };
	enum { NV = sizeof(vals) / sizeof(vals[0]) };
	double evals[NV * 3 + 4];
	uint32_t ne = 0;
	struct trio t;
	struct spate_raw_sub s;
	uint64_t id = 1;

	trio_init(&t, 0);
	for (uint32_t i = 0; i < NV; i++) {
		evals[ne++] = vals[i];
		evals[ne++] = nextafter(vals[i], -INFINITY);
		evals[ne++] = nextafter(vals[i], INFINITY);
	}
	evals[ne++] = INFINITY;
	evals[ne++] = -INFINITY;
	evals[ne++] = NAN;
	evals[ne++] = 1e300;
	for (uint32_t i = 0; i < ne; i++)
		for (uint8_t op = 1; op <= SPATE_OP_MAX; op++) {
			whole_world(&s, id++);
			s.n_cons = 1;
			s.cons[0] = (struct spate_raw_constraint){ str_of("a0"), op, evals[i] };
			trio_add(&t, &s);
			/* the same on a second attribute, and a pair on both */
			whole_world(&s, id++);
			s.n_cons = 2;
			s.cons[0] = (struct spate_raw_constraint){ str_of("a1"), op, evals[i] };
			s.cons[1] = (struct spate_raw_constraint){ str_of("a0"), SPATE_OP_GE,
								   evals[(i * 7) % ne] };
			trio_add(&t, &s);
		}
	/* a sub with only !=, and one with no constraint at all */
	whole_world(&s, id++);
	s.n_cons = 1;
	s.cons[0] = (struct spate_raw_constraint){ str_of("a0"), SPATE_OP_NE, REIN_LO };
	trio_add(&t, &s);
	whole_world(&s, id++);
	trio_add(&t, &s);

	struct spate_raw_event e;
	uint64_t before = n_matches;
	for (uint32_t i = 0; i < ne; i++)
		for (uint32_t k = 0; k < ne + 1; k++) {
			memset(&e, 0, sizeof(e));
			e.id = i * 1000 + k;
			e.attr[e.n_attr++] = (struct spate_raw_attr){ str_of("a0"), evals[i] };
			if (k < ne)
				e.attr[e.n_attr++] =
					(struct spate_raw_attr){ str_of("a1"), evals[k] };
			trio_event(&t, &e, "edges");
		}
	memset(&e, 0, sizeof(e));
	e.id = 999999; /* no attribute at all: only the unconstrained sub */
	trio_event(&t, &e, "edges-none");
	CHECK_EQ_INT(t.mv[1].n, 1);
	CHECK(n_matches - before > 1000);
	trio_fini(&t);
}

/* An attribute that holds one interval, then two, then one again: the
 * engines must mark on it at every count (the candidate counts say so
 * even where confirmation would hide a missed mark). */
static void test_single_interval(void)
{
	struct trio t;
	struct spate_raw_sub s;
	struct spate_raw_event e;

	trio_init(&t, 0);
	whole_world(&s, 1);
	s.n_cons = 1;
	s.cons[0] = (struct spate_raw_constraint){ str_of("a11"), SPATE_OP_GE, 10 };
	trio_add(&t, &s);
	whole_world(&s, 2);
	s.n_cons = 1;
	s.cons[0] = (struct spate_raw_constraint){ str_of("a11"), SPATE_OP_LT, 3 };
	for (int round = 0; round < 3; round++) {
		if (round == 1)
			trio_add(&t, &s);
		if (round == 2)
			trio_del(&t, 2);
		/* one attribute in use (the matcher's first: id 0), 1 or 2 subs */
		for (int i = 1; i < N_ENG; i++)
			if (t.on[i] && strcmp(engine_names[i], "ivx") != 0) {
				CHECK_EQ_INT(engine_stat(t.m[i], "attrs"), 1);
				CHECK_EQ_INT(engine_stat(t.m[i], "subs"), round == 1 ? 2 : 1);
			}
		for (int v = 0; v < 4; v++) {
			memset(&e, 0, sizeof(e));
			e.id = (uint64_t)(round * 10 + v);
			if (v < 3) /* 5: fails both; 20: passes the first; 1: the second */
				e.attr[e.n_attr++] =
					(struct spate_raw_attr){ str_of("a11"), v == 0   ? 5.0
										: v == 1 ? 20.0
											 : 1.0 };
			trio_event(&t, &e, "single");
		}
	}
	trio_fini(&t);
}

/* ivx made without parameters: the default groups, and its stats are
 * its index's. */
static void test_ivx_defaults(void)
{
	const struct spate_engine_ops *ops = spate_engine_find("ivx");
	struct spate_engine *e = ops->create(NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(e != NULL);
	ops->stats(e, f);
	fclose(f);
	CHECK(strstr(buf, "{\"subs\":0,\"slots\":0,\"attrs\":0,\"groups\":16,") == buf);
	free(buf);
	ops->destroy(e);
}

/* A constraint value: inside the declared domain when there is one. */
static double cons_value(double v)
{
	if (!with_schema)
		return v;
	if (isnan(v) || v < REIN_LO)
		return REIN_LO;
	return v > REIN_HI ? REIN_HI : v;
}

static void gen_sub(struct spate_raw_sub *s, uint64_t id, bool heavy)
{
	whole_world(s, id);
	if (check_below(8) == 0) {
		int32_t x = (int32_t)check_below(3) * SPATE_COORD_SCALE;
		s->rect = (struct spate_rect){ x, 0, x + SPATE_COORD_SCALE, SPATE_COORD_SCALE };
	}
	if (check_below(8) == 0)
		s->kw[s->n_kw++] = str_of(vocab[check_below(3)]);
	uint32_t nc = heavy ? 3 + check_below(14) : check_below(4);
	while (s->n_cons < nc) {
		const char *a = cur_names[check_below(cur_nn)];
		uint32_t r = check_below(10);
		if (r < 5 && s->n_cons + 2 <= nc) { /* an interval */
			double lo = gen_value(), w = (REIN_HI - REIN_LO) * unit() * 0.6;
			if (check_below(3) == 0)
				w = CELLW * check_below(3);
			s->cons[s->n_cons++] = (struct spate_raw_constraint){
				str_of(a), (uint8_t)(check_below(2) ? SPATE_OP_GE : SPATE_OP_GT),
				cons_value(lo)
			};
			s->cons[s->n_cons++] = (struct spate_raw_constraint){
				str_of(a), (uint8_t)(check_below(2) ? SPATE_OP_LE : SPATE_OP_LT),
				cons_value(lo + w)
			};
		} else {
			s->cons[s->n_cons++] = (struct spate_raw_constraint){
				str_of(a), (uint8_t)(check_below(SPATE_OP_MAX) + 1),
				cons_value(gen_value())
			};
		}
	}
}

static void gen_event(struct spate_raw_event *e, uint64_t id)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->lon = (int32_t)check_below(3) * SPATE_COORD_SCALE;
	e->lat = (int32_t)check_below(2) * SPATE_COORD_SCALE;
	if (check_below(4) == 0)
		e->kw[e->n_kw++] = str_of(vocab[check_below(3)]);
	bool skip_some = check_below(3) == 0;
	for (uint32_t i = 0; i < cur_nn && e->n_attr < SPATE_ATTR_MAX_HARD; i++)
		if ((!skip_some || check_below(4) != 0) &&
		    (cur_nn <= SPATE_ATTR_MAX_HARD || check_below(cur_nn) < 30))
			e->attr[e->n_attr++] =
				(struct spate_raw_attr){ str_of(cur_names[i]), gen_value() };
}

/* n_subs subs (heavy: 3..16 constraints), then events interleaved with
 * deletes and re-adds so that slots are freed and reused. */
static void test_random(uint64_t seed, uint32_t n_subs, bool heavy, uint32_t n_ev)
{
	struct trio t;
	struct spate_raw_sub *live = calloc(n_subs, sizeof(*live));
	struct spate_raw_event e;
	uint64_t id = 1;

	check_rng = seed * 0x9e3779b97f4a7c15ull + 7;
	trio_init(&t, n_subs);
	for (uint32_t i = 0; i < n_subs; i++) {
		gen_sub(&live[i], id++, heavy ? check_below(5) != 0 : false);
		trio_add(&t, &live[i]);
	}
	for (uint32_t k = 0; k < n_ev; k++) {
		for (uint32_t d = check_below(n_subs / 50 + 2); d > 0; d--) {
			uint32_t i = check_below(n_subs);
			trio_del(&t, live[i].id);
			gen_sub(&live[i], id++, heavy ? check_below(5) != 0 : false);
			trio_add(&t, &live[i]);
		}
		if (k % 16 == 0) { /* shrink and grow back: many free slots */
			uint32_t from = check_below(n_subs / 2);
			for (uint32_t i = from; i < from + n_subs / 8; i++)
				trio_del(&t, live[i].id);
			gen_event(&e, k);
			trio_event(&t, &e, "random-shrunk");
			for (uint32_t i = from; i < from + n_subs / 8; i++) {
				gen_sub(&live[i], id++, heavy ? check_below(5) != 0 : false);
				trio_add(&t, &live[i]);
			}
		}
		gen_event(&e, k);
		trio_event(&t, &e, "random");
	}
	trio_fini(&t);
	free(live);
}

/* The sorted buckets (rein_bucket.h) against a sorted array: random
 * inserts and removes with many equal keys (so the tie decides), the
 * structure checked, every entry marked by mark_all and exactly the prefix
 * below a random (key, tie) by mark_below; removes of absent entries
 * refused. Growth past one block, splits, merges and emptying included. */
struct ref_ent {
	double k;
	uint32_t t;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref_ent *x = a, *y = b;

	if (rb_before(x->k, x->t, y->k, y->t))
		return -1;
	return rb_before(y->k, y->t, x->k, x->t);
}

static double bucket_key(void)
{
	return check_below(4) ? (double)check_below(40) - 20 : unit() * 100 - 50;
}

static void check_marks(const struct rein_bucket_ops *bk, const void *b, const struct ref_ent *ref,
			uint32_t n, uint64_t *mark, uint32_t words)
{
	memset(mark, 0, words * sizeof(*mark));
	bk->mark_all(b, mark);
	uint32_t set = 0;
	for (uint32_t w = 0; w < words; w++)
		set += (uint32_t)__builtin_popcountll(mark[w]);
	bool all = set == n;
	for (uint32_t i = 0; i < n; i++)
		all &= (mark[(ref[i].t & RB_TIE_SLOT) >> 6] >> (ref[i].t & 63)) & 1;
	CHECK(all);
	double qk = bucket_key();
	uint32_t qt = check_below(3) == 0
			      ? RB_TIE_LAX
			      : (uint32_t)check_below(1u << 31) | (check_below(2) << 31);
	memset(mark, 0, words * sizeof(*mark));
	bk->mark_below(b, mark, qk, qt);
	bool prefix = true;
	for (uint32_t i = 0; i < n; i++) {
		bool want = rb_before(ref[i].k, ref[i].t, qk, qt);
		prefix &= ((mark[(ref[i].t & RB_TIE_SLOT) >> 6] >> (ref[i].t & 63)) & 1) == want;
	}
	set = 0;
	for (uint32_t w = 0; w < words; w++)
		set += (uint32_t)__builtin_popcountll(mark[w]);
	uint32_t below = 0;
	while (below < n && rb_before(ref[below].k, ref[below].t, qk, qt))
		below++;
	CHECK(prefix && set == below);
}

static void test_buckets(const struct rein_bucket_ops *bk)
{
	enum { MAXN = 6000, WORDS = MAXN / 64 + 1 };
	void *b = calloc(1, bk->size);
	struct ref_ent *ref = calloc(MAXN, sizeof(*ref));
	uint64_t *mark = calloc(WORDS, sizeof(*mark)), rng = 7;
	bool *used = calloc(MAXN, sizeof(*used));
	uint32_t n = 0;
	bool valid = true;

	check_rng = 4242;
	for (uint32_t round = 0; round < 4; round++) {
		/* grow to a target, churn, shrink to (near) empty */
		uint32_t target = round == 0 ? 3 : round == 1 ? 70 : MAXN - 1;
		for (uint32_t op = 0; op < 3 * target + 200; op++) {
			bool grow = op < target ? true : op < 2 * target ? check_below(2) : false;
			if (grow && n < MAXN - 1) {
				uint32_t slot;
				do
					slot = check_below(MAXN);
				while (used[slot]);
				used[slot] = true;
				struct ref_ent x = { bucket_key(), rb_tie(slot, check_below(2)) };
				CHECK_EQ_INT(bk->insert(b, x.k, x.t, &rng), 0);
				uint32_t at = n;
				while (at > 0 && ref_cmp(&ref[at - 1], &x) > 0)
					at--;
				memmove(ref + at + 1, ref + at, (n - at) * sizeof(*ref));
				ref[at] = x;
				n++;
			} else if (n > 0) {
				uint32_t i = check_below(n);
				/* an absent twin first: same key, other strictness */
				CHECK(!bk->remove(b, ref[i].k, ref[i].t ^ RB_TIE_LAX));
				CHECK(bk->remove(b, ref[i].k, ref[i].t));
				CHECK(!bk->remove(b, ref[i].k, ref[i].t));
				used[ref[i].t & RB_TIE_SLOT] = false;
				memmove(ref + i, ref + i + 1, (n - i - 1) * sizeof(*ref));
				n--;
			}
			if (n < 200 || op % 97 == 0) {
				valid &= bk->valid(b) && bk->count(b) == n;
				check_marks(bk, b, ref, n, mark, WORDS);
			}
		}
	}
	CHECK(valid);
	bk->clear(b);
	CHECK_EQ_INT(bk->count(b), 0);
	free(b);
	free(ref);
	free(mark);
	free(used);
}

/* A declared attribute refuses constraint values outside its domain (and
 * only those); out-of-domain event values still match exactly. */
static void test_domain(void)
{
	for (int i = 1; i < N_ENG; i++) {
		struct spate_matcher_conf conf;
		char why[128];
		spate_matcher_conf_default(&conf);
		conf.engine = engine_names[i];
		CHECK_EQ_INT(spate_schema_add(&conf.params.schema, "price", 0, 100, 10, why,
					      sizeof(why)),
			     0);
		CHECK(spate_schema_add(&conf.params.schema, "price", 0, 1, 10, why, sizeof(why)) !=
		      0);
		CHECK(spate_schema_add(&conf.params.schema, "bad name", 0, 1, 10, why,
				       sizeof(why)) != 0);
		CHECK(spate_schema_add(&conf.params.schema, "x", 1, 1, 10, why, sizeof(why)) != 0);
		CHECK(spate_schema_add(&conf.params.schema, "x", 0, 1, 0, why, sizeof(why)) != 0);
		CHECK(spate_schema_add(&conf.params.schema, "x", 0, INFINITY, 1, why,
				       sizeof(why)) != 0);
		struct spate_matcher *m = spate_matcher_create(&conf);
		struct spate_raw_sub s;
		struct spate_raw_event e;
		struct spate_matchvec mv = { 0 };
		static const struct {
			uint8_t op;
			double v;
			int want;
		} subs[] = {
			{ SPATE_OP_GE, -1, -SPATE_E_OUT_OF_DOMAIN },
			{ SPATE_OP_LE, 100.000000001, -SPATE_E_OUT_OF_DOMAIN },
			{ SPATE_OP_NE, 1e9, -SPATE_E_OUT_OF_DOMAIN },
			{ SPATE_OP_GE, 50, 0 },  /* id 4 */
			{ SPATE_OP_LE, 100, 0 }, /* id 5 */
			{ SPATE_OP_EQ, 0, 0 },   /* id 6 */
		};
		for (uint32_t k = 0; k < sizeof(subs) / sizeof(subs[0]); k++) {
			whole_world(&s, k + 1);
			s.n_cons = 1;
			s.cons[0] = (struct spate_raw_constraint){ str_of("price"), subs[k].op,
								   subs[k].v };
			CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 0), subs[k].want);
		}
		whole_world(&s, 7); /* undeclared: not checked */
		s.n_cons = 1;
		s.cons[0] = (struct spate_raw_constraint){ str_of("zz"), SPATE_OP_GE, -5 };
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 0), 0);
		static const struct {
			double price;
			size_t n;
			uint64_t first;
		} evs[] = {
			{ 1e9, 1, 4 }, { 100, 2, 4 }, { -3, 1, 5 }, { 0, 2, 5 }, { -0.0, 2, 5 },
		};
		for (uint32_t k = 0; k < sizeof(evs) / sizeof(evs[0]); k++) {
			memset(&e, 0, sizeof(e));
			e.id = k;
			e.attr[e.n_attr++] =
				(struct spate_raw_attr){ str_of("price"), evs[k].price };
			CHECK_EQ_INT(spate_matcher_event(m, &e, &mv), 0);
			CHECK_EQ_INT(mv.n, evs[k].n);
			CHECK(mv.n > 0 && mv.v[0]->id == evs[k].first);
		}
		spate_matchvec_free(&mv);
		spate_matcher_destroy(m);
	}
}

/* drt's categories hand content-only subs (no keyword, wide rectangle,
 * numeric constraints) to an ivx index once they have 256: check a
 * category against spate_sub_matches() over live subs through that
 * switch, deletes, and a merge into another category. */
static void collect(const struct spate_sub *s, void *ctx)
{
	(*(uint32_t *)ctx)++;
	(void)s;
}

static void check_cat(struct drt_category *c, const struct spate_sub *subs, const bool *live,
		      uint32_t n, uint32_t n_ev)
{
	struct spate_matchvec mv = { 0 };
	struct spate_attr va[NN];
	uint32_t kw = 1;

	for (uint32_t k = 0; k < n_ev; k++) {
		uint16_t na = 0;
		for (uint32_t a = 0; a < NN; a++)
			if (check_below(5) != 0)
				va[na++] = (struct spate_attr){ a, gen_value() };
		struct spate_event ev = { .id = k,
					  .lon = (int32_t)check_below(3) * SPATE_COORD_SCALE,
					  .n_kw = 1,
					  .kw = &kw,
					  .n_attr = na,
					  .attr = va };
		mv.n = 0;
		CHECK_EQ_INT(drt_category_match(c, &ev, &mv), 0);
		uint32_t want = 0;
		for (uint32_t i = 0; i < n; i++)
			want += live[i] && spate_sub_matches(&subs[i], &ev);
		bool dup = false;
		for (size_t i = 0; i < mv.n; i++) {
			dup |= !live[mv.v[i]->id - 1] || !spate_sub_matches(mv.v[i], &ev);
			for (size_t j = 0; j < i; j++)
				dup |= mv.v[i] == mv.v[j];
		}
		CHECK(!dup);
		CHECK_EQ_INT(mv.n, want);
		n_matches += want;
	}
	spate_matchvec_free(&mv);
}

static void test_drt_ivx(void)
{
	enum { N = 1200 };
	static struct spate_sub subs[N];
	static struct spate_constraint cons[N][4];
	static bool live[N];
	static const uint32_t kw[] = { 1 };
	struct spate_schema sc;
	struct drt_category *c = drt_category_create(2), *d = drt_category_create(2);

	spate_schema_default(&sc);
	drt_category_set_schema(c, &sc);
	drt_category_set_schema(d, &sc);
	check_rng = 4242;
	for (uint32_t i = 0; i < N; i++) {
		uint16_t nc = (uint16_t)check_below(5);
		for (uint16_t k = 0; k < nc; k++)
			cons[i][k] =
				(struct spate_constraint){ (uint32_t)k * 3 + check_below(3),
							   (uint8_t)(check_below(SPATE_OP_MAX) + 1),
							   gen_value() };
		subs[i] = (struct spate_sub){ .id = i + 1, .n_cons = nc, .cons = cons[i] };
		subs[i].rect = (struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX,
						    SPATE_LAT_MAX };
		if (check_below(6) == 0) /* a small rectangle: not content-only */
			subs[i].rect =
				(struct spate_rect){ 0, 0, SPATE_COORD_SCALE, SPATE_COORD_SCALE };
		if (check_below(6) == 0) { /* a keyword: not content-only */
			subs[i].n_kw = 1;
			subs[i].kw = kw;
		}
		struct drt_category *to = i < N / 2 ? c : d;
		CHECK_EQ_INT(drt_category_add(to, &subs[i]), 0);
		live[i] = true;
		if (i % 100 == 99 && i < N / 2) /* before, across and after the switch */
			check_cat(c, subs, live, i + 1, 20);
	}
	/* c holds the first half only: check it alone before the merge */
	for (uint32_t i = N / 2; i < N; i++)
		live[i] = false;
	check_cat(c, subs, live, N, 40);
	for (uint32_t i = 0; i < N / 2; i += 3) {
		CHECK(drt_category_del(c, &subs[i]));
		live[i] = false;
	}
	CHECK(!drt_category_del(c, &subs[0]));
	check_cat(c, subs, live, N, 40);
	CHECK_EQ_INT(drt_category_merge(d, c), 0);
	CHECK_EQ_INT(drt_category_size(c), 0);
	for (uint32_t i = N / 2; i < N; i++)
		live[i] = true;
	uint32_t n = 0;
	drt_category_foreach(d, collect, &n);
	CHECK_EQ_INT(n, drt_category_size(d));
	CHECK_EQ_INT(n, N - (N / 2 + 2) / 3);
	check_cat(d, subs, live, N, 60);
	for (uint32_t i = 0; i < N; i++)
		if (live[i]) {
			CHECK(drt_category_del(d, &subs[i]));
			live[i] = false;
		}
	CHECK_EQ_INT(drt_category_size(d), 0);
	drt_category_destroy(c);
	drt_category_destroy(d);
}

static void init_many_names(void)
{
	for (uint32_t i = 0; i < 100; i++) {
		snprintf(many[i], sizeof(many[i]), "m%u", i);
		many_names[i] = many[i];
	}
}

int main(int argc, char **argv)
{
	/* "drt_ivx": only the category part (tools/mutation-test.py runs it
	 * for lib/engines/drt/drt_category.c; the whole test takes a minute). */
	if (argc > 1 && strcmp(argv[1], "drt_ivx") == 0) {
		test_drt_ivx();
		return check_summary("rein drt_ivx");
	}
	/* "quick": the small workloads only (tools/mutation-test.py runs it
	 * first for the REIN and ivx files: most mutants die in seconds). */
	bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	test_buckets(&rein_bucket_sortlist);
	test_buckets(&rein_bucket_skiplist);
	test_drt_ivx();
	test_domain();
	test_edges();
	test_single_interval();
	test_ivx_defaults();
	for (uint64_t seed = 1; seed <= 6; seed++)
		test_random(seed, 300, false, 400);
	if (quick) {
		init_many_names();
		cur_names = many_names;
		cur_nn = 100;
		test_random(31, 400, true, 300);
		cur_names = names;
		cur_nn = NN;
		with_schema = true;
		test_random(21, 300, true, 400);
		test_random(22, 300, false, 400);
		with_schema = false;
		return check_summary("rein quick");
	}
	uint64_t before = n_matches;
	test_random(11, 20000, false, 80);
	test_random(12, 24000, true, 50);
	/* Past MPREIN_PAR_MIN slots mprein marks with its thread pool. */
	test_random(13, 34000, true, 30);
	init_many_names();
	cur_names = many_names;
	cur_nn = 100;
	for (uint64_t seed = 31; seed <= 33; seed++)
		test_random(seed, 400, true, 300);
	cur_names = names;
	cur_nn = NN;
	with_schema = true;
	for (uint64_t seed = 21; seed <= 26; seed++)
		test_random(seed, 300, seed & 1, 400);
	test_random(27, 20000, true, 60);
	with_schema = false;
	struct spate_matcher_conf conf;
	spate_matcher_conf_default(&conf);
	conf.engine = "mprein";
	struct spate_matcher *m = spate_matcher_create(&conf);
	struct spate_raw_sub s;
	struct spate_raw_event e;
	struct spate_matchvec mv = { 0 };
	for (uint64_t id = 1; id <= 40000; id++) {
		gen_sub(&s, id, true);
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 0), 0);
	}
	gen_event(&e, 1);
	CHECK_EQ_INT(spate_matcher_event(m, &e, &mv), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	spate_matcher_engine_stats(m, f);
	fclose(f);
	CHECK(strstr(buf, "\"parallel_events\":1") != NULL);
	free(buf);
	spate_matchvec_free(&mv);
	spate_matcher_destroy(m);
	printf("rein: %llu events, %llu matches (%llu in the big runs)\n",
	       (unsigned long long)n_events, (unsigned long long)n_matches,
	       (unsigned long long)(n_matches - before));
	CHECK(n_matches - before > 1000);
	return check_summary("rein");
}
