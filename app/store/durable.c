/* durable.c - journal records, commits and their figures (durable.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/durable.h"
#include "main/spated_log.h"

struct durable {
	struct spate_journal *j;
	struct spate_matcher *m;
	struct spate_journal_replay_stats replay;
	/* holds: stretches during which output waited for records to become
	 * durable, and how long they lasted */
	uint64_t hold_since_us, holds, hold_us_total, hold_us_max;
	uint64_t record_no_memory;
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
			     spate_journal_apply_fn apply, void *apply_ctx, struct spate_matcher *m,
			     char *err, size_t errlen)
{
	struct durable *d = calloc(1, sizeof(*d));

	if (d == NULL) {
		snprintf(err, errlen, "journal: out of memory");
		return NULL;
	}
	d->m = m;
	uint64_t t0 = now_us();
	d->j = spate_journal_open(path, jc, apply, apply_ctx, &d->replay, err, errlen);
	if (d->j == NULL) {
		free(d);
		return NULL;
	}
	SPATED_LOG(INFO,
		   "journal %s: replayed %llu records (%llu adds, %llu deletes, %llu refused) in "
		   "%llu ms, %llu subscriptions\n",
		   path, (unsigned long long)d->replay.records, (unsigned long long)d->replay.adds,
		   (unsigned long long)d->replay.dels, (unsigned long long)d->replay.refused,
		   (unsigned long long)((now_us() - t0) / 1000),
		   (unsigned long long)spate_matcher_sub_count(m));
	const struct spate_journal_replay_stats *rp = &d->replay;
	if (rp->cut_why != NULL)
		SPATED_LOG(WARNING, "journal %s: cut %llu bytes after the last good record: %s\n",
			   path, (unsigned long long)rp->cut_bytes, rp->cut_why);
	if (rp->damage_why != NULL)
		SPATED_LOG(WARNING,
			   "journal %s: salvaged: damaged at byte %llu (record %llu%s): %s; "
			   "%s%llu records lost in %llu damaged spans (%llu bytes); %llu sound "
			   "records "
			   "replayed (%llu refused); the damaged file is kept as %s\n",
			   path, (unsigned long long)rp->damaged_at,
			   (unsigned long long)rp->damaged_record,
			   rp->damaged_record == 0 ? ", the file header" : "", rp->damage_why,
			   rp->lost_exact ? "" : "at least ", (unsigned long long)rp->lost_records,
			   (unsigned long long)rp->damaged_spans,
			   (unsigned long long)rp->lost_bytes, (unsigned long long)rp->records,
			   (unsigned long long)rp->refused, rp->aside);
	/* Start from a snapshot when the log has grown: replay time stays
	 * proportional to the live subscriptions. */
	if (spate_journal_compact_due(d->j, spate_matcher_sub_count(m)))
		durable_compact(d);
	return d;
}

void durable_close(struct durable *d)
{
	if (d == NULL)
		return;
	if (spate_journal_commit(d->j, now_us(), true) < 0)
		SPATED_LOG(ERR, "journal: the last records could not be written at exit\n");
	spate_journal_close(d->j);
	free(d);
}

static void began(struct durable *d)
{
	if (d->hold_since_us == 0)
		d->hold_since_us = now_us();
}

void durable_sub_add(struct durable *d, const struct spate_raw_sub *rs, uint32_t owner)
{
	if (d == NULL)
		return;
	began(d);
	if (spate_journal_add(d->j, rs, owner) != 0) {
		d->record_no_memory++;
		SPATED_LOG(ERR, "journal: no memory for a record (sub %llu)\n",
			   (unsigned long long)rs->id);
	}
}

void durable_sub_del(struct durable *d, uint64_t id, uint32_t owner)
{
	if (d == NULL)
		return;
	began(d);
	if (spate_journal_del(d->j, id, owner) != 0) {
		d->record_no_memory++;
		SPATED_LOG(ERR, "journal: no memory for a record (sub %llu)\n",
			   (unsigned long long)id);
	}
}

int durable_commit(struct durable *d, bool force)
{
	if (d == NULL)
		return 1;
	uint64_t now = now_us();
	int rc = spate_journal_commit(d->j, now, force);
	if (rc < 0) {
		if (rc != d->last_err)
			SPATED_LOG(ERR, "journal write failed: %s; output held until it works\n",
				   strerror(-rc));
		d->last_err = rc;
		return rc;
	}
	if (rc == 0)
		return 0;
	if (d->last_err != 0)
		SPATED_LOG(INFO, "journal writes work again\n");
	d->last_err = 0;
	if (d->hold_since_us != 0) {
		uint64_t us = now - d->hold_since_us;
		d->holds++;
		d->hold_us_total += us;
		if (us > d->hold_us_max)
			d->hold_us_max = us;
		d->hold_since_us = 0;
	}
	if (spate_journal_compact_due(d->j, spate_matcher_sub_count(d->m)))
		durable_compact(d);
	return 1;
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

struct spate_journal *durable_journal(struct durable *d)
{
	return d ? d->j : NULL;
}

void durable_figures(const struct durable *d, void (*fn)(void *ctx, const char *name, uint64_t v),
		     void *ctx)
{
	struct spate_journal_stats st = { 0 };
	struct spate_journal_replay_stats rp = { 0 };

	if (d != NULL) {
		spate_journal_stats(d->j, &st);
		rp = d->replay;
	}
	fn(ctx, "enabled", d != NULL);
	fn(ctx, "appended", st.appended);
	fn(ctx, "file_records", st.file_records);
	fn(ctx, "file_bytes", st.file_bytes);
	fn(ctx, "syncs", st.syncs);
	fn(ctx, "write_errors", st.write_errors);
	fn(ctx, "record_no_memory", d ? d->record_no_memory : 0);
	fn(ctx, "compactions", st.compactions);
	fn(ctx, "holds", d ? d->holds : 0);
	fn(ctx, "hold_us_total", d ? d->hold_us_total : 0);
	fn(ctx, "hold_us_max", d ? d->hold_us_max : 0);
	fn(ctx, "replayed_records", rp.records);
	fn(ctx, "replayed_refused", rp.refused);
	fn(ctx, "replay_cut_bytes", rp.cut_bytes);
	fn(ctx, "replay_lost_records", rp.lost_records); /* salvaged only */
}
