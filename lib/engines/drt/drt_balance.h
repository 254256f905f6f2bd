/* drt_balance.h - DRt-Cluster's load model and migration plan, as a pure
 * function over arrays so it can be tested and reused by the lcore and
 * host balancers of later stages.
 *
 *   Load(c) = t_num(c)*size(c) + C_ins*n_ins(c) + C_del*n_del(c)     (7)
 *   w overloaded  <=>  L(w) > (1+sigma) * TotalLoad/m                (8)
 *   moves off each overloaded w, the most loaded first, in decreasing DiviPara(c) =
 *       (Load(c)/size(c)) * (CD(c)+eps)/(CS(c)+eps)                  (9)
 * each to the worker most correlated with c that stays under the bound
 * (the least loaded one that does when none is correlated), until w is
 * under the bound. Constants and the exact forms are reconstructions
 * (../shared/design/algorithms.md).
 */
#ifndef DRT_BALANCE_H
#define DRT_BALANCE_H

#include <stddef.h>
#include <stdint.h>

struct drt_balance_cat {
	double load; /* formula (7) over the last period */
	uint32_t size;
	uint32_t worker;
	double cs, cd; /* correlation with same-worker / other-worker categories */
};

struct drt_move {
	uint32_t cat; /* index into the input array */
	uint32_t from, to;
};

/* Plan moves for n categories over m workers. cor_to_worker(i, w, ctx) is
 * the correlation of category i with the categories on worker w (co-match
 * counts: >= 0; NULL: 0 for all). Writes at
 * most max_moves moves and returns their count; cats[].worker is updated
 * as the moves are planned. */
size_t drt_balance_plan(struct drt_balance_cat *cats, size_t n, uint32_t m, double sigma,
			double (*cor_to_worker)(size_t i, uint32_t w, void *ctx), void *ctx,
			struct drt_move *moves, size_t max_moves);

/* Load of each worker (array of m) from the categories. */
void drt_balance_worker_load(const struct drt_balance_cat *cats, size_t n, uint32_t m,
			     double *load);

#endif
