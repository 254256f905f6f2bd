/* counters.c - the JSON line printed on SIGUSR1, every stats_interval and
 * at exit. Keys are the counter names, so scripts can parse it with any
 * JSON reader and compare runs. */
#include <inttypes.h>

#include "counters.h"

struct spated_counters spated_cnt;

static void print_err_map(FILE *f, const char *key, const uint64_t *v)
{
	int first = 1;

	fprintf(f, ",\"%s\":{", key);
	for (int i = 0; i < SPATE_E__COUNT; i++) {
		if (v[i] == 0)
			continue;
		fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",", spate_err_name(i), v[i]);
		first = 0;
	}
	fputc('}', f);
}

void spated_counters_print(FILE *f, const struct spated_counters *c, double uptime_s)
{
	fprintf(f, "{\"spated\":\"counters\",\"uptime_s\":%.3f", uptime_s);
#define SPATED_COUNTER_PRINT(name) fprintf(f, ",\"" #name "\":%" PRIu64, c->name);
	SPATED_FOREACH_COUNTER(SPATED_COUNTER_PRINT)
#undef SPATED_COUNTER_PRINT
	print_err_map(f, "hdr_err", c->hdr_err);
	print_err_map(f, "msg_err", c->msg_err);
	fputs("}\n", f);
	fflush(f);
}
