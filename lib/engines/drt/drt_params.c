/* drt_params.c - the table behind drt_params.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/drt/drt_params.h"
#include "conf/spate_param.h"
#include "proto/spate_types.h"

#define OFF(f) offsetof(struct drt_params, f)

/* The rows: spate_param.h. workers is spated's number of matching
 * workers (spated.lcores.match, or a front's match hosts' lcores);
 * route_cell, cat_cell and workers shape the grids and the pipeline, so
 * they change at the next start only. */
static const char *const variant_names[] = { "nonfre", "fre", "freco", NULL };

const struct spate_param drt_param_rows[] = {
	{ "alpha", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 1, "0.2", OFF(alpha), 0, NULL, NULL, 0,
	  "weight of KeySim in Sim (paper: 0.5; 0.2 measured faster)" },
	{ "new_th", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 1, "0.5", OFF(new_th), 0, NULL, NULL,
	  0, "NewTh: best Sim below it opens a new category (paper: 0.5)" },
	{ "cmax", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 1, 1000000, "256", OFF(cmax), 0, NULL, NULL, 0,
	  "CMaxNumTh: more categories than this triggers a merge" },
	{ "merge_th", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 1e9, "1", OFF(merge_th), 0, NULL,
	  NULL, 0, "'merge': MergeJudgePara below it makes a cross-worker merge (paper: 1)" },
	{ "merge_each", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 0, 1, "0", OFF(merge_each), 0, NULL,
	  NULL, 0,
	  "1: any category whose MergeJudgePara is below merge_th merges across workers, the least "
	  "first; 0: only when the largest is (the paper's text)" },
	{ "merge_finite", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 0, 1, "0", OFF(merge_finite), 0, NULL,
	  NULL, 0,
	  "1: the largest finite MergeJudgePara decides (categories with CD = 0 left out); 0: CD = "
	  "0 counts as infinite" },
	{ "lambda", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 1, 1000000000, "50000", OFF(lambda), 0, NULL,
	  NULL, 0, "events per load period (paper: 50000)" },
	{ "sigma", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 10, "0.2", OFF(sigma), 0, NULL, NULL, 0,
	  "overload tolerance of formula (8)" },
	{ "route_cell", SPATE_PARAM_DOUBLE, SPATE_PARAM_RESTART, 0.01, 90, "0.5", OFF(route_cell),
	  0, NULL, NULL, 0, "routing grid interval, degrees (paper: 5; 0.5 measured faster)" },
	{ "cat_cell", SPATE_PARAM_DOUBLE, SPATE_PARAM_RESTART, 0.01, 90, "0.5", OFF(cat_cell), 0,
	  NULL, NULL, 0,
	  "grid interval inside a category, degrees (paper: 2; 0.5 measured faster)" },
	{ "workers", SPATE_PARAM_U32, SPATE_PARAM_RESTART, 1, 1024, "1", OFF(workers), 0, NULL,
	  NULL, SPATE_PARAM_DERIVED,
	  "matching workers categories are spread over (spated: the workers it runs, "
	  "spated.lcores.match or a front's match hosts' lcores; shown as running)" },
	{ "variant", SPATE_PARAM_ENUM, SPATE_PARAM_LIVE, 0, 2, "freco", OFF(variant), 0,
	  variant_names, NULL, 0, "nonfre, fre or freco (the paper's ablation)" },
	{ "c_ins", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 1e9, "0", OFF(c_ins), 0, NULL, NULL, 0,
	  "load of one insert in formula (7) (paper: 0, the matching term alone is the load)" },
	{ "c_del", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 1e9, "0", OFF(c_del), 0, NULL, NULL, 0,
	  "load of one delete in formula (7) (paper: 0, the matching term alone is the load)" },
	{ "cat_cap", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 1, "0.1", OFF(cat_cap), 0, NULL, NULL,
	  0,
	  "largest category a merge or insert makes, fraction of a worker's share of the "
	  "subscriptions (0 = no cap; one worker: none; not in the paper)" },
	{ "place_slack", SPATE_PARAM_DOUBLE, SPATE_PARAM_LIVE, 0, 1e6, "0.1", OFF(place_slack), 0,
	  NULL, NULL, 0,
	  "a new category goes to the least-filled worker when the most similar one's holds over "
	  "(1 + this) x the mean (paper: unbounded)" },
	{ "rare_kw", SPATE_PARAM_U32, SPATE_PARAM_LIVE, 0, 1000000, "8", OFF(rare_kw), 0, NULL,
	  NULL, 0,
	  "a subscription whose rarest keyword fewer than this many carry is filed by that keyword "
	  "alone, not per cell (0 = never; not in the paper)" },
	{ NULL },
};

/* The rows by bare name ("alpha"), for the library's callers. */
static const struct spate_param_section bare = { "drt", "", 0, true, drt_param_rows };
#define N_PARAMS (sizeof(drt_param_rows) / sizeof(drt_param_rows[0]) - 1)

static struct spate_param_ref find(const char *name)
{
	for (size_t i = 0; i < N_PARAMS; i++)
		if (strcmp(drt_param_rows[i].key, name) == 0)
			return (struct spate_param_ref){ &bare, &drt_param_rows[i] };
	return (struct spate_param_ref){ &bare, NULL };
}

void drt_params_default(struct drt_params *p)
{
	char err[160];

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < N_PARAMS; i++) {
		int rc = spate_param_parse((struct spate_param_ref){ &bare, &drt_param_rows[i] }, p,
					   drt_param_rows[i].def, err, sizeof(err));
		(void)rc; /* the rows' defaults are tested (test_conf) */
	}
}

int drt_params_set(struct drt_params *p, const char *name, const char *value, char *err,
		   size_t errlen)
{
	struct spate_param_ref r = find(name);

	if (r.row == NULL) {
		snprintf(err, errlen, "unknown drt parameter '%s'", name);
		return -1;
	}
	return spate_param_parse(r, p, value, err, errlen);
}

int drt_params_get(const struct drt_params *p, const char *name, char *buf, size_t len)
{
	struct spate_param_ref r = find(name);

	return r.row == NULL ? -1 : spate_param_format(r, p, buf, len);
}

size_t drt_params_count(void)
{
	return N_PARAMS;
}

const char *drt_params_name(size_t i)
{
	return i < N_PARAMS ? drt_param_rows[i].key : NULL;
}

const char *drt_params_help(size_t i)
{
	return i < N_PARAMS ? drt_param_rows[i].help : NULL;
}
