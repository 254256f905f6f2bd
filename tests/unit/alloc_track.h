/* alloc_track.h - allocations of the code under test, tracked and
 * failed on demand, for a unit test linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,
 * --wrap=aligned_alloc (include it
 * in one file of the executable).
 *
 * Every block handed out is kept in an open-addressed set: a leak shows
 * as n_live above what it was (live_bytes: their bytes), a double free (or a free of a block not
 * handed out) as bad_frees, counted and not passed on so that the test
 * reports it instead of aborting; zero_allocs counts requests of 0 bytes,
 * bad_aligns aligned_alloc's alignments that are not a power of two,
 * overruns bytes written past the end of a block (seen at its free).
 * fail_at: the fail_at-th allocation after allocs was set to 0 fails
 * (0 = none). fresh_fill, fresh_fill_len: while fresh_fill is set, every block malloc
 * hands out starts as copies of those bytes (garbage made to look like
 * data, where malloc would give zeros), so code that reads a block before
 * it writes it is seen. Blocks that libc itself allocates (fopen, open_memstream)
 * are not seen: use fmemopen on a buffer of the test's own. */
#ifndef SPATE_ALLOC_TRACK_H
#define SPATE_ALLOC_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t k);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t align, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t k);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_aligned_alloc(size_t align, size_t n);

#define LIVE_SLOTS (1u << 18)
static void *track_live[LIVE_SLOTS];
static size_t track_size[LIVE_SLOTS];
/* Every block gets PAD bytes of 0xa5 past its end: a read one past a
 * table sees garbage (a pointer freed from there is a bad free, a count
 * is absurd) instead of malloc's zeros, and a write there is seen when
 * the block is freed (overruns). ASan still sees what lies beyond. */
#define PAD 64
/* volatile: the compiler takes malloc and free for the builtins, which
 * touch no global of the program, and would reuse a count read before
 * the call */
static volatile long n_live, live_bytes, bad_frees, zero_allocs, bad_aligns, overruns, fail_at,
	allocs;
static const unsigned char *volatile fresh_fill;
static volatile size_t fresh_fill_len;

static uint32_t live_hash(const void *p)
{
	return (uint32_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull >> 40) & (LIVE_SLOTS - 1);
}

static void live_add(void *p, size_t n)
{
	uint32_t i = live_hash(p);

	memset((char *)p + n, 0xa5, PAD);
	while (track_live[i] != NULL && track_live[i] != (void *)1)
		i = (i + 1) & (LIVE_SLOTS - 1);
	track_live[i] = p;
	track_size[i] = n;
	n_live++;
	live_bytes += (long)n;
}

static bool live_del(void *p, size_t *size)
{
	for (uint32_t i = live_hash(p); track_live[i] != NULL; i = (i + 1) & (LIVE_SLOTS - 1))
		if (track_live[i] == p) {
			*size = track_size[i];
			const unsigned char *pad = (const unsigned char *)p + track_size[i];
			for (int k = 0; k < PAD; k++)
				overruns += pad[k] != 0xa5;
			track_live[i] = (void *)1; /* tombstone */
			n_live--;
			live_bytes -= (long)track_size[i];
			return true;
		}
	return false;
}

static bool alloc_fails(size_t bytes)
{
	allocs++;
	if (bytes == 0)
		zero_allocs++;
	return fail_at > 0 && allocs == fail_at;
}

void *__wrap_malloc(size_t n)
{
	void *p = alloc_fails(n) ? NULL : __real_malloc(n + PAD);
	if (p)
		live_add(p, n);
	for (size_t k = 0; p != NULL && fresh_fill != NULL && k < n; k += fresh_fill_len)
		memcpy((char *)p + k, (const void *)fresh_fill,
		       n - k < fresh_fill_len ? n - k : fresh_fill_len);
	return p;
}

void *__wrap_calloc(size_t n, size_t k)
{
	void *p = alloc_fails(n * k) ? NULL : __real_calloc(1, n * k + PAD);
	if (p)
		live_add(p, n * k);
	return p;
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
	if (align == 0 || (align & (align - 1)) != 0)
		bad_aligns++; /* not a power of two: glibc 2.38 refuses it */
	/* n + PAD rounded up to a multiple of align (C11) */
	void *p = alloc_fails(n)
			  ? NULL
			  : __real_aligned_alloc(align, (n + PAD + align - 1) / align * align);
	if (p)
		live_add(p, n);
	return p;
}

void *__wrap_realloc(void *p, size_t n)
{
	if (alloc_fails(n))
		return NULL;
	size_t old = 0;
	if (p != NULL && !live_del(p, &old)) {
		bad_frees++;
		return NULL;
	}
	void *q = __real_realloc(p, n + PAD);
	if (q)
		live_add(q, n);
	else if (p)
		live_add(p, old);
	return q;
}

void __wrap_free(void *p)
{
	size_t n;

	if (p == NULL)
		return;
	if (!live_del(p, &n)) {
		bad_frees++;
		return;
	}
	memset(p, 0xdb, n); /* a read after the free sees garbage, not the data */
	__real_free(p);
}

#endif
