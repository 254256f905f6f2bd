/* drt_params.c - the table behind drt_params.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/drt/drt_params.h"
#include "proto/spate_types.h"

enum param_type { P_DOUBLE, P_U32, P_VARIANT };

struct param {
	const char *name;
	enum param_type type;
	double min, max, def;
	size_t offset;
	const char *help;
};

#define OFF(f) offsetof(struct drt_params, f)

static const char *const variant_names[] = { "nonfre", "fre", "freco" };

static const struct param params[] = {
	{ "alpha", P_DOUBLE, 0, 1, 0.2, OFF(alpha),
	  "weight of KeySim in Sim (paper: 0.5; 0.2 measured faster)" },
	{ "new_th", P_DOUBLE, 0, 1, 0.5, OFF(new_th),
	  "NewTh: best Sim below it opens a new category (paper: 0.5)" },
	{ "cmax", P_U32, 1, 1000000, 256, OFF(cmax),
	  "CMaxNumTh: more categories than this triggers a merge" },
	{ "merge_th", P_DOUBLE, 0, 1e9, 1, OFF(merge_th),
	  "'merge': MergeJudgePara below it makes a cross-worker merge (paper: 1)" },
	{ "merge_each", P_U32, 0, 1, 0, OFF(merge_each),
	  "1: any category whose MergeJudgePara is below merge_th merges across workers, the least "
	  "first; 0: only when the largest is (the paper's text)" },
	{ "merge_finite", P_U32, 0, 1, 0, OFF(merge_finite),
	  "1: the largest finite MergeJudgePara decides (categories with CD = 0 left out); 0: CD = "
	  "0 counts as infinite" },
	{ "lambda", P_U32, 1, 1000000000, 50000, OFF(lambda),
	  "events per load period (paper: 50000)" },
	{ "sigma", P_DOUBLE, 0, 10, 0.2, OFF(sigma), "overload tolerance of formula (8)" },
	{ "route_cell", P_DOUBLE, 0.01, 90, 0.5, OFF(route_cell),
	  "routing grid interval, degrees (paper: 5; 0.5 measured faster)" },
	{ "cat_cell", P_DOUBLE, 0.01, 90, 0.5, OFF(cat_cell),
	  "grid interval inside a category, degrees (paper: 2; 0.5 measured faster)" },
	{ "workers", P_U32, 1, 1024, 1, OFF(workers),
	  "matching workers categories are spread over" },
	{ "variant", P_VARIANT, 0, 2, DRT_SIM_FRE_CO, OFF(variant),
	  "nonfre, fre or freco (the paper's ablation)" },
	{ "c_ins", P_DOUBLE, 0, 1e9, 0, OFF(c_ins),
	  "load of one insert in formula (7) (paper: 0, the matching term alone is the load)" },
	{ "c_del", P_DOUBLE, 0, 1e9, 0, OFF(c_del),
	  "load of one delete in formula (7) (paper: 0, the matching term alone is the load)" },
	{ "cat_cap", P_DOUBLE, 0, 1, 0.1, OFF(cat_cap),
	  "largest category a merge or insert makes, fraction of a worker's share of the "
	  "subscriptions (0 = no cap; one worker: none; not in the paper)" },
	{ "place_slack", P_DOUBLE, 0, 1e6, 0.1, OFF(place_slack),
	  "a new category goes to the least-filled worker when the most similar one's holds over "
	  "(1 + this) x the mean (paper: unbounded)" },
	{ "rare_kw", P_U32, 0, 1000000, 8, OFF(rare_kw),
	  "a subscription whose rarest keyword fewer than this many carry is filed by that keyword "
	  "alone, not per cell (0 = never; not in the paper)" },
};
#define N_PARAMS (sizeof(params) / sizeof(params[0]))

static const struct param *find(const char *name)
{
	for (size_t i = 0; i < N_PARAMS; i++)
		if (strcmp(params[i].name, name) == 0)
			return &params[i];
	return NULL;
}

static void store(struct drt_params *p, const struct param *d, double v)
{
	char *at = (char *)p + d->offset;

	if (d->type == P_DOUBLE)
		*(double *)at = v;
	else
		*(uint32_t *)at = (uint32_t)v;
}

void drt_params_default(struct drt_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < N_PARAMS; i++)
		store(p, &params[i], params[i].def);
}

int drt_params_set(struct drt_params *p, const char *name, const char *value, char *err,
		   size_t errlen)
{
	const struct param *d = find(name);
	char *end;
	double v;

	if (d == NULL) {
		snprintf(err, errlen, "unknown drt parameter '%s'", name);
		return -1;
	}
	if (d->type == P_VARIANT) {
		for (size_t i = 0; i < 3; i++)
			if (strcmp(value, variant_names[i]) == 0) {
				store(p, d, (double)i);
				return 0;
			}
		snprintf(err, errlen, "%s: '%s' is not one of nonfre, fre, freco", name, value);
		return -1;
	}
	errno = 0;
	v = strtod(value, &end);
	if (end == value || *end != '\0' || errno == ERANGE || !isfinite(v)) {
		snprintf(err, errlen, "%s: '%s' is not a number", name, value);
		return -1;
	}
	if (d->type == P_U32 && v != floor(v)) {
		snprintf(err, errlen, "%s: '%s' is not an integer", name, value);
		return -1;
	}
	if (v < d->min || v > d->max) {
		snprintf(err, errlen, "%s = %s is out of range [%g, %g]", name, value, d->min,
			 d->max);
		return -1;
	}
	store(p, d, v);
	return 0;
}

int drt_params_get(const struct drt_params *p, const char *name, char *buf, size_t len)
{
	const struct param *d = find(name);
	const char *at;

	if (d == NULL)
		return -1;
	at = (const char *)p + d->offset;
	if (d->type == P_DOUBLE)
		spate_format_double(buf, len, *(const double *)at);
	else if (d->type == P_U32)
		snprintf(buf, len, "%u", *(const uint32_t *)at);
	else
		snprintf(buf, len, "%s", variant_names[*(const uint32_t *)at % 3]);
	return 0;
}

size_t drt_params_count(void)
{
	return N_PARAMS;
}

const char *drt_params_name(size_t i)
{
	return i < N_PARAMS ? params[i].name : NULL;
}

const char *drt_params_help(size_t i)
{
	return i < N_PARAMS ? params[i].help : NULL;
}
