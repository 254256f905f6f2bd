/* test_journal_io.c - the journal when the system calls fail, and the
 * record boundaries test_journal does not reach (issue 24: mutants that
 * survived the suite). The I/O calls of lib/store/spate_journal.c are wrapped
 * (-Wl,--wrap, see meson.build) so a test can make one fail, write short
 * or be interrupted, and then check exact values: the return code, the
 * counters, the file's size and bytes, what a reopen replays.
 *   - a commit whose write fails half-way leaves no partial record, keeps
 *     the records pending, and the retry writes them once;
 *   - a failed fdatasync keeps the commit pending; EINTR is retried;
 *   - a short read, a failed initialisation or seek refuse the open;
 *   - salvage gives up after exactly 100 names in use, cleaning up;
 *   - compaction of more than 1 MiB of subscriptions (written in chunks),
 *     and a compaction whose write or rename fails, leaving the journal
 *     intact and appendable;
 *   - compaction and salvage fsync their new file (and the directory),
 *     a failed fsync fails them; their files are 0600; the kept-aside
 *     name has no -N suffix when the plain one is free;
 *   - another version's journal is refused, never scanned for records;
 *   - records holding two messages, damage spans whose length field
 *     points past the next sound record, replay against a guard page. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "journal_files.h"
#include "proto/spate_err.h"
#include "store/spate_journal.h"
#include "proto/spate_proto.h"

/* ------------------------------------------------------------ faults */
ssize_t __wrap_write(int fd, const void *p, size_t n);
ssize_t __wrap_pread64(int fd, void *p, size_t n, off_t off);
ssize_t __wrap_pwrite64(int fd, const void *p, size_t n, off_t off);
int __wrap_fdatasync(int fd);
int __wrap_link(const char *a, const char *b);
int __wrap_rename(const char *a, const char *b);
off_t __wrap_lseek64(int fd, off_t off, int whence);
ssize_t __real_write(int fd, const void *p, size_t n);
ssize_t __real_pread64(int fd, void *p, size_t n, off_t off);
ssize_t __real_pwrite64(int fd, const void *p, size_t n, off_t off);
int __real_fdatasync(int fd);
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __real_link(const char *a, const char *b);
int __real_rename(const char *a, const char *b);
off_t __real_lseek64(int fd, off_t off, int whence);

static struct {
	int write_short_at; /* the Nth write() from now writes 7 bytes, the next fails */
	int write_eintr;    /* this many write() calls fail with EINTR first */
	int write_fail_errno;
	int writes;     /* write() calls since armed */
	int big_writes; /* of which >= 1 MiB */
	int pread_mode; /* 1: EINTR once, 2: end of file at once */
	int pwrite_fail;
	int fdatasync_fail; /* this many fail with EIO */
	int fsyncs;         /* fsync() calls since armed */
	int fsync_fail;     /* this many fail with EIO */
	int link_errno;     /* every link() fails with it; 0 = real */
	int links;
	int rename_errno;
	int lseek_fail;
} fault;

static void disarm(void)
{
	memset(&fault, 0, sizeof(fault));
}

ssize_t __wrap_write(int fd, const void *p, size_t n)
{
	fault.writes++;
	if (n >= 1024 * 1024)
		fault.big_writes++;
	if (fault.write_eintr > 0) {
		fault.write_eintr--;
		errno = EINTR;
		return -1;
	}
	if (fault.write_short_at > 0 && fault.writes == fault.write_short_at + 1) {
		errno = fault.write_fail_errno;
		return -1;
	}
	if (fault.write_short_at > 0 && fault.writes == fault.write_short_at && n > 7)
		return __real_write(fd, p, 7);
	return __real_write(fd, p, n);
}

ssize_t __wrap_pread64(int fd, void *p, size_t n, off_t off)
{
	if (fault.pread_mode == 1) {
		fault.pread_mode = 0;
		errno = EINTR;
		return -1;
	}
	if (fault.pread_mode == 2) {
		errno = 0;
		return 0;
	}
	return __real_pread64(fd, p, n, off);
}

ssize_t __wrap_pwrite64(int fd, const void *p, size_t n, off_t off)
{
	if (fault.pwrite_fail) {
		errno = EIO;
		return -1;
	}
	return __real_pwrite64(fd, p, n, off);
}

int __wrap_fdatasync(int fd)
{
	if (fault.fdatasync_fail > 0) {
		fault.fdatasync_fail--;
		errno = EIO;
		return -1;
	}
	return __real_fdatasync(fd);
}

int __wrap_fsync(int fd)
{
	fault.fsyncs++;
	if (fault.fsync_fail > 0) {
		fault.fsync_fail--;
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

int __wrap_link(const char *a, const char *b)
{
	fault.links++;
	if (fault.link_errno) {
		errno = fault.link_errno;
		return -1;
	}
	return __real_link(a, b);
}

int __wrap_rename(const char *a, const char *b)
{
	if (fault.rename_errno) {
		errno = fault.rename_errno;
		return -1;
	}
	return __real_rename(a, b);
}

off_t __wrap_lseek64(int fd, off_t off, int whence)
{
	if (fault.lseek_fail) {
		errno = ESPIPE;
		return -1;
	}
	return __real_lseek64(fd, off, whence);
}

/* ------------------------------------------------------------ helpers */
static char dir[64];
static char path[128];
static char tmp_path[160];

/* What a replay applied: adds and dels by id, the last owner. */
struct seen {
	uint64_t adds, dels, id_sum;
	uint32_t owner;
};

static int count_apply(void *ctx, uint32_t owner, const struct spate_msg *msg)
{
	struct seen *s = ctx;

	if (msg->type == SPATE_MSG_SUB_ADD) {
		s->adds++;
		s->id_sum += msg->u.sub.id;
	} else {
		s->dels++;
		s->id_sum += msg->id;
	}
	s->owner = owner;
	return 0;
}

static char long_kw[48];

static void make_sub(struct spate_raw_sub *s, uint64_t id)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->rect = (struct spate_rect){ -1000, -2000, 3000 + (int32_t)(id % 1000), 4000 };
	s->dest = (struct spate_dest){ 0x7f000001u, (uint16_t)(40000 + id % 7) };
	s->n_kw = 1;
	s->kw[0] = (struct spate_str){ long_kw, (uint32_t)strlen(long_kw) };
}

static struct spate_journal *open_counting(struct seen *seen, struct spate_journal_replay_stats *st,
					   char *err, size_t errlen)
{
	struct spate_journal_conf jc;

	spate_journal_conf_default(&jc);
	memset(seen, 0, sizeof(*seen));
	return spate_journal_open(path, &jc, count_apply, seen, st, err, errlen);
}

/* A fresh journal of subs first..last (owner 5), committed and closed. */
static void fresh_journal(uint64_t first, uint64_t last)
{
	struct seen seen;
	struct spate_journal_replay_stats st;
	struct spate_raw_sub s;
	char err[256];

	unlink(path);
	struct spate_journal *j = open_counting(&seen, &st, err, sizeof(err));
	CHECK(j != NULL);
	for (uint64_t id = first; id <= last; id++) {
		make_sub(&s, id);
		CHECK_EQ_INT(spate_journal_add(j, &s, 5), 0);
	}
	CHECK_EQ_INT(spate_journal_commit(j, 0, true), 1);
	spate_journal_close(j);
}

/* Reopen: exactly `adds` adds summing to `id_sum`, nothing cut. */
static void check_replays(uint64_t adds, uint64_t id_sum)
{
	struct seen seen;
	struct spate_journal_replay_stats st;
	char err[256];
	struct spate_journal *j = open_counting(&seen, &st, err, sizeof(err));

	CHECK(j != NULL);
	CHECK_EQ_INT(st.records, adds);
	CHECK_EQ_INT(st.adds, adds);
	CHECK_EQ_INT(seen.adds, adds);
	CHECK_EQ_INT(seen.id_sum, id_sum);
	CHECK_EQ_INT(st.cut_bytes, 0);
	CHECK(st.cut_why == NULL && st.damage_why == NULL);
	spate_journal_close(j);
}

/* ------------------------------------------------------------ commit */
static void test_commit_write_fails(void)
{
	struct seen seen;
	struct spate_journal_replay_stats st;
	struct spate_journal_stats js;
	struct spate_raw_sub s;
	char err[256];

	fresh_journal(1, 3);
	off_t size3 = jf_size(path);
	struct spate_journal *j = open_counting(&seen, &st, err, sizeof(err));
	CHECK(j != NULL);
	CHECK_EQ_INT(st.records, 3);
	for (uint64_t id = 4; id <= 5; id++) {
		make_sub(&s, id);
		CHECK_EQ_INT(spate_journal_add(j, &s, 5), 0);
	}
	/* 7 bytes of the two records reach the file, then ENOSPC. */
	disarm();
	fault.write_short_at = 1;
	fault.write_fail_errno = ENOSPC;
	CHECK_EQ_INT(spate_journal_commit(j, 0, true), -ENOSPC);
	CHECK_EQ_INT(fault.writes, 2);
	disarm();
	CHECK_EQ_INT(jf_size(path), size3); /* the partial record is gone */
	CHECK(spate_journal_pending(j));
	spate_journal_stats(j, &js);
	CHECK_EQ_INT(js.write_errors, 1);
	CHECK_EQ_INT(js.commits, 0);
	CHECK_EQ_INT(js.appended, 2);
	CHECK_EQ_INT(js.file_records, 3);
	CHECK_EQ_INT(js.file_bytes, size3);
	/* The retry writes both records once, after the last good byte;
	 * an EINTR on the way is retried. */
	fault.write_eintr = 1;
	CHECK_EQ_INT(spate_journal_commit(j, 0, true), 1);
	CHECK_EQ_INT(fault.writes, 2);
	disarm();
	CHECK(!spate_journal_pending(j));
	spate_journal_stats(j, &js);
	CHECK_EQ_INT(js.write_errors, 1);
	CHECK_EQ_INT(js.commits, 1);
	CHECK_EQ_INT(js.syncs, 1);
	CHECK_EQ_INT(js.file_records, 5);
	CHECK_EQ_INT(js.file_bytes, jf_size(path));
	/* Two records of equal size: the file grew by exactly two. */
	CHECK_EQ_INT((jf_size(path) - 16) % 5, 0);
	CHECK_EQ_INT(jf_size(path), size3 + 2 * ((size3 - 16) / 3));
	/* A failed sync keeps the commit pending; the next one syncs. */
	make_sub(&s, 6);
	CHECK_EQ_INT(spate_journal_add(j, &s, 5), 0);
	fault.fdatasync_fail = 1;
	CHECK_EQ_INT(spate_journal_commit(j, 0, false), -EIO);
	CHECK(spate_journal_pending(j));
	spate_journal_stats(j, &js);
	CHECK_EQ_INT(js.write_errors, 2);
	CHECK_EQ_INT(js.syncs, 1);
	CHECK_EQ_INT(js.commits, 2);
	CHECK_EQ_INT(spate_journal_commit(j, 0, false), 1);
	CHECK(!spate_journal_pending(j));
	spate_journal_stats(j, &js);
	CHECK_EQ_INT(js.syncs, 2);
	CHECK_EQ_INT(js.commits, 2);
	CHECK_EQ_INT(js.write_errors, 2);
	disarm();
	spate_journal_close(j);
	check_replays(6, 21);
}

/* ------------------------------------------------------------ open */
static void test_open_faults(void)
{
	struct seen seen;
	struct spate_journal_replay_stats st;
	char err[512];

	fresh_journal(1, 4);
	size_t len;
	uint8_t *img = jf_read(path, &len);

	/* An interrupted read is retried: everything replays. */
	fault.pread_mode = 1;
	struct spate_journal *j = open_counting(&seen, &st, err, sizeof(err));
	CHECK(j != NULL);
	CHECK_EQ_INT(st.records, 4);
	CHECK_EQ_INT(seen.id_sum, 10);
	spate_journal_close(j);
	/* The file ends before its size says (shrunk under us): EIO. */
	fault.pread_mode = 2;
	j = open_counting(&seen, &st, err, sizeof(err));
	CHECK(j == NULL);
	CHECK(strstr(err, "cannot read: Input/output error") != NULL);
	CHECK_EQ_INT(seen.adds, 0);
	disarm();
	CHECK(jf_equals(path, img, len));
	/* The seek after the replay fails. */
	fault.lseek_fail = 1;
	j = open_counting(&seen, &st, err, sizeof(err));
	disarm();
	CHECK(j == NULL);
	CHECK(strstr(err, ": seek: ") != NULL);
	CHECK(jf_equals(path, img, len));
	free(img);

	/* A new journal whose header cannot be written, or synced. */
	for (int k = 0; k < 2; k++) {
		unlink(path);
		if (k == 0)
			fault.pwrite_fail = 1;
		else
			fault.fdatasync_fail = 1;
		j = open_counting(&seen, &st, err, sizeof(err));
		disarm();
		CHECK(j == NULL);
		CHECK(strstr(err, "cannot initialise: Input/output error") != NULL);
	}
	unlink(path);
}

/* ------------------------------------------------------------ salvage */
/* A salvage open refused with `want` after `links` link() calls, the
 * .tmp removed and the journal still img; the faults disarmed after. */
static void salvage_refused(const struct spate_journal_conf *jc, int links, const char *want,
			    const uint8_t *img, size_t len)
{
	struct seen seen;
	struct spate_journal_replay_stats st;
	char err[512];

	memset(&seen, 0, sizeof(seen));
	struct spate_journal *j =
		spate_journal_open(path, jc, count_apply, &seen, &st, err, sizeof(err));
	CHECK(j == NULL);
	CHECK_EQ_INT(fault.links, links);
	CHECK(strstr(err, want) != NULL);
	CHECK(access(tmp_path, F_OK) != 0);
	CHECK(jf_equals(path, img, len));
	disarm();
}

static void test_salvage_names_exhausted(void)
{
	struct seen seen;
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	char err[512];

	fresh_journal(1, 4);
	size_t len;
	uint8_t *img = jf_read(path, &len);
	size_t rec = (len - 16) / 4;
	img[16 + rec + 20] ^= 1; /* record 2 damaged, 3 and 4 sound */
	jf_write(path, img, len);

	spate_journal_conf_default(&jc);
	jc.salvage = true;
	/* Every name taken: exactly 100 tried, then given up, the .tmp
	 * removed and the journal as it was. Another link error: no second
	 * name tried. The new file's fsync fails: no name tried. */
	fault.link_errno = EEXIST;
	salvage_refused(&jc, 100, "salvage: cannot write the new journal: File exists", img, len);
	fault.link_errno = EPERM;
	salvage_refused(&jc, 1, "Operation not permitted", img, len);
	fault.fsync_fail = 1;
	salvage_refused(&jc, 0, "salvage: cannot write the new journal: Input/output error", img,
			len);
	/* And it works when a name is free: records 1, 3, 4 replayed. */
	memset(&seen, 0, sizeof(seen));
	struct spate_journal *j =
		spate_journal_open(path, &jc, count_apply, &seen, &st, err, sizeof(err));
	CHECK(j != NULL);
	CHECK_EQ_INT(fault.links, 1);
	CHECK_EQ_INT(fault.fsyncs, 2); /* the new file, then the directory */
	/* <path>.damaged-YYYYmmddTHHMMSSZ, no -N: the plain name was free */
	CHECK_EQ_INT(strlen(st.aside), strlen(path) + strlen(".damaged-") + 16);
	CHECK(strncmp(st.aside + strlen(path), ".damaged-", 9) == 0);
	CHECK(st.aside[strlen(st.aside) - 1] == 'Z');
	struct stat sb;
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
	CHECK_EQ_INT(st.records, 3);
	CHECK_EQ_INT(seen.id_sum, 8);
	CHECK_EQ_INT(st.lost_records, 1);
	CHECK(st.lost_exact);
	CHECK_EQ_INT(jf_size(path), (off_t)(16 + 3 * rec));
	unlink(st.aside);
	spate_journal_close(j);
	free(img);
}

/* ------------------------------------------------------------ compaction */
enum { BIG = 24000 };

static void visit_big(void *vctx, spate_journal_emit_fn emit, void *jctx)
{
	struct spate_raw_sub s;
	uint64_t n = *(uint64_t *)vctx;

	for (uint64_t id = 1; id <= n; id++) {
		make_sub(&s, id);
		emit(jctx, &s, 5);
	}
}

static void test_compaction_big(void)
{
	struct seen seen;
	struct spate_journal_replay_stats st;
	struct spate_journal_stats js;
	struct spate_raw_sub s;
	char err[256];
	uint64_t n = BIG;

	fresh_journal(1, 2);
	struct spate_journal *j = open_counting(&seen, &st, err, sizeof(err));
	CHECK(j != NULL);
	make_sub(&s, 3);
	CHECK_EQ_INT(spate_journal_add(j, &s, 5), 0); /* pending: committed first */
	size_t len;
	uint8_t *img;

	/* The second 1 MiB chunk fails: nothing changes but the pending
	 * record, which is committed before the snapshot starts. */
	disarm();
	fault.write_short_at = 3; /* 1: the pending record, 2: the header, 3: chunk 1 */
	fault.write_fail_errno = ENOSPC;
	CHECK_EQ_INT(spate_journal_compact(j, visit_big, &n), -ENOSPC);
	disarm();
	CHECK(access(tmp_path, F_OK) != 0);
	img = jf_read(path, &len);
	spate_journal_stats(j, &js);
	CHECK_EQ_INT(js.compactions, 0);
	CHECK_EQ_INT(js.file_records, 3);
	CHECK_EQ_INT(js.file_bytes, len);
	/* The rename fails: same. */
	fault.rename_errno = EXDEV;
	CHECK_EQ_INT(spate_journal_compact(j, visit_big, &n), -EXDEV);
	disarm();
	CHECK(access(tmp_path, F_OK) != 0);
	CHECK(jf_equals(path, img, len));
	free(img);
	/* Still appendable after the failures. */
	make_sub(&s, 4);
	CHECK_EQ_INT(spate_journal_add(j, &s, 5), 0);
	CHECK_EQ_INT(spate_journal_commit(j, 0, true), 1);
	spate_journal_close(j);
	check_replays(4, 10);

	/* The snapshot's fsync fails: same. */
	j = open_counting(&seen, &st, err, sizeof(err));
	img = jf_read(path, &len);
	disarm();
	fault.fsync_fail = 1;
	CHECK_EQ_INT(spate_journal_compact(j, visit_big, &n), -EIO);
	disarm();
	CHECK(access(tmp_path, F_OK) != 0);
	CHECK(jf_equals(path, img, len));
	free(img);
	spate_journal_close(j);

	/* More than 1 MiB of live subscriptions: written in chunks of at
	 * least 1 MiB, every one of them replayed; the snapshot and the
	 * directory fsync'ed; the file 0600. */
	disarm();
	j = open_counting(&seen, &st, err, sizeof(err));
	CHECK_EQ_INT(spate_journal_compact(j, visit_big, &n), 0);
	CHECK_EQ_INT(fault.fsyncs, 2);
	struct stat sb;
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
	CHECK(fault.big_writes >= 2);
	CHECK(jf_size(path) > 2 * 1024 * 1024);
	spate_journal_stats(j, &js);
	CHECK_EQ_INT(js.compactions, 1);
	CHECK_EQ_INT(js.file_records, BIG);
	CHECK_EQ_INT(js.file_bytes, jf_size(path));
	/* Appends go after the snapshot. */
	make_sub(&s, BIG + 1);
	CHECK_EQ_INT(spate_journal_add(j, &s, 5), 0);
	CHECK_EQ_INT(spate_journal_commit(j, 0, true), 1);
	spate_journal_close(j);
	disarm();
	check_replays(BIG + 1, (uint64_t)(BIG + 1) * (BIG + 2) / 2);
}

/* ------------------------------------------------------------ records */
/* A copy of img ending right before an inaccessible page: a read past
 * the end faults. */
static uint8_t *guarded(const uint8_t *img, size_t len, void **map, size_t *maplen)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (len + pg - 1) / pg * pg;

	*maplen = data + pg;
	*map = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(*map != MAP_FAILED);
	mprotect((uint8_t *)*map + data, pg, PROT_NONE);
	uint8_t *p = (uint8_t *)*map + data - len;
	memcpy(p, img, len);
	return p;
}

/* Append a record holding datagram d (dlen bytes) at img + *len. */
static void put_record(uint8_t *img, size_t *len, const uint8_t *d, size_t dlen)
{
	uint8_t *r = img + *len;

	r[0] = (uint8_t)(dlen >> 24);
	r[1] = (uint8_t)(dlen >> 16);
	r[2] = (uint8_t)(dlen >> 8);
	r[3] = (uint8_t)dlen;
	uint32_t c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), r, 4);
	c = (uint32_t)crc32(c, d, (uInt)dlen);
	r[4] = (uint8_t)(c >> 24);
	r[5] = (uint8_t)(c >> 16);
	r[6] = (uint8_t)(c >> 8);
	r[7] = (uint8_t)c;
	memcpy(r + 8, d, dlen);
	*len += 8 + dlen;
}

/* A datagram of `n` SUB_DELs (ids id, id+1, ...), owner 9. */
static size_t dels(uint8_t *buf, uint64_t id, int n)
{
	struct spate_writer w;

	spate_writer_init(&w, buf, 256, 0, 9, 0);
	for (int i = 0; i < n; i++)
		CHECK_EQ_INT(spate_put_sub_del(&w, id + (uint64_t)i), 0);
	return spate_writer_finish(&w);
}

static void test_record_shapes(void)
{
	uint8_t img[1024], d[256];
	size_t len = 0, off_b, off_c;
	struct seen seen;
	struct spate_journal_replay_stats st;
	void *map;
	size_t maplen;
	uint8_t *g;

	fresh_journal(1, 1);
	size_t flen;
	uint8_t *f = jf_read(path, &flen);
	memcpy(img, f, 16); /* the file header */
	free(f);
	len = 16;
	put_record(img, &len, d, dels(d, 100, 1)); /* A: sound */
	off_b = len;
	put_record(img, &len, d, dels(d, 200, 2)); /* B: two messages */

	/* B last: a torn tail, A kept; the return is A's end. */
	g = guarded(img, len, &map, &maplen);
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ_INT(spate_journal_replay_buf(g, len, count_apply, &seen, false, &st), off_b);
	CHECK_EQ_INT(st.records, 1);
	CHECK_EQ_INT(st.dels, 1);
	CHECK_EQ_INT(seen.id_sum, 100);
	CHECK_EQ_INT(seen.owner, 9);
	CHECK_EQ_INT(st.cut_bytes, len - off_b);
	CHECK(st.cut_why != NULL && strstr(st.cut_why, "one SUB_ADD or SUB_DEL") != NULL);
	CHECK(st.damage_why == NULL);
	munmap(map, maplen);

	/* A zero-message record is not sound either. */
	size_t l0 = 16;
	uint8_t img0[256];
	memcpy(img0, img, 16);
	put_record(img0, &l0, d, dels(d, 1, 0));
	g = guarded(img0, l0, &map, &maplen);
	CHECK_EQ_INT(spate_journal_replay_buf(g, l0, count_apply, &seen, false, &st), 16);
	CHECK_EQ_INT(st.records, 0);
	CHECK_EQ_INT(st.cut_bytes, l0 - 16);
	munmap(map, maplen);

	/* C after B: damage. Without salvage the good prefix is A; the
	 * damage is at B, record 2, one sound record after it. */
	off_c = len;
	put_record(img, &len, d, dels(d, 300, 1));
	g = guarded(img, len, &map, &maplen);
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ_INT(spate_journal_replay_buf(g, len, count_apply, &seen, false, &st), off_b);
	CHECK_EQ_INT(st.records, 1);
	CHECK_EQ_INT(seen.id_sum, 100);
	CHECK(st.damage_why != NULL);
	CHECK_EQ_INT(st.damaged_at, off_b);
	CHECK_EQ_INT(st.damaged_record, 2);
	CHECK_EQ_INT(st.sound_after, 1);
	CHECK_EQ_INT(st.lost_records, 1);
	CHECK(st.lost_exact);
	CHECK_EQ_INT(st.lost_bytes, off_c - off_b);
	/* Salvage: A and C, the kept length is the header and both. */
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ_INT(spate_journal_replay_buf(g, len, count_apply, &seen, true, &st),
		     16 + (off_b - 16) + (len - off_c));
	CHECK_EQ_INT(st.records, 2);
	CHECK_EQ_INT(seen.id_sum, 400);
	munmap(map, maplen);

	/* B's length field now points past C's end: where B ended is
	 * unknown, so the loss is a lower bound (1), not exact. */
	uint32_t huge = (uint32_t)(len - off_b);
	img[off_b] = (uint8_t)(huge >> 24);
	img[off_b + 1] = (uint8_t)(huge >> 16);
	img[off_b + 2] = (uint8_t)(huge >> 8);
	img[off_b + 3] = (uint8_t)huge;
	g = guarded(img, len, &map, &maplen);
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ_INT(spate_journal_replay_buf(g, len, count_apply, &seen, true, &st),
		     16 + (off_b - 16) + (len - off_c));
	CHECK_EQ_INT(st.records, 2);
	CHECK_EQ_INT(st.lost_records, 1);
	CHECK(!st.lost_exact);
	CHECK_EQ_INT(st.damaged_spans, 1);
	munmap(map, maplen);

	/* Garbage after A, the scan for a sound record runs to the last
	 * byte and not past it (the guard page). Lengths 1..40. */
	int wrong = 0;
	for (size_t tail = 1; tail <= 40; tail++) {
		uint8_t junk[512];
		memcpy(junk, img, off_b);
		for (size_t i = 0; i < tail; i++)
			junk[off_b + i] = (uint8_t)(i % 2 ? 0x50 : 0x53); /* "SP", the magic */
		g = guarded(junk, off_b + tail, &map, &maplen);
		wrong += spate_journal_replay_buf(g, off_b + tail, count_apply, &seen, false,
						  &st) != off_b;
		wrong += st.cut_bytes != tail || st.records != 1;
		munmap(map, maplen);
	}
	CHECK_EQ_INT(wrong, 0);
}

/* A journal of version 2 (its header whole, CRC right) followed by
 * records this version would read: refused as another version, never
 * scanned or salvaged. The sync policy names parse both ways. */
static void test_other_version(void)
{
	struct seen seen;
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	char err[512];

	fresh_journal(1, 3);
	size_t len;
	uint8_t *img = jf_read(path, &len);
	img[11] = 2; /* version 2 */
	uint32_t c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), img, 12);
	img[12] = (uint8_t)(c >> 24);
	img[13] = (uint8_t)(c >> 16);
	img[14] = (uint8_t)(c >> 8);
	img[15] = (uint8_t)c;
	jf_write(path, img, len);
	spate_journal_conf_default(&jc);
	for (int salvage = 0; salvage < 2; salvage++) {
		jc.salvage = salvage;
		memset(&seen, 0, sizeof(seen));
		struct spate_journal *j =
			spate_journal_open(path, &jc, count_apply, &seen, &st, err, sizeof(err));
		CHECK(j == NULL);
		CHECK(strstr(err, "not a Spate journal or another version") != NULL);
		CHECK_EQ_INT(seen.adds, 0);
		CHECK(jf_equals(path, img, len));
	}
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ_INT(spate_journal_replay_buf(img, len, count_apply, &seen, true, &st), 0);
	CHECK_EQ_INT(st.records, 0);
	CHECK(st.damage_why == NULL);
	CHECK_EQ_INT(st.cut_bytes, len);
	free(img);
	unlink(path);
	static const char *const names[] = { "none", "always", "interval" };
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_INT(spate_journal_sync_parse(names[i]), i);
		CHECK(strcmp(spate_journal_sync_name(i), names[i]) == 0);
	}
	CHECK_EQ_INT(spate_journal_sync_parse("sometimes"), -1);
	CHECK(spate_journal_sync_name(3) == NULL && spate_journal_sync_name(-1) == NULL);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/spate-jio-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/journal", dir);
	snprintf(tmp_path, sizeof(tmp_path), "%s.tmp", path);
	memset(long_kw, 'k', 40);
	test_commit_write_fails();
	test_open_faults();
	test_salvage_names_exhausted();
	test_compaction_big();
	test_record_shapes();
	test_other_version();
	unlink(path);
	unlink(tmp_path);
	rmdir(dir);
	return check_summary("journal_io");
}
