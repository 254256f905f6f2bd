/* counters.c - per-lcore counter blocks, their sum, and the JSON line
 * printed on SIGUSR1, every stats_interval and at exit. Keys are the
 * counter names, so scripts can parse it with any JSON reader and compare
 * runs. */
#include <inttypes.h>
#include <string.h>

#include "infra/counters.h"
#include "util/spate_release.h"

struct spated_counters_slot spated_cnt_slots[SPATED_COUNTER_SLOTS];
static struct spated_counters spare;
__thread struct spated_counters *spated_cnt_self = &spare;

void spated_counters_bind(unsigned int lcore_id)
{
	spated_cnt_self = lcore_id < SPATED_COUNTER_SLOTS ? &spated_cnt_slots[lcore_id].c : &spare;
}

static void add_into(struct spated_counters *out, const struct spated_counters *c)
{
	/* The struct is nothing but uint64_t counters. */
	const uint64_t *src = (const uint64_t *)c;
	uint64_t *dst = (uint64_t *)out;

	for (size_t i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		dst[i] += src[i];
}

void spated_counters_sum(struct spated_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < SPATED_COUNTER_SLOTS; i++)
		add_into(out, &spated_cnt_slots[i].c);
	add_into(out, &spare);
}

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

/* The non-zero scalar counters of one lcore, as one JSON object. */
static void print_lcore(FILE *f, const struct spated_counters *c)
{
	const char *sep = "";

	fputc('{', f);
/* clang-format off */
#define SPATED_COUNTER_NZ(name)                                              \
	if (c->name != 0) {                                                  \
		fprintf(f, "%s\"" #name "\":%" PRIu64, sep, c->name);        \
		sep = ",";                                                   \
	}
	/* clang-format on */
	SPATED_FOREACH_COUNTER(SPATED_COUNTER_NZ)
#undef SPATED_COUNTER_NZ
	fputc('}', f);
}

static int is_zero(const struct spated_counters *c)
{
	const uint64_t *v = (const uint64_t *)c;

	for (size_t i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		if (v[i] != 0)
			return 0;
	return 1;
}

void spated_counters_print(FILE *f, double uptime_s, void (*extra)(FILE *f))
{
	struct spated_counters sum;
	const char *sep = "";

	spated_counters_sum(&sum);
	fprintf(f, "{\"spated\":\"counters\",\"version\":\"%s\",\"uptime_s\":%.3f", SPATE_RELEASE,
		uptime_s);
#define SPATED_COUNTER_PRINT(name) fprintf(f, ",\"" #name "\":%" PRIu64, sum.name);
	SPATED_FOREACH_COUNTER(SPATED_COUNTER_PRINT)
#undef SPATED_COUNTER_PRINT
	print_err_map(f, "hdr_err", sum.hdr_err);
	print_err_map(f, "msg_err", sum.msg_err);
	if (extra != NULL)
		extra(f);
	fputs(",\"lcores\":{", f);
	for (int i = 0; i < SPATED_COUNTER_SLOTS; i++) {
		if (is_zero(&spated_cnt_slots[i].c))
			continue;
		fprintf(f, "%s\"%d\":", sep, i);
		print_lcore(f, &spated_cnt_slots[i].c);
		sep = ",";
	}
	fputs("}}\n", f);
	fflush(f);
}
