/* fuzz_journal.c - libFuzzer target for journal replay.
 *
 * For any file image: replay terminates without reading out of bounds
 * (ASan/UBSan), keeps a prefix of the input, counts every record it
 * applied as an add or a delete, and replaying just that prefix again
 * applies the same records and cuts nothing (what the daemon does after
 * cutting a bad tail). Damage before the tail is reported with sound
 * records after it, and salvage replays exactly those and the ones
 * before. The records go into a brute-force matcher, so the
 * decoded subscriptions are interned and indexed for real; a snapshot of
 * that matcher, written by the journal's own compaction and replayed into
 * a second matcher, must hold the same number of subscriptions.
 *
 * Built with -DSPATE_FUZZ_SEEDS instead, it is a plain program writing a
 * few valid journals into the directory argv[1] as the seed corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/spate_journal.h"
#include "matcher/spate_matcher.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct spate_matcher *new_matcher(void)
{
	struct spate_matcher_conf mc;

	spate_matcher_conf_default(&mc);
	mc.engine = "brute";
	return spate_matcher_create(&mc);
}

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_journal: %s\n", what);
	abort();
}

/* The snapshot of a matcher, replayed into a fresh one: same count. */
static void check_snapshot(struct spate_matcher *m)
{
	char path[64];
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	char err[256];

	/* tmpfs: the fsyncs of compaction cost nothing there */
	snprintf(path, sizeof(path), "/dev/shm/fuzz-journal-%d", (int)getpid());
	unlink(path);
	spate_journal_conf_default(&jc);
	jc.sync = SPATE_JOURNAL_SYNC_NONE; /* fuzzing speed: no fdatasync */
	struct spate_journal *j = spate_journal_open(path, &jc, spate_journal_apply_matcher, m, &st,
						     err, sizeof(err));
	if (j == NULL)
		fail(err);
	if (spate_journal_compact(j, spate_journal_visit_matcher, m) != 0)
		fail("compaction failed");
	spate_journal_close(j);
	struct spate_matcher *m2 = new_matcher();
	j = spate_journal_open(path, &jc, spate_journal_apply_matcher, m2, &st, err, sizeof(err));
	if (j == NULL)
		fail(err);
	if (st.cut_bytes != 0 || st.refused != 0 ||
	    spate_matcher_sub_count(m2) != spate_matcher_sub_count(m))
		fail("snapshot does not replay to the same subscriptions");
	spate_journal_close(j);
	spate_matcher_destroy(m2);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spate_journal_replay_stats st, st2, sv;
	struct spate_matcher *m = new_matcher(), *m2 = new_matcher(), *m3 = new_matcher();

	if (m == NULL || m2 == NULL || m3 == NULL)
		fail("no memory");
	size_t good =
		spate_journal_replay_buf(data, size, spate_journal_apply_matcher, m, false, &st);
	if (good > size || st.adds + st.dels != st.records ||
	    (st.cut_bytes != 0) != (st.cut_why != NULL))
		fail("inconsistent replay stats");
	if (st.damage_why == NULL ? st.cut_bytes != size - good || st.sound_after != 0
				  : st.sound_after == 0 || st.damaged_spans == 0 ||
					    (st.damaged_record > 0 && st.damaged_at != good))
		fail("inconsistent damage stats");
	if (good > 0) {
		size_t again = spate_journal_replay_buf(data, good, spate_journal_apply_matcher, m2,
							false, &st2);
		if (again != good || st2.cut_bytes != 0 || st2.damage_why != NULL ||
		    st2.records != st.records || st2.refused != st.refused ||
		    spate_matcher_sub_count(m2) != spate_matcher_sub_count(m))
			fail("the good prefix does not replay the same way");
		if (st.records > 0)
			check_snapshot(m);
	}
	/* Salvage replays every sound record: those before the damage and
	 * those counted after it. */
	spate_journal_replay_buf(data, size, spate_journal_apply_matcher, m3, true, &sv);
	if (sv.records != st.records + st.sound_after || sv.damaged_spans != st.damaged_spans ||
	    (sv.damage_why == NULL) != (st.damage_why == NULL))
		fail("salvage does not replay every sound record");
	spate_matcher_destroy(m);
	spate_matcher_destroy(m2);
	spate_matcher_destroy(m3);
	return 0;
}

#ifdef SPATE_FUZZ_SEEDS
#include <zlib.h>

#include "fuzz_seed.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Boundary variants of the journal file `path`, for its first records:
 * the record length at 0, one below, one above, past the file (CRC then
 * wrong: the torn/oversized checks), and with the CRC made right again
 * the payload's message count at 0 and 2 (a record is exactly one
 * message) and each keyword's length byte one off (a string claiming a
 * byte of the next field). */
static int write_journal_edges(const char *dir, const char *path)
{
	static uint8_t buf[1 << 16], copy[1 << 16];
	FILE *f = fopen(path, "rb");
	char name[64];
	int bad = 0;

	if (f == NULL)
		return -1;
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	size_t off = 16; /* the file header */
	for (int rec = 0; rec < 3 && off + 8 <= len; rec++) {
		uint32_t n = be32(buf + off);
		if (off + 8 + n > len)
			break;
		struct seed_field lenf = { off + 2, 2 };
		snprintf(name, sizeof(name), "rec%d-len", rec);
		bad |= write_field_edges(dir, name, buf, len, &lenf, 1);
		/* re-CRC'd payload edges: count (payload + 6) and length bytes */
		static const char *const strs[] = { "bus", "caf\xc3\xa9", "x:y", "speed" };
		struct seed_field pf[16] = { { off + 8 + 6, 2 } };
		size_t npf = find_length_bytes(buf + off + 8, n, strs, 4, pf, 1, 16);
		for (size_t i = 1; i < npf; i++)
			pf[i].off += off + 8;
		for (size_t i = 0; i < npf; i++)
			for (int d = -1; d <= 1; d += 2) {
				memcpy(copy, buf, len);
				uint8_t *at = copy + pf[i].off + (size_t)(pf[i].width - 1);
				*at = (uint8_t)(*at + d);
				uint32_t c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), copy + off, 4);
				c = (uint32_t)crc32(c, copy + off + 8, n);
				copy[off + 4] = (uint8_t)(c >> 24),
					   copy[off + 5] = (uint8_t)(c >> 16);
				copy[off + 6] = (uint8_t)(c >> 8), copy[off + 7] = (uint8_t)c;
				snprintf(name, sizeof(name), "rec%d-crc-e%zu%+d", rec, pf[i].off,
					 d);
				bad |= write_seed(dir, name, copy, len);
			}
		off += 8 + n;
	}
	return bad;
}

static struct spate_str s(const char *p)
{
	return (struct spate_str){ p, (uint32_t)strlen(p) };
}

int main(int argc, char **argv)
{
	static const char *const kws[] = { "bus", "caf\xc3\xa9", "x:y" };
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	struct spate_raw_sub rs;
	char path[512], err[256];

	if (argc < 2) /* run-fuzz.sh also passes the source root */
		return 2;
	spate_journal_conf_default(&jc);
	jc.sync = SPATE_JOURNAL_SYNC_NONE;
	for (int seed = 0; seed < 4; seed++) {
		struct spate_matcher *m = new_matcher();
		snprintf(path, sizeof(path), "%s/seed%d", argv[1], seed);
		unlink(path);
		struct spate_journal *j = spate_journal_open(path, &jc, spate_journal_apply_matcher,
							     m, &st, err, sizeof(err));
		if (j == NULL) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		for (int i = 0; i < 3 + seed * 4; i++) {
			memset(&rs, 0, sizeof(rs));
			rs.id = (uint64_t)(i * 7 + seed);
			rs.rect = (struct spate_rect){ -10000000 * i, -5000000, 10000000 * i,
						       5000000 };
			rs.dest = (struct spate_dest){ 0xc6120002u, (uint16_t)(40000 + i) };
			rs.n_kw = (uint32_t)(i % 4);
			for (uint32_t k = 0; k < rs.n_kw; k++)
				rs.kw[k] = s(kws[k % 3]);
			rs.n_cons = (uint32_t)(i % 2);
			rs.cons[0] = (struct spate_raw_constraint){ s("speed"),
								    1 + (uint8_t)(i % 6), 2.5 };
			spate_journal_add(j, &rs, (uint32_t)(1 + i % 3));
			if (i % 3 == 2)
				spate_journal_del(j, rs.id, (uint32_t)(1 + i % 3));
		}
		spate_journal_close(j);
		spate_matcher_destroy(m);
	}
	snprintf(path, sizeof(path), "%s/seed2", argv[1]);
	return write_journal_edges(argv[1], path) ? 1 : 0;
}
#endif
