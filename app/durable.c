/* durable.c - journal records and held replies (durable.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "durable.h"
#include "spated_log.h"

/* Held reply datagrams: one RX burst of 32 datagrams, each answered by a
 * few reply datagrams, fits with room to spare; when it is full the
 * journal is synced at once and the queue drained. */
#define HOLD_MAX 256

struct held {
	struct spate_dest to;
	size_t len;
};

struct durable {
	struct spate_journal *j;
	struct spate_matcher *m;
	size_t max_payload;
	struct held held[HOLD_MAX];
	uint8_t *bufs; /* HOLD_MAX * max_payload */
	unsigned n_held;
	struct spate_journal_replay_stats replay;
	uint64_t n_held_total, n_released, n_dropped;
	int last_err;
};

struct durable *spated_durable;

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct durable *durable_open(const char *path, const struct spate_journal_conf *jc,
			     struct spate_matcher *m, size_t max_payload, char *err,
			     size_t errlen)
{
	struct durable *d = calloc(1, sizeof(*d));

	if (d == NULL || (d->bufs = malloc(HOLD_MAX * max_payload)) == NULL) {
		free(d);
		snprintf(err, errlen, "journal: out of memory");
		return NULL;
	}
	d->m = m;
	d->max_payload = max_payload;
	d->j = spate_journal_open(path, jc, spate_journal_apply_matcher, m, &d->replay, err,
				  errlen);
	if (d->j == NULL) {
		free(d->bufs);
		free(d);
		return NULL;
	}
	SPATED_LOG(INFO, "journal %s: replayed %llu records (%llu adds, %llu deletes, %llu refused), %llu subscriptions\n",
		   path, (unsigned long long)d->replay.records, (unsigned long long)d->replay.adds,
		   (unsigned long long)d->replay.dels, (unsigned long long)d->replay.refused,
		   (unsigned long long)spate_matcher_sub_count(m));
	if (d->replay.cut_why != NULL)
		SPATED_LOG(WARNING, "journal %s: cut %llu bytes after the last good record: %s\n",
			   path, (unsigned long long)d->replay.cut_bytes, d->replay.cut_why);
	/* Start from a snapshot when the log has grown: replay time stays
	 * proportional to the live subscriptions. */
	if (spate_journal_compact_due(d->j, spate_matcher_sub_count(m)))
		durable_compact(d);
	return d;
}

static void release(struct durable *d, struct notifier *nt)
{
	for (unsigned i = 0; i < d->n_held; i++)
		notifier_send(nt, d->held[i].to, d->bufs + i * d->max_payload, d->held[i].len);
	d->n_released += d->n_held;
	d->n_held = 0;
}

static void commit(struct durable *d, struct notifier *nt, bool force)
{
	int rc = spate_journal_commit(d->j, now_us(), force);

	if (rc == 1) {
		release(d, nt);
		d->last_err = 0;
		return;
	}
	if (rc < 0) {
		/* The records stay pending and are retried at the next commit;
		 * the replies are dropped so that no client takes an ACK for a
		 * record that is not on disk. Clients retransmit. */
		if (rc != d->last_err)
			SPATED_LOG(ERR, "journal write failed: %s; replies dropped until it works\n",
				   strerror(-rc));
		d->last_err = rc;
		d->n_dropped += d->n_held;
		d->n_held = 0;
	}
}

void durable_close(struct durable *d, struct notifier *nt)
{
	if (d == NULL)
		return;
	commit(d, nt, true);
	spate_journal_close(d->j);
	free(d->bufs);
	free(d);
}

void durable_sub_add(struct durable *d, const struct spate_raw_sub *rs, uint32_t owner)
{
	if (d != NULL && spate_journal_add(d->j, rs, owner) != 0)
		SPATED_LOG(ERR, "journal: no memory for a record (sub %llu)\n",
			   (unsigned long long)rs->id);
}

void durable_sub_del(struct durable *d, uint64_t id, uint32_t owner)
{
	if (d != NULL && spate_journal_del(d->j, id, owner) != 0)
		SPATED_LOG(ERR, "journal: no memory for a record (sub %llu)\n",
			   (unsigned long long)id);
}

void durable_send(struct durable *d, struct notifier *nt, struct spate_dest to, uint8_t *buf,
		  size_t len)
{
	if (d == NULL || (d->n_held == 0 && !spate_journal_pending(d->j))) {
		notifier_send(nt, to, buf, len);
		return;
	}
	if (d->n_held == HOLD_MAX)
		commit(d, nt, true);
	if (d->n_held == HOLD_MAX || len > d->max_payload) {
		d->n_dropped++; /* the journal cannot be written: see commit() */
		return;
	}
	memcpy(d->bufs + d->n_held * d->max_payload, buf, len);
	d->held[d->n_held++] = (struct held){ to, len };
	d->n_held_total++;
}

void durable_commit(struct durable *d, struct notifier *nt)
{
	if (d == NULL)
		return;
	if (d->n_held > 0 || spate_journal_pending(d->j))
		commit(d, nt, false);
	if (d->n_held == 0 &&
	    spate_journal_compact_due(d->j, spate_matcher_sub_count(d->m)))
		durable_compact(d);
}

int durable_compact(struct durable *d)
{
	if (d == NULL)
		return -ENOENT;
	int rc = spate_journal_compact(d->j, spate_journal_visit_matcher, d->m);
	if (rc != 0)
		SPATED_LOG(ERR, "journal compaction failed: %s (the old journal stays)\n",
			   strerror(-rc));
	else
		SPATED_LOG(INFO, "journal compacted to %llu subscriptions\n",
			   (unsigned long long)spate_matcher_sub_count(d->m));
	return rc;
}

void durable_stats(const struct durable *d, struct durable_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (d == NULL)
		return;
	spate_journal_stats(d->j, &st->journal);
	st->replay = d->replay;
	st->held = d->n_held_total;
	st->released = d->n_released;
	st->dropped = d->n_dropped;
}

struct spate_journal *durable_journal(struct durable *d)
{
	return d ? d->j : NULL;
}

void durable_figures(const struct durable *d, void (*fn)(void *ctx, const char *name, uint64_t v),
		     void *ctx)
{
	struct durable_stats st;

	durable_stats(d, &st);
	fn(ctx, "enabled", d != NULL);
	fn(ctx, "appended", st.journal.appended);
	fn(ctx, "file_records", st.journal.file_records);
	fn(ctx, "file_bytes", st.journal.file_bytes);
	fn(ctx, "syncs", st.journal.syncs);
	fn(ctx, "write_errors", st.journal.write_errors);
	fn(ctx, "compactions", st.journal.compactions);
	fn(ctx, "replies_held", st.held);
	fn(ctx, "replies_dropped", st.dropped);
	fn(ctx, "replayed_records", st.replay.records);
	fn(ctx, "replay_cut_bytes", st.replay.cut_bytes);
}
