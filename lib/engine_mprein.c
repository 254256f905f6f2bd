/* engine_mprein.c - MP-REIN: REIN (see engine_rein.c) with two changes.
 * 1. Every bucket is a skip list ordered by bound, so insertion and
 *    deletion are O(log n), and the comparison bucket stops at the first
 *    entry the event value passes. Both arrays use one order: the key is
 *    the high end in the high-bound array and minus the low end in the
 *    low-bound array, so the entries an event fails (key < q, or key == q
 *    and strict) always come first.
 * 2. The attributes of one event are marked in parallel by a pool of
 *    MPREIN_WORKERS threads (one task per attribute, the caller waits),
 *    into the one shared bit set. A mark is a relaxed atomic load, OR and
 *    relaxed atomic store, not a locked fetch-or: two threads racing on
 *    one word can lose a mark, which only leaves an extra candidate that
 *    confirmation rejects, and the locked OR (with the test for an already
 *    set bit, a mispredicted branch) made marking 2x slower. Workloads
 *    below MPREIN_PAR_MIN slots are marked by the caller alone.
 * Candidates are confirmed with spate_sub_matches(), so the engine is
 * exact (rectangles, keywords and != constraints included). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rein_core.h"
#include "spate_err.h"

#define MPREIN_WORKERS 2
/* Below this many slots waking the pool costs more than it saves (measured
 * on 2 cores: at 20,000 subs marking alone is ~1.4x faster, at 100,000 the
 * pool is ~1.4x faster). */
#define MPREIN_PAR_MIN 32768
#define SKIP_MAX 8 /* p = 1/4: plenty for 4^8 = 65536 entries a bucket */

/* Skip-list nodes live in one array per bucket and link by index, so that
 * wholesale marking scans a compact array of their slots (cache friendly)
 * instead of chasing links; index 0 is the head, and a link 0 ends the list. Freed nodes have
 * level 0 and chain through next[0]. */
struct sk_node {
	double k;
	uint32_t slot;
	uint8_t strict, level;
	uint32_t next[SKIP_MAX];
};

struct sk_bucket {
	struct sk_node *v;
	uint32_t *slot; /* slot of node i, or UINT32_MAX when free: scanned */
	uint32_t n, cap, free_head;
};

struct mp_attr {
	uint32_t n; /* intervals held */
	struct rein_dom dom;
	struct sk_bucket *low, *high; /* dom.cells buckets each */
};

struct mp_task {
	const struct mp_attr *at;
	double v;
	bool missing;
};

struct spate_engine {
	struct rein_slots sl;
	struct spate_schema schema;
	void **attrs; /* struct mp_attr *, by attribute id (rein_attr_get) */
	uint32_t n_attrs;
	struct rein_iv *iv;
	uint32_t iv_cap;
	uint64_t rng;
	uint64_t n_events, n_parallel;

	/* The pool. */
	pthread_t th[MPREIN_WORKERS];
	uint32_t n_th;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct mp_task *tasks;
	uint32_t tasks_cap;
	uint32_t n_tasks, next_task, pending;
	bool stop;
};

/* Is a before (k, strict, slot): key ascending, strict first, then slot. */
static bool sk_before(const struct sk_node *a, double k, uint8_t strict, uint32_t slot)
{
	if (a->k != k)
		return a->k < k;
	if (a->strict != strict)
		return a->strict > strict;
	return a->slot < slot;
}

static uint8_t sk_level(struct spate_engine *e)
{
	uint8_t l = 1;

	e->rng ^= e->rng << 13;
	e->rng ^= e->rng >> 7;
	e->rng ^= e->rng << 17;
	uint64_t r = e->rng;
	while (l < SKIP_MAX && (r & 3) == 0) {
		l++;
		r >>= 2;
	}
	return l;
}

/* Room for one more node (and the head). */
static int sk_reserve(struct sk_bucket *b)
{
	if (b->free_head != 0 || b->n < b->cap)
		return 0;
	uint32_t nc = b->cap ? b->cap * 2 : 4;
	struct sk_node *nv = realloc(b->v, nc * sizeof(*nv));
	if (nv == NULL)
		return -SPATE_E_NO_MEMORY;
	b->v = nv;
	uint32_t *ns = realloc(b->slot, nc * sizeof(*ns));
	if (ns == NULL)
		return -SPATE_E_NO_MEMORY;
	b->slot = ns;
	b->cap = nc;
	if (b->n == 0) {
		b->slot[0] = UINT32_MAX;
		memset(&b->v[0], 0, sizeof(b->v[0]));
		b->v[0].level = SKIP_MAX;
		b->n = 1;
	}
	return 0;
}

/* Insert after sk_reserve(). */
static void sk_insert(struct sk_bucket *b, double k, uint8_t strict, uint32_t slot,
		      uint8_t level)
{
	uint32_t idx;

	if (b->free_head != 0) {
		idx = b->free_head;
		b->free_head = b->v[idx].next[0];
	} else {
		idx = b->n++;
	}
	struct sk_node *v = b->v, *n = &v[idx];
	n->k = k;
	n->strict = strict;
	n->slot = slot;
	n->level = level;
	b->slot[idx] = slot;
	uint32_t x = 0;
	for (int l = SKIP_MAX - 1; l >= 0; l--) {
		while (v[x].next[l] && sk_before(&v[v[x].next[l]], k, strict, slot))
			x = v[x].next[l];
		if (l < level) {
			n->next[l] = v[x].next[l];
			v[x].next[l] = idx;
		}
	}
}

static void sk_remove(struct sk_bucket *b, double k, uint8_t strict, uint32_t slot)
{
	struct sk_node *v = b->v;
	uint32_t x = 0, update[SKIP_MAX];

	if (b->n == 0)
		return;
	for (int l = SKIP_MAX - 1; l >= 0; l--) {
		while (v[x].next[l] && sk_before(&v[v[x].next[l]], k, strict, slot))
			x = v[x].next[l];
		update[l] = x;
	}
	uint32_t idx = v[x].next[0];
	if (idx == 0 || v[idx].k != k || v[idx].strict != strict || v[idx].slot != slot)
		return;
	for (int l = 0; l < v[idx].level; l++)
		v[update[l]].next[l] = v[idx].next[l];
	v[idx].level = 0;
	b->slot[idx] = UINT32_MAX;
	v[idx].next[0] = b->free_head;
	b->free_head = idx;
}

/* Set a mark; may lose a mark set concurrently (see the top). */
static inline void amark(uint64_t *mark, uint32_t i)
{
	uint64_t *w = &mark[i >> 6], bit = (uint64_t)1 << (i & 63);

	__atomic_store_n(w, __atomic_load_n(w, __ATOMIC_RELAXED) | bit, __ATOMIC_RELAXED);
}

/* Mark every entry: order does not matter, so scan the node array. */
static void mark_list(uint64_t *mark, const struct sk_bucket *b)
{
	const uint32_t *sl = b->slot;
	uint32_t n = b->n;

	for (uint32_t i = 1; i < n; i++)
		if (sl[i] != UINT32_MAX)
			amark(mark, sl[i]);
}

/* Mark the entries failing query q: a prefix of the list. */
static void mark_failing(uint64_t *mark, const struct sk_bucket *b, double q)
{
	if (b->n == 0)
		return;
	for (uint32_t i = b->v[0].next[0]; i != 0; i = b->v[i].next[0]) {
		const struct sk_node *n = &b->v[i];
		if (!(n->k < q || (n->k == q && n->strict)))
			break;
		amark(mark, n->slot);
	}
}

static void run_task(uint64_t *mark, const struct mp_task *t)
{
	const struct mp_attr *at = t->at;

	if (t->missing) {
		for (uint32_t c = 0; c < at->dom.cells; c++)
			mark_list(mark, &at->low[c]);
		return;
	}
	uint32_t b = rein_cell(&at->dom, t->v);
	for (uint32_t c = b + 1; c < at->dom.cells; c++)
		mark_list(mark, &at->low[c]);
	for (uint32_t c = 0; c < b; c++)
		mark_list(mark, &at->high[c]);
	mark_failing(mark, &at->low[b], -t->v);
	mark_failing(mark, &at->high[b], t->v);
}

static void *worker(void *arg)
{
	struct spate_engine *e = arg;

	pthread_mutex_lock(&e->mu);
	for (;;) {
		while (!e->stop && e->next_task >= e->n_tasks)
			pthread_cond_wait(&e->work, &e->mu);
		if (e->stop)
			break;
		const struct mp_task *t = &e->tasks[e->next_task++];
		uint64_t *mark = e->sl.mark;
		pthread_mutex_unlock(&e->mu);
		run_task(mark, t);
		pthread_mutex_lock(&e->mu);
		if (--e->pending == 0)
			pthread_cond_signal(&e->done);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

static void mp_destroy(struct spate_engine *e);

static struct spate_engine *mp_create(const struct spate_engine_params *p)
{
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	if (p)
		e->schema = p->schema;
	else
		spate_schema_default(&e->schema);
	e->rng = 0x9e3779b97f4a7c15ull;
	if (rein_slots_init(&e->sl) != 0) {
		free(e);
		return NULL;
	}
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->work, NULL);
	pthread_cond_init(&e->done, NULL);
	/* With fewer threads than asked (or none) the caller marks alone. */
	uint32_t want = p && p->mprein_workers >= 0 && p->mprein_workers < MPREIN_WORKERS
				? (uint32_t)p->mprein_workers : MPREIN_WORKERS;
	for (uint32_t i = 0; i < want; i++) {
		if (pthread_create(&e->th[i], NULL, worker, e) != 0)
			break;
		e->n_th++;
	}
	return e;
}

static void mp_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	pthread_mutex_lock(&e->mu);
	e->stop = true;
	pthread_cond_broadcast(&e->work);
	pthread_mutex_unlock(&e->mu);
	for (uint32_t i = 0; i < e->n_th; i++)
		pthread_join(e->th[i], NULL);
	pthread_cond_destroy(&e->work);
	pthread_cond_destroy(&e->done);
	pthread_mutex_destroy(&e->mu);
	for (uint32_t a = 0; a < e->n_attrs; a++) {
		struct mp_attr *at = e->attrs[a];
		if (at == NULL)
			continue;
		for (uint32_t c = 0; at->low && c < at->dom.cells; c++) {
			free(at->low[c].v);
			free(at->low[c].slot);
			free(at->high[c].v);
			free(at->high[c].slot);
		}
		free(at->low);
		free(at->high);
		free(at);
	}
	free(e->attrs);
	free(e->iv);
	free(e->tasks);
	rein_slots_fini(&e->sl);
	free(e);
}

static struct mp_attr *attr_get(struct spate_engine *e, uint32_t a)
{
	struct mp_attr *at = rein_attr_get(&e->attrs, &e->n_attrs, a, sizeof(*at));

	if (at == NULL || at->low != NULL)
		return at;
	rein_dom_init(&at->dom, spate_schema_domain(&e->schema, a));
	void *low, *high;
	if (rein_buckets_alloc(&low, &high, at->dom.cells, sizeof(*at->low)) != 0)
		return NULL;
	at->low = low;
	at->high = high;
	return at;
}

static int mp_sub_add(struct spate_engine *e, const struct spate_sub *s)
{
	uint32_t n = rein_intervals_buf(s, &e->iv, &e->iv_cap);
	if (n == UINT32_MAX)
		return -SPATE_E_NO_MEMORY;
	/* Reserve everything first so that nothing fails half-way. */
	for (uint32_t i = 0; i < n; i++) {
		struct mp_attr *at = attr_get(e, e->iv[i].attr);
		if (at == NULL || sk_reserve(&at->low[rein_cell(&at->dom, e->iv[i].lo)]) != 0 ||
		    sk_reserve(&at->high[rein_cell(&at->dom, e->iv[i].hi)]) != 0)
			return -SPATE_E_NO_MEMORY;
	}
	int64_t slot = rein_slots_alloc(&e->sl, s);
	if (slot < 0)
		return (int)slot;
	for (uint32_t i = 0; i < n; i++) {
		const struct rein_iv *iv = &e->iv[i];
		struct mp_attr *at = e->attrs[iv->attr];
		sk_insert(&at->low[rein_cell(&at->dom, iv->lo)], -iv->lo, iv->lo_strict, (uint32_t)slot,
			  sk_level(e));
		sk_insert(&at->high[rein_cell(&at->dom, iv->hi)], iv->hi, iv->hi_strict, (uint32_t)slot,
			  sk_level(e));
		at->n++;
	}
	return 0;
}

static void mp_sub_del(struct spate_engine *e, const struct spate_sub *s)
{
	int64_t slot = rein_slots_free(&e->sl, s);

	if (slot < 0)
		return;
	uint32_t n = rein_intervals(s, e->iv); /* iv_cap fits since the add */
	for (uint32_t i = 0; i < n; i++) {
		const struct rein_iv *iv = &e->iv[i];
		struct mp_attr *at = e->attrs[iv->attr];
		sk_remove(&at->low[rein_cell(&at->dom, iv->lo)], -iv->lo, iv->lo_strict,
			  (uint32_t)slot);
		sk_remove(&at->high[rein_cell(&at->dom, iv->hi)], iv->hi, iv->hi_strict,
			  (uint32_t)slot);
		at->n--;
	}
}

static int mp_match(struct spate_engine *e, const struct spate_event *ev,
		    struct spate_matchvec *mv)
{
	uint16_t j = 0;

	if (e->tasks_cap < e->n_attrs) {
		struct mp_task *nt = realloc(e->tasks, e->n_attrs * sizeof(*nt));
		if (nt == NULL)
			return -SPATE_E_NO_MEMORY;
		e->tasks = nt;
		e->tasks_cap = e->n_attrs;
	}
	uint32_t nt = 0;
	for (uint32_t a = 0; a < e->n_attrs; a++) {
		const struct mp_attr *at = e->attrs[a];
		if (at == NULL || at->n == 0)
			continue;
		while (j < ev->n_attr && ev->attr[j].attr < a)
			j++;
		bool missing = j == ev->n_attr || ev->attr[j].attr != a ||
			       isnan(ev->attr[j].value);
		e->tasks[nt++] = (struct mp_task){ at, missing ? 0 : ev->attr[j].value, missing };
	}
	rein_slots_clear_marks(&e->sl);
	if (e->n_th > 0 && nt > 1 && e->sl.n >= MPREIN_PAR_MIN) {
		pthread_mutex_lock(&e->mu);
		e->n_tasks = nt;
		e->next_task = 0;
		e->pending = nt;
		pthread_cond_broadcast(&e->work);
		while (e->pending > 0)
			pthread_cond_wait(&e->done, &e->mu);
		e->n_tasks = 0;
		e->next_task = 0;
		pthread_mutex_unlock(&e->mu);
		e->n_parallel++;
	} else {
		for (uint32_t i = 0; i < nt; i++)
			run_task(e->sl.mark, &e->tasks[i]);
	}
	e->n_events++;
	return rein_slots_confirm(&e->sl, ev, mv);
}

static void mp_stats(const struct spate_engine *e, FILE *f)
{
	uint32_t used_attrs = 0;

	for (uint32_t a = 0; a < e->n_attrs; a++)
		used_attrs += e->attrs[a] && ((const struct mp_attr *)e->attrs[a])->n;
	fprintf(f, "{\"subs\":%zu,\"slots\":%u,\"attrs\":%u,\"threads\":%u,"
		"\"events\":%llu,\"parallel_events\":%llu}",
		spate_idmap_count(e->sl.pos), e->sl.n, used_attrs, e->n_th,
		(unsigned long long)e->n_events, (unsigned long long)e->n_parallel);
}

const struct spate_engine_ops spate_engine_mprein = {
	.name = "mprein",
	.help = "MP-REIN: REIN with skip-list buckets and attributes marked by a "
		"thread pool",
	.create = mp_create,
	.destroy = mp_destroy,
	.sub_add = mp_sub_add,
	.sub_del = mp_sub_del,
	.match = mp_match,
	.stats = mp_stats,
};
