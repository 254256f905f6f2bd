/* durable.h - spated's side of the subscription journal: replay at start,
 * one record per applied SUB_ADD/SUB_DEL, and the commit that lets the
 * cluster stage release what it holds back.
 *
 * The rule (app/cluster/cluster_hold.c applies it): from the moment a record is
 * appended until it is durable per the sync policy, the cluster stage
 * holds everything it sends - the subscription changes and event parts
 * for the matching stages (which send the ACKs once they have applied a
 * change) and its own replies alike - in its output rings' backlogs, in
 * order. durable_commit() at the end of each poll writes and syncs the
 * records (all sub operations of one RX burst share one fdatasync: group
 * commit); then the stage lets the backlogs go. So no client ever sees an
 * ACK for a record a crash could lose, and nothing overtakes a change it
 * depends on.
 *
 * With no journal configured every function is a pass-through: a NULL
 * `struct durable *` is valid everywhere.
 */
#ifndef SPATED_DURABLE_H
#define SPATED_DURABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/spate_journal.h"
#include "matcher/spate_matcher.h"
#include "proto/spate_types.h"

struct durable;

/* The daemon's instance (NULL = no journal); set by main. */
extern struct durable *spated_durable;

/* Open the journal at `path` and replay it through apply(apply_ctx, ...)
 * (spated's pipeline: the cluster stage, app/infra/pipeline.c); `m` is the
 * matcher whose subscriptions a compaction snapshots. Compacts when due.
 * NULL with err on failure. */
struct durable *durable_open(const char *path, const struct spate_journal_conf *jc,
			     spate_journal_apply_fn apply, void *apply_ctx, struct spate_matcher *m,
			     char *err, size_t errlen);
/* Commit what is pending (synced whatever the policy), close. */
void durable_close(struct durable *d);

/* A SUB_ADD (dest resolved) or SUB_DEL the matcher accepted. */
void durable_sub_add(struct durable *d, const struct spate_raw_sub *rs, uint32_t owner);
void durable_sub_del(struct durable *d, uint64_t id, uint32_t owner);

/* Write and sync per the policy (`force`: sync now whatever the policy's
 * interval). Returns 1 when nothing is pending any more (what was held
 * may go), 0 when the interval policy syncs later, -errno when the
 * journal cannot be written (the records stay pending, retried at the
 * next commit; logged once per error). Compacts when due and idle. */
int durable_commit(struct durable *d, bool force);

/* Compact now (spatectl). 0 or -errno. */
int durable_compact(struct durable *d);

struct spate_journal *durable_journal(struct durable *d);
/* Every figure by name (enabled, appended, syncs, holds, ...), for
 * spatectl and telemetry alike. */
void durable_figures(const struct durable *d, void (*fn)(void *ctx, const char *name, uint64_t v),
		     void *ctx);

#endif
