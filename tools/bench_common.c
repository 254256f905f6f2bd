/* bench_common.c - engine specs and the clock for spate-bench's modes. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

int bench_apply_spec(char *spec, struct spate_matcher_conf *conf)
{
	char *save = NULL, err[256];
	char *name = strtok_r(spec, ":", &save);

	if (name == NULL || spate_engine_find(name) == NULL) {
		fprintf(stderr, "spate-bench: unknown engine '%s'\n", name ? name : "");
		return -1;
	}
	conf->engine = name;
	for (char *kv = strtok_r(NULL, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
		char *eq = strchr(kv, '=');
		if (eq == NULL) {
			fprintf(stderr, "spate-bench: '%s': want param=value\n", kv);
			return -1;
		}
		*eq = '\0';
		if (drt_params_set(&conf->params.drt, kv, eq + 1, err, sizeof(err)) != 0) {
			fprintf(stderr, "spate-bench: %s\n", err);
			return -1;
		}
		*eq = '=';
	}
	return 0;
}

double bench_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double bench_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
