/* ivx_index.c - Spate's interval index (see ivx_index.h for the method). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ivx/ivx_index.h"
#include "engines/rein/rein_core.h"
#include "proto/spate_err.h"

#define BLOCK_SHIFT 12 /* 4096 slots a block */
#define BLOCK_WORDS 64 /* = 8 lines of each set */
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 1 /* blocks */
#endif

struct ivx_attr {
	struct rein_dom dom; /* cells = the index's groups */
	uint32_t n;          /* intervals held */
	uint64_t *bits;      /* [block][group 0..G (G = HAS)][BLOCK_WORDS] */
	/* [0, G): intervals reaching from group g, [G, 2G): up to group g
	 * (the sizes of the sets, for plan(), by prefix sums); NULL until
	 * set up */
	uint64_t *cnt;
};

/* One attribute an event looks at: the line of its set in block 0. */
struct ivx_act {
	const uint64_t *p;
	uint64_t fails;
};

struct ivx_val {
	double v;
	uint32_t gen;
};

struct ivx_index {
	struct rein_slots sl;
	struct spate_schema schema;
	uint32_t groups, lines; /* lines = groups + 1 */
	void **attrs;           /* struct ivx_attr *, by attribute id (rein_attr_get) */
	uint32_t n_attrs;
	uint32_t blocks_cap; /* blocks every attribute's bits have room for */
	/* Per slot, the attributes below 64 whose bits it may still hold: a
	 * delete only frees the slot (a dead slot is masked by `used`), and
	 * the next sub given the slot clears what it does not overwrite. */
	uint64_t *amask;
	struct rein_iv *iv;
	uint32_t iv_cap;
	struct ivx_act *act;
	uint32_t act_cap;
	/* The event being matched, by attribute id (below act_cap): its
	 * value where val[a].gen == gen (see confirm()). */
	struct ivx_val *val;
	uint32_t gen;
	uint32_t cand[1u << BLOCK_SHIFT]; /* one block's candidate slots */
	uint64_t n_events, n_cands;
};

struct ivx_index *ivx_create(const struct spate_schema *schema, uint32_t groups)
{
	struct ivx_index *x;

	if (groups == 0)
		groups = IVX_GROUPS_DEFAULT;
	if (groups > IVX_GROUPS_MAX)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return NULL;
	if (schema)
		x->schema = *schema;
	else
		spate_schema_default(&x->schema);
	x->groups = groups;
	x->lines = groups + 1;
	if (rein_slots_init(&x->sl) != 0) {
		free(x);
		return NULL;
	}
	return x;
}

void ivx_destroy(struct ivx_index *x)
{
	if (x == NULL)
		return;
	for (uint32_t a = 0; a < x->n_attrs; a++) {
		struct ivx_attr *at = x->attrs[a];
		if (at == NULL)
			continue;
		free(at->bits);
		free(at->cnt);
		free(at);
	}
	free(x->attrs);
	free(x->amask);
	free(x->iv);
	free(x->act);
	free(x->val);
	rein_slots_fini(&x->sl);
	free(x);
}

static size_t attr_words(const struct ivx_index *x, uint32_t blocks)
{
	return (size_t)blocks * x->lines * BLOCK_WORDS;
}

static struct ivx_attr *attr_get(struct ivx_index *x, uint32_t a)
{
	struct ivx_attr *at = rein_attr_get(&x->attrs, &x->n_attrs, a, sizeof(*at));

	if (at == NULL || at->cnt != NULL)
		return at;
	struct spate_attr_domain d = *spate_schema_domain(&x->schema, a);
	d.cells = x->groups;
	rein_dom_init(&at->dom, &d);
	if (x->blocks_cap > 0) {
		at->bits = calloc(attr_words(x, x->blocks_cap), sizeof(uint64_t));
		if (at->bits == NULL)
			return NULL;
	}
	at->cnt = calloc(2 * (size_t)x->groups, sizeof(*at->cnt));
	if (at->cnt == NULL) {
		free(at->bits);
		at->bits = NULL;
		return NULL;
	}
	return at;
}

/* Give every attribute room for `blocks` blocks (new room zeroed). */
static int grow_blocks(struct ivx_index *x, uint32_t blocks)
{
	uint64_t *nm = realloc(x->amask, ((size_t)blocks << BLOCK_SHIFT) * sizeof(*nm));
	if (nm == NULL)
		return -SPATE_E_NO_MEMORY;
	memset(nm + ((size_t)x->blocks_cap << BLOCK_SHIFT), 0,
	       ((size_t)(blocks - x->blocks_cap) << BLOCK_SHIFT) * sizeof(*nm));
	x->amask = nm;
	for (uint32_t a = 0; a < x->n_attrs; a++) {
		struct ivx_attr *at = x->attrs[a];
		if (at == NULL || at->cnt == NULL)
			continue;
		uint64_t *nb = realloc(at->bits, attr_words(x, blocks) * sizeof(uint64_t));
		if (nb == NULL)
			return -SPATE_E_NO_MEMORY;
		memset(nb + attr_words(x, x->blocks_cap), 0,
		       (attr_words(x, blocks) - attr_words(x, x->blocks_cap)) * sizeof(uint64_t));
		at->bits = nb;
	}
	x->blocks_cap = blocks;
	return 0;
}

/* The word of slot in group g's line is w[g * BLOCK_WORDS]. */
static uint64_t *slot_words(const struct ivx_index *x, const struct ivx_attr *at, uint32_t slot)
{
	return at->bits + ((size_t)(slot >> BLOCK_SHIFT) * x->lines) * BLOCK_WORDS +
	       ((slot >> 6) & (BLOCK_WORDS - 1));
}

/* The groups an interval reaches: [*glo, *ghi] (glo > ghi, an empty
 * interval, reaches none); iv NULL reaches them all (fails none). */
static void reach(const struct ivx_index *x, const struct ivx_attr *at, const struct rein_iv *iv,
		  uint32_t *glo, uint32_t *ghi)
{
	*glo = 0;
	*ghi = x->groups - 1;
	if (iv != NULL) {
		*glo = rein_cell(&at->dom, iv->lo);
		*ghi = rein_cell(&at->dom, iv->hi);
	}
}

/* Count an interval reaching [glo, ghi] in (d = 1) or out of (d = -1)
 * the attribute: two counters, not one per set (see fails()). */
static void count(const struct ivx_index *x, struct ivx_attr *at, uint32_t glo, uint32_t ghi, int d)
{
	if (glo <= ghi) {
		at->cnt[glo] += (uint64_t)(int64_t)d;
		at->cnt[x->groups + ghi] += (uint64_t)(int64_t)d;
	}
	at->n += (uint32_t)d;
}

/* The size of the attribute's set g (FAIL[g], or HAS for g = G): the
 * intervals held less those reaching g. */
static uint64_t fails(const struct ivx_index *x, const struct ivx_attr *at, uint32_t g)
{
	uint64_t reach = 0;

	if (g == x->groups)
		return at->n;
	for (uint32_t k = 0; k <= g; k++)
		reach += at->cnt[k];
	for (uint32_t k = 0; k < g; k++)
		reach -= at->cnt[x->groups + k];
	return at->n - reach;
}

/* The groups an interval reaching [glo, ghi] fails, as a mask: for at
 * most 64 groups. */
static uint64_t fail_mask(uint32_t groups, uint32_t glo, uint32_t ghi)
{
	uint64_t all = ((uint64_t)2 << (groups - 1)) - 1;
	uint64_t reach = (((uint64_t)2 << ghi) - 1) & ~(((uint64_t)1 << glo) - 1);

	return all & ~reach; /* glo > ghi: reach is 0 */
}

/* Write slot's bit in every set of the attribute: 1 where the interval
 * reaching [glo, ghi] fails (and HAS, if has), 0 elsewhere. fresh: the
 * slot's bits of this attribute are all 0 already, so only the 1s are
 * written (each set is a different cache line). Without a branch per
 * group: random bounds made a compare per group mispredict about three
 * times a call (callgrind --branch-sim), as much as the writes cost. */
static void write_bits(const struct ivx_index *x, const struct ivx_attr *at, uint32_t glo,
		       uint32_t ghi, bool has, uint32_t slot, bool fresh)
{
	uint64_t *w = slot_words(x, at, slot);
	uint64_t bit = (uint64_t)1 << (slot & 63);

	if (x->groups <= 64) {
		uint64_t m = fail_mask(x->groups, glo, ghi);
		if (fresh) {
			for (; m; m &= m - 1)
				w[(uint32_t)__builtin_ctzll(m) * BLOCK_WORDS] |= bit;
		} else {
			for (uint32_t g = 0; g < x->groups; g++) {
				uint64_t *p = &w[g * BLOCK_WORDS];
				*p = (*p & ~bit) | (bit & -(m >> g & 1));
			}
		}
	} else {
		for (uint32_t g = 0; g < x->groups; g++) {
			uint64_t *p = &w[g * BLOCK_WORDS];
			*p = (*p & ~bit) | (bit & -(uint64_t)((g < glo) | (g > ghi)));
		}
	}
	uint64_t *h = &w[x->groups * BLOCK_WORDS];
	*h = (*h & ~bit) | (bit & -(uint64_t)has);
}

/* Clear slot's bits of the attribute. */
static void clear_bits(const struct ivx_index *x, const struct ivx_attr *at, uint32_t slot)
{
	write_bits(x, at, 0, x->groups - 1, false, slot, false);
}

int ivx_add(struct ivx_index *x, const struct spate_sub *s)
{
	uint32_t n = rein_intervals_buf(s, &x->iv, &x->iv_cap);

	if (n == UINT32_MAX)
		return -SPATE_E_NO_MEMORY;
	for (uint32_t i = 0; i < n; i++)
		if (attr_get(x, x->iv[i].attr) == NULL)
			return -SPATE_E_NO_MEMORY;
	int64_t slot = rein_slots_alloc(&x->sl, s);
	if (slot < 0)
		return (int)slot;
	if ((uint64_t)slot >> BLOCK_SHIFT >= x->blocks_cap &&
	    grow_blocks(x, (x->sl.cap + (1u << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT) != 0) {
		rein_slots_free(&x->sl, s);
		return -SPATE_E_NO_MEMORY;
	}
	/* Clear what a deleted sub left in this slot and the new one does
	 * not overwrite. */
	uint64_t now = 0, prev = x->amask[slot];
	for (uint32_t i = 0; i < n; i++)
		if (x->iv[i].attr < 64)
			now |= (uint64_t)1 << x->iv[i].attr;
	for (uint64_t old = prev & ~now; old; old &= old - 1)
		clear_bits(x, x->attrs[__builtin_ctzll(old)], (uint32_t)slot);
	x->amask[slot] = now;
	for (uint32_t i = 0; i < n; i++) {
		struct ivx_attr *at = x->attrs[x->iv[i].attr];
		uint32_t a = x->iv[i].attr, glo, ghi;
		/* zero unless the slot's last holder had this attribute below 64
		 * (past 64, a delete clears at once) */
		bool fresh = a >= 64 || !(prev >> a & 1);
		reach(x, at, &x->iv[i], &glo, &ghi);
		write_bits(x, at, glo, ghi, true, (uint32_t)slot, fresh);
		count(x, at, glo, ghi, 1);
	}
	return 0;
}

bool ivx_del(struct ivx_index *x, const struct spate_sub *s)
{
	int64_t slot = rein_slots_free(&x->sl, s);

	if (slot < 0)
		return false;
	uint32_t n = rein_intervals(s, x->iv); /* iv_cap fits since the add */
	for (uint32_t i = 0; i < n; i++) {
		struct ivx_attr *at = x->attrs[x->iv[i].attr];
		uint32_t glo, ghi;
		reach(x, at, &x->iv[i], &glo, &ghi);
		count(x, at, glo, ghi, -1);
		/* Attributes past the slot mask are cleared now; the others
		 * when the slot is given again (see amask). */
		if (x->iv[i].attr >= 64)
			clear_bits(x, at, (uint32_t)slot);
	}
	return true;
}

bool ivx_indexable(const struct spate_sub *s)
{
	for (uint16_t i = 0; i < s->n_cons; i++)
		if (s->cons[i].op != SPATE_OP_NE && !isnan(s->cons[i].value))
			return true;
	return false;
}

void ivx_foreach(const struct ivx_index *x, void (*fn)(const struct spate_sub *s, void *ctx),
		 void *ctx)
{
	for (uint32_t w = 0; w < rein_slots_words(&x->sl); w++)
		for (uint64_t u = x->sl.used[w]; u; u &= u - 1)
			fn(x->sl.sub[w * 64 + (uint32_t)__builtin_ctzll(u)], ctx);
}

/* The attributes the event must look at, the most failing first. */
static int32_t plan(struct ivx_index *x, const struct spate_event *ev)
{
	uint16_t j = 0;
	uint32_t na = 0;

	if (x->act_cap < x->n_attrs) {
		struct ivx_act *n = realloc(x->act, x->n_attrs * sizeof(*n));
		if (n == NULL)
			return -1;
		x->act = n;
		struct ivx_val *v = realloc(x->val, x->n_attrs * sizeof(*v));
		if (v == NULL)
			return -1;
		memset(v + x->act_cap, 0, (x->n_attrs - x->act_cap) * sizeof(*v));
		x->val = v;
		x->act_cap = x->n_attrs;
	}
	if (++x->gen == 0) { /* wrapped: no stale mark may pass for this event's */
		if (x->act_cap > 0)
			memset(x->val, 0, x->act_cap * sizeof(*x->val));
		x->gen = 1;
	}
	for (uint16_t i = 0; i < ev->n_attr && ev->attr[i].attr < x->act_cap; i++)
		x->val[ev->attr[i].attr] = (struct ivx_val){ ev->attr[i].value, x->gen };
	for (uint32_t a = 0; a < x->n_attrs; a++) {
		const struct ivx_attr *at = x->attrs[a];
		if (at == NULL || at->n == 0)
			continue;
		while (j < ev->n_attr && ev->attr[j].attr < a)
			j++;
		uint32_t g = x->groups; /* no value (NaN too): HAS */
		if (j < ev->n_attr && ev->attr[j].attr == a && !isnan(ev->attr[j].value))
			g = rein_cell(&at->dom, ev->attr[j].value);
		struct ivx_act t = { at->bits + (size_t)g * BLOCK_WORDS, fails(x, at, g) };
		uint32_t k = na++;
		for (; k > 0 && x->act[k - 1].fails < t.fails; k--)
			x->act[k] = x->act[k - 1];
		x->act[k] = t;
	}
	return (int32_t)na;
}

/* Do s's constraints hold on the event plan() laid out by attribute id?
 * A load and a compare each, where spate_sub_constraints_hold walks the
 * event's sorted list beside the sub's (with a call per operator: 58 % of
 * an event's instructions at 243 matches an event, 20 attributes). */
static bool cons_hold(const struct ivx_index *x, const struct spate_sub *s,
		      const struct spate_event *ev)
{
	for (uint16_t i = 0; i < s->n_cons; i++) {
		const struct spate_constraint *c = &s->cons[i];
		if (c->attr >= x->act_cap) /* an attribute no sub's bits cover */
			return spate_sub_constraints_hold(s, ev);
		const struct ivx_val *v = &x->val[c->attr];
		if (v->gen != x->gen || !spate_op_holds_inline(c->op, v->v, c->value))
			return false;
	}
	return true;
}

/* Confirm the n candidate slots in x->cand. Subscriptions are scattered
 * in memory and each costs two dependent misses (the sub, then its
 * constraints), so both are prefetched for all candidates before any is
 * checked: the misses overlap instead of queueing. */
static int confirm(const struct ivx_index *x, uint32_t n, const struct spate_event *ev,
		   struct spate_matchvec *mv)
{
	const struct spate_sub *const *sub = x->sl.sub;

	for (uint32_t i = 0; i < n; i++)
		__builtin_prefetch(sub[x->cand[i]]);
	for (uint32_t i = 0; i < n; i++)
		__builtin_prefetch(sub[x->cand[i]]->cons);
	for (uint32_t i = 0; i < n; i++) {
		const struct spate_sub *s = sub[x->cand[i]];
		if (ev->lon < s->rect.min_lon || ev->lon > s->rect.max_lon ||
		    ev->lat < s->rect.min_lat || ev->lat > s->rect.max_lat)
			continue;
		if ((s->n_kw == 0 || spate_sub_keywords_in(s, ev)) && cons_hold(x, s, ev) &&
		    spate_matchvec_push(mv, s) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	return 0;
}

int ivx_match(struct ivx_index *x, const struct spate_event *ev, struct spate_matchvec *mv)
{
	int32_t na = plan(x, ev);
	uint32_t nb = (x->sl.n + (1u << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
	uint32_t nw = rein_slots_words(&x->sl); /* words past it: no slot */
	size_t stride = (size_t)x->lines * BLOCK_WORDS;
	uint64_t cands = 0;

	if (na < 0)
		return -SPATE_E_NO_MEMORY;
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t acc[BLOCK_WORDS];
		for (uint32_t i = 0; i < BLOCK_WORDS; i++) {
			uint32_t w = b * BLOCK_WORDS + i;
			acc[i] = w < nw ? ~x->sl.used[w] : ~(uint64_t)0;
		}
		for (int32_t k = 0; k < na; k++) {
			const uint64_t *p = x->act[k].p + b * stride;
			/* The next block's run of this set: a jump the hardware
			 * prefetchers do not guess. */
			for (int i = 0; i < BLOCK_WORDS; i += 8)
				__builtin_prefetch(p + PREFETCH_AHEAD * stride + i);
			for (int i = 0; i < BLOCK_WORDS; i++)
				acc[i] |= p[i];
			/* Every few attributes: does every slot of the block
			 * already fail? Then the rest need not be read. */
			if ((k & 3) == 3) {
				uint64_t all = ~(uint64_t)0;
				for (int i = 0; i < BLOCK_WORDS; i++)
					all &= acc[i];
				if (all == ~(uint64_t)0)
					break;
			}
		}
		uint32_t n = 0;
		for (uint32_t i = 0; i < BLOCK_WORDS; i++)
			for (uint64_t c = ~acc[i]; c; c &= c - 1)
				x->cand[n++] =
					(b << BLOCK_SHIFT) + i * 64 + (uint32_t)__builtin_ctzll(c);
		cands += n;
		if (confirm(x, n, ev, mv) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	x->n_events++;
	x->n_cands += cands;
	return 0;
}

size_t ivx_count(const struct ivx_index *x)
{
	return spate_idmap_count(x->sl.pos);
}

size_t ivx_bytes(const struct ivx_index *x)
{
	size_t b = sizeof(*x) + rein_slots_bytes(&x->sl) + x->n_attrs * sizeof(void *) +
		   x->iv_cap * sizeof(*x->iv) + x->act_cap * sizeof(*x->act);

	for (uint32_t a = 0; a < x->n_attrs; a++)
		if (x->attrs[a] != NULL)
			b += sizeof(struct ivx_attr) + 2 * x->groups * sizeof(uint64_t) +
			     attr_words(x, x->blocks_cap) * sizeof(uint64_t);
	return b;
}

void ivx_stats(const struct ivx_index *x, FILE *f)
{
	uint32_t used_attrs = 0;

	for (uint32_t a = 0; a < x->n_attrs; a++)
		used_attrs += x->attrs[a] && ((const struct ivx_attr *)x->attrs[a])->n;
	fprintf(f,
		"\"subs\":%zu,\"slots\":%u,\"attrs\":%u,\"groups\":%u,\"bytes\":%zu,"
		"\"events\":%llu,\"candidates_per_event\":%.2f",
		ivx_count(x), x->sl.n, used_attrs, x->groups, ivx_bytes(x),
		(unsigned long long)x->n_events,
		x->n_events ? (double)x->n_cands / (double)x->n_events : 0.0);
}
