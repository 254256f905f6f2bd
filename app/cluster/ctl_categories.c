/* ctl_categories.c - spatectl's commands on the clustering engine's
 * categories and subscriptions: show categories, show placement, show
 * subs, rebalance now (ctl_cmd.h). Only where the cluster stage runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/ctl_cmd.h"
#include "matcher/spate_matcher.h"

struct cat_list {
	struct spate_category_info *v;
	size_t n, cap;
	bool oom;
};

static void collect_cat(void *ctx, const struct spate_category_info *ci)
{
	struct cat_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct spate_category_info *v = realloc(l->v, cap * sizeof(*v));
		if (v == NULL) {
			l->oom = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *ci;
}

static int by_size(const void *a, const void *b)
{
	const struct spate_category_info *x = a, *y = b;

	if (x->n_subs != y->n_subs)
		return x->n_subs < y->n_subs ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

static int get_cats(struct spate_matcher *m, struct cat_list *l, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	if (spate_matcher_categories(m, collect_cat, l) != 0) {
		snprintf(err, errlen, "engine %s has no categories (engine = \"drt\" has)",
			 spate_matcher_engine_name(m));
		return -1;
	}
	if (l->oom) {
		free(l->v);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* A number argument after a flag: --top N, --worker W, --page P. */
static int flag_value(struct ctl_req *r, const char *flag, long def, long *out, char *err,
		      size_t errlen)
{
	*out = def;
	for (int i = 0; i < r->argc; i++) {
		if (strcmp(r->argv[i], flag) != 0)
			continue;
		char *end;
		if (i + 1 >= r->argc || (*out = strtol(r->argv[i + 1], &end, 10), *end != '\0') ||
		    *out < 0) {
			snprintf(err, errlen, "%s needs a number >= 0", flag);
			return -1;
		}
	}
	return 0;
}

static int cmd_show_categories(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	struct cat_list l;
	long top, worker, page;

	for (int i = 0; i < r->argc; i += 2)
		if (strcmp(r->argv[i], "--top") != 0 && strcmp(r->argv[i], "--worker") != 0 &&
		    strcmp(r->argv[i], "--page") != 0) {
			snprintf(err, errlen, "unknown option '%s' (--top N, --worker W, --page P)",
				 r->argv[i]);
			return -1;
		}
	if (flag_value(r, "--top", 50, &top, err, errlen) ||
	    flag_value(r, "--worker", -1, &worker, err, errlen) ||
	    flag_value(r, "--page", 0, &page, err, errlen) ||
	    get_cats(r->t->matcher, &l, err, errlen))
		return -1;
	qsort(l.v, l.n, sizeof(*l.v), by_size);
	size_t matching = 0, shown = 0, skip = (size_t)(page * top);
	ctl_out_arr(o, "categories");
	for (size_t i = 0; i < l.n; i++) {
		const struct spate_category_info *c = &l.v[i];
		if (worker >= 0 && c->worker != (uint32_t)worker)
			continue;
		if (matching++ < skip || shown >= (size_t)top)
			continue;
		shown++;
		ctl_out_obj(o, NULL);
		ctl_out_u64(o, "id", c->id);
		ctl_out_u64(o, "worker", c->worker);
		ctl_out_u64(o, "subs", c->n_subs);
		ctl_out_dbl(o, "min_lon", c->mbr.min_lon / 1e7);
		ctl_out_dbl(o, "min_lat", c->mbr.min_lat / 1e7);
		ctl_out_dbl(o, "max_lon", c->mbr.max_lon / 1e7);
		ctl_out_dbl(o, "max_lat", c->mbr.max_lat / 1e7);
		ctl_out_u64(o, "events", c->events);
		ctl_out_u64(o, "inserts", c->inserts);
		ctl_out_u64(o, "deletes", c->deletes);
		ctl_out_end(o);
	}
	ctl_out_end(o);
	ctl_out_u64(o, "total", matching);
	ctl_out_u64(o, "page", (uint64_t)page);
	ctl_out_u64(o, "shown", shown);
	free(l.v);
	return 0;
}

static int cmd_show_placement(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	struct cat_list l;
	uint32_t workers = spate_matcher_get_conf(r->t->matcher)->params.drt.workers;

	(void)r;
	if (get_cats(r->t->matcher, &l, err, errlen))
		return -1;
	ctl_out_arr(o, "workers");
	for (uint32_t w = 0; w < workers; w++) {
		uint64_t cats = 0, subs = 0, events = 0;
		for (size_t i = 0; i < l.n; i++)
			if (l.v[i].worker == w) {
				cats++;
				subs += l.v[i].n_subs;
				events += l.v[i].events;
			}
		ctl_out_obj(o, NULL);
		ctl_out_u64(o, "worker", w);
		ctl_out_u64(o, "categories", cats);
		ctl_out_u64(o, "subs", subs);
		ctl_out_u64(o, "events", events);
		ctl_out_end(o);
	}
	ctl_out_end(o);
	free(l.v);
	return 0;
}

static int cmd_show_subs(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	if (r->argc > 0 && strcmp(r->argv[0], "--count") != 0) {
		snprintf(err, errlen, "only 'show subs --count' is supported");
		return -1;
	}
	const struct spate_matcher_conf *mc = spate_matcher_get_conf(r->t->matcher);
	ctl_out_u64(o, "count", spate_matcher_sub_count(r->t->matcher));
	ctl_out_u64(o, "max_subs", mc->max_subs);
	ctl_out_u64(o, "max_subs_per_client", mc->max_subs_per_client);
	return 0;
}

static int cmd_rebalance(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	if (spate_matcher_rebalance(r->t->matcher) != 0) {
		snprintf(err, errlen, "engine %s does not balance (engine = \"drt\" does)",
			 spate_matcher_engine_name(r->t->matcher));
		return -1;
	}
	ctl_out_str(o, "rebalance", "done");
	return 0;
}

static struct ctl_cmd show_categories_cmd = {
	.path = "show categories",
	.max_args = 6,
	.usage = "show categories [--top N] [--worker W] [--page P]",
	.help = "the engine's categories, largest first, N a page (default 50)",
	.fn = cmd_show_categories,
	.on_dp = true,
	.clustering = true,
	.rank = CTL_RANK_CATEGORIES,
};
CTL_COMMAND(show_categories_cmd)

static struct ctl_cmd show_placement_cmd = {
	.path = "show placement",
	.usage = "show placement",
	.help = "categories and subscriptions per worker",
	.fn = cmd_show_placement,
	.on_dp = true,
	.clustering = true,
	.rank = CTL_RANK_PLACEMENT,
};
CTL_COMMAND(show_placement_cmd)

static struct ctl_cmd show_subs_cmd = {
	.path = "show subs",
	.max_args = 1,
	.usage = "show subs --count",
	.help = "how many subscriptions, and the quotas",
	.fn = cmd_show_subs,
	.on_dp = true,
	.clustering = true,
	.rank = CTL_RANK_SUBS,
};
CTL_COMMAND(show_subs_cmd)

static struct ctl_cmd rebalance_cmd = {
	.path = "rebalance now",
	.usage = "rebalance now",
	.help = "end the load period: balance the workers now",
	.fn = cmd_rebalance,
	.on_dp = true,
	.clustering = true,
	.rank = CTL_RANK_REBALANCE,
};
CTL_COMMAND(rebalance_cmd)
