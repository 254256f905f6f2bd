/* spate-match - the offline matcher: applies a stream file in order and
 * prints one "event_id<TAB>sub_id" line per match (sub ids ascending within
 * an event), with a summary on stderr. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf/spate_conf.h"
#include "proto/spate_err.h"
#include "matcher/spate_matcher.h"
#include "stream/spate_stream.h"
#include "bench_common.h"
#include "opt.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: spate-match [--engine NAME] [--conf FILE] [--skip-bad] [--quiet] "
		   "STREAM.tsv\n"
		   "       spate-match --list-engines\n"
		   "Applies the stream (sub/unsub/event lines; '-' = stdin) in order and writes\n"
		   "one 'event_id<TAB>sub_id' line per match to stdout, a summary to stderr.\n"
		   "  --engine NAME   matching engine (default: the fastest exact one)\n"
		   "  --conf FILE     libconfig file; its 'spate' group sets limits and engine\n"
		   "  --param N=V     set an engine parameter (drt: alpha, new_th, cmax, ...)\n"
		   "  --stats         print the engine's own figures (JSON) to stderr\n"
		   "  --skip-bad      report bad lines and go on (default: stop, exit 1)\n"
		   "  --quiet         no summary on stderr\n");
}

/* The output, "event_id<TAB>sub_id" a line, gathered here and handed to
 * stdio a block at a time: stdio's fwrite per line (its locking, the
 * buffer bookkeeping, a copy) took 160 instructions a match line, a
 * tenth of a whole run on cities (3.4 matches an event). */
struct out_buf {
	char b[1 << 16];
	size_t n;
	bool failed;
};

static void out_flush(struct out_buf *o)
{
	if (o->n > 0 && fwrite_unlocked(o->b, 1, o->n, stdout) != o->n)
		o->failed = true;
	o->n = 0;
}

/* The 8 decimal digits of v < 10^8 as byte values (0-9), the first in
 * the lowest byte: both halves of 4 digits at once in one word, split
 * into pairs, then into digits, by multiplies (x * 10486 >> 20 is x / 100
 * below 10^4, x * 103 >> 10 is x / 10 below 100). Checked against
 * snprintf("%08u") for every v below 10^8. */
static inline uint64_t digit_bytes(uint32_t v)
{
	uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32;
	uint64_t h = ((x * 10486) >> 20) & 0x0000007f0000007full;
	x = (x - 100 * h) << 16 | h;
	uint64_t t = ((x * 103) >> 10) & 0x000f000f000f000full;
	return (x - 10 * t) << 8 | t;
}

/* v in decimal at p (8 bytes or more of room), returns the end: below
 * 10^8 (event ids, subscription ids) one word of digits, less its leading
 * zeros (two digits a step took 64 instructions a cities event id);
 * else two digits a step, written in place from the end (no copy of a
 * variable length: a call to memcpy). printf's formatting was a quarter
 * of a whole run's instructions on a stream with 3 matches an event. */
static char *put_u64(char *p, uint64_t v)
{
	if (v < 100000000) {
		uint64_t x = digit_bytes((uint32_t)v);
		int zeros = v ? __builtin_ctzll(x) / 8 : 7;
		x = x >> (8 * zeros) | 0x3030303030303030ull;
		memcpy(p, &x, 8);
		return p + 8 - zeros;
	}

	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	static const uint64_t pow10[20] = {
		1ull,
		10ull,
		100ull,
		1000ull,
		10000ull,
		100000ull,
		1000000ull,
		10000000ull,
		100000000ull,
		1000000000ull,
		10000000000ull,
		100000000000ull,
		1000000000000ull,
		10000000000000ull,
		100000000000000ull,
		1000000000000000ull,
		10000000000000000ull,
		100000000000000000ull,
		1000000000000000000ull,
		10000000000000000000ull,
	};
	/* digits: log10 from the bit length (1233/4096 ~ log10 2), off by
	 * one at most, which the table settles */
	int bits = 64 - __builtin_clzll(v | 1);
	int n = (bits * 1233) >> 12;
	n += n < 20 && v >= pow10[n];
	n += n == 0;
	char *e = p + n;
	while (v >= 100) {
		e -= 2;
		memcpy(e, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(e - 2, pairs + 2 * v, 2);
	else
		e[-1] = (char)('0' + v);
	return p + n;
}

/* Subscription ids' decimal text, by id (a direct-mapped cache): a
 * subscription matches many events (cities: 457,235 match lines for
 * 20,284 subscriptions), so its id is formatted once, not on every line
 * (put_u64 was 54 instructions a line). 32,768 slots: ids below that
 * (every one of cities') never evict each other; at 4,096, 106,256 of
 * cities' lines formatted their id again. */
#define ID_TEXT_SLOTS 32768
struct id_text {
	uint64_t key; /* the id + 1; 0: an empty entry (or UINT64_MAX's, never kept) */
	uint8_t len;  /* of the text and its newline */
	char s[23];   /* the id's digits (up to 20) and a newline */
};

/* Event id ev's text and its tab into t (24 bytes), its length
 * returned. Streams number their events in order, so the text of the
 * last id written is kept and, for an id at most 9 past it, counted up
 * in place (a carry past the first digit, and any other id, formatted
 * anew): put_u64 took 50 instructions an event. */
static size_t event_text(char *t, uint64_t ev)
{
	static char last[24];
	static size_t last_len; /* with the tab; 0: none yet */
	static uint64_t last_id;

	if (last_len > 0 && ev > last_id && ev - last_id <= 9) {
		size_t i = last_len - 2; /* the last digit */
		unsigned v = (unsigned)(last[i] - '0') + (unsigned)(ev - last_id);
		unsigned carry = v / 10;
		last[i] = (char)('0' + v % 10);
		while (carry != 0 && i > 0) {
			if (last[--i] == '9') {
				last[i] = '0';
			} else {
				last[i]++;
				carry = 0;
			}
		}
		if (carry == 0) {
			last_id = ev;
			memcpy(t, last, sizeof(last));
			return last_len;
		}
	}
	last_len = (size_t)(put_u64(last, ev) - last) + 1;
	last[last_len - 1] = '\t';
	last_id = ev;
	memcpy(t, last, sizeof(last));
	return last_len;
}

/* The matches of one event. The room for all of them is made once (48
 * bytes a line is more than one takes), and the lines written through a
 * local pointer, by fixed-size copies: the event id and its tab, then the
 * subscription id and its newline (o->n updated at every line, the tab
 * and the newline stored at every line and an empty entry's own test
 * cost 12 of a line's 45 instructions). */
static void put_matches(struct out_buf *o, uint64_t ev, const struct spate_matchvec *mv)
{
	static struct id_text id_text[ID_TEXT_SLOTS];
	char ev_text[24]; /* copied whole: a fixed-size copy is a few moves */
	size_t i = 0;

	if (mv->n == 0) /* no text needed (a third of cities' events) */
		return;
	size_t ev_len = event_text(ev_text, ev);
	while (i < mv->n) {
		size_t room = (sizeof(o->b) - o->n) / 48;
		if (room == 0) {
			out_flush(o);
			continue;
		}
		size_t stop = mv->n - i < room ? mv->n : i + room;
		char *p = o->b + o->n;
		for (; i < stop; i++) {
			uint64_t id = mv->v[i]->id;
			struct id_text *t = &id_text[id % ID_TEXT_SLOTS];
			if (t->key != id + 1) {
				char *e = put_u64(t->s, id);
				*e = '\n';
				t->key = id + 1;
				t->len = (uint8_t)(e + 1 - t->s);
			}
			memcpy(p, ev_text, sizeof(ev_text));
			memcpy(p + ev_len, t->s, sizeof(t->s));
			p += ev_len + t->len;
		}
		o->n = (size_t)(p - o->b);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "engine", required_argument, NULL, 'e' },
		{ "conf", required_argument, NULL, 'c' },
		{ "skip-bad", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "list-engines", no_argument, NULL, 'l' },
		{ "param", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct spate_conf conf;
	const char *engine = NULL, *conf_path = NULL;
	bool skip_bad = false, quiet = false, stats = false;
	const char *params[32];
	int n_params = 0;
	char err[512];
	int c;

	spate_conf_default(&conf);
	while ((c = getopt_long(argc, argv, "e:c:sqlh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			engine = optarg;
			break;
		case 'c':
			conf_path = optarg;
			break;
		case 's':
			skip_bad = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'S':
			stats = true;
			break;
		case 'p':
			if (n_params == 32) {
				fprintf(stderr, "spate-match: too many --param\n");
				return 2;
			}
			params[n_params++] = optarg;
			break;
		case 'l':
			for (const struct spate_engine_ops *const *e = spate_engine_list(); *e; e++)
				printf("%-10s %s%s\n", (*e)->name, (*e)->help,
				       *e == spate_engine_find(NULL) ? " [default]" : "");
			return 0;
		default:
			return opt_other("spate-match", c, usage);
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (conf_path && spate_conf_load(&conf, conf_path, err, sizeof(err)) != 0) {
		fprintf(stderr, "spate-match: %s\n", err);
		return 2;
	}
	if (engine) {
		if (spate_engine_find(engine) == NULL) {
			fprintf(stderr, "spate-match: unknown engine '%s' (see --list-engines)\n",
				engine);
			return 2;
		}
		snprintf(conf.engine, sizeof(conf.engine), "%s", engine);
	}
	conf.matcher.engine = conf.engine;
	for (int i = 0; i < n_params; i++) {
		char name[64];
		const char *eq = strchr(params[i], '=');
		if (eq == NULL || (size_t)(eq - params[i]) >= sizeof(name)) {
			fprintf(stderr, "spate-match: --param wants NAME=VALUE, got '%s'\n",
				params[i]);
			return 2;
		}
		memcpy(name, params[i], eq - params[i]);
		name[eq - params[i]] = '\0';
		if (drt_params_set(&conf.matcher.params.drt, name, eq + 1, err, sizeof(err)) != 0) {
			fprintf(stderr, "spate-match: --param: %s\n", err);
			return 2;
		}
	}

	struct spate_matcher *m = spate_matcher_create(&conf.matcher);
	if (m == NULL) {
		fprintf(stderr, "spate-match: cannot create engine '%s'\n", conf.engine);
		return 2;
	}
	struct spate_stream_reader rd;
	if (spate_stream_open(&rd, argv[optind], &conf.limits) != 0) {
		fprintf(stderr, "spate-match: %s: %s\n", argv[optind], strerror(errno));
		spate_matcher_destroy(m);
		return 2;
	}
	static struct out_buf out;

	struct spate_stream_op op;
	struct spate_matchvec mv = { 0 };
	uint64_t n_ops = 0, n_events = 0, n_matches = 0, n_bad = 0;
	/* match time in TSC ticks (bench_ticks), turned into seconds by the
	 * run's ticks per second: two clock_gettime calls an event took
	 * 0.1-0.2 us of a drt event's 1 us (docs/benchmarks.md) */
	uint64_t match_ticks = 0, k0 = bench_ticks();
	int rc, status = 0;
	double t0 = now_s();

	while ((rc = spate_stream_next_reported(&rd, &op, "spate-match", skip_bad, &n_bad)) != 0) {
		if (rc < 0) {
			status = 1;
			break;
		}
		n_ops++;
		int r = 0;
		switch (op.kind) {
		case SPATE_LINE_SUB:
			r = spate_matcher_sub_add(m, &op.u.sub, 0);
			break;
		case SPATE_LINE_UNSUB:
			r = spate_matcher_sub_del(m, op.u.unsub_id, 0);
			break;
		case SPATE_LINE_EVENT: {
			uint64_t k = bench_ticks();
			r = spate_matcher_event(m, &op.u.ev, &mv);
			match_ticks += bench_ticks() - k;
			n_events++;
			if (r == 0)
				put_matches(&out, op.u.ev.id, &mv);
			n_matches += mv.n;
			break;
		}
		}
		if (r != 0) {
			fprintf(stderr, "spate-match: %s:%lu: %s\n", rd.path, rd.line_no,
				spate_err_reason(r));
			n_bad++;
			if (r == -SPATE_E_NO_MEMORY || !skip_bad) {
				status = 1;
				break;
			}
		}
	}
	double total = now_s() - t0;
	uint64_t run_ticks = bench_ticks() - k0;
	double match_time = run_ticks > 0 ? total * (double)match_ticks / (double)run_ticks : 0;
	out_flush(&out);
	if (out.failed || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "spate-match: writing output: %s\n", strerror(errno));
		status = 1;
	}
	if (!quiet)
		fprintf(stderr,
			"spate-match: engine=%s ops=%" PRIu64 " events=%" PRIu64 " subs=%" PRIu64
			" matches=%" PRIu64 " bad=%" PRIu64
			" time=%.3fs match_time=%.3fs events/s=%.0f\n",
			spate_matcher_engine_name(m), n_ops, n_events, spate_matcher_sub_count(m),
			n_matches, n_bad, total, match_time,
			match_time > 0 ? n_events / match_time : 0.0);
	if (stats) {
		fputs("spate-match: engine stats ", stderr);
		spate_matcher_engine_stats(m, stderr);
		fputc('\n', stderr);
	}
	spate_matchvec_free(&mv);
	spate_stream_close(&rd);
	spate_matcher_destroy(m);
	return status;
}
