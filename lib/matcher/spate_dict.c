/* spate_dict.c - open-addressing string interning (see spate_dict.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "matcher/spate_dict.h"
#include "util/spate_hash.h"

/* A slot carries the string's length and first 8 bytes: a string of up
 * to 8 bytes (FAST-style keywords, most attribute names) is compared
 * without reading its entry or calling memcmp, and a longer one reads
 * its entry only when hash, length and prefix agree. */
struct dict_slot {
	uint64_t prefix; /* the first min(len, 8) bytes, zero-padded */
	uint32_t hash;
	uint32_t id; /* SPATE_DICT_NONE = empty */
	uint32_t len;
};

struct dict_entry {
	char *str;
	uint32_t len;
};

/* The strings' bytes, in blocks of their own (a malloc and a free per
 * string were 250 instructions an interned keyword); a string never
 * moves. */
struct str_block {
	struct str_block *next;
	size_t used, cap;
	char bytes[];
};

#define STR_BLOCK ((size_t)64 << 10)

struct spate_dict {
	struct dict_slot *slots;
	uint32_t mask; /* slot count - 1, a power of two minus one */
	struct dict_entry *entries;
	uint32_t count, cap;
	struct str_block *blocks; /* the newest first */
};

struct spate_dict *spate_dict_create(void)
{
	struct spate_dict *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	d->mask = 63;
	d->slots = malloc(sizeof(*d->slots) * (d->mask + 1));
	if (d->slots == NULL) {
		free(d);
		return NULL;
	}
	for (uint32_t i = 0; i <= d->mask; i++)
		d->slots[i].id = SPATE_DICT_NONE;
	return d;
}

void spate_dict_destroy(struct spate_dict *d)
{
	if (d == NULL)
		return;
	for (struct str_block *b = d->blocks, *next; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(d->entries);
	free(d->slots);
	free(d);
}

/* The first min(len, 8) bytes of p, zero-padded. */
static inline uint64_t prefix_of(const char *p, size_t len)
{
	return spate_hash_load_padded((const unsigned char *)p, len < 8 ? len : 8);
}

/* The hash of p, from its prefix where that is all of it (up to 8
 * bytes: FAST-style keywords, most names), so its bytes are read once. */
static inline uint32_t hash_of(const char *p, size_t len, uint64_t pre)
{
	return len <= 8 ? spate_hash_word(pre, len) : spate_hash_bytes(p, len);
}

/* Do the bytes of an entry and of p past the first 8 agree (len > 8, the
 * prefixes equal)? Up to 16 bytes by one overlapping 8-byte load each
 * (names like "population", cities' "n:" and "adm:" keywords), no call. */
static inline bool tail_equal(const char *e, const char *p, size_t len)
{
	uint64_t a, b;

	if (len > 16)
		return memcmp(e + 8, p + 8, len - 8) == 0;
	memcpy(&a, e + len - 8, 8);
	memcpy(&b, p + len - 8, 8);
	return a == b;
}

static inline uint32_t find_slot(const struct spate_dict *d, const char *p, size_t len, uint32_t h,
				 uint64_t pre)
{
	for (uint32_t i = h & d->mask;; i = (i + 1) & d->mask) {
		const struct dict_slot *s = &d->slots[i];
		if (s->id == SPATE_DICT_NONE)
			return i;
		if (s->hash == h && s->len == len && s->prefix == pre &&
		    (len <= 8 || tail_equal(d->entries[s->id].str, p, len)))
			return i;
	}
}

uint32_t spate_dict_lookup(const struct spate_dict *d, const char *p, size_t len)
{
	uint64_t pre = prefix_of(p, len);
	return d->slots[find_slot(d, p, len, hash_of(p, len, pre), pre)].id;
}

void spate_dict_lookup_many(const struct spate_dict *d, const struct spate_str *s, size_t n,
			    uint32_t *ids)
{
	if (n == 0)
		return;
	/* One string ahead: its hash made and its slot prefetched while this
	 * one's probe runs, so their cache misses overlap, as with all the
	 * hashes first (which kept them in arrays: stores, loads and a
	 * second loop, 10 instructions a string). */
	/* the table's fields in locals: a store to ids[] could change
	 * d->mask for all the compiler knows, so it read it again each time */
	const struct spate_dict t = *d;
	uint64_t pre = prefix_of(s[0].p, s[0].len);
	uint32_t h = hash_of(s[0].p, s[0].len, pre);
	for (size_t i = 0; i < n; i++) {
		uint64_t next_pre = 0;
		uint32_t next_h = 0;
		if (i + 1 < n) {
			next_pre = prefix_of(s[i + 1].p, s[i + 1].len);
			next_h = hash_of(s[i + 1].p, s[i + 1].len, next_pre);
			__builtin_prefetch(&t.slots[next_h & t.mask]);
		}
		ids[i] = t.slots[find_slot(&t, s[i].p, s[i].len, h, pre)].id;
		pre = next_pre;
		h = next_h;
	}
}

static int grow(struct spate_dict *d)
{
	uint32_t nmask = d->mask * 2 + 1;
	struct dict_slot *ns = malloc(sizeof(*ns) * ((size_t)nmask + 1));

	if (ns == NULL)
		return -1;
	for (uint32_t i = 0; i <= nmask; i++)
		ns[i].id = SPATE_DICT_NONE;
	for (uint32_t i = 0; i <= d->mask; i++) {
		struct dict_slot s = d->slots[i];
		if (s.id == SPATE_DICT_NONE)
			continue;
		uint32_t j = s.hash & nmask;
		while (ns[j].id != SPATE_DICT_NONE)
			j = (j + 1) & nmask;
		ns[j] = s;
	}
	free(d->slots);
	d->slots = ns;
	d->mask = nmask;
	return 0;
}

/* n bytes for a string: in the newest block, or a new one (of a block's
 * size, or the string's if larger). */
static char *str_room(struct spate_dict *d, size_t n)
{
	struct str_block *b = d->blocks;

	if (b == NULL || b->cap - b->used < n) {
		size_t cap = n > STR_BLOCK ? n : STR_BLOCK;
		if ((b = malloc(sizeof(*b) + cap)) == NULL)
			return NULL;
		*b = (struct str_block){ .next = d->blocks, .used = 0, .cap = cap };
		d->blocks = b;
	}
	b->used += n;
	return b->bytes + b->used - n;
}

uint32_t spate_dict_intern(struct spate_dict *d, const char *p, size_t len)
{
	uint64_t pre = prefix_of(p, len);
	uint32_t h = hash_of(p, len, pre);
	uint32_t i = find_slot(d, p, len, h, pre);

	if (d->slots[i].id != SPATE_DICT_NONE)
		return d->slots[i].id;
	if (d->count == SPATE_DICT_NONE - 1)
		return SPATE_DICT_NONE;
	if (d->count == d->cap) {
		uint32_t ncap = d->cap ? d->cap * 2 : 64;
		struct dict_entry *ne = realloc(d->entries, sizeof(*ne) * ncap);
		if (ne == NULL)
			return SPATE_DICT_NONE;
		d->entries = ne;
		d->cap = ncap;
	}
	/* Keep the load under 1/2 so probe chains stay short. */
	if ((d->count + 1) * 2 > d->mask + 1) {
		if (grow(d) != 0)
			return SPATE_DICT_NONE;
		i = find_slot(d, p, len, h, pre);
	}
	char *copy = str_room(d, len + 1);
	if (copy == NULL)
		return SPATE_DICT_NONE;
	memcpy(copy, p, len);
	copy[len] = '\0';
	uint32_t id = d->count++;
	d->entries[id].str = copy;
	d->entries[id].len = (uint32_t)len;
	d->slots[i] = (struct dict_slot){ pre, h, id, (uint32_t)len };
	return id;
}

const char *spate_dict_str(const struct spate_dict *d, uint32_t id, size_t *len)
{
	if (id >= d->count)
		return NULL;
	if (len)
		*len = d->entries[id].len;
	return d->entries[id].str;
}

uint32_t spate_dict_count(const struct spate_dict *d)
{
	return d->count;
}
