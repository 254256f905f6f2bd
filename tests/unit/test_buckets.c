/* test_buckets.c - MP-REIN's sorted buckets (rein_bucket.h: the skip list
 * of blocks, rein_skiplist.c, and the paper's sorted list,
 * rein_sortlist.c) against a sorted array, by exact values (issue 24):
 *   - after every operation: the count, every entry marked by mark_all
 *     and nothing else, mark_below marking exactly the entries before
 *     the query (queries at the entries' own keys and ties, one tie
 *     either side, and between keys), valid() true;
 *   - bytes: the sorted list one node an entry; the skip list's first
 *     block starts at 4 entries and doubles while alone (one 64-byte
 *     header line and 12 bytes an entry), then blocks of 128, split
 *     in halves when full, merged with the next when a delete leaves the
 *     two at most half a block;
 *   - an insert that runs out of memory at any allocation: -1 and the
 *     bucket as it was; removes never allocate;
 *   - every block given back by remove and clear, none freed twice
 *     (allocations tracked: alloc_track.h). */
#include <stdlib.h>
#include <string.h>

#include "alloc_track.h"
#include "check.h"
#include "engines/rein/rein_bucket.h"

#define MAXN 3000
#define WORDS (MAXN / 64 + 1)

struct ent {
	double k;
	uint32_t t;
};

struct model {
	const struct rein_bucket_ops *bk;
	void *b;
	struct ent ref[MAXN];
	uint32_t n;
	bool used[MAXN];
	uint64_t rng;
	uint64_t mark[WORDS];
	const char *what;
	long base; /* n_live with the model and the empty bucket */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (rb_before(x->k, x->t, y->k, y->t))
		return -1;
	return rb_before(y->k, y->t, x->k, x->t);
}

static uint32_t marked(const uint64_t *mark)
{
	uint32_t n = 0;

	for (uint32_t w = 0; w < WORDS; w++)
		n += (uint32_t)__builtin_popcountll(mark[w]);
	return n;
}

static bool is_marked(const uint64_t *mark, uint32_t t)
{
	uint32_t i = t & RB_TIE_SLOT;

	return mark[i >> 6] >> (i & 63) & 1;
}

/* mark_below(k, t) marks exactly the entries before (k, t). */
static bool below_ok(struct model *m, double k, uint32_t t)
{
	uint32_t want = 0;
	bool ok = true;

	memset(m->mark, 0, sizeof(m->mark));
	m->bk->mark_below(m->b, m->mark, k, t);
	for (uint32_t i = 0; i < m->n; i++) {
		bool before = rb_before(m->ref[i].k, m->ref[i].t, k, t);
		want += before;
		ok &= is_marked(m->mark, m->ref[i].t) == before;
	}
	return ok && marked(m->mark) == want;
}

/* The whole state against the model. */
static void check_state(struct model *m)
{
	bool ok = m->bk->valid(m->b) && m->bk->count(m->b) == m->n;

	memset(m->mark, 0, sizeof(m->mark));
	m->bk->mark_all(m->b, m->mark);
	ok &= marked(m->mark) == m->n;
	for (uint32_t i = 0; i < m->n; i++)
		ok &= is_marked(m->mark, m->ref[i].t);
	/* below the first, above the last, at and around some entries */
	ok &= below_ok(m, -1e300, 0);
	ok &= below_ok(m, 1e300, RB_TIE_LAX);
	for (uint32_t j = 0; j < 6 && m->n > 0; j++) {
		const struct ent *e = &m->ref[check_rand() % m->n];
		ok &= below_ok(m, e->k, e->t);
		ok &= below_ok(m, e->k, e->t + 1);
		ok &= below_ok(m, e->k, e->t - 1);
		ok &= below_ok(m, e->k, RB_TIE_LAX);
		ok &= below_ok(m, e->k, 0);
		ok &= below_ok(m, e->k + 0.5, 0);
	}
	/* the blocks held: the sorted list's nodes, the skip list's blocks
	 * (one, or every one full size) */
	long held = n_live - m->base;
	size_t bytes = m->bk->bytes(m->b), per = 64 + 128 * 12;
	if (strcmp(m->bk->name, "sortlist") == 0)
		ok &= held == (long)m->n;
	else if (m->n == 0)
		ok &= held == 0 && bytes == 0;
	else
		ok &= held == (bytes % per == 0 ? (long)(bytes / per) : 1);
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "  %s: %s with %u entries, %ld blocks, %zu bytes\n", m->what,
			m->bk->name, m->n, held, bytes);
}

static double gen_key(void)
{
	/* few distinct keys (ties decide), now and then a fraction */
	return check_below(5) ? (double)check_below(30) - 15 : (double)check_below(1000) / 8.0;
}

static void insert(struct model *m)
{
	uint32_t slot;

	do
		slot = check_below(MAXN - 1) + 1;
	while (m->used[slot]);
	struct ent x = { gen_key(), rb_tie(slot, check_below(2)) };
	CHECK_EQ_INT(m->bk->insert(m->b, x.k, x.t, &m->rng), 0);
	m->used[slot] = true;
	uint32_t at = m->n;
	while (at > 0 && ent_cmp(&m->ref[at - 1], &x) > 0)
		at--;
	memmove(m->ref + at + 1, m->ref + at, (m->n - at) * sizeof(*m->ref));
	m->ref[at] = x;
	m->n++;
}

static void remove_at(struct model *m, uint32_t i)
{
	long a0 = allocs;
	struct ent x = m->ref[i];

	CHECK(!m->bk->remove(m->b, x.k, x.t ^ RB_TIE_LAX)); /* absent twin */
	CHECK(!m->bk->remove(m->b, x.k + 0.25, x.t));
	CHECK(m->bk->remove(m->b, x.k, x.t));
	CHECK(!m->bk->remove(m->b, x.k, x.t));
	CHECK_EQ_INT(allocs, a0); /* removes never allocate */
	m->used[x.t & RB_TIE_SLOT] = false;
	memmove(m->ref + i, m->ref + i + 1, (m->n - i - 1) * sizeof(*m->ref));
	m->n--;
}

/* The skip list's bytes while it is one block: the first block holds 4
 * and doubles when full; 64 bytes of header, 12 an entry. */
static size_t one_block_bytes(uint32_t n)
{
	uint32_t cap = 4;

	while (cap < n)
		cap *= 2;
	return 64 + (size_t)cap * (sizeof(uint32_t) + sizeof(double));
}

static void test_bytes(const struct rein_bucket_ops *bk)
{
	struct model *m = calloc(1, sizeof(*m));
	bool sk = strcmp(bk->name, "skiplist") == 0;

	m->bk = bk;
	m->b = calloc(1, bk->size);
	m->base = n_live;
	m->rng = 5;
	m->what = "bytes";
	CHECK_EQ_INT(bk->bytes(m->b), 0);
	for (uint32_t i = 1; i <= 128; i++) {
		insert(m);
		size_t want = sk ? one_block_bytes(i) : i * (sizeof(void *) + 16);
		CHECK_EQ_INT(bk->bytes(m->b), want);
		check_state(m);
	}
	/* past one block: full-size blocks only, at least half full after
	 * a split */
	for (uint32_t i = 0; i < 400; i++)
		insert(m);
	check_state(m);
	size_t per = sk ? 64 + 128 * 12 : sizeof(void *) + 16;
	size_t b = bk->bytes(m->b);
	CHECK(b % per == 0);
	CHECK(sk ? b / per >= (m->n + 127) / 128 && b / per <= m->n / 64 : b / per == m->n);
	while (m->n > 40)
		remove_at(m, check_below(m->n));
	check_state(m);
	CHECK(bk->bytes(m->b) % per == 0);
	bk->clear(m->b);
	CHECK_EQ_INT(bk->count(m->b), 0);
	CHECK_EQ_INT(bk->bytes(m->b), 0);
	free(m->b);
	free(m);
}

/* The skip list's splits and merges, by its bytes (blocks of 128 once
 * there are two): keys 0..255 in order split into blocks of 64, 64 and
 * 128 entries; a block and its successor merge when a delete leaves
 * them together at most half a block (64), not before. */
static void test_merge(void)
{
	const struct rein_bucket_ops *bk = &rein_bucket_skiplist;
	void *b = calloc(1, bk->size);
	uint64_t rng = 9;
	const size_t per = 64 + 128 * 12;

	for (uint32_t k = 0; k < 256; k++)
		CHECK_EQ_INT(bk->insert(b, k, k + 1, &rng), 0);
	CHECK(bk->valid(b));
	CHECK_EQ_INT(bk->bytes(b), 3 * per);
	for (uint32_t k = 0; k < 63; k++) { /* the first block down to 1 */
		CHECK(bk->remove(b, k, k + 1));
		CHECK_EQ_INT(bk->bytes(b), 3 * per);
	}
	CHECK(bk->remove(b, 63, 64)); /* its last entry: it goes */
	CHECK_EQ_INT(bk->bytes(b), 2 * per);
	for (uint32_t k = 138; k < 256; k++) /* the last block down to 10 */
		CHECK(bk->remove(b, k, k + 1));
	CHECK_EQ_INT(bk->bytes(b), 2 * per);
	for (uint32_t k = 64; k < 73; k++) { /* 64 + 10 down to 55 + 10 */
		CHECK(bk->remove(b, k, k + 1));
		CHECK_EQ_INT(bk->bytes(b), 2 * per);
	}
	CHECK(bk->remove(b, 73, 74)); /* 54 + 10: merged */
	CHECK_EQ_INT(bk->bytes(b), per);
	CHECK_EQ_INT(bk->count(b), 64);
	CHECK(bk->valid(b));
	bk->clear(b);
	free(b);
}

/* Grow, churn, shrink to empty, with the state checked all along. */
static void test_churn(const struct rein_bucket_ops *bk, uint32_t target, uint64_t seed)
{
	long live0 = n_live;
	struct model *m = calloc(1, sizeof(*m));

	check_rng = seed;
	m->bk = bk;
	m->b = calloc(1, bk->size);
	m->base = n_live;
	m->rng = seed;
	m->what = "churn";
	for (uint32_t op = 0; op < 4 * target; op++) {
		bool grow = op < target ? true : op < 3 * target ? check_below(2) : false;
		if (grow && m->n < MAXN - 2)
			insert(m);
		else if (m->n > 0)
			remove_at(m, check_below(m->n));
		if (m->n < 150 || op % 53 == 0)
			check_state(m);
	}
	while (m->n > 0) {
		remove_at(m, check_below(m->n));
		if (m->n < 150 || m->n % 53 == 0)
			check_state(m);
	}
	CHECK_EQ_INT(bk->count(m->b), 0);
	/* empty: every block given back */
	CHECK_EQ_INT(n_live, live0 + 2);
	free(m->b);
	free(m);
	CHECK_EQ_INT(bad_frees, 0);
}

/* Out of memory at an insert, whatever the bucket's shape: -1, nothing
 * changed; clear gives every block back. */
static void test_no_memory(const struct rein_bucket_ops *bk)
{
	long live0 = n_live;
	struct model *m = calloc(1, sizeof(*m));
	uint32_t refused = 0;

	check_rng = 77;
	m->bk = bk;
	m->b = calloc(1, bk->size);
	m->base = n_live;
	m->rng = 3;
	m->what = "no memory";
	for (uint32_t i = 0; i < 700; i++) {
		struct ent x = { gen_key(),
				 rb_tie(0, check_below(2)) }; /* slot 0: never inserted */
		allocs = 0;
		fail_at = 1;
		int rc = bk->insert(m->b, x.k, x.t, &m->rng);
		fail_at = 0;
		if (rc == 0) {
			/* it did not need memory: take it back out */
			CHECK(bk->remove(m->b, x.k, x.t));
		} else {
			CHECK_EQ_INT(rc, -1);
			refused++;
		}
		if (i % 7 == 0 || rc != 0)
			check_state(m);
		insert(m);
	}
	CHECK(refused > 5);
	bk->clear(m->b);
	CHECK_EQ_INT(bk->count(m->b), 0);
	memset(m->mark, 0, sizeof(m->mark));
	bk->mark_all(m->b, m->mark);
	CHECK_EQ_INT(marked(m->mark), 0);
	CHECK_EQ_INT(n_live, live0 + 2);
	CHECK_EQ_INT(bad_frees, 0);
	free(m->b);
	free(m);
}

int main(void)
{
	const struct rein_bucket_ops *bks[] = { &rein_bucket_skiplist, &rein_bucket_sortlist };

	test_merge();
	for (int i = 0; i < 2; i++) {
		test_bytes(bks[i]);
		test_no_memory(bks[i]);
		test_churn(bks[i], 5, 11);
		test_churn(bks[i], 300, 12);
		test_churn(bks[i], 2500, 13);
	}
	CHECK_EQ_INT(n_live, 0);
	CHECK_EQ_INT(zero_allocs, 0);
	CHECK_EQ_INT(overruns, 0); /* nothing written past a block */
	return check_summary("buckets");
}
