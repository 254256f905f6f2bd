/* test_alloc.c - the matcher and every engine under tracked allocations
 * (issue 24: the destroy paths and the out-of-memory paths of
 * lib/matcher and the engines, which brute-force comparisons cannot see):
 *   - a matcher's whole life on each engine (subscriptions with new
 *     keywords and attributes, events, deletes remembered, destroy) gives
 *     back every block it took, none twice, no block of 0 bytes asked,
 *     no alignment that is not a power of two;
 *   - a subscription add that runs out of memory at any one allocation
 *     (the dictionaries growing included): NO_MEMORY exactly, the sub not
 *     held, the matches still those of brute force over the subs held
 *     (a sub given its slot matches every event), no block kept; the
 *     same add then succeeds;
 *   - an engine's create out of memory at any allocation: NULL, no block
 *     kept; an event that is: NO_MEMORY exactly (or its matches), the
 *     next event right;
 *   - 20,000 subs added and deleted one at a time: the memory the
 *     matcher holds stays what it was after the first 1,000;
 *   - the kd-tree's rebuilds (stats), the dictionary's unknown ids, two
 *     names with one hash that differ in one byte past the first 8, new
 *     tables' slots all empty (fresh blocks filled with slots that look
 *     taken) and strings at the ends of their 64 KiB blocks;
 *   - remember_deletes out of memory: NO_MEMORY exactly, the old memory
 *     of deletes kept.
 * Allocations are wrapped (alloc_track.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_track.h"
#include "check.h"
#include "matcher/spate_dict.h"
#include "matcher/spate_matcher.h"
#include "util/spate_hash.h"
#include "proto/spate_err.h"

static const char *const engines[] = { "brute",     "grid",   "kdtree", "rein",
				       "rein-list", "mprein", "ivx",    "drt" };
#define N_ENGINES (sizeof(engines) / sizeof(engines[0]))

static char words[400][12];
static char attrs[12][8];

/* Sub id: keywords from `first` on (new ones grow the dictionary), a
 * box, a constraint or two. */
static void gen_sub(struct spate_raw_sub *s, uint64_t id, uint32_t first, uint32_t n_kw)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	int32_t x = (int32_t)check_below(3000000) - 1500000,
		y = (int32_t)check_below(1500000) - 750000;
	s->rect = (struct spate_rect){ x, y, x + 400000, y + 300000 };
	s->n_kw = n_kw;
	for (uint32_t i = 0; i < n_kw; i++)
		s->kw[i] = spate_str_of(words[(first + i) % 400]);
	s->n_cons = check_below(3);
	for (uint32_t i = 0; i < s->n_cons; i++) {
		s->cons[i].name = spate_str_of(attrs[check_below(12)]);
		s->cons[i].op = (uint8_t)(SPATE_OP_GE + check_below(SPATE_OP_NE));
		s->cons[i].value = check_below(1000);
	}
}

static void gen_event(struct spate_raw_event *e, uint64_t id)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->lon = (int32_t)check_below(3000000) - 1500000;
	e->lat = (int32_t)check_below(1500000) - 750000;
	e->n_kw = 1 + check_below(3);
	for (uint32_t i = 0; i < e->n_kw; i++)
		e->kw[i] = spate_str_of(
			words[check_below(4) == 0 ? check_below(400) : check_below(8)]);
	e->n_attr = check_below(6);
	for (uint32_t i = 0; i < e->n_attr; i++) {
		e->attr[i].name = spate_str_of(attrs[(i * 2 + check_below(2)) % 12]);
		e->attr[i].value = check_below(1000);
	}
}

static struct spate_matcher *make(const char *engine)
{
	struct spate_matcher_conf conf;

	spate_matcher_conf_default(&conf);
	conf.engine = engine;
	struct spate_matcher *m = spate_matcher_create(&conf);
	CHECK(m != NULL);
	return m;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The ids m matches for e, sorted, into ids (room 4096); how many. */
static uint32_t match_ids(struct spate_matcher *m, const struct spate_raw_event *e, uint64_t *ids)
{
	struct spate_matchvec mv = { 0 };

	CHECK_EQ_INT(spate_matcher_event(m, e, &mv), 0);
	uint32_t n = mv.n < 4096 ? (uint32_t)mv.n : 4096;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = mv.v[i]->id;
	qsort(ids, n, sizeof(*ids), u64_cmp);
	spate_matchvec_free(&mv);
	return n;
}

/* m and brute ref match the same on a few events. */
static void same_matches(struct spate_matcher *m, struct spate_matcher *ref, const char *what)
{
	static uint64_t a[4096], b[4096];
	struct spate_raw_event e;

	for (uint64_t k = 0; k < 6; k++) {
		gen_event(&e, k);
		uint32_t na = match_ids(m, &e, a), nb = match_ids(ref, &e, b);
		bool same = na == nb && memcmp(a, b, na * sizeof(*a)) == 0;
		CHECK(same);
		if (!same)
			fprintf(stderr, "  %s: %u matches, brute %u\n", what, na, nb);
	}
}

/* A matcher's whole life: every block back at the end. */
static void test_life(const char *engine)
{
	long live0 = n_live, zero0 = zero_allocs;
	struct spate_matcher *m = make(engine), *ref = make("brute");
	struct spate_raw_sub s;

	check_rng = 5;
	CHECK_EQ_INT(spate_matcher_remember_deletes(m, 16), 0);
	for (uint64_t id = 1; id <= 300; id++) {
		/* a third share four keywords: lists of categories per keyword */
		gen_sub(&s, id, id % 3 == 0 ? (uint32_t)id % 4 : (uint32_t)id, 1 + check_below(3));
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, (uint32_t)id % 5), 0);
		CHECK_EQ_INT(spate_matcher_sub_add(ref, &s, (uint32_t)id % 5), 0);
	}
	same_matches(m, ref, engine);
	for (uint64_t id = 1; id <= 300; id += 2) {
		CHECK_EQ_INT(spate_matcher_sub_del(m, id, (uint32_t)id % 5), 0);
		CHECK_EQ_INT(spate_matcher_sub_del(ref, id, (uint32_t)id % 5), 0);
	}
	CHECK_EQ_INT(spate_matcher_sub_del(m, 299, 4), SPATE_MATCHER_DEL_REPEAT);
	same_matches(m, ref, engine);
	for (uint64_t id = 4; id <= 300; id += 4) { /* categories emptied */
		CHECK_EQ_INT(spate_matcher_sub_del(m, id, (uint32_t)id % 5), 0);
		CHECK_EQ_INT(spate_matcher_sub_del(ref, id, (uint32_t)id % 5), 0);
	}
	same_matches(m, ref, engine);
	CHECK_EQ_INT(spate_matcher_remember_deletes(m, 4), 0); /* the old memory freed */
	spate_matcher_destroy(m);
	spate_matcher_destroy(ref);
	CHECK_EQ_INT(n_live, live0);
	CHECK_EQ_INT(bad_frees, 0);
	CHECK_EQ_INT(zero_allocs, zero0);
	CHECK_EQ_INT(bad_aligns, 0);
	if (n_live != live0)
		fprintf(stderr, "  %s: %ld blocks kept\n", engine, n_live - live0);
}

/* Add s to m with its k-th allocation failing (0: none); *used: the
 * allocations it asked. */
static int add_failing(struct spate_matcher *m, const struct spate_raw_sub *s, long k, long *used)
{
	allocs = 0;
	fail_at = k;
	int rc = spate_matcher_sub_add(m, s, 1);
	*used = allocs;
	fail_at = 0;
	return rc;
}

/* Out of memory at each allocation of an add. */
static void test_add_no_memory(const char *engine)
{
	long live0 = n_live;
	struct spate_matcher *m = make(engine), *ref = make("brute");
	struct spate_raw_sub s;
	uint32_t refused = 0;

	check_rng = 9;
	for (uint64_t id = 1; id <= 40; id++) {
		gen_sub(&s, id, (uint32_t)id % 8, 1 + check_below(2));
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 1), 0);
		CHECK_EQ_INT(spate_matcher_sub_add(ref, &s, 1), 0);
	}
	/* each round brings 8 new keywords: the dictionary grows on the way */
	for (uint64_t id = 41; id <= 52; id++) {
		gen_sub(&s, id, 8 + 8 * (uint32_t)(id - 41), 8);
		if (id == 52) { /* more constraints than any before: buffers grow */
			s.n_cons = 8;
			for (uint32_t i = 0; i < 8; i++) {
				s.cons[i].name = spate_str_of(attrs[i]);
				s.cons[i].op = SPATE_OP_LE;
				s.cons[i].value = 900;
			}
		}
		for (long k = 1, tries = 0;; k++, tries++) {
			long held = n_live;
			long used;
			int rc = add_failing(m, &s, k, &used);
			if (rc == 0)
				break;
			refused++;
			CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
			CHECK(spate_matcher_sub_find(m, id) == NULL);
			CHECK_EQ_INT(spate_matcher_sub_count(m), id - 1);
			/* interned names may stay (a dictionary only grows); no
			 * more than the names of this one sub */
			CHECK(n_live - held <= 2 * (long)(s.n_kw + s.n_cons) + 2);
			if (k % 3 == 0)
				same_matches(m, ref, engine);
			/* a sub with no keyword and no constraint in the slot
			 * the failed add may have left marks in: every event in
			 * the world matches it */
			struct spate_raw_sub f = { .id = 100000 + (uint64_t)k };
			f.rect = (struct spate_rect){ -1800000, -900000, 1800000, 900000 };
			CHECK_EQ_INT(spate_matcher_sub_add(m, &f, 1), 0);
			CHECK_EQ_INT(spate_matcher_sub_add(ref, &f, 1), 0);
			same_matches(m, ref, engine);
			CHECK_EQ_INT(spate_matcher_sub_del(m, f.id, 1), 0);
			CHECK_EQ_INT(spate_matcher_sub_del(ref, f.id, 1), 0);
			if (tries > 400 || used < k) {
				CHECK(!"an add that fails without failing an allocation");
				break;
			}
			/* names interned before the failure stay: the next try
			 * asks fewer allocations, so the same k again reaches
			 * the allocation after this one */
			if (n_live > held)
				k--;
		}
		CHECK_EQ_INT(spate_matcher_sub_add(ref, &s, 1), 0);
		CHECK(spate_matcher_sub_find(m, id) != NULL);
	}
	CHECK(refused > 12);
	same_matches(m, ref, engine);
	spate_matcher_destroy(m);
	spate_matcher_destroy(ref);
	CHECK_EQ_INT(n_live, live0);
	CHECK_EQ_INT(bad_frees, 0);
}

/* Churn: one sub stays, 20,000 others come and go one at a time (each
 * the last added, the first deleted): the engine's memory after it is
 * what it was after the first 1,000 (room kept for ids it no longer
 * holds would grow without bound). */
static void test_churn(const char *engine)
{
	struct spate_matcher *m = make(engine);
	struct spate_raw_sub s;
	long warm = 0;

	check_rng = 21;
	gen_sub(&s, 1, 0, 1);
	CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 1), 0);
	for (uint64_t id = 2; id <= 20001; id++) {
		gen_sub(&s, id, 0, 1);
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 1), 0);
		CHECK_EQ_INT(spate_matcher_sub_del(m, id, 1), 0);
		if (id == 1001)
			warm = live_bytes;
	}
	CHECK(live_bytes <= warm + 4096);
	if (live_bytes > warm + 4096)
		fprintf(stderr, "  %s: %ld bytes after the churn, %ld after 1,000\n", engine,
			(long)live_bytes, warm);
	spate_matcher_destroy(m);
}

/* The kd-tree rebuilds at 64 subs, whenever they doubled since, and
 * when they fell to a quarter of a build of at least 128 (stats). */
static void test_kd_rebuilds(void)
{
	struct spate_matcher *m = make("kdtree");
	struct spate_raw_sub s;
	char buf[256];

	check_rng = 4;
	for (uint64_t id = 1; id <= 128; id++) {
		gen_sub(&s, id, 0, 1);
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 1), 0);
	}
	for (uint64_t id = 1; id <= 97; id++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");
		spate_matcher_engine_stats(m, f);
		fclose(f);
		/* built at 64 and 128; at 32 left (after deleting 96) again */
		CHECK(strstr(buf, id <= 96 ? "\"rebuilds\":2}" : "\"rebuilds\":3}") != NULL);
		CHECK_EQ_INT(spate_matcher_sub_del(m, id, 1), 0);
	}
	spate_matcher_destroy(m);
}

/* Dictionary ids: 0 .. count-1 known, count and past it not. */
static void test_dict_ids(void)
{
	long live0 = n_live;
	struct spate_dict *d = spate_dict_create();
	size_t len = 99;

	CHECK(spate_dict_str(d, 0, &len) == NULL && len == 99);
	for (uint32_t i = 0; i < 100; i++)
		CHECK_EQ_INT(spate_dict_intern(d, words[i], strlen(words[i])), i);
	CHECK(spate_dict_str(d, 99, &len) != NULL && len == strlen(words[99]));
	CHECK(spate_dict_str(d, 100, &len) == NULL);
	CHECK(spate_dict_str(d, UINT32_MAX, NULL) == NULL);
	spate_dict_destroy(d);
	CHECK_EQ_INT(n_live, live0);
}

/* Two strings of len bytes the same but for byte pos, with the same
 * 32-bit hash (found by search: 256 values of that byte a base, about
 * 130,000 bases expected; the base is 8 bytes outside pos, the rest
 * 'x'), are two names: only the bytes past the first 8 (tail_equal) tell
 * them apart. len 17, pos 16: the last byte; len 17, pos 8: a byte the
 * last 8 do not hold (the memcmp path); len 9, pos 8: the one byte past
 * the prefix (the path of 9 to 16 bytes, not skipped as a short one's). */
static void test_dict_collision(size_t len, size_t pos)
{
	unsigned char a[17], b[17];
	static uint32_t seen[512], stamp[512];
	static uint32_t round;
	size_t at = pos >= 8 ? 0 : len - 8; /* where the base goes */
	bool found = false;

	memset(a, 'x', sizeof(a));
	for (uint64_t base = 0; base < (1u << 22) && !found; base++) {
		memcpy(a + at, &base, 8);
		round++;
		for (uint32_t v = 0; v < 256 && !found; v++) {
			a[pos] = (unsigned char)v;
			uint32_t h = spate_hash_bytes(a, len);
			/* the first byte value a hash was seen with, by open addressing */
			for (uint32_t i = h & 511;; i = (i + 1) & 511) {
				if (stamp[i] != round) {
					stamp[i] = round;
					seen[i] = h << 8 >> 8 | v << 24;
					break;
				}
				uint32_t u = seen[i] >> 24;
				a[pos] = (unsigned char)u;
				bool same = (seen[i] << 8 >> 8) == (h << 8 >> 8) &&
					    spate_hash_bytes(a, len) == h;
				a[pos] = (unsigned char)v;
				if (same) {
					memcpy(b, a, len);
					b[pos] = (unsigned char)u;
					found = true;
					break;
				}
			}
		}
	}
	CHECK(found);
	if (!found)
		return;
	struct spate_dict *d = spate_dict_create();
	uint32_t ia = spate_dict_intern(d, (const char *)a, len);
	uint32_t ib = spate_dict_intern(d, (const char *)b, len);
	CHECK(ia != ib);
	CHECK_EQ_INT(spate_dict_lookup(d, (const char *)a, len), ia);
	CHECK_EQ_INT(spate_dict_lookup(d, (const char *)b, len), ib);
	CHECK_EQ_INT(spate_dict_count(d), 2);
	spate_dict_destroy(d);
}

/* The dictionary's slot as spate_dict.c lays it out (struct dict_slot),
 * to fill fresh blocks with slots that look taken. */
struct ghost_slot {
	uint64_t prefix;
	uint32_t hash, id, len;
};

/* A name "g<n>" (up to 8 bytes) whose hash's low 10 bits are low10: its first slot
 * in every table of up to 1024 slots is the same. */
static int ghost(char *buf, uint32_t low10, struct ghost_slot *g)
{
	for (uint32_t n = 0;; n++) {
		int len = snprintf(buf, 16, "g%u", n);
		uint64_t pre = spate_hash_load_padded((const unsigned char *)buf, (size_t)len);
		uint32_t h = spate_hash_word(pre, (size_t)len);
		if ((h & 1023) == low10) {
			*g = (struct ghost_slot){ pre, h, 0, (uint32_t)len };
			return len;
		}
	}
}

/* Every slot of a new table is marked empty, the first and the last
 * included: with fresh blocks full of slots that claim two names for id
 * 0 (one whose first slot is a table's first, one whose first is its
 * last), neither name is known, at 64 slots and after each growth to
 * 1024. */
static void test_dict_fresh_slots(void)
{
	static struct ghost_slot rec[2]; /* slot i of a fresh block is rec[i % 2] */
	char first[16], last[16];
	int lf = ghost(first, 0, &rec[0]), ll = ghost(last, 1023, &rec[1]);
	int wrong = 0;

	fresh_fill_len = sizeof(rec);
	fresh_fill = (const unsigned char *)rec;
	struct spate_dict *d = spate_dict_create();
	for (uint32_t i = 0; i <= 300; i++) {
		wrong += spate_dict_lookup(d, first, (size_t)lf) != SPATE_DICT_NONE;
		wrong += spate_dict_lookup(d, last, (size_t)ll) != SPATE_DICT_NONE;
		if (i < 300)
			wrong += spate_dict_intern(d, words[i], strlen(words[i])) != i;
	}
	fresh_fill = NULL;
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(spate_dict_intern(d, last, (size_t)ll), 300);
	CHECK_EQ_INT(spate_dict_intern(d, first, (size_t)lf), 301);
	spate_dict_destroy(d);
}

/* The strings' 64 KiB blocks: a string (with its NUL) that ends exactly
 * at a block's end, one a byte longer than a block, one that fits a
 * block exactly, one far larger; each byte-exact and NUL-terminated
 * where it is, nothing written past a block (overruns), every block
 * given back. */
static void test_dict_str_blocks(void)
{
	enum { BLOCK = 64 << 10 };
	static const size_t lens[] = { 1, 2, BLOCK - 4, 3, BLOCK - 1, BLOCK, 5, 100000, 1 };
	static char big[100001];
	long live0 = n_live, over0 = overruns;
	struct spate_dict *d = spate_dict_create();
	size_t n = sizeof(lens) / sizeof(lens[0]);
	int wrong = 0;

	/* "x" and "yz" take 5 bytes, so BLOCK - 4 (and its NUL) ends the
	 * first block; "abc" starts the next */
	for (size_t i = 0; i < n; i++) {
		memset(big, (int)('a' + i), lens[i]);
		wrong += spate_dict_intern(d, big, lens[i]) != i;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		const char *s = spate_dict_str(d, (uint32_t)i, &len);
		memset(big, (int)('a' + i), lens[i]);
		if (s == NULL || len != lens[i] || memcmp(s, big, len) != 0 || s[len] != '\0' ||
		    spate_dict_lookup(d, big, lens[i]) != i)
			wrong++;
	}
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(spate_dict_count(d), n);
	spate_dict_destroy(d);
	CHECK_EQ_INT(overruns, over0);
	CHECK_EQ_INT(n_live, live0);
}

/* Out of memory at each allocation of an engine's create: NULL and no
 * block kept (without and with the matcher's parameters). */
static void test_create_no_memory(const char *engine)
{
	const struct spate_engine_ops *ops = spate_engine_find(engine);
	struct spate_engine_params p;
	bool failed = false;

	CHECK(ops != NULL);
	spate_engine_params_default(&p);
	for (int with = 0; with < 2; with++)
		for (long k = 1; k < 400; k++) {
			long live0 = n_live;
			allocs = 0;
			fail_at = k;
			struct spate_engine *e = ops->create(with ? &p : NULL);
			long used = allocs;
			fail_at = 0;
			failed |= e == NULL;
			if (e != NULL)
				ops->destroy(e);
			CHECK_EQ_INT(n_live, live0);
			if (e != NULL && used < k)
				break; /* every allocation of it failed once */
		}
	CHECK(failed);
	CHECK_EQ_INT(bad_frees, 0);
}

/* Out of memory at each allocation of an event (the match vector
 * growing past 64): NO_MEMORY exactly or the matches, and the next event
 * as brute force's. */
static void test_event_no_memory(const char *engine)
{
	long live0 = n_live;
	struct spate_matcher *m = make(engine), *ref = make("brute");
	struct spate_raw_sub s;
	struct spate_raw_event e = { .id = 1, .n_kw = 1 };
	bool failed = false;

	check_rng = 13;
	e.kw[0] = spate_str_of(words[0]);
	/* one attribute every sub asks about and the event meets: the
	 * engines that index constraints take their per-event tables at
	 * the first event (ivx's plan), under the failing allocations too */
	e.n_attr = 1;
	e.attr[0].name = spate_str_of(attrs[0]);
	e.attr[0].value = 5;
	for (uint64_t id = 1; id <= 150; id++) {
		gen_sub(&s, id, 0, 1); /* keyword w0, the whole world */
		s.rect = (struct spate_rect){ -1800000, -900000, 1800000, 900000 };
		s.n_cons = 1;
		s.cons[0].name = spate_str_of(attrs[0]);
		s.cons[0].op = SPATE_OP_GE;
		s.cons[0].value = 0;
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 1), 0);
		CHECK_EQ_INT(spate_matcher_sub_add(ref, &s, 1), 0);
	}
	for (long k = 1; k < 50; k++) {
		struct spate_matchvec mv = { 0 };
		allocs = 0;
		fail_at = k;
		int rc = spate_matcher_event(m, &e, &mv);
		long used = allocs;
		fail_at = 0;
		if (rc != 0) {
			failed = true;
			CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
		} else {
			CHECK_EQ_INT(mv.n, 150);
		}
		spate_matchvec_free(&mv);
		same_matches(m, ref, engine);
		if (rc == 0 && used < k)
			break;
	}
	CHECK(failed);
	spate_matcher_destroy(m);
	spate_matcher_destroy(ref);
	CHECK_EQ_INT(n_live, live0);
	CHECK_EQ_INT(bad_frees, 0);
}

static void count_cat(void *ctx, const struct spate_category_info *ci)
{
	(void)ci;
	++*(uint32_t *)ctx;
}

/* drt: a sub far from all others makes a new category; out of memory
 * at each allocation of the add that makes the 33rd (the category table
 * grows then): NO_MEMORY and nothing kept, or a sub that every event at
 * its place matches. */
static void test_drt_category_no_memory(void)
{
	long live0 = n_live;
	struct spate_matcher *m = make("drt");
	struct spate_raw_sub s;
	struct spate_raw_event e;
	static uint64_t ids[4096];
	uint32_t cats = 0;
	bool failed = false;

	for (uint64_t id = 1; id <= 33; id++) {
		memset(&s, 0, sizeof(s));
		s.id = id;
		int32_t x = (int32_t)((id % 8) * 40 - 160) * SPATE_COORD_SCALE;
		int32_t y = (int32_t)((id / 8) * 30 - 70) * SPATE_COORD_SCALE;
		s.rect = (struct spate_rect){ x, y, x + SPATE_COORD_SCALE / 10,
					      y + SPATE_COORD_SCALE / 10 };
		s.n_kw = 1;
		s.kw[0] = spate_str_of(words[id]);
		memset(&e, 0, sizeof(e));
		e.lon = x;
		e.lat = y;
		e.n_kw = 1;
		e.kw[0] = s.kw[0];
		for (long k = id == 33 ? 1 : 0, tries = 0;; k++, tries++) {
			long held = n_live;
			long used;
			int rc = add_failing(m, &s, k, &used);
			if (rc == 0)
				break;
			failed = true;
			CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
			CHECK_EQ_INT(spate_matcher_sub_count(m), id - 1);
			CHECK_EQ_INT(match_ids(m, &e, ids), 0);
			if (used < k || tries > 500) {
				CHECK(!"an add that fails without failing an allocation");
				break;
			}
			if (n_live > held) /* the keyword stayed interned: as above */
				k--;
		}
		CHECK_EQ_INT(match_ids(m, &e, ids), 1);
		CHECK_EQ_INT(ids[0], id);
	}
	CHECK(failed);
	CHECK_EQ_INT(spate_matcher_categories(m, count_cat, &cats), 0);
	CHECK_EQ_INT(cats, 33); /* one each: the table did grow */
	spate_matcher_destroy(m);
	CHECK_EQ_INT(n_live, live0);
	CHECK_EQ_INT(bad_frees, 0);
}

/* The memory of deletes cannot grow: the old one stays. */
static void test_remember_no_memory(void)
{
	long live0 = n_live;
	struct spate_matcher *m = make(NULL);
	struct spate_raw_sub s;

	check_rng = 3;
	CHECK_EQ_INT(spate_matcher_remember_deletes(m, 2), 0);
	for (uint64_t id = 1; id <= 4; id++) {
		gen_sub(&s, id, 0, 1);
		CHECK_EQ_INT(spate_matcher_sub_add(m, &s, 7), 0);
	}
	CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 7), 0);
	for (long k = 1; k <= 4; k++) {
		allocs = 0;
		fail_at = k;
		int rc = spate_matcher_remember_deletes(m, 50);
		fail_at = 0;
		CHECK_EQ_INT(rc, k <= 3 ? -SPATE_E_NO_MEMORY : 0);
		if (rc != 0)
			CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 7), SPATE_MATCHER_DEL_REPEAT);
	}
	CHECK_EQ_INT(spate_matcher_sub_del(m, 1, 7), -SPATE_E_UNKNOWN_ID); /* a new memory */
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 7), 0);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 2, 7), SPATE_MATCHER_DEL_REPEAT);
	spate_matcher_destroy(m);
	CHECK_EQ_INT(n_live, live0);
	CHECK_EQ_INT(bad_frees, 0);
}

int main(int argc, char **argv)
{
	for (uint32_t i = 0; i < 400; i++)
		snprintf(words[i], sizeof(words[i]), "w%u", i);
	for (uint32_t i = 0; i < 12; i++)
		snprintf(attrs[i], sizeof(attrs[i]), "a%u", i);
	/* argv[1]: one engine only (the mutation tool's runs) */
	test_remember_no_memory();
	test_dict_ids();
	test_dict_collision(17, 16);
	test_dict_collision(17, 8);
	test_dict_collision(9, 8);
	test_dict_fresh_slots();
	test_dict_str_blocks();
	test_kd_rebuilds();
	test_drt_category_no_memory();
	for (uint32_t i = 0; i < N_ENGINES; i++) {
		if (argc > 1 && strcmp(argv[1], engines[i]) != 0)
			continue;
		test_create_no_memory(engines[i]);
		test_life(engines[i]);
		test_churn(engines[i]);
		test_add_no_memory(engines[i]);
		test_event_no_memory(engines[i]);
	}
	CHECK_EQ_INT(n_live, 0);
	CHECK_EQ_INT(overruns, 0); /* nothing written past a block */
	return check_summary("alloc");
}
