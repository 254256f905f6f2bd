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

/* Eight bytes a step (a tail by overlapping loads: no byte loop), the
 * length mixed in first, then a final avalanche so
 * the low bits (used as the table index) depend on every input byte.
 * FNV-1a went a byte a step. */
static inline uint32_t spate_hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;

	if (len > 8) {
		size_t i = 0;
		for (; i + 8 < len; i += 8)
			h = spate_hash_mix(h, spate_hash_load(s + i, 8));
		/* the last 8 bytes, overlapping what came before */
		h = spate_hash_mix(h, spate_hash_load(s + len - 8, 8));
	} else if (len >= 4) { /* two 4-byte loads, overlapping for len < 8 */
		h = spate_hash_mix(h, spate_hash_load(s, 4) | spate_hash_load(s + len - 4, 4)
								      << 32);
	} else if (len > 0) {
		h = spate_hash_mix(h, (uint64_t)s[0] | (uint64_t)s[len / 2] << 8 |
					      (uint64_t)s[len - 1] << 16);
	}
	h ^= h >> 32;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	return (uint32_t)h;
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
