/* engine_mprein.c - REIN with sorted buckets (rein_bucket.h), as the
 * MP-REIN paper has it, in two engines:
 *
 *  - `rein-list`: the paper's REIN baseline. Each bucket is a sorted
 *    linked list (insert and delete O(n) in the bucket), one thread.
 *  - `mprein`: MP-REIN, the paper's two changes to it.
 *    1. Every bucket is a skip list (of blocks: rein_skiplist.c), so
 *       insertion and deletion are O(log n).
 *    2. The attributes of one event are marked in parallel, one task an
 *       attribute, by the calling thread and a pool of helpers
 *       (mprein_workers, default 1: two threads), from
 *       mprein_par_min slots on.
 *
 * Both use one order in both bucket arrays: the key is the high end in
 * the high-bound array and minus the low end in the low-bound array, so
 * the entries an event value fails always come first, and the comparison
 * bucket stops at the first entry the value passes (with blocks: marks
 * whole blocks up to the one holding the boundary, then searches that
 * one).
 *
 * The pool. The paper's threads mark one shared bit array and skip what
 * another has marked. Here each thread marks an array of its own and
 * confirmation ORs them: marks are blind ORs (there is no work to skip),
 * and two cores writing the lines of one array pass them back and forth.
 * A helper spins for MP_SPIN_NS after its last task, then sleeps on a
 * futex. Per event the caller offers the work to each helper, takes tasks
 * itself from a shared counter, then closes the offer: a helper that has
 * not joined by then (descheduled on a busy machine) is left out and its
 * array ignored, so the caller never waits for a thread that has not
 * started; it waits only for one that took tasks, until it finishes them.
 *
 * Candidates are confirmed with spate_sub_matches(), so both engines are
 * exact (rectangles, keywords and != constraints included). */
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engines/rein/rein_bucket.h"
#include "engines/rein/rein_core.h"
#include "proto/spate_err.h"

#define MP_MAX_HELPERS 7
#define MP_DEFAULT_HELPERS 1
/* Below this many slots one thread marks: handing an event to a spinning
 * helper costs a few hundred nanoseconds, which marking this few slots
 * does not repay (docs/benchmarks.md: the MP-REIN paper's setup). */
#define MP_DEFAULT_PAR_MIN 2048
#define MP_SPIN_NS 50000 /* a helper spins this long for the next event */

struct mp_attr {
	uint32_t n; /* intervals held */
	struct rein_dom dom;
	char *low, *high; /* dom.cells buckets each, of bk->size bytes */
};

struct mp_task {
	const struct mp_attr *at;
	double v;
	bool missing;
};

/* The offer word: generation << 2 | state. */
enum { OFFER_OPEN, OFFER_JOINED, OFFER_DONE, OFFER_CLOSED };

struct mp_helper {
	uint32_t offer;    /* futex word */
	uint32_t sleeping; /* set while in futex_wait */
	uint64_t *mark;    /* this thread's marks, mark_words long */
	uint32_t mark_words;
	pthread_t th;
	struct spate_engine *e;
} __attribute__((aligned(64)));

struct spate_engine {
	const struct rein_bucket_ops *bk;
	const char *name;
	struct rein_slots sl;
	struct spate_schema schema;
	void **attrs; /* struct mp_attr *, by attribute id (rein_attr_get) */
	uint32_t n_attrs;
	struct rein_iv *iv;
	uint32_t iv_cap;
	uint64_t rng;
	uint64_t n_events, n_parallel, n_joined;

	struct mp_task *tasks;
	uint32_t tasks_cap, n_tasks;
	uint32_t next_task __attribute__((aligned(64))); /* taken by fetch-add */
	uint32_t gen, words, par_min, n_helpers;
	uint32_t stop;
	struct mp_helper *helpers; /* n_helpers */
	uint64_t **more;           /* the joined helpers' marks, per event */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void futex_wait(uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void run_task(const struct rein_bucket_ops *bk, uint64_t *mark, const struct mp_task *t)
{
	const struct mp_attr *at = t->at;
	size_t sz = bk->size;

	if (t->missing) {
		for (uint32_t c = 0; c < at->dom.cells; c++)
			bk->mark_all(at->low + c * sz, mark);
		return;
	}
	uint32_t b = rein_cell(&at->dom, t->v);
	for (uint32_t c = b + 1; c < at->dom.cells; c++)
		bk->mark_all(at->low + c * sz, mark); /* low end > v */
	for (uint32_t c = 0; c < b; c++)
		bk->mark_all(at->high + c * sz, mark); /* high end < v */
	bk->mark_below(at->low + b * sz, mark, -t->v, RB_TIE_LAX);
	bk->mark_below(at->high + b * sz, mark, t->v, RB_TIE_LAX);
}

/* Take tasks from the shared counter until none is left. */
static void run_tasks(struct spate_engine *e, uint64_t *mark)
{
	uint32_t n = e->n_tasks, i;

	while ((i = __atomic_fetch_add(&e->next_task, 1, __ATOMIC_RELAXED)) < n)
		run_task(e->bk, mark, &e->tasks[i]);
}

/* Wait for an offer of a generation other than `seen` (or a stop), spinning
 * MP_SPIN_NS, then sleeping. Returns the offer word. */
static uint32_t wait_offer(struct mp_helper *h, uint32_t seen)
{
	uint64_t t0 = 0;

	for (uint32_t i = 1;; i++) {
		uint32_t o = __atomic_load_n(&h->offer, __ATOMIC_ACQUIRE);
		if (o >> 2 != seen)
			return o;
		if ((i & 255) == 0) {
			uint64_t now = now_ns();
			if (t0 == 0) {
				t0 = now;
			} else if (now - t0 > MP_SPIN_NS) {
				__atomic_store_n(&h->sleeping, 1, __ATOMIC_SEQ_CST);
				if (__atomic_load_n(&h->offer, __ATOMIC_SEQ_CST) == o)
					futex_wait(&h->offer, o);
				__atomic_store_n(&h->sleeping, 0, __ATOMIC_RELAXED);
				t0 = 0;
			}
		}
		cpu_relax();
	}
}

static void *helper_main(void *arg)
{
	struct mp_helper *h = arg;
	struct spate_engine *e = h->e;
	uint32_t seen = 0;

	for (;;) {
		uint32_t o = wait_offer(h, seen);
		if (__atomic_load_n(&e->stop, __ATOMIC_ACQUIRE))
			break;
		seen = o >> 2;
		if ((o & 3) != OFFER_OPEN ||
		    !__atomic_compare_exchange_n(&h->offer, &o, o | OFFER_JOINED, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue; /* the caller closed it first */
		memset(h->mark, 0, (size_t)e->words * sizeof(*h->mark));
		run_tasks(e, h->mark);
		__atomic_store_n(&h->offer, seen << 2 | OFFER_DONE, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Mark the tasks with the helpers; returns how many arrays of theirs
 * (in e->more) hold marks of this event. */
static uint32_t mark_parallel(struct spate_engine *e)
{
	uint32_t g = ++e->gen & 0x3fffffff, n_more = 0;

	if (g == 0)
		g = e->gen = 1;
	e->words = rein_slots_words(&e->sl);
	__atomic_store_n(&e->next_task, 0, __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < e->n_helpers; k++) {
		struct mp_helper *h = &e->helpers[k];
		__atomic_store_n(&h->offer, g << 2 | OFFER_OPEN, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&h->sleeping, __ATOMIC_SEQ_CST))
			futex_wake(&h->offer);
	}
	run_tasks(e, e->sl.mark);
	for (uint32_t k = 0; k < e->n_helpers; k++) {
		struct mp_helper *h = &e->helpers[k];
		uint32_t o = g << 2 | OFFER_OPEN;
		if (__atomic_compare_exchange_n(&h->offer, &o, g << 2 | OFFER_CLOSED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue; /* not joined: its array is not this event's */
		uint64_t t0 = 0;
		for (uint32_t i = 1;
		     (__atomic_load_n(&h->offer, __ATOMIC_ACQUIRE) & 3) != OFFER_DONE; i++) {
			/* it took tasks: wait; yield the CPU if it seems descheduled */
			if ((i & 255) == 0) {
				uint64_t now = now_ns();
				if (t0 == 0)
					t0 = now;
				else if (now - t0 > MP_SPIN_NS)
					sched_yield();
			}
			cpu_relax();
		}
		e->more[n_more++] = h->mark;
	}
	return n_more;
}

static void mp_destroy(struct spate_engine *e);

static struct spate_engine *sorted_create(const struct spate_engine_params *p,
					  const struct rein_bucket_ops *bk, const char *name,
					  uint32_t helpers)
{
	struct spate_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->bk = bk;
	e->name = name;
	if (p)
		e->schema = p->schema;
	else
		spate_schema_default(&e->schema);
	e->rng = 0x9e3779b97f4a7c15ull;
	e->par_min = p && p->mprein_par_min ? p->mprein_par_min : MP_DEFAULT_PAR_MIN;
	if (rein_slots_init(&e->sl) != 0) {
		free(e);
		return NULL;
	}
	if (helpers > 0) {
		e->helpers = aligned_alloc(64, helpers * sizeof(*e->helpers));
		e->more = calloc(helpers, sizeof(*e->more));
		if (e->helpers == NULL || e->more == NULL) {
			mp_destroy(e);
			return NULL;
		}
		memset(e->helpers, 0, helpers * sizeof(*e->helpers));
	}
	/* With fewer threads than asked (or none) the caller marks alone. */
	for (uint32_t i = 0; i < helpers; i++) {
		struct mp_helper *h = &e->helpers[e->n_helpers];
		h->e = e;
		if (pthread_create(&h->th, NULL, helper_main, h) != 0)
			break;
		e->n_helpers++;
	}
	return e;
}

static struct spate_engine *mp_create(const struct spate_engine_params *p)
{
	int32_t w = p ? p->mprein_workers : -1;

	return sorted_create(p, &rein_bucket_skiplist, "mprein",
			     w < 0                ? MP_DEFAULT_HELPERS
			     : w > MP_MAX_HELPERS ? MP_MAX_HELPERS
						  : (uint32_t)w);
}

static struct spate_engine *list_create(const struct spate_engine_params *p)
{
	return sorted_create(p, &rein_bucket_sortlist, "rein-list", 0);
}

static void mp_destroy(struct spate_engine *e)
{
	if (e == NULL)
		return;
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELEASE);
	for (uint32_t k = 0; k < e->n_helpers; k++) {
		struct mp_helper *h = &e->helpers[k];
		__atomic_store_n(&h->offer, (h->offer + 4) | OFFER_CLOSED, __ATOMIC_SEQ_CST);
		futex_wake(&h->offer);
		pthread_join(h->th, NULL);
		free(h->mark);
	}
	free(e->helpers);
	free(e->more);
	for (uint32_t a = 0; a < e->n_attrs; a++) {
		struct mp_attr *at = e->attrs[a];
		if (at == NULL)
			continue;
		for (uint32_t c = 0; at->low && c < at->dom.cells; c++) {
			e->bk->clear(at->low + c * e->bk->size);
			e->bk->clear(at->high + c * e->bk->size);
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
	if (rein_buckets_alloc(&low, &high, at->dom.cells, e->bk->size) != 0)
		return NULL;
	at->low = low;
	at->high = high;
	return at;
}

static void *low_bucket(const struct spate_engine *e, const struct rein_iv *iv)
{
	const struct mp_attr *at = e->attrs[iv->attr];

	return at->low + rein_cell(&at->dom, iv->lo) * e->bk->size;
}

static void *high_bucket(const struct spate_engine *e, const struct rein_iv *iv)
{
	const struct mp_attr *at = e->attrs[iv->attr];

	return at->high + rein_cell(&at->dom, iv->hi) * e->bk->size;
}

/* Take the first n intervals of e->iv (slot's) out of the buckets. */
static void remove_intervals(struct spate_engine *e, uint32_t n, uint32_t slot)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct rein_iv *iv = &e->iv[i];
		e->bk->remove(low_bucket(e, iv), -iv->lo, rb_tie(slot, iv->lo_strict));
		e->bk->remove(high_bucket(e, iv), iv->hi, rb_tie(slot, iv->hi_strict));
		((struct mp_attr *)e->attrs[iv->attr])->n--;
	}
}

static int mp_sub_add(struct spate_engine *e, const struct spate_sub *s)
{
	uint32_t n = rein_intervals_buf(s, &e->iv, &e->iv_cap);

	if (n == UINT32_MAX)
		return -SPATE_E_NO_MEMORY;
	for (uint32_t i = 0; i < n; i++)
		if (attr_get(e, e->iv[i].attr) == NULL)
			return -SPATE_E_NO_MEMORY;
	int64_t slot = rein_slots_alloc(&e->sl, s);
	if (slot < 0)
		return (int)slot;
	if (slot >= RB_SLOT_MAX) {
		rein_slots_free(&e->sl, s);
		return -SPATE_E_NO_MEMORY;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct rein_iv *iv = &e->iv[i];
		void *lb = low_bucket(e, iv);
		if (e->bk->insert(lb, -iv->lo, rb_tie((uint32_t)slot, iv->lo_strict), &e->rng) !=
		    0) {
			remove_intervals(e, i, (uint32_t)slot);
			rein_slots_free(&e->sl, s);
			return -SPATE_E_NO_MEMORY;
		}
		if (e->bk->insert(high_bucket(e, iv), iv->hi, rb_tie((uint32_t)slot, iv->hi_strict),
				  &e->rng) != 0) {
			e->bk->remove(lb, -iv->lo, rb_tie((uint32_t)slot, iv->lo_strict));
			remove_intervals(e, i, (uint32_t)slot);
			rein_slots_free(&e->sl, s);
			return -SPATE_E_NO_MEMORY;
		}
		((struct mp_attr *)e->attrs[iv->attr])->n++;
	}
	return 0;
}

static void mp_sub_del(struct spate_engine *e, const struct spate_sub *s)
{
	int64_t slot = rein_slots_free(&e->sl, s);

	if (slot < 0)
		return;
	/* iv_cap fits since the add */
	remove_intervals(e, rein_intervals(s, e->iv), (uint32_t)slot);
}

/* Room for the tasks and, when the pool will run, the helpers' arrays
 * (grown here, between events, when no helper touches them). */
static int reserve(struct spate_engine *e, bool parallel)
{
	if (e->tasks_cap < e->n_attrs) {
		struct mp_task *nt = realloc(e->tasks, e->n_attrs * sizeof(*nt));
		if (nt == NULL)
			return -1;
		e->tasks = nt;
		e->tasks_cap = e->n_attrs;
	}
	uint32_t words = rein_slots_words(&e->sl);
	for (uint32_t k = 0; parallel && k < e->n_helpers; k++) {
		struct mp_helper *h = &e->helpers[k];
		if (h->mark_words >= words)
			continue;
		uint64_t *m = realloc(h->mark, e->sl.cap / 64 * sizeof(*m));
		if (m == NULL)
			return -1;
		h->mark = m;
		h->mark_words = e->sl.cap / 64;
	}
	return 0;
}

static int mp_match(struct spate_engine *e, const struct spate_event *ev, struct spate_matchvec *mv)
{
	bool parallel = e->n_helpers > 0 && e->sl.n >= e->par_min;
	uint32_t nt = 0, n_more = 0;
	uint16_t j = 0;

	if (reserve(e, parallel) != 0)
		return -SPATE_E_NO_MEMORY;
	for (uint32_t a = 0; a < e->n_attrs; a++) {
		const struct mp_attr *at = e->attrs[a];
		if (at == NULL || at->n == 0)
			continue;
		while (j < ev->n_attr && ev->attr[j].attr < a)
			j++;
		bool missing = j == ev->n_attr || ev->attr[j].attr != a || isnan(ev->attr[j].value);
		e->tasks[nt++] = (struct mp_task){ at, missing ? 0 : ev->attr[j].value, missing };
	}
	e->n_tasks = nt;
	rein_slots_clear_marks(&e->sl);
	if (parallel && nt > 1) {
		n_more = mark_parallel(e);
		e->n_parallel++;
		e->n_joined += n_more > 0;
	} else {
		for (uint32_t i = 0; i < nt; i++)
			run_task(e->bk, e->sl.mark, &e->tasks[i]);
	}
	e->n_events++;
	return rein_slots_confirm_with(&e->sl, e->more, n_more, ev, mv);
}

static void mp_stats(const struct spate_engine *e, FILE *f)
{
	uint32_t used_attrs = 0;
	size_t bytes = 0;

	for (uint32_t a = 0; a < e->n_attrs; a++) {
		const struct mp_attr *at = e->attrs[a];
		if (at == NULL)
			continue;
		used_attrs += at->n > 0;
		for (uint32_t c = 0; at->low && c < at->dom.cells; c++)
			bytes += e->bk->bytes(at->low + c * e->bk->size) +
				 e->bk->bytes(at->high + c * e->bk->size);
	}
	fprintf(f,
		"{\"buckets\":\"%s\",\"subs\":%zu,\"slots\":%u,\"attrs\":%u,\"threads\":%u,"
		"\"events\":%llu,\"parallel_events\":%llu,\"helper_joined_events\":%llu,"
		"\"bucket_bytes\":%zu,\"candidates\":%llu}",
		e->bk->name, spate_idmap_count(e->sl.pos), e->sl.n, used_attrs, 1 + e->n_helpers,
		(unsigned long long)e->n_events, (unsigned long long)e->n_parallel,
		(unsigned long long)e->n_joined, bytes, (unsigned long long)e->sl.candidates);
}

const struct spate_engine_ops spate_engine_mprein = {
	.name = "mprein",
	.help = "MP-REIN: REIN with skip-list buckets (O(log n) insert and delete) and "
		"attributes marked by a thread pool",
	.create = mp_create,
	.destroy = mp_destroy,
	.sub_add = mp_sub_add,
	.sub_del = mp_sub_del,
	.match = mp_match,
	.stats = mp_stats,
};

const struct spate_engine_ops spate_engine_rein_list = {
	.name = "rein-list",
	.help = "REIN as the MP-REIN paper's baseline: sorted linked-list buckets (O(n) insert "
		"and delete), one thread",
	.create = list_create,
	.destroy = mp_destroy,
	.sub_add = mp_sub_add,
	.sub_del = mp_sub_del,
	.match = mp_match,
	.stats = mp_stats,
};
