/* durable.h - spated's side of the subscription journal: replay at start,
 * one record per applied SUB_ADD/SUB_DEL, and replies held back until the
 * records they answer are durable per the sync policy.
 *
 * The rule is simple: while any journal record is not yet durable, every
 * reply datagram (ACKs and NACKs alike, in order) is held; durable_commit()
 * at the end of each poll iteration writes and syncs the records and then
 * releases the held replies. So all sub operations of one burst share one
 * fdatasync (group commit), and no client ever sees an ACK for a record a
 * crash could lose. NACKs wait too: an UNKNOWN_ID for a retransmitted
 * SUB_DEL means "already gone" only once the first delete is durable.
 *
 * With no journal configured every function is a pass-through: a NULL
 * `struct durable *` is valid everywhere.
 */
#ifndef SPATED_DURABLE_H
#define SPATED_DURABLE_H

#include <stddef.h>
#include <stdint.h>

#include "notify.h"
#include "spate_journal.h"
#include "spate_matcher.h"
#include "spate_types.h"

struct durable;

/* The daemon's instance (NULL = no journal); set by main. */
extern struct durable *spated_durable;

/* Open the journal at `path` and replay it into `m`; compacts when due.
 * max_payload: the largest reply datagram. NULL with err on failure. */
struct durable *durable_open(const char *path, const struct spate_journal_conf *jc,
			     struct spate_matcher *m, size_t max_payload, char *err,
			     size_t errlen);
/* Commit, release what is held, close. */
void durable_close(struct durable *d, struct notifier *nt);

/* A SUB_ADD (dest resolved) or SUB_DEL the matcher accepted. */
void durable_sub_add(struct durable *d, const struct spate_raw_sub *rs, uint32_t owner);
void durable_sub_del(struct durable *d, uint64_t id, uint32_t owner);

/* Send a reply datagram now, or hold it until the journal is durable. */
void durable_send(struct durable *d, struct notifier *nt, struct spate_dest to, uint8_t *buf,
		  size_t len);

/* End of a poll iteration: commit per the policy, release held replies,
 * compact when due. */
void durable_commit(struct durable *d, struct notifier *nt);

/* Compact now (spatectl). 0 or -errno. */
int durable_compact(struct durable *d);

struct durable_stats {
	struct spate_journal_stats journal;
	struct spate_journal_replay_stats replay;
	uint64_t held, released, dropped; /* reply datagrams */
};
void durable_stats(const struct durable *d, struct durable_stats *st);
struct spate_journal *durable_journal(struct durable *d);
/* Every figure by name (enabled, appended, syncs, ...), for spatectl and
 * telemetry alike. */
void durable_figures(const struct durable *d, void (*fn)(void *ctx, const char *name, uint64_t v),
		     void *ctx);

#endif
