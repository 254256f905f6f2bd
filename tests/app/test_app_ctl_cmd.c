/* test_app_ctl_cmd.c - the registry of spatectl's commands
 * (app/control/ctl_cmd.h): every module's commands are there, in help's
 * order, `help` prints each of them exactly as spatectl always has, the
 * man page, the bash completion's list and docs/operations.md name each
 * of them, and a second command on a taken path is refused. No EAL: the registry is
 * filled by constructors and `help` only prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "control/ctl_cmd.h"

/* spatectl's commands and help lines, byte for byte, in help's order
 * (tests/e2e/spatectl.sh, the man page and the completion list them). */
static const char *const help_text =
	"show stats: counters per lcore and per reason, journal figures\n"
	"show categories [--top N] [--worker W] [--page P]: the engine's categories, "
	"largest first, N a page (default 50)\n"
	"show lcores: lcores, their roles and polls\n"
	"show placement: categories and subscriptions per worker\n"
	"show cluster: multi-host: this host, every peer (role, state, epoch, categories) "
	"and its channel (RTT, retransmits)\n"
	"show config: the configuration in force, settings included\n"
	"show version: spated's and DPDK's versions, uptime, subscriptions, clients\n"
	"show subs --count: how many subscriptions, and the quotas\n"
	"show params: every setting get and set name, with the value running "
	"(docs/parameters.md)\n"
	"show latency [--window]: RX to matched and RX to transmit: count, p50, p90, p99, "
	"p99.9, max, mean (us), since start or the last --window\n"
	"get NAME: one setting's value\n"
	"set NAME VALUE: change a setting now (validated; the value in force is printed "
	"back)\n"
	"rebalance now: end the load period: balance the workers now\n"
	"journal compact: rewrite the journal as a snapshot now\n"
	"debug stall WORKER MS: test hook: the matching worker stops (no RCU quiescent "
	"state) for MS ms; needs spated.debug_hooks\n"
	"save: write the settings changed by `set` to control.overrides, read at the next "
	"start\n"
	"help: this list\n";

static const char *const paths[] = {
	"show stats",    "show categories", "show lcores",  "show placement",
	"show cluster",  "show config",     "show version", "show subs",
	"show params",   "show latency",    "get",          "set",
	"rebalance now", "journal compact", "debug stall",  "save",
	"help",
};
#define N_PATHS (sizeof(paths) / sizeof(paths[0]))

/* What `help` prints (text, not JSON), malloc'd. */
static char *help(void)
{
	char *words[] = { "help" }, *out = NULL, err[256] = "";
	size_t len = 0;
	int k = -1;
	const struct ctl_cmd *c = ctl_cmd_match(words, 1, &k);
	struct ctl_req r = { .cmd = c };
	struct ctl_out o;
	FILE *f = open_memstream(&out, &len);

	CHECK(c != NULL && k == 1 && f != NULL);
	if (c == NULL || f == NULL)
		exit(1);
	ctl_out_init(&o, f, false);
	CHECK_EQ_INT(c->fn(&r, &o, err, sizeof(err)), 0);
	ctl_out_finish(&o);
	fclose(f);
	return out;
}

/* Every registered command has its own line in `help`, and no other. */
static void check_help_lists_registry(void)
{
	char *h = help();
	size_t n = 0, lines = 0;

	for (const struct ctl_cmd *c = ctl_cmd_first(); c != NULL; c = c->next, n++) {
		char line[512];
		snprintf(line, sizeof(line), "%s: %s\n", c->usage, c->help);
		char *at = strstr(h, line);
		CHECK(at != NULL && (at == h || at[-1] == '\n'));
	}
	for (const char *p = h; *p != '\0'; p++)
		lines += *p == '\n';
	CHECK_EQ_INT((int)lines, (int)n);
	free(h);
}

/* A file of the source tree, whole, malloc'd; exits 2 if unreadable. */
static char *slurp(const char *rel)
{
	char path[512], *buf = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/%s", SPATE_SRC, rel);
	FILE *f = fopen(path, "r"), *m = open_memstream(&buf, &len);
	if (f == NULL || m == NULL) {
		fprintf(stderr, "%s: cannot read\n", path);
		exit(2);
	}
	for (int ch; (ch = getc(f)) != EOF;)
		putc(ch, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* Every registered command is in the man page (*show stats*), in the
 * completion's list for when no daemon answers, and in the table of
 * docs/operations.md (`show stats`). */
static void check_docs_name_registry(void)
{
	char *man = slurp("man/spatectl.8.scd");
	char *comp = slurp("tools/spatectl.bash-completion");
	char *ops = slurp("docs/operations.md");
	char *list = strstr(comp, "usages=$'");

	CHECK(list != NULL);
	if (list == NULL)
		exit(1);
	list += strlen("usages=$");
	*strchr(list + 1, '\'') = '\0';
	for (const struct ctl_cmd *c = ctl_cmd_first(); c != NULL; c = c->next) {
		char want[160];
		snprintf(want, sizeof(want), "*%s", c->path);
		const char *at = man;
		while ((at = strstr(at, want)) != NULL && at[strlen(want)] != '*' &&
		       at[strlen(want)] != ' ')
			at++;
		CHECK(at != NULL);
		/* the list is 'a\nb\n...\nz': each entry ends at a backslash or the quote */
		at = list;
		size_t n = strlen(c->path);
		while ((at = strstr(at + 1, c->path)) != NULL &&
		       !((at[-1] == '\'' || (at[-1] == 'n' && at[-2] == '\\')) &&
			 (at[n] == '\\' || at[n] == '\0')))
			;
		CHECK(at != NULL);
		snprintf(want, sizeof(want), "`%s`", c->usage);
		CHECK(strstr(ops, want) != NULL);
		if (at == NULL || strstr(ops, want) == NULL)
			fprintf(stderr, "not documented everywhere: %s\n", c->path);
	}
	free(man);
	free(comp);
	free(ops);
}

static int cmd_nothing(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	(void)o;
	(void)err;
	(void)errlen;
	return 0;
}

int main(void)
{
	/* every module registered its commands, in help's order */
	size_t n = 0;
	for (const struct ctl_cmd *c = ctl_cmd_first(); c != NULL; c = c->next, n++)
		CHECK(n < N_PATHS && strcmp(c->path, paths[n]) == 0);
	CHECK_EQ_INT((int)n, (int)N_PATHS);

	/* help: byte for byte what spatectl printed before the registry */
	char *h = help();
	CHECK(strcmp(h, help_text) == 0);
	if (strcmp(h, help_text) != 0)
		fprintf(stderr, "help printed:\n%s", h);
	free(h);
	check_help_lists_registry();
	check_docs_name_registry();

	/* a path is matched word by word, its arguments left over */
	char *w1[] = { "show", "categories", "--top", "3" };
	char *w2[] = { "show" };
	char *w3[] = { "show", "stat" };
	int k = -1;
	const struct ctl_cmd *c = ctl_cmd_match(w1, 4, &k);
	CHECK(c != NULL && strcmp(c->path, "show categories") == 0 && k == 2);
	CHECK(ctl_cmd_match(w2, 1, &k) == NULL);
	CHECK(ctl_cmd_match(w3, 2, &k) == NULL);

	/* a taken path is refused, however spaced; the first one stays */
	static struct ctl_cmd dup = { .path = "show stats",
				      .usage = "show stats",
				      .help = "a second one",
				      .fn = cmd_nothing };
	static struct ctl_cmd dup_spaced = { .path = " show  stats",
					     .usage = "show stats",
					     .help = "a second one",
					     .fn = cmd_nothing };
	static struct ctl_cmd no_fn = { .path = "show nothing",
					.usage = "show nothing",
					.help = "no handler" };
	CHECK_EQ_INT(ctl_cmd_register(&dup), -1);
	CHECK_EQ_INT(ctl_cmd_register(&dup_spaced), -1);
	CHECK_EQ_INT(ctl_cmd_register(&no_fn), -1);
	/* a path of spaces only, or none, names no command */
	static struct ctl_cmd blank = {
		.path = "   ", .usage = "   ", .help = "no name", .fn = cmd_nothing
	};
	static struct ctl_cmd empty = {
		.path = "", .usage = "", .help = "no name", .fn = cmd_nothing
	};
	static struct ctl_cmd no_usage = { .path = "show nousage",
					   .help = "no usage",
					   .fn = cmd_nothing };
	CHECK_EQ_INT(ctl_cmd_register(&blank), -1);
	CHECK_EQ_INT(ctl_cmd_register(&empty), -1);
	CHECK_EQ_INT(ctl_cmd_register(&no_usage), -1);
	char *w4[] = { "show", "stats" };
	c = ctl_cmd_match(w4, 2, &k);
	CHECK(c != NULL &&
	      strcmp(c->help, "counters per lcore and per reason, journal figures") == 0);

	/* a new one takes its rank's place, and help lists it there */
	static struct ctl_cmd extra = { .path = "show extra",
					.usage = "show extra",
					.help = "one more",
					.fn = cmd_nothing,
					.rank = CTL_RANK_STATS };
	CHECK_EQ_INT(ctl_cmd_register(&extra), 0);
	CHECK_EQ_INT(ctl_cmd_register(&extra), -1);
	CHECK(ctl_cmd_first()->next == &extra);
	h = help();
	CHECK(strstr(h, "\nshow extra: one more\nshow categories ") != NULL);
	free(h);
	check_help_lists_registry();
	return check_summary("app_ctl_cmd");
}
