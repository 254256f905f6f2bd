/* spate_dict.h - interning of byte strings (keywords, attribute names) to
 * dense u32 ids, 0..count-1.
 *
 * Hand-rolled on purpose: an event's keywords are looked up on the hot path
 * of every engine, so this is an open-addressing table with the hash kept
 * beside the id (one cache line holds several probes), no allocation on
 * lookup, and strings copied once at intern time.
 */
#ifndef SPATE_DICT_H
#define SPATE_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "proto/spate_types.h"

#define SPATE_DICT_NONE UINT32_MAX

struct spate_dict;

struct spate_dict *spate_dict_create(void);
void spate_dict_destroy(struct spate_dict *d);
/* The id of the string, or SPATE_DICT_NONE if it was never interned. */
uint32_t spate_dict_lookup(const struct spate_dict *d, const char *p, size_t len);
/* Several lookups at once (an event's keywords): ids[i] of s[i], i < n.
 * Each string's hash is made and its slot prefetched during the probe
 * of the one before, so the cache misses of the probes overlap instead
 * of following each other. */
void spate_dict_lookup_many(const struct spate_dict *d, const struct spate_str *s, size_t n,
			    uint32_t *ids);
/* The id of the string, interning it if new; SPATE_DICT_NONE on no memory. */
uint32_t spate_dict_intern(struct spate_dict *d, const char *p, size_t len);
/* The string of an id (NUL-terminated), its length in *len if non-NULL. */
const char *spate_dict_str(const struct spate_dict *d, uint32_t id, size_t *len);
uint32_t spate_dict_count(const struct spate_dict *d);

#endif
