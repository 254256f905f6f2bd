/* rein_bucket.h - the sorted buckets of the REIN variants that keep each
 * bucket in order (the MP-REIN paper's REIN baseline and MP-REIN itself):
 * one interface, two structures.
 *
 * A bucket holds entries (key, tie) in ascending order: key first, then
 * tie. The engines store an interval end as key (the high end, or minus the
 * low end) and tie = slot | RB_TIE_LAX when the bound is not strict, so
 * that the entries an event value q fails (key < q, or key == q and
 * strict) are exactly those below (q, RB_TIE_LAX): always a prefix.
 *
 *  - rein_bucket_sortlist: a sorted singly linked list, one malloc'd node
 *    per entry, as the paper describes REIN's buckets: insert and delete
 *    walk the list, O(n).
 *  - rein_bucket_skiplist: a skip list whose nodes are blocks of up to 64
 *    sorted entries (an unrolled skip list): insert and delete O(log n)
 *    (a descent over blocks, a binary search and a shift inside one), and
 *    marking reads each block's slot array, contiguous like REIN's
 *    vectors.
 */
#ifndef REIN_BUCKET_H
#define REIN_BUCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_TIE_LAX 0x80000000u  /* tie bit: the bound is not strict */
#define RB_TIE_SLOT 0x7fffffffu /* tie bits: the slot */
#define RB_SLOT_MAX RB_TIE_SLOT /* slots must stay below this */

static inline uint32_t rb_tie(uint32_t slot, bool strict)
{
	return slot | (strict ? 0 : RB_TIE_LAX);
}

/* Set slot i's bit in a mark array (single writer). */
static inline void rb_mark(uint64_t *mark, uint32_t tie)
{
	uint32_t i = tie & RB_TIE_SLOT;

	mark[i >> 6] |= (uint64_t)1 << (i & 63);
}

/* A bucket is `size` bytes, all zero when empty. */
struct rein_bucket_ops {
	const char *name;
	size_t size;
	/* 0, or -1 on no memory (nothing changed). rng: the caller's xorshift
	 * state, for structures that draw levels. */
	int (*insert)(void *b, double key, uint32_t tie, uint64_t *rng);
	/* Remove the entry (key, tie); false when absent. Never allocates. */
	bool (*remove)(void *b, double key, uint32_t tie);
	/* Mark every entry's slot; every entry below (key, tie). */
	void (*mark_all)(const void *b, uint64_t *mark);
	void (*mark_below)(const void *b, uint64_t *mark, double key, uint32_t tie);
	/* Entries held; bytes held beyond the bucket itself. */
	uint32_t (*count)(const void *b);
	size_t (*bytes)(const void *b);
	/* Free everything (the bucket is empty and zero after). */
	void (*clear)(void *b);
	/* Check the structure's invariants (for tests): true when sound. */
	bool (*valid)(const void *b);
};

extern const struct rein_bucket_ops rein_bucket_sortlist;
extern const struct rein_bucket_ops rein_bucket_skiplist;

/* Is (k1, t1) before (k2, t2)? Keys are never NaN. */
static inline bool rb_before(double k1, uint32_t t1, double k2, uint32_t t2)
{
	return k1 < k2 || (k1 == k2 && t1 < t2);
}

#endif
