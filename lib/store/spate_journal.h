/* spate_journal.h - durable subscriptions: an append-only journal of the
 * subscription adds and deletes the server applied, replayed at start.
 *
 * File layout (all integers big-endian):
 *   file header, 16 bytes: "SPATEJNL", u32 version (1), u32 crc32 of the
 *                          first 12 bytes
 *   records, each:         u32 len, u32 crc32 of (len, payload), payload
 * A payload is one Spate datagram (docs/protocol.md) holding exactly one
 * SUB_ADD (destination already resolved) or SUB_DEL, whose header
 * client_id is the subscription's owner. Reusing the wire codec means a
 * record is validated by the same decoder as a frame, and a record can be
 * read with the protocol document at hand.
 *
 * A record is sound when it is whole, its CRC is right and it decodes as
 * one SUB_ADD/SUB_DEL. Bad bytes that no sound record follows are a torn
 * tail (a write cut short by a crash, garbage after it): replay stops
 * there and the file is cut, everything before it kept. Bad bytes that
 * sound records follow are damage, which no crash of ours leaves: the
 * open is refused, naming the byte offset and the record number, and
 * nothing is changed - unless `salvage` is set: then the sound records
 * are replayed, the damaged file is kept as <path>.damaged-<time> and a
 * new journal of the header and the sound records takes its place; the
 * replay stats say how many records were lost. Garbage is never replayed.
 *
 * Durability: appends go to a memory buffer; spate_journal_commit() writes
 * it and, per the sync policy, fdatasync()s. A caller sends an ACK only
 * once commit reported the record durable (spated holds its replies
 * meanwhile, app/store/durable.c). Compaction rewrites the file as a snapshot
 * (one SUB_ADD per live subscription) in a temporary file, fsyncs it and
 * renames it over the journal, so a crash leaves the old or the new file,
 * never a mix.
 */
#ifndef SPATE_JOURNAL_H
#define SPATE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/spate_proto.h"
#include "proto/spate_types.h"

enum spate_journal_sync {
	/* write() before the ACK, no fdatasync: survives a crash of the
	 * process, not of the machine. */
	SPATE_JOURNAL_SYNC_NONE = 0,
	/* fdatasync() on every commit (spated commits once per poll
	 * iteration: all sub operations of one RX burst share one sync). */
	SPATE_JOURNAL_SYNC_ALWAYS = 1,
	/* fdatasync() at most every sync_interval_us; replies wait for it. */
	SPATE_JOURNAL_SYNC_INTERVAL = 2,
};

/* "none", "always", "interval"; NULL for an unknown value. */
const char *spate_journal_sync_name(int sync);
/* The value of a name, or -1. */
int spate_journal_sync_parse(const char *name);

struct spate_journal_conf {
	enum spate_journal_sync sync;
	uint32_t sync_interval_us; /* SYNC_INTERVAL only */
	/* Compact when the records written since the last snapshot exceed
	 * both compact_min and compact_factor times the live subscriptions. */
	uint32_t compact_min;
	uint32_t compact_factor;
	/* At open only: replay the sound records of a damaged journal
	 * rather than refuse it (spated --salvage-journal). */
	bool salvage;
};
void spate_journal_conf_default(struct spate_journal_conf *c);

struct spate_journal;

/* One replayed operation: msg->type is SUB_ADD (msg->u.sub, dest resolved)
 * or SUB_DEL (msg->id); owner is the client id. The return value is only
 * counted (an operation the matcher refuses now, say over a lowered quota,
 * is skipped, not fatal). Strings in msg live until the callback returns. */
typedef int (*spate_journal_apply_fn)(void *ctx, uint32_t owner, const struct spate_msg *msg);

struct spate_journal_replay_stats {
	uint64_t records;    /* valid records read */
	uint64_t adds, dels; /* of which */
	uint64_t refused;    /* records the apply callback refused */
	uint64_t cut_bytes;  /* bytes of torn or corrupt tail removed */
	const char *cut_why; /* NULL if nothing was cut */
	/* Damage before the tail (sound records follow it); NULL = none. */
	const char *damage_why;
	uint64_t damaged_at;     /* byte offset of the first damage */
	uint64_t damaged_record; /* its record number from 1; 0 = the file header */
	uint64_t sound_after;    /* sound records after it, not replayed (no salvage) */
	/* Salvage: what the damaged spans held, and where the file went. */
	uint64_t damaged_spans;
	uint64_t lost_bytes;
	uint64_t lost_records; /* exact when lost_exact, else a lower bound */
	bool lost_exact;
	char aside[320];
};

/* Open (creating it if absent) the journal at `path`, replay it through
 * `apply`, cut a torn or corrupt tail and leave the file ready for
 * appends. NULL with a message in err on an I/O error or a file that is
 * not a journal (a foreign file is never overwritten). */
struct spate_journal *spate_journal_open(const char *path, const struct spate_journal_conf *conf,
					 spate_journal_apply_fn apply, void *ctx,
					 struct spate_journal_replay_stats *st, char *err,
					 size_t errlen);
/* Commits what is pending (best effort) and closes. */
void spate_journal_close(struct spate_journal *j);

/* Replay a journal image held in memory, without touching any file:
 * what spate_journal_open does after reading. Returns the length of the
 * good prefix (header and the sound records before any damage or torn
 * tail); with salvage and damage, the length of the header and every
 * sound record. For the fuzzer and tests. */
size_t spate_journal_replay_buf(const uint8_t *buf, size_t len, spate_journal_apply_fn apply,
				void *ctx, bool salvage, struct spate_journal_replay_stats *st);

/* Append one applied operation (buffered). 0 or -SPATE_E_NO_MEMORY. */
int spate_journal_add(struct spate_journal *j, const struct spate_raw_sub *rs, uint32_t owner);
int spate_journal_del(struct spate_journal *j, uint64_t id, uint32_t owner);

/* Records appended but not yet durable per the policy? */
bool spate_journal_pending(const struct spate_journal *j);
/* Write the buffer and sync per the policy (`force` syncs now whatever
 * the policy's interval). now_us: a monotonic clock. Returns 1 when
 * nothing is pending any more (held replies may go), 0 when the interval
 * policy will sync later, -errno on an I/O error (the records stay
 * pending and the next commit retries). */
int spate_journal_commit(struct spate_journal *j, uint64_t now_us, bool force);

/* Compaction: the live subscriptions come from a visitor that calls
 * `emit` once per subscription. 0 or -errno (the old journal is then
 * intact and still in use). Pending records are committed first. */
typedef void (*spate_journal_emit_fn)(void *jctx, const struct spate_raw_sub *rs, uint32_t owner);
typedef void (*spate_journal_visit_fn)(void *vctx, spate_journal_emit_fn emit, void *jctx);
int spate_journal_compact(struct spate_journal *j, spate_journal_visit_fn visit, void *vctx);
/* Is a compaction due, given the live subscription count? */
bool spate_journal_compact_due(const struct spate_journal *j, uint64_t live_subs);

/* Adapters for the usual case, a spate_matcher (ctx/vctx): replay applies
 * each record to it, compaction snapshots its subscriptions. */
int spate_journal_apply_matcher(void *matcher, uint32_t owner, const struct spate_msg *msg);
void spate_journal_visit_matcher(void *matcher, spate_journal_emit_fn emit, void *jctx);

struct spate_journal_stats {
	uint64_t appended;     /* records appended since open */
	uint64_t file_records; /* records in the file, its snapshot included */
	uint64_t syncs;        /* fdatasync calls */
	uint64_t commits;      /* commits that wrote something */
	uint64_t write_errors;
	uint64_t compactions;
	uint64_t file_bytes;
};
void spate_journal_stats(const struct spate_journal *j, struct spate_journal_stats *st);
const struct spate_journal_conf *spate_journal_get_conf(const struct spate_journal *j);
/* Change the sync policy at run time (takes effect at the next commit). */
void spate_journal_set_conf(struct spate_journal *j, const struct spate_journal_conf *conf);

#endif
