/* fuzz_stream.c - libFuzzer target for the stream-file line parser.
 *
 * For any input line: spate_stream_parse_line must terminate without
 * reading out of bounds (ASan/UBSan say so), a refusal must come with a
 * known error code and a reason, and every accepted line must survive a
 * round trip: written back with spate_stream_write and parsed again, it
 * gives the same operation, field by field (doubles by their bits). Runs
 * with the default limits and with limits at the hard maxima.
 *
 * Built with -DSPATE_FUZZ_SEEDS instead, it writes a seed corpus (every
 * line of tests/unit/data/*.tsv, plus a few edge lines) into argv[1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto_cmp.h"
#include "proto/spate_err.h"
#include "stream/spate_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct spate_stream_op op1, op2; /* a few KB each: static */
static char text[1 << 16];

static void fail(const char *what, const char *line, size_t len)
{
	fprintf(stderr, "fuzz_stream: %s: '%.*s'\n", what, (int)len, line);
	abort();
}

static bool same_op(const struct spate_stream_op *a, const struct spate_stream_op *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case SPATE_LINE_SUB:
		return cmp_sub(&a->u.sub, &b->u.sub);
	case SPATE_LINE_UNSUB:
		return a->u.unsub_id == b->u.unsub_id;
	case SPATE_LINE_EVENT:
		return cmp_event(&a->u.ev, &b->u.ev);
	}
	return true;
}

static void run(const char *line, size_t len, const struct spate_limits *lim)
{
	char err[256] = "";
	int rc = spate_stream_parse_line(line, len, lim, &op1, err, sizeof(err));

	if (rc != 0) {
		if (rc > 0 || -rc >= SPATE_E__COUNT)
			fail("unknown error code", line, len);
		if (err[0] == '\0')
			fail("refusal without a reason", line, len);
		return;
	}
	if (op1.kind == SPATE_LINE_NONE)
		return;

	FILE *f = fmemopen(text, sizeof(text), "w");
	if (f == NULL)
		abort();
	spate_stream_write(f, &op1);
	long n = ftell(f);
	fclose(f);
	if (n <= 0 || (size_t)n >= sizeof(text))
		fail("written line empty or too long", line, len);
	if (spate_stream_parse_line(text, (size_t)n, lim, &op2, err, sizeof(err)) != 0)
		fail(err, text, (size_t)n);
	if (!same_op(&op1, &op2))
		fail("fields differ after a round trip", text, (size_t)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct spate_limits def,
		big = { SPATE_KW_MAX_HARD,   SPATE_KW_LEN_MAX_HARD,   SPATE_CONS_MAX_HARD,
			SPATE_ATTR_MAX_HARD, SPATE_NAME_LEN_MAX_HARD, 1024 };
	/* The parser gets exactly `size` bytes: copy them so that ASan sees a
	 * read past the end of the line as a heap overflow. */
	char *line = malloc(size ? size : 1);

	if (line == NULL)
		return 0;
	memcpy(line, data, size);
	if (def.max_messages == 0)
		spate_limits_default(&def);
	run(line, size, &def);
	run(line, size, &big);
	free(line);
	return 0;
}

#ifdef SPATE_FUZZ_SEEDS
#include "fuzz_seed.h"

int main(int argc, char **argv)
{
	static const char *const edges[] = {
		"sub\t1\t-180\t-90\t180\t90\t-\t-\n",
		"sub\t2\t0\t0\t0\t0\ta,b\tx>=1,y!=-0,z=1e300\n",
		"event\t3\t179.99999995\t-89.99999995\tk\tx=-0,y=1.5\n",
		"unsub\t18446744073709551615\n",
		"# comment\n",
		"\n",
	};
	char path[4096], name[64], *line = NULL;
	size_t cap = 0, k = 0;
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s CORPUS_DIR SOURCE_ROOT\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		snprintf(name, sizeof(name), "edge-%zu", i);
		bad |= write_seed(argv[1], name, edges[i], strlen(edges[i]));
	}
	/* the limits (the defaults: 16 keywords of 64 bytes, 16 constraints
	 * and attributes, 32-byte names) at max and max + 1, the coordinates
	 * just past their range, an id one past u64 */
	static char big[1 << 14];
	struct spate_limits lim;
	spate_limits_default(&lim);
	for (int v = 0; v < 10; v++) {
		uint32_t nkw = v == 1 ? lim.max_keywords + 1 : v == 0 ? lim.max_keywords : 1;
		uint32_t kwlen = v == 2   ? lim.max_keyword_len + 1
				 : v == 3 ? lim.max_keyword_len
					  : 3;
		uint32_t ncons = v == 4   ? lim.max_constraints + 1
				 : v == 5 ? lim.max_constraints
					  : 1;
		uint32_t nlen = v == 6 ? lim.max_name_len + 1 : v == 7 ? lim.max_name_len : 2;
		size_t n = (size_t)snprintf(
			big, sizeof(big), "%s\t%s\t%s\t%s\t%s\t%s\t",
			v == 8 || v == 9 ? "event" : "sub", v == 9 ? "18446744073709551616" : "5",
			v == 8 ? "180.0000001" : "-180", v == 8 ? "-90.0000001" : "-90",
			v == 8 ? "k" : "180", v == 8 ? "x=1" : "90");
		if (v >= 8) {
			big[n - 1] = '\n';
			goto write;
		}
		for (uint32_t i = 0; i < nkw; i++) {
			big[n++] = (char)('a' + (int)(i % 26));
			for (uint32_t c = 1; c < kwlen; c++)
				big[n++] = (char)('a' + (int)((i / 26 + c) % 26));
			big[n++] = i + 1 < nkw ? ',' : '\t';
		}
		for (uint32_t i = 0; i < ncons; i++) {
			big[n++] = (char)('a' + (int)(i % 26));
			for (uint32_t c = 1; c < nlen; c++)
				big[n++] = 'n';
			n += (size_t)snprintf(big + n, sizeof(big) - n, ">=%u%c", i,
					      i + 1 < ncons ? ',' : '\n');
		}
write:
		snprintf(name, sizeof(name), "limits-%d", v);
		bad |= write_seed(argv[1], name, big, n);
	}
	static const char *const files[] = { "basic", "borders", "interleaved" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/tests/unit/data/%s.tsv", argv[2], files[i]);
		FILE *f = fopen(path, "r");
		ssize_t n;

		if (f == NULL) {
			perror(path);
			return 1;
		}
		while ((n = getline(&line, &cap, f)) > 0) {
			snprintf(name, sizeof(name), "line-%zu", k++);
			bad |= write_seed(argv[1], name, line, (size_t)n);
		}
		fclose(f);
	}
	free(line);
	return bad ? 1 : 0;
}
#endif
