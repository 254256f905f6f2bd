/* drt_balance.c - formulas (7)-(9) of DRt-Cluster (see drt_balance.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "engines/drt/drt_balance.h"

#define DIVI_EPS 1e-9

void drt_balance_worker_load(const struct drt_balance_cat *cats, size_t n, uint32_t m, double *load)
{
	for (uint32_t w = 0; w < m; w++)
		load[w] = 0;
	for (size_t i = 0; i < n; i++)
		if (cats[i].worker < m)
			load[cats[i].worker] += cats[i].load;
}

static double divi_para(const struct drt_balance_cat *c)
{
	double per_sub = c->size ? c->load / c->size : c->load;
	return per_sub * (c->cd + DIVI_EPS) / (c->cs + DIVI_EPS);
}

struct ranked {
	size_t i;
	double key;
};

static int cmp_ranked_desc(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i); /* stable, deterministic */
}

size_t drt_balance_plan(struct drt_balance_cat *cats, size_t n, uint32_t m, double sigma,
			double (*cor_to_worker)(size_t i, uint32_t w, void *ctx), void *ctx,
			struct drt_move *moves, size_t max_moves)
{
	size_t n_moves = 0;

	if (m < 2 || n == 0)
		return 0;
	double *load = malloc(m * sizeof(*load));
	struct ranked *order = malloc(n * sizeof(*order));
	bool *done = calloc(m, sizeof(*done));
	if (load == NULL || order == NULL || done == NULL)
		goto out;
	drt_balance_worker_load(cats, n, m, load);
	double total = 0;
	for (uint32_t w = 0; w < m; w++)
		total += load[w];
	double bound = (1 + sigma) * total / m;

	/* the paper's order: the most loaded worker first (moves only go to
	 * workers that stay under the bound, so none becomes overloaded);
	 * each pass takes a worker not done yet, so there are at most m */
	while (n_moves < max_moves) {
		uint32_t w = m;
		for (uint32_t x = 0; x < m; x++)
			if (load[x] > bound && !done[x] && (w == m || load[x] > load[w]))
				w = x;
		if (w == m)
			break;
		done[w] = true;
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (cats[i].worker == w && cats[i].load > 0)
				order[k++] = (struct ranked){ i, divi_para(&cats[i]) };
		qsort(order, k, sizeof(*order), cmp_ranked_desc);
		for (size_t r = 0; r < k && load[w] > bound && n_moves < max_moves; r++) {
			size_t i = order[r].i;
			double l = cats[i].load;
			uint32_t best = w;
			double best_cor = -1, best_load = 0;
			for (uint32_t t = 0; t < m; t++) {
				if (t == w || load[t] + l > bound)
					continue;
				double cor = cor_to_worker ? cor_to_worker(i, t, ctx) : 0;
				/* most correlated; ties to the least loaded */
				if (cor > best_cor || (cor == best_cor && load[t] < best_load)) {
					best = t;
					best_cor = cor;
					best_load = load[t];
				}
			}
			if (best == w)
				continue; /* nowhere to put it under the bound */
			load[w] -= l;
			load[best] += l;
			cats[i].worker = best;
			moves[n_moves++] = (struct drt_move){ (uint32_t)i, w, best };
		}
	}
out:
	free(load);
	free(order);
	free(done);
	return n_moves;
}
