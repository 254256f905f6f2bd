/* bench_common.c - engine specs, the clock and the output files for
 * spate-bench's modes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

double bench_sys_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

FILE *bench_open_out(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		perror(path);
	return f;
}

FILE *bench_gp_open(const char *dir, const char *name, int w, int h, bool one_png)
{
	char file[256];

	snprintf(file, sizeof(file), "%s.gp", name);
	FILE *f = bench_open_out(dir, file);
	if (f == NULL)
		return NULL;
	fprintf(f, "set terminal png size %d,%d noenhanced\nset datafile separator ','\n", w, h);
	if (one_png)
		fprintf(f, "set output '%s.png'\n", name);
	return f;
}

void bench_gp_run(FILE *gp, const char *dir, const char *name)
{
	char cmd[8192];

	fclose(gp);
	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		fprintf(stderr, "spate-bench: gnuplot not installed, no PNG for %s\n", name);
		return;
	}
	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot '%s.gp'", dir, name);
	if (system(cmd) != 0)
		fprintf(stderr, "spate-bench: gnuplot failed on %s/%s.gp\n", dir, name);
}

int bench_in_child(int (*fn)(void *ctx, void *out), void *ctx, void *out, size_t out_len)
{
	int fd[2];

	fflush(NULL); /* nothing buffered is written twice */
	if (pipe(fd) != 0) {
		perror("spate-bench: pipe");
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("spate-bench: fork");
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		int rc = fn(ctx, out);
		fflush(NULL);
		if (rc == 0 && write(fd[1], out, out_len) != (ssize_t)out_len)
			rc = -1;
		_exit(rc == 0 ? 0 : 1);
	}
	close(fd[1]);
	size_t got = 0;
	while (got < out_len) {
		ssize_t n = read(fd[0], (char *)out + got, out_len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got != out_len || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (WIFSIGNALED(st))
			fprintf(stderr, "spate-bench: run died of signal %d\n", WTERMSIG(st));
		return -1;
	}
	return 0;
}
