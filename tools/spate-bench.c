/* spate-bench - engines side by side on one stream, in one run (the
 * machine is shared and noisy: ratios hold, absolute times drift). For
 * each engine the stream is applied in order through the matcher, in a
 * process of its own (forked after parsing: the order of the engines
 * does not bias them), and the time spent in inserts, deletes and
 * matching is measured separately; one JSON line per engine and round
 * on stdout. The engines' results are
 * compared (count and a hash of every event_id/sub_id pair): a difference
 * is reported and the exit status is 1. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "conf/spate_conf.h"
#include "proto/spate_err.h"
#include "matcher/spate_matcher.h"
#include "stream/spate_stream.h"
#include "util/spate_release.h"

/* The stream, parsed once, so parsing is not timed. */
struct loaded {
	struct spate_stream_op *ops;
	char **lines; /* the ops' strings point into these */
	size_t n;
};

static int load(const char *path, const struct spate_limits *lim, struct loaded *L)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[256];
	size_t cap = 0, alloc = 0;
	unsigned long no = 0;
	ssize_t n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	memset(L, 0, sizeof(*L));
	while ((n = getline(&line, &cap, f)) >= 0) {
		no++;
		if (L->n == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			L->ops = realloc(L->ops, alloc * sizeof(*L->ops));
			L->lines = realloc(L->lines, alloc * sizeof(*L->lines));
			if (!L->ops || !L->lines) {
				fprintf(stderr, "spate-bench: out of memory\n");
				return -1;
			}
		}
		char *copy = strdup(line);
		int rc = copy ? spate_stream_parse_line(copy, (size_t)n, lim, &L->ops[L->n], err,
							sizeof(err))
			      : -1;
		if (rc != 0) {
			fprintf(stderr, "spate-bench: %s:%lu: %s\n", path, no,
				copy ? err : "no memory");
			free(copy);
			return -1;
		}
		if (L->ops[L->n].kind == SPATE_LINE_NONE) {
			free(copy);
			continue;
		}
		L->lines[L->n++] = copy;
	}
	free(line);
	fclose(f);
	return 0;
}

/* The parser alone: every line parsed again, 5 times over, into one
 * scratch op (parsing into fresh memory would time the kernel's page
 * faults), in thread CPU time. */
static void parse_speed(const struct loaded *L, const struct spate_limits *lim)
{
	struct spate_stream_op *op = malloc(sizeof(*op));
	char err[256];
	size_t *len = malloc((L->n + 1) * sizeof(*len));

	if (op == NULL || len == NULL) {
		free(op);
		free(len);
		return;
	}
	for (size_t i = 0; i < L->n; i++)
		len[i] = strlen(L->lines[i]);
	double t0 = bench_cpu_s();
	for (int r = 0; r < 5; r++)
		for (size_t i = 0; i < L->n; i++)
			spate_stream_parse_line(L->lines[i], len[i], lim, op, err, sizeof(err));
	double dt = bench_cpu_s() - t0;
	printf("{\"bench\":\"parse\",\"lines\":%zu,\"cpu_s\":%.4f,\"lines_per_s\":%.0f}\n",
	       5 * L->n, dt, dt > 0 ? 5 * L->n / dt : 0.0);
	free(op);
	free(len);
}

struct result {
	uint64_t matches, hash, subs, events, inserts, deletes;
	uint64_t insert_ticks, delete_ticks, match_ticks;
};

struct run_ctx {
	const char *spec;
	const struct spate_matcher_conf *base;
	const struct loaded *L;
};

/* One engine on the stream, through the matcher (strings interned, ids
 * and owners checked, records kept: what spate-match and spated do).
 * Runs in a child of its own (bench_in_child): no engine inherits a
 * heap another one grew. */
static int run(void *vctx, void *vout)
{
	const struct run_ctx *x = vctx;
	struct result *r = vout;
	struct spate_matcher_conf conf = *x->base;
	struct spate_matchvec mv = { 0 };
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", x->spec);
	if (bench_apply_spec(buf, &conf) != 0)
		return -1;
	const char *engine = conf.engine;
	struct spate_matcher *m = spate_matcher_create(&conf);
	if (m == NULL) {
		fprintf(stderr, "spate-bench: cannot create engine '%s'\n", engine);
		return -1;
	}
	memset(r, 0, sizeof(*r));
	double cpu0 = bench_cpu_s(), w0 = bench_now_s();
	uint64_t tk0 = bench_ticks();
	for (size_t i = 0; i < x->L->n; i++) {
		const struct spate_stream_op *op = &x->L->ops[i];
		uint64_t t = bench_ticks();
		int rc;
		if (op->kind == SPATE_LINE_EVENT) {
			rc = spate_matcher_event(m, &op->u.ev, &mv);
			r->match_ticks += bench_ticks() - t;
			r->events++;
			r->matches += mv.n;
			for (size_t j = 0; j < mv.n; j++)
				r->hash += (op->u.ev.id * 0x9e3779b97f4a7c15ull) ^ mv.v[j]->id;
		} else if (op->kind == SPATE_LINE_SUB) {
			rc = spate_matcher_sub_add(m, &op->u.sub, 0);
			r->insert_ticks += bench_ticks() - t;
			r->inserts++;
		} else {
			rc = spate_matcher_sub_del(m, op->u.unsub_id, 0);
			r->delete_ticks += bench_ticks() - t;
			r->deletes++;
		}
		if (rc != 0) {
			fprintf(stderr, "spate-bench: %s: op %zu: %s\n", engine, i,
				spate_err_reason(rc));
			spate_matcher_destroy(m);
			spate_matchvec_free(&mv);
			return -1;
		}
	}
	/* Wall time per operation kind from the ticks; the run's CPU time
	 * shared out in the same proportions (the time the process was
	 * descheduled, on this shared machine, spread evenly) gives the
	 * *_cpu figures. */
	double cpu = bench_cpu_s() - cpu0, wall = bench_now_s() - w0;
	double s_per_tick = wall / (double)(bench_ticks() - tk0);
	double t_ins = r->insert_ticks * s_per_tick, t_del = r->delete_ticks * s_per_tick;
	double t_ev = r->match_ticks * s_per_tick, busy = t_ins + t_del + t_ev;
	double cpu_per_wall = busy > 0 && cpu < busy ? cpu / busy : 1;
	r->subs = spate_matcher_sub_count(m);
	uint64_t sub_ops = r->inserts + r->deletes;
	printf("{\"bench\":\"engines\",\"path\":\"matcher\",\"engine\":\"%s\",\"spec\":\"%s\","
	       "\"sub_ops\":%" PRIu64 ",\"subs\":%" PRIu64 ",\"events\":%" PRIu64
	       ",\"matches\":%" PRIu64 ",\"sub_op_us\":%.3f,\"insert_us\":%.3f,\"delete_us\":%.3f"
	       ",\"match_us_per_event\":%.3f,\"events_per_s\":%.0f,\"insert_us_cpu\":%.3f"
	       ",\"delete_us_cpu\":%.3f,\"events_per_s_cpu\":%.0f,\"cpu_s\":%.3f,\"wall_s\":%.3f"
	       ",\"engine_stats\":",
	       engine, x->spec, sub_ops, r->subs, r->events, r->matches,
	       sub_ops ? (t_ins + t_del) * 1e6 / sub_ops : 0.0,
	       r->inserts ? t_ins * 1e6 / r->inserts : 0.0,
	       r->deletes ? t_del * 1e6 / r->deletes : 0.0,
	       r->events ? t_ev * 1e6 / r->events : 0.0, t_ev > 0 ? r->events / t_ev : 0.0,
	       r->inserts ? t_ins * cpu_per_wall * 1e6 / r->inserts : 0.0,
	       r->deletes ? t_del * cpu_per_wall * 1e6 / r->deletes : 0.0,
	       t_ev > 0 ? r->events / (t_ev * cpu_per_wall) : 0.0, cpu, wall);
	spate_matcher_engine_stats(m, stdout);
	printf("}\n");
	fflush(stdout);
	spate_matcher_destroy(m);
	spate_matchvec_free(&mv);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "engines", required_argument, NULL, 'e' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "conf", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char engines[256] = "", err[512];
	const char *conf_path = NULL;
	int rounds = 1, c;
	struct spate_conf conf;

	if (argc > 1 && strcmp(argv[1], "drt") == 0)
		return bench_drt_main(argc - 1, argv + 1); /* tools/bench_drt.c */
	if (argc > 1 && strcmp(argv[1], "rein") == 0)
		return bench_rein_main(argc - 1, argv + 1); /* tools/bench_rein.c */
	spate_conf_default(&conf);
	for (const struct spate_engine_ops *const *e = spate_engine_list(); *e; e++)
		snprintf(engines + strlen(engines), sizeof(engines) - strlen(engines), "%s%s",
			 engines[0] ? "," : "", (*e)->name);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			snprintf(engines, sizeof(engines), "%s", optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'c':
			conf_path = optarg;
			break;
		case 'V':
			return spate_release_print("spate-bench");
		case 'h':
			printf("usage: spate-bench [--engines a,b,...] [--rounds N] [--conf FILE] "
			       "STREAM.tsv\n"
			       "Runs every engine (default: all) on the stream, one JSON line "
			       "each.\n"
			       "An engine is NAME[:param=value...], e.g. "
			       "drt:variant=fre:cmax=64.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || rounds < 1) {
		fprintf(stderr, "usage: spate-bench [--engines a,b,...] [--rounds N] STREAM.tsv\n");
		return 2;
	}
	if (conf_path && spate_conf_load(&conf, conf_path, err, sizeof(err)) != 0) {
		fprintf(stderr, "spate-bench: %s\n", err);
		return 2;
	}
	struct loaded L;
	if (load(argv[optind], &conf.limits, &L) != 0)
		return 2;
	parse_speed(&L, &conf.limits);
	struct result first = { 0 };
	int status = 0, have_first = 0;
	for (int round = 0; round < rounds; round++) {
		char list[256], *save = NULL;
		snprintf(list, sizeof(list), "%s", engines);
		for (char *name = strtok_r(list, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			struct result r;
			struct run_ctx x = { name, &conf.matcher, &L };
			if (bench_in_child(run, &x, &r, sizeof(r)) != 0)
				return 1;
			if (!have_first) {
				first = r;
				have_first = 1;
			} else if (r.matches != first.matches || r.hash != first.hash) {
				fprintf(stderr, "spate-bench: engine %s gives different matches\n",
					name);
				status = 1;
			}
		}
	}
	for (size_t i = 0; i < L.n; i++)
		free(L.lines[i]);
	free(L.lines);
	free(L.ops);
	return status;
}
