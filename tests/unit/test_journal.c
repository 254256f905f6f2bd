/* test_journal.c - the subscription journal: replay gives back exactly the
 * state that was journaled (same subscriptions, same matches), a torn or
 * corrupt tail is cut at the last good record whatever byte it ends on,
 * damage before the tail (any byte of any other record, or of the header)
 * refuses the open naming where, and salvage replays every sound record,
 * counts the lost ones and keeps the damaged file aside,
 * compaction keeps the state and shrinks the file, the sync policies sync
 * when they say, and foreign files are never overwritten. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "journal_files.h"
#include "proto/spate_err.h"
#include "store/spate_journal.h"
#include "matcher/spate_matcher.h"

static const char *const words[] = { "bus", "rain", "caf\xc3\xa9", "x:y", "jam", "fire" };
static const char *const attrs[] = { "speed", "temp", "pop" };
#define NW (sizeof(words) / sizeof(words[0]))
#define NA (sizeof(attrs) / sizeof(attrs[0]))

static char dir[64];
static char path[128];

static struct spate_str str_of(const char *s)
{
	return (struct spate_str){ s, (uint32_t)strlen(s) };
}

/* Small world (4 x 4 degrees) so that events hit subscriptions. */
static int32_t coord(void)
{
	return ((int32_t)check_below(9) - 4) * (SPATE_COORD_SCALE / 2) + (int32_t)check_below(3) -
	       1;
}

static void make_sub(struct spate_raw_sub *s, uint64_t id)
{
	int32_t a = coord(), b = coord(), c = coord(), d = coord();

	memset(s, 0, sizeof(*s));
	s->id = id;
	s->rect = (struct spate_rect){ a < b ? a : b, c < d ? c : d, a < b ? b : a, c < d ? d : c };
	s->dest = (struct spate_dest){ 0xc6120002u, (uint16_t)(40000 + check_below(3)) };
	s->n_kw = check_below(3);
	for (uint32_t i = 0; i < s->n_kw; i++)
		s->kw[i] = str_of(words[check_below(NW)]);
	s->n_cons = check_below(2);
	for (uint32_t i = 0; i < s->n_cons; i++) {
		s->cons[i].name = str_of(attrs[check_below(NA)]);
		s->cons[i].op = (uint8_t)(1 + check_below(SPATE_OP_MAX));
		s->cons[i].value = (double)check_below(5);
	}
}

static void make_event(struct spate_raw_event *e, uint64_t id)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->lon = coord();
	e->lat = coord();
	e->n_kw = check_below(4);
	for (uint32_t i = 0; i < e->n_kw; i++)
		e->kw[i] = str_of(words[check_below(NW)]);
	e->n_attr = check_below(3);
	for (uint32_t i = 0; i < e->n_attr; i++) {
		e->attr[i].name = str_of(attrs[check_below(NA)]);
		e->attr[i].value = (double)check_below(5);
	}
}

static struct spate_matcher *new_matcher(void)
{
	struct spate_matcher_conf mc;

	spate_matcher_conf_default(&mc);
	mc.engine = "brute";
	return spate_matcher_create(&mc);
}

static struct spate_journal *open_into(struct spate_matcher *m, const struct spate_journal_conf *jc,
				       struct spate_journal_replay_stats *st)
{
	char err[256];
	struct spate_journal *j =
		spate_journal_open(path, jc, spate_journal_apply_matcher, m, st, err, sizeof(err));
	if (j == NULL)
		fprintf(stderr, "journal open refused (expected in test_foreign_file): %s\n", err);
	return j;
}

/* Every sub of `a` is in `b` with identical content (re-adding it is an
 * idempotent no-op only when owner and content are equal). */
static int missing;
static void check_in(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	if (spate_matcher_sub_add(ctx, rs, owner) != 0)
		missing++;
}

static void check_same_state(struct spate_matcher *a, struct spate_matcher *b)
{
	struct spate_raw_event *ev = malloc(sizeof(*ev));
	struct spate_matchvec ma = { 0 }, mb = { 0 };
	uint64_t nb = spate_matcher_sub_count(b);

	CHECK_EQ_INT(spate_matcher_sub_count(a), nb);
	missing = 0;
	CHECK_EQ_INT(spate_matcher_foreach_sub(a, check_in, b), 0);
	CHECK_EQ_INT(missing, 0);
	CHECK_EQ_INT(spate_matcher_sub_count(b), nb); /* nothing was new to b */
	/* And the same events match the same subs. */
	int diff = 0;
	for (uint64_t i = 0; i < 300; i++) {
		make_event(ev, i);
		spate_matcher_event(a, ev, &ma);
		spate_matcher_event(b, ev, &mb);
		if (ma.n != mb.n) {
			diff++;
			continue;
		}
		for (size_t k = 0; k < ma.n; k++)
			diff += ma.v[k]->id != mb.v[k]->id;
	}
	CHECK_EQ_INT(diff, 0);
	spate_matchvec_free(&ma);
	spate_matchvec_free(&mb);
	free(ev);
}

/* Random adds and deletes (several owners, retransmitted adds too) into
 * matcher `m` and journal `j`, committing now and then. */
static void workload(struct spate_matcher *m, struct spate_journal *j, uint64_t base, int n)
{
	struct spate_raw_sub *s = malloc(sizeof(*s));

	for (int i = 0; i < n; i++) {
		uint64_t id = base + check_below(400);
		uint32_t owner = 1 + check_below(3);
		if (check_below(3) == 0) {
			if (spate_matcher_sub_del(m, id, owner) == 0)
				CHECK_EQ_INT(spate_journal_del(j, id, owner), 0);
		} else {
			make_sub(s, id);
			if (spate_matcher_sub_add(m, s, owner) == 0)
				CHECK_EQ_INT(spate_journal_add(j, s, owner), 0);
		}
		if (check_below(16) == 0)
			CHECK(spate_journal_commit(j, (uint64_t)i, false) >= 0);
	}
	free(s);
}

static void test_replay_equals_state(void)
{
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	struct spate_matcher *a = new_matcher(), *b = new_matcher();

	spate_journal_conf_default(&jc);
	jc.compact_min = 1u << 30; /* no compaction here */
	unlink(path);
	struct spate_journal *j = open_into(a, &jc, &st);
	CHECK(j != NULL);
	CHECK_EQ_INT(st.records, 0);
	workload(a, j, 1000, 4000);
	struct spate_journal_stats js;
	spate_journal_stats(j, &js);
	spate_journal_close(j);
	CHECK(js.appended > 500); /* adds of ids in use are refused, dels of absent ones too */

	j = open_into(b, &jc, &st);
	CHECK(j != NULL);
	CHECK_EQ_INT(st.records, js.appended);
	CHECK_EQ_INT(st.refused, 0);
	CHECK_EQ_INT(st.cut_bytes, 0);
	CHECK(st.cut_why == NULL);
	check_same_state(a, b);
	spate_journal_close(j);
	spate_matcher_destroy(a);
	spate_matcher_destroy(b);
}

/* Record boundaries of the current file (offsets where a record starts,
 * plus the end). */
static size_t boundaries(off_t *out, size_t max)
{
	int fd = open(path, O_RDONLY);
	off_t end = lseek(fd, 0, SEEK_END), off = 16;
	size_t n = 0;

	while (off < end && n < max) {
		uint8_t h[4];
		out[n++] = off;
		if (pread(fd, h, 4, off) != 4)
			break;
		off += 8 +
		       ((uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3]);
	}
	out[n++] = end;
	close(fd);
	return n;
}

/* Build a journal of 12 records; remember its bytes. */
static uint8_t *small_journal(size_t *len, off_t *bounds, size_t *nb)
{
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	struct spate_matcher *m = new_matcher();
	struct spate_raw_sub s;

	spate_journal_conf_default(&jc);
	unlink(path);
	struct spate_journal *j = open_into(m, &jc, &st);
	for (uint64_t id = 1; id <= 10; id++) {
		make_sub(&s, id);
		spate_matcher_sub_add(m, &s, 7);
		spate_journal_add(j, &s, 7);
	}
	spate_matcher_sub_del(m, 3, 7);
	spate_journal_del(j, 3, 7);
	spate_matcher_sub_del(m, 4, 7);
	spate_journal_del(j, 4, 7);
	spate_journal_close(j);
	spate_matcher_destroy(m);
	*nb = boundaries(bounds, 64);
	CHECK_EQ_INT(*nb, 13);
	return jf_read(path, len);
}

/* Cut the file at every byte: replay keeps exactly the whole records
 * before the cut, the file is cut there, and appending afterwards works. */
static void test_torn_tail(void)
{
	off_t b[64];
	size_t nb, len;
	uint8_t *img = small_journal(&len, b, &nb);
	struct spate_journal_conf jc;
	struct spate_raw_sub s;
	int wrong = 0;

	spate_journal_conf_default(&jc);
	for (size_t cut = 16; cut <= len; cut++) {
		struct spate_journal_replay_stats st;
		struct spate_matcher *m = new_matcher();
		size_t whole = 0;
		while (whole + 1 < nb && (size_t)b[whole + 1] <= cut)
			whole++;
		jf_write(path, img, cut);
		struct spate_journal *j = open_into(m, &jc, &st);
		if (j == NULL) {
			wrong++;
			spate_matcher_destroy(m);
			continue;
		}
		wrong += st.records != whole;
		wrong += st.cut_bytes != cut - (size_t)b[whole];
		wrong += (st.cut_bytes != 0) != (st.cut_why != NULL);
		wrong += jf_size(path) != b[whole];
		/* A new record after the cut replays with the good prefix. */
		make_sub(&s, 99);
		spate_matcher_sub_add(m, &s, 9);
		spate_journal_add(j, &s, 9);
		spate_journal_close(j);
		struct spate_matcher *m2 = new_matcher();
		j = open_into(m2, &jc, &st);
		wrong += j == NULL || st.records != whole + 1 || st.cut_bytes != 0;
		wrong += spate_matcher_sub_count(m2) != spate_matcher_sub_count(m);
		spate_journal_close(j);
		spate_matcher_destroy(m);
		spate_matcher_destroy(m2);
	}
	CHECK_EQ_INT(wrong, 0);
	free(img);
}

static struct spate_journal *open_salvage(struct spate_matcher *m,
					  struct spate_journal_replay_stats *st, char *err,
					  size_t errlen)
{
	struct spate_journal_conf jc;

	spate_journal_conf_default(&jc);
	jc.salvage = true;
	return spate_journal_open(path, &jc, spate_journal_apply_matcher, m, st, err, errlen);
}

/* The image without records [k1, k2) (bounds b): what a salvage of
 * damage there must replay. Opened into a new matcher. */
static struct spate_matcher *expected_without(const uint8_t *img, size_t len, const off_t *b,
					      size_t k1, size_t k2)
{
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	struct spate_matcher *m = new_matcher();
	uint8_t *cut = malloc(len);
	size_t n = (size_t)b[k1];

	memcpy(cut, img, n);
	memcpy(cut + n, img + b[k2], len - (size_t)b[k2]);
	n += len - (size_t)b[k2];
	jf_write(path, cut, n);
	free(cut);
	spate_journal_conf_default(&jc);
	spate_journal_close(open_into(m, &jc, &st));
	return m;
}

/* One damaged image: refused without salvage, naming `want` in the
 * message and leaving the file as it was; salvaged: `keep` replayed
 * (compared with the matcher `exp`), `lost` records lost (exact unless
 * `inexact_ok`), the damaged file kept aside byte for byte, and the new
 * journal replays cleanly. Returns the number of things wrong. */
static int check_damaged(const uint8_t *bad, size_t len, const char *want, uint64_t keep,
			 uint64_t lost, uint64_t spans, bool inexact_ok, struct spate_matcher *exp)
{
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	char err[1024];
	int wrong = 0;

	spate_journal_conf_default(&jc);
	jf_write(path, bad, len);
	struct spate_matcher *m = new_matcher();
	struct spate_journal *j = spate_journal_open(path, &jc, spate_journal_apply_matcher, m, &st,
						     err, sizeof(err));
	wrong += j != NULL || strstr(err, want) == NULL || strstr(err, "--salvage-journal") == NULL;
	wrong += !jf_equals(path, bad, len);
	if (j != NULL)
		spate_journal_close(j);
	spate_matcher_destroy(m);

	m = new_matcher();
	j = open_salvage(m, &st, err, sizeof(err));
	if (j == NULL)
		return wrong + 1;
	wrong += st.records != keep || st.damaged_spans != spans || st.damage_why == NULL;
	wrong += st.lost_exact ? st.lost_records != lost : !inexact_ok || st.lost_records < 1;
	wrong += !jf_equals(st.aside, bad, len);
	unlink(st.aside);
	spate_journal_close(j);
	if (exp != NULL) {
		missing = 0;
		spate_matcher_foreach_sub(m, check_in, exp);
		wrong += missing != 0 || spate_matcher_sub_count(m) != spate_matcher_sub_count(exp);
	}
	spate_matcher_destroy(m);
	m = new_matcher();
	j = open_into(m, &jc, &st);
	wrong += j == NULL || st.records != keep || st.cut_why != NULL || st.damage_why != NULL;
	spate_journal_close(j);
	spate_matcher_destroy(m);
	return wrong;
}

/* Flip one byte anywhere: in the last record it is a torn tail (cut, the
 * records before kept); in record k before it, damage: refused naming
 * the offset and record k + 1, salvaged without record k; in the file
 * header, damage too: refused, salvaged with every record. */
static void test_damage(void)
{
	off_t b[64];
	size_t nb, len;
	uint8_t *img = small_journal(&len, b, &nb);
	uint8_t *bad = malloc(len);
	struct spate_journal_conf jc;
	size_t nrec = nb - 1;
	int wrong = 0, tried = 0;
	char want[64];

	spate_journal_conf_default(&jc);
	for (size_t k = 0; k < nrec; k++) {
		struct spate_matcher *exp = expected_without(img, len, b, k, k + 1);
		for (off_t at = b[k]; at < b[k + 1]; at++) {
			memcpy(bad, img, len);
			bad[at] ^= (uint8_t)(1u << (at % 8));
			tried++;
			if (k + 1 == nrec) {
				struct spate_journal_replay_stats st;
				struct spate_matcher *m = new_matcher();
				jf_write(path, bad, len);
				struct spate_journal *j = open_into(m, &jc, &st);
				wrong += j == NULL || st.records != k || st.cut_why == NULL ||
					 st.damage_why != NULL || jf_size(path) != b[k];
				spate_journal_close(j);
				spate_matcher_destroy(m);
				continue;
			}
			snprintf(want, sizeof(want), "damaged at byte %lld (record %zu)",
				 (long long)b[k], k + 1);
			/* a flipped length field hides where record k ended */
			wrong += check_damaged(bad, len, want, nrec - 1, 1, 1, at < b[k] + 4, exp);
		}
		spate_matcher_destroy(exp);
	}
	for (int at = 0; at < 16; at++) {
		memcpy(bad, img, len);
		bad[at] ^= 0x40;
		tried++;
		wrong += check_damaged(bad, len, "damaged at byte 0 (the file header)", nrec, 0, 1,
				       false, NULL);
	}
	/* Two damaged records apart (2 and 6) and two adjacent ones (8, 9). */
	memcpy(bad, img, len);
	bad[b[2] + 20] ^= 1;
	bad[b[6] + 9] ^= 1;
	wrong += check_damaged(bad, len, "(record 3)", nrec - 2, 2, 2, false, NULL);
	memcpy(bad, img, len);
	bad[b[8] + 20] ^= 1;
	bad[b[9] + 20] ^= 1;
	wrong += check_damaged(bad, len, "(record 9)", nrec - 2, 2, 1, false, NULL);
	CHECK(tried > 500);
	CHECK_EQ_INT(wrong, 0);
	free(bad);
	free(img);
}

static void test_compaction(void)
{
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	struct spate_matcher *a = new_matcher(), *b = new_matcher();

	spate_journal_conf_default(&jc);
	jc.compact_min = 100;
	jc.compact_factor = 2;
	unlink(path);
	struct spate_journal *j = open_into(a, &jc, &st);
	workload(a, j, 5000, 2000);
	spate_journal_commit(j, 0, true);
	CHECK(spate_journal_compact_due(j, spate_matcher_sub_count(a)));
	off_t before = jf_size(path);
	CHECK_EQ_INT(spate_journal_compact(j, spate_journal_visit_matcher, a), 0);
	struct spate_journal_stats js;
	spate_journal_stats(j, &js);
	CHECK_EQ_INT(js.file_records, spate_matcher_sub_count(a));
	CHECK_EQ_INT(js.compactions, 1);
	CHECK(jf_size(path) < before);
	CHECK(!spate_journal_compact_due(j, spate_matcher_sub_count(a)));
	char tmp[160];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	CHECK(access(tmp, F_OK) != 0);
	/* Records after the snapshot go on the new file. */
	workload(a, j, 5000, 300);
	spate_journal_close(j);
	j = open_into(b, &jc, &st);
	CHECK(j != NULL);
	CHECK_EQ_INT(st.cut_bytes, 0);
	CHECK_EQ_INT(st.refused, 0);
	check_same_state(a, b);
	spate_journal_close(j);
	spate_matcher_destroy(a);
	spate_matcher_destroy(b);
}

static void test_sync_policy(void)
{
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	struct spate_journal_stats js;
	struct spate_matcher *m = new_matcher();
	struct spate_raw_sub s;

	make_sub(&s, 1);
	spate_journal_conf_default(&jc);
	CHECK_EQ_INT(jc.sync, SPATE_JOURNAL_SYNC_ALWAYS);
	for (int pol = 0; pol < 3; pol++) {
		unlink(path);
		jc.sync = (enum spate_journal_sync)pol;
		jc.sync_interval_us = 1000;
		struct spate_journal *j = open_into(m, &jc, &st);
		CHECK(!spate_journal_pending(j));
		CHECK_EQ_INT(spate_journal_commit(j, 10, false), 1); /* nothing to do */
		spate_journal_add(j, &s, 1);
		CHECK(spate_journal_pending(j));
		int rc = spate_journal_commit(j, 500, false);
		spate_journal_stats(j, &js);
		if (pol == SPATE_JOURNAL_SYNC_NONE) {
			CHECK_EQ_INT(rc, 1);
			CHECK_EQ_INT(js.syncs, 0);
			CHECK(!spate_journal_pending(j));
		} else if (pol == SPATE_JOURNAL_SYNC_ALWAYS) {
			CHECK_EQ_INT(rc, 1);
			CHECK_EQ_INT(js.syncs, 1);
		} else {
			/* last sync at 0, interval 1000 us: not yet at 500 */
			CHECK_EQ_INT(rc, 0);
			CHECK(spate_journal_pending(j));
			CHECK_EQ_INT(js.syncs, 0);
			CHECK_EQ_INT(spate_journal_commit(j, 900, false), 0);
			CHECK_EQ_INT(spate_journal_commit(j, 1000, false), 1);
			spate_journal_stats(j, &js);
			CHECK_EQ_INT(js.syncs, 1);
			CHECK(!spate_journal_pending(j));
			/* force syncs at once */
			spate_journal_add(j, &s, 1);
			CHECK_EQ_INT(spate_journal_commit(j, 1001, true), 1);
		}
		spate_journal_close(j);
	}
	CHECK(spate_journal_sync_parse("interval") == SPATE_JOURNAL_SYNC_INTERVAL);
	CHECK(spate_journal_sync_parse("sometimes") == -1);
	CHECK(strcmp(spate_journal_sync_name(0), "none") == 0);
	spate_matcher_destroy(m);
}

static void test_foreign_file(void)
{
	struct spate_journal_conf jc;
	struct spate_journal_replay_stats st;
	struct spate_matcher *m = new_matcher();
	const char text[] = "this is somebody's config file\n";

	spate_journal_conf_default(&jc);
	jf_write(path, (const uint8_t *)text, sizeof(text) - 1);
	CHECK(open_into(m, &jc, &st) == NULL);
	CHECK_EQ_INT(jf_size(path), (long long)sizeof(text) - 1); /* untouched */
	/* A header torn at creation is a prefix of ours: started over. */
	jf_write(path, (const uint8_t *)"SPATE", 5);
	struct spate_journal *j = open_into(m, &jc, &st);
	CHECK(j != NULL);
	CHECK_EQ_INT(jf_size(path), 16);
	spate_journal_close(j);
	spate_matcher_destroy(m);
}

int main(void)
{
	/* tmpfs when there is one: the many fdatasyncs cost nothing there,
	 * and what is tested (bytes, cuts, renames) is the same. */
	snprintf(dir, sizeof(dir), "/dev/shm/spate-journal-XXXXXX");
	if (mkdtemp(dir) == NULL) {
		snprintf(dir, sizeof(dir), "/tmp/spate-journal-XXXXXX");
		if (mkdtemp(dir) == NULL)
			return 1;
	}
	snprintf(path, sizeof(path), "%s/subs.journal", dir);
	check_rng = 0x5eed;
	test_replay_equals_state();
	test_torn_tail();
	test_damage();
	test_compaction();
	test_sync_policy();
	test_foreign_file();
	unlink(path);
	rmdir(dir);
	return check_summary("journal");
}
