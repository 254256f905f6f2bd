/* test_ivx.c - Spate's interval index (lib/engines/ivx) by exact
 * candidate counts (issue 24: mutants of ivx_index.c that test_rein's
 * brute-force comparisons cannot see, because confirmation hides a slot
 * marked too little):
 *   - every event's candidates are exactly the live subscriptions whose
 *     every interval reaches the event value's group (the method of
 *     ivx_index.h), read from the stats after each event; the matches are
 *     brute force's, the attributes in use those of the live subs;
 *     groups 1, 3, 16, 64 (the masked write), 65 and 100 (the per-group
 *     write), declared and default domains, more than one
 *     block of slots, slots reused by subscriptions with other attributes
 *     (ids around 64, where the per-slot attribute mask ends);
 *   - an index whose subscriptions have no interval (only != and NaN
 *     constraints) matches without error, every live sub a candidate;
 *   - the bytes counted include every attribute's bit sets;
 *   - an add that runs out of memory at any allocation: NO_MEMORY, the
 *     index as it was (same candidates, same matches), and destroy frees
 *     every block once; a create that does: NULL, every block given back
 *     (allocations tracked and failed on demand: alloc_track.h);
 *   - the ivx engine (engine_ivx.c): create and destroy give back every
 *     block, with and without parameters, and when the index refuses
 *     its groups. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_track.h"
#include "check.h"
#include "engines/ivx/ivx_index.h"
#include "engines/rein/rein_core.h"
#include "matcher/spate_engine.h"
#include "proto/spate_err.h"

/* ------------------------------------------------------------ workload */
#define MAX_CONS 8
#define N_ATTRS 12
/* attribute ids: the first four declared in the schema below, the rest
 * around 64, where the per-slot attribute mask ends */
static const uint32_t attr_ids[N_ATTRS] = { 0, 1, 2, 3, 5, 9, 62, 63, 64, 65, 70, 200 };

struct tsub {
	struct spate_sub s;
	struct spate_constraint cons[MAX_CONS];
	bool live;
	uint32_t visited; /* by ivx_foreach */
};

struct tev {
	struct spate_event e;
	struct spate_attr attr[N_ATTRS];
};

static const struct spate_rect world = { INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX };

static void schema_make(struct spate_schema *sc)
{
	char why[128];

	spate_schema_default(sc);
	CHECK_EQ_INT(spate_schema_add(sc, "a0", 0, 100, 10, why, sizeof(why)), 0);
	CHECK_EQ_INT(spate_schema_add(sc, "a1", -50, 50, 7, why, sizeof(why)), 0);
	CHECK_EQ_INT(spate_schema_add(sc, "a2", 0, 1, 3, why, sizeof(why)), 0);
	CHECK_EQ_INT(spate_schema_add(sc, "a3", 1000, 2000, 100, why, sizeof(why)), 0);
}

/* A value for attribute a: mostly inside its domain, now and then at an
 * edge or outside it (events only: declared constraints must be inside). */
static double gen_value(const struct spate_schema *sc, uint32_t a, bool outside_ok)
{
	const struct spate_attr_domain *d = spate_schema_domain(sc, a);
	uint32_t r = check_below(20);

	if (r == 0)
		return d->min;
	if (r == 1)
		return d->max;
	if (outside_ok && r == 2)
		return d->min - 1 - check_below(100);
	if (outside_ok && r == 3)
		return d->max + 1 + check_below(100);
	return d->min + (d->max - d->min) * (double)check_below(100001) / 100000.0;
}

static void gen_sub(struct tsub *t, uint64_t id, const struct spate_schema *sc)
{
	uint32_t n = check_below(MAX_CONS + 1) / 2; /* 0..4, mostly few */
	uint32_t picked[N_ATTRS] = { 0 };

	memset(t, 0, sizeof(*t));
	t->s.id = id;
	t->s.rect = world;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = check_below(N_ATTRS);
		/* up to two constraints per attribute (an interval's two ends) */
		if (picked[a] == 2)
			continue;
		picked[a]++;
		struct spate_constraint *c = &t->cons[t->s.n_cons++];
		c->attr = attr_ids[a];
		c->op = (uint8_t)(SPATE_OP_GE + check_below(SPATE_OP_NE));
		c->value = check_below(40) == 0 ? NAN : gen_value(sc, c->attr, false);
	}
	/* sorted by attribute */
	for (uint16_t i = 1; i < t->s.n_cons; i++)
		for (uint16_t j = i; j > 0 && t->cons[j - 1].attr > t->cons[j].attr; j--) {
			struct spate_constraint c = t->cons[j];
			t->cons[j] = t->cons[j - 1];
			t->cons[j - 1] = c;
		}
	t->s.cons = t->cons;
}

static void gen_event(struct tev *t, uint64_t id, const struct spate_schema *sc)
{
	memset(t, 0, sizeof(*t));
	t->e.id = id;
	for (uint32_t a = 0; a < N_ATTRS; a++) {
		if (check_below(4) == 0)
			continue;
		struct spate_attr *v = &t->attr[t->e.n_attr++];
		v->attr = attr_ids[a];
		v->value = check_below(30) == 0 ? NAN : gen_value(sc, v->attr, true);
	}
	t->e.attr = t->attr;
}

/* ---------------------------------------------------------- the oracle */
/* The value event ev carries for attribute a, or NAN. */
static double ev_value(const struct spate_event *ev, uint32_t a)
{
	for (uint16_t i = 0; i < ev->n_attr; i++)
		if (ev->attr[i].attr == a)
			return ev->attr[i].value;
	return NAN;
}

/* Is s a candidate of ev in an index of `groups` groups: does every
 * interval of s reach the group of the event's value on its attribute
 * (a missing or NaN value reaches none)? */
static bool is_candidate(const struct spate_sub *s, const struct spate_event *ev,
			 const struct spate_schema *sc, uint32_t groups)
{
	struct rein_iv iv[MAX_CONS];
	uint32_t n = rein_intervals(s, iv);

	for (uint32_t i = 0; i < n; i++) {
		struct spate_attr_domain d = *spate_schema_domain(sc, iv[i].attr);
		struct rein_dom dom;
		d.cells = groups;
		rein_dom_init(&dom, &d);
		double v = ev_value(ev, iv[i].attr);
		if (isnan(v))
			return false;
		uint32_t g = rein_cell(&dom, v);
		if (g < rein_cell(&dom, iv[i].lo) || g > rein_cell(&dom, iv[i].hi))
			return false;
	}
	return true;
}

/* The index's own figures, as its stats print them. */
static void stats_of(const struct ivx_index *x, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	ivx_stats(x, f);
	fclose(f);
}

/* What the stats must say after `events` events with `cands` candidates
 * in all (the same format as ivx_stats: compared as text, so with at most
 * 100 events a single candidate more or less changes it). */
static void check_stats(const struct ivx_index *x, uint64_t events, uint64_t cands, size_t subs,
			uint32_t attrs, const char *what)
{
	char got[512], want[64], want_attrs[32];

	stats_of(x, got, sizeof(got));
	snprintf(want, sizeof(want), "\"events\":%llu,\"candidates_per_event\":%.2f",
		 (unsigned long long)events, events ? (double)cands / (double)events : 0.0);
	snprintf(want_attrs, sizeof(want_attrs), ",\"attrs\":%u,", attrs);
	const char *p = strstr(got, "\"events\":");
	bool same = p != NULL && strcmp(p, want) == 0 && strstr(got, want_attrs) != NULL;
	CHECK(same);
	if (!same)
		fprintf(stderr, "  %s: stats %s, expected %s and %s\n", what, got, want,
			want_attrs);
	CHECK_EQ_INT(ivx_count(x), subs);
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = (*(const struct spate_sub *const *)a)->id;
	uint64_t y = (*(const struct spate_sub *const *)b)->id;
	return x < y ? -1 : x > y;
}

struct run {
	struct ivx_index *x;
	struct spate_schema sc;
	uint32_t groups;
	struct tsub *subs;
	uint32_t n_subs;
	uint64_t events, cands;
};

/* One event through the index: the matches brute force's, the
 * candidates the oracle's. */
static void run_event(struct run *r, const struct spate_event *ev, const char *what)
{
	struct spate_matchvec mv = { 0 };
	const struct spate_sub **want = malloc((r->n_subs + 1) * sizeof(*want));
	uint32_t n_want = 0, n_cand = 0, n_attrs = 0;
	size_t live_subs = 0;
	static bool seen[256];

	for (uint32_t i = 0; i < r->n_subs; i++) {
		if (!r->subs[i].live)
			continue;
		live_subs++;
		struct rein_iv iv[MAX_CONS];
		for (uint32_t k = rein_intervals(&r->subs[i].s, iv); k-- > 0;)
			seen[iv[k].attr] = true;
		n_cand += is_candidate(&r->subs[i].s, ev, &r->sc, r->groups);
		if (spate_sub_matches(&r->subs[i].s, ev))
			want[n_want++] = &r->subs[i].s;
	}
	for (uint32_t a = 0; a < 256; a++) {
		n_attrs += seen[a];
		seen[a] = false;
	}
	CHECK_EQ_INT(ivx_match(r->x, ev, &mv), 0);
	r->events++;
	r->cands += n_cand;
	CHECK_EQ_INT(mv.n, n_want);
	if (mv.n == n_want) {
		if (mv.n > 1) /* qsort's array may not be NULL */
			qsort(mv.v, mv.n, sizeof(*mv.v), id_cmp);
		bool same = true;
		for (uint32_t i = 0; i < n_want; i++)
			same &= mv.v[i] == want[i];
		CHECK(same);
	}
	check_stats(r->x, r->events, r->cands, live_subs, n_attrs, what);
	spate_matchvec_free(&mv);
	free(want);
}

static void run_init(struct run *r, uint32_t groups, bool declared, uint32_t n_subs)
{
	memset(r, 0, sizeof(*r));
	if (declared)
		schema_make(&r->sc);
	else
		spate_schema_default(&r->sc);
	r->groups = groups;
	r->x = ivx_create(declared ? &r->sc : NULL, groups);
	CHECK(r->x != NULL);
	r->subs = calloc(n_subs, sizeof(*r->subs));
	r->n_subs = n_subs;
}

static void run_fini(struct run *r)
{
	ivx_destroy(r->x);
	free(r->subs);
}

/* Subs 1..n of r: the whole world, n_cons constraints each (set by
 * the caller), no keyword. */
static void plain_subs(struct run *r, uint16_t n_cons)
{
	for (uint32_t i = 0; i < r->n_subs; i++) {
		r->subs[i].s.id = i + 1;
		r->subs[i].s.rect = world;
		r->subs[i].s.n_cons = n_cons;
		r->subs[i].s.cons = r->subs[i].cons;
	}
}

static void add(struct run *r, uint32_t i)
{
	CHECK_EQ_INT(ivx_add(r->x, &r->subs[i].s), 0);
	r->subs[i].live = true;
}

static void del(struct run *r, uint32_t i)
{
	CHECK(ivx_del(r->x, &r->subs[i].s));
	r->subs[i].live = false;
	CHECK(!ivx_del(r->x, &r->subs[i].s)); /* a second time: not held */
}

struct visits {
	struct run *r;
	uint32_t n;
	bool ok;
};

/* ivx_foreach's callback: the sub is one of the run's (its id 1000 + i). */
static void visit(const struct spate_sub *s, void *ctx)
{
	struct visits *v = ctx;
	uint64_t i = s->id - 1000;

	if (s->id < 1000 || i >= v->r->n_subs || &v->r->subs[i].s != s) {
		v->ok = false;
		return;
	}
	v->r->subs[i].visited++;
	v->n++;
}

/* Random workload: n subs added, a third deleted and replaced by new
 * ones in the freed slots, events between the rounds (at most 100 per
 * index: see check_stats). */
static void test_random(uint32_t groups, bool declared, uint32_t n, uint64_t seed)
{
	struct run r;
	struct tev ev;
	char what[96];

	check_rng = seed;
	run_init(&r, groups, declared, n + n / 3);
	snprintf(what, sizeof(what), "random groups %u %s n %u", groups,
		 declared ? "declared" : "default", n);
	for (uint32_t i = 0; i < r.n_subs; i++)
		gen_sub(&r.subs[i], 1000 + i, &r.sc);
	for (uint32_t i = 0; i < n; i++)
		add(&r, i);
	for (uint32_t k = 0; k < 30; k++) {
		gen_event(&ev, k, &r.sc);
		run_event(&r, &ev.e, what);
	}
	for (uint32_t i = 0; i < n; i += 3)
		del(&r, i);
	for (uint32_t k = 0; k < 20; k++) {
		gen_event(&ev, 100 + k, &r.sc);
		run_event(&r, &ev.e, what);
	}
	for (uint32_t i = n; i < r.n_subs; i++)
		add(&r, i);
	for (uint32_t k = 0; k < 40; k++) {
		gen_event(&ev, 200 + k, &r.sc);
		run_event(&r, &ev.e, what);
	}
	/* foreach: every live sub once, no other */
	struct visits v = { &r, 0, true };
	for (uint32_t i = 0; i < r.n_subs; i++)
		r.subs[i].visited = 0;
	ivx_foreach(r.x, visit, &v);
	for (uint32_t i = 0; i < r.n_subs; i++)
		v.ok &= r.subs[i].visited == (r.subs[i].live ? 1 : 0);
	CHECK(v.ok);
	run_fini(&r);
}

/* A slot given to a sub after a sub with an interval on the same
 * attribute left it: the old sub's failing groups must not stay set
 * (attribute 63, the last one the slot mask covers; 64, the first one a
 * delete clears at once; 5, an ordinary one). */
static void test_reuse(uint32_t attr)
{
	struct run r;
	struct tev ev = { 0 };

	run_init(&r, 16, false, 3);
	plain_subs(&r, 1);
	r.subs[0].cons[0] = (struct spate_constraint){ attr, SPATE_OP_LE, 1000 };   /* group 0 */
	r.subs[1].cons[0] = (struct spate_constraint){ attr, SPATE_OP_GE, 990000 }; /* group 15 */
	r.subs[2].cons[0] = (struct spate_constraint){ attr, SPATE_OP_GE, 0 };      /* all */
	ev.e.attr = ev.attr;
	ev.e.n_attr = 1;
	ev.attr[0] = (struct spate_attr){ attr, 999000 };
	add(&r, 0);
	run_event(&r, &ev.e, "reuse: first holder"); /* 0 candidates */
	del(&r, 0);
	add(&r, 1);                                   /* slot 0 again */
	run_event(&r, &ev.e, "reuse: second holder"); /* 1 candidate, 1 match */
	ev.attr[0].value = 10;
	run_event(&r, &ev.e, "reuse: second holder, low value"); /* none */
	del(&r, 1);
	add(&r, 2);
	run_event(&r, &ev.e, "reuse: third holder");
	ev.attr[0].value = 999000;
	run_event(&r, &ev.e, "reuse: third holder, high value");
	run_fini(&r);
}

/* A slot whose last holder had an interval on an attribute the next one
 * has none on: the old bits must be cleared, the new sub is a candidate
 * of every event. */
static void test_reuse_other_attr(void)
{
	struct run r;
	struct tev ev = { 0 };

	run_init(&r, 16, false, 2);
	plain_subs(&r, 1);
	r.subs[0].cons[0] = (struct spate_constraint){ 3, SPATE_OP_LE, 1000 };
	r.subs[1].cons[0] = (struct spate_constraint){ 7, SPATE_OP_GE, 0 };
	ev.e.attr = ev.attr;
	ev.e.n_attr = 2;
	ev.attr[0] = (struct spate_attr){ 3, 500000 };
	ev.attr[1] = (struct spate_attr){ 7, 5 };
	add(&r, 0);
	run_event(&r, &ev.e, "other attr: first holder");
	del(&r, 0);
	add(&r, 1);
	run_event(&r, &ev.e, "other attr: second holder");
	ev.attr[1].value = NAN;
	run_event(&r, &ev.e, "other attr: second holder, NaN");
	run_fini(&r);
}

/* Subs with no interval at all: nothing to plan, every live sub a
 * candidate, still exact. */
static void test_no_interval(void)
{
	struct run r;
	struct tev ev = { 0 };

	run_init(&r, 16, false, 3);
	check_stats(r.x, 0, 0, 0, 0, "a new index"); /* 0.00 candidates, not 1 */
	plain_subs(&r, 0);
	r.subs[1].s.n_cons = 1;
	r.subs[1].cons[0] = (struct spate_constraint){ 4, SPATE_OP_NE, 7 };
	r.subs[2].s.n_cons = 1;
	r.subs[2].cons[0] = (struct spate_constraint){ 4, SPATE_OP_LE, NAN };
	ev.e.attr = ev.attr;
	run_event(&r, &ev.e, "no interval, empty index");
	struct spate_constraint one = { 4, SPATE_OP_LE, 7 };
	struct spate_sub idx = { .id = 9, .n_cons = 1, .cons = &one };
	CHECK(ivx_indexable(&idx)); /* its first (and only) constraint */
	for (uint32_t i = 0; i < 3; i++) {
		CHECK(ivx_indexable(&r.subs[i].s) == false);
		add(&r, i);
	}
	run_event(&r, &ev.e, "no interval, no value");
	ev.e.n_attr = 1;
	ev.attr[0] = (struct spate_attr){ 4, 7 };
	run_event(&r, &ev.e, "no interval, value 7");
	ev.attr[0].value = 8;
	run_event(&r, &ev.e, "no interval, value 8");
	run_fini(&r);
}

/* A constraint on the attribute just past every indexed one (an != the
 * bit sets never cover): the confirmation reads it from the event, not
 * from its table of the event's values (which ends before it). */
static void test_attr_past_index(void)
{
	struct run r;
	struct tev ev = { 0 };

	run_init(&r, 16, false, 2);
	plain_subs(&r, 0);
	r.subs[0].s.n_cons = 1;
	r.subs[0].cons[0] = (struct spate_constraint){ 2, SPATE_OP_LE, 50 };
	r.subs[1].s.n_cons = 2;
	r.subs[1].cons[0] = (struct spate_constraint){ 2, SPATE_OP_LE, 50 };
	/* 8: the attribute table starts with 8 entries (rein_attr_get) */
	r.subs[1].cons[1] = (struct spate_constraint){ 8, SPATE_OP_NE, 7 };
	add(&r, 0);
	add(&r, 1);
	ev.e.attr = ev.attr;
	ev.e.n_attr = 2;
	ev.attr[0] = (struct spate_attr){ 2, 10 };
	ev.attr[1] = (struct spate_attr){ 8, 8 };
	run_event(&r, &ev.e, "an != past the index, holding");
	ev.attr[1].value = 7;
	run_event(&r, &ev.e, "an != past the index, failing");
	ev.e.n_attr = 1;
	run_event(&r, &ev.e, "an != past the index, no value");
	run_fini(&r);
}

/* ivx_bytes counts every attribute's bit sets: (groups + 1) lines of 64
 * words per block of 4096 slots, and its two counters per group. */
static void count_sub(const struct spate_sub *s, void *ctx)
{
	uint32_t *seen = ctx;
	if (s->id >= 1 && s->id <= 2)
		seen[s->id - 1]++;
}

static void test_bytes(void)
{
	struct run r;
	const uint32_t g = 16;

	run_init(&r, g, false, 2);
	plain_subs(&r, 1);
	r.subs[0].cons[0] = (struct spate_constraint){ 9, SPATE_OP_LE, 5 };
	r.subs[1].cons[0] = (struct spate_constraint){ 0, SPATE_OP_LE, 5 };
	size_t b0 = ivx_bytes(r.x);
	add(&r, 0); /* attribute 9: ids 0..8 stay without a record */
	size_t b1 = ivx_bytes(r.x);
	size_t per_attr = (size_t)(g + 1) * 64 * sizeof(uint64_t) + 2 * g * sizeof(uint64_t);
	CHECK(b1 >= b0 + per_attr);
	add(&r, 1); /* attribute 0 gets its record: the slots had room */
	size_t b2 = ivx_bytes(r.x);
	CHECK(b2 >= b1 + per_attr);
	CHECK(b2 <= b1 + per_attr + 256); /* and the record itself, no more */
	/* foreach visits each sub held once */
	uint32_t seen[2] = { 0, 0 };
	ivx_foreach(r.x, count_sub, seen);
	CHECK(seen[0] == 1 && seen[1] == 1);
	del(&r, 0);
	seen[0] = seen[1] = 0;
	ivx_foreach(r.x, count_sub, seen);
	CHECK(seen[0] == 0 && seen[1] == 1);
	run_fini(&r);
}

/* Out of memory at each allocation of an add (a sub with a new
 * attribute, into an index with blocks already): NO_MEMORY and nothing
 * changed, or success; destroy then frees every block exactly once. */
static void test_no_memory(void)
{
	struct tev ev = { 0 };
	bool failed_once = false;

	ev.e.attr = ev.attr;
	ev.e.n_attr = 2;
	ev.attr[0] = (struct spate_attr){ 0, 40 };
	ev.attr[1] = (struct spate_attr){ 63, 70 };
	for (long k = 1; k < 80; k++) {
		struct run r;
		long live0 = n_live, bad0 = bad_frees;
		run_init(&r, 8, true, 3);
		plain_subs(&r, 1);
		r.subs[0].cons[0] = (struct spate_constraint){ 0, SPATE_OP_LE, 50 };
		r.subs[1].cons[0] = (struct spate_constraint){ 63, SPATE_OP_GE, 60 };
		r.subs[2].cons[0] = (struct spate_constraint){ 64, SPATE_OP_GE, 60 };
		add(&r, 0);
		run_event(&r, &ev.e, "no memory: before");
		allocs = 0;
		fail_at = k / 2;
		int rc = ivx_add(r.x, &r.subs[1].s);
		fail_at = 0;
		if (rc == 0) {
			r.subs[1].live = true;
		} else {
			failed_once = true;
			CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
		}
		run_event(&r, &ev.e, "no memory: after the add");
		/* every allocation twice: destroyed right away, or after
		 * the add is tried again */
		if (k % 2 == 1 && rc != 0) {
			add(&r, 1);
			run_event(&r, &ev.e, "no memory: added again");
		}
		run_fini(&r);
		CHECK_EQ_INT(n_live, live0);
		CHECK_EQ_INT(bad_frees, bad0);
	}
	CHECK(failed_once);
}

/* Out of memory at each allocation of ivx_create: NULL, and every
 * block it took given back. */
static void test_create_no_memory(void)
{
	bool failed_once = false, made = false;

	for (long k = 1; k < 10; k++) {
		long live0 = n_live;
		allocs = 0;
		fail_at = k;
		struct ivx_index *x = ivx_create(NULL, 4);
		fail_at = 0;
		failed_once |= x == NULL;
		made |= x != NULL;
		ivx_destroy(x);
		CHECK_EQ_INT(n_live, live0);
	}
	CHECK(failed_once && made);
	CHECK_EQ_INT(bad_frees, 0);
}

/* The engine wrapper: everything it allocates comes back, with and
 * without parameters, no block of 0 bytes asked for. */
static void test_engine(void)
{
	const struct spate_engine_ops *ops = spate_engine_find("ivx");
	struct spate_engine_params p;
	long live0 = n_live, zero0 = zero_allocs;

	CHECK(ops != NULL);
	spate_engine_params_default(&p);
	p.ivx_groups = 5;
	for (int with = 0; with < 2; with++) {
		struct spate_engine *e = ops->create(with ? &p : NULL);
		struct spate_sub s = { .id = 1, .rect = world };
		struct spate_constraint c = { 0, SPATE_OP_LE, 5 };
		struct spate_attr a = { 0, 3 };
		struct spate_event ev = { .n_attr = 1, .attr = &a };
		struct spate_matchvec mv = { 0 };
		char buf[512];
		FILE *f;

		CHECK(e != NULL);
		s.n_cons = 1;
		s.cons = &c;
		CHECK_EQ_INT(ops->sub_add(e, &s), 0);
		CHECK_EQ_INT(ops->match(e, &ev, &mv), 0);
		CHECK_EQ_INT(mv.n, 1);
		ops->sub_del(e, &s);
		f = fmemopen(buf, sizeof(buf), "w");
		ops->stats(e, f);
		fclose(f);
		CHECK(strncmp(buf, "{\"subs\":0,", 10) == 0);
		CHECK(strstr(buf, with ? "\"groups\":5," : "\"groups\":16,") != NULL);
		CHECK(buf[strlen(buf) - 1] == '}');
		spate_matchvec_free(&mv);
		ops->destroy(e);
		CHECK_EQ_INT(n_live, live0);
	}
	ops->destroy(NULL);
	/* ivx_create refuses the groups: the engine's own block is freed */
	p.ivx_groups = IVX_GROUPS_MAX + 1;
	CHECK(ops->create(&p) == NULL);
	CHECK_EQ_INT(n_live, live0);
	CHECK_EQ_INT(zero_allocs, zero0);
	CHECK_EQ_INT(bad_frees, 0);
}

int main(void)
{
	/* the cheap and direct first (the mutation tool stops at the first
	 * failed check) */
	test_reuse(63);
	test_reuse(64);
	test_reuse(5);
	test_reuse_other_attr();
	test_no_interval();
	test_attr_past_index();
	test_bytes();
	test_engine();
	test_no_memory();
	test_create_no_memory();
	CHECK(ivx_create(NULL, IVX_GROUPS_MAX + 1) == NULL);
	static const uint32_t groups[] = { 1, 3, 16, 64, 65, 100 };
	for (uint32_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		test_random(groups[i], i % 2 == 0, 300, 7 + i);
		test_random(groups[i], i % 2 == 1, 300, 17 + i);
	}
	/* more than one block of 4096 slots */
	test_random(16, true, 9000, 99);
	test_random(65, false, 5000, 98);
	CHECK_EQ_INT(n_live, 0);
	CHECK_EQ_INT(bad_frees, 0);
	CHECK_EQ_INT(overruns, 0);    /* nothing written past a block */
	CHECK_EQ_INT(zero_allocs, 0); /* realloc(p, 0) would free p */
	return check_summary("ivx");
}
