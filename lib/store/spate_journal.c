/* spate_journal.c - the subscription journal (spate_journal.h).
 *
 * The whole file is read into memory at open: compaction keeps it near the
 * size of the live subscriptions, and replay needs every byte anyway.
 * Records are CRC-32 (zlib) checked and decoded by the wire codec with the
 * hard limits, so a journal written under looser configured limits than
 * today's still replays. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "store/spate_journal.h"
#include "matcher/spate_matcher.h"

#define JNL_MAGIC "SPATEJNL"
#define JNL_VERSION 1
#define JNL_HDR_LEN 16
#define REC_HDR_LEN 8
/* A record is one datagram, whose length is a u16. */
#define REC_PAYLOAD_MAX 65535

struct spate_journal {
	int fd;
	char *path;
	struct spate_journal_conf conf;
	uint64_t file_size;    /* bytes written to the file (all of it good) */
	uint64_t file_records; /* records in the file, snapshot included */
	bool unsynced;         /* written but not fdatasync'ed */
	uint64_t last_sync_us;
	/* appended, not yet written */
	uint8_t *pend;
	size_t pend_len, pend_cap;
	uint64_t pend_records;
	struct spate_journal_stats st;
};

static const char *const sync_names[] = { "none", "always", "interval" };

const char *spate_journal_sync_name(int sync)
{
	return sync >= 0 && sync < 3 ? sync_names[sync] : NULL;
}

int spate_journal_sync_parse(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(name, sync_names[i]) == 0)
			return i;
	return -1;
}

void spate_journal_conf_default(struct spate_journal_conf *c)
{
	c->sync = SPATE_JOURNAL_SYNC_ALWAYS;
	c->sync_interval_us = 10000;
	c->compact_min = 4096;
	c->compact_factor = 2;
	c->salvage = false;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t crc(const uint8_t *p, size_t n)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

static void file_header(uint8_t h[JNL_HDR_LEN])
{
	memcpy(h, JNL_MAGIC, 8);
	put_be32(h + 8, JNL_VERSION);
	put_be32(h + 12, crc(h, 12));
}

/* The limits a record is decoded with: the hard ceilings, one message. */
static const struct spate_limits record_limits = {
	.max_keywords = SPATE_KW_MAX_HARD,
	.max_keyword_len = SPATE_KW_LEN_MAX_HARD,
	.max_constraints = SPATE_CONS_MAX_HARD,
	.max_attrs = SPATE_ATTR_MAX_HARD,
	.max_name_len = SPATE_NAME_LEN_MAX_HARD,
	.max_messages = 1,
};

/* Decode one record payload: exactly one SUB_ADD or SUB_DEL. */
static int decode_record(const uint8_t *p, size_t len, struct spate_msg *msg, uint32_t *owner)
{
	struct spate_hdr hdr;
	struct spate_reader rd;

	if (spate_hdr_decode(p, len, &record_limits, &hdr) != 0 || hdr.flags != 0 || hdr.count != 1)
		return -1;
	spate_reader_init(&rd, p, len, &hdr);
	if (spate_reader_next(&rd, &record_limits, msg) != 1)
		return -1;
	if (msg->type != SPATE_MSG_SUB_ADD && msg->type != SPATE_MSG_SUB_DEL)
		return -1;
	*owner = hdr.client_id;
	return 0;
}

/* The record at `off`: its size (header included) when it is sound -
 * whole, its CRC right, one SUB_ADD or SUB_DEL - else 0 and why not. */
static size_t sound_record(const uint8_t *buf, size_t len, size_t off, struct spate_msg *msg,
			   uint32_t *owner, const char **why)
{
	if (len - off < REC_HDR_LEN) {
		*why = "torn record header";
		return 0;
	}
	uint32_t n = get_be32(buf + off);
	if (n > REC_PAYLOAD_MAX || n > len - off - REC_HDR_LEN) {
		*why = "torn or oversized record";
		return 0;
	}
	/* The CRC covers the length too, so a flipped length is caught
	 * even when it still points inside the file. */
	uint32_t c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf + off, 4);
	c = (uint32_t)crc32(c, buf + off + REC_HDR_LEN, n);
	if (c != get_be32(buf + off + 4)) {
		*why = "record CRC mismatch";
		return 0;
	}
	if (decode_record(buf + off + REC_HDR_LEN, n, msg, owner) != 0) {
		*why = "record does not decode as one SUB_ADD or SUB_DEL";
		return 0;
	}
	return REC_HDR_LEN + n;
}

/* The first offset at or after `from` where a sound record starts, or
 * len. A record's payload starts with the Spate magic: only those
 * offsets are checked in full, so a long garbage tail costs little. */
static size_t next_sound(const uint8_t *buf, size_t len, size_t from, struct spate_msg *msg)
{
	const char *why;
	uint32_t owner;

	for (size_t o = from; o + REC_HDR_LEN + SPATE_HDR_LEN <= len; o++)
		if (buf[o + REC_HDR_LEN] == SPATE_MAGIC >> 8 &&
		    buf[o + REC_HDR_LEN + 1] == (SPATE_MAGIC & 0xff) &&
		    sound_record(buf, len, o, msg, &owner, &why) > 0)
			return o;
	return len;
}

/* How many records a damaged span [from, to) held, walking their length
 * fields: exact when the walk lands on `to`, else a lower bound (a
 * damaged length field hides where the next record began). */
static uint64_t span_records(const uint8_t *buf, size_t from, size_t to, bool *exact)
{
	uint64_t n = 0;
	size_t o = from;

	while (to - o >= REC_HDR_LEN) {
		size_t step = REC_HDR_LEN + (size_t)get_be32(buf + o);
		if (step > to - o)
			break;
		o += step;
		n++;
	}
	*exact = o == to && n > 0;
	return n > 0 ? n : 1;
}

/* Replay buf through apply. Bad bytes that no sound record follows are a
 * torn tail (cut_*). Bad bytes that sound records follow are damage
 * (damage_*): without salvage nothing after the first damage is applied
 * (the sound records after it are only counted); with salvage they are,
 * and the damaged spans are counted as lost. `keep`, when not NULL (len
 * bytes), receives the header and the sound records. Returns the bytes
 * to keep: the good prefix, or with salvage what `keep` holds. */
static size_t replay(const uint8_t *buf, size_t len, spate_journal_apply_fn apply, void *ctx,
		     bool salvage, uint8_t *keep, struct spate_journal_replay_stats *st)
{
	uint8_t h[JNL_HDR_LEN];
	struct spate_msg *msg;
	size_t off = JNL_HDR_LEN, kept = JNL_HDR_LEN, good = 0;
	uint64_t rec_no = 0; /* records before `off` (sound or lost) */
	bool applying = true;

	memset(st, 0, sizeof(*st));
	st->lost_exact = true;
	file_header(h);
	if (keep != NULL)
		memcpy(keep, h, JNL_HDR_LEN);
	/* A decoded message is a few KB: not on the stack. */
	msg = malloc(sizeof(*msg));
	if (msg == NULL) {
		st->cut_why = "out of memory";
		return 0;
	}
	if (len < JNL_HDR_LEN || memcmp(buf, h, JNL_HDR_LEN) != 0) {
		/* A foreign file, another version's journal (whose header is
		 * whole: never read as this version's), or a journal whose
		 * header is damaged: only sound records after the header's
		 * place tell the last from the first. */
		bool other_version = len >= JNL_HDR_LEN && memcmp(buf, h, 8) == 0 &&
				     crc(buf, 12) == get_be32(buf + 12);
		size_t next = len < JNL_HDR_LEN || other_version
				      ? len
				      : next_sound(buf, len, JNL_HDR_LEN, msg);
		if (next == len) {
			free(msg);
			st->cut_bytes = len;
			st->cut_why = len ? "bad file header" : NULL;
			return 0;
		}
		st->damage_why = "damaged file header";
		st->damaged_spans = 1;
		st->lost_bytes = next;
		if (next > JNL_HDR_LEN)
			st->lost_records = span_records(buf, JNL_HDR_LEN, next, &st->lost_exact);
		rec_no = st->lost_records;
		applying = salvage;
		off = next;
	}
	while (off < len) {
		uint32_t owner;
		const char *why;
		size_t n = sound_record(buf, len, off, msg, &owner, &why);

		if (n > 0) {
			if (applying) {
				if (apply(ctx, owner, msg) != 0)
					st->refused++;
				st->records++;
				if (msg->type == SPATE_MSG_SUB_ADD)
					st->adds++;
				else
					st->dels++;
				if (keep != NULL)
					memcpy(keep + kept, buf + off, n);
				kept += n;
			} else {
				st->sound_after++;
			}
			off += n;
			rec_no++;
			continue;
		}
		size_t next = next_sound(buf, len, off + 1, msg);
		if (next == len) {
			st->cut_why = why;
			st->cut_bytes = len - off;
			break;
		}
		/* Sound records follow: not a torn tail. */
		bool exact;
		uint64_t lost = span_records(buf, off, next, &exact);
		if (st->damage_why == NULL) {
			st->damage_why = why;
			st->damaged_at = off;
			st->damaged_record = rec_no + 1;
			good = off;
			applying = salvage;
		}
		st->damaged_spans++;
		st->lost_bytes += next - off;
		st->lost_records += lost;
		st->lost_exact = st->lost_exact && exact;
		rec_no += lost;
		off = next;
	}
	free(msg);
	if (st->damage_why == NULL)
		return len - st->cut_bytes;
	return salvage ? kept : good;
}

size_t spate_journal_replay_buf(const uint8_t *buf, size_t len, spate_journal_apply_fn apply,
				void *ctx, bool salvage, struct spate_journal_replay_stats *st)
{
	return replay(buf, len, apply, ctx, salvage, NULL, st);
}

/* write() all of it, retrying short writes and EINTR. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, uint8_t **out, size_t *len)
{
	struct stat sb;
	uint8_t *buf;
	size_t got = 0;

	if (fstat(fd, &sb) != 0)
		return -errno;
	buf = malloc((size_t)sb.st_size + 1);
	if (buf == NULL)
		return -ENOMEM;
	while (got < (size_t)sb.st_size) {
		ssize_t r = pread(fd, buf + got, (size_t)sb.st_size - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			return r < 0 ? -errno : -EIO;
		}
		got += (size_t)r;
	}
	*out = buf;
	*len = got;
	return 0;
}

/* fsync the directory holding `path`, so a create or rename is durable. */
static int sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, rc = 0;

	if (copy == NULL)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return -errno;
	if (fsync(fd) != 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Where the damaged file is kept: <path>.damaged-<UTC time>[-N], a name
 * not in use. Hard-linked, so the journal's name never points nowhere. */
static int keep_aside(const char *path, char *aside, size_t len)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int i = 0; i < 100; i++) {
		if (i == 0)
			snprintf(aside, len, "%s.damaged-%s", path, stamp);
		else
			snprintf(aside, len, "%s.damaged-%s-%d", path, stamp, i);
		if (link(path, aside) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Salvage: the header and the sound records (`keep`) become the journal
 * (written aside, synced, renamed over it) once the damaged file is kept
 * under another name. A crash on the way leaves the damaged journal in
 * place: the next start refuses it again. */
static int salvage_rewrite(struct spate_journal *j, const uint8_t *keep, size_t n,
			   struct spate_journal_replay_stats *st)
{
	size_t plen = strlen(j->path);
	char *tmp = malloc(plen + 5);
	int fd, rc = 0;

	if (tmp == NULL)
		return -ENOMEM;
	memcpy(tmp, j->path, plen);
	memcpy(tmp + plen, ".tmp", 5);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		free(tmp);
		return rc;
	}
	rc = write_all(fd, keep, n);
	if (rc == 0 && fsync(fd) != 0)
		rc = -errno;
	if (rc == 0)
		rc = keep_aside(j->path, st->aside, sizeof(st->aside));
	if (rc == 0 && rename(tmp, j->path) != 0)
		rc = -errno;
	if (rc != 0) {
		close(fd);
		unlink(tmp);
		free(tmp);
		return rc;
	}
	free(tmp);
	sync_dir(j->path);
	close(j->fd);
	j->fd = fd;
	return 0;
}

struct spate_journal *spate_journal_open(const char *path, const struct spate_journal_conf *conf,
					 spate_journal_apply_fn apply, void *ctx,
					 struct spate_journal_replay_stats *st, char *err,
					 size_t errlen)
{
	struct spate_journal *j = calloc(1, sizeof(*j));
	uint8_t *buf = NULL, *keep = NULL, h[JNL_HDR_LEN];
	size_t len = 0, good;
	int rc;

	memset(st, 0, sizeof(*st));
	if (j != NULL)
		j->fd = -1;
	if (j == NULL || (j->path = strdup(path)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	j->conf = *conf;
	j->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (j->fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if ((rc = read_all(j->fd, &buf, &len)) != 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
		goto fail;
	}
	file_header(h);
	if (len < JNL_HDR_LEN) {
		/* Empty, or a header torn while the file was created. */
		if (memcmp(buf, h, len) != 0) {
			snprintf(err, errlen, "%s: not a Spate journal (refusing to overwrite it)",
				 path);
			goto fail;
		}
		if (ftruncate(j->fd, 0) != 0 || pwrite(j->fd, h, JNL_HDR_LEN, 0) != JNL_HDR_LEN ||
		    fdatasync(j->fd) != 0 || sync_dir(path) != 0) {
			snprintf(err, errlen, "%s: cannot initialise: %s", path, strerror(errno));
			goto fail;
		}
		good = JNL_HDR_LEN;
	} else {
		if (conf->salvage && (keep = malloc(len)) == NULL) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto fail;
		}
		good = replay(buf, len, apply, ctx, conf->salvage, keep, st);
		if (good == 0 && st->damage_why == NULL) {
			snprintf(err, errlen,
				 "%s: not a Spate journal or another version "
				 "(refusing to overwrite it)",
				 path);
			goto fail;
		}
		if (st->damage_why != NULL && !conf->salvage) {
			/* Not a torn write: bytes went bad where sound
			 * records follow. Cutting would drop those too. */
			if (st->damaged_record == 0)
				snprintf(err, errlen, "%s: damaged at byte 0 (the file header)",
					 path);
			else
				snprintf(err, errlen, "%s: damaged at byte %llu (record %llu): %s",
					 path, (unsigned long long)st->damaged_at,
					 (unsigned long long)st->damaged_record, st->damage_why);
			size_t n = strlen(err);
			snprintf(err + n, errlen - n,
				 "; %llu sound records follow, so it is no torn tail. Nothing was "
				 "changed: restore the journal from a backup, or start once with "
				 "--salvage-journal (keeps this file as %s.damaged-TIME, replays "
				 "the "
				 "sound records, reports the lost ones)",
				 (unsigned long long)st->sound_after, path);
			goto fail;
		}
		if (st->damage_why != NULL) {
			rc = salvage_rewrite(j, keep, good, st);
			if (rc != 0) {
				snprintf(err, errlen,
					 "%s: salvage: cannot write the new journal: %s", path,
					 strerror(-rc));
				goto fail;
			}
		} else if (good < len) {
			/* Cut the torn or corrupt tail now, so new records
			 * follow the last good one. */
			if (ftruncate(j->fd, (off_t)good) != 0 || fdatasync(j->fd) != 0) {
				snprintf(err, errlen, "%s: cannot cut the bad tail: %s", path,
					 strerror(errno));
				goto fail;
			}
		}
	}
	free(buf);
	free(keep);
	buf = keep = NULL;
	if (lseek(j->fd, (off_t)good, SEEK_SET) < 0) {
		snprintf(err, errlen, "%s: seek: %s", path, strerror(errno));
		goto fail;
	}
	j->file_size = good;
	j->file_records = st->records;
	return j;
fail:
	free(buf);
	free(keep);
	if (j != NULL) {
		if (j->fd >= 0)
			close(j->fd);
		free(j->path);
		free(j);
	}
	return NULL;
}

void spate_journal_close(struct spate_journal *j)
{
	if (j == NULL)
		return;
	spate_journal_commit(j, 0, true);
	close(j->fd);
	free(j->pend);
	free(j->path);
	free(j);
}

/* Room for one more record of at most REC_PAYLOAD_MAX bytes. */
static int pend_reserve(uint8_t **buf, size_t len, size_t *cap)
{
	size_t need = len + REC_HDR_LEN + REC_PAYLOAD_MAX;

	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 256 * 1024;
	while (c < need)
		c *= 2;
	uint8_t *p = realloc(*buf, c);
	if (p == NULL)
		return -SPATE_E_NO_MEMORY;
	*buf = p;
	*cap = c;
	return 0;
}

/* Encode one record at buf+*len: SUB_ADD when rs != NULL, else SUB_DEL. */
static int encode_record(uint8_t **buf, size_t *len, size_t *cap, const struct spate_raw_sub *rs,
			 uint64_t id, uint32_t owner)
{
	struct spate_writer w;
	int rc = pend_reserve(buf, *len, cap);

	if (rc != 0)
		return rc;
	uint8_t *rec = *buf + *len;
	spate_writer_init(&w, rec + REC_HDR_LEN, REC_PAYLOAD_MAX, 0, owner, 0);
	rc = rs ? spate_put_sub_add(&w, rs) : spate_put_sub_del(&w, id);
	if (rc != 0)
		return rc;
	size_t n = spate_writer_finish(&w);
	put_be32(rec, (uint32_t)n);
	uint32_t c = crc32(crc32(0L, Z_NULL, 0), rec, 4);
	put_be32(rec + 4, (uint32_t)crc32(c, rec + REC_HDR_LEN, (uInt)n));
	*len += REC_HDR_LEN + n;
	return 0;
}

static int append(struct spate_journal *j, const struct spate_raw_sub *rs, uint64_t id,
		  uint32_t owner)
{
	int rc = encode_record(&j->pend, &j->pend_len, &j->pend_cap, rs, id, owner);

	if (rc == 0) {
		j->pend_records++;
		j->st.appended++;
	}
	return rc;
}

int spate_journal_add(struct spate_journal *j, const struct spate_raw_sub *rs, uint32_t owner)
{
	return append(j, rs, rs->id, owner);
}

int spate_journal_del(struct spate_journal *j, uint64_t id, uint32_t owner)
{
	return append(j, NULL, id, owner);
}

bool spate_journal_pending(const struct spate_journal *j)
{
	if (j->pend_len > 0)
		return true;
	return j->unsynced && j->conf.sync != SPATE_JOURNAL_SYNC_NONE;
}

int spate_journal_commit(struct spate_journal *j, uint64_t now_us, bool force)
{
	if (j->pend_len > 0) {
		int rc = write_all(j->fd, j->pend, j->pend_len);
		if (rc != 0) {
			/* Leave no partial record behind: a retry appends the
			 * whole buffer again after the last good byte. */
			j->st.write_errors++;
			if (ftruncate(j->fd, (off_t)j->file_size) == 0)
				lseek(j->fd, (off_t)j->file_size, SEEK_SET);
			return rc;
		}
		j->file_size += j->pend_len;
		j->file_records += j->pend_records;
		j->pend_len = 0;
		j->pend_records = 0;
		j->unsynced = true;
		j->st.commits++;
	}
	if (!j->unsynced)
		return 1;
	bool due = force || j->conf.sync == SPATE_JOURNAL_SYNC_ALWAYS ||
		   (j->conf.sync == SPATE_JOURNAL_SYNC_INTERVAL &&
		    now_us - j->last_sync_us >= j->conf.sync_interval_us);
	if (j->conf.sync == SPATE_JOURNAL_SYNC_NONE && !force)
		return 1;
	if (!due)
		return 0;
	if (fdatasync(j->fd) != 0) {
		j->st.write_errors++;
		return -errno;
	}
	j->st.syncs++;
	j->unsynced = false;
	j->last_sync_us = now_us;
	return 1;
}

/* Compaction: records of the snapshot are built in `buf` and written out
 * in chunks. */
struct compact_ctx {
	int fd;
	int err;
	uint8_t *buf;
	size_t len, cap;
	uint64_t records;
};

static void compact_emit(void *jctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	struct compact_ctx *cc = jctx;
	int rc;

	if (cc->err != 0)
		return;
	rc = encode_record(&cc->buf, &cc->len, &cc->cap, rs, rs->id, owner);
	if (rc != 0) {
		cc->err = -ENOMEM;
		return;
	}
	cc->records++;
	if (cc->len >= 1024 * 1024) {
		cc->err = write_all(cc->fd, cc->buf, cc->len);
		cc->len = 0;
	}
}

int spate_journal_compact(struct spate_journal *j, spate_journal_visit_fn visit, void *vctx)
{
	struct compact_ctx cc = { .fd = -1 };
	size_t plen = strlen(j->path);
	char *tmp = malloc(plen + 5);
	uint8_t h[JNL_HDR_LEN];
	int rc;

	if (tmp == NULL)
		return -ENOMEM;
	/* Everything applied so far is in the matcher, which the snapshot
	 * copies: the pending records would be redundant after it, but
	 * write them first anyway so a failed compaction loses nothing. */
	rc = spate_journal_commit(j, 0, true);
	if (rc < 0)
		goto out;
	memcpy(tmp, j->path, plen);
	memcpy(tmp + plen, ".tmp", 5);
	cc.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (cc.fd < 0) {
		rc = -errno;
		goto out;
	}
	file_header(h);
	cc.err = write_all(cc.fd, h, JNL_HDR_LEN);
	visit(vctx, compact_emit, &cc);
	if (cc.err == 0 && cc.len > 0)
		cc.err = write_all(cc.fd, cc.buf, cc.len);
	if (cc.err == 0 && fsync(cc.fd) != 0)
		cc.err = -errno;
	if (cc.err == 0 && rename(tmp, j->path) != 0)
		cc.err = -errno;
	rc = cc.err;
	if (rc != 0) {
		close(cc.fd);
		unlink(tmp);
		goto out;
	}
	sync_dir(j->path);
	/* The renamed file is the journal now: append to it. */
	close(j->fd);
	j->fd = cc.fd;
	struct stat sb;
	j->file_size = fstat(j->fd, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	lseek(j->fd, 0, SEEK_END);
	j->file_records = cc.records;
	j->unsynced = false;
	j->st.compactions++;
out:
	free(cc.buf);
	free(tmp);
	return rc;
}

int spate_journal_apply_matcher(void *matcher, uint32_t owner, const struct spate_msg *msg)
{
	if (msg->type == SPATE_MSG_SUB_ADD)
		return spate_matcher_sub_add(matcher, &msg->u.sub, owner);
	return spate_matcher_sub_del(matcher, msg->id, owner);
}

struct emit_adapter {
	spate_journal_emit_fn emit;
	void *jctx;
};

static void emit_one(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	struct emit_adapter *ea = ctx;

	ea->emit(ea->jctx, rs, owner);
}

void spate_journal_visit_matcher(void *matcher, spate_journal_emit_fn emit, void *jctx)
{
	struct emit_adapter ea = { emit, jctx };

	if (spate_matcher_foreach_sub(matcher, emit_one, &ea) != 0)
		((struct compact_ctx *)jctx)->err = -ENOMEM;
}

bool spate_journal_compact_due(const struct spate_journal *j, uint64_t live_subs)
{
	return j->file_records > j->conf.compact_min &&
	       j->file_records > (uint64_t)j->conf.compact_factor * live_subs;
}

void spate_journal_stats(const struct spate_journal *j, struct spate_journal_stats *st)
{
	*st = j->st;
	st->file_records = j->file_records;
	st->file_bytes = j->file_size;
}

const struct spate_journal_conf *spate_journal_get_conf(const struct spate_journal *j)
{
	return &j->conf;
}

void spate_journal_set_conf(struct spate_journal *j, const struct spate_journal_conf *conf)
{
	j->conf = *conf;
}
