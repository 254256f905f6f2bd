/* drt_ftab.c - growth and deletion of the flat table (drt_ftab.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engines/drt/drt_ftab.h"

#define FTAB_MIN_BITS 3
#define FTAB_HUGE ((size_t)2 << 20) /* a huge page: mappings are multiples of it, aligned to it */
#define FTAB_SLOT_WORDS_MAX \
	64 /* slots up to this many words grow in place (a slot is copied on the stack) */

static size_t ftab_mapped; /* every table's mappings (atomic: tables live on several lcores) */

size_t drt_ftab_mapped_bytes(void)
{
	return __atomic_load_n(&ftab_mapped, __ATOMIC_RELAXED);
}

static size_t map_len(size_t bytes)
{
	return (bytes + FTAB_HUGE - 1) & ~(FTAB_HUGE - 1);
}

/* A fresh zero mapping of len bytes (a multiple of FTAB_HUGE), aligned
 * to FTAB_HUGE so the kernel can back it with whole huge pages. */
static unsigned char *map_aligned(size_t len)
{
	size_t over = len + FTAB_HUGE;
	unsigned char *p =
		mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)p + FTAB_HUGE - 1) & ~(uintptr_t)(FTAB_HUGE - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	if ((uintptr_t)p + over > a + len)
		munmap((void *)(a + len), (uintptr_t)p + over - (a + len));
	madvise((void *)a, len, MADV_HUGEPAGE); /* a hint: without it, small pages */
	__atomic_fetch_add(&ftab_mapped, len, __ATOMIC_RELAXED);
	return (unsigned char *)a;
}

static void unmap(unsigned char *p, size_t len)
{
	munmap(p, len);
	__atomic_fetch_sub(&ftab_mapped, len, __ATOMIC_RELAXED);
}

static size_t table_bytes(const struct drt_ftab *t)
{
	return (t->mask + 1) * t->slot_size;
}

static int alloc_slots(struct drt_ftab *t, uint32_t bits)
{
	size_t n = (size_t)1 << bits;

	t->mapped = n * t->slot_size >= t->map_min;
	t->slots = t->mapped ? map_aligned(map_len(n * t->slot_size))
			     : calloc(n, t->slot_size); /* every slot empty */
	if (t->slots == NULL)
		return -1;
	t->mask = n - 1;
	t->shift = 64 - bits;
	return 0;
}

static void free_slots(struct drt_ftab *t)
{
	if (t->mapped)
		unmap(t->slots, map_len(table_bytes(t)));
	else
		free(t->slots);
	t->slots = NULL;
}

int drt_ftab_init(struct drt_ftab *t, uint32_t payload)
{
	memset(t, 0, sizeof(*t));
	t->slot_size = 8 + payload;
	t->load8 = 6;
	t->map_min = DRT_FTAB_MAP_MIN;
	return alloc_slots(t, FTAB_MIN_BITS);
}

void drt_ftab_set_max_load(struct drt_ftab *t, uint32_t eighths)
{
	t->load8 = eighths < 4 ? 4 : eighths > 7 ? 7 : eighths;
}

void drt_ftab_set_map_min(struct drt_ftab *t, size_t bytes)
{
	t->map_min = bytes;
}

void drt_ftab_free(struct drt_ftab *t)
{
	if (t->slots != NULL)
		free_slots(t);
	t->count = 0;
}

void drt_ftab_clear(struct drt_ftab *t)
{
	memset(t->slots, 0, table_bytes(t));
	t->count = 0;
}

/* Copy or clear one slot. Most tables have 16-byte slots (routing lists,
 * buckets, keyword counts): two words, not a call to memcpy or memset
 * (on cities the calls were a fifth of a growth's rehash and of a
 * deletion's backward shift). */
static inline void slot_copy(uint64_t *d, const uint64_t *s, uint32_t size)
{
	if (size == 16) {
		d[0] = s[0];
		d[1] = s[1];
	} else {
		memcpy(d, s, size);
	}
}

static inline void slot_clear(uint64_t *d, uint32_t size)
{
	if (size == 16) {
		d[0] = 0;
		d[1] = 0;
	} else {
		memset(d, 0, size);
	}
}

/* Put slot contents s (its key not in t) where linear probing puts it. */
static void put(struct drt_ftab *t, const uint64_t *s)
{
	size_t j = drt_ftab_home(t, drt_ftab_word(*s));

	while (*drt_ftab_slot(t, j) != 0)
		j = (j + 1) & t->mask;
	slot_copy(drt_ftab_slot(t, j), s, t->slot_size);
}

/* Double by copying into a new table (every slot of old into t). */
static void rehash_copy(struct drt_ftab *t, const struct drt_ftab *old)
{
	for (size_t i = 0; i <= old->mask; i++) {
		uint64_t *s = drt_ftab_slot(old, i);
		if (*s != 0)
			put(t, s);
	}
}

/* Double in place: t's slots hold the old table (n slots) in their lower
 * half, the upper half zero. The old slots are copied to the upper half
 * and the lower half cleared; then each entry, in old slot order, goes
 * where linear probing in the doubled table puts it. That never reaches
 * an entry not yet moved: an entry at old slot j, homed at h <= j, is
 * homed at 2h or 2h + 1 <= n + j now, and its own copy (slot n + j) is
 * cleared before it is placed, so the probe stops at or before it; later
 * copies lie above. Only the run wrapped around the old table's end (old
 * slots 0 .. n_wrapped - 1, up to the first empty one, homed near the
 * end) breaks h <= j: those entries, saved in `wrapped` beforehand, go
 * in last. */
static void rehash_in_place(struct drt_ftab *t, size_t n, const unsigned char *wrapped,
			    size_t n_wrapped)
{
	size_t sz = t->slot_size;
	uint64_t tmp[FTAB_SLOT_WORDS_MAX];

	memcpy(drt_ftab_slot(t, n), drt_ftab_slot(t, 0), n * sz);
	memset(drt_ftab_slot(t, 0), 0, n * sz);
	memset(drt_ftab_slot(t, n), 0, n_wrapped * sz); /* saved: they go in last */
	for (size_t j = n_wrapped; j < n; j++) {
		uint64_t *src = drt_ftab_slot(t, n + j);
		if (*src == 0)
			continue;
		memcpy(tmp, src, sz);
		memset(src, 0, sz);
		put(t, tmp);
	}
	for (size_t k = 0; k < n_wrapped; k++)
		put(t, (const uint64_t *)(const void *)(wrapped + k * sz));
}

static int grow(struct drt_ftab *t)
{
	struct drt_ftab old = *t;
	size_t n = old.mask + 1, bytes = n * old.slot_size, len = map_len(bytes);

	if (old.mapped && old.slot_size <= 8 * FTAB_SLOT_WORDS_MAX) {
		size_t n_wrapped = 0;
		while (*drt_ftab_slot(&old, n_wrapped) != 0)
			n_wrapped++;
		unsigned char *wrapped = malloc(n_wrapped * old.slot_size + 1);
		unsigned char *m = wrapped ? map_aligned(map_len(2 * bytes)) : NULL;
		/* the old pages into the new mapping's lower part (no copy);
		 * the rest of it is fresh */
		if (m != NULL &&
		    mremap(old.slots, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, m) != MAP_FAILED) {
			__atomic_fetch_sub(&ftab_mapped, len,
					   __ATOMIC_RELAXED); /* counted in m's */
			memcpy(wrapped, m, n_wrapped * old.slot_size);
			t->slots = m;
			t->mask = 2 * n - 1;
			t->shift = old.shift - 1;
			rehash_in_place(t, n, wrapped, n_wrapped);
			free(wrapped);
			return 0;
		}
		if (m != NULL)
			unmap(m, map_len(2 * bytes));
		free(wrapped);
		/* no memory for the move: copy, as a calloc'ed table does */
	}
	if (alloc_slots(t, 64 - old.shift + 1) != 0) {
		*t = old;
		return -1;
	}
	rehash_copy(t, &old);
	free_slots(&old);
	return 0;
}

/* Would one more key pass the load limit? */
static bool full(const struct drt_ftab *t)
{
	return (t->count + 1) * 8 > (t->mask + 1) * t->load8;
}

/* Key (absent, room made) into the first empty slot from `from`. */
static void *claim(struct drt_ftab *t, uint64_t key, size_t from)
{
	size_t i = from;
	while (*drt_ftab_slot(t, i) != 0)
		i = (i + 1) & t->mask;
	uint64_t *s = drt_ftab_slot(t, i); /* payload zero: empty slots are */
	*s = drt_ftab_word(key);
	t->count++;
	return s + 1;
}

void *drt_ftab_add(struct drt_ftab *t, uint64_t key)
{
	if (full(t) && grow(t) != 0)
		return NULL;
	return claim(t, key, drt_ftab_home(t, key));
}

void *drt_ftab_add_from(struct drt_ftab *t, uint64_t key, size_t end)
{
	if (full(t) || end > t->mask)
		return drt_ftab_add(t, key);
	/* every slot from key's home to end was full and still is (adds
	 * only fill): the first empty one from end is where add puts it */
	return claim(t, key, end);
}

void drt_ftab_del(struct drt_ftab *t, uint64_t key)
{
	size_t i = drt_ftab_home(t, key);
	uint64_t w = drt_ftab_word(key);

	while (*drt_ftab_slot(t, i) != w) {
		if (*drt_ftab_slot(t, i) == 0)
			return;
		i = (i + 1) & t->mask;
	}
	/* Backward shift: pull later entries of the run into the hole when
	 * their home does not lie cyclically in (hole, j]. */
	for (size_t j = (i + 1) & t->mask; *drt_ftab_slot(t, j) != 0; j = (j + 1) & t->mask) {
		size_t h = drt_ftab_home(t, drt_ftab_word(*drt_ftab_slot(t, j)));
		int movable = (i <= j) ? (h <= i || h > j) : (h <= i && h > j);
		if (movable) {
			slot_copy(drt_ftab_slot(t, i), drt_ftab_slot(t, j), t->slot_size);
			i = j;
		}
	}
	slot_clear(drt_ftab_slot(t, i), t->slot_size); /* payload zero for the next add */
	t->count--;
}

size_t drt_ftab_bytes(const struct drt_ftab *t)
{
	return table_bytes(t);
}
