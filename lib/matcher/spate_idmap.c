/* spate_idmap.c - u64 -> pointer open-addressing map (see spate_idmap.h). */
#include <stdlib.h>

#include "util/spate_hash.h"
#include "matcher/spate_idmap.h"

struct idmap_slot {
	uint64_t key;
	void *val; /* NULL = empty */
};

struct spate_idmap {
	struct idmap_slot *slots;
	size_t mask, count;
};

static struct idmap_slot *slots_new(size_t n)
{
	return calloc(n, sizeof(struct idmap_slot));
}

struct spate_idmap *spate_idmap_create(void)
{
	struct spate_idmap *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->mask = 63;
	m->slots = slots_new(m->mask + 1);
	if (m->slots == NULL) {
		free(m);
		return NULL;
	}
	return m;
}

void spate_idmap_destroy(struct spate_idmap *m)
{
	if (m == NULL)
		return;
	free(m->slots);
	free(m);
}

void spate_idmap_destroy_each(struct spate_idmap *m, void (*fn)(uint64_t key, void *val, void *ctx),
			      void *ctx)
{
	if (m == NULL)
		return;
	spate_idmap_foreach(m, fn, ctx);
	spate_idmap_destroy(m);
}

static size_t home(const struct spate_idmap *m, uint64_t key)
{
	return (size_t)spate_hash_u64(key) & m->mask;
}

static size_t probe(const struct spate_idmap *m, uint64_t key)
{
	size_t i = home(m, key);

	while (m->slots[i].val != NULL && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return i;
}

void *spate_idmap_get(const struct spate_idmap *m, uint64_t key)
{
	return m->slots[probe(m, key)].val;
}

static int grow(struct spate_idmap *m)
{
	size_t nmask = m->mask * 2 + 1;
	struct idmap_slot *ns = slots_new(nmask + 1);

	if (ns == NULL)
		return -1;
	for (size_t i = 0; i <= m->mask; i++) {
		if (m->slots[i].val == NULL)
			continue;
		size_t j = (size_t)spate_hash_u64(m->slots[i].key) & nmask;
		while (ns[j].val != NULL)
			j = (j + 1) & nmask;
		ns[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = ns;
	m->mask = nmask;
	return 0;
}

int spate_idmap_put(struct spate_idmap *m, uint64_t key, void *val)
{
	size_t i = probe(m, key);

	if (m->slots[i].val != NULL) {
		m->slots[i].val = val;
		return 0;
	}
	/* Load factor at most 1/2. */
	if ((m->count + 1) * 2 > m->mask + 1) {
		if (grow(m) != 0)
			return -1;
		i = probe(m, key);
	}
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->count++;
	return 0;
}

void *spate_idmap_del(struct spate_idmap *m, uint64_t key)
{
	size_t i = probe(m, key);
	void *val = m->slots[i].val;

	if (val == NULL)
		return NULL;
	/* Backward shift: pull later entries of the probe run into the hole
	 * when their home slot does not lie cyclically in (hole, j]. */
	for (size_t j = (i + 1) & m->mask; m->slots[j].val != NULL; j = (j + 1) & m->mask) {
		size_t h = home(m, m->slots[j].key);
		int movable = (i <= j) ? (h <= i || h > j) : (h <= i && h > j);
		if (movable) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].val = NULL;
	m->count--;
	return val;
}

size_t spate_idmap_count(const struct spate_idmap *m)
{
	return m->count;
}

void spate_idmap_foreach(const struct spate_idmap *m,
			 void (*fn)(uint64_t key, void *val, void *ctx), void *ctx)
{
	for (size_t i = 0; i <= m->mask; i++)
		if (m->slots[i].val != NULL)
			fn(m->slots[i].key, m->slots[i].val, ctx);
}

size_t spate_idmap_bytes(const struct spate_idmap *m)
{
	return sizeof(*m) + (m->mask + 1) * sizeof(struct idmap_slot);
}
