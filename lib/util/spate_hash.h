/* spate_hash.h - the hash functions of Spate's own tables. */
#ifndef SPATE_HASH_H
#define SPATE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t spate_hash_load(const unsigned char *s, size_t n)
{
	uint64_t w = 0;

	memcpy(&w, s, n); /* n is 4 or 8 at every call: a plain load */
	return w;
}

static inline uint64_t spate_hash_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
	return h ^ h >> 29;
}

/* The first n bytes of s (n <= 8) as one word, zero-padded: whole
 * loads that overlap where n is short (the bytes they share are the
 * same), no byte loop. With n it identifies the string. */
static inline uint64_t spate_hash_load_padded(const unsigned char *s, size_t n)
{
	uint64_t w = 0;
	uint32_t a, b;

	if (n >= 8) {
		memcpy(&w, s, 8);
	} else if (n >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		w = (uint64_t)a | (uint64_t)b << (8 * (n - 4));
	} else if (n > 0) {
		w = (uint64_t)s[0] | (uint64_t)s[n / 2] << (8 * (n / 2)) |
		    (uint64_t)s[n - 1] << (8 * (n - 1));
	}
	return w;
}

/* The final avalanche, so the low bits (used as the table index) depend
 * on every input byte. */
static inline uint32_t spate_hash_final(uint64_t h)
{
	h ^= h >> 32;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	return (uint32_t)h;
}

/* The hash of a string of len <= 8 bytes given as its padded word
 * (spate_hash_load_padded): a caller that keeps the word anyway (the
 * dictionary compares it) loads the bytes once. */
static inline uint32_t spate_hash_word(uint64_t w, size_t len)
{
	return spate_hash_final(spate_hash_mix(0x9e3779b97f4a7c15ull ^ len, w));
}

/* Eight bytes a step (a tail by overlapping loads: no byte loop), the
 * length mixed in first, then the final avalanche. Up to 8 bytes: one
 * step over the padded word. FNV-1a went a byte a step. */
static inline uint32_t spate_hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;

	if (len <= 8)
		return spate_hash_word(spate_hash_load_padded(s, len), len);
	size_t i = 0;
	for (; i + 8 < len; i += 8)
		h = spate_hash_mix(h, spate_hash_load(s + i, 8));
	/* the last 8 bytes, overlapping what came before */
	h = spate_hash_mix(h, spate_hash_load(s + len - 8, 8));
	return spate_hash_final(h);
}

/* splitmix64 finaliser: ids are often sequential, this spreads them. */
static inline uint64_t spate_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

#endif
