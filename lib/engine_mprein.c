/* engine_mprein.c - MP-REIN: REIN (see engine_rein.c) with two changes.
 * 1. Every bucket is a skip list ordered by bound, so insertion and
 *    deletion are O(log n), and the comparison bucket stops at the first
 *    entry the event value passes. Both arrays use one order: the key is
 *    the high end in the high-bound array and minus the low end in the
 *    low-bound array, so the entries an event fails (key < q, or key == q
 *    and strict) always come first.
 * 2. The attributes of one event are marked in parallel by a pool of
 *    MPREIN_WORKERS threads (one task per attribute, the caller waits),
 *    into the one shared bit set, with relaxed atomic OR; a thread skips a
 *    slot already marked. Workloads below MPREIN_PAR_MIN slots are marked
 *    by the caller alone, where waking the pool costs more than it saves.
 * Candidates are confirmed with spate_sub_matches(), so the engine is
 * exact (rectangles, keywords and != constraints included). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rein_core.h"
#include "spate_err.h"

#define MPREIN_WORKERS 2
#define MPREIN_PAR_MIN 2048
#define SKIP_MAX 16

struct sk_node {
	double k;
	uint32_t slot;
	uint8_t strict, level;
	struct sk_node *next[];
};

struct mp_attr {
	uint32_t n; /* intervals held */
	struct sk_node *low[REIN_CELLS], *high[REIN_CELLS]; /* heads, lazily */
};

struct mp_task {
	const struct mp_attr *at;
	double v;
	bool missing;
};

struct spate_engine {
	struct rein_slots sl;
	struct mp_attr **attrs;
	uint32_t n_attrs;
	struct rein_iv *iv;
	uint32_t iv_cap;
	struct sk_node **nodes; /* scratch for sub_add: 2 per interval */
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

/* Is a before b in a bucket: key ascending, strict first, then slot. */
static bool sk_before(const struct sk_node *a, double k, uint8_t strict, uint32_t slot)
{
	if (a->k != k)
		return a->k < k;
	if (a->strict != strict)
		return a->strict > strict;
	return a->slot < slot;
}

static struct sk_node *sk_alloc(uint8_t level)
{
	struct sk_node *n = calloc(1, sizeof(*n) + level * sizeof(n->next[0]));
	if (n)
		n->level = level;
	return n;
}

static uint8_t sk_level(struct spate_engine *e)
{
	uint8_t l = 1;

	e->rng ^= e->rng << 13;
	e->rng ^= e->rng >> 7;
	e->rng ^= e->rng << 17;
	uint64_t r = e->rng;
	while (l < SKIP_MAX && (r & 3) == 0) { /* p = 1/4 */
		l++;
		r >>= 2;
	}
	return l;
}

static void sk_insert(struct sk_node *head, struct sk_node *n)
{
	struct sk_node *x = head;

	for (int l = SKIP_MAX - 1; l >= 0; l--) {
		while (x->next[l] && sk_before(x->next[l], n->k, n->strict, n->slot))
			x = x->next[l];
		if (l < n->level) {
			n->next[l] = x->next[l];
			x->next[l] = n;
		}
	}
}

static void sk_remove(struct sk_node *head, double k, uint8_t strict, uint32_t slot)
{
	struct sk_node *x = head, *update[SKIP_MAX];

	for (int l = SKIP_MAX - 1; l >= 0; l--) {
		while (x->next[l] && sk_before(x->next[l], k, strict, slot))
			x = x->next[l];
		update[l] = x;
	}
	struct sk_node *n = x->next[0];
	if (n == NULL || n->k != k || n->strict != strict || n->slot != slot)
		return;
	for (int l = 0; l < n->level; l++)
		update[l]->next[l] = n->next[l];
	free(n);
}

static void sk_free(struct sk_node *head)
{
	while (head) {
		struct sk_node *n = head->next[0];
		free(head);
		head = n;
	}
}

static inline void amark(uint64_t *mark, uint32_t i)
{
	uint64_t *w = &mark[i >> 6], bit = (uint64_t)1 << (i & 63);

	if (__atomic_load_n(w, __ATOMIC_RELAXED) & bit)
		return;
	__atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
}

static void mark_list(uint64_t *mark, const struct sk_node *head)
{
	if (head == NULL)
		return;
	for (const struct sk_node *n = head->next[0]; n; n = n->next[0])
		amark(mark, n->slot);
}

/* Mark the entries failing query q: a prefix of the list. */
static void mark_failing(uint64_t *mark, const struct sk_node *head, double q)
{
	if (head == NULL)
		return;
	for (const struct sk_node *n = head->next[0]; n; n = n->next[0]) {
		if (!(n->k < q || (n->k == q && n->strict)))
			break;
		amark(mark, n->slot);
	}
}

static void run_task(uint64_t *mark, const struct mp_task *t)
{
	const struct mp_attr *at = t->at;

	if (t->missing) {
		for (uint32_t c = 0; c < REIN_CELLS; c++)
			mark_list(mark, at->low[c]);
		return;
	}
	uint32_t b = rein_cell(t->v);
	for (uint32_t c = b + 1; c < REIN_CELLS; c++)
		mark_list(mark, at->low[c]);
	for (uint32_t c = 0; c < b; c++)
		mark_list(mark, at->high[c]);
	mark_failing(mark, at->low[b], -t->v);
	mark_failing(mark, at->high[b], t->v);
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
	(void)p;
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->rng = 0x9e3779b97f4a7c15ull;
	if (rein_slots_init(&e->sl) != 0) {
		free(e);
		return NULL;
	}
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->work, NULL);
	pthread_cond_init(&e->done, NULL);
	/* With fewer threads than asked (or none) the caller marks alone. */
	for (uint32_t i = 0; i < MPREIN_WORKERS; i++) {
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
		for (uint32_t c = 0; c < REIN_CELLS; c++) {
			sk_free(at->low[c]);
			sk_free(at->high[c]);
		}
		free(at);
	}
	free(e->attrs);
	free(e->iv);
	free(e->nodes);
	free(e->tasks);
	rein_slots_fini(&e->sl);
	free(e);
}

static struct mp_attr *attr_get(struct spate_engine *e, uint32_t a)
{
	if (a >= e->n_attrs) {
		uint32_t nn = e->n_attrs ? e->n_attrs : 8;
		while (nn <= a)
			nn *= 2;
		struct mp_attr **na = realloc(e->attrs, nn * sizeof(*na));
		if (na == NULL)
			return NULL;
		memset(na + e->n_attrs, 0, (nn - e->n_attrs) * sizeof(*na));
		e->attrs = na;
		e->n_attrs = nn;
	}
	if (e->attrs[a] == NULL)
		e->attrs[a] = calloc(1, sizeof(struct mp_attr));
	return e->attrs[a];
}

static int head_get(struct sk_node **h)
{
	if (*h == NULL)
		*h = sk_alloc(SKIP_MAX);
	return *h ? 0 : -SPATE_E_NO_MEMORY;
}

static int mp_sub_add(struct spate_engine *e, const struct spate_sub *s)
{
	if (e->iv_cap < s->n_cons) {
		struct rein_iv *niv = realloc(e->iv, s->n_cons * sizeof(*niv));
		if (niv == NULL)
			return -SPATE_E_NO_MEMORY;
		e->iv = niv;
		struct sk_node **nn = realloc(e->nodes, 2 * s->n_cons * sizeof(*nn));
		if (nn == NULL)
			return -SPATE_E_NO_MEMORY;
		e->nodes = nn;
		e->iv_cap = s->n_cons;
	}
	uint32_t n = rein_intervals(s, e->iv);
	uint32_t made = 0;
	/* Allocate everything first so that nothing fails half-way. */
	for (uint32_t i = 0; i < n; i++) {
		struct mp_attr *at = attr_get(e, e->iv[i].attr);
		if (at == NULL || head_get(&at->low[rein_cell(e->iv[i].lo)]) != 0 ||
		    head_get(&at->high[rein_cell(e->iv[i].hi)]) != 0)
			goto fail;
		for (int k = 0; k < 2; k++) {
			struct sk_node *nd = sk_alloc(sk_level(e));
			if (nd == NULL)
				goto fail;
			e->nodes[made++] = nd;
		}
	}
	int64_t slot = rein_slots_alloc(&e->sl, s);
	if (slot < 0)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		const struct rein_iv *iv = &e->iv[i];
		struct mp_attr *at = e->attrs[iv->attr];
		struct sk_node *lo = e->nodes[2 * i], *hi = e->nodes[2 * i + 1];
		lo->k = -iv->lo;
		lo->strict = iv->lo_strict;
		lo->slot = (uint32_t)slot;
		hi->k = iv->hi;
		hi->strict = iv->hi_strict;
		hi->slot = (uint32_t)slot;
		sk_insert(at->low[rein_cell(iv->lo)], lo);
		sk_insert(at->high[rein_cell(iv->hi)], hi);
		at->n++;
	}
	return 0;
fail:
	while (made)
		free(e->nodes[--made]);
	return -SPATE_E_NO_MEMORY;
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
		sk_remove(at->low[rein_cell(iv->lo)], -iv->lo, iv->lo_strict, (uint32_t)slot);
		sk_remove(at->high[rein_cell(iv->hi)], iv->hi, iv->hi_strict, (uint32_t)slot);
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
	memset(e->sl.mark, 0, rein_slots_words(&e->sl) * sizeof(e->sl.mark[0]));
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
		used_attrs += e->attrs[a] && e->attrs[a]->n;
	fprintf(f, "{\"subs\":%zu,\"slots\":%u,\"attrs\":%u,\"cells\":%u,\"threads\":%u,"
		"\"events\":%llu,\"parallel_events\":%llu}",
		spate_idmap_count(e->sl.pos), e->sl.n, used_attrs, REIN_CELLS, e->n_th,
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
