/* rein_core.c - shared parts of the REIN and MP-REIN engines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/rein/rein_core.h"
#include "proto/spate_err.h"

uint32_t rein_intervals(const struct spate_sub *s, struct rein_iv *iv)
{
	uint32_t n = 0;

	for (uint16_t i = 0; i < s->n_cons;) {
		uint32_t attr = s->cons[i].attr;
		struct rein_iv cur = { attr, -INFINITY, INFINITY, false, false };
		bool any = false;
		for (; i < s->n_cons && s->cons[i].attr == attr; i++) {
			const struct spate_constraint *c = &s->cons[i];
			double v = c->value;
			bool lo = false, hi = false, strict = false;
			if (isnan(v))
				continue;
			switch (c->op) {
			case SPATE_OP_GE:
				lo = true;
				break;
			case SPATE_OP_GT:
				lo = true;
				strict = true;
				break;
			case SPATE_OP_LE:
				hi = true;
				break;
			case SPATE_OP_LT:
				hi = true;
				strict = true;
				break;
			case SPATE_OP_EQ:
				lo = hi = true;
				break;
			default:
				continue; /* != : left to confirmation */
			}
			any = true;
			if (lo && (v > cur.lo || (v == cur.lo && strict))) {
				cur.lo = v;
				cur.lo_strict = strict;
			}
			if (hi && (v < cur.hi || (v == cur.hi && strict))) {
				cur.hi = v;
				cur.hi_strict = strict;
			}
		}
		if (any)
			iv[n++] = cur;
	}
	return n;
}

int rein_slots_init(struct rein_slots *sl)
{
	memset(sl, 0, sizeof(*sl));
	sl->pos = spate_idmap_create();
	return sl->pos ? 0 : -SPATE_E_NO_MEMORY;
}

void rein_slots_fini(struct rein_slots *sl)
{
	spate_idmap_destroy(sl->pos);
	free(sl->sub);
	free(sl->used);
	free(sl->mark);
	free(sl->free_v);
	memset(sl, 0, sizeof(*sl));
}

static int grow_slots(struct rein_slots *sl)
{
	uint32_t ncap = sl->cap ? sl->cap * 2 : 1024; /* a multiple of 64 */
	const struct spate_sub **ns = realloc(sl->sub, ncap * sizeof(*ns));
	if (ns == NULL)
		return -SPATE_E_NO_MEMORY;
	sl->sub = ns;
	uint64_t *nu = realloc(sl->used, ncap / 64 * sizeof(*nu));
	if (nu == NULL)
		return -SPATE_E_NO_MEMORY;
	memset(nu + sl->cap / 64, 0, (ncap - sl->cap) / 64 * sizeof(*nu));
	sl->used = nu;
	uint64_t *nm = realloc(sl->mark, ncap / 64 * sizeof(*nm));
	if (nm == NULL)
		return -SPATE_E_NO_MEMORY;
	memset(nm + sl->cap / 64, 0, (ncap - sl->cap) / 64 * sizeof(*nm));
	sl->mark = nm;
	sl->cap = ncap;
	return 0;
}

int64_t rein_slots_alloc(struct rein_slots *sl, const struct spate_sub *s)
{
	uint32_t i;

	if (sl->n_free == 0) {
		if (sl->n == sl->cap && grow_slots(sl) != 0)
			return -SPATE_E_NO_MEMORY;
		/* Reserve room to give the slot back on delete. */
		if (sl->cap_free < sl->n + 1) {
			uint32_t nc = sl->cap;
			uint32_t *nf = realloc(sl->free_v, nc * sizeof(*nf));
			if (nf == NULL)
				return -SPATE_E_NO_MEMORY;
			sl->free_v = nf;
			sl->cap_free = nc;
		}
		i = sl->n;
		if (spate_idmap_put(sl->pos, s->id, (void *)(uintptr_t)(i + 1)) != 0)
			return -SPATE_E_NO_MEMORY;
		sl->n++;
	} else {
		i = sl->free_v[sl->n_free - 1];
		if (spate_idmap_put(sl->pos, s->id, (void *)(uintptr_t)(i + 1)) != 0)
			return -SPATE_E_NO_MEMORY;
		sl->n_free--;
	}
	sl->sub[i] = s;
	sl->used[i >> 6] |= (uint64_t)1 << (i & 63);
	return i;
}

int64_t rein_slots_free(struct rein_slots *sl, const struct spate_sub *s)
{
	uintptr_t p = (uintptr_t)spate_idmap_del(sl->pos, s->id);

	if (p == 0)
		return -1;
	uint32_t i = (uint32_t)(p - 1);
	sl->used[i >> 6] &= ~((uint64_t)1 << (i & 63));
	sl->sub[i] = NULL;
	sl->free_v[sl->n_free++] = i; /* room reserved at alloc */
	return i;
}

size_t rein_slots_bytes(const struct rein_slots *sl)
{
	return (size_t)sl->cap * sizeof(*sl->sub) + (size_t)sl->cap / 64 * 2 * sizeof(uint64_t) +
	       (size_t)sl->cap_free * sizeof(*sl->free_v) + spate_idmap_bytes(sl->pos);
}

int rein_slots_confirm(struct rein_slots *sl, const struct spate_event *ev,
		       struct spate_matchvec *mv)
{
	return rein_slots_confirm_with(sl, NULL, 0, ev, mv);
}

int rein_slots_confirm_with(struct rein_slots *sl, uint64_t *const *more, uint32_t n_more,
			    const struct spate_event *ev, struct spate_matchvec *mv)
{
	uint32_t nw = rein_slots_words(sl);
	uint64_t n_cand = 0;

	for (uint32_t w = 0; w < nw; w++) {
		uint64_t m = sl->mark[w];
		for (uint32_t k = 0; k < n_more; k++)
			m |= more[k][w];
		uint64_t cand = sl->used[w] & ~m;
		n_cand += (uint64_t)__builtin_popcountll(cand);
		while (cand) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(cand);
			cand &= cand - 1;
			if (spate_sub_matches(sl->sub[i], ev) &&
			    spate_matchvec_push(mv, sl->sub[i]) != 0) {
				sl->candidates += n_cand;
				return -SPATE_E_NO_MEMORY;
			}
		}
	}
	sl->candidates += n_cand;
	return 0;
}

int rein_buckets_alloc(void **low, void **high, uint32_t cells, size_t size)
{
	*low = calloc(cells, size);
	*high = calloc(cells, size);
	if (*low == NULL || *high == NULL) {
		free(*low);
		free(*high);
		*low = *high = NULL;
		return -1;
	}
	return 0;
}

void *rein_attr_get(void ***table, uint32_t *n, uint32_t a, size_t size)
{
	if (a >= *n) {
		uint32_t nn = *n ? *n : 8;
		while (nn <= a)
			nn *= 2;
		void **nt = realloc(*table, nn * sizeof(*nt));
		if (nt == NULL)
			return NULL;
		memset(nt + *n, 0, (nn - *n) * sizeof(*nt));
		*table = nt;
		*n = nn;
	}
	if ((*table)[a] == NULL)
		(*table)[a] = calloc(1, size);
	return (*table)[a];
}

uint32_t rein_intervals_buf(const struct spate_sub *s, struct rein_iv **iv, uint32_t *cap)
{
	if (*cap < s->n_cons) {
		struct rein_iv *n = realloc(*iv, s->n_cons * sizeof(*n));
		if (n == NULL)
			return UINT32_MAX;
		*iv = n;
		*cap = s->n_cons;
	}
	return rein_intervals(s, *iv);
}
