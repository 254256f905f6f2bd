/* spate_hash.h - the hash functions of Spate's own tables. */
#ifndef SPATE_HASH_H
#define SPATE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a over bytes, then a final avalanche so the low bits (used as the
 * table index) depend on every input byte. */
static inline uint32_t spate_hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 16777619u;
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	return h;
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
