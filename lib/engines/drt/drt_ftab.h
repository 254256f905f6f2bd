/* drt_ftab.h - a flat open-addressing table from u64 keys to small
 * fixed-size payloads kept IN the slots, for DRt's hot paths (routing
 * lists, category buckets).
 *
 * Why not spate_idmap: there the value is a pointer to elsewhere, so a
 * lookup costs two or three dependent cache misses (slot, then the
 * record, then its array); here the record is in the slot, the lookup is
 * inlined, and drt_ftab_prefetch() lets a caller start the misses of all
 * of an event's keys before it reads any of them.
 *
 * Linear probing with backward-shift deletion (no tombstones), load at
 * most 3/4 (or what drt_ftab_set_max_load() says). Key DRT_FTAB_EMPTY
 * (all ones) cannot be stored. Payload pointers are valid only until the
 * next add or del.
 *
 * A slot stores its key complemented, so an empty slot is all zero
 * bits: a new table is calloc'ed fresh (zero pages from the kernel, no
 * pass to mark the slots empty), which halves the cost of growing.
 *
 * A large table (DRT_FTAB_MAP_MIN bytes and up) is a 2 MB-aligned mapping
 * of its own and doubles in place: its pages move to the new mapping
 * (mremap, page tables only, huge pages kept whole) and only the upper
 * half is fresh memory. Fresh memory is what costs when a table grows
 * (the kernel zeroes it, slowly on a VM: docs/benchmarks.md): growing by
 * copying into a new table took twice the final size of it, in place
 * takes once. drt_ftab_mapped_bytes() counts these mappings, which
 * malloc's statistics do not see.
 */
#ifndef DRT_FTAB_H
#define DRT_FTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRT_FTAB_EMPTY UINT64_MAX

#define DRT_FTAB_MAP_MIN ((size_t)8 << 20)

struct drt_ftab {
	unsigned char *slots;
	size_t mask, count;
	uint32_t slot_size, shift;
	uint32_t load8; /* grow beyond load8/8 full */
	bool mapped;    /* slots are a mapping of our own */
	size_t map_min; /* tables from this many bytes are (init: DRT_FTAB_MAP_MIN) */
};

/* payload: bytes, a multiple of 8. 0 or -1 on no memory. */
int drt_ftab_init(struct drt_ftab *t, uint32_t payload);
void drt_ftab_free(struct drt_ftab *t);
/* Let t fill up to eighths/8 (4..7; init: 6) before it doubles: fewer
 * bytes, longer probes (misses and deletes walk longer runs). */
void drt_ftab_set_max_load(struct drt_ftab *t, uint32_t eighths);
/* A zeroed payload for key, which must be absent; NULL on no memory. */
void *drt_ftab_add(struct drt_ftab *t, uint64_t key);
/* The same, key's probe having ended at slot `end` (drt_ftab_get_at)
 * with only adds since and no growth (a deletion may move entries into
 * the run, a growth moves everything): the walk resumes there, or
 * starts afresh when the table must grow now. */
void *drt_ftab_add_from(struct drt_ftab *t, uint64_t key, size_t end);
/* Make tables of `bytes` and up mappings of their own (tests: a small
 * value exercises the in-place growth on small tables). */
void drt_ftab_set_map_min(struct drt_ftab *t, size_t bytes);
/* Bytes of every table's mappings in this process, all tables together. */
size_t drt_ftab_mapped_bytes(void);
/* Remove every key, keeping the slots. */
void drt_ftab_clear(struct drt_ftab *t);
/* Remove key if present. Never allocates. */
void drt_ftab_del(struct drt_ftab *t, uint64_t key);
/* Bytes the table owns. */
size_t drt_ftab_bytes(const struct drt_ftab *t);

/* What a slot holds for key (0 = empty). */
static inline uint64_t drt_ftab_word(uint64_t key)
{
	return ~key;
}

static inline uint64_t *drt_ftab_slot(const struct drt_ftab *t, size_t i)
{
	return (uint64_t *)(void *)(t->slots + i * t->slot_size);
}

/* Fibonacci hashing: the top bits of key * 2^64/phi. */
static inline size_t drt_ftab_home(const struct drt_ftab *t, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> t->shift);
}

static inline void drt_ftab_prefetch(const struct drt_ftab *t, uint64_t key)
{
	__builtin_prefetch(drt_ftab_slot(t, drt_ftab_home(t, key)));
}

/* The same, and the next cache line, which the probe often reaches: a
 * delete's backward shift reads the slots after the key, an absent key's
 * add walks its run. */
static inline void drt_ftab_prefetch_run(const struct drt_ftab *t, uint64_t key)
{
	const unsigned char *s = (const unsigned char *)drt_ftab_slot(t, drt_ftab_home(t, key));

	__builtin_prefetch(s);
	__builtin_prefetch(s + 64);
}

/* The payload of key, or NULL. */
static inline void *drt_ftab_get(const struct drt_ftab *t, uint64_t key)
{
	uint64_t w = drt_ftab_word(key);

	for (size_t i = drt_ftab_home(t, key);; i = (i + 1) & t->mask) {
		uint64_t *s = drt_ftab_slot(t, i);
		if (*s == w)
			return s + 1;
		if (*s == 0)
			return NULL;
	}
}

/* drt_ftab_get(), and on a miss *end = the empty slot that ended the
 * probe: drt_ftab_add_from() starts there, so a lookup then an add of
 * the same key walk its run once. */
static inline void *drt_ftab_get_at(const struct drt_ftab *t, uint64_t key, size_t *end)
{
	uint64_t w = drt_ftab_word(key);

	for (size_t i = drt_ftab_home(t, key);; i = (i + 1) & t->mask) {
		uint64_t *s = drt_ftab_slot(t, i);
		if (*s == w)
			return s + 1;
		if (*s == 0) {
			*end = i;
			return NULL;
		}
	}
}

/* Slot i's payload (0 <= i <= mask) and key, or NULL when it is empty:
 * iteration; the table must not change meanwhile. */
static inline void *drt_ftab_at(const struct drt_ftab *t, size_t i, uint64_t *key)
{
	uint64_t *s = drt_ftab_slot(t, i);

	*key = drt_ftab_word(*s);
	return *s == 0 ? NULL : s + 1;
}

#endif
