/* drt_ftab.c - growth and deletion of the flat table (drt_ftab.h). */
#include <stdlib.h>
#include <string.h>

#include "drt_ftab.h"

#define FTAB_MIN_BITS 3

static int alloc_slots(struct drt_ftab *t, uint32_t bits)
{
	size_t n = (size_t)1 << bits;

	t->slots = calloc(n, t->slot_size); /* every slot empty */
	if (t->slots == NULL)
		return -1;
	t->mask = n - 1;
	t->shift = 64 - bits;
	return 0;
}

int drt_ftab_init(struct drt_ftab *t, uint32_t payload)
{
	memset(t, 0, sizeof(*t));
	t->slot_size = 8 + payload;
	t->load8 = 6;
	return alloc_slots(t, FTAB_MIN_BITS);
}

void drt_ftab_set_max_load(struct drt_ftab *t, uint32_t eighths)
{
	t->load8 = eighths < 4 ? 4 : eighths > 7 ? 7 : eighths;
}

void drt_ftab_free(struct drt_ftab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->count = 0;
}

void drt_ftab_clear(struct drt_ftab *t)
{
	memset(t->slots, 0, (t->mask + 1) * t->slot_size);
	t->count = 0;
}

static int grow(struct drt_ftab *t)
{
	struct drt_ftab old = *t;

	if (alloc_slots(t, 64 - old.shift + 1) != 0) {
		*t = old;
		return -1;
	}
	for (size_t i = 0; i <= old.mask; i++) {
		uint64_t *s = drt_ftab_slot(&old, i);
		if (*s == 0)
			continue;
		size_t j = drt_ftab_home(t, drt_ftab_word(*s));
		while (*drt_ftab_slot(t, j) != 0)
			j = (j + 1) & t->mask;
		memcpy(drt_ftab_slot(t, j), s, t->slot_size);
	}
	free(old.slots);
	return 0;
}

void *drt_ftab_add(struct drt_ftab *t, uint64_t key)
{
	if ((t->count + 1) * 8 > (t->mask + 1) * t->load8 && grow(t) != 0)
		return NULL;
	size_t i = drt_ftab_home(t, key);
	while (*drt_ftab_slot(t, i) != 0)
		i = (i + 1) & t->mask;
	uint64_t *s = drt_ftab_slot(t, i); /* payload zero: empty slots are */
	*s = drt_ftab_word(key);
	t->count++;
	return s + 1;
}

void drt_ftab_del(struct drt_ftab *t, uint64_t key)
{
	size_t i = drt_ftab_home(t, key);
	uint64_t w = drt_ftab_word(key);

	while (*drt_ftab_slot(t, i) != w) {
		if (*drt_ftab_slot(t, i) == 0)
			return;
		i = (i + 1) & t->mask;
	}
	/* Backward shift: pull later entries of the run into the hole when
	 * their home does not lie cyclically in (hole, j]. */
	for (size_t j = (i + 1) & t->mask; *drt_ftab_slot(t, j) != 0; j = (j + 1) & t->mask) {
		size_t h = drt_ftab_home(t, drt_ftab_word(*drt_ftab_slot(t, j)));
		int movable = (i <= j) ? (h <= i || h > j) : (h <= i && h > j);
		if (movable) {
			memcpy(drt_ftab_slot(t, i), drt_ftab_slot(t, j), t->slot_size);
			i = j;
		}
	}
	memset(drt_ftab_slot(t, i), 0, t->slot_size); /* payload zero for the next add */
	t->count--;
}

size_t drt_ftab_bytes(const struct drt_ftab *t)
{
	return (t->mask + 1) * t->slot_size;
}
