/* opt.c - command-line numbers (opt.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "util/spate_release.h"

int opt_u64(const char *prog, const char *name, const char *s, uint64_t min, uint64_t max,
	    uint64_t *out)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno || v < min || v > max) {
		fprintf(stderr,
			"%s: --%s: bad value '%s' (want an integer in [%" PRIu64 ", %" PRIu64
			"])\n",
			prog, name, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int opt_int(const char *prog, const char *name, const char *s, int min, int max, int *out)
{
	uint64_t v;

	if (min < 0) {
		char *end;
		errno = 0;
		long l = strtol(s, &end, 10);
		if (*s == '\0' || *end != '\0' || errno || l < min || l > max) {
			fprintf(stderr, "%s: --%s: bad value '%s' (want an integer in [%d, %d])\n",
				prog, name, s, min, max);
			return -1;
		}
		*out = (int)l;
		return 0;
	}
	if (opt_u64(prog, name, s, (uint64_t)min, (uint64_t)max, &v) != 0)
		return -1;
	*out = (int)v;
	return 0;
}

int opt_double(const char *prog, const char *name, const char *s, double min, double max,
	       double *out)
{
	char *end;

	errno = 0;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno || !isfinite(v) || v < min || v > max) {
		fprintf(stderr, "%s: --%s: bad value '%s' (want a number in [%g, %g])\n", prog,
			name, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int opt_onoff(const char *prog, const char *name, const char *s, bool *out)
{
	if (strcmp(s, "on") != 0 && strcmp(s, "off") != 0) {
		fprintf(stderr, "%s: --%s: bad value '%s' (want on or off)\n", prog, name, s);
		return -1;
	}
	*out = strcmp(s, "on") == 0;
	return 0;
}

int opt_other(const char *prog, int c, void (*usage)(FILE *f))
{
	if (c == 'V')
		return spate_release_print(prog);
	usage(c == 'h' ? stdout : stderr);
	return c == 'h' ? 0 : 2;
}
