/* rein_skiplist.c - MP-REIN's bucket (rein_bucket.h): a skip list whose
 * nodes are blocks of up to RSK_BLOCK entries.
 *
 * Why blocks: a skip list with one entry a node chases one pointer per
 * entry wherever it walks in order (wholesale marking, the comparison
 * bucket), and its nodes are scattered, so at 100,000 subscriptions every
 * step of a descent and every entry marked was a cache miss (45 us an
 * insert, docs/benchmarks.md before). Over blocks, the descent runs over
 * about n/80 nodes (still O(log n)), reading one line a node, and marking
 * reads each block's slot array in order, like REIN's vectors.
 *
 * The order is kept between blocks, not inside them. Each block has a
 * fence (key, tie): every entry of the block is at or above its fence and
 * below the next block's fence; fences ascend. So an insert descends to
 * the last block whose fence is at or below the entry and appends to it;
 * a delete descends the same way and finds the entry by its tie (a slot
 * is in a bucket at most once), moving the last entry into its place. The
 * comparison bucket marks whole blocks while the next block's fence is at
 * or below the event's value, then compares in one block and stops.
 *
 * Layout of a block: one line of header (count, level, capacity, fence,
 * the level links), then tie[cap], then key[cap]. Only the first block of
 * a bucket starts small (4 entries) and is doubled while it is the only
 * one; a full block splits around its median (a selection, O(RSK_BLOCK)),
 * and a delete that leaves a block and its successor together at most
 * half a block merges them, so blocks stay well filled whatever the churn.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/rein/rein_bucket.h"

#ifndef RSK_BLOCK
#define RSK_BLOCK 128 /* entries a block holds, a power of two */
#endif
#define RSK_LEVELS 6 /* p = 1/4: 4^6 blocks (~300,000 entries) before it degrades */
#define RSK_FIRST_CAP 4

struct rsk_blk {
	uint16_t n;
	uint8_t level;
	uint8_t cap_log; /* capacity 1 << cap_log */
	uint32_t fence_tie;
	double fence_key;
	struct rsk_blk *next[RSK_LEVELS];
	/* uint32_t tie[cap]; double key[cap]; */
};

struct rein_skiplist {
	struct rsk_blk *head[RSK_LEVELS];
	uint32_t n;
	uint8_t top; /* levels in use: the highest block level seen */
};

static inline uint32_t bcap(const struct rsk_blk *b)
{
	return 1u << b->cap_log;
}

static inline uint32_t *btie(const struct rsk_blk *b)
{
	return (uint32_t *)(uintptr_t)(b + 1);
}

static inline double *bkey(const struct rsk_blk *b)
{
	return (double *)(btie(b) + bcap(b));
}

static struct rsk_blk *blk_alloc(uint8_t cap_log, uint8_t level)
{
	size_t cap = (size_t)1 << cap_log;
	struct rsk_blk *b = malloc(sizeof(*b) + cap * (sizeof(uint32_t) + sizeof(double)));

	if (b != NULL) {
		memset(b, 0, sizeof(*b));
		b->cap_log = cap_log;
		b->level = level;
	}
	return b;
}

static uint8_t draw_level(struct rein_skiplist *s, uint64_t *rng)
{
	uint8_t l = 1;

	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	for (uint64_t r = *rng; l < RSK_LEVELS && (r & 3) == 0; r >>= 2)
		l++;
	if (l > s->top)
		s->top = l;
	return l;
}

/* Is y's fence before (k, t), or equal to it with or_equal? */
static inline bool fence_before(const struct rsk_blk *y, double k, uint32_t t, bool or_equal)
{
	return rb_before(y->fence_key, y->fence_tie, k, t) ||
	       (or_equal && y->fence_key == k && y->fence_tie == t);
}

/* Descend to the last block whose fence is before (k, t) (or equal to it,
 * with or_equal); NULL when there is none. upd[l]: the link at level l
 * that leads past it (the head's or a block's). */
static struct rsk_blk *descend(struct rein_skiplist *s, double k, uint32_t t, bool or_equal,
			       struct rsk_blk **upd[RSK_LEVELS])
{
	struct rsk_blk *x = NULL, **nx = s->head;

	for (int l = RSK_LEVELS - 1; l >= s->top; l--)
		upd[l] = &s->head[l];
	for (int l = s->top - 1; l >= 0; l--) {
		struct rsk_blk *y;
		while ((y = nx[l]) != NULL && fence_before(y, k, t, or_equal)) {
			x = y;
			nx = y->next;
		}
		upd[l] = &nx[l];
	}
	return x;
}

/* Take b out of the level links and free it. */
static void unlink_free(struct rein_skiplist *s, struct rsk_blk *b)
{
	struct rsk_blk **upd[RSK_LEVELS];

	descend(s, b->fence_key, b->fence_tie, false, upd);
	for (int l = 0; l < b->level; l++)
		*upd[l] = b->next[l];
	free(b);
}

static void copy_entries(struct rsk_blk *dst, uint32_t at, const struct rsk_blk *src, uint32_t from,
			 uint32_t n)
{
	memcpy(btie(dst) + at, btie(src) + from, n * sizeof(uint32_t));
	memcpy(bkey(dst) + at, bkey(src) + from, n * sizeof(double));
}

static inline void swap_entries(double *key, uint32_t *tie, uint32_t i, uint32_t j)
{
	double k = key[i];
	uint32_t t = tie[i];

	key[i] = key[j];
	tie[i] = tie[j];
	key[j] = k;
	tie[j] = t;
}

/* Reorder key/tie[0, n) so that the entry at m is the one the sorted order
 * puts there, those before it are before it and those after after it
 * (quickselect, median of three). */
static void select_nth(double *key, uint32_t *tie, uint32_t n, uint32_t m)
{
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		/* median of lo, mid, hi to hi as the pivot */
		if (rb_before(key[mid], tie[mid], key[lo], tie[lo]))
			swap_entries(key, tie, mid, lo);
		if (rb_before(key[hi], tie[hi], key[lo], tie[lo]))
			swap_entries(key, tie, hi, lo);
		if (rb_before(key[mid], tie[mid], key[hi], tie[hi]))
			swap_entries(key, tie, mid, hi);
		double pk = key[hi];
		uint32_t pt = tie[hi], p = lo;
		for (uint32_t i = lo; i < hi; i++)
			if (rb_before(key[i], tie[i], pk, pt))
				swap_entries(key, tie, i, p++);
		swap_entries(key, tie, p, hi);
		if (p == m)
			return;
		if (p < m)
			lo = p + 1;
		else
			hi = p - 1;
	}
}

/* b is full: its upper half goes to a new block after it. upd: from the
 * descent that found b. Returns the new block or NULL (nothing changed
 * but the order inside b). */
static struct rsk_blk *split(struct rein_skiplist *s, struct rsk_blk *b,
			     struct rsk_blk **upd[RSK_LEVELS], uint64_t *rng)
{
	struct rsk_blk *nb = blk_alloc(b->cap_log, draw_level(s, rng));

	if (nb == NULL)
		return NULL;
	uint32_t half = RSK_BLOCK / 2;
	select_nth(bkey(b), btie(b), RSK_BLOCK, half);
	copy_entries(nb, 0, b, half, half);
	nb->n = (uint16_t)half;
	nb->fence_key = bkey(nb)[0];
	nb->fence_tie = btie(nb)[0];
	b->n = (uint16_t)half;
	for (int l = 0; l < nb->level; l++) {
		/* below b's level b links to nb; above, b's predecessor does */
		struct rsk_blk **pp = l < b->level ? &b->next[l] : upd[l];
		nb->next[l] = *pp;
		*pp = nb;
	}
	return nb;
}

static int sk_insert(void *bucket, double k, uint32_t t, uint64_t *rng)
{
	struct rein_skiplist *s = bucket;
	struct rsk_blk **upd[RSK_LEVELS];
	struct rsk_blk *b = descend(s, k, t, true, upd);

	if (b == NULL && (b = s->head[0]) == NULL) {
		/* the first block: small, grown while alone */
		if ((b = blk_alloc(__builtin_ctz(RSK_FIRST_CAP), draw_level(s, rng))) == NULL)
			return -1;
		for (int l = 0; l < b->level; l++)
			s->head[l] = b;
		b->fence_key = k;
		b->fence_tie = t;
	}
	if (b->n == bcap(b) && bcap(b) < RSK_BLOCK) {
		/* the only block: double it (only the head links to it) */
		struct rsk_blk *nb = blk_alloc((uint8_t)(b->cap_log + 1), b->level);
		if (nb == NULL)
			return -1;
		copy_entries(nb, 0, b, 0, b->n);
		nb->n = b->n;
		nb->fence_key = b->fence_key;
		nb->fence_tie = b->fence_tie;
		for (int l = 0; l < b->level; l++)
			s->head[l] = nb;
		free(b);
		b = nb;
	} else if (b->n == bcap(b)) {
		struct rsk_blk *nb = split(s, b, upd, rng);
		if (nb == NULL)
			return -1;
		if (!rb_before(k, t, nb->fence_key, nb->fence_tie))
			b = nb;
	}
	if (rb_before(k, t, b->fence_key, b->fence_tie)) {
		/* below every fence: only the first block, whose fence goes down */
		b->fence_key = k;
		b->fence_tie = t;
	}
	btie(b)[b->n] = t;
	bkey(b)[b->n] = k;
	b->n++;
	s->n++;
	return 0;
}

static bool sk_remove(void *bucket, double k, uint32_t t)
{
	struct rein_skiplist *s = bucket;
	struct rsk_blk **upd[RSK_LEVELS];
	struct rsk_blk *b = descend(s, k, t, true, upd);

	if (b == NULL)
		return false;
	uint32_t *tie = btie(b), n = b->n, i = 0;
	double *key = bkey(b);
	while (i < n && (tie[i] != t || key[i] != k))
		i++;
	if (i == n)
		return false;
	s->n--;
	if (n == 1) {
		unlink_free(s, b);
		return true;
	}
	tie[i] = tie[n - 1];
	key[i] = key[n - 1];
	b->n--;
	struct rsk_blk *y = b->next[0];
	if (y != NULL && b->n + y->n <= RSK_BLOCK / 2) {
		/* two thin neighbours (both full-size blocks: there are two) */
		copy_entries(b, b->n, y, 0, y->n);
		b->n += y->n;
		unlink_free(s, y);
	}
	return true;
}

static void prefetch_ties(const struct rsk_blk *b)
{
	const char *t = (const char *)btie(b);

	for (size_t off = 0; off < RSK_BLOCK * sizeof(uint32_t); off += 64)
		__builtin_prefetch(t + off);
}

static void mark_run(uint64_t *mark, const uint32_t *tie, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		rb_mark(mark, tie[i]);
}

static void sk_mark_all(const void *bucket, uint64_t *mark)
{
	const struct rein_skiplist *s = bucket;

	for (const struct rsk_blk *b = s->head[0]; b != NULL; b = b->next[0]) {
		if (b->next[0] != NULL)
			prefetch_ties(b->next[0]);
		mark_run(mark, btie(b), b->n);
	}
}

static void sk_mark_below(const void *bucket, uint64_t *mark, double k, uint32_t t)
{
	const struct rein_skiplist *s = bucket;

	for (const struct rsk_blk *b = s->head[0]; b != NULL; b = b->next[0]) {
		const struct rsk_blk *y = b->next[0];
		if (y != NULL && !rb_before(k, t, y->fence_key, y->fence_tie)) {
			/* b's entries are below y's fence, at or below (k, t) */
			prefetch_ties(y);
			mark_run(mark, btie(b), b->n);
			continue;
		}
		const uint32_t *tie = btie(b);
		const double *key = bkey(b);
		for (uint32_t i = 0; i < b->n; i++)
			if (rb_before(key[i], tie[i], k, t))
				rb_mark(mark, tie[i]);
		return; /* later blocks are at or above y's fence, above (k, t) */
	}
}

static uint32_t sk_count(const void *bucket)
{
	return ((const struct rein_skiplist *)bucket)->n;
}

static size_t sk_bytes(const void *bucket)
{
	const struct rein_skiplist *s = bucket;
	size_t n = 0;

	for (const struct rsk_blk *b = s->head[0]; b != NULL; b = b->next[0])
		n += sizeof(*b) + (size_t)bcap(b) * (sizeof(uint32_t) + sizeof(double));
	return n;
}

static void sk_clear(void *bucket)
{
	struct rein_skiplist *s = bucket;

	for (struct rsk_blk *b = s->head[0], *nx; b != NULL; b = nx) {
		nx = b->next[0];
		free(b);
	}
	memset(s, 0, sizeof(*s));
}

/* Fences ascend; every entry at or above its block's fence and below the
 * next one's; counts and capacities; every level's chain is the blocks of
 * a higher level, in level-0 order. */
static bool sk_valid(const void *bucket)
{
	const struct rein_skiplist *s = bucket;
	uint32_t total = 0, blocks = 0;

	for (const struct rsk_blk *b = s->head[0]; b != NULL; b = b->next[0]) {
		const struct rsk_blk *y = b->next[0];
		blocks++;
		if (b->n == 0 || b->n > bcap(b) || b->level < 1 || b->level > s->top)
			return false;
		for (uint32_t i = 0; i < b->n; i++) {
			double k = bkey(b)[i];
			uint32_t t = btie(b)[i];
			if (rb_before(k, t, b->fence_key, b->fence_tie) ||
			    (y && !rb_before(k, t, y->fence_key, y->fence_tie)))
				return false;
		}
		total += b->n;
	}
	if (total != s->n)
		return false;
	for (const struct rsk_blk *b = s->head[0]; blocks > 1 && b != NULL; b = b->next[0])
		if (bcap(b) != RSK_BLOCK)
			return false;
	for (int l = 1; l < RSK_LEVELS; l++) {
		const struct rsk_blk *y = s->head[l];
		for (const struct rsk_blk *b = s->head[0]; b != NULL; b = b->next[0]) {
			if (b->level <= l)
				continue;
			if (y != b)
				return false;
			y = b->next[l];
		}
		if (y != NULL)
			return false;
	}
	return true;
}

const struct rein_bucket_ops rein_bucket_skiplist = {
	.name = "skiplist",
	.size = sizeof(struct rein_skiplist),
	.insert = sk_insert,
	.remove = sk_remove,
	.mark_all = sk_mark_all,
	.mark_below = sk_mark_below,
	.count = sk_count,
	.bytes = sk_bytes,
	.clear = sk_clear,
	.valid = sk_valid,
};
