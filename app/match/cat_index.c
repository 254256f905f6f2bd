/* cat_index.c - a category's subscriptions (cat_index.h): an id map owns
 * the copies; the index over them is DRt's per-category index
 * (lib/engines/drt/drt_category.h, the default) or any engine of lib/. */
#include <stdlib.h>
#include <string.h>

#include "match/cat_index.h"
#include "engines/drt/drt_category.h"
#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"

struct cat_index {
	struct drt_category *drt; /* or: */
	const struct spate_engine_ops *ops;
	struct spate_engine *eng;
	struct spate_idmap *subs; /* id -> owned struct spate_sub (one block) */
};

struct cat_index *cat_index_create(const char *engine, double cell_deg)
{
	struct cat_index *ci = calloc(1, sizeof(*ci));

	if (ci == NULL)
		return NULL;
	if (engine == NULL || strcmp(engine, "drt") == 0) {
		ci->drt = drt_category_create(cell_deg);
	} else {
		ci->ops = spate_engine_find(engine);
		ci->eng = ci->ops ? ci->ops->create(NULL) : NULL;
	}
	ci->subs = spate_idmap_create();
	if ((ci->drt == NULL && ci->eng == NULL) || ci->subs == NULL) {
		cat_index_destroy(ci);
		return NULL;
	}
	return ci;
}

static void free_sub(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	free(val);
}

void cat_index_destroy(struct cat_index *ci)
{
	if (ci == NULL)
		return;
	drt_category_destroy(ci->drt);
	if (ci->eng)
		ci->ops->destroy(ci->eng);
	spate_idmap_destroy_each(ci->subs, free_sub, NULL);
	free(ci);
}

/* One block: the sub, its keywords, its constraints. */
static struct spate_sub *clone_sub(const struct spate_sub *s)
{
	size_t kw_bytes = s->n_kw * sizeof(uint32_t);
	size_t cons_off = sizeof(*s) + kw_bytes;

	cons_off = (cons_off + _Alignof(struct spate_constraint) - 1) &
		   ~(_Alignof(struct spate_constraint) - 1);
	char *b = malloc(cons_off + s->n_cons * sizeof(struct spate_constraint));
	if (b == NULL)
		return NULL;
	struct spate_sub *c = (struct spate_sub *)b;
	*c = *s;
	c->engine_word = 0; /* the copy is held by no engine yet */
	c->kw = (uint32_t *)(b + sizeof(*s));
	c->cons = (struct spate_constraint *)(b + cons_off);
	memcpy((void *)c->kw, s->kw, kw_bytes);
	memcpy((void *)c->cons, s->cons, s->n_cons * sizeof(*s->cons));
	return c;
}

static int index_add(struct cat_index *ci, const struct spate_sub *s)
{
	return ci->drt ? drt_category_add(ci->drt, s) : ci->ops->sub_add(ci->eng, s);
}

static void index_del(struct cat_index *ci, const struct spate_sub *s)
{
	if (ci->drt)
		drt_category_del(ci->drt, s);
	else
		ci->ops->sub_del(ci->eng, s);
}

int cat_index_add(struct cat_index *ci, const struct spate_sub *s)
{
	if (spate_idmap_get(ci->subs, s->id) != NULL)
		return 0;
	struct spate_sub *c = clone_sub(s);
	if (c == NULL || spate_idmap_put(ci->subs, c->id, c) != 0) {
		free(c);
		return -SPATE_E_NO_MEMORY;
	}
	int rc = index_add(ci, c);
	if (rc != 0) {
		spate_idmap_del(ci->subs, c->id);
		free(c);
	}
	return rc;
}

int cat_index_del(struct cat_index *ci, uint64_t id)
{
	struct spate_sub *s = spate_idmap_get(ci->subs, id);

	if (s == NULL)
		return -SPATE_E_UNKNOWN_ID;
	index_del(ci, s);
	spate_idmap_del(ci->subs, id);
	free(s);
	return 0;
}

int cat_index_match(struct cat_index *ci, const struct spate_event *ev, struct spate_matchvec *mv)
{
	return ci->drt ? drt_category_match(ci->drt, ev, mv) : ci->ops->match(ci->eng, ev, mv);
}

struct collect {
	struct spate_sub **v;
	size_t n;
};

static void collect_sub(uint64_t key, void *val, void *ctx)
{
	struct collect *c = ctx;

	(void)key;
	c->v[c->n++] = val;
}

/* The owned copies of `from` belong to `into` now. */
static int take_copies(struct cat_index *into, struct cat_index *from, const struct collect *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (spate_idmap_put(into->subs, c->v[i]->id, c->v[i]) != 0) {
			while (i-- > 0)
				spate_idmap_del(into->subs, c->v[i]->id);
			return -SPATE_E_NO_MEMORY;
		}
	for (size_t i = 0; i < c->n; i++)
		spate_idmap_del(from->subs, c->v[i]->id);
	return 0;
}

int cat_index_merge(struct cat_index *into, struct cat_index *from)
{
	struct collect c = { malloc((spate_idmap_count(from->subs) + 1) * sizeof(*c.v)), 0 };
	int rc = 0;

	if (c.v == NULL)
		return -SPATE_E_NO_MEMORY;
	spate_idmap_foreach(from->subs, collect_sub, &c);
	if (into->drt && from->drt) {
		/* DRt merges its indexes itself; the copies follow */
		rc = take_copies(into, from, &c);
		if (rc == 0 && (rc = drt_category_merge(into->drt, from->drt)) != 0)
			take_copies(from, into, &c); /* undo: cannot fail, keys known */
	} else {
		for (size_t i = 0; rc == 0 && i < c.n; i++) {
			struct spate_sub *s = c.v[i];
			/* out of `from` first: a sub is never in both at once */
			index_del(from, s);
			spate_idmap_del(from->subs, s->id);
			if (spate_idmap_put(into->subs, s->id, s) != 0 ||
			    (rc = index_add(into, s)) != 0) {
				spate_idmap_del(into->subs, s->id);
				spate_idmap_put(from->subs, s->id, s); /* back; cannot fail */
				index_add(from, s);
				rc = -SPATE_E_NO_MEMORY;
			}
		}
	}
	free(c.v);
	if (rc == 0)
		cat_index_destroy(from);
	return rc;
}

size_t cat_index_count(const struct cat_index *ci)
{
	return spate_idmap_count(ci->subs);
}

struct visit {
	void (*fn)(void *ctx, const struct spate_sub *s);
	void *ctx;
};

static void visit_sub(uint64_t key, void *val, void *ctx)
{
	struct visit *v = ctx;

	(void)key;
	v->fn(v->ctx, val);
}

void cat_index_foreach(const struct cat_index *ci, void (*fn)(void *ctx, const struct spate_sub *s),
		       void *ctx)
{
	struct visit v = { fn, ctx };

	spate_idmap_foreach(ci->subs, visit_sub, &v);
}
