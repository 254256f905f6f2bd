/* rein_sortlist.c - the MP-REIN paper's REIN bucket (rein_bucket.h): a
 * sorted singly linked list, one malloc'd node an entry. Insert and
 * delete walk from the head to the entry's place, O(n); marking walks the
 * nodes, one pointer each. This is the baseline the paper measures
 * MP-REIN against; Spate's own `rein` keeps unsorted vectors instead. */
#include <stdlib.h>
#include <string.h>

#include "engines/rein/rein_bucket.h"

struct rsl_node {
	struct rsl_node *next;
	double key;
	uint32_t tie;
};

struct rein_sortlist {
	struct rsl_node *head;
	uint32_t n;
};

static int sl_insert(void *bucket, double k, uint32_t t, uint64_t *rng)
{
	struct rein_sortlist *s = bucket;
	struct rsl_node **pp = &s->head, *x = malloc(sizeof(*x));

	(void)rng;
	if (x == NULL)
		return -1;
	while (*pp != NULL && rb_before((*pp)->key, (*pp)->tie, k, t))
		pp = &(*pp)->next;
	*x = (struct rsl_node){ *pp, k, t };
	*pp = x;
	s->n++;
	return 0;
}

static bool sl_remove(void *bucket, double k, uint32_t t)
{
	struct rein_sortlist *s = bucket;
	struct rsl_node **pp = &s->head;

	while (*pp != NULL && rb_before((*pp)->key, (*pp)->tie, k, t))
		pp = &(*pp)->next;
	struct rsl_node *x = *pp;
	if (x == NULL || x->key != k || x->tie != t)
		return false;
	*pp = x->next;
	free(x);
	s->n--;
	return true;
}

static void sl_mark_all(const void *bucket, uint64_t *mark)
{
	for (const struct rsl_node *x = ((const struct rein_sortlist *)bucket)->head; x;
	     x = x->next)
		rb_mark(mark, x->tie);
}

static void sl_mark_below(const void *bucket, uint64_t *mark, double k, uint32_t t)
{
	const struct rsl_node *x = ((const struct rein_sortlist *)bucket)->head;

	for (; x != NULL && rb_before(x->key, x->tie, k, t); x = x->next)
		rb_mark(mark, x->tie);
}

static uint32_t sl_count(const void *bucket)
{
	return ((const struct rein_sortlist *)bucket)->n;
}

static size_t sl_bytes(const void *bucket)
{
	return (size_t)((const struct rein_sortlist *)bucket)->n * sizeof(struct rsl_node);
}

static void sl_clear(void *bucket)
{
	struct rein_sortlist *s = bucket;

	for (struct rsl_node *x = s->head, *nx; x != NULL; x = nx) {
		nx = x->next;
		free(x);
	}
	memset(s, 0, sizeof(*s));
}

static bool sl_valid(const void *bucket)
{
	const struct rein_sortlist *s = bucket;
	uint32_t n = 0;

	for (const struct rsl_node *x = s->head; x != NULL; x = x->next, n++)
		if (x->next && !rb_before(x->key, x->tie, x->next->key, x->next->tie))
			return false;
	return n == s->n;
}

const struct rein_bucket_ops rein_bucket_sortlist = {
	.name = "sortlist",
	.size = sizeof(struct rein_sortlist),
	.insert = sl_insert,
	.remove = sl_remove,
	.mark_all = sl_mark_all,
	.mark_below = sl_mark_below,
	.count = sl_count,
	.bytes = sl_bytes,
	.clear = sl_clear,
	.valid = sl_valid,
};
