/* spate_matcher.c - raw subscriptions/events to interned ones, ownership,
 * quotas, and the engine behind them (see spate_matcher.h). */
#include <stdlib.h>
#include <string.h>

#include "matcher/spate_dict.h"
#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"
#include "matcher/spate_matcher.h"

struct del_memo {
	uint64_t id, tag;
	uint32_t owner;
};

#define ATTR_MEMO 4

struct spate_matcher {
	const struct spate_engine_ops *ops;
	struct spate_engine *engine;
	bool own_engine; /* made here, destroyed here */
	struct spate_dict *keywords;
	struct spate_dict *attrs;
	struct spate_idmap *subs;       /* id -> struct spate_sub (one block) */
	struct spate_idmap *per_client; /* owner + 1 -> count (as a pointer) */
	struct spate_matcher_conf conf;
	/* Recent deletes, oldest overwritten first (a ring), and id -> slot
	 * + 1 of the live ones: retransmitted deletes are recognised. */
	struct del_memo *dels;
	uint32_t del_cap, del_next;
	struct spate_idmap *del_index;
	/* The last id of the attribute name at each of an event's first
	 * places (names of 8 to 16 bytes, held whole in two words): events
	 * repeat their names in the same order (attr_id). */
	struct attr_memo {
		uint32_t len, id;
		uint64_t head, tail;
	} attr_memo[ATTR_MEMO];
	/* Scratch for interning one event: no allocation per event. */
	uint32_t ev_kw[SPATE_KW_MAX_HARD];
	struct spate_attr ev_attr[SPATE_ATTR_MAX_HARD];
};

void spate_matcher_conf_default(struct spate_matcher_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	spate_engine_params_default(&conf->params);
}

static struct spate_matcher *matcher_new(const struct spate_matcher_conf *conf,
					 const struct spate_engine_ops *ops,
					 struct spate_engine *engine)
{
	struct spate_matcher *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->ops = ops;
	m->conf = *conf;
	m->conf.engine = ops->name;
	m->own_engine = engine == NULL;
	m->engine = engine ? engine : ops->create(&m->conf.params);
	m->keywords = spate_dict_create();
	m->attrs = spate_dict_create();
	m->subs = spate_idmap_create();
	m->per_client = spate_idmap_create();
	if (!m->engine || !m->keywords || !m->attrs || !m->subs || !m->per_client) {
		spate_matcher_destroy(m);
		return NULL;
	}
	/* Declared attributes first, in schema order: id i is schema entry i
	 * (spate_schema.h), which is how engines find a domain by id. */
	const struct spate_schema *sc = &m->conf.params.schema;
	for (uint32_t i = 0; i < sc->n; i++)
		if (spate_dict_intern(m->attrs, sc->name[i], strlen(sc->name[i])) != i) {
			spate_matcher_destroy(m);
			return NULL;
		}
	return m;
}

struct spate_matcher *spate_matcher_create(const struct spate_matcher_conf *conf)
{
	const struct spate_engine_ops *ops = spate_engine_find(conf->engine);

	return ops ? matcher_new(conf, ops, NULL) : NULL;
}

struct spate_matcher *spate_matcher_create_engine(const struct spate_matcher_conf *conf,
						  const struct spate_engine_ops *ops,
						  struct spate_engine *engine)
{
	return engine ? matcher_new(conf, ops, engine) : NULL;
}

static void free_sub(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	free(val);
}

void spate_matcher_destroy(struct spate_matcher *m)
{
	if (m == NULL)
		return;
	if (m->engine && m->own_engine)
		m->ops->destroy(m->engine);
	spate_idmap_destroy_each(m->subs, free_sub, NULL);
	spate_idmap_destroy(m->per_client);
	spate_idmap_destroy(m->del_index);
	free(m->dels);
	spate_dict_destroy(m->keywords);
	spate_dict_destroy(m->attrs);
	free(m);
}

const char *spate_matcher_engine_name(const struct spate_matcher *m)
{
	return m->ops->name;
}

void spate_matcher_engine_stats(const struct spate_matcher *m, FILE *f)
{
	if (m->ops->stats)
		m->ops->stats(m->engine, f);
	else
		fputs("{}", f);
}

/* Insertion sort: n is at most SPATE_KW_MAX_HARD and usually a handful,
 * where qsort's calls through a comparison pointer cost more than the
 * moves (they were a tenth of spated's per-event cost). */
/* Inlined on the event path (once an event): the call cost 10 of its
 * 90 instructions there (callgrind, cities). */
static inline uint16_t sort_unique_known(uint32_t *v, uint16_t n)
{
	uint16_t k = 0; /* v[0..k): known ids, ascending, no repeats */

	/* One pass: each id is placed in the sorted prefix or dropped there
	 * (an event's separate drop-unknown pass and sort-then-unique cost
	 * about 120 instructions an event on the cities stream). v[i] is read
	 * before v[k], k <= i, is written. */
	for (uint16_t i = 0; i < n; i++) {
		uint32_t x = v[i];
		uint16_t j = k;

		if (x == SPATE_DICT_NONE)
			continue;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		if (j > 0 && v[j - 1] == x) { /* a repeat (rare): close the gap */
			for (; j < k; j++)
				v[j] = v[j + 1];
			continue;
		}
		v[j] = x;
		k++;
	}
	return k;
}

uint16_t spate_matcher_sort_unique(uint32_t *v, uint16_t n)
{
	return sort_unique_known(v, n);
}

static int cmp_constraint(const void *a, const void *b)
{
	const struct spate_constraint *x = a, *y = b;

	if (x->attr != y->attr)
		return (x->attr > y->attr) - (x->attr < y->attr);
	if (x->op != y->op)
		return (x->op > y->op) - (x->op < y->op);
	return (x->value > y->value) - (x->value < y->value);
}

/* Build the interned subscription in one block: the spate_sub, its
 * keywords, then its constraints. */
static struct spate_sub *intern_sub(struct spate_matcher *m, const struct spate_raw_sub *rs,
				    uint32_t owner)
{
	uint32_t kw[SPATE_KW_MAX_HARD];
	struct spate_constraint cons[SPATE_CONS_MAX_HARD];
	uint32_t n_kw = rs->n_kw < SPATE_KW_MAX_HARD ? rs->n_kw : SPATE_KW_MAX_HARD;
	uint32_t n_cons = rs->n_cons < SPATE_CONS_MAX_HARD ? rs->n_cons : SPATE_CONS_MAX_HARD;

	for (uint32_t i = 0; i < n_kw; i++) {
		kw[i] = spate_dict_intern(m->keywords, rs->kw[i].p, rs->kw[i].len);
		if (kw[i] == SPATE_DICT_NONE)
			return NULL;
	}
	for (uint32_t i = 0; i < n_cons; i++) {
		cons[i].attr =
			spate_dict_intern(m->attrs, rs->cons[i].name.p, rs->cons[i].name.len);
		if (cons[i].attr == SPATE_DICT_NONE)
			return NULL;
		cons[i].op = rs->cons[i].op;
		cons[i].value = rs->cons[i].value;
	}
	uint16_t nk = spate_matcher_sort_unique(kw, (uint16_t)n_kw);
	if (n_cons > 1) /* qsort's call and setup cost 70 instructions an insert */
		qsort(cons, n_cons, sizeof(cons[0]), cmp_constraint);

	size_t kw_bytes = nk * sizeof(uint32_t);
	size_t cons_off = sizeof(struct spate_sub) + kw_bytes;
	cons_off = (cons_off + _Alignof(struct spate_constraint) - 1) &
		   ~(_Alignof(struct spate_constraint) - 1);
	char *block = malloc(cons_off + n_cons * sizeof(struct spate_constraint));
	if (block == NULL)
		return NULL;
	struct spate_sub *s = (struct spate_sub *)block;
	uint32_t *skw = (uint32_t *)(block + sizeof(*s));
	struct spate_constraint *scons = (struct spate_constraint *)(block + cons_off);
	memcpy(skw, kw, kw_bytes);
	memcpy(scons, cons, n_cons * sizeof(cons[0]));
	*s = (struct spate_sub){
		.id = rs->id,
		.rect = rs->rect,
		.n_kw = nk,
		.n_cons = (uint16_t)n_cons,
		.kw = skw,
		.cons = scons,
		.owner = owner,
		.dest = rs->dest,
	};
	return s;
}

static bool same_sub(const struct spate_sub *a, const struct spate_sub *b)
{
	if (!(a->owner == b->owner && memcmp(&a->rect, &b->rect, sizeof(a->rect)) == 0 &&
	      a->dest.ipv4 == b->dest.ipv4 && a->dest.port == b->dest.port && a->n_kw == b->n_kw &&
	      a->n_cons == b->n_cons && memcmp(a->kw, b->kw, a->n_kw * sizeof(*a->kw)) == 0))
		return false;
	/* Field by field: a constraint has padding (between op and value)
	 * whose bytes are not defined, so memcmp could call equal
	 * subscriptions different and refuse a retransmission. */
	for (uint16_t i = 0; i < a->n_cons; i++)
		if (cmp_constraint(&a->cons[i], &b->cons[i]) != 0)
			return false;
	return true;
}

static uintptr_t client_count(const struct spate_matcher *m, uint32_t owner)
{
	return (uintptr_t)spate_idmap_get(m->per_client, (uint64_t)owner + 1);
}

/* Set a client's count; a count of 0 removes the entry (NULL means absent). */
static int client_count_set(struct spate_matcher *m, uint32_t owner, uintptr_t n)
{
	if (n == 0) {
		spate_idmap_del(m->per_client, (uint64_t)owner + 1);
		return 0;
	}
	return spate_idmap_put(m->per_client, (uint64_t)owner + 1, (void *)n);
}

/* Every constraint on a declared attribute within its domain? */
static bool in_domain(const struct spate_schema *sc, const struct spate_sub *s)
{
	for (uint16_t i = 0; i < s->n_cons; i++) {
		const struct spate_constraint *c = &s->cons[i];
		if (c->attr < sc->n &&
		    !(c->value >= sc->attr[c->attr].min && c->value <= sc->attr[c->attr].max))
			return false;
	}
	return true;
}

int spate_matcher_remember_deletes(struct spate_matcher *m, uint32_t n)
{
	struct del_memo *d = n ? calloc(n, sizeof(*d)) : NULL;
	struct spate_idmap *ix = n ? spate_idmap_create() : NULL;

	if (n != 0 && (d == NULL || ix == NULL)) {
		free(d);
		spate_idmap_destroy(ix);
		return -SPATE_E_NO_MEMORY;
	}
	spate_idmap_destroy(m->del_index);
	free(m->dels);
	m->dels = d;
	m->del_index = ix;
	m->del_cap = n;
	m->del_next = 0;
	return 0;
}

/* The remembered delete of id, or NULL. */
static struct del_memo *del_find(const struct spate_matcher *m, uint64_t id)
{
	uintptr_t slot = m->del_index ? (uintptr_t)spate_idmap_get(m->del_index, id) : 0;

	return slot ? &m->dels[slot - 1] : NULL;
}

/* Remember a delete in the oldest slot. Not remembering (no memory) only
 * means a retransmission of it is NACKed UNKNOWN_ID, as without memory. */
static void del_remember(struct spate_matcher *m, uint64_t id, uint32_t owner)
{
	if (m->del_cap == 0)
		return;
	uint32_t slot = m->del_next;
	struct del_memo *d = &m->dels[slot];
	if (del_find(m, d->id) == d)
		spate_idmap_del(m->del_index, d->id);
	*d = (struct del_memo){ .id = id, .owner = owner };
	if (spate_idmap_put(m->del_index, id, (void *)(uintptr_t)(slot + 1)) == 0)
		m->del_next = (slot + 1) % m->del_cap;
}

int spate_matcher_sub_add(struct spate_matcher *m, const struct spate_raw_sub *rs, uint32_t owner)
{
	struct spate_sub *old = spate_idmap_get(m->subs, rs->id);
	struct spate_sub *s = intern_sub(m, rs, owner);
	int err;

	if (s == NULL)
		return -SPATE_E_NO_MEMORY;
	if (!in_domain(&m->conf.params.schema, s)) {
		free(s);
		return -SPATE_E_OUT_OF_DOMAIN;
	}
	if (old != NULL) {
		err = same_sub(old, s) ? 0 : -SPATE_E_DUPLICATE_ID;
		free(s);
		return err;
	}
	uintptr_t n = client_count(m, owner);
	if ((m->conf.max_subs && spate_idmap_count(m->subs) >= m->conf.max_subs) ||
	    (m->conf.max_subs_per_client && n >= m->conf.max_subs_per_client)) {
		free(s);
		return -SPATE_E_OVER_QUOTA;
	}
	if (spate_idmap_put(m->subs, s->id, s) != 0) {
		free(s);
		return -SPATE_E_NO_MEMORY;
	}
	if (client_count_set(m, owner, n + 1) != 0) {
		spate_idmap_del(m->subs, s->id);
		free(s);
		return -SPATE_E_NO_MEMORY;
	}
	err = m->ops->sub_add(m->engine, s);
	if (err != 0) {
		spate_idmap_del(m->subs, s->id);
		client_count_set(m, owner, n);
		free(s);
		return err;
	}
	/* the id lives again: a delete of it is news, not a repeat */
	if (del_find(m, s->id) != NULL)
		spate_idmap_del(m->del_index, s->id);
	return 0;
}

uint64_t *spate_matcher_del_tag(struct spate_matcher *m, uint64_t id)
{
	struct del_memo *d = del_find(m, id);

	return d ? &d->tag : NULL;
}

int spate_matcher_sub_del(struct spate_matcher *m, uint64_t id, uint32_t owner)
{
	struct spate_sub *s = spate_idmap_get(m->subs, id);

	if (s == NULL) {
		struct del_memo *d = del_find(m, id);
		return d && d->owner == owner ? SPATE_MATCHER_DEL_REPEAT : -SPATE_E_UNKNOWN_ID;
	}
	if (s->owner != owner)
		return -SPATE_E_NOT_OWNER;
	/* remembered before the engine runs: it may tag the memo */
	del_remember(m, id, owner);
	m->ops->sub_del(m->engine, s);
	spate_idmap_del(m->subs, id);
	client_count_set(m, owner, client_count(m, owner) - 1);
	free(s);
	return 0;
}

const struct spate_sub *spate_matcher_sub_find(const struct spate_matcher *m, uint64_t id)
{
	return spate_idmap_get(m->subs, id);
}

uint64_t spate_matcher_sub_count(const struct spate_matcher *m)
{
	return spate_idmap_count(m->subs);
}

uint64_t spate_matcher_client_count(const struct spate_matcher *m)
{
	return spate_idmap_count(m->per_client);
}

const struct spate_matcher_conf *spate_matcher_get_conf(const struct spate_matcher *m)
{
	return &m->conf;
}

void spate_matcher_set_quotas(struct spate_matcher *m, uint32_t max_subs,
			      uint32_t max_subs_per_client)
{
	m->conf.max_subs = max_subs;
	m->conf.max_subs_per_client = max_subs_per_client;
}

int spate_matcher_set_params(struct spate_matcher *m, const struct spate_engine_params *p,
			     char *err, size_t errlen)
{
	if (m->ops->set_params && m->ops->set_params(m->engine, p, err, errlen) != 0)
		return -1;
	m->conf.params = *p;
	return 0;
}

int spate_matcher_rebalance(struct spate_matcher *m)
{
	if (m->ops->rebalance == NULL)
		return -1;
	m->ops->rebalance(m->engine);
	return 0;
}

int spate_matcher_categories(const struct spate_matcher *m, spate_category_fn fn, void *ctx)
{
	if (m->ops->categories == NULL)
		return -1;
	m->ops->categories(m->engine, fn, ctx);
	return 0;
}

struct visit_ctx {
	const struct spate_matcher *m;
	spate_matcher_visit_fn fn;
	void *ctx;
	struct spate_raw_sub *rs;
};

static struct spate_str dict_str(const struct spate_dict *d, uint32_t id)
{
	size_t len;
	const char *p = spate_dict_str(d, id, &len);

	return (struct spate_str){ p, (uint32_t)len };
}

void spate_matcher_raw_sub(const struct spate_matcher *m, const struct spate_sub *s,
			   struct spate_raw_sub *rs)
{
	rs->id = s->id;
	rs->rect = s->rect;
	rs->dest = s->dest;
	rs->n_kw = s->n_kw;
	rs->n_cons = s->n_cons;
	for (uint16_t i = 0; i < s->n_kw; i++)
		rs->kw[i] = dict_str(m->keywords, s->kw[i]);
	for (uint16_t i = 0; i < s->n_cons; i++) {
		rs->cons[i].name = dict_str(m->attrs, s->cons[i].attr);
		rs->cons[i].op = s->cons[i].op;
		rs->cons[i].value = s->cons[i].value;
	}
}

void spate_matcher_raw_event(const struct spate_matcher *m, const struct spate_event *ev,
			     struct spate_raw_event *re)
{
	re->id = ev->id;
	re->lon = ev->lon;
	re->lat = ev->lat;
	re->n_kw = ev->n_kw;
	re->n_attr = ev->n_attr;
	for (uint16_t i = 0; i < ev->n_kw; i++)
		re->kw[i] = dict_str(m->keywords, ev->kw[i]);
	for (uint16_t i = 0; i < ev->n_attr; i++) {
		re->attr[i].name = dict_str(m->attrs, ev->attr[i].attr);
		re->attr[i].value = ev->attr[i].value;
	}
}

static void visit_one(uint64_t key, void *val, void *ctx)
{
	struct visit_ctx *vc = ctx;
	const struct spate_sub *s = val;

	(void)key;
	spate_matcher_raw_sub(vc->m, s, vc->rs);
	vc->fn(vc->ctx, vc->rs, s->owner);
}

int spate_matcher_foreach_sub(const struct spate_matcher *m, spate_matcher_visit_fn fn, void *ctx)
{
	/* A raw sub is a few KB of inline arrays: one, on the heap. */
	struct visit_ctx vc = { m, fn, ctx, malloc(sizeof(struct spate_raw_sub)) };

	if (vc.rs == NULL)
		return -SPATE_E_NO_MEMORY;
	spate_idmap_foreach(m->subs, visit_one, &vc);
	free(vc.rs);
	return 0;
}

static int cmp_sub_id(const void *a, const void *b)
{
	const struct spate_sub *x = *(const struct spate_sub *const *)a;
	const struct spate_sub *y = *(const struct spate_sub *const *)b;
	return (x->id > y->id) - (x->id < y->id);
}

/* Matches by id: an insertion sort for the usual handful (qsort's calls
 * through a comparison pointer were 370 instructions an event on the
 * cities stream, 3.4 matches an event), qsort past 16. */
static void sort_by_id(const struct spate_sub **v, size_t n)
{
	/* insertion below 33: qsort's calls cost more up to about there
	 * (callgrind on the cities stream, docs/benchmarks.md) */
	if (n > 32) {
		/* Often in order already: ivx and rein hand matches out in
		 * slot order, and slots are taken in the order subs came */
		size_t i = 1;
		while (i < n && v[i - 1]->id < v[i]->id)
			i++;
		if (i < n)
			qsort(v, n, sizeof(v[0]), cmp_sub_id);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		const struct spate_sub *x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1]->id > x->id; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The id of the name at an event's attribute place i. A name of 8 to 16
 * bytes is two overlapping words (every byte in one of them), compared
 * with the one seen last at that place: on real places 2 names an event
 * cost 209 instructions of dictionary look-ups, a hit costs about 10. Only
 * ids are remembered, never an absence, and a dictionary's ids never
 * change, so a hit is what the dictionary would say. */
static uint32_t attr_id(struct spate_matcher *m, uint32_t i, const struct spate_str *name)
{
	struct attr_memo *a = i < ATTR_MEMO ? &m->attr_memo[i] : NULL;
	uint64_t head = 0, tail = 0;
	bool fits = a != NULL && name->len >= 8 && name->len <= 16;

	if (fits) {
		memcpy(&head, name->p, 8);
		memcpy(&tail, name->p + name->len - 8, 8);
		if (a->len == name->len && a->head == head && a->tail == tail)
			return a->id;
	}
	uint32_t id = m->conf.intern_event_strings
			      ? spate_dict_intern(m->attrs, name->p, name->len)
			      : spate_dict_lookup(m->attrs, name->p, name->len);
	if (fits && id != SPATE_DICT_NONE)
		*a = (struct attr_memo){ (uint32_t)name->len, id, head, tail };
	return id;
}

int spate_matcher_event(struct spate_matcher *m, const struct spate_raw_event *re,
			struct spate_matchvec *out)
{
	uint32_t n_kw = re->n_kw < SPATE_KW_MAX_HARD ? re->n_kw : SPATE_KW_MAX_HARD;
	uint32_t n_attr = re->n_attr < SPATE_ATTR_MAX_HARD ? re->n_attr : SPATE_ATTR_MAX_HARD;
	uint16_t nk = 0, na = 0;

	/* Keywords and names no subscription uses cannot matter: drop them
	 * (unless the event may outwait new subscriptions: conf). */
	if (m->conf.intern_event_strings) {
		for (uint32_t i = 0; i < n_kw; i++)
			m->ev_kw[i] = spate_dict_intern(m->keywords, re->kw[i].p, re->kw[i].len);
	} else {
		spate_dict_lookup_many(m->keywords, re->kw, n_kw, m->ev_kw);
	}
	nk = sort_unique_known(m->ev_kw, (uint16_t)n_kw);
	for (uint32_t i = 0; i < n_attr; i++) {
		uint32_t id = attr_id(m, i, &re->attr[i].name);
		if (id == SPATE_DICT_NONE)
			continue;
		/* A repeated attribute: the first value given wins. */
		bool seen = false;
		for (uint16_t j = 0; j < na && !seen; j++)
			seen = m->ev_attr[j].attr == id;
		if (!seen)
			m->ev_attr[na++] = (struct spate_attr){ id, re->attr[i].value };
	}
	/* insertion sort by attribute id: a few, often none (see above) */
	for (uint16_t i = 1; i < na; i++) {
		struct spate_attr x = m->ev_attr[i];
		uint16_t j = i;
		for (; j > 0 && m->ev_attr[j - 1].attr > x.attr; j--)
			m->ev_attr[j] = m->ev_attr[j - 1];
		m->ev_attr[j] = x;
	}

	struct spate_event ev = {
		.id = re->id,
		.lon = re->lon,
		.lat = re->lat,
		.n_kw = nk,
		.n_attr = na,
		.kw = m->ev_kw,
		.attr = m->ev_attr,
	};
	out->n = 0;
	int err = m->ops->match(m->engine, &ev, out);
	if (err != 0)
		return err;
	if (out->n > 1)
		sort_by_id(out->v, out->n);
	return 0;
}
