/* bench_rein.c - `spate-bench rein`: the content-based engines (rein,
 * rein-list, mprein, ivx) side by side on workloads generated in-process
 * from a seed, one JSON line per engine and point, CSV and gnuplot PNGs
 * with --out. With --rounds R every point runs R times, the engines
 * alternating (each round starts with the next engine), and each figure is
 * the median of the rounds, with the wall times' spread (min, max) beside
 * it: the machine is shared, wall times jump.
 *
 * Two experiments (docs/benchmarks.md says how the paper's parameters are
 * read):
 *  - paper: the MP-REIN paper's matching/insert/delete time against the
 *    number of subscriptions (100 .. 100,000), m = 10 attributes on [0, 1],
 *    c = 15 cells, k = 10 attributes per event, intervals 0.3 wide (j = 30
 *    read as a width in percent), 5 constraints a subscription;
 *  - scale: the REIN/HEM literature's setup, 1,000,000 subscriptions over
 *    20 attributes on [0, 10^6) in 1000 cells, 10 constrained per
 *    subscription with width 0.3, events with all 20 (about 6 matches an
 *    event).
 * The engines are driven through their ops directly (no matcher, no
 * dictionary), so the times are the index's own. Every engine must give
 * the same matches (count and an order-free hash of event/sub pairs) on
 * the events they share, and brute checks the first events: a difference
 * fails the run (exit 1).
 */
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench_common.h"
#include "matcher/spate_engine.h"

struct workload {
	uint32_t attrs, sub_size, event_size, cells;
	double range, width;
	uint64_t seed;
};

struct gen {
	struct spate_sub *subs;
	struct spate_constraint *cons;
	struct spate_event *evs;
	struct spate_attr *vals;
	uint32_t n_subs, n_evs;
};

static uint64_t rng;
static uint32_t ivx_groups;   /* --ivx-groups, 0 = the engine's default */
static uint32_t par_min;      /* --par-min: mprein's pool threshold, 0 = default */
static uint32_t rounds = 1;   /* --rounds */
static size_t n_paper_points; /* paper sizes run (--quick: the first 3) */

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unit(void)
{
	return (double)(next_rand() >> 11) / 9007199254740992.0;
}

/* k distinct attributes out of n, ascending (the constraint order engines
 * expect). */
static void pick_attrs(uint32_t n, uint32_t k, uint32_t *out)
{
	uint32_t all[64];

	for (uint32_t i = 0; i < n; i++)
		all[i] = i;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t j = i + (uint32_t)(next_rand() % (n - i));
		uint32_t t = all[i];
		all[i] = all[j];
		all[j] = t;
	}
	for (uint32_t i = 0; i < k; i++) /* insertion sort: k is small */
		for (uint32_t j = i; j > 0 && all[j - 1] > all[j]; j--) {
			uint32_t t = all[j];
			all[j] = all[j - 1];
			all[j - 1] = t;
		}
	memcpy(out, all, k * sizeof(*out));
}

static const struct spate_rect world = { -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX,
					 SPATE_LAT_MAX };

/* Subscriptions: sub_size distinct attributes, each an interval
 * [lo, lo + width*range] with lo uniform in [0, range*(1 - width)].
 * Events: event_size distinct attributes, values uniform in [0, range). */
static int generate(const struct workload *w, uint32_t n_subs, uint32_t n_evs, struct gen *g)
{
	uint32_t at[64];

	memset(g, 0, sizeof(*g));
	rng = w->seed * 0x9e3779b97f4a7c15ull + 1;
	g->subs = calloc(n_subs, sizeof(*g->subs));
	g->cons = calloc((size_t)n_subs * 2 * w->sub_size, sizeof(*g->cons));
	g->evs = calloc(n_evs, sizeof(*g->evs));
	g->vals = calloc((size_t)n_evs * w->event_size, sizeof(*g->vals));
	if (!g->subs || !g->cons || !g->evs || !g->vals)
		return -1;
	for (uint32_t i = 0; i < n_subs; i++) {
		struct spate_constraint *c = g->cons + (size_t)i * 2 * w->sub_size;
		pick_attrs(w->attrs, w->sub_size, at);
		for (uint32_t k = 0; k < w->sub_size; k++) {
			double lo = unit() * w->range * (1 - w->width);
			c[2 * k] = (struct spate_constraint){ at[k], SPATE_OP_GE, lo };
			c[2 * k + 1] = (struct spate_constraint){ at[k], SPATE_OP_LE,
								  lo + w->width * w->range };
		}
		g->subs[i] = (struct spate_sub){
			.id = i + 1, .rect = world, .n_cons = (uint16_t)(2 * w->sub_size), .cons = c
		};
	}
	for (uint32_t i = 0; i < n_evs; i++) {
		struct spate_attr *v = g->vals + (size_t)i * w->event_size;
		pick_attrs(w->attrs, w->event_size, at);
		for (uint32_t k = 0; k < w->event_size; k++)
			v[k] = (struct spate_attr){ at[k], unit() * w->range };
		g->evs[i] = (struct spate_event){ .id = i + 1,
						  .n_attr = (uint16_t)w->event_size,
						  .attr = v };
	}
	g->n_subs = n_subs;
	g->n_evs = n_evs;
	return 0;
}

static void gen_free(struct gen *g)
{
	free(g->subs);
	free(g->cons);
	free(g->evs);
	free(g->vals);
}

/* CPU time of the whole process (all threads: mprein's pool counts), which
 * a machine shared with other jobs inflates far less than wall time. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

struct measure {
	double insert_us, match_us, delete_us, bytes_per_sub, matches_per_event;
	/* Over the rounds: the wall times' smallest and largest. */
	double match_us_min, match_us_max, insert_us_min, insert_us_max;
	double delete_us_min, delete_us_max;
	/* Process CPU time (all threads), per event / insert / delete. */
	double match_cpu_us, insert_cpu_us, delete_cpu_us;
	uint32_t events;        /* matched */
	uint64_t matches, hash; /* over the first `check` events */
	char stats[512];        /* the engine's own figures, JSON */
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Insert every sub, match n_evs events, delete n_del random subs. */
static int measure(const char *engine, const struct workload *w, const struct gen *g,
		   uint32_t n_evs, uint32_t check, uint32_t n_del, struct measure *r)
{
	bool serial = strcmp(engine, "mprein-serial") == 0;
	const struct spate_engine_ops *ops = spate_engine_find(serial ? "mprein" : engine);
	struct spate_engine_params p;
	struct spate_matchvec mv = { 0 };
	char why[160], name[16];
	uint64_t total = 0;

	memset(r, 0, sizeof(*r));
	spate_engine_params_default(&p);
	p.ivx_groups = ivx_groups;
	p.mprein_par_min = par_min;
	if (serial)
		p.mprein_workers = 0;
	for (uint32_t a = 0; a < w->attrs; a++) {
		snprintf(name, sizeof(name), "a%u", a);
		if (spate_schema_add(&p.schema, name, 0, w->range, w->cells, why, sizeof(why)) !=
		    0) {
			fprintf(stderr, "spate-bench: %s\n", why);
			return -1;
		}
	}
	size_t heap0 = heap_bytes();
	struct spate_engine *e = ops ? ops->create(&p) : NULL;
	if (e == NULL) {
		fprintf(stderr, "spate-bench: cannot create engine %s\n", engine);
		return -1;
	}
	double t = bench_now_s(), c = cpu_s();
	for (uint32_t i = 0; i < g->n_subs; i++)
		if (ops->sub_add(e, &g->subs[i]) != 0) {
			fprintf(stderr, "spate-bench: %s: out of memory\n", engine);
			ops->destroy(e);
			return -1;
		}
	r->insert_us = (bench_now_s() - t) * 1e6 / g->n_subs;
	r->insert_cpu_us = (cpu_s() - c) * 1e6 / g->n_subs;
	r->bytes_per_sub = (double)(heap_bytes() - heap0) / g->n_subs;
	double tm = 0, c0 = cpu_s();
	for (uint32_t i = 0; i < n_evs; i++) {
		mv.n = 0;
		t = bench_now_s();
		int rc = ops->match(e, &g->evs[i], &mv);
		tm += bench_now_s() - t;
		if (rc != 0) {
			fprintf(stderr, "spate-bench: %s: out of memory\n", engine);
			ops->destroy(e);
			spate_matchvec_free(&mv);
			return -1;
		}
		total += mv.n;
		if (i < check) {
			r->matches += mv.n;
			for (size_t k = 0; k < mv.n; k++)
				r->hash += mix(((uint64_t)i << 32) ^ mv.v[k]->id);
		}
	}
	r->events = n_evs;
	r->match_cpu_us = (cpu_s() - c0) * 1e6 / n_evs;
	r->match_us = tm * 1e6 / n_evs;
	r->matches_per_event = (double)total / n_evs;
	/* Deletes of random live subs (a partial shuffle picks them). */
	uint32_t *order = malloc(g->n_subs * sizeof(*order));
	if (order == NULL) {
		ops->destroy(e);
		spate_matchvec_free(&mv);
		return -1;
	}
	for (uint32_t i = 0; i < g->n_subs; i++)
		order[i] = i;
	rng = w->seed + 99;
	for (uint32_t i = 0; i < n_del; i++) {
		uint32_t j = i + (uint32_t)(next_rand() % (g->n_subs - i));
		uint32_t x = order[i];
		order[i] = order[j];
		order[j] = x;
	}
	t = bench_now_s();
	c = cpu_s();
	for (uint32_t i = 0; i < n_del; i++)
		ops->sub_del(e, &g->subs[order[i]]);
	r->delete_us = n_del ? (bench_now_s() - t) * 1e6 / n_del : 0;
	r->delete_cpu_us = n_del ? (cpu_s() - c) * 1e6 / n_del : 0;
	free(order);
	snprintf(r->stats, sizeof(r->stats), "{}");
	FILE *f = ops->stats ? fmemopen(r->stats, sizeof(r->stats), "w") : NULL;
	if (f != NULL) {
		ops->stats(e, f);
		fclose(f);
	}
	ops->destroy(e);
	spate_matchvec_free(&mv);
	return 0;
}

static void print_json(const char *exp, const char *engine, uint32_t n_subs,
		       const struct measure *r)
{
	printf("{\"bench\":\"rein\",\"exp\":\"%s\",\"engine\":\"%s\",\"subs\":%u,\"events\":%u,"
	       "\"rounds\":%u,"
	       "\"match_us_per_event\":%.3f,\"match_cpu_us_per_event\":%.3f,\"insert_us\":%.3f,"
	       "\"insert_cpu_us\":%.3f,\"delete_us\":%.3f,\"delete_cpu_us\":%.3f,"
	       "\"match_us_range\":[%.3f,%.3f],\"insert_us_range\":[%.3f,%.3f],"
	       "\"delete_us_range\":[%.3f,%.3f],"
	       "\"bytes_per_sub\":%.1f,\"matches_per_event\":%.3f,\"engine_stats\":%s}\n",
	       exp, engine, n_subs, r->events, rounds, r->match_us, r->match_cpu_us, r->insert_us,
	       r->insert_cpu_us, r->delete_us, r->delete_cpu_us, r->match_us_min, r->match_us_max,
	       r->insert_us_min, r->insert_us_max, r->delete_us_min, r->delete_us_max,
	       r->bytes_per_sub, r->matches_per_event, r->stats);
	fflush(stdout);
}

/* mprein-serial is mprein without its pool: what the parallel marking
 * gains, side by side. rein-list (O(n) buckets) is left out of the scale
 * experiment unless --engines names it. */
#define N_ENGINES 5
static const char *const engines[N_ENGINES] = { "rein", "rein-list", "mprein", "mprein-serial",
						"ivx" };
static bool skip[N_ENGINES]; /* --engines leaves these out */
static bool chosen;          /* --engines given */

/* The median of the rounds' values of the double at offset off, and their
 * range. */
static void summarise(const struct measure *v, uint32_t n, size_t off, double *med, double *lo,
		      double *hi)
{
	double x[64];

	for (uint32_t i = 0; i < n; i++) {
		double y = *(const double *)((const char *)&v[i] + off);
		uint32_t j = i;
		for (; j > 0 && x[j - 1] > y; j--)
			x[j] = x[j - 1];
		x[j] = y;
	}
	*med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	if (lo)
		*lo = x[0];
	if (hi)
		*hi = x[n - 1];
}

/* One engine's rounds folded into *r: medians, wall-time ranges; counts
 * and the engine's figures from the first round. */
static void fold_rounds(const struct measure *v, uint32_t n, struct measure *r)
{
	*r = v[0];
#define MED(f) summarise(v, n, offsetof(struct measure, f), &r->f, NULL, NULL)
#define RANGE(f) summarise(v, n, offsetof(struct measure, f), &r->f, &r->f##_min, &r->f##_max)
	RANGE(match_us);
	RANGE(insert_us);
	RANGE(delete_us);
	MED(match_cpu_us);
	MED(insert_cpu_us);
	MED(delete_cpu_us);
	MED(bytes_per_sub);
#undef MED
#undef RANGE
}

/* Run every engine (and brute on the first `brute_events` events) on one
 * workload; 0 when all agree. */
static int run_point(const char *exp, const struct workload *w, uint32_t n_subs,
		     const uint32_t evs[N_ENGINES], uint32_t check, uint32_t brute_events,
		     uint32_t n_del, struct measure out[N_ENGINES])
{
	struct gen g;
	uint32_t max_evs = brute_events;
	int status = 0;

	for (int i = 0; i < N_ENGINES; i++)
		if (evs[i] > max_evs)
			max_evs = evs[i];
	if (generate(w, n_subs, max_evs, &g) != 0) {
		fprintf(stderr, "spate-bench: out of memory\n");
		gen_free(&g);
		return -1;
	}
	struct measure ref, (*per)[64] = calloc(N_ENGINES, sizeof(*per));
	if (per == NULL || measure("brute", w, &g, brute_events, brute_events, 0, &ref) != 0) {
		free(per);
		gen_free(&g);
		return -1;
	}
	/* Round r starts with the r-th engine: each takes every place in
	 * the order, so a slow spell of the machine is shared out. */
	for (uint32_t r = 0; r < rounds; r++)
		for (int k = 0; k < N_ENGINES; k++) {
			int i = (int)((r + (uint32_t)k) % N_ENGINES);
			if (skip[i])
				continue;
			if (measure(engines[i], w, &g, evs[i], check, n_del, &per[i][r]) != 0) {
				free(per);
				gen_free(&g);
				return -1;
			}
		}
	int first = -1;
	for (int i = 0; i < N_ENGINES; i++) {
		if (skip[i])
			continue;
		fold_rounds(per[i], rounds, &out[i]);
		print_json(exp, engines[i], n_subs, &out[i]);
		if (first < 0)
			first = i;
		for (uint32_t r = 0; r < rounds; r++)
			if (per[i][r].matches != out[first].matches ||
			    per[i][r].hash != out[first].hash) {
				fprintf(stderr, "spate-bench: %s, %u subs: %s and %s disagree\n",
					exp, n_subs, engines[i], engines[first]);
				status = 1;
			}
	}
	free(per);
	/* Callers pass check == brute_events: both hashes cover the same events. */
	if (first >= 0 && (ref.matches != out[first].matches || ref.hash != out[first].hash)) {
		fprintf(stderr, "spate-bench: %s, %u subs: %s disagrees with brute\n", exp, n_subs,
			engines[first]);
		status = 1;
	}
	gen_free(&g);
	return status;
}

/* What the CSV files and plots show, from struct measure. */
static const struct {
	const char *name, *title;
	size_t off;
} metrics[] = {
	{ "match", "matching time per event (wall)", offsetof(struct measure, match_us) },
	{ "match_cpu", "matching CPU time per event", offsetof(struct measure, match_cpu_us) },
	{ "insert", "insert time (wall)", offsetof(struct measure, insert_us) },
	{ "insert_cpu", "insert CPU time", offsetof(struct measure, insert_cpu_us) },
	{ "delete", "delete time (wall)", offsetof(struct measure, delete_us) },
	{ "delete_cpu", "delete CPU time", offsetof(struct measure, delete_cpu_us) },
};
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static double metric(const struct measure *r, size_t m)
{
	return *(const double *)((const char *)r + metrics[m].off);
}

static const uint32_t paper_subs[] = { 100, 1000, 10000, 20000, 40000, 60000, 80000, 100000 };
#define N_PAPER (sizeof(paper_subs) / sizeof(paper_subs[0]))

static int exp_paper(uint64_t seed, uint32_t events, const char *dir)
{
	const struct workload w = { .attrs = 10,
				    .sub_size = 5,
				    .event_size = 10,
				    .cells = 15,
				    .range = 1.0,
				    .width = 0.3,
				    .seed = seed };
	struct measure r[N_PAPER][N_ENGINES];
	int status = 0;

	memset(r, 0, sizeof(r)); /* engines left out show 0 */

	for (size_t i = 0; i < n_paper_points; i++) {
		/* rein-list marks by walking lists (tens of ms an event from
		 * 20,000 subs on): a tenth of the events there; the answers are
		 * compared (and checked by brute) on the events all engines ran */
		uint32_t few = events / 10 > 20 ? events / 10 : events < 20 ? events : 20;
		uint32_t list_evs = paper_subs[i] >= 20000 ? few : events;
		const uint32_t evs[N_ENGINES] = { events, list_evs, events, events, events };
		uint32_t check = skip[1] ? events : list_evs;
		uint32_t del = paper_subs[i] < 10000 ? paper_subs[i] : 10000;
		int rc = run_point("paper", &w, paper_subs[i], evs, check, check, del, r[i]);
		if (rc < 0)
			return -1;
		status |= rc;
	}
	if (dir == NULL)
		return status;
	FILE *f = bench_open_out(dir, "rein-paper.csv");
	if (f == NULL)
		return -1;
	fprintf(f, "subs");
	for (size_t m = 0; m < N_METRICS; m++)
		for (int k = 0; k < N_ENGINES; k++)
			fprintf(f, ",%s_%s", engines[k], metrics[m].name);
	fprintf(f, "\n");
	for (size_t i = 0; i < n_paper_points; i++) {
		fprintf(f, "%u", paper_subs[i]);
		for (size_t m = 0; m < N_METRICS; m++)
			for (int k = 0; k < N_ENGINES; k++)
				fprintf(f, ",%.3f", metric(&r[i][k], m));
		fprintf(f, "\n");
	}
	fclose(f);
	f = bench_gp_open(dir, "rein-paper", 800, 500, false);
	if (f == NULL)
		return -1;
	fprintf(f, "set logscale xy\nset key top left\nset grid\n"
		   "set xlabel 'subscriptions'\nset ylabel 'microseconds'\n");
	for (size_t m = 0; m < N_METRICS; m++) {
		fprintf(f,
			"set output 'rein-paper-%s.png'\n"
			"set title 'MP-REIN paper setup (m=10, c=15, k=10, width 0.3): %s'\n"
			"plot ",
			metrics[m].name, metrics[m].title);
		for (int k = 0, any = 0; k < N_ENGINES; k++)
			if (!skip[k])
				fprintf(f,
					"%s'rein-paper.csv' using 1:%d with linespoints title '%s'",
					any++ ? ", " : "", 2 + (int)m * N_ENGINES + k, engines[k]);
		fprintf(f, "\n");
	}
	bench_gp_run(f, dir, "rein-paper");
	return status;
}

static int exp_scale(uint64_t seed, uint32_t n_subs, uint32_t events, const char *dir)
{
	const struct workload w = { .attrs = 20,
				    .sub_size = 10,
				    .event_size = 20,
				    .cells = 1000,
				    .range = 1e6,
				    .width = 0.3,
				    .seed = seed };
	/* REIN-style engines take ~20 ms an event at 1M: fewer events. */
	uint32_t slow = events / 10 ? events / 10 : 1;
	const uint32_t evs[N_ENGINES] = { slow, slow, slow, slow, events };
	uint32_t brute = slow < 20 ? slow : 20;
	struct measure r[N_ENGINES];
	bool list_skipped = skip[1];

	memset(r, 0, sizeof(r)); /* engines left out show 0 */
	skip[1] |= !chosen;      /* rein-list: O(n) inserts at 1M, only when asked */
	int status = run_point("scale", &w, n_subs, evs, brute, brute, 10000, r);
	skip[1] = list_skipped;
	if (status < 0 || dir == NULL)
		return status;
	FILE *f = bench_open_out(dir, "rein-scale.csv");
	if (f == NULL)
		return -1;
	fprintf(f, "engine");
	for (size_t m = 0; m < N_METRICS; m++)
		fprintf(f, ",%s_us", metrics[m].name);
	fprintf(f, ",bytes_per_sub,matches_per_event\n");
	for (int k = 0; k < N_ENGINES; k++) {
		fprintf(f, "%s", engines[k]);
		for (size_t m = 0; m < N_METRICS; m++)
			fprintf(f, ",%.3f", metric(&r[k], m));
		fprintf(f, ",%.1f,%.3f\n", r[k].bytes_per_sub, r[k].matches_per_event);
	}
	fclose(f);
	f = bench_gp_open(dir, "rein-scale", 800, 500, true);
	if (f == NULL)
		return -1;
	fprintf(f,
		"set style data histograms\n"
		"set datafile columnheaders\n"
		"set style fill solid 0.8 border -1\nset logscale y\nset grid ytics\n"
		"set key top right\nset ylabel 'microseconds (log)'\n"
		"set title 'Scale: %u subs, 20 attributes, 10 constrained, width 0.3'\n"
		"plot 'rein-scale.csv' using 2:xtic(1) title 'match per event (wall)', "
		"'' using 3 title 'match per event (CPU)', '' using 5 title 'insert (CPU)', "
		"'' using 7 title 'delete (CPU)'\n",
		n_subs);
	bench_gp_run(f, dir, "rein-scale");
	return status;
}

/* --engines a,b: run only those. */
static int select_engines(const char *list)
{
	char buf[128], *save = NULL;

	for (int k = 0; k < N_ENGINES; k++)
		skip[k] = true;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		int k = 0;
		while (k < N_ENGINES && strcmp(engines[k], n) != 0)
			k++;
		if (k == N_ENGINES) {
			fprintf(stderr,
				"spate-bench rein: unknown engine '%s' (rein, rein-list, "
				"mprein, mprein-serial, ivx)\n",
				n);
			return -1;
		}
		skip[k] = false;
	}
	chosen = true;
	return 0;
}

int bench_rein_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'x' },
		{ "scale-subs", required_argument, NULL, 'n' },
		{ "events", required_argument, NULL, 'e' },
		{ "engines", required_argument, NULL, 'E' },
		{ "ivx-groups", required_argument, NULL, 'g' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "par-min", required_argument, NULL, 'P' },
		{ "quick", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *only = NULL;
	uint64_t seed = 1;
	uint32_t scale_subs = 1000000, events = 1000;
	int c;

	n_paper_points = N_PAPER;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'x':
			only = optarg;
			break;
		case 'n':
			scale_subs = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'e':
			events = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'q': /* a smoke run: small sizes, few events */
			n_paper_points = 3;
			scale_subs = 20000;
			events = 20;
			break;
		case 'g':
			ivx_groups = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			rounds = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'P':
			par_min = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'E':
			if (select_engines(optarg) != 0)
				return 2;
			break;
		case 'h':
			printf("usage: spate-bench rein [--out DIR] [--seed N] [--only "
			       "paper|scale]\n"
			       "                        [--scale-subs N] [--events N] [--engines "
			       "a,b]\n"
			       "                        [--ivx-groups N] [--rounds R] [--par-min "
			       "N] [--quick]\n"
			       "The MP-REIN paper's experiment and the 1M-subscription scale run "
			       "for\n"
			       "rein, rein-list (paper only), mprein, mprein-serial and ivx: JSON "
			       "lines;\n"
			       "CSV and PNG plots into DIR. --rounds: each point R times, engines\n"
			       "alternating, medians and wall-time ranges; --par-min: mprein's "
			       "pool\n"
			       "from N slots.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc || scale_subs < 100 || events < 1 || rounds < 1 || rounds > 64 ||
	    (only && strcmp(only, "paper") && strcmp(only, "scale"))) {
		fprintf(stderr,
			"usage: spate-bench rein [--out DIR] [--seed N] [--only paper|scale]"
			" [--scale-subs N] [--events N]\n");
		return 2;
	}
	if (dir && mkdir(dir, 0755) != 0) {
		struct stat st;
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
			perror(dir);
			return 2;
		}
	}
	int status = 0;
	if (only == NULL || strcmp(only, "paper") == 0)
		status |= exp_paper(seed, events, dir) != 0;
	if (only == NULL || strcmp(only, "scale") == 0)
		status |= exp_scale(seed, scale_subs, events, dir) != 0;
	return status;
}
