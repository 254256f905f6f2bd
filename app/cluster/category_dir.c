/* category_dir.c - the RCU-protected category directory (category_dir.h).
 * Entries are immutable once published: a change is a new entry swapped
 * in with cds_lfht_add_replace, so a reader always sees one consistent
 * version of (owner, n_subs). */
#include <stdlib.h>

#include <urcu/urcu-qsbr.h>
#include <urcu/rculfhash.h>

#include "cluster/category_dir.h"

struct category_dir {
	struct cds_lfht *ht;
};

struct dir_entry {
	struct cds_lfht_node node;
	struct rcu_head rcu;
	uint32_t cat, owner, n_subs;
};

static unsigned long cat_hash(uint32_t cat)
{
	uint64_t h = (uint64_t)cat * 0x9e3779b97f4a7c15ull;
	return (unsigned long)(h ^ (h >> 29));
}

static int entry_match(struct cds_lfht_node *node, const void *key)
{
	const struct dir_entry *e = caa_container_of(node, struct dir_entry, node);
	return e->cat == *(const uint32_t *)key;
}

static void entry_free(struct rcu_head *head)
{
	free(caa_container_of(head, struct dir_entry, rcu));
}

struct category_dir *category_dir_create(void)
{
	struct category_dir *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	d->ht = cds_lfht_new_flavor(64, 64, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
				    &urcu_qsbr_flavor, NULL);
	if (d->ht == NULL) {
		free(d);
		return NULL;
	}
	return d;
}

void category_dir_destroy(struct category_dir *d)
{
	struct cds_lfht_iter it;
	struct dir_entry *e;

	if (d == NULL)
		return;
	/* No reader is left: entries can go at once. */
	cds_lfht_for_each_entry (d->ht, &it, e, node) {
		cds_lfht_del(d->ht, &e->node);
		free(e);
	}
	cds_lfht_destroy(d->ht, NULL);
	free(d);
}

int category_dir_set(struct category_dir *d, uint32_t cat, uint32_t owner, uint32_t n_subs)
{
	struct dir_entry *e = malloc(sizeof(*e));

	if (e == NULL)
		return -1;
	e->cat = cat;
	e->owner = owner;
	e->n_subs = n_subs;
	cds_lfht_node_init(&e->node);
	struct cds_lfht_node *old =
		cds_lfht_add_replace(d->ht, cat_hash(cat), entry_match, &cat, &e->node);
	if (old != NULL)
		urcu_qsbr_call_rcu(&caa_container_of(old, struct dir_entry, node)->rcu, entry_free);
	return 0;
}

void category_dir_del(struct category_dir *d, uint32_t cat)
{
	struct cds_lfht_iter it;

	cds_lfht_lookup(d->ht, cat_hash(cat), entry_match, &cat, &it);
	struct cds_lfht_node *node = cds_lfht_iter_get_node(&it);
	if (node != NULL && cds_lfht_del(d->ht, node) == 0)
		urcu_qsbr_call_rcu(&caa_container_of(node, struct dir_entry, node)->rcu,
				   entry_free);
}

int category_dir_owner(struct category_dir *d, uint32_t cat, uint32_t *owner)
{
	struct cds_lfht_iter it;
	int rc = -1;

	urcu_qsbr_read_lock();
	cds_lfht_lookup(d->ht, cat_hash(cat), entry_match, &cat, &it);
	struct cds_lfht_node *node = cds_lfht_iter_get_node(&it);
	if (node != NULL) {
		*owner = caa_container_of(node, struct dir_entry, node)->owner;
		rc = 0;
	}
	urcu_qsbr_read_unlock();
	return rc;
}

void category_dir_visit(struct category_dir *d,
			void (*fn)(void *ctx, uint32_t cat, uint32_t owner, uint32_t n_subs),
			void *ctx)
{
	struct cds_lfht_iter it;
	struct dir_entry *e;

	urcu_qsbr_read_lock();
	cds_lfht_for_each_entry (d->ht, &it, e, node)
		fn(ctx, e->cat, e->owner, e->n_subs);
	urcu_qsbr_read_unlock();
}

void category_dir_per_worker(struct category_dir *d, uint32_t n_workers, uint32_t *cats,
			     uint64_t *subs)
{
	struct cds_lfht_iter it;
	struct dir_entry *e;

	for (uint32_t w = 0; w < n_workers; w++) {
		cats[w] = 0;
		subs[w] = 0;
	}
	urcu_qsbr_read_lock();
	cds_lfht_for_each_entry (d->ht, &it, e, node) {
		if (e->owner < n_workers) {
			cats[e->owner]++;
			subs[e->owner] += e->n_subs;
		}
	}
	urcu_qsbr_read_unlock();
}
