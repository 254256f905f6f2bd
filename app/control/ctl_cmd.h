/* ctl_cmd.h - spatectl's commands, registered by the module that owns
 * them (as VPP's and grout's CLI commands are): each a path of words
 * ("show cluster"), its argument count, usage and help line, a handler
 * and where it runs. control.c parses a request against the registry
 * and `help` lists it; it names no command but `help`.
 *
 * A module registers from a constructor, in its own file:
 *
 *	static struct ctl_cmd show_cluster_cmd = { .path = "show cluster", ... };
 *	CTL_COMMAND(show_cluster_cmd)
 *
 * `help` lists the commands by rank (CTL_RANK_*: the order spatectl has
 * always printed, independent of the link order). */
#ifndef SPATED_CTL_CMD_H
#define SPATED_CTL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>

#include "control/control.h"
#include "control/ctl_out.h"

#define CTL_REQ_LINE_MAX 1024
#define CTL_ARGS_MAX 16

struct ctl_cmd;

/* One request: its words after the command's own, and what it acts on. */
struct ctl_req {
	char line[CTL_REQ_LINE_MAX];
	int argc;
	char *argv[CTL_ARGS_MAX];
	const struct ctl_cmd *cmd;
	const struct control_target *t;
	bool json;
	/* the answer */
	int status; /* 0 ok, -1 error (message in out) */
	char *out;
	size_t out_len;
};

/* Prints the answer with o, or writes the reason in err and returns -1
 * (the error replaces whatever was half printed). */
typedef int (*ctl_cmd_fn)(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen);

struct ctl_cmd {
	const char *path; /* "show stats": the words that name it */
	int min_args, max_args;
	const char *usage;
	const char *help;
	ctl_cmd_fn fn;
	bool on_dp;      /* runs on the data-plane lcore, else on the control thread */
	bool clustering; /* needs the cluster stage's matcher: not on a match host */
	/* Run on the control thread after a success (`set` remembers the
	 * value for `save`); NULL: nothing. */
	void (*after)(struct ctl_req *r);
	int rank; /* CTL_RANK_*: its place in `help` */
	struct ctl_cmd *next;
};

/* `help`'s order: who prints where. */
enum {
	CTL_RANK_STATS = 10,
	CTL_RANK_CATEGORIES = 20,
	CTL_RANK_LCORES = 30,
	CTL_RANK_PLACEMENT = 40,
	CTL_RANK_CLUSTER = 50,
	CTL_RANK_CONFIG = 60,
	CTL_RANK_VERSION = 70,
	CTL_RANK_SUBS = 80,
	CTL_RANK_PARAMS = 90,
	CTL_RANK_LATENCY = 100,
	CTL_RANK_GET = 110,
	CTL_RANK_SET = 120,
	CTL_RANK_REBALANCE = 130,
	CTL_RANK_JOURNAL = 140,
	CTL_RANK_DEBUG = 150,
	CTL_RANK_SAVE = 160,
	CTL_RANK_HELP = 170,
};

/* Add c in rank order. 0, or -1 when its path is taken (or it has no
 * path, usage or handler): the first one stays. */
int ctl_cmd_register(struct ctl_cmd *c);
/* The command whose path starts words[0..n), and how many words the path
 * has; NULL if none. */
const struct ctl_cmd *ctl_cmd_match(char *const *words, int n, int *path_words);
/* The registered commands in rank order: first, then ->next. */
const struct ctl_cmd *ctl_cmd_first(void);

/* A duplicate is a bug of the build: stop before main. */
#define CTL_COMMAND(c)                                                                     \
	RTE_INIT(ctl_cmd_register_##c)                                                     \
	{                                                                                  \
		if (ctl_cmd_register(&c) != 0) {                                           \
			fprintf(stderr, "spated: control command '%s' registered twice\n", \
				(c).path);                                                 \
			abort();                                                           \
		}                                                                          \
	}

#endif
