/* test_app_counters_doc.c - docs/counters.md documents every counter of
 * SPATED_FOREACH_COUNTER (the modules' lists spliced in), once, and no
 * counter that does not exist; every row says what it counts. The names
 * come from the compiled X-macro, not from parsing the header, so a
 * counter added in any module's list without a row turns this red.
 * Usage: test_app_counters_doc [docs/counters.md] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "infra/counters.h"

#define NAME_MAX_LEN 64
#define ROWS_MAX 1024

static const char *const counters[] = {
#define SPATED_COUNTER_NAME(name) #name,
	SPATED_FOREACH_COUNTER(SPATED_COUNTER_NAME)
#undef SPATED_COUNTER_NAME
};
#define N_COUNTERS (sizeof(counters) / sizeof(counters[0]))

struct row {
	char name[NAME_MAX_LEN];
	int has_meaning;
};

/* The table's rows: "| `name` | meaning | file |". */
static size_t read_rows(const char *path, struct row *rows)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	size_t n = 0;

	if (f == NULL) {
		fprintf(stderr, "%s: cannot open\n", path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f) != NULL && n < ROWS_MAX) {
		char name[NAME_MAX_LEN], meaning[1024] = "";
		int got = sscanf(line, "| `%63[^`]` | %1023[^|]|", name, meaning);
		if (got < 1)
			continue;
		snprintf(rows[n].name, sizeof(rows[n].name), "%s", name);
		/* an empty cell: %[ matches nothing, got stays 1 */
		rows[n].has_meaning = got == 2 && strspn(meaning, " \t") < strlen(meaning);
		n++;
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : SPATE_SRC "/docs/counters.md";
	static struct row rows[ROWS_MAX];
	size_t n = read_rows(path, rows);

	CHECK(n > 0);
	for (size_t c = 0; c < N_COUNTERS; c++) {
		int found = 0;
		for (size_t r = 0; r < n; r++)
			if (strcmp(rows[r].name, counters[c]) == 0) {
				found++;
				if (!rows[r].has_meaning)
					fprintf(stderr, "%s: %s: no meaning\n", path, counters[c]);
				CHECK(rows[r].has_meaning);
			}
		if (found != 1)
			fprintf(stderr, "%s: counter %s has %d rows, wants 1\n", path, counters[c],
				found);
		CHECK_EQ_INT(found, 1);
	}
	for (size_t r = 0; r < n; r++) {
		int known = 0;
		for (size_t c = 0; c < N_COUNTERS; c++)
			known |= strcmp(rows[r].name, counters[c]) == 0;
		if (!known)
			fprintf(stderr, "%s: row %s is no counter\n", path, rows[r].name);
		CHECK(known);
	}
	return check_summary("app_counters_doc");
}
