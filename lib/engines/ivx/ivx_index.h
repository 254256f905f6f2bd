/* ivx_index.h - Spate's own interval index: subscriptions with numeric
 * constraints, an event in, the subscriptions it matches out, exactly.
 *
 * Per attribute, the domain (spate_schema.h) is split into G value groups.
 * For every group g the index keeps a bit set over subscription slots,
 * FAIL[g]: the subscriptions whose interval on the attribute lies wholly
 * outside group g (low end in a later group, or high end in an earlier
 * one), plus one more set, HAS: the subscriptions with an interval on the
 * attribute. An event value v in group g certainly fails every sub in
 * FAIL[g]; an event without the attribute fails every sub in HAS. So an
 * event ORs ONE precomputed bit set per attribute (no bucket scanning, no
 * per-entry marking: REIN's ~70% goes), and the slots left unmarked are
 * candidates, confirmed with spate_sub_matches(). Candidates are a small
 * superset of the matches: a constraint lets through the values of at most
 * two extra partial groups.
 *
 * Layout: the sets of one attribute are interleaved by blocks of 4096
 * slots (a 512-byte run per group per block, prefetched a block ahead), so
 * matching streams whole runs and an insert touches G+1 lines in one
 * 8.5 KB stretch per constrained attribute (G = 16). Insert
 * costs O(constraints x G) bit operations, whatever the number of
 * subscriptions; there is no per-bucket list to search. A delete only
 * frees the slot and updates counts, O(constraints): a free slot is masked
 * out by the `used` set, and the sub that gets the slot next rewrites (or
 * clears) its bits, so that work is charged to the insert that reuses it.
 *
 * Matching visits attributes in decreasing order of how many subscriptions
 * the event's group fails (counts kept per group), and stops reading a
 * block's sets once every slot in it is marked (checked every 4
 * attributes): the most selective attribute prunes first.
 */
#ifndef IVX_INDEX_H
#define IVX_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "matcher/spate_engine.h"
#include "matcher/spate_schema.h"

#define IVX_GROUPS_DEFAULT 16
#define IVX_GROUPS_MAX 256

struct ivx_index;

/* groups: per attribute, 1..IVX_GROUPS_MAX (0 = IVX_GROUPS_DEFAULT). The
 * schema is copied. NULL on no memory. */
struct ivx_index *ivx_create(const struct spate_schema *schema, uint32_t groups);
void ivx_destroy(struct ivx_index *x);
/* 0 or -SPATE_E_NO_MEMORY (the index is unchanged then). s stays valid
 * until ivx_del(s); its id is new to the index. */
int ivx_add(struct ivx_index *x, const struct spate_sub *s);
/* Remove a sub added before; false (nothing done) if x does not hold it. */
bool ivx_del(struct ivx_index *x, const struct spate_sub *s);
/* Has s a constraint the index can use (any but != and NaN)? Subs without
 * one are still exact in the index, but every event confirms them. */
bool ivx_indexable(const struct spate_sub *s);
/* Call fn once for every sub held; x must not change meanwhile. */
void ivx_foreach(const struct ivx_index *x, void (*fn)(const struct spate_sub *s, void *ctx),
		 void *ctx);
/* Append every sub matching ev to mv; 0 or -SPATE_E_NO_MEMORY. */
int ivx_match(struct ivx_index *x, const struct spate_event *ev, struct spate_matchvec *mv);
size_t ivx_count(const struct ivx_index *x);
/* Bytes the index holds (bit sets, slots, id map estimate). */
size_t ivx_bytes(const struct ivx_index *x);
/* Figures as JSON members, no braces: "subs":..,"groups":..,... */
void ivx_stats(const struct ivx_index *x, FILE *f);

#endif
