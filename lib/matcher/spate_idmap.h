/* spate_idmap.h - a map from u64 ids (subscription ids, client ids) to
 * pointers. Open addressing with linear probing and backward-shift
 * deletion, so deletes leave no tombstones and lookups stay short under
 * heavy insert/delete churn. Values must not be NULL.
 */
#ifndef SPATE_IDMAP_H
#define SPATE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct spate_idmap;

struct spate_idmap *spate_idmap_create(void);
void spate_idmap_destroy(struct spate_idmap *m);
/* Destroy, calling fn(key, val, ctx) on every entry first (to free the
 * values). NULL m: nothing. */
void spate_idmap_destroy_each(struct spate_idmap *m, void (*fn)(uint64_t key, void *val, void *ctx),
			      void *ctx);
void *spate_idmap_get(const struct spate_idmap *m, uint64_t key);
/* Insert or replace. 0, or -1 on no memory (the map is unchanged). */
int spate_idmap_put(struct spate_idmap *m, uint64_t key, void *val);
/* Remove and return the value, or NULL if absent. */
void *spate_idmap_del(struct spate_idmap *m, uint64_t key);
size_t spate_idmap_count(const struct spate_idmap *m);
/* Bytes the map holds (for memory figures). */
size_t spate_idmap_bytes(const struct spate_idmap *m);
/* Visit every entry (order unspecified); the map must not change meanwhile. */
void spate_idmap_foreach(const struct spate_idmap *m,
			 void (*fn)(uint64_t key, void *val, void *ctx), void *ctx);

#endif
