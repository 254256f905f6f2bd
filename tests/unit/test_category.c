/* test_category.c - a DRT category's filing and routed matching, by exact
 * counts (issue 24: mutants of lib/engines/drt/drt_category.c that test_drt's
 * brute-force comparisons cannot see, because the matches stay right):
 *   - a subscription is filed under its keyword with the smallest bucket
 *     at its first cell (the first such on a tie), so an event with a
 *     frequent keyword looks at exactly the subscriptions filed under it
 *     (stats.candidates);
 *   - routed matching (engine_drt: the cluster names the event keywords a
 *     category is reached by) looks only in the buckets of those keywords,
 *     and at the content-only subscriptions (interval index, from 256 of
 *     them) only when "none" is routed; a plain add disables the mask;
 *   - a merge moves every subscription and leaves `from` empty and usable;
 *     one that runs out of memory at any allocation (malloc, calloc,
 *     realloc wrapped: -Wl,--wrap) changes nothing in either category;
 *     every block comes back (alloc_track.h);
 *   - a coarse filing one level up, found by the route's level-1 key;
 *   - stats.bytes: exactly the blocks the index holds (no interval
 *     index), more with one; an add that cannot grow: NO_MEMORY, nothing
 *     changed;
 *   - routed edges: a plan kept by prefetch is not used for a rectangle
 *     it was not made for, a routing keyword the subscription lacks files
 *     it the plain way, match_keys with no keys looks nowhere;
 *   - the filing table (drt_ftab): it doubles exactly at its load bound;
 *     its own mappings (from map_min bytes) are 2 MiB aligned, their
 *     bytes counted in multiples of 2 MiB, and every byte of address
 *     space given back when the table is freed, also when mmap places
 *     them off a 2 MiB boundary (mmap wrapped); a mapped table of slots
 *     up to 512 bytes doubles in place (its peak resident set grows by
 *     the old size, not twice it), by copying when the saved run's
 *     array, the new mapping or the move is refused (mmap and mremap
 *     wrapped), or not at all (add: NULL), its mapping counted exactly;
 *     add_from told an end past the table adds as add does; the
 *     extreme keys (0, the largest storable) survive growth and delete;
 *     no malloc(0) anywhere;
 *   - drt_params: every name and help, one past the end NULL, every value
 *     read back as set, garbage after a number, out-of-range and
 *     overflowing values refused with their messages;
 *   - a drt engine subscription add that runs out of memory at any
 *     allocation: NO_MEMORY, and the matcher as it was;
 *   - the drt engine's figures: per-worker timing (one per worker, their
 *     sum above 0 and below the wall time the events took), the category
 *     list (every subscription in one), parameters refused at run time
 *     (workers, cat_cell) leave the old ones. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "check.h"
#include "engines/drt/drt_category.h"
#include "engines/drt/drt_ftab.h"
#include "engines/drt/drt_grid.h"
#include "engines/drt/drt_params.h"
#include "engines/ivx/ivx_index.h"
#include "proto/spate_err.h"
#include "matcher/spate_matcher.h"
#include "matcher/spate_schema.h"

/* Allocations tracked (leaks, double frees) and failed on demand:
 * alloc_track.h. The buffers of open_memstream are libc's: given back
 * with __real_free. */
#include "alloc_track.h"

static const uint32_t kw5[] = { 5 }, kw9[] = { 9 }, kw5_9[] = { 5, 9 };

static struct spate_sub sub_at(uint64_t id, const uint32_t *kw, uint16_t n_kw)
{
	/* a small rectangle around (1, 1) degree */
	return (struct spate_sub){ .id = id,
				   .kw = kw,
				   .n_kw = n_kw,
				   .rect = { SPATE_COORD_SCALE / 2, SPATE_COORD_SCALE / 2,
					     SPATE_COORD_SCALE * 3 / 2,
					     SPATE_COORD_SCALE * 3 / 2 } };
}

static struct spate_event event_at(const uint32_t *kw, uint16_t n_kw)
{
	return (struct spate_event){
		.id = 1, .lon = SPATE_COORD_SCALE, .lat = SPATE_COORD_SCALE, .kw = kw, .n_kw = n_kw
	};
}

/* A content-only subscription: no keyword, the whole world, one
 * constraint (attribute 0 <= le), which the interval index takes. */
static struct spate_sub content_sub(uint64_t id, struct spate_constraint *cons, uint32_t le)
{
	*cons = (struct spate_constraint){ 0, SPATE_OP_LE, (double)le };
	return (struct spate_sub){ .id = id,
				   .n_cons = 1,
				   .cons = cons,
				   .rect = { -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX,
					     SPATE_LAT_MAX } };
}

/* Match ev (routed by mask unless mask == 0); the match count and the
 * candidates this call looked at. */
static size_t match(struct drt_category *c, const struct spate_event *ev, uint64_t mask,
		    uint64_t *cand)
{
	struct spate_matchvec mv = { 0 };
	struct drt_category_stats a, b;

	drt_category_stats(c, &a);
	int rc =
		mask ? drt_category_match_routed(c, ev, mask, &mv) : drt_category_match(c, ev, &mv);
	CHECK_EQ_INT(rc, 0);
	drt_category_stats(c, &b);
	CHECK_EQ_INT(b.events, a.events + 1);
	CHECK_EQ_INT(b.matches, a.matches + mv.n);
	*cand = b.candidates - a.candidates;
	size_t n = mv.n;
	spate_matchvec_free(&mv);
	return n;
}

static void test_filing_keyword(void)
{
	struct drt_category *c = drt_category_create(2);
	static struct spate_sub s[12];
	uint64_t cand;

	for (uint32_t i = 0; i < 10; i++) {
		s[i] = sub_at(i + 1, kw5, 1);
		CHECK_EQ_INT(drt_category_add(c, &s[i]), 0);
	}
	/* 5's bucket holds 10, 9's none, then 1: both go under 9. */
	s[10] = sub_at(11, kw5_9, 2);
	s[11] = sub_at(12, kw5_9, 2);
	CHECK_EQ_INT(drt_category_add(c, &s[10]), 0);
	CHECK_EQ_INT(drt_category_add(c, &s[11]), 0);
	struct spate_event e5 = event_at(kw5, 1), e9 = event_at(kw9, 1), e59 = event_at(kw5_9, 2);
	CHECK_EQ_INT(match(c, &e5, 0, &cand), 10);
	CHECK_EQ_INT(cand, 10);
	CHECK_EQ_INT(match(c, &e9, 0, &cand), 0); /* both need 5 too */
	CHECK_EQ_INT(cand, 2);
	CHECK_EQ_INT(match(c, &e59, 0, &cand), 12);
	CHECK_EQ_INT(cand, 12);
	/* Routed: only the buckets of the routed keywords (bit k + 1 is the
	 * event's k-th keyword, bit 0 "none"). Plain adds ignore the mask. */
	CHECK_EQ_INT(match(c, &e59, 1u << 2, &cand), 12);
	CHECK_EQ_INT(cand, 12);
	drt_category_destroy(c);

	c = drt_category_create(2);
	for (uint32_t i = 0; i < 12; i++) /* routed by 5, s[11] by 9 */
		CHECK_EQ_INT(drt_category_add_routed(c, &s[i], i < 11 ? 5 + 1 : 9 + 1, false), 0);
	CHECK_EQ_INT(match(c, &e59, 1u << 1, &cand), 11); /* 5's bucket: s[0..10] */
	CHECK_EQ_INT(cand, 11);
	CHECK_EQ_INT(match(c, &e59, 1u << 2, &cand), 1); /* 9's: s[11] */
	CHECK_EQ_INT(cand, 1);
	CHECK_EQ_INT(match(c, &e59, 3u << 1, &cand), 12);
	CHECK_EQ_INT(cand, 12);
	drt_category_destroy(c);

	/* A tie (both buckets empty here): the first of its keywords. */
	c = drt_category_create(2);
	struct spate_sub tie = sub_at(13, kw5_9, 2);
	CHECK_EQ_INT(drt_category_add(c, &tie), 0);
	CHECK_EQ_INT(match(c, &e5, 0, &cand), 0); /* it needs 9 too */
	CHECK_EQ_INT(cand, 1);
	CHECK_EQ_INT(match(c, &e9, 0, &cand), 0);
	CHECK_EQ_INT(cand, 0);
	drt_category_destroy(c);
}

/* Content-only subscriptions (no keyword, the whole world, constraints
 * the interval index takes): from 256 on in the index, matched when
 * "none" is routed and only then; merged, the index goes with them
 * (every block back at the end). */
static void test_routed_content_only(void)
{
	enum { N = 300 };
	static struct spate_sub s[N];
	static struct spate_constraint cons[N];
	struct spate_schema sc;
	long live0 = n_live;
	struct drt_category *c = drt_category_create(2);
	uint64_t cand;

	struct spate_attr at = { 0, 100.0 };
	struct spate_event e = event_at(kw5, 1);
	e.attr = &at;
	e.n_attr = 1;
	spate_schema_default(&sc);
	drt_category_set_schema(c, &sc);
	for (uint32_t i = 0; i < N; i++) {
		s[i] = content_sub(i + 1, &cons[i], i);
		CHECK_EQ_INT(drt_category_add_routed(c, &s[i], 0, false), 0);
		/* 255 in the keyword-less bucket; the 256th starts the index */
		if (i == 254 || i == 255) {
			match(c, &e, 1u << 0, &cand);
			CHECK_EQ_INT(cand, i == 254 ? 255 : 0);
		}
	}
	/* Matching into a vector that holds matches already: the figure
	 * counts the new ones only. */
	struct spate_matchvec mv = { 0 };
	struct drt_category_stats a, b;
	CHECK_EQ_INT(drt_category_match(c, &e, &mv), 0);
	CHECK_EQ_INT(mv.n, N - 100);
	drt_category_stats(c, &a);
	CHECK_EQ_INT(drt_category_match(c, &e, &mv), 0);
	drt_category_stats(c, &b);
	CHECK_EQ_INT(mv.n, 2 * (N - 100));
	CHECK_EQ_INT(b.matches - a.matches, N - 100);
	spate_matchvec_free(&mv);
	/* value 100 <= i for i = 100..299 */
	CHECK_EQ_INT(match(c, &e, 1u << 0, &cand), N - 100);
	CHECK_EQ_INT(cand, 0); /* all in the index, none left in the bucket */
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 0); /* only 5 routed: not the index */
	CHECK_EQ_INT(cand, 0);
	CHECK_EQ_INT(match(c, &e, 0, &cand), N - 100);
	/* keyword-less but a small rectangle: not content-only, it goes to
	 * its bucket (one candidate), not to the index */
	struct spate_sub small = sub_at(2000, NULL, 0);
	CHECK_EQ_INT(drt_category_add_routed(c, &small, 0, false), 0);
	CHECK_EQ_INT(match(c, &e, 1u << 0, &cand), N - 100 + 1);
	CHECK_EQ_INT(cand, 1);
	CHECK(drt_category_del(c, &small));
	/* Merged into another category: all there, from empty and usable. */
	struct drt_category *d = drt_category_create(2);
	drt_category_set_schema(d, &sc);
	struct spate_sub k = sub_at(1000, kw5, 1);
	CHECK_EQ_INT(drt_category_add_routed(d, &k, 6, false), 0);
	CHECK_EQ_INT(drt_category_merge(d, c), 0);
	CHECK_EQ_INT(drt_category_size(c), 0);
	CHECK_EQ_INT(drt_category_size(d), N + 1);
	CHECK_EQ_INT(match(d, &e, 1u << 0, &cand), N - 100);
	CHECK_EQ_INT(match(d, &e, 1u << 1, &cand), 1);
	CHECK_EQ_INT(cand, 1);
	CHECK_EQ_INT(match(c, &e, 0, &cand), 0);
	CHECK_EQ_INT(cand, 0);
	CHECK_EQ_INT(drt_category_add_routed(c, &k, 6, false), 0);
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 1);
	CHECK_EQ_INT(cand, 1);
	for (uint32_t i = 0; i < N; i++)
		CHECK(drt_category_del(d, &s[i]));
	CHECK_EQ_INT(drt_category_size(d), 1);
	CHECK_EQ_INT(match(d, &e, 1u << 0, &cand), 0);
	drt_category_destroy(c);
	drt_category_destroy(d);
	CHECK_EQ_INT(n_live, live0); /* c's interval index went with the merge */
}

/* The edges of routed filing and matching:
 *   - a plan drt_category_prefetch kept is used only for the rectangle it
 *     was made for: the same struct, reused for a subscription over two
 *     cells (its first cell the same) before the add, is filed in both;
 *   - a routing keyword the subscription does not carry (though the word
 *     after its keywords holds it: its keywords are a prefix of a longer
 *     array) files it the plain way, under its own keyword, and a
 *     category that had a plain add ignores the mask, "none" too;
 *   - merging an empty category asks for no zero-byte block; a plan
 *     kept before a merge emptied the category is not used;
 *   - match_keys with no keys looks nowhere and counts the event. */
static void test_routed_edges(void)
{
	struct drt_category *c = drt_category_create(2);
	struct spate_sub s0 = sub_at(1, kw5, 1), s = sub_at(2, kw5, 1);
	struct spate_event e = event_at(kw5, 1);
	uint64_t cand;

	CHECK_EQ_INT(drt_category_add_routed(c, &s0, 5 + 1, false), 0); /* 5 in the filter */
	drt_category_prefetch(c, &s, 5 + 1, false);                     /* one cell: (0, 2] */
	s.rect.max_lon = SPATE_COORD_SCALE * 5 / 2;                     /* now two: to 2.5 */
	CHECK_EQ_INT(drt_category_add_routed(c, &s, 5 + 1, false), 0);
	e.lon = SPATE_COORD_SCALE * 11 / 5; /* 2.2: the second cell only */
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 1);
	CHECK_EQ_INT(cand, 1);
	e.lon = SPATE_COORD_SCALE; /* the first: both */
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 2);
	/* the same the other way: prefetched over two cells, added over one */
	struct spate_sub t = sub_at(3, kw5, 1);
	t.rect.max_lon = SPATE_COORD_SCALE * 5 / 2;
	drt_category_prefetch(c, &t, 5 + 1, false);
	t.rect.max_lon = SPATE_COORD_SCALE * 3 / 2;
	CHECK_EQ_INT(drt_category_add_routed(c, &t, 5 + 1, false), 0);
	e.lon = SPATE_COORD_SCALE * 11 / 5;
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 1); /* s only */
	CHECK_EQ_INT(cand, 1);
	CHECK(drt_category_del(c, &t));
	CHECK(drt_category_del(c, &s));
	drt_category_destroy(c);

	/* kw5_9 = { 5, 9 }: a sub of keyword 5 alone, routed by 9 */
	c = drt_category_create(2);
	s = sub_at(4, kw5_9, 1);
	CHECK_EQ_INT(drt_category_add_routed(c, &s, 9 + 1, false), 0);
	e = event_at(kw5, 1);
	CHECK_EQ_INT(match(c, &e, 0, &cand), 1);
	CHECK_EQ_INT(cand, 1);
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 1); /* a plain add: masks do not apply */
	/* not even to "none": a keyword-less sub is looked at under any mask */
	struct spate_sub any = sub_at(6, NULL, 0);
	CHECK_EQ_INT(drt_category_add(c, &any), 0);
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 2);
	CHECK_EQ_INT(cand, 2);
	CHECK(drt_category_del(c, &any));
	CHECK(drt_category_del(c, &s));
	drt_category_destroy(c);

	/* merging an empty category: nothing to move, no malloc(0) */
	c = drt_category_create(2);
	struct drt_category *d = drt_category_create(2);
	long zero0 = zero_allocs;
	CHECK_EQ_INT(drt_category_merge(c, d), 0);
	CHECK_EQ_INT(zero_allocs, zero0);
	CHECK_EQ_INT(drt_category_size(c), 0);
	drt_category_destroy(c);
	drt_category_destroy(d);

	/* a plan kept before a merge emptied the category is not used */
	c = drt_category_create(2);
	d = drt_category_create(2);
	s0 = sub_at(7, kw5, 1);
	s = sub_at(8, kw5, 1);
	CHECK_EQ_INT(drt_category_add_routed(c, &s0, 5 + 1, false), 0);
	drt_category_prefetch(c, &s, 5 + 1, false); /* s0's bucket */
	CHECK_EQ_INT(drt_category_merge(d, c), 0);
	CHECK_EQ_INT(drt_category_add_routed(c, &s, 5 + 1, false), 0);
	e = event_at(kw5, 1);
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 1);
	CHECK_EQ_INT(cand, 1);
	CHECK_EQ_INT(match(d, &e, 1u << 1, &cand), 1);
	CHECK(drt_category_del(c, &s));
	CHECK(drt_category_del(d, &s0));
	drt_category_destroy(c);
	drt_category_destroy(d);

	c = drt_category_create(2);
	s = sub_at(5, kw5, 1);
	CHECK_EQ_INT(drt_category_add_routed(c, &s, 5 + 1, false), 0);
	uint64_t none[1] = { 0 };
	struct spate_matchvec mv = { 0 };
	struct drt_category_stats a, b;
	drt_category_stats(c, &a);
	CHECK_EQ_INT(drt_category_match_keys(c, &e, none, 0, &mv), 0);
	drt_category_stats(c, &b);
	CHECK_EQ_INT(mv.n, 0);
	CHECK_EQ_INT(b.events, a.events + 1);
	CHECK_EQ_INT(b.candidates, a.candidates);
	spate_matchvec_free(&mv);
	drt_category_destroy(c);
}

/* A subscription filed coarse (the cluster's drt_placement.coarse) sits
 * one level up even where one fine cell holds it: the route's level-1
 * key finds it, the fine cell's does not (match_keys); deleted by its
 * hint, it leaves a fine one beside it found. Cells of 0.01 and
 * 90 degrees are the bounds of what a category takes. */
static void test_coarse_filing(void)
{
	struct drt_category *c = drt_category_create(2);
	struct spate_sub s = sub_at(1, kw5, 1); /* one level-0 cell */
	struct spate_event e = event_at(kw5, 1);
	struct spate_matchvec mv = { 0 };
	struct drt_grid g;

	drt_grid_init(&g, 2);
	CHECK_EQ_INT(drt_category_add_routed(c, &s, 5 + 1, true), 0);
	for (int level = 0; level < 2; level++) {
		uint64_t key = drt_grid_point(&g, e.lon, e.lat, level) << 32 | (5 + 1);
		mv.n = 0;
		CHECK_EQ_INT(drt_category_match_keys(c, &e, &key, 1, &mv), 0);
		CHECK_EQ_INT(mv.n, level == 1);
	}
	/* a fine one beside it (level 0); the coarse one deleted by its
	 * hint: the fine one is still found (level 0 still looked at) */
	struct spate_sub f = sub_at(2, kw5, 1);
	uint64_t cand;
	CHECK_EQ_INT(drt_category_add_routed(c, &f, 5 + 1, false), 0);
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 2);
	CHECK(drt_category_del_routed(c, &s, 5 + 1, true));
	CHECK_EQ_INT(match(c, &e, 1u << 1, &cand), 1);
	CHECK_EQ_INT(cand, 1);
	CHECK(drt_category_del_routed(c, &f, 5 + 1, false));
	CHECK_EQ_INT(drt_category_size(c), 0);
	spate_matchvec_free(&mv);
	drt_category_destroy(c);
	for (int i = 0; i < 2; i++) {
		c = drt_category_create(i ? 90 : 0.01);
		CHECK(c != NULL);
		drt_category_destroy(c);
	}
}

/* stats.bytes is what the index owns: without an interval index exactly
 * the blocks it holds (alloc_track's live bytes: the category, its
 * table, the buckets' arrays), through adds, deletes and growth; an
 * interval index adds its own bytes. An add that cannot grow the table
 * or start the index fails with NO_MEMORY and changes nothing (every
 * block it took given back); retried, it succeeds. */
static void test_category_bytes(void)
{
	enum { N = 600 };
	static struct spate_sub s[N];
	static struct spate_constraint cons[N];
	struct spate_schema sc;
	struct drt_category_stats st;
	long live0 = n_live, bytes0 = live_bytes;
	struct drt_category *c = drt_category_create(2);
	int off = 0, refused = 0, wrong = 0;

	spate_schema_default(&sc);
	drt_category_set_schema(c, &sc);
	for (uint32_t i = 0; i < N / 2; i++) {
		/* cells along a row, 1 to 3 subs each, some over 2 cells */
		s[i] = sub_at(i + 1, i % 2 ? kw5 : kw9, 1);
		s[i].rect.min_lon +=
			(int32_t)(i / 3) * 2 * SPATE_COORD_SCALE - 170 * SPATE_COORD_SCALE;
		s[i].rect.max_lon += (int32_t)(i / 3) * 2 * SPATE_COORD_SCALE -
				     170 * SPATE_COORD_SCALE +
				     (i % 5 == 0 ? 2 * SPATE_COORD_SCALE : 0);
		allocs = 0;
		fail_at = 1; /* the first allocation of the add: a growth or an array */
		int rc = drt_category_add_routed(c, &s[i], s[i].kw[0] + 1, false);
		fail_at = 0;
		if (rc != 0) {
			refused++;
			wrong += rc != -SPATE_E_NO_MEMORY || drt_category_size(c) != i;
			rc = drt_category_add_routed(c, &s[i], s[i].kw[0] + 1, false);
		}
		wrong += rc != 0 || drt_category_size(c) != i + 1;
		drt_category_stats(c, &st);
		off += (long)st.bytes != live_bytes - bytes0;
	}
	CHECK_EQ_INT(wrong, 0);
	CHECK(refused > 10);
	CHECK_EQ_INT(off, 0);
	struct spate_event e = event_at(kw5, 1);
	uint64_t cand;
	for (uint32_t i = 0; i < N / 2; i++) {
		e.lon = s[i].rect.min_lon;
		e.lat = s[i].rect.min_lat;
		e.kw = s[i].kw;
		off += match(c, &e, 0, &cand) < 1;
	}
	CHECK_EQ_INT(off, 0);
	for (uint32_t i = 0; i < N / 2; i += 2) {
		CHECK(drt_category_del(c, &s[i]));
		drt_category_stats(c, &st);
		off += (long)st.bytes != live_bytes - bytes0;
	}
	CHECK_EQ_INT(off, 0);
	/* content-only subs: from the 256th in an interval index */
	size_t before = 0;
	for (uint32_t i = N / 2; i < N; i++) {
		s[i] = content_sub(i + 1, &cons[i], i);
		drt_category_stats(c, &st);
		before = st.bytes;
		/* the add that starts the index, failed at each allocation in
		 * turn: NO_MEMORY, nothing changed, nothing kept */
		for (long k = 1; i == N / 2 + 255 && k < 100; k++) {
			allocs = 0;
			fail_at = k;
			int rc = drt_category_add(c, &s[i]);
			fail_at = 0;
			if (rc == 0) {
				CHECK(drt_category_del(c, &s[i]));
				CHECK(k > 2); /* the array and the index at least */
				break;
			}
			CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
			CHECK_EQ_INT(drt_category_size(c), i - N / 4);
			drt_category_stats(c, &st);
			CHECK_EQ_INT(st.bytes, before);
			CHECK_EQ_INT(live_bytes - bytes0, (long)before);
		}
		CHECK_EQ_INT(drt_category_add(c, &s[i]), 0);
		if (i == N / 2 + 255) { /* the index starts */
			drt_category_stats(c, &st);
			CHECK(st.bytes > before + 4096);
			CHECK(st.bytes <= (size_t)(live_bytes - bytes0));
			/* it is an index as ivx_create(schema, 0) makes it: its
			 * bytes, less the bucket array the move freed (2 KiB) */
			struct ivx_index *ref = ivx_create(&sc, 0);
			for (uint32_t j = N / 2; j <= i; j++)
				CHECK_EQ_INT(ivx_add(ref, &s[j]), 0);
			size_t want = ivx_bytes(ref);
			ivx_destroy(ref);
			CHECK(want >= st.bytes - before && want <= st.bytes - before + 4096);
		}
	}
	drt_category_destroy(c);
	CHECK_EQ_INT(n_live, live0);
}

/* Matches of a fixed set of events (keywords 5, 9, both, none; inside
 * and outside the small rectangles), as one number per event. */
static void fingerprint(struct drt_category *c, uint64_t *out)
{
	static const uint32_t *kws[] = { kw5, kw9, kw5_9, NULL };
	static const uint16_t nkw[] = { 1, 1, 2, 0 };
	struct spate_attr at = { 0, 150.0 };
	struct spate_matchvec mv = { 0 };

	for (int i = 0; i < 8; i++) {
		struct spate_event e = event_at(kws[i % 4], nkw[i % 4]);
		if (i >= 4)
			e.lon = -5 * SPATE_COORD_SCALE;
		e.attr = &at;
		e.n_attr = 1;
		mv.n = 0;
		CHECK_EQ_INT(drt_category_match(c, &e, &mv), 0);
		uint64_t h = mv.n;
		for (size_t k = 0; k < mv.n; k++)
			h = h * 31 + mv.v[k]->id;
		out[i] = h;
	}
	spate_matchvec_free(&mv);
}

static void fill(struct drt_category *c, struct spate_sub *s, struct spate_constraint *cons,
		 uint32_t first, uint32_t n, bool content)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = first + i;
		if (content && i % 4 != 3) {
			s[i] = content_sub(id, &cons[i], id % 300);
		} else {
			s[i] = sub_at(id,
				      i % 3 == 0   ? kw5
				      : i % 3 == 1 ? kw9
						   : kw5_9,
				      i % 3 == 2 ? 2 : 1);
			if (i % 5 == 0) /* a wider one: another grid level */
				s[i].rect.max_lon += 20 * SPATE_COORD_SCALE;
		}
		CHECK_EQ_INT(drt_category_add(c, &s[i]), 0);
	}
}

static void test_merge_out_of_memory(void)
{
	enum { NI = 60, NF = 400 };
	static struct spate_sub si[NI], sf[NF];
	static struct spate_constraint ci[NI], cf[NF];
	uint64_t fi[8], ff[8], fa[8], fb[8];
	struct spate_schema sc;
	int failed = 0, wrong = 0;
	bool done = false;

	spate_schema_default(&sc);
	for (long k = 1; k < 5000 && !done; k++) {
		struct drt_category *into = drt_category_create(2), *from = drt_category_create(2);
		drt_category_set_schema(into, &sc);
		drt_category_set_schema(from, &sc);
		fill(into, si, ci, 1, NI, false);
		fill(from, sf, cf, 1000, NF, true);
		fingerprint(into, fi);
		fingerprint(from, ff);
		allocs = 0;
		fail_at = k;
		int rc = drt_category_merge(into, from);
		fail_at = 0;
		if (rc == 0) {
			done = true;
			wrong += drt_category_size(into) != NI + NF || drt_category_size(from) != 0;
		} else {
			failed++;
			wrong += rc != -SPATE_E_NO_MEMORY;
			wrong += drt_category_size(into) != NI || drt_category_size(from) != NF;
			fingerprint(into, fa);
			fingerprint(from, fb);
			wrong += memcmp(fa, fi, sizeof(fa)) != 0 || memcmp(fb, ff, sizeof(fb)) != 0;
		}
		drt_category_destroy(into);
		drt_category_destroy(from);
	}
	CHECK(done);
	CHECK(failed >= 3);
	CHECK_EQ_INT(wrong, 0);
}

/* mmap wrapped (-Wl,--wrap=mmap64): with mmap_misalign set, a fresh
 * anonymous mapping comes 4 KiB past a 2 MiB boundary, as an older
 * kernel or a crowded address space may place it. */
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
static bool mmap_misalign;
static long mmap_misaligned;
static int mmap_fails; /* so many of the next anonymous mmaps fail */

void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	const uintptr_t huge = (uintptr_t)2 << 20, page = 4096;

	if (mmap_fails > 0 && addr == NULL && (flags & MAP_ANONYMOUS)) {
		mmap_fails--;
		errno = ENOMEM;
		return MAP_FAILED;
	}
	if (!mmap_misalign || addr != NULL || !(flags & MAP_ANONYMOUS))
		return __real_mmap64(addr, len, prot, flags, fd, off);
	char *q = __real_mmap64(NULL, len + huge, prot, flags, fd, off);
	if (q == MAP_FAILED)
		return q;
	/* one page past the first 2 MiB boundary from q: inside q's mapping,
	 * with len bytes after it */
	char *r = (char *)((((uintptr_t)q + huge - 1) & ~(huge - 1)) + page);
	munmap(q, (size_t)(r - q));
	if (q + huge > r)
		munmap(r + len, (size_t)(q + huge - r));
	mmap_misaligned++;
	return r;
}

/* mremap wrapped too: with mremap_fails set, every call fails. */
void *__real_mremap(void *old, size_t old_len, size_t new_len, int flags, ...);
void *__wrap_mremap(void *old, size_t old_len, size_t new_len, int flags, ...);
static bool mremap_fails;

void *__wrap_mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *to = NULL;

	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	if (mremap_fails) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return __real_mremap(old, old_len, new_len, flags, to);
}

/* The process's address space in pages (/proc/self/statm, field 1). */
static long vm_pages(void)
{
	long pages = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f != NULL) {
		if (fscanf(f, "%ld", &pages) != 1)
			pages = -1;
		fclose(f);
	}
	return pages;
}

/* Fill a table past map_min (64 KiB) up to 300000 keys, check it, free
 * it. The second of two cycles must end with the address space it began
 * with (the first one may grow the heap, which stays). */
static void ftab_cycle(void)
{
	const size_t huge = (size_t)2 << 20;
	struct drt_ftab t;
	size_t base = drt_ftab_mapped_bytes();
	int misaligned = 0, odd = 0;

	CHECK_EQ_INT(drt_ftab_init(&t, 8), 0);
	drt_ftab_set_map_min(&t, 64 * 1024);
	for (uint64_t k = 1; k <= 300000; k++) {
		uint64_t *v = drt_ftab_add(&t, k * 0x9e3779b97f4a7c15ull);
		CHECK(v != NULL);
		if (v == NULL)
			break;
		*v = k;
		if (t.mapped) {
			misaligned += (uintptr_t)t.slots % huge != 0;
			odd += (drt_ftab_mapped_bytes() - base) % huge != 0;
		}
	}
	CHECK(t.mapped);
	CHECK_EQ_INT(misaligned, 0);
	CHECK_EQ_INT(odd, 0);
	CHECK(drt_ftab_mapped_bytes() - base >= drt_ftab_bytes(&t) - 4096);
	uint64_t bad = 0;
	for (uint64_t k = 1; k <= 300000; k++) {
		uint64_t *v = drt_ftab_get(&t, k * 0x9e3779b97f4a7c15ull);
		bad += v == NULL || *v != k;
	}
	CHECK_EQ_INT(bad, 0);
	drt_ftab_free(&t);
	CHECK_EQ_INT(drt_ftab_mapped_bytes(), base);
}

/* Loads below 4/8 (3/8, 0) are 4/8, above 7/8 (8/8 too: a full table has no
 * empty slot to end a probe) are 7/8: the tables grow at the same keys
 * as tables set to 4 and 7. Out of memory at init: -1. */
static void test_ftab_load(void)
{
	struct drt_ftab t[6];
	static const uint32_t load[6] = { 0, 4, 100, 7, 8, 3 };
	int differ = 0;

	for (int i = 0; i < 6; i++) {
		CHECK_EQ_INT(drt_ftab_init(&t[i], 8), 0);
		drt_ftab_set_max_load(&t[i], load[i]);
	}
	for (uint64_t k = 1; k <= 5000; k++) {
		for (int i = 0; i < 6; i++)
			CHECK(drt_ftab_add(&t[i], k * 0x9e3779b97f4a7c15ull) != NULL);
		differ += drt_ftab_bytes(&t[0]) != drt_ftab_bytes(&t[1]);
		differ += drt_ftab_bytes(&t[2]) != drt_ftab_bytes(&t[3]);
		differ += drt_ftab_bytes(&t[4]) != drt_ftab_bytes(&t[3]);
		differ += drt_ftab_bytes(&t[5]) != drt_ftab_bytes(&t[1]);
	}
	CHECK_EQ_INT(differ, 0);
	CHECK(drt_ftab_bytes(&t[0]) > drt_ftab_bytes(&t[2])); /* 4/8 is not 7/8 */
	for (int i = 0; i < 6; i++)
		drt_ftab_free(&t[i]);
	allocs = 0;
	fail_at = 1;
	CHECK_EQ_INT(drt_ftab_init(&t[0], 8), -1);
	fail_at = 0;
}

/* A table doubles exactly when one more key would fill more than
 * load8/8 of its slots, calloc'ed or mapped: after k keys it has the
 * fewest slots (8, 16, ...) that hold k within the load. */
static void test_ftab_growth_points(void)
{
	for (uint32_t load8 = 4; load8 <= 7; load8++)
		for (int mapped = 0; mapped < 2; mapped++) {
			struct drt_ftab t;
			size_t slots = 8, wrong = 0;
			CHECK_EQ_INT(drt_ftab_init(&t, 8), 0);
			drt_ftab_set_max_load(&t, load8);
			if (mapped)
				drt_ftab_set_map_min(&t, 4096);
			for (uint64_t k = 1; k <= 20000; k++) {
				CHECK(drt_ftab_add(&t, k * 0x9e3779b97f4a7c15ull) != NULL);
				while (k * 8 > slots * load8)
					slots *= 2;
				wrong += drt_ftab_bytes(&t) != slots * 16;
			}
			CHECK_EQ_INT(wrong, 0);
			CHECK_EQ_INT(t.mapped, mapped);
			drt_ftab_free(&t);
		}
}

/* A mapped table that cannot double in place (no memory for the saved
 * run, no new mapping, the move refused) doubles by copying; one that
 * cannot get a new mapping at all stays as it was (add: NULL). Either
 * way every key keeps its payload, drt_ftab_mapped_bytes() counts the
 * one mapping the table has (its bytes up to 2 MiB multiples), and
 * freeing gives it back, leaving the table empty (freed twice: nothing
 * more). Then add_from told an end past the table adds as add does. */
static void test_ftab_grow_short(void)
{
	const size_t huge = (size_t)2 << 20;

	for (int how = 0; how < 8; how++) {
		/* 256 KiB tables (one huge page before and after), then 2 MiB
		 * ones (one, then two) */
		size_t slots = how < 4 ? 16384 : 131072, fill = slots * 6 / 8;
		size_t grown = (how % 4 < 3 ? 2 : 1) * slots * 16;
		struct drt_ftab t;
		size_t base = drt_ftab_mapped_bytes();
		uint64_t bad = 0;
		CHECK_EQ_INT(drt_ftab_init(&t, 8), 0);
		drt_ftab_set_map_min(&t, 4096);
		for (uint64_t k = 1; k <= fill; k++) {
			uint64_t *v = drt_ftab_add(&t, k * 0x9e3779b97f4a7c15ull);
			CHECK(v != NULL);
			if (v != NULL)
				*v = k;
		}
		CHECK_EQ_INT(drt_ftab_bytes(&t), slots * 16);
		allocs = 0;
		fail_at = how % 4 == 0; /* the saved run's array */
		mmap_fails = how % 4 == 1 ? 1 : how % 4 == 3 ? 2 : 0;
		mremap_fails = how % 4 == 2;
		uint64_t *v = drt_ftab_add(&t, (fill + 1) * 0x9e3779b97f4a7c15ull);
		fail_at = 0;
		mmap_fails = 0;
		mremap_fails = false;
		CHECK_EQ_INT(v != NULL, how % 4 < 3);
		CHECK_EQ_INT(drt_ftab_bytes(&t), grown);
		CHECK_EQ_INT(t.count, fill + (how % 4 < 3));
		CHECK_EQ_INT(drt_ftab_mapped_bytes() - base, (grown + huge - 1) / huge * huge);
		for (uint64_t k = 1; k <= fill; k++) {
			v = drt_ftab_get(&t, k * 0x9e3779b97f4a7c15ull);
			bad += v == NULL || *v != k;
		}
		CHECK_EQ_INT(bad, 0);
		drt_ftab_free(&t);
		CHECK_EQ_INT(drt_ftab_mapped_bytes(), base);
		/* freed: empty, and freeing again does nothing */
		CHECK_EQ_INT(t.count, 0);
		CHECK(t.slots == NULL);
		drt_ftab_free(&t);
		CHECK_EQ_INT(drt_ftab_mapped_bytes(), base);
	}

	struct drt_ftab t;
	uint64_t lost = 0;
	CHECK_EQ_INT(drt_ftab_init(&t, 8), 0);
	for (uint64_t k = 1; k <= 1000; k++) {
		uint64_t *v = drt_ftab_add_from(&t, k * 0x9e3779b97f4a7c15ull, t.mask + 1);
		CHECK(v != NULL);
		if (v != NULL)
			*v = k;
	}
	for (uint64_t k = 1; k <= 1000; k++) {
		uint64_t *v = drt_ftab_get(&t, k * 0x9e3779b97f4a7c15ull);
		lost += v == NULL || *v != k;
	}
	CHECK_EQ_INT(lost, 0);
	CHECK_EQ_INT(t.count, 1000);
	drt_ftab_free(&t);
}

/* The peak resident set (VmHWM, KiB) since reset_peak(). */
static long peak_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmHWM: %ld", &kib) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return kib;
}

static bool reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	bool ok = f != NULL && fputs("5", f) >= 0;

	return f != NULL && fclose(f) == 0 && ok;
}

/* A mapped table of slots up to 512 bytes doubles in place (drt_ftab.h):
 * its old pages move into the new mapping, so growing from 8 MiB to 16
 * takes 8 MiB more at its peak; copying into a new table would take 16
 * (old and new both resident until the old goes). Larger slots double
 * by copying; every key keeps its payload either way. Mapped bytes are
 * the table's own rounded up to 2 MiB (8 and 16 MiB: exactly theirs). */
static void ftab_footprint(uint32_t payload, bool in_place)
{
	const size_t huge = (size_t)2 << 20, base = drt_ftab_mapped_bytes();
	size_t slots = 1;
	while (2 * slots * (8 + payload) <= ((size_t)8 << 20))
		slots *= 2;
	const size_t before = slots * (8 + payload); /* 4.5 to 8 MiB */
	struct drt_ftab t;
	uint64_t fill = slots * 6 / 8, bad = 0;

	CHECK_EQ_INT(drt_ftab_init(&t, payload), 0);
	drt_ftab_set_map_min(&t, 64 * 1024);
	for (uint64_t k = 1; k <= fill; k++) {
		uint64_t *v = drt_ftab_add(&t, k * 0x9e3779b97f4a7c15ull);
		CHECK(v != NULL);
		if (v == NULL)
			break;
		v[0] = v[payload / 8 - 1] = k;
	}
	CHECK_EQ_INT(drt_ftab_bytes(&t), before);
	CHECK_EQ_INT(drt_ftab_mapped_bytes() - base, (before + huge - 1) / huge * huge);
	CHECK(reset_peak());
	long peak0 = peak_kib();
	uint64_t *v = drt_ftab_add(&t, (fill + 1) * 0x9e3779b97f4a7c15ull); /* doubles */
	long grew = peak_kib() - peak0;
	CHECK(v != NULL);
	CHECK_EQ_INT(drt_ftab_bytes(&t), 2 * before);
	CHECK_EQ_INT(drt_ftab_mapped_bytes() - base, (2 * before + huge - 1) / huge * huge);
	CHECK(peak0 > 0);
	if (in_place)
		CHECK((size_t)grew * 1024 < before * 3 / 2);
	for (uint64_t k = 1; k <= fill; k++) {
		v = drt_ftab_get(&t, k * 0x9e3779b97f4a7c15ull);
		bad += v == NULL || v[0] != k || v[payload / 8 - 1] != k;
	}
	CHECK_EQ_INT(bad, 0);
	drt_ftab_free(&t);
}

/* Keys at the ends of the range (0, 1, 2^63, the largest storable
 * ones: DRT_FTAB_EMPTY - 1 is stored as the word 1) survive doublings by
 * copying and in place, and deletes. */
static void test_ftab_extreme_keys(void)
{
	static const uint64_t edge[] = {
		0, 1, 2, 1ull << 63, DRT_FTAB_EMPTY - 2, DRT_FTAB_EMPTY - 1
	};
	const int n_edge = (int)(sizeof(edge) / sizeof(edge[0]));

	for (int mapped = 0; mapped < 2; mapped++) {
		struct drt_ftab t;
		uint64_t lost = 0;
		CHECK_EQ_INT(drt_ftab_init(&t, 8), 0);
		if (mapped)
			drt_ftab_set_map_min(&t, 4096);
		for (int i = 0; i < n_edge; i++) {
			uint64_t *v = drt_ftab_add(&t, edge[i]);
			CHECK(v != NULL);
			if (v != NULL)
				*v = (uint64_t)i + 1;
		}
		for (uint64_t k = 1; k <= 5000; k++) /* doubles 10 times */
			CHECK(drt_ftab_add(&t, k * 0x9e3779b97f4a7c15ull + 3) != NULL);
		CHECK_EQ_INT(t.mapped, mapped);
		for (int i = 0; i < n_edge; i++) {
			uint64_t *v = drt_ftab_get(&t, edge[i]);
			lost += v == NULL || *v != (uint64_t)i + 1;
		}
		CHECK_EQ_INT(lost, 0);
		for (int i = 0; i < n_edge; i++) {
			drt_ftab_del(&t, edge[i]);
			CHECK(drt_ftab_get(&t, edge[i]) == NULL);
		}
		CHECK_EQ_INT(t.count, 5000);
		drt_ftab_free(&t);
	}
}

static void test_ftab_mappings(void)
{
	long zero0 = zero_allocs;

	test_ftab_load();
	test_ftab_growth_points();
	test_ftab_extreme_keys();
	test_ftab_grow_short();
	ftab_cycle();
	long vm0 = vm_pages();
	CHECK(vm0 > 0);
	ftab_cycle();
	CHECK_EQ_INT(vm_pages(), vm0); /* no slack of a mapping left behind */
	/* the same when mmap's placement is not 2 MiB aligned (it is on
	 * Linux 6.7 and later for these lengths): both ends trimmed */
	mmap_misalign = true;
	ftab_cycle();
	CHECK_EQ_INT(vm_pages(), vm0);
	CHECK(mmap_misaligned > 0);
	mmap_misalign = false;
	ftab_footprint(8, true);
	ftab_footprint(504, true);
	ftab_footprint(568, false); /* 576-byte slots: over the in-place bound */
	ftab_footprint(1016, false);
	/* no malloc(0) (it may return NULL): growing a mapped table whose
	 * first slot is empty saves no run */
	CHECK_EQ_INT(zero_allocs, zero0);
}

static void test_drt_params(void)
{
	struct drt_params p, q;
	char buf[64], back[64], err[200];
	size_t n = drt_params_count();
	int variants = 0;

	CHECK(n > 5);
	CHECK(drt_params_name(n) == NULL && drt_params_help(n) == NULL);
	/* defaults do not depend on what the struct held before */
	memset(&p, 0xa5, sizeof(p));
	memset(&q, 0x5a, sizeof(q));
	drt_params_default(&p);
	drt_params_default(&q);
	CHECK(memcmp(&p, &q, sizeof(p)) == 0);
	for (size_t i = 0; i < n; i++) {
		const char *name = drt_params_name(i);
		CHECK(name != NULL && drt_params_help(i) != NULL && drt_params_help(i)[0] != '\0');
		if (name == NULL)
			continue;
		CHECK_EQ_INT(drt_params_get(&p, name, buf, sizeof(buf)), 0);
		CHECK_EQ_INT(drt_params_set(&q, name, buf, err, sizeof(err)), 0);
		CHECK_EQ_INT(drt_params_get(&q, name, back, sizeof(back)), 0);
		CHECK(strcmp(buf, back) == 0);
		if (drt_params_set(&q, name, "fre", err, sizeof(err)) == 0) {
			static const char *const v[] = { "nonfre", "fre", "freco" };
			variants++;
			for (int k = 0; k < 3; k++) {
				CHECK_EQ_INT(drt_params_set(&q, name, v[k], err, sizeof(err)), 0);
				CHECK_EQ_INT(drt_params_get(&q, name, back, sizeof(back)), 0);
				CHECK(strcmp(back, v[k]) == 0);
			}
			CHECK_EQ_INT(drt_params_set(&q, name, "1", err, sizeof(err)), -1);
			CHECK(strstr(err, "is not one of nonfre, fre, freco") != NULL);
			continue;
		}
		/* an integer parameter takes decimal digits only */
		struct drt_params tmp = q;
		bool integer = drt_params_set(&tmp, name, "0.5", err, sizeof(err)) != 0 &&
			       strstr(err, "is not an integer") != NULL;
		static const char *const bad[] = { "1x", "", "1e999", "nan", "inf", " " };
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			err[0] = '\0';
			CHECK_EQ_INT(drt_params_set(&q, name, bad[k], err, sizeof(err)), -1);
			char want[128];
			snprintf(want, sizeof(want), "%s: '%s' is not %s", name, bad[k],
				 integer ? "an integer" : "a number");
			CHECK(strcmp(err, want) == 0);
		}
		CHECK_EQ_INT(drt_params_set(&q, name, integer ? "99999999999" : "1e300", err,
					    sizeof(err)),
			     -1);
		CHECK(strstr(err, "is out of range") != NULL);
		CHECK_EQ_INT(drt_params_get(&q, name, back, sizeof(back)), 0);
		CHECK(strcmp(buf, back) == 0); /* refused: unchanged */
	}
	CHECK_EQ_INT(variants, 1);
	CHECK_EQ_INT(drt_params_set(&q, "no_such", "1", err, sizeof(err)), -1);
	CHECK(strstr(err, "unknown drt parameter 'no_such'") != NULL); /* the library's callers */
	CHECK_EQ_INT(drt_params_get(&q, "no_such", back, sizeof(back)), -1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A figure of the engine's stats JSON ("key": included), or -1. */
static uint64_t stat_u64(struct spate_matcher *m, const char *key)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	spate_matcher_engine_stats(m, f);
	fclose(f);
	const char *p = strstr(buf, key);
	uint64_t v = p ? strtoull(p + strlen(key), NULL, 10) : (uint64_t)-1;
	__real_free(buf);
	return v;
}

static void engine_fingerprint(struct spate_matcher *m, uint64_t *h)
{
	struct spate_raw_event re;
	struct spate_matchvec mv = { 0 };

	*h = spate_matcher_sub_count(m);
	for (uint64_t id = 1; id <= 200; id++) {
		memset(&re, 0, sizeof(re));
		re.id = id;
		re.lon = (int32_t)(id * 7919 % (20 * SPATE_COORD_SCALE));
		re.lat = (int32_t)(id * 104729 % SPATE_COORD_SCALE);
		CHECK_EQ_INT(spate_matcher_event(m, &re, &mv), 0);
		*h = *h * 1000003 + mv.n;
		for (size_t k = 0; k < mv.n; k++)
			*h += mv.v[k]->id;
	}
	spate_matchvec_free(&mv);
}

static void test_engine_out_of_memory(void)
{
	struct spate_matcher_conf mc;
	struct spate_raw_sub rs;
	int failed = 0, wrong = 0;
	bool done = false;

	long live0 = n_live;
	spate_matcher_conf_default(&mc);
	mc.engine = "drt";
	struct spate_matcher *m = spate_matcher_create(&mc);
	for (uint64_t id = 1; id <= 300; id++) {
		memset(&rs, 0, sizeof(rs));
		int32_t x = (int32_t)(id % 20) * SPATE_COORD_SCALE;
		rs.id = id;
		rs.rect = (struct spate_rect){ x, 0, x + SPATE_COORD_SCALE, SPATE_COORD_SCALE };
		CHECK_EQ_INT(spate_matcher_sub_add(m, &rs, 1), 0);
	}
	uint64_t before, after;
	engine_fingerprint(m, &before);
	/* A sub far from the others: a new category. */
	memset(&rs, 0, sizeof(rs));
	rs.id = 5000;
	rs.rect = (struct spate_rect){ -80 * SPATE_COORD_SCALE, -40 * SPATE_COORD_SCALE,
				       -79 * SPATE_COORD_SCALE, -39 * SPATE_COORD_SCALE };
	for (long k = 1; k < 2000 && !done; k++) {
		allocs = 0;
		fail_at = k;
		int rc = spate_matcher_sub_add(m, &rs, 1);
		fail_at = 0;
		if (rc == 0) {
			done = true;
			break;
		}
		failed++;
		wrong += rc != -SPATE_E_NO_MEMORY;
		engine_fingerprint(m, &after);
		wrong += after != before;
	}
	CHECK(done);
	CHECK(failed >= 2);
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(spate_matcher_sub_count(m), 301);
	/* Events at the far sub, then it goes and its category with it:
	 * the candidates figure keeps what the category looked at. */
	struct spate_raw_event re;
	struct spate_matchvec mv = { 0 };
	memset(&re, 0, sizeof(re));
	re.lon = (int32_t)(-79.5 * SPATE_COORD_SCALE);
	re.lat = (int32_t)(-39.5 * SPATE_COORD_SCALE);
	for (re.id = 1; re.id <= 10; re.id++) {
		CHECK_EQ_INT(spate_matcher_event(m, &re, &mv), 0);
		CHECK_EQ_INT(mv.n, 1);
	}
	spate_matchvec_free(&mv);
	uint64_t c1 = stat_u64(m, "\"candidates\":");
	CHECK(c1 >= 10);
	CHECK_EQ_INT(spate_matcher_sub_del(m, 5000, 1), 0);
	CHECK_EQ_INT(stat_u64(m, "\"candidates\":"), c1);
	spate_matcher_destroy(m);
	CHECK_EQ_INT(n_live, live0); /* every block back, the failed tries' too */
	CHECK_EQ_INT(bad_frees, 0);
}

/* Merges that run out of memory half-way (every allocation of the add
 * that makes a merge failed in turn): the subscriptions left in the
 * category merged from (an orphan) must still match, be deleted, and
 * go with the engine. Checked against a list of the stored subs: every
 * event at every sub's place matches exactly the subs covering it, and
 * after each delete the deleted sub matches no more. */
#define OM_N 40
static const char *const om_kw[5] = { "ka", "kb", "kc", "kd", "ke" };

/* Five groups of eight. "ka" small rectangles near (0, 0), "kb" wide
 * ones over them (a category of its own, co-matching with the first),
 * "kc" far away: its first sub makes a third category, and with cmax 2
 * the two co-matching ones merge. Then, with cmax 3, "kd" wide over
 * "kc" (a category co-matching with kc's), and "ke" far away again:
 * with cmax back at 2, its first sub makes kc's and kd's categories
 * merge. So two merges can fail and leave two orphans. */
static void om_place(struct spate_raw_sub *rs, uint64_t id)
{
	int g = (int)((id - 1) / 8), off = (int)((id - 1) % 8);
	const int32_t u = SPATE_COORD_SCALE;

	memset(rs, 0, sizeof(*rs));
	rs->id = id;
	rs->n_kw = 1;
	rs->kw[0] = (struct spate_str){ om_kw[g], 2 };
	if (g == 0)
		rs->rect = (struct spate_rect){ off * u, 0, (off + 2) * u, 2 * u };
	else if (g == 1)
		rs->rect = (struct spate_rect){ 0, 0, (40 + off) * u, 20 * u };
	else if (g == 2)
		rs->rect =
			(struct spate_rect){ (-100 + off) * u, -50 * u, (-98 + off) * u, -48 * u };
	else if (g == 3)
		rs->rect = (struct spate_rect){ -100 * u, -50 * u, (-60 + off) * u, -30 * u };
	else
		rs->rect = (struct spate_rect){ (100 + off) * u, 50 * u, (102 + off) * u, 52 * u };
}

static void om_event(struct spate_raw_event *re, uint64_t id, int32_t lon, int32_t lat)
{
	memset(re, 0, sizeof(*re));
	re->id = id;
	re->lon = lon;
	re->lat = lat;
	re->n_kw = 5;
	for (int k = 0; k < 5; k++)
		re->kw[k] = (struct spate_str){ om_kw[k], 2 };
}

/* Twenty events where two groups' subs overlap: co-matches. */
static void om_comatch(struct spate_matcher *m, int32_t lon, int32_t lat)
{
	struct spate_raw_event re;
	struct spate_matchvec mv = { 0 };

	for (uint64_t e = 1; e <= 20; e++) {
		om_event(&re, e, lon, lat);
		CHECK_EQ_INT(spate_matcher_event(m, &re, &mv), 0);
	}
	spate_matchvec_free(&mv);
}

static int om_check(struct spate_matcher *m, const bool *live)
{
	struct spate_raw_event re;
	struct spate_matchvec mv = { 0 };
	struct spate_raw_sub rs;
	int wrong = 0;

	for (uint64_t at = 1; at <= OM_N; at++) {
		om_place(&rs, at);
		om_event(&re, at, rs.rect.min_lon + SPATE_COORD_SCALE / 2,
			 rs.rect.min_lat + SPATE_COORD_SCALE / 2);
		if (spate_matcher_event(m, &re, &mv) != 0)
			return 1;
		size_t want = 0;
		for (uint64_t id = 1; id <= OM_N; id++) {
			struct spate_raw_sub q;
			om_place(&q, id);
			want += live[id] && q.rect.min_lon <= re.lon && re.lon <= q.rect.max_lon &&
				q.rect.min_lat <= re.lat && re.lat <= q.rect.max_lat;
		}
		wrong += mv.n != want;
		for (size_t k = 0; k < mv.n; k++)
			wrong += !live[mv.v[k]->id];
	}
	spate_matchvec_free(&mv);
	return wrong;
}

static void test_engine_merge_orphans(void)
{
	struct spate_matcher_conf mc;
	struct spate_raw_sub rs;
	int wrong = 0, failed = 0;
	uint64_t most_orphans = 0, orphaned = 0;

	/* every k twice: deleting every sub, then destroying at once */
	for (long kk = 2; kk < 800; kk++) {
		long k = kk / 2;
		bool destroy_first = kk & 1;
		bool live[OM_N + 1] = { false };
		long live0 = n_live, bad0 = bad_frees;
		spate_matcher_conf_default(&mc);
		mc.engine = "drt";
		mc.params.drt.cmax = 2;
		mc.params.drt.workers = 1;
		struct spate_matcher *m = spate_matcher_create(&mc);
		for (uint64_t id = 1; id <= OM_N; id++) {
			om_place(&rs, id);
			const int32_t u = SPATE_COORD_SCALE;
			if (id == 17) /* ka with kb, then kc's first sub: a merge */
				om_comatch(m, u, u);
			if (id == 25) { /* room for kd's own category */
				mc.params.drt.cmax = 3;
				CHECK_EQ_INT(spate_matcher_set_params(m, &mc.params, NULL, 0), 0);
			}
			if (id == 33) { /* kc with kd, then ke's first sub: a merge */
				om_comatch(m, -99 * u, -49 * u);
				mc.params.drt.cmax = 2;
				CHECK_EQ_INT(spate_matcher_set_params(m, &mc.params, NULL, 0), 0);
			}
			if (id == 17 || id == 33) {
				allocs = 0;
				fail_at = k;
			}
			int rc = spate_matcher_sub_add(m, &rs, 1);
			fail_at = 0;
			failed += rc != 0;
			live[id] = rc == 0;
		}
		/* every orphan kept and counted: now as ever, none yet deleted */
		uint64_t now = stat_u64(m, "\"orphans\":");
		wrong += now != stat_u64(m, "\"orphaned\":") || now > 2;
		most_orphans = now > most_orphans ? now : most_orphans;
		orphaned += now;
		wrong += om_check(m, live);
		if (destroy_first) { /* destroyed with its orphans: nothing kept */
			spate_matcher_destroy(m);
			wrong += n_live != live0 || bad_frees != bad0;
			continue;
		}
		for (uint64_t id = 1; id <= OM_N; id++)
			if (live[id]) {
				CHECK_EQ_INT(spate_matcher_sub_del(m, id, 1), 0);
				live[id] = false;
				wrong += om_check(m, live);
			}
		wrong += om_check(m, live);
		CHECK_EQ_INT(spate_matcher_sub_count(m), 0);
		/* each orphan went with its last sub, the older ones first
		 * (ids in order): unlinked from behind the newer */
		wrong += stat_u64(m, "\"orphans\":") != 0 || stat_u64(m, "\"orphaned\":") != now;
		spate_matcher_destroy(m);
		wrong += n_live != live0 || bad_frees != bad0;
	}
	/* the placement's own allocations fail the add; the merge's leave
	 * an orphan behind a successful one */
	CHECK(failed >= 2 && failed < 798);
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(most_orphans, 2);
	CHECK(orphaned >= 20);
}

/* A new category merged by the very add that made it, when the engine
 * cannot make its side of it: ka's and kb's categories co-matched, kb's
 * emptied (the pair stays counted until the period ends, so a new sub
 * far from everything gets a category of its own), cmax 1: kc's first
 * sub makes a category that merges at once into ka's. Every allocation
 * of that add fails in turn: the add fails or succeeds whole, and the
 * merge of a category the engine never made is skipped. */
static void test_engine_fresh_merged(void)
{
	struct spate_matcher_conf mc;
	struct spate_raw_sub rs;
	int wrong = 0, failed = 0, merged = 0;

	for (long k = 1; k < 300; k++) {
		bool live[OM_N + 1] = { false };
		long live0 = n_live, bad0 = bad_frees;
		spate_matcher_conf_default(&mc);
		mc.engine = "drt";
		mc.params.drt.workers = 1;
		struct spate_matcher *m = spate_matcher_create(&mc);
		for (uint64_t id = 1; id <= 16; id++) {
			om_place(&rs, id);
			CHECK_EQ_INT(spate_matcher_sub_add(m, &rs, 1), 0);
			live[id] = true;
		}
		om_comatch(m, SPATE_COORD_SCALE, SPATE_COORD_SCALE);
		for (uint64_t id = 9; id <= 16; id++) {
			CHECK_EQ_INT(spate_matcher_sub_del(m, id, 1), 0);
			live[id] = false;
		}
		mc.params.drt.cmax = 1;
		CHECK_EQ_INT(spate_matcher_set_params(m, &mc.params, NULL, 0), 0);
		uint64_t created = stat_u64(m, "\"created\":");
		om_place(&rs, 17);
		allocs = 0;
		fail_at = k;
		int rc = spate_matcher_sub_add(m, &rs, 1);
		fail_at = 0;
		failed += rc != 0;
		live[17] = rc == 0;
		merged += stat_u64(m, "\"created\":") == created + 1 &&
			  stat_u64(m, "\"categories\":") == 1;
		wrong += om_check(m, live);
		for (uint64_t id = 1; id <= 17; id++)
			if (live[id]) {
				CHECK_EQ_INT(spate_matcher_sub_del(m, id, 1), 0);
				live[id] = false;
			}
		wrong += om_check(m, live);
		spate_matcher_destroy(m);
		wrong += n_live != live0 || bad_frees != bad0;
	}
	CHECK_EQ_INT(wrong, 0);
	/* the scenario as meant: the new category made and merged at once
	 * (when nothing failed, or a hint's allocation), some adds failed */
	CHECK(failed >= 2 && merged >= 250);
}

/* Only categories an event matched in are co-matched: ka's category
 * and kb's (each kb sub wanting p < 10) are both routed an event at
 * (1, 1) carrying ka and kb, but with p = 20 only ka's matches: no pair
 * is counted; with p = 5 both match: one pair. */
static void test_engine_comatch_needs_matches(void)
{
	struct spate_matcher_conf mc;
	struct spate_raw_sub rs;
	struct spate_raw_event re;
	struct spate_matchvec mv = { 0 };

	spate_matcher_conf_default(&mc);
	mc.engine = "drt";
	mc.params.drt.workers = 1;
	struct spate_matcher *m = spate_matcher_create(&mc);
	CHECK_EQ_INT(stat_u64(m, "\"category_bytes\":"), 0); /* no category yet */
	for (uint64_t id = 1; id <= 16; id++) {
		om_place(&rs, id);
		if (id > 8) {
			rs.n_cons = 1;
			rs.cons[0] = (struct spate_raw_constraint){ { "p", 1 }, SPATE_OP_LT, 10 };
		}
		CHECK_EQ_INT(spate_matcher_sub_add(m, &rs, 1), 0);
	}
	CHECK_EQ_INT(stat_u64(m, "\"categories\":"), 2);
	for (int i = 0; i < 2; i++) {
		double p = i == 0 ? 20 : 5;
		size_t want = i == 0 ? 2 : 10; /* ka's subs 1 and 2 hold (1, 1) */
		for (uint64_t e = 1; e <= 5; e++) {
			om_event(&re, e, SPATE_COORD_SCALE, SPATE_COORD_SCALE);
			re.n_attr = 1;
			re.attr[0] = (struct spate_raw_attr){ { "p", 1 }, p };
			CHECK_EQ_INT(spate_matcher_event(m, &re, &mv), 0);
			CHECK_EQ_INT(mv.n, want);
		}
		CHECK_EQ_INT(stat_u64(m, "\"routed\":"), 10 * (i + 1));
		CHECK_EQ_INT(stat_u64(m, "\"corr_pairs\":"), i);
	}
	/* every category gone: none of their bytes counted any more */
	for (uint64_t id = 1; id <= 16; id++)
		CHECK_EQ_INT(spate_matcher_sub_del(m, id, 1), 0);
	CHECK_EQ_INT(stat_u64(m, "\"categories\":"), 0);
	CHECK_EQ_INT(stat_u64(m, "\"category_bytes\":"), 0);
	spate_matchvec_free(&mv);
	spate_matcher_destroy(m);
}

/* Every add making a category of its own (new_th 1: no sub is like
 * another), each with every one of its allocations failed in turn
 * (an add that succeeds anyway is deleted again): a failed add changes
 * nothing, and at the end each sub matches at its place alone. Not
 * reached: the engine's id map refusing a new category (its growth at
 * the 33rd comes in a try that fails later, so every later try finds
 * it grown). */
static void test_engine_new_category_no_memory(void)
{
	enum { N = 48 };
	struct spate_matcher_conf mc;
	struct spate_raw_sub rs;
	struct spate_raw_event re;
	struct spate_matchvec mv = { 0 };
	const int32_t u = SPATE_COORD_SCALE;
	int failed = 0, wrong = 0;
	long live0 = n_live;

	spate_matcher_conf_default(&mc);
	mc.engine = "drt";
	mc.params.drt.workers = 1;
	mc.params.drt.cmax = 1000;
	mc.params.drt.new_th = 1;
	struct spate_matcher *m = spate_matcher_create(&mc);
	for (uint64_t id = 1; id <= N; id++) {
		memset(&rs, 0, sizeof(rs));
		rs.id = id;
		rs.n_kw = 1;
		rs.kw[0] = (struct spate_str){ "ka", 2 };
		rs.rect = (struct spate_rect){ (int32_t)id * 3 * u, 0, ((int32_t)id * 3 + 1) * u, u };
		for (long k = 1;; k++) {
			allocs = 0;
			fail_at = k;
			int rc = spate_matcher_sub_add(m, &rs, 1);
			fail_at = 0;
			if (allocs < k) { /* nothing failed: stored for good */
				CHECK_EQ_INT(rc, 0);
				break;
			}
			failed += rc != 0;
			if (rc == 0)
				CHECK_EQ_INT(spate_matcher_sub_del(m, id, 1), 0);
		}
	}
	CHECK_EQ_INT(spate_matcher_sub_count(m), N);
	CHECK_EQ_INT(stat_u64(m, "\"categories\":"), N);
	for (uint64_t id = 1; id <= N; id++) {
		om_event(&re, id, (int32_t)id * 3 * u + u / 2, u / 2);
		CHECK_EQ_INT(spate_matcher_event(m, &re, &mv), 0);
		wrong += mv.n != 1 || (mv.n == 1 && mv.v[0]->id != id);
	}
	CHECK_EQ_INT(wrong, 0);
	CHECK(failed > N);
	spate_matchvec_free(&mv);
	spate_matcher_destroy(m);
	CHECK_EQ_INT(n_live, live0);
}

static void sum_cat(void *ctx, const struct spate_category_info *ci)
{
	uint64_t *v = ctx;

	v[0]++;
	v[1] += ci->n_subs;
	v[2] += ci->inserts;
}

static void test_worker_timing(void)
{
	struct spate_matcher_conf mc;
	struct spate_raw_sub rs;
	struct spate_raw_event re;
	struct spate_matchvec mv = { 0 };

	long live0 = n_live;

	spate_matcher_conf_default(&mc);
	mc.engine = "drt";
	mc.params.drt.workers = 3;
	mc.params.drt_time_workers = true;
	struct spate_matcher *m = spate_matcher_create(&mc);
	CHECK(m != NULL);
	char *st0 = NULL;
	size_t st0_len = 0;
	FILE *f0 = open_memstream(&st0, &st0_len);
	spate_matcher_engine_stats(m, f0);
	fclose(f0);
	CHECK(strstr(st0, "\"routed_per_event\":0.000,") != NULL); /* no event yet: 0, not NaN */
	__real_free(st0);
	check_rng = 99;
	for (uint64_t id = 1; id <= 400; id++) {
		memset(&rs, 0, sizeof(rs));
		int32_t x = (int32_t)check_below(20) * SPATE_COORD_SCALE;
		rs.id = id;
		rs.rect = (struct spate_rect){ x, 0, x + SPATE_COORD_SCALE, SPATE_COORD_SCALE };
		CHECK_EQ_INT(spate_matcher_sub_add(m, &rs, 1), 0);
	}
	uint64_t t0 = now_ns(), matched = 0;
	for (uint64_t id = 1; id <= 2000; id++) {
		memset(&re, 0, sizeof(re));
		re.id = id;
		re.lon = (int32_t)check_below(20 * SPATE_COORD_SCALE);
		re.lat = (int32_t)check_below(SPATE_COORD_SCALE);
		CHECK_EQ_INT(spate_matcher_event(m, &re, &mv), 0);
		matched += mv.n;
	}
	uint64_t wall = now_ns() - t0;
	CHECK(matched > 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	spate_matcher_engine_stats(m, f);
	fclose(f);
	const char *w = strstr(buf, "\"worker_match_ns\":[");
	CHECK(w != NULL);
	uint64_t sum = 0;
	int n = 0;
	if (w != NULL) {
		char *p = strchr(w, '[') + 1;
		while (*p != ']' && n < 10) {
			CHECK(*p >= '0' && *p <= '9'); /* a number, no empty slot */
			unsigned long long v = strtoull(p, &p, 10);
			CHECK(v <= wall);
			sum += v;
			n++;
			if (*p == ',')
				p++;
		}
	}
	CHECK_EQ_INT(n, 3);
	CHECK(sum > 0 && sum <= wall);
	uint64_t cats[3] = { 0, 0, 0 };
	CHECK_EQ_INT(spate_matcher_categories(m, sum_cat, cats), 0);
	CHECK_EQ_INT(cats[1], 400);
	CHECK_EQ_INT(cats[2], 400); /* inserts of this period, merged ones' too */
	char want[64];
	snprintf(want, sizeof(want), "{\"categories\":%llu,", (unsigned long long)cats[0]);
	CHECK(strncmp(buf, want, strlen(want)) == 0);
	CHECK(cats[0] > 0);
	const char *cb = strstr(buf, "\"category_bytes\":");
	CHECK(cb != NULL && strtoull(cb + 17, NULL, 10) > 0);
	__real_free(buf);
	/* the operator's "rebalance now" ends a load period at once */
	uint64_t periods = stat_u64(m, "\"periods\":");
	CHECK(periods != (uint64_t)-1);
	CHECK_EQ_INT(spate_matcher_rebalance(m), 0);
	CHECK(stat_u64(m, "\"periods\":") == periods + 1);
	/* Refused at run time, the old parameters stay. */
	char err[200] = "";
	struct spate_engine_params p = mc.params;
	p.drt.workers = 4;
	CHECK_EQ_INT(spate_matcher_set_params(m, &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "workers changes at the next start only") != NULL);
	p = mc.params;
	p.drt.cat_cell = mc.params.drt.cat_cell * 2;
	CHECK_EQ_INT(spate_matcher_set_params(m, &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "cat_cell") != NULL);
	p = mc.params;
	p.drt.workers = 4;
	p.drt.cat_cell = mc.params.drt.cat_cell;
	CHECK_EQ_INT(spate_matcher_set_params(m, &p, err, sizeof(err)), -1);
	CHECK_EQ_INT(spate_matcher_set_params(m, &mc.params, err, sizeof(err)), 0);
	spate_matchvec_free(&mv);
	spate_matcher_destroy(m);
	CHECK_EQ_INT(n_live, live0); /* the per-worker times' block too */
}

int main(void)
{
	test_filing_keyword();
	test_routed_content_only();
	test_routed_edges();
	test_coarse_filing();
	test_category_bytes();
	test_merge_out_of_memory();
	test_ftab_mappings();
	test_drt_params();
	test_engine_out_of_memory();
	test_engine_merge_orphans();
	test_engine_fresh_merged();
	test_engine_comatch_needs_matches();
	test_engine_new_category_no_memory();
	test_worker_timing();
	CHECK_EQ_INT(overruns, 0); /* nothing written past a block */
	return check_summary("category");
}
