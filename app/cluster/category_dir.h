/* category_dir.h - the category directory: category id -> owning matching
 * worker and a summary (subscription count), shared by every lcore
 * through RCU (liburcu's QSBR flavour, a cds_lfht).
 *
 * One writer, the cluster stage, publishes a new version of an entry
 * whenever a category is made, moves, changes size at a period end, or
 * goes; the old version is freed by urcu_qsbr_call_rcu on the call_rcu
 * thread once every registered lcore has passed a quiescent state.
 * Readers take no lock: matching stages check a handoff against it, the
 * stats printer and the control side read placement and sizes.
 *
 * Every caller must be a registered QSBR thread, online (the polling
 * lcores are; see pipeline.c).
 */
#ifndef SPATED_CATEGORY_DIR_H
#define SPATED_CATEGORY_DIR_H

#include <stdint.h>

struct category_dir;

struct category_dir *category_dir_create(void);
/* At exit, with the data-plane lcores stopped. */
void category_dir_destroy(struct category_dir *d);

/* Writer: publish (cat -> owner, n_subs). 0, or -1 on no memory (the old
 * version stays). */
int category_dir_set(struct category_dir *d, uint32_t cat, uint32_t owner, uint32_t n_subs);
/* Writer: the category is gone. */
void category_dir_del(struct category_dir *d, uint32_t cat);

/* Reader: the owner of cat; 0, or -1 if the directory has no such
 * category. */
int category_dir_owner(struct category_dir *d, uint32_t cat, uint32_t *owner);
/* Reader: every entry (no order); fn must not block. */
void category_dir_visit(struct category_dir *d,
			void (*fn)(void *ctx, uint32_t cat, uint32_t owner, uint32_t n_subs),
			void *ctx);
/* Reader: categories and subscriptions per worker (arrays of n_workers,
 * zeroed first; owners >= n_workers are not counted). */
void category_dir_per_worker(struct category_dir *d, uint32_t n_workers, uint32_t *cats,
			     uint64_t *subs);

#endif
