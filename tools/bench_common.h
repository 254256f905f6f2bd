/* bench_common.h - what the spate-bench modes share: engine specs with
 * parameters, the clock, the CSV and gnuplot output files. Each mode lives in its own file (bench_drt.c,
 * ...) and spate-bench.c dispatches on the first word. */
#ifndef SPATE_BENCH_COMMON_H
#define SPATE_BENCH_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "matcher/spate_matcher.h"

/* An engine spec is NAME[:param=value[:param=value...]], e.g.
 * "drt:variant=fre:cmax=64": the paper's variants side by side. Sets
 * conf->engine (pointing into spec, which is modified) and the
 * parameters. 0, or -1 with a message on stderr. */
int bench_apply_spec(char *spec, struct spate_matcher_conf *conf);
/* Monotonic seconds. */
double bench_now_s(void);
/* A cheap clock for timing single operations: the TSC on x86 (about 20
 * ns a read here, against 90 ns for clock_gettime and 4 us for a thread
 * CPU clock, which is a system call on this VM), else nanoseconds.
 * Convert by measuring the ticks of a span also timed by bench_now_s. */
static inline uint64_t bench_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}
/* CPU seconds of this thread: on a shared, overloaded machine the time
 * the thread was descheduled does not count. */
double bench_cpu_s(void);
/* The part of that spent in the kernel (for the engines: faulting in and
 * zeroing fresh pages as their tables grow), microsecond resolution. */
double bench_sys_s(void);

/* Run fn(ctx, out) in a forked child and copy its out_len bytes of
 * result back into out: every engine run starts from the same heap (in
 * one process the first run paid the heap's growth and later ones
 * reused its pages: 3.96 against 1.31 us per insert for the same engine
 * first and second). fn returns 0 or -1; so does this (also when the
 * child dies). The child's stdout is flushed before it exits. */
int bench_in_child(int (*fn)(void *ctx, void *out), void *ctx, void *out, size_t out_len);

/* Output files of --out DIR. bench_open_out: DIR/name for writing, NULL
 * (with the reason on stderr) if it cannot be made. bench_gp_open: the
 * gnuplot script DIR/name.gp, begun with what every plot shares (a PNG
 * terminal of w x h, comma-separated data) and, with one_png, the output
 * name.png (else the script sets its outputs). bench_gp_run:
 * close the script and run gnuplot on it; a missing or failing gnuplot is
 * reported, not fatal (the CSV is the result). */
FILE *bench_open_out(const char *dir, const char *name);
FILE *bench_gp_open(const char *dir, const char *name, int w, int h, bool one_png);
void bench_gp_run(FILE *gp, const char *dir, const char *name);

/* spate-bench drt ...: DRt-Cluster's benchmarks (tools/bench_drt.c). */
int bench_drt_main(int argc, char **argv);
/* spate-bench rein ...: REIN, MP-REIN and ivx (tools/bench_rein.c). */
int bench_rein_main(int argc, char **argv);

#endif
