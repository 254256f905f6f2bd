/* rein_core.h - what the REIN and MP-REIN engines share: the value domain
 * and its cells, the interval of a subscription on one attribute, dense
 * subscription slots with free-list reuse, and candidate confirmation.
 */
#ifndef REIN_CORE_H
#define REIN_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "matcher/spate_engine.h"
#include "matcher/spate_idmap.h"

/* The cells of one attribute's domain (spate_schema.h: declared, or the
 * default [0, 10^6) in 1000 cells as in the usual REIN setup). Spate
 * values are unbounded doubles: a value below the domain falls in cell 0,
 * one above it in the last cell. That stays exact because the cell of a
 * value is monotone in the value and the comparison bucket compares
 * bounds. */
struct rein_dom {
	double min, scale; /* cell = (x - min) * scale */
	uint32_t cells;
};

static inline void rein_dom_init(struct rein_dom *d, const struct spate_attr_domain *a)
{
	d->min = a->min;
	d->cells = a->cells;
	d->scale = (double)a->cells / (a->max - a->min);
}

/* The cell of a value (not NaN): monotone non-decreasing in x. */
static inline uint32_t rein_cell(const struct rein_dom *d, double x)
{
	double c = (x - d->min) * d->scale;

	if (!(c > 0))
		return 0;
	if (c >= d->cells - 1)
		return d->cells - 1;
	return (uint32_t)c;
}

/* The default domain, for tests that probe its edges. */
#define REIN_LO SPATE_DOMAIN_DEFAULT_MIN
#define REIN_HI SPATE_DOMAIN_DEFAULT_MAX
#define REIN_CELLS SPATE_DOMAIN_DEFAULT_CELLS

/* The interval a subscription asks of one attribute: every constraint of
 * the sub on that attribute except != (and NaN bounds), intersected.
 * Constraints left out are checked when candidates are confirmed. */
struct rein_iv {
	uint32_t attr;
	double lo, hi;
	bool lo_strict, hi_strict;
};

/* Fill iv (room for s->n_cons entries) with one interval per attribute
 * that has an indexable constraint; returns how many. Deterministic, so a
 * delete recomputes exactly what the add indexed. */
uint32_t rein_intervals(const struct spate_sub *s, struct rein_iv *iv);
/* The same into a buffer *iv of *cap entries, grown to fit first (an
 * engine's scratch buffer); UINT32_MAX on no memory (buffer unchanged). */
uint32_t rein_intervals_buf(const struct spate_sub *s, struct rein_iv **iv, uint32_t *cap);

/* Does v (not NaN) pass the low end lo? the high end hi? */
static inline bool rein_lo_ok(double v, double lo, bool strict)
{
	return strict ? v > lo : v >= lo;
}
static inline bool rein_hi_ok(double v, double hi, bool strict)
{
	return strict ? v < hi : v <= hi;
}

/* Dense slots for subscriptions, reused through a free list; `used` and
 * `mark` are bit sets over the slots (mark is cleared by each event). */
struct rein_slots {
	const struct spate_sub **sub;
	uint64_t *used, *mark;
	uint32_t n, cap; /* slots in use or freed: [0, n) */
	uint32_t *free_v;
	uint32_t n_free, cap_free;
	struct spate_idmap *pos; /* sub id -> slot + 1 */
	uint64_t candidates;     /* unmarked slots confirmed, all events (stats:
				    * for intervals the marking is exact, so tests
				    * pin this count, not only the matches) */
};

int rein_slots_init(struct rein_slots *sl);
void rein_slots_fini(struct rein_slots *sl);
/* The slot for a new sub, or -SPATE_E_NO_MEMORY. */
int64_t rein_slots_alloc(struct rein_slots *sl, const struct spate_sub *s);
/* The slot of a known sub (freed), or -1 if unknown. */
int64_t rein_slots_free(struct rein_slots *sl, const struct spate_sub *s);
static inline uint32_t rein_slots_words(const struct rein_slots *sl)
{
	return (sl->n + 63) / 64;
}
/* Clear every mark before an event (no array yet when no sub was added). */
static inline void rein_slots_clear_marks(struct rein_slots *sl)
{
	if (sl->mark != NULL)
		memset(sl->mark, 0, rein_slots_words(sl) * sizeof(sl->mark[0]));
}
/* Bytes the slots hold (arrays and the id map). */
size_t rein_slots_bytes(const struct rein_slots *sl);
/* Push every used, unmarked slot whose sub really matches (counted in
 * sl->candidates). */
int rein_slots_confirm(struct rein_slots *sl, const struct spate_event *ev,
		       struct spate_matchvec *mv);
/* The same with n_more further mark arrays (other threads' marks, each
 * rein_slots_words() long) ORed into the slots' own. */
int rein_slots_confirm_with(struct rein_slots *sl, uint64_t *const *more, uint32_t n_more,
			    const struct spate_event *ev, struct spate_matchvec *mv);

/* Mark slot i (plain, single thread). */
static inline void rein_mark(uint64_t *mark, uint32_t i)
{
	mark[i >> 6] |= (uint64_t)1 << (i & 63);
}

/* The per-attribute record at index a of a lazily grown table of
 * pointers (*n entries), allocated zeroed (`size` bytes) on first use;
 * NULL on no memory. Shared by rein and mprein. */
void *rein_attr_get(void ***table, uint32_t *n, uint32_t a, size_t size);

/* An attribute's low- and high-bound bucket arrays, `cells` zeroed
 * buckets of `size` bytes each: 0, or -1 with neither allocated. Shared
 * by rein and the sorted-bucket engines, whose buckets differ in type only. */
int rein_buckets_alloc(void **low, void **high, uint32_t cells, size_t size);

#endif
