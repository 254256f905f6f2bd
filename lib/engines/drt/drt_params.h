/* drt_params.h - every parameter of the DRt-Cluster engine, in one struct
 * with one table of names, ranges, defaults and help. The config loader
 * and the run-time setter (spatectl, later) both go through
 * drt_params_set(), so a value is validated the same way wherever it
 * comes from.
 */
#ifndef DRT_PARAMS_H
#define DRT_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "conf/spate_param.h"

enum drt_variant {
	DRT_SIM_NONFRE = 0, /* KeySim without frequencies, no merging */
	DRT_SIM_FRE = 1,    /* KeySim with frequencies, no merging */
	DRT_SIM_FRE_CO = 2, /* with frequencies and correlation-driven merging */
};

struct drt_params {
	double alpha;          /* Sim = alpha*KeySim + (1-alpha)*SpatialSim */
	double new_th;         /* NewTh: below it a new category is made */
	uint32_t cmax;         /* CMaxNumTh: more categories than this -> merge */
	double merge_th;       /* 'merge': MergeJudgePara below it -> cross-worker merge */
	uint32_t lambda;       /* events per load period */
	double sigma;          /* overload tolerance of formula (8) */
	double route_cell;     /* degrees, the routing grid interval (paper: 5) */
	uint32_t workers;      /* matching workers the categories are spread over */
	uint32_t variant;      /* enum drt_variant */
	double c_ins, c_del;   /* load constants of formula (7) */
	double cat_cell;       /* degrees, the grid inside a category (paper: 2) */
	uint32_t merge_each;   /* 1: a category with MergeJudgePara below
			     * merge_th merges across workers even when the
			     * largest is not below it (a reading of the
			     * paper; 0: its text, the largest decides) */
	uint32_t merge_finite; /* 1: categories with CD = 0 (no co-match on
			     * another worker) are left out when the largest
			     * MergeJudgePara is sought (another reading of
			     * the text: their value is not a ratio) */
	/* Size awareness (not in the paper, docs/algorithms.md): */
	double cat_cap;     /* no merge or insert grows a category past this
			     * fraction of a worker's share of the
			     * subscriptions (0 = no cap) */
	double place_slack; /* a new category goes to the least-filled worker
			     * when the most similar category's worker holds
			     * more than (1 + place_slack) x the mean */
	uint32_t rare_kw;   /* a subscription whose routing keyword fewer than
			     * this many subscriptions carry is filed by it
			     * alone (one key, not one per cell; 0 = never) */
};

/* The rows (spate_param.h), ended by a NULL key: names, types, ranges,
 * defaults and help; the "spate.drt" group and `spatectl set drt.*`. */
extern const struct spate_param drt_param_rows[];

void drt_params_default(struct drt_params *p);
/* Set one parameter by name from text. 0, or -1 with a message naming the
 * allowed range in err. */
int drt_params_set(struct drt_params *p, const char *name, const char *value, char *err,
		   size_t errlen);
/* Print one parameter's value into buf; -1 if the name is unknown. */
int drt_params_get(const struct drt_params *p, const char *name, char *buf, size_t len);
/* Number of parameters and the name of the i-th (for listing). */
size_t drt_params_count(void);
const char *drt_params_name(size_t i);
const char *drt_params_help(size_t i);

#endif
