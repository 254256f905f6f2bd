/* cat_index.h - one category's subscriptions as a matching stage holds
 * them: its own copies of the subscriptions and an index over them.
 *
 * Only the category's owner lcore touches it; a move hands the whole
 * object to the next owner through a ring (stage_match.c), so there is
 * never a second writer or a concurrent reader.
 */
#ifndef SPATED_CAT_INDEX_H
#define SPATED_CAT_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "matcher/spate_engine.h"

struct cat_index;

/* The index is DRt's per-category index (engine "drt" or NULL; second
 * level cells of cell_deg degrees) or an engine of lib/ by name. NULL on
 * no memory or an unknown engine. */
struct cat_index *cat_index_create(const char *engine, double cell_deg);
void cat_index_destroy(struct cat_index *ci);

/* Add a copy of s (its arrays are copied too). 0 on success or when the
 * id is already here (a retransmission), else -SPATE_E_NO_MEMORY. */
int cat_index_add(struct cat_index *ci, const struct spate_sub *s);
/* Remove and free sub id; 0, or -SPATE_E_UNKNOWN_ID. */
int cat_index_del(struct cat_index *ci, uint64_t id);
/* Append every matching subscription to mv (pointers valid until the
 * next change of this index). 0 or -SPATE_E_NO_MEMORY. */
int cat_index_match(struct cat_index *ci, const struct spate_event *ev, struct spate_matchvec *mv);
/* Move every subscription of `from` into `into` and destroy `from`.
 * 0, or -SPATE_E_NO_MEMORY (then both stay valid, none is lost: the ones
 * not moved are still in `from`). */
int cat_index_merge(struct cat_index *into, struct cat_index *from);
size_t cat_index_count(const struct cat_index *ci);
/* Visit every subscription (no particular order; no change meanwhile):
 * a move between hosts ships them one by one. */
void cat_index_foreach(const struct cat_index *ci, void (*fn)(void *ctx, const struct spate_sub *s),
		       void *ctx);

#endif
