/* test_drt.c - the two halves of DRt-Cluster on their own: the category
 * index (drt_category.h) against a plain list, and the cluster
 * (drt_cluster.h): every category holding a match is routed to, the
 * actions it hands out keep a caller's view consistent, and merges and
 * moves happen when they should. Workloads cover Zipf keywords, tiny and
 * huge rectangles, cell borders and the +-180/+-90 edges. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_track.h"
#include "check.h"
#include "engines/drt/drt_category.h"
#include "engines/drt/drt_cluster.h"
#include "engines/drt/drt_ftab.h"
#include "engines/drt/drt_geo.h"
#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"

#define N_SUBS 600
#define VOCAB 40

static struct spate_sub subs[N_SUBS];
static uint32_t sub_kw[N_SUBS][4];
static struct spate_constraint sub_cons[N_SUBS][2];
static bool live[N_SUBS];

/* Zipf-like: keyword k with weight about 1/(k+1). */
static uint32_t zipf_kw(void)
{
	double u = check_below(1u << 20) / (double)(1u << 20);
	uint32_t k = (uint32_t)exp(u * log(VOCAB + 1.0)) - 1;
	return k < VOCAB ? k : VOCAB - 1;
}

/* A coordinate that often sits on a grid border (multiples of 0.25 and
 * 1, 2, 5 degrees, +-1 unit) or on the world's edge. */
static int32_t edge_coord(int32_t max)
{
	switch (check_below(5)) {
	case 0:
		return check_below(2) ? max : -max;
	case 1:
		return ((int32_t)check_below(9) - 4) * 5 * SPATE_COORD_SCALE +
		       (int32_t)check_below(3) - 1;
	case 2:
		return ((int32_t)check_below(17) - 8) * (SPATE_COORD_SCALE / 4);
	default:
		return (int32_t)((int64_t)check_below(2 * (uint32_t)(max / 1000) + 1) * 1000 - max);
	}
}

static int32_t clampc(int64_t v, int32_t max)
{
	return (int32_t)(v < -max ? -max : v > max ? max : v);
}

static void sort_u32(uint32_t *v, uint16_t *n)
{
	for (uint16_t i = 1; i < *n; i++)
		for (uint16_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint32_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	uint16_t k = 0;
	for (uint16_t i = 0; i < *n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*n = k;
}

/* Make most subs content-only (no keyword, the whole world, a numeric
 * constraint): drt's categories move such subs to an interval index. */
static bool content_heavy;

static void gen_sub(uint32_t i, uint64_t id)
{
	struct spate_sub *s = &subs[i];
	int32_t x = edge_coord(SPATE_LON_MAX), y = edge_coord(SPATE_LAT_MAX);
	int64_t w, h;

	memset(s, 0, sizeof(*s));
	switch (check_below(4)) {
	case 0:
		w = h = 0;
		break; /* a point */
	case 1:
		w = check_below(4) * (SPATE_COORD_SCALE / 4);
		h = check_below(4) * (SPATE_COORD_SCALE / 4);
		break;
	case 2:
		w = (int64_t)check_below(30) * SPATE_COORD_SCALE;
		h = (int64_t)check_below(20) * SPATE_COORD_SCALE;
		break;
	default:
		w = 2LL * SPATE_LON_MAX;
		h = 2LL * SPATE_LAT_MAX;
		break; /* huge */
	}
	s->id = id;
	s->rect = (struct spate_rect){ x, y, clampc(x + w, SPATE_LON_MAX),
				       clampc(y + h, SPATE_LAT_MAX) };
	s->n_kw = (uint16_t)check_below(4);
	for (uint16_t k = 0; k < s->n_kw; k++)
		sub_kw[i][k] = zipf_kw();
	sort_u32(sub_kw[i], &s->n_kw);
	s->kw = sub_kw[i];
	if (check_below(5) == 0) {
		s->n_cons = 1;
		sub_cons[i][0] = (struct spate_constraint){ 1, (uint8_t)(1 + check_below(6)),
							    (double)check_below(3) };
		s->cons = sub_cons[i];
	}
	if (content_heavy && check_below(4) != 0) {
		s->n_kw = 0;
		s->rect = (struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX,
					       SPATE_LAT_MAX };
		s->n_cons = 1;
		sub_cons[i][0] = (struct spate_constraint){ 1, (uint8_t)(1 + check_below(5)),
							    (double)check_below(3) };
		s->cons = sub_cons[i];
	}
}

static uint32_t ev_kw[16];
static struct spate_attr ev_attr[1];

static void gen_event(struct spate_event *e, uint64_t id)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->lon = edge_coord(SPATE_LON_MAX);
	e->lat = edge_coord(SPATE_LAT_MAX);
	if (check_below(3) == 0) { /* inside a live rectangle, often a corner */
		const struct spate_sub *s = &subs[check_below(N_SUBS)];
		e->lon = check_below(2) ? s->rect.min_lon : s->rect.max_lon;
		e->lat = check_below(2) ? s->rect.min_lat : s->rect.max_lat;
	}
	e->n_kw = (uint16_t)check_below(12);
	for (uint16_t k = 0; k < e->n_kw; k++)
		ev_kw[k] = zipf_kw();
	sort_u32(ev_kw, &e->n_kw);
	e->kw = ev_kw;
	if (check_below(2)) {
		ev_attr[0] = (struct spate_attr){ 1, (double)check_below(3) };
		e->attr = ev_attr;
		e->n_attr = 1;
	}
}

static int cmp_ptr(const void *a, const void *b)
{
	const void *x = *(const void *const *)a, *y = *(const void *const *)b;
	return (x > y) - (x < y);
}

/* mv holds exactly the live subs in [lo, hi) matching e, each once. */
static bool same_as_brute(struct spate_matchvec *mv, const struct spate_event *e, uint32_t lo,
			  uint32_t hi, const bool *in)
{
	size_t want = 0;

	if (mv->n > 1) /* mv->v is NULL while nothing matched yet (qsort: UB) */
		qsort(mv->v, mv->n, sizeof(*mv->v), cmp_ptr);
	for (size_t i = 1; i < mv->n; i++)
		if (mv->v[i] == mv->v[i - 1])
			return false;
	for (uint32_t i = lo; i < hi; i++)
		if (in[i] && spate_sub_matches(&subs[i], e)) {
			want++;
			if (mv->n == 0 || bsearch(&(const struct spate_sub *){ &subs[i] }, mv->v,
						  mv->n, sizeof(*mv->v), cmp_ptr) == NULL)
				return false;
		}
	return want == mv->n;
}

static void count_sub(const struct spate_sub *s, void *ctx)
{
	(void)s;
	(*(uint32_t *)ctx)++;
}

static void test_category(uint64_t seed, double cell)
{
	struct drt_category *a = drt_category_create(cell), *b = drt_category_create(cell);
	static bool in_a[N_SUBS], in_b[N_SUBS];
	struct spate_matchvec mv = { 0 };
	struct spate_event e;

	check_rng = seed;
	memset(in_a, 0, sizeof(in_a));
	memset(in_b, 0, sizeof(in_b));
	for (uint32_t i = 0; i < N_SUBS; i++)
		gen_sub(i, i + 1);
	for (int op = 0; op < 3000; op++) {
		uint32_t i = check_below(N_SUBS);
		bool *in = i % 2 ? in_b : in_a;
		struct drt_category *c = i % 2 ? b : a;
		if (check_below(3) == 0) {
			const struct spate_sub *q = &subs[i];
			/* a hint: one of its keywords (right or wrong) or any */
			uint32_t hint = q->n_kw && check_below(2) ? q->kw[check_below(q->n_kw)] + 1
								  : check_below(VOCAB + 2);
			if (in[i])
				CHECK(check_below(2) ? drt_category_del(c, q)
						     : drt_category_del_routed(c, q, hint,
									       check_below(2)));
			else if (check_below(2))
				CHECK_EQ_INT(drt_category_add(c, &subs[i]), 0);
			else /* as the cluster files it: one of its keywords, fine or coarse */
				CHECK_EQ_INT(drt_category_add_routed(
						     c, q,
						     q->n_kw ? q->kw[check_below(q->n_kw)] + 1 : 0,
						     check_below(2)),
					     0);
			in[i] = !in[i];
			continue;
		}
		gen_event(&e, (uint64_t)op);
		mv.n = 0;
		CHECK_EQ_INT(drt_category_match(a, &e, &mv), 0);
		CHECK(same_as_brute(&mv, &e, 0, N_SUBS, in_a));
		if (op % 500 == 499) { /* merge b into a, then keep going with one */
			CHECK_EQ_INT(drt_category_merge(a, b), 0);
			CHECK_EQ_INT(drt_category_size(b), 0);
			uint32_t n = 0, want = 0;
			for (uint32_t k = 0; k < N_SUBS; k++) {
				in_a[k] |= in_b[k];
				in_b[k] = false;
				want += in_a[k];
			}
			drt_category_foreach(a, count_sub, &n);
			CHECK_EQ_INT(n, want);
			CHECK_EQ_INT(drt_category_size(a), want);
			/* b now holds nothing: odd subs re-enter b only */
			for (uint32_t k = 1; k < N_SUBS; k += 2)
				if (in_a[k]) {
					CHECK(drt_category_del(a, &subs[k]));
					CHECK_EQ_INT(drt_category_add(b, &subs[k]), 0);
					in_a[k] = false;
					in_b[k] = true;
				}
		}
	}
	CHECK(!drt_category_del(a, &subs[1])); /* odd subs are never in a here */
	spate_matchvec_free(&mv);
	drt_category_destroy(a);
	drt_category_destroy(b);
	CHECK(drt_category_create(0.001) == NULL);
	CHECK(drt_category_create(91) == NULL);
}

/* The caller's view of the cluster: sub -> category id, category id ->
 * worker, kept up to date only from placements and actions. */
struct view {
	uint32_t cat_of[N_SUBS];
	struct spate_idmap *worker_of; /* cat id -> worker + 1 */
	uint64_t merges, moves;
	double cat_cap; /* the cluster's, to check merges against */
	uint32_t workers;
	uint64_t capped;     /* merges that went up to the cap */
	uint32_t down;       /* a worker taken down, or UINT32_MAX */
	uint64_t reassigned; /* categories it had when it went */
};

/* The cluster's cat_cap in subscriptions now (drt_cluster.c cap_size,
 * CAP_FLOOR 16): merges never make a category larger. */
static uint64_t cap_now(const struct view *v)
{
	uint64_t n = 0;

	if (v->cat_cap <= 0 || v->workers < 2)
		return UINT64_MAX;
	for (uint32_t k = 0; k < N_SUBS; k++)
		n += live[k];
	double c = v->cat_cap * (double)n / v->workers;
	return c < 16 ? 16 : (uint64_t)c;
}

static void take_actions(struct drt_cluster *cl, struct view *v)
{
	struct drt_action a[4];
	size_t n;

	while ((n = drt_cluster_take_actions(cl, a, 4)) > 0)
		for (size_t i = 0; i < n; i++) {
			uintptr_t w = (uintptr_t)spate_idmap_get(v->worker_of, a[i].cat);
			CHECK(w != 0);
			CHECK_EQ_INT(w - 1, a[i].from_worker);
			if (a[i].kind == DRT_ACTION_MERGE) {
				CHECK((uintptr_t)spate_idmap_get(v->worker_of, a[i].into) ==
				      a[i].to_worker + 1);
				uint64_t size = 0, cap = cap_now(v);
				for (uint32_t k = 0; k < N_SUBS; k++) {
					if (live[k] && v->cat_of[k] == a[i].cat)
						v->cat_of[k] = a[i].into;
					size += live[k] && v->cat_of[k] == a[i].into;
				}
				CHECK(size <= cap); /* cat_cap holds */
				v->capped += cap != UINT64_MAX && 2 * size > cap;
				spate_idmap_del(v->worker_of, a[i].cat);
				v->merges++;
			} else {
				CHECK_EQ_INT(a[i].kind, DRT_ACTION_MOVE);
				CHECK(a[i].to_worker != v->down);
				spate_idmap_put(v->worker_of, a[i].cat,
						(void *)(uintptr_t)(a[i].to_worker + 1));
				v->moves++;
			}
		}
}

static void test_cluster(uint64_t seed, uint32_t variant, uint32_t cmax, uint32_t workers,
			 double route_cell, double cat_cap, struct view *v)
{
	struct drt_params p;
	struct spate_event e;
	const struct drt_route *r;

	drt_params_default(&p);
	p.variant = variant;
	p.cmax = cmax;
	p.workers = workers;
	p.lambda = 40;
	p.route_cell = route_cell;
	p.sigma = 0.05;
	p.cat_cap = cat_cap;
	v->cat_cap = cat_cap;
	v->workers = workers;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	check_rng = seed;
	memset(live, 0, sizeof(live));
	for (uint32_t i = 0; i < N_SUBS; i++)
		gen_sub(i, i + 1);
	v->down = UINT32_MAX;
	for (int op = 0; op < 2500; op++) {
		if (op == 900 && workers > 1) {
			/* a worker's host dies: its categories go elsewhere at once */
			v->down = (uint32_t)check_below(workers);
			int moved = drt_cluster_worker_set(cl, v->down, false);
			CHECK(moved >= 0);
			CHECK(!drt_cluster_worker_up(cl, v->down));
			CHECK_EQ_INT(drt_cluster_worker_set(cl, v->down, false), 0);
			int changed = 0;
			for (uint32_t k = 0; k < drt_cluster_count(cl); k++) {
				struct drt_cat_info info;
				drt_cluster_cat_at(cl, k, &info);
				CHECK(info.worker != v->down);
				uintptr_t was = (uintptr_t)spate_idmap_get(v->worker_of, info.id);
				changed += was != info.worker + 1;
				CHECK(was == info.worker + 1 || was == v->down + 1);
				spate_idmap_put(v->worker_of, info.id,
						(void *)(uintptr_t)(info.worker + 1));
			}
			CHECK_EQ_INT(changed, moved);
			v->reassigned += (uint64_t)moved;
		}
		if (op == 1900 && v->down != UINT32_MAX) {
			CHECK_EQ_INT(drt_cluster_worker_set(cl, v->down, true), 0);
			CHECK(drt_cluster_worker_up(cl, v->down));
			v->down = UINT32_MAX;
		}
		uint32_t i = check_below(N_SUBS);
		if (check_below(2) == 0) {
			if (live[i]) {
				struct drt_removal rm;
				uint32_t at_cat, at_kw;
				bool at_coarse;
				CHECK_EQ_INT(drt_cluster_where(cl, &subs[i], &at_cat, &at_kw,
							       &at_coarse),
					     0);
				CHECK_EQ_INT(at_cat, v->cat_of[i]);
				CHECK_EQ_INT(drt_cluster_remove(cl, &subs[i], &rm), 0);
				CHECK_EQ_INT(rm.cat, v->cat_of[i]);
				CHECK_EQ_INT(rm.route_kw, at_kw);
				CHECK(rm.coarse == at_coarse);
				CHECK_EQ_INT(drt_cluster_where(cl, &subs[i], &at_cat, &at_kw,
							       &at_coarse),
					     -SPATE_E_UNKNOWN_ID);
				live[i] = false;
				bool still = false;
				for (uint32_t k = 0; k < N_SUBS; k++)
					still |= live[k] && v->cat_of[k] == rm.cat;
				CHECK(rm.emptied == !still);
				if (rm.emptied)
					spate_idmap_del(v->worker_of, rm.cat);
			} else {
				struct drt_placement pl;
				CHECK_EQ_INT(drt_cluster_place(cl, &subs[i], &pl), 0);
				CHECK(pl.worker != v->down);
				if (pl.created)
					CHECK(spate_idmap_get(v->worker_of, pl.cat) == NULL);
				else
					CHECK((uintptr_t)spate_idmap_get(v->worker_of, pl.cat) ==
					      pl.worker + 1);
				spate_idmap_put(v->worker_of, pl.cat,
						(void *)(uintptr_t)(pl.worker + 1));
				v->cat_of[i] = pl.cat;
				live[i] = true;
				take_actions(cl, v);
			}
			continue;
		}
		gen_event(&e, (uint64_t)op);
		size_t n = drt_cluster_route(cl, &e, &r);
		uint32_t hit[N_SUBS];
		size_t n_hit = 0;
		for (uint32_t k = 0; k < N_SUBS; k++) {
			if (!live[k] || !spate_sub_matches(&subs[k], &e))
				continue;
			bool routed = false;
			for (size_t j = 0; j < n && !routed; j++)
				routed = r[j].cat == v->cat_of[k];
			CHECK(routed); /* never miss a category holding a match */
			bool dup = false;
			for (size_t j = 0; j < n_hit; j++)
				dup |= hit[j] == v->cat_of[k];
			if (!dup)
				hit[n_hit++] = v->cat_of[k];
		}
		for (size_t j = 0; j < n; j++) {
			CHECK((uintptr_t)spate_idmap_get(v->worker_of, r[j].cat) ==
			      r[j].worker + 1);
			CHECK(r[j].worker != v->down);
			for (size_t k = j + 1; k < n; k++)
				CHECK(r[j].cat != r[k].cat);
			/* only categories whose MBR holds the event */
			bool holds = false;
			for (uint32_t x = 0; x < drt_cluster_count(cl); x++) {
				struct drt_cat_info info;
				drt_cluster_cat_at(cl, x, &info);
				if (info.id == r[j].cat)
					holds = e.lon >= info.mbr.min_lon &&
						e.lon <= info.mbr.max_lon &&
						e.lat >= info.mbr.min_lat &&
						e.lat <= info.mbr.max_lat;
			}
			CHECK(holds);
			/* the keys that led here: recorded (memory is plenty),
			 * each once, each of a keyword the mask names (key 0:
			 * keyword-less subs, bit 0; else keyword + 1) */
			CHECK(r[j].keys != NULL && r[j].n_keys >= 1);
			for (uint32_t x = 0; r[j].keys != NULL && x < r[j].n_keys; x++) {
				uint32_t kwkey = (uint32_t)r[j].keys[x];
				bool named = kwkey == 0 && (r[j].kw_mask & 1);
				for (uint32_t t = 0; t < e.n_kw; t++)
					named |= e.kw[t] + 1 == kwkey &&
						 (r[j].kw_mask >> (t < 62 ? t + 1 : 63) & 1);
				CHECK(named);
				for (uint32_t y = 0; y < x; y++)
					CHECK(r[j].keys[y] != r[j].keys[x]);
			}
		}
		drt_cluster_feedback(cl, hit, n_hit);
		if (drt_cluster_period_due(cl)) {
			CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
			take_actions(cl, v);
		}
	}
	struct drt_cluster_stats st;
	drt_cluster_stats(cl, &st);
	CHECK(st.categories == drt_cluster_count(cl));
	if (variant == DRT_SIM_FRE_CO && cap_now(v) == UINT64_MAX)
		CHECK(st.categories <= cmax); /* a cap may leave no pair to merge */
	for (uint32_t i = 0; i < drt_cluster_count(cl); i++) {
		struct drt_cat_info info;
		drt_cluster_cat_at(cl, i, &info);
		uint32_t size = 0;
		for (uint32_t k = 0; k < N_SUBS; k++)
			size += live[k] && v->cat_of[k] == info.id;
		CHECK_EQ_INT(info.size, size);
		CHECK((uintptr_t)spate_idmap_get(v->worker_of, info.id) == info.worker + 1);
	}
	struct drt_removal rm;
	for (uint32_t k = 0; k < N_SUBS; k++)
		if (!live[k])
			CHECK_EQ_INT(drt_cluster_remove(cl, &subs[k], &rm), -SPATE_E_UNKNOWN_ID);
	/* every sub deleted: every routing key and list entry goes with the
	 * last sub counted under it, however merges folded the lists */
	for (uint32_t k = 0; k < N_SUBS; k++)
		if (live[k])
			CHECK_EQ_INT(drt_cluster_remove(cl, &subs[k], &rm), 0);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.categories, 0);
	CHECK_EQ_INT(st.route_keys, 0);
	CHECK_EQ_INT(st.route_entries, 0);
	drt_cluster_destroy(cl);
}

/* An engine (by spec) against brute force on a stream of interleaved
 * adds, deletes and events over the generators above. */
static uint64_t engine_merges, engine_moves;

static void test_engine(const char *name, const struct drt_params *p, uint64_t seed, int ops)
{
	const struct spate_engine_ops *ops_ = spate_engine_find(name);
	struct spate_engine_params params;
	struct spate_matchvec mv = { 0 };
	struct spate_event e;

	spate_engine_params_default(&params);
	if (p)
		params.drt = *p;
	struct spate_engine *eng = ops_->create(&params);
	CHECK(eng != NULL);
	check_rng = seed;
	memset(live, 0, sizeof(live));
	for (uint32_t i = 0; i < N_SUBS; i++)
		gen_sub(i, i + 1);
	int bad = 0;
	for (int op = 0; op < ops && bad < 3; op++) {
		uint32_t i = check_below(N_SUBS);
		if (check_below(3) == 0) {
			if (live[i])
				ops_->sub_del(eng, &subs[i]);
			else
				CHECK_EQ_INT(ops_->sub_add(eng, &subs[i]), 0);
			live[i] = !live[i];
			continue;
		}
		gen_event(&e, (uint64_t)op);
		mv.n = 0;
		CHECK_EQ_INT(ops_->match(eng, &e, &mv), 0);
		if (!same_as_brute(&mv, &e, 0, N_SUBS, live)) {
			bad++;
			fprintf(stderr, "%s seed %llu op %d: differs from brute\n", name,
				(unsigned long long)seed, op);
			CHECK(false);
		}
	}
	if (ops_->stats) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		ops_->stats(eng, f);
		fclose(f);
		const char *m = strstr(buf, "\"merges_in_node\":");
		const char *b = strstr(buf, "\"merges_between_nodes\":");
		const char *r = strstr(buf, "\"rebalance_moves\":");
		engine_merges +=
			(m ? strtoull(m + 17, NULL, 10) : 0) + (b ? strtoull(b + 23, NULL, 10) : 0);
		engine_moves += r ? strtoull(r + 18, NULL, 10) : 0;
		__real_free(buf); /* libc's block: not tracked */
	}
	spate_matchvec_free(&mv);
	ops_->destroy(eng);
}

/* drt under pressure: few categories (many merges), short periods with
 * several workers (many rebalances), varied by seed. */
static void pressure_params(struct drt_params *p, uint64_t seed)
{
	drt_params_default(p);
	p->variant = (uint32_t)(seed % 3);
	p->cmax = 1 + (uint32_t)(seed % 6) * 2;
	p->lambda = 30 + 10 * (uint32_t)(seed % 5);
	p->workers = 1 + (uint32_t)(seed % 4);
	p->alpha = (double)(seed % 5) / 4;
	p->cat_cap = (double[]){ 0, 0.1, 0.02, 0.5 }[seed / 3 % 4];
	/* none, the first of each keyword, the default, every one coarse */
	p->rare_kw = (uint32_t[]){ 0, 1, 8, 1000000 }[seed / 2 % 4];
}

/* Every sub added, events, every other one deleted, events: drt against
 * brute force with all of the subs live at once. */
static void test_engine_filled(const struct drt_params *p, uint64_t seed)
{
	const struct spate_engine_ops *ops = spate_engine_find("drt");
	struct spate_engine_params params;
	struct spate_matchvec mv = { 0 };
	struct spate_event e;

	spate_engine_params_default(&params);
	params.drt = *p;
	struct spate_engine *eng = ops->create(&params);
	CHECK(eng != NULL);
	check_rng = seed;
	for (uint32_t i = 0; i < N_SUBS; i++) {
		gen_sub(i, i + 1);
		CHECK_EQ_INT(ops->sub_add(eng, &subs[i]), 0);
		live[i] = true;
	}
	for (int round = 0; round < 2; round++) {
		for (int k = 0; k < 300; k++) {
			gen_event(&e, (uint64_t)k);
			mv.n = 0;
			CHECK_EQ_INT(ops->match(eng, &e, &mv), 0);
			CHECK(same_as_brute(&mv, &e, 0, N_SUBS, live));
		}
		for (uint32_t i = (uint32_t)round; i < N_SUBS; i += 2)
			if (live[i]) {
				ops->sub_del(eng, &subs[i]);
				live[i] = false;
			}
	}
	spate_matchvec_free(&mv);
	ops->destroy(eng);
}

/* drt_only_worker (spate-bench's per-worker time, Fig. 7): worker w's
 * matches alone; over the workers they add up to every match, each once;
 * a worker past the last matches nothing. */
static void test_only_worker(void)
{
	const struct spate_engine_ops *ops_ = spate_engine_find("drt");
	struct spate_engine_params params;
	struct spate_matchvec mv = { 0 };
	struct spate_event e;
	char err[128];
	uint64_t all_n = 0, all_sum = 0, part_n = 0, part_sum = 0, none = 0;

	spate_engine_params_default(&params);
	params.drt.workers = 3;
	params.drt.cmax = 8;
	struct spate_engine *eng = ops_->create(&params);
	CHECK(eng != NULL);
	check_rng = 77;
	for (uint32_t i = 0; i < N_SUBS; i++) {
		gen_sub(i, i + 1);
		CHECK_EQ_INT(ops_->sub_add(eng, &subs[i]), 0);
	}
	for (int op = 0; op < 400; op++) {
		gen_event(&e, (uint64_t)op);
		for (uint32_t w = 0; w <= 4; w++) {
			params.drt_only_worker = w;
			CHECK_EQ_INT(ops_->set_params(eng, &params, err, sizeof(err)), 0);
			mv.n = 0;
			CHECK_EQ_INT(ops_->match(eng, &e, &mv), 0);
			for (size_t k = 0; k < mv.n; k++) {
				uint64_t id = mv.v[k]->id;
				if (w == 0)
					all_n++, all_sum += id * id;
				else if (w <= 3)
					part_n++, part_sum += id * id;
				else
					none++;
			}
		}
	}
	printf("drt: only_worker: %llu matches in all, %llu over the workers\n",
	       (unsigned long long)all_n, (unsigned long long)part_n);
	CHECK(all_n > 100);
	CHECK_EQ_INT(part_n, all_n);
	CHECK(part_sum == all_sum);
	CHECK_EQ_INT(none, 0);
	ops_->destroy(eng);
	/* the same from creation: worker 4 of 3 holds nothing */
	params.drt_only_worker = 4;
	eng = ops_->create(&params);
	CHECK(eng != NULL);
	for (uint32_t i = 0; i < N_SUBS; i++)
		CHECK_EQ_INT(ops_->sub_add(eng, &subs[i]), 0);
	for (int op = 0; op < 400; op++) {
		gen_event(&e, (uint64_t)op);
		mv.n = 0;
		CHECK_EQ_INT(ops_->match(eng, &e, &mv), 0);
		none += mv.n;
	}
	CHECK_EQ_INT(none, 0);
	spate_matchvec_free(&mv);
	ops_->destroy(eng);
}

static void test_engines(void)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		test_engine("kdtree", NULL, seed, 3000);
		test_engine("grid", NULL, seed, 3000);
		test_engine("drt", NULL, seed, 3000);
	}
	/* every variant under pressure: few categories (many merges), short
	 * periods with several workers (many rebalances), coarse and fine
	 * grids on both levels */
	for (uint64_t seed = 1; seed <= 24; seed++) {
		struct drt_params p;
		pressure_params(&p, seed);
		p.sigma = 0.05;
		p.new_th = 0.2 + 0.15 * (double)(seed % 5);
		p.route_cell = (double[]){ 0.25, 1, 5, 30 }[seed % 4];
		p.cat_cell = (double[]){ 0.25, 2, 0.5 }[seed % 3];
		p.place_slack = (double[]){ 0, 0.1, 1e6 }[seed / 2 % 3];
		test_engine("drt", &p, seed * 31, 2500);
	}
	/* the same pressure with the categories on the routing grid, where
	 * a category looks only under the keys that routed the event to it
	 * (drt_category_match_keys): merged parts, ivx, several workers */
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct drt_params p;
		pressure_params(&p, seed);
		p.route_cell = p.cat_cell = (double[]){ 0.25, 1, 5, 0.5 }[seed % 4];
		test_engine("drt", &p, seed * 57, 2500);
	}
	/* content-only subs past a category's interval-index threshold
	 * (256), found only under the "none" routing key */
	content_heavy = true;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct drt_params p;
		drt_params_default(&p);
		p.cmax = (uint32_t)seed; /* few categories: hundreds of such subs in one */
		test_engine_filled(&p, seed * 101);
	}
	content_heavy = false;
	printf("drt engine: %llu merges, %llu rebalance moves\n", (unsigned long long)engine_merges,
	       (unsigned long long)engine_moves);
	CHECK(engine_merges > 500);
	CHECK(engine_moves > 20);
}

static void check_ftab_layout(const struct drt_ftab *t);

/* The flat table against an array: adds (a new payload reads zero),
 * gets, deletes (backward shift), clears, growth and iteration, with
 * keys from a small range (long probe runs, key 0, neighbours) and
 * large ones. */
static void test_ftab(uint64_t seed, uint32_t load8, size_t map_min)
{
	enum { N_KEYS = 3000 };
	static uint64_t val[N_KEYS];
	static bool in[N_KEYS];
	struct drt_ftab t;
	size_t n = 0;

	check_rng = seed;
	memset(in, 0, sizeof(in));
	CHECK(drt_ftab_init(&t, 16) == 0);
	drt_ftab_set_max_load(&t, load8);
	drt_ftab_set_map_min(&t, map_min);
	for (int op = 0; op < 60000; op++) {
		uint32_t i = check_below(N_KEYS);
		/* half the keys small, half spread over 64 bits (never all ones) */
		uint64_t key = i % 2 ? i : (uint64_t)i * 0x9e3779b97f4a7c15ull >> 1;
		size_t end = SIZE_MAX;
		uint64_t *p = drt_ftab_get_at(&t, key, &end);
		CHECK((p != NULL) == in[i]);
		CHECK(p != NULL || (end <= t.mask && *drt_ftab_slot(&t, end) == 0));
		if (p != NULL)
			CHECK(p[0] == val[i] && p[1] == ~val[i]);
		switch (check_below(op < 30000 ? 3 : 2)) {
		case 0:
			if (!in[i]) {
				/* half the adds resume the lookup's probe */
				p = op % 2 ? drt_ftab_add_from(&t, key, end)
					   : drt_ftab_add(&t, key);
				CHECK(drt_ftab_get(&t, key) == p);
				CHECK(p != NULL && p[0] == 0 && p[1] == 0);
				val[i] = check_rand();
				p[0] = val[i];
				p[1] = ~val[i];
				in[i] = true;
				n++;
			}
			break;
		case 1:
			drt_ftab_del(&t, key);
			n -= in[i];
			in[i] = false;
			break;
		default:
			break;
		}
		if (op == 45000) {
			drt_ftab_clear(&t);
			memset(in, 0, sizeof(in));
			n = 0;
		}
		CHECK(t.count == n);
		CHECK(t.count * 8 <= (t.mask + 1) * load8); /* the load bound holds */
		if (op % 997 == 0)
			check_ftab_layout(&t);
	}
	size_t seen = 0;
	for (size_t i = 0; i <= t.mask; i++) {
		uint64_t key;
		uint64_t *p = drt_ftab_at(&t, i, &key);
		if (p == NULL)
			continue;
		seen++;
		CHECK(drt_ftab_get(&t, key) == p);
	}
	CHECK(seen == n);
	drt_ftab_free(&t);
}

/* Every entry is reachable: no empty slot between its home and where it
 * sits (cyclically), and the count is right. */
static void check_ftab_layout(const struct drt_ftab *t)
{
	size_t n = 0;

	for (size_t i = 0; i <= t->mask; i++) {
		uint64_t key;
		if (drt_ftab_at(t, i, &key) == NULL)
			continue;
		n++;
		for (size_t j = drt_ftab_home(t, key); j != i; j = (j + 1) & t->mask)
			CHECK(*drt_ftab_slot(t, j) != 0);
	}
	CHECK(n == t->count);
}

/* A key whose home in a table of mask + 1 slots is at least mask + 1 -
 * near (the end: its run wraps around to slot 0), from *next on. */
static uint64_t key_near_end(size_t mask, size_t near, uint64_t *next)
{
	struct drt_ftab probe = { .mask = mask,
				  .shift = 64 - (uint32_t)__builtin_popcountll(mask) };

	while (drt_ftab_home(&probe, *next) < mask + 1 - near)
		++*next;
	return (*next)++;
}

/* Growth (drt_ftab.c grow): tables at their largest load whose runs
 * wrap around the end, doubled many times; every key keeps its payload,
 * every entry stays reachable, deletes still work after. */
static void test_ftab_grow(uint64_t seed, uint32_t load8, size_t map_min)
{
	enum { N = 1 << 17 };
	static uint64_t keys[N];
	struct drt_ftab t;
	uint64_t next = seed;
	size_t n = 0;

	size_t mapped0 = drt_ftab_mapped_bytes();

	check_rng = seed;
	CHECK(drt_ftab_init(&t, 8) == 0);
	drt_ftab_set_max_load(&t, load8);
	drt_ftab_set_map_min(&t, map_min);
	while (n < N) {
		/* fill up to the load bound, the first few keys of each round
		 * homed in the table's last slots, so the next doubling meets a
		 * run wrapped around the end */
		size_t room = (t.mask + 1) * load8 / 8, wrapped = 0;
		while (t.count <= room && n < N) { /* the last add doubles */
			bool near = wrapped < 24 && check_below(4) == 0;
			uint64_t key = near ? key_near_end(t.mask, 4, &next) : check_rand() >> 1;
			wrapped += near;
			if (drt_ftab_get(&t, key) != NULL)
				continue;
			uint64_t *p = drt_ftab_add(&t, key);
			CHECK(p != NULL);
			*p = key ^ 0x5555;
			keys[n++] = key;
		}
		check_ftab_layout(&t);
		uint64_t *p = drt_ftab_get(&t, keys[0]);
		CHECK(p != NULL && *p == (keys[0] ^ 0x5555));
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t *p = drt_ftab_get(&t, keys[i]);
		CHECK(p != NULL && *p == (keys[i] ^ 0x5555));
	}
	for (size_t i = 0; i < n; i += 2)
		drt_ftab_del(&t, keys[i]);
	check_ftab_layout(&t);
	for (size_t i = 0; i < n; i++)
		CHECK((drt_ftab_get(&t, keys[i]) != NULL) == (i % 2 == 1));
	/* a mapped table: its mapping counted, 2 MB-aligned */
	CHECK(t.mapped == (drt_ftab_bytes(&t) >= map_min));
	if (t.mapped)
		CHECK(drt_ftab_mapped_bytes() - mapped0 >= drt_ftab_bytes(&t) &&
		      (uintptr_t)t.slots % (2u << 20) == 0);
	drt_ftab_free(&t);
	CHECK(drt_ftab_mapped_bytes() == mapped0);
}

/* ---- the decision rules the paper states (docs/algorithms.md) ---- */

/* A sub of keyword k alone on the square of side `side` from (lon, lat),
 * in coordinate units. */
static void square_sub(struct spate_sub *q, uint32_t *kw, uint64_t id, int32_t lon, int32_t lat,
		       int32_t side, uint32_t k)
{
	memset(q, 0, sizeof(*q));
	q->id = id;
	q->rect = (struct spate_rect){ lon, lat, lon + side, lat + side };
	*kw = k;
	q->kw = kw;
	q->n_kw = 1;
}

/* q alone at (lon, lat), one keyword of its own: a category of its own. */
static void lone_sub(struct spate_sub *q, uint32_t *kw, uint64_t id, int lon, int lat, uint32_t k)
{
	square_sub(q, kw, id, lon * SPATE_COORD_SCALE, lat * SPATE_COORD_SCALE,
		   SPATE_COORD_SCALE, k);
}

/* A sub of 0.01 x 0.01 degree at (lon, lat) thousandths of a degree. */
static void tiny_sub(struct spate_sub *q, uint32_t *kw, uint64_t id, int lon, int lat, uint32_t k)
{
	const int32_t u = SPATE_COORD_SCALE / 1000;

	square_sub(q, kw, id, lon * u, lat * u, 10 * u, k);
}

/* A routing list whose entries name merged-away categories is folded
 * when next used: here the list of (one cell, keyword 7) holds a, b and
 * d, in that order; b and a merge, and d (the smaller) into c, which has
 * no entry there. Deleting d's sub folds the list: b's entry joins a's,
 * the entry moved into its place (d's) must be looked at too, renamed c
 * and counted down. Then every key and entry goes with the last sub. */
static void test_fold_parts(void)
{
	/* a, b, c, c's twin (the same category), d, e */
	static const int at[6][2] = { { 10100, 10100 }, { 10200, 10200 }, { 20100, 20100 },
				      { 20100, 20100 }, { 10300, 10300 }, { 30100, 30100 } };
	struct drt_params p;
	struct spate_sub q[6];
	uint32_t kw[6], cat[6];
	struct drt_placement pl;
	struct drt_removal rm;
	struct drt_cluster_stats st;
	struct drt_action a[8];
	char err[200];

	drt_params_default(&p);
	p.new_th = 1; /* a category for each sub, but for c's twin */
	p.cmax = 8;
	p.workers = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	for (uint32_t i = 0; i < 5; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, at[i][0], at[i][1], 7);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
	}
	CHECK_EQ_INT(cat[3], cat[2]);
	CHECK_EQ_INT(drt_cluster_count(cl), 4);
	uint32_t ab[2] = { cat[0], cat[1] }, cd[2] = { cat[2], cat[4] };
	for (int t = 0; t < 3; t++)
		drt_cluster_feedback(cl, ab, 2);
	for (int t = 0; t < 2; t++)
		drt_cluster_feedback(cl, cd, 2);
	p.cmax = 3;
	CHECK_EQ_INT(drt_cluster_set_params(cl, &p, err, sizeof(err)), 0);
	tiny_sub(&q[5], &kw[5], 6, at[5][0], at[5][1], 7);
	CHECK_EQ_INT(drt_cluster_place(cl, &q[5], &pl), 0); /* e: two merges */
	size_t n = drt_cluster_take_actions(cl, a, 8);
	CHECK_EQ_INT(n, 2);
	CHECK(n == 2 && ((a[0].cat == cat[0] && a[0].into == cat[1]) ||
			 (a[0].cat == cat[1] && a[0].into == cat[0])));
	CHECK(n == 2 && a[1].cat == cat[4] && a[1].into == cat[2]);
	CHECK_EQ_INT(drt_cluster_remove(cl, &q[4], &rm), 0);
	CHECK_EQ_INT(rm.cat, cat[2]);
	CHECK(!rm.emptied);
	for (uint32_t i = 0; i < 6; i++)
		if (i != 4)
			CHECK_EQ_INT(drt_cluster_remove(cl, &q[i], &rm), 0);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.categories, 0);
	CHECK_EQ_INT(st.route_keys, 0);
	CHECK_EQ_INT(st.route_entries, 0);
	drt_cluster_destroy(cl);
}

/* The routing keyword of a sub is its globally rarest one (placement
 * route_kw = keyword id + 1); coarse while fewer than rare_kw subs
 * carry it. Keyword 20 is on 12 subs, 21 on 3: {20, 21} routes by 21. */
static void test_rarest_keyword(void)
{
	struct drt_params p;
	struct spate_sub q[16];
	uint32_t kw[16], both[2] = { 20, 21 };
	struct drt_placement pl;

	drt_params_default(&p);
	struct drt_cluster *cl = drt_cluster_create(&p);
	for (uint32_t i = 0; i < 15; i++) {
		lone_sub(&q[i], &kw[i], i + 1, -170 + 20 * (int)(i % 15), 10, i < 12 ? 20 : 21);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK_EQ_INT(pl.route_kw, kw[i] + 1);
	}
	lone_sub(&q[15], &kw[15], 16, 0, -40, 0);
	q[15].kw = both;
	q[15].n_kw = 2;
	CHECK_EQ_INT(drt_cluster_place(cl, &q[15], &pl), 0);
	CHECK_EQ_INT(pl.route_kw, 21 + 1);
	CHECK(pl.coarse); /* 3 (4 with q) below rare_kw = 8 */
	drt_cluster_destroy(cl);
}

/* With one worker every CD is 0 (MergeJudgePara infinite for all): the
 * merge is of the most correlated pair, as the paper's single machine
 * merges "the two most correlated categories"; not of the lowest ids. */
static void test_merge_most_correlated(void)
{
	struct drt_params p;
	struct spate_sub q[5];
	uint32_t kw[5], cat[5];
	struct drt_placement pl;
	struct drt_action a[8];

	drt_params_default(&p);
	p.cmax = 4;
	struct drt_cluster *cl = drt_cluster_create(&p);
	for (uint32_t i = 0; i < 5; i++) {
		if (i == 4) { /* co-matched: (0,1) once, (0,2) twice, (1,3) 3 times, (2,3) 5 */
			static const int pair[4][3] = {
				{ 0, 1, 1 }, { 0, 2, 2 }, { 1, 3, 3 }, { 2, 3, 5 }
			};
			for (int k = 0; k < 4; k++)
				for (int t = 0; t < pair[k][2]; t++) {
					uint32_t x[2] = { cat[pair[k][0]], cat[pair[k][1]] };
					drt_cluster_feedback(cl, x, 2);
				}
		}
		lone_sub(&q[i], &kw[i], i + 1, -150 + 60 * (int)i, 10, 100 + i);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created);
		cat[i] = pl.cat;
	}
	size_t n = drt_cluster_take_actions(cl, a, 8), merges = 0;
	for (size_t i = 0; i < n; i++) {
		if (a[i].kind != DRT_ACTION_MERGE)
			continue;
		merges++;
		CHECK((a[i].cat == cat[2] && a[i].into == cat[3]) ||
		      (a[i].cat == cat[3] && a[i].into == cat[2]));
	}
	CHECK_EQ_INT(merges, 1);
	drt_cluster_destroy(cl);
}

/* Two workers; a and b share one and are co-matched n_ab times, b and c
 * (other worker) n_bc times. With 5 and 1: MergeJudgePara a = inf,
 * b = 5, c = 0; the paper's text (the largest decides, merge_th 1): a
 * merges with b inside their worker; merge_each: c, below merge_th,
 * merges with b across. With 1 and 5: a = inf, b = 0.2, c = 0; the text
 * still merges a and b; merge_finite leaves a (CD = 0) out, b's 0.2 is
 * below merge_th and b merges with c across. None is the spatial
 * fallback (merges_no_corr). */
static void test_merge_rule(uint32_t each, uint32_t finite, int n_ab, int n_bc, int aged)
{
	struct drt_params p;
	struct spate_sub q[5];
	uint32_t kw[5], cat[5], wk[5];
	struct drt_placement pl;
	struct drt_action act[8];
	int a = -1, b = -1, c = -1;

	drt_params_default(&p);
	p.workers = 2;
	p.cmax = 4;
	p.merge_each = each;
	p.merge_finite = finite;
	struct drt_cluster *cl = drt_cluster_create(&p);
	for (uint32_t i = 0; i < 5; i++) {
		if (i == 4) {
			for (int x = 0; x < 4 && b < 0; x++)
				for (int y = x + 1; y < 4 && b < 0; y++)
					if (wk[x] == wk[y])
						a = x, b = y;
			for (int z = 0; z < 4 && b >= 0; z++)
				if (wk[z] != wk[b])
					c = z;
			CHECK(a >= 0 && c >= 0);
			if (c < 0)
				break;
			uint32_t ab[2] = { cat[a], cat[b] }, bc[2] = { cat[b], cat[c] };
			/* aged: twice the counts, halved by a period's end, which
			 * recounts CS and CD from the pairs */
			for (int t = 0; t < n_ab << aged; t++)
				drt_cluster_feedback(cl, ab, 2);
			for (int t = 0; t < n_bc << aged; t++)
				drt_cluster_feedback(cl, bc, 2);
			if (aged) {
				CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
				struct drt_cluster_stats st;
				drt_cluster_stats(cl, &st);
				CHECK_EQ_INT(st.moves, 0); /* wk[] still right */
			}
		}
		lone_sub(&q[i], &kw[i], i + 1, -150 + 60 * (int)i, 10, 100 + i);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created);
		cat[i] = pl.cat;
		wk[i] = pl.worker;
	}
	size_t n = drt_cluster_take_actions(cl, act, 8), merges = 0;
	bool across = (each && n_ab > n_bc) || (finite && n_bc > n_ab);
	int other = across ? c : a;
	for (size_t i = 0; c >= 0 && i < n; i++) {
		if (act[i].kind != DRT_ACTION_MERGE)
			continue;
		merges++;
		CHECK((act[i].cat == cat[b] && act[i].into == cat[other]) ||
		      (act[i].cat == cat[other] && act[i].into == cat[b]));
	}
	CHECK_EQ_INT(merges, 1);
	struct drt_cluster_stats st;
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.merges_between_nodes, across ? 1 : 0);
	CHECK_EQ_INT(st.merges_no_corr, 0);
	drt_cluster_destroy(cl);
}

/* A new category with no category near goes to the worker of the most
 * similar category of all (the paper compares every category), not to
 * the workers in turn. */
static void test_new_cat_worker(void)
{
	struct drt_params p;
	struct spate_sub q[3];
	uint32_t kw[3], w0 = 0;
	struct drt_placement pl;

	drt_params_default(&p);
	p.workers = 3;
	p.place_slack = 1e6; /* the paper's: no bound on a worker's share */
	struct drt_cluster *cl = drt_cluster_create(&p);
	for (uint32_t i = 0; i < 3; i++) {
		lone_sub(&q[i], &kw[i], i + 1, -150 + 100 * (int)i, -20, 7);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created);
		if (i == 0)
			w0 = pl.worker;
		CHECK_EQ_INT(pl.worker, w0);
	}
	drt_cluster_destroy(cl);
}

/* merge_th = 0 is InNode: no merge crosses workers, not even the
 * fallbacks of no co-match yet and of the size cap; with the paper's
 * merge_th = 1 some do on the same stream. */
static uint64_t between_merges(double merge_th, uint32_t merge_each, uint64_t *in_node)
{
	struct drt_params p;
	struct drt_cluster_stats st;
	struct drt_removal rm;
	struct drt_placement pl;
	struct spate_event e;
	const struct drt_route *r;
	struct drt_action a[16];

	drt_params_default(&p);
	p.workers = 4;
	p.cmax = 6;
	p.lambda = 50;
	p.merge_th = merge_th;
	p.merge_each = merge_each;
	struct drt_cluster *cl = drt_cluster_create(&p);
	check_rng = 99;
	memset(live, 0, sizeof(live));
	for (uint32_t i = 0; i < N_SUBS; i++)
		gen_sub(i, i + 1);
	for (int op = 0; op < 4000; op++) {
		uint32_t i = check_below(N_SUBS);
		if (check_below(3) == 0) {
			if (live[i])
				CHECK_EQ_INT(drt_cluster_remove(cl, &subs[i], &rm), 0);
			else
				CHECK_EQ_INT(drt_cluster_place(cl, &subs[i], &pl), 0);
			live[i] = !live[i];
		} else {
			gen_event(&e, (uint64_t)op);
			size_t n = drt_cluster_route(cl, &e, &r);
			uint32_t ids[8];
			for (size_t k = 0; k < n && k < 8; k++)
				ids[k] = r[k].cat;
			drt_cluster_feedback(cl, ids, n < 8 ? n : 8);
			if (drt_cluster_period_due(cl))
				CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
		}
		while (drt_cluster_take_actions(cl, a, 16) > 0)
			;
	}
	drt_cluster_stats(cl, &st);
	drt_cluster_destroy(cl);
	*in_node = st.merges_in_node;
	CHECK(st.merges_between_nodes > 0 || st.data_moved == 0);
	/* the first merges come before any co-match: the fallback */
	CHECK(st.merges_no_corr > 0);
	CHECK(st.merges_no_corr <= st.merges_in_node + st.merges_between_nodes);
	return st.merges_between_nodes;
}

static void test_in_node(void)
{
	uint64_t in0, in1, in_each, in0_each;
	uint64_t bet0 = between_merges(0, 0, &in0), bet1 = between_merges(1, 0, &in1);
	uint64_t bet_each = between_merges(1, 1, &in_each),
		 bet0_each = between_merges(0, 1, &in0_each);

	printf("drt: merge_th 0: %llu in node, %llu between; merge_th 1: %llu, %llu;"
	       " with merge_each: %llu, %llu\n",
	       (unsigned long long)in0, (unsigned long long)bet0, (unsigned long long)in1,
	       (unsigned long long)bet1, (unsigned long long)in_each, (unsigned long long)bet_each);
	CHECK_EQ_INT(bet0, 0);
	CHECK(in0 > 30);
	CHECK(bet1 > 0);
	/* merge_each: InNode stays InNode */
	CHECK_EQ_INT(bet0_each, 0);
	CHECK_EQ_INT(in0_each, in0);
}

/* SpatialSim uses the category's area as its MBR grows (the cluster
 * keeps it beside the MBR): with alpha 0 and NewTh 0.5, a category of
 * [0,1.5]x[0,1] (area 1.5, grown by its second insert) takes
 * [1.5,2.4]x[0,1] (1.5 / 2.4 = 0.625); with the area of its first
 * rectangle (1 / 2.4 = 0.42) a new category would be made. */
/* A cluster placing by space alone (alpha 0) on one-degree routing
 * cells, new_th 0.5, room for 1000 categories. */
static struct drt_cluster *space_only_cluster(void)
{
	struct drt_params p;

	drt_params_default(&p);
	p.alpha = 0;
	p.new_th = 0.5;
	p.route_cell = 1;
	p.cmax = 1000;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	return cl;
}

static void test_spatial_area(void)
{
	struct drt_placement pl;
	static const double box[3][2] = { { 0, 1 }, { 0, 1.5 }, { 1.5, 2.4 } };
	struct spate_sub q[3];

	struct drt_cluster *cl = space_only_cluster();
	for (int i = 0; i < 3; i++) {
		q[i] = (struct spate_sub){ .id = (uint64_t)i + 1 };
		q[i].rect = (struct spate_rect){ (int32_t)(box[i][0] * SPATE_COORD_SCALE), 0,
						 (int32_t)(box[i][1] * SPATE_COORD_SCALE),
						 SPATE_COORD_SCALE };
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created == (i == 0));
	}
	CHECK_EQ_INT(drt_cluster_count(cl), 1);
	drt_cluster_destroy(cl);
}

/* A(c) is floored at one routing cell, never capped there: a category of
 * 10 x 10 cells meets a 15 x 10 sub with SpatialSim 100 / 150 = 0.67,
 * above new_th 0.5, and takes it (capped at one cell it would be 1 / 51
 * and open a new category). */
static void test_spatial_area_large(void)
{
	struct drt_placement pl;
	struct spate_sub q[2];
	uint32_t cat = 0;

	struct drt_cluster *cl = space_only_cluster();
	for (int i = 0; i < 2; i++) {
		q[i] = (struct spate_sub){ .id = (uint64_t)i + 1 };
		q[i].rect = (struct spate_rect){ 0, 0, (10 + 5 * i) * SPATE_COORD_SCALE,
						 10 * SPATE_COORD_SCALE };
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created == (i == 0));
		if (i == 0)
			cat = pl.cat;
		else
			CHECK_EQ_INT(pl.cat, cat);
	}
	CHECK_EQ_INT(drt_cluster_count(cl), 1);
	drt_cluster_destroy(cl);
}

/* A keyword whose last subscription goes leaves no key behind: 300
 * subs, each with a keyword of its own, placed beside a standing one
 * and removed in turn, leave the summaries' memory where one did. */
static void test_keyword_counts_go(void)
{
	struct drt_placement pl;
	struct drt_removal rm;
	struct drt_cluster_stats st;
	struct spate_sub anchor, q;
	uint32_t akw, kw;
	size_t bytes_one = 0;

	/* space alone: every sub joins the anchor's category */
	struct drt_cluster *cl = space_only_cluster();
	lone_sub(&anchor, &akw, 1, 10, 10, 1);
	CHECK_EQ_INT(drt_cluster_place(cl, &anchor, &pl), 0);
	uint32_t cat = pl.cat;
	for (uint32_t i = 0; i < 300; i++) {
		uint32_t two[2] = { 1, 1000 + i };
		lone_sub(&q, &kw, 2 + i, 10, 10, 0);
		q.kw = two;
		q.n_kw = 2;
		CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
		CHECK_EQ_INT(pl.cat, cat);
		CHECK_EQ_INT(drt_cluster_remove(cl, &q, &rm), 0);
		drt_cluster_stats(cl, &st);
		if (i == 0)
			bytes_one = st.bytes;
		CHECK_EQ_INT(st.bytes, bytes_one);
	}
	CHECK_EQ_INT(drt_cluster_count(cl), 1);
	drt_cluster_destroy(cl);
}

/* The id base is set once, before any category: refused after a first
 * setting (even with no category yet), after categories exist, and
 * above UINT32_MAX / 2; the first category takes the base. */
static void test_id_base(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q;
	uint32_t kw;

	drt_params_default(&p);
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	CHECK_EQ_INT(drt_cluster_set_id_base(cl, UINT32_MAX / 2 + 1), -SPATE_E_NOT_ALLOWED);
	CHECK_EQ_INT(drt_cluster_set_id_base(cl, 100), 0);
	CHECK_EQ_INT(drt_cluster_set_id_base(cl, 200), -SPATE_E_NOT_ALLOWED);
	CHECK_EQ_INT(drt_cluster_set_id_base(cl, 1), -SPATE_E_NOT_ALLOWED);
	lone_sub(&q, &kw, 1, 10, 10, 1);
	CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
	CHECK_EQ_INT(pl.cat, 100);
	drt_cluster_destroy(cl);
	cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
	CHECK_EQ_INT(pl.cat, 1);
	CHECK_EQ_INT(drt_cluster_set_id_base(cl, 300), -SPATE_E_NOT_ALLOWED);
	drt_cluster_destroy(cl);
	/* base 0: ids from 1 (0 names no category: a plan's "new") */
	cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	CHECK_EQ_INT(drt_cluster_set_id_base(cl, 0), 0);
	CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
	CHECK_EQ_INT(pl.cat, 1);
	drt_cluster_destroy(cl);
}

/* stats.bytes counts the co-match pairs as an idmap of 16-byte slots at
 * most half full, 64 slots at least: 45 pairs of 10 categories, one at a
 * time; the memory steps once, by 64 slots, at the 33rd pair. */
static void test_corr_bytes(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cluster_stats st;
	struct spate_sub q[10];
	uint32_t kw[10], cat[10];

	drt_params_default(&p);
	p.cmax = 1000;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 10; i++) {
		lone_sub(&q[i], &kw[i], i + 1, -150 + 30 * (int)i, 10, 100 + i);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created);
		cat[i] = pl.cat;
	}
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.corr_pairs, 0);
	size_t before = st.bytes;
	for (uint32_t i = 0; i < 10; i++)
		for (uint32_t j = i + 1; j < 10; j++) {
			uint32_t two[2] = { cat[i], cat[j] };
			drt_cluster_feedback(cl, two, 2);
			drt_cluster_stats(cl, &st);
			CHECK_EQ_INT(st.bytes - before, st.corr_pairs == 33 ? 64 * 16 : 0);
			before = st.bytes;
		}
	CHECK_EQ_INT(st.corr_pairs, 45);
	drt_cluster_destroy(cl);
}

/* SpatialSim of a category's box (area, floored area_sim) to r, as the
 * cluster's formula reads: the union in coordinates, areas in doubles. */
static double ref_sim(const struct spate_rect *box, double area, double area_sim,
		      const struct spate_rect *r)
{
	struct spate_rect u = {
		box->min_lon < r->min_lon ? box->min_lon : r->min_lon,
		box->min_lat < r->min_lat ? box->min_lat : r->min_lat,
		box->max_lon > r->max_lon ? box->max_lon : r->max_lon,
		box->max_lat > r->max_lat ? box->max_lat : r->max_lat,
	};
	double ex = ((double)u.max_lon - u.min_lon) * ((double)u.max_lat - u.min_lat) - area;

	return area_sim / (area_sim + ex);
}

/* drt_geo_sims against SpatialSim computed one rectangle at a time as
 * the cluster's formula reads (union in coordinates, areas in doubles):
 * the same doubles to the bit, for every count (the pairs and the odd
 * one), across growth and moves; rectangles on borders and edges. */
static void test_geo(uint64_t seed)
{
	enum { N = 37 };
	struct drt_geo g = { 0 };
	struct spate_rect box[N];
	double area[N], asim[N];

	check_rng = seed;
	CHECK_EQ_INT(drt_geo_reserve(&g, 4), 0);
	for (uint32_t i = 0; i < N; i++) {
		int32_t a = edge_coord(SPATE_LON_MAX), b = edge_coord(SPATE_LON_MAX);
		int32_t c = edge_coord(SPATE_LAT_MAX), d = edge_coord(SPATE_LAT_MAX);
		box[i] = (struct spate_rect){ a < b ? a : b, c < d ? c : d, a < b ? b : a,
					      c < d ? d : c };
		area[i] = ((double)box[i].max_lon - box[i].min_lon) *
			  ((double)box[i].max_lat - box[i].min_lat);
		asim[i] = area[i] < 1e12 ? 1e12 : area[i];
		if (i >= g.cap)
			CHECK_EQ_INT(drt_geo_reserve(&g, 2 * g.cap), 0);
		drt_geo_set(&g, i, &box[i], area[i], asim[i]);
	}
	/* a move, as a category leaving its slot does */
	drt_geo_move(&g, 3, N - 1);
	box[3] = box[N - 1];
	area[3] = area[N - 1];
	asim[3] = asim[N - 1];
	for (int k = 0; k < 50; k++) {
		int32_t a = edge_coord(SPATE_LON_MAX), b = edge_coord(SPATE_LON_MAX);
		int32_t c = edge_coord(SPATE_LAT_MAX), d = edge_coord(SPATE_LAT_MAX);
		struct spate_rect r = { a < b ? a : b, c < d ? c : d, a < b ? b : a,
					c < d ? d : c };
		uint32_t n = (uint32_t)k % N;
		const double *sim = drt_geo_sims(&g, n, &r);
		for (uint32_t i = 0; i < n; i++) {
			double want = ref_sim(&box[i], area[i], asim[i], &r);
			CHECK(memcmp(&sim[i], &want, sizeof(want)) == 0);
		}
	}
	/* a full table of an odd count: the pairs stop before the last
	 * slot, which is the last of the block (the sims' row is last) */
	struct drt_geo h = { 0 };
	long over0 = overruns;
	CHECK_EQ_INT(drt_geo_reserve(&h, 5), 0);
	for (uint32_t i = 0; i < 5; i++)
		drt_geo_set(&h, i, &box[i], area[i], asim[i]);
	const double *hs = drt_geo_sims(&h, 5, &box[5]);
	for (uint32_t i = 0; i < 5; i++) {
		double want = ref_sim(&box[i], area[i], asim[i], &box[5]);
		CHECK(memcmp(&hs[i], &want, sizeof(want)) == 0);
	}
	drt_geo_free(&h);
	CHECK_EQ_INT(overruns, over0);
	/* room enough already: nothing to do, not an error */
	uint32_t cap = g.cap;
	const double *v = g.v;
	CHECK_EQ_INT(drt_geo_reserve(&g, cap), 0);
	CHECK_EQ_INT(drt_geo_reserve(&g, 1), 0);
	CHECK(g.cap == cap && g.v == v);
	drt_geo_free(&g);
	CHECK(g.v == NULL && g.cap == 0 && drt_geo_bytes(&g) == 0);
	/* freed, then used again: it allocates anew */
	CHECK_EQ_INT(drt_geo_reserve(&g, 1), 0);
	CHECK(g.v != NULL && g.cap == 1);
	drt_geo_set(&g, 0, &box[0], area[0], asim[0]);
	/* no memory: -1 as documented, the table kept as it was */
	v = g.v;
	fail_at = allocs + 1;
	CHECK_EQ_INT(drt_geo_reserve(&g, 64), -1);
	fail_at = 0;
	CHECK(g.v == v && g.cap == 1 && g.v[0] == box[0].min_lon);
	drt_geo_free(&g);
}

/* At cmax with no co-match, a subscription near no category goes to
 * the spatially nearest of all (drt_geo_sims over the live ones by
 * slot): after a category empties and the last one takes its slot,
 * the nearest is still judged by the right rectangles. A at X1 and B
 * far away; A empties (B moves to A's slot); C near X1; a
 * subscription at X1 goes to C (the stale rectangle of A would name
 * B). */
static void test_nearest_after_unlive(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_removal rm;
	static const double box[5][2] = {
		{ 10, 10 }, { -100, -50 }, { 0, 0 }, { 20, 10 }, { 10, 10 }
	};
	struct spate_sub q[5];
	uint32_t cat[5];

	drt_params_default(&p);
	p.cmax = 2;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (int i = 0; i < 5; i++) {
		q[i] = (struct spate_sub){ .id = (uint64_t)i + 1 };
		q[i].rect = (struct spate_rect){ (int32_t)(box[i][0] * SPATE_COORD_SCALE),
						 (int32_t)(box[i][1] * SPATE_COORD_SCALE),
						 (int32_t)((box[i][0] + 1) * SPATE_COORD_SCALE),
						 (int32_t)((box[i][1] + 1) * SPATE_COORD_SCALE) };
		if (i == 2) { /* A empties: B takes its slot */
			CHECK_EQ_INT(drt_cluster_remove(cl, &q[0], &rm), 0);
			CHECK(rm.emptied);
			continue;
		}
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
		CHECK(pl.created == (i != 4));
	}
	CHECK_EQ_INT(drt_cluster_count(cl), 2);
	CHECK_EQ_INT(cat[4], cat[3]);
	drt_cluster_destroy(cl);
}

/* Out of memory at every allocation of a placement in turn: a failed
 * place changes nothing (no routing key, list entry, cell or footprint
 * entry left behind), then the place succeeds. Subscriptions of 1
 * degree over 3x3 cells of 0.5, one keyword each from a few, alpha 1:
 * many categories share each cell, so footprints and keyword lists are
 * arrays that grow. Every removal afterwards empties the index. */
static void test_place_no_memory(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cluster_stats a, b;
	static struct spate_sub q[120];
	static uint32_t kw[120], cat[120];
	int failed = 0;

	drt_params_default(&p);
	p.alpha = 1;
	p.cmax = 1000;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	check_rng = 99;
	for (uint32_t i = 0; i < 120; i++) {
		int32_t x = (int32_t)check_below(8) * (SPATE_COORD_SCALE / 4);
		int32_t y = (int32_t)check_below(8) * (SPATE_COORD_SCALE / 4);
		kw[i] = check_below(30);
		q[i] = (struct spate_sub){ .id = i + 1, .kw = &kw[i], .n_kw = 1 };
		q[i].rect =
			(struct spate_rect){ x, y, x + SPATE_COORD_SCALE, y + SPATE_COORD_SCALE };
		for (long k = 1;; k++) {
			drt_cluster_stats(cl, &b);
			fail_at = allocs + k;
			int rc = drt_cluster_place(cl, &q[i], &pl);
			fail_at = 0;
			cat[i] = pl.cat;
			if (rc == 0)
				break;
			failed++;
			CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
			drt_cluster_stats(cl, &a);
			CHECK_EQ_INT(a.route_keys, b.route_keys);
			CHECK_EQ_INT(a.route_entries, b.route_entries);
			CHECK_EQ_INT(a.cells, b.cells);
			CHECK_EQ_INT(a.cell_entries, b.cell_entries);
			CHECK_EQ_INT(a.categories, b.categories);
		}
	}
	CHECK(failed > 120);
	/* the counts are right: with every other sub gone, an event at each
	 * one left, with its keyword, is routed to its category */
	for (uint32_t i = 0; i < 120; i += 2) {
		struct drt_removal rm;
		CHECK_EQ_INT(drt_cluster_remove(cl, &q[i], &rm), 0);
	}
	for (uint32_t i = 1; i < 120; i += 2) {
		const struct drt_route *r;
		struct spate_event e = { .id = i,
					 .lon = q[i].rect.min_lon,
					 .lat = q[i].rect.max_lat,
					 .n_kw = 1,
					 .kw = &kw[i] };
		size_t n = drt_cluster_route(cl, &e, &r);
		bool found = false;
		for (size_t j = 0; j < n; j++)
			found |= r[j].cat == cat[i];
		CHECK(found);
	}
	for (uint32_t i = 1; i < 120; i += 2) {
		struct drt_removal rm;
		CHECK_EQ_INT(drt_cluster_remove(cl, &q[i], &rm), 0);
	}
	drt_cluster_stats(cl, &a);
	CHECK_EQ_INT(a.route_keys + a.route_entries + a.cells + a.cell_entries, 0);
	drt_cluster_destroy(cl);
}

/* Place q, which must succeed, opening a category or not as said;
 * its category id. */
static uint32_t placed(struct drt_cluster *cl, const struct spate_sub *q, struct drt_placement *pl,
		       bool created)
{
	CHECK_EQ_INT(drt_cluster_place(cl, q, pl), 0);
	CHECK(pl->created == created);
	return pl->cat;
}

/* route_cell and workers change at the next start only: each refusal
 * names the parameter and what it shapes (workers first when both
 * change), and the cluster keeps its parameters: a live change is
 * taken afterwards. */
static void test_set_params_refused(void)
{
	struct drt_params p, q;
	char err[200];

	drt_params_default(&p);
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	q = p;
	q.workers = 2;
	CHECK_EQ_INT(drt_cluster_set_params(cl, &q, err, sizeof(err)), -1);
	CHECK(strcmp(err, "workers changes at the next start only (it shapes the placement)") == 0);
	q = p;
	q.route_cell = 1;
	CHECK_EQ_INT(drt_cluster_set_params(cl, &q, err, sizeof(err)), -1);
	CHECK(strcmp(err, "route_cell changes at the next start only (it shapes the routing "
			  "grid)") == 0);
	q.workers = 3;
	CHECK_EQ_INT(drt_cluster_set_params(cl, &q, err, sizeof(err)), -1);
	CHECK(strcmp(err, "workers changes at the next start only (it shapes the placement)") == 0);
	q = p;
	q.new_th = 0.9;
	CHECK_EQ_INT(drt_cluster_set_params(cl, &q, err, sizeof(err)), 0);
	drt_cluster_destroy(cl);
}

/* Placement ties go to the first category met (q's cells in order, a
 * footprint list in order): alpha 1, A {7} then B {8} in one routing
 * cell (B is no match for A's keywords: a category of its own), q
 * {7, 8} there: KeySim 1/2 with each, Sim exactly 0.5 = new_th; q
 * joins A, listed first. */
static void test_place_tie_first(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q[3];
	uint32_t kw[3], two[2] = { 7, 8 }, cat[2];

	drt_params_default(&p);
	p.alpha = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 3; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, 100 + 20 * (int)i, 100, 7 + i);
		if (i == 2) {
			q[i].kw = two;
			q[i].n_kw = 2;
		}
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created == (i < 2));
		if (i < 2)
			cat[i] = pl.cat;
	}
	CHECK_EQ_INT(pl.cat, cat[0]);
	CHECK(cat[0] != cat[1]);
	drt_cluster_destroy(cl);
}

/* With no category near and cmax reached (variant fre: no merging), q
 * joins the most similar of all, Sim = alpha KeySim + (1 - alpha)
 * SpatialSim: alpha 0.2, A = [0,1]x[0,1] with q's keyword (SpatialSim
 * 1/3.5 to q = [2.5,3.5]x[0,1]: 0.2 + 0.8 / 3.5 = 0.429), B =
 * [6.5,10.5]x[0,4] without (16 / 32: 0.8 x 0.5 = 0.4). q goes to A;
 * with the spatial weight 1.2 or 1.8 it would go to B. */
static void test_best_anywhere(void)
{
	static const double box[3][4] = { { 0, 0, 1, 1 }, { 6.5, 0, 10.5, 4 }, { 2.5, 0, 3.5, 1 } };
	static uint32_t kws[3] = { 7, 8, 7 };
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q[3];
	uint32_t cat[3];

	drt_params_default(&p);
	p.variant = DRT_SIM_FRE;
	p.cmax = 2;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 3; i++) {
		q[i] = (struct spate_sub){ .id = i + 1, .kw = &kws[i], .n_kw = 1 };
		q[i].rect = (struct spate_rect){ (int32_t)(box[i][0] * SPATE_COORD_SCALE),
						 (int32_t)(box[i][1] * SPATE_COORD_SCALE),
						 (int32_t)(box[i][2] * SPATE_COORD_SCALE),
						 (int32_t)(box[i][3] * SPATE_COORD_SCALE) };
		cat[i] = placed(cl, &q[i], &pl, i < 2);
	}
	CHECK_EQ_INT(cat[2], cat[0]);
	CHECK_EQ_INT(drt_cluster_count(cl), 2);
	drt_cluster_destroy(cl);
}

/* Out of memory half-way through q's keywords: the counts already taken
 * go back, the first one too. q has 7 new keywords (the category's and
 * the global keyword tables grow at the 7th); after it is placed, with
 * a failure at every allocation in turn first, k0 and k6 are carried
 * once each: a sub {k0, k6} is routed by k0 (ties go to the first). */
static void test_keywords_no_memory(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q, r;
	uint32_t kw[7] = { 40, 41, 42, 43, 44, 45, 46 }, two[2] = { 40, 46 };
	int failed = 0;

	drt_params_default(&p);
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	q = (struct spate_sub){ .id = 1, .kw = kw, .n_kw = 7 };
	q.rect = (struct spate_rect){ 0, 0, SPATE_COORD_SCALE / 10, SPATE_COORD_SCALE / 10 };
	for (long k = 1;; k++) {
		fail_at = allocs + k;
		int rc = drt_cluster_place(cl, &q, &pl);
		fail_at = 0;
		if (rc == 0)
			break;
		CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
		failed++;
	}
	/* the same summaries as a twin that placed q at once: every
	 * keyword counted (the 7th grew the keyword tables), same bytes */
	struct drt_cluster *twin = drt_cluster_create(&p);
	struct drt_cluster_stats a, b;
	CHECK_EQ_INT(drt_cluster_place(twin, &q, &pl), 0);
	drt_cluster_stats(cl, &a);
	drt_cluster_stats(twin, &b);
	CHECK_EQ_INT(a.bytes, b.bytes);
	CHECK_EQ_INT(a.route_keys, b.route_keys);
	CHECK_EQ_INT(a.cells, b.cells);
	CHECK_EQ_INT(a.categories, 1);
	drt_cluster_destroy(twin);
	r = q;
	r.id = 2;
	r.kw = two;
	r.n_kw = 2;
	CHECK_EQ_INT(drt_cluster_place(cl, &r, &pl), 0);
	CHECK_EQ_INT(pl.route_kw, 40 + 1); /* 40 and 46 carried once each */
	/* every keyword of q once: 41..45 each against a new one carried
	 * once (z), each probe routed by the keyword of q */
	uint32_t zk[5] = { 90, 91, 92, 93, 94 }, pair[5][2];
	struct spate_sub z = q;
	z.id = 3;
	z.kw = zk;
	z.n_kw = 5;
	CHECK_EQ_INT(drt_cluster_place(cl, &z, &pl), 0);
	for (uint32_t k = 0; k < 5; k++) {
		pair[k][0] = 41 + k;
		pair[k][1] = zk[k];
		r.id = 4 + k;
		r.kw = pair[k];
		CHECK_EQ_INT(drt_cluster_place(cl, &r, &pl), 0);
		CHECK_EQ_INT(pl.route_kw, 41 + k + 1);
	}
	drt_cluster_destroy(cl);
}

/* stats.bytes counts the record of every category, a merged-away part
 * too, while it lives. A and B (co-matched) and cmax 2: C's category
 * makes 3, A and B merge; then the sub of the one merged away goes and
 * its record with it (each has a cell of its own: no list names it any
 * more). The bytes rise at C's placement by what they fall at that
 * removal: one record (C's keyword table came as the part's went, and
 * no table grows or shrinks). */
static void test_bytes_part_record(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_removal rm;
	struct drt_cluster_stats st;
	struct drt_action a[4];
	struct spate_sub q[3];
	uint32_t kw[3], cat[3];
	size_t b1 = 0, b2;

	drt_params_default(&p);
	p.alpha = 1;
	p.cmax = 2;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 3; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, 100 + 3000 * (int)i, 100, 7 + i);
		if (i == 2) {
			drt_cluster_feedback(cl, cat, 2);
			drt_cluster_stats(cl, &st);
			b1 = st.bytes;
		}
		cat[i] = placed(cl, &q[i], &pl, true);
	}
	drt_cluster_stats(cl, &st);
	b2 = st.bytes;
	CHECK_EQ_INT(st.categories, 2);
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
	CHECK((a[0].cat == cat[0] && a[0].into == cat[1]) ||
	      (a[0].cat == cat[1] && a[0].into == cat[0]));
	CHECK_EQ_INT(drt_cluster_remove(cl, &q[a[0].cat == cat[0] ? 0 : 1], &rm), 0);
	CHECK(!rm.emptied);
	drt_cluster_stats(cl, &st);
	CHECK(b2 > b1);
	CHECK_EQ_INT(b2 - b1, b2 - st.bytes);
	drt_cluster_destroy(cl);
}

/* The routing table fills up to 6/8 below ROUTE_DENSE_BYTES (16 MiB),
 * 7/8 from there on: 2^20 slots of 16 bytes hold up to 917,504 keys,
 * where at 6/8 they would double at 786,433. 256 places of 4 x 4
 * routing cells (0.5 degree), 200 keywords filed in each (16 keys a
 * sub, 819,200 in all): from 700,800 keys to the end the memory grows
 * by a few categories' keyword tables, not by a 32 MiB routing table. */
static void test_route_dense(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cluster_stats st;
	struct spate_sub q = { 0 };
	uint32_t kw;
	size_t mid = 0;
	const int32_t cell = SPATE_COORD_SCALE / 2;

	drt_params_default(&p);
	p.rare_kw = 0; /* every sub on its 16 fine cells */
	p.cmax = 1000;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	q.kw = &kw;
	q.n_kw = 1;
	for (uint32_t at = 0; at < 256; at++) {
		int32_t x = (int32_t)(at % 16) * 4 * cell, y = (int32_t)(at / 16) * 4 * cell;
		q.rect = (struct spate_rect){ x + 1, y + 1, x + 4 * cell - 1, y + 4 * cell - 1 };
		for (kw = 0; kw < 200; kw++) {
			q.id++;
			CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
		}
		if (at == 218) { /* 700,800 keys */
			drt_cluster_stats(cl, &st);
			CHECK_EQ_INT(st.route_keys, 700800);
			mid = st.bytes;
		}
	}
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.route_keys, 819200);
	CHECK_EQ_INT(st.route_entries, 819200);
	CHECK_EQ_INT(st.categories, 256);
	CHECK_EQ_INT(st.cells, 4096); /* a category in each */
	CHECK_EQ_INT(st.cell_entries, 4096);
	CHECK(mid != 0 && st.bytes - mid < (1u << 20));
	drt_cluster_destroy(cl);
}

/* A removal takes one off each of its keywords' counts, no more: two
 * subs carry keyword 9, one 5, in one category (placed by space); one
 * of the 9s goes. Then with alpha 1, {5, 9} is routed by 5 (one sub
 * each: ties go to the first) and joins (KeySim (1/2 + 1/2) / 2 =
 * new_th); {9} joins too (9 is 2 of the category's 4 keywords). */
static void test_keyword_count_down(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_removal rm;
	struct spate_sub q[5];
	uint32_t kw[5] = { 9, 9, 5, 5, 9 }, two[2] = { 5, 9 };
	uint32_t cat = 0;

	drt_params_default(&p);
	p.alpha = 0;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 5; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, 100, 100, kw[i]);
		if (i == 3) {
			CHECK_EQ_INT(drt_cluster_remove(cl, &q[0], &rm), 0);
			p.alpha = 1;
			CHECK_EQ_INT(drt_cluster_set_params(cl, &p, NULL, 0), 0);
			q[i].kw = two;
			q[i].n_kw = 2;
		}
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		if (i == 0)
			cat = pl.cat;
		CHECK_EQ_INT(pl.cat, cat);
		if (i == 3)
			CHECK_EQ_INT(pl.route_kw, 5 + 1);
	}
	CHECK_EQ_INT(drt_cluster_count(cl), 1);
	drt_cluster_destroy(cl);
}

/* cat_cap with two workers and more: a category takes no sub once it
 * holds max(16, cat_cap x subs / workers) (placement looks at the size
 * before q). Subs all alike go to the first category met below the
 * cap, else open one: the model's choice, sub by sub. One worker: no
 * cap. */
static void test_place_cap(uint32_t workers, double cat_cap, uint32_t n, double alpha)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q;
	uint32_t kw = 3, size[64], id[64], n_cat = 0;

	drt_params_default(&p);
	p.workers = workers;
	p.cat_cap = cat_cap;
	p.alpha = alpha;
	p.place_slack = 1e6;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t k = 0; k < n; k++) {
		double c = cat_cap * (double)k / workers;
		uint64_t cap = workers < 2 || cat_cap <= 0 ? UINT64_MAX : c < 16 ? 16 : (uint64_t)c;
		uint32_t want = 0;
		while (want < n_cat && size[want] >= cap)
			want++;
		tiny_sub(&q, &kw, k + 1, 100, 100, 3);
		CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
		CHECK(pl.created == (want == n_cat));
		if (want == n_cat) {
			CHECK(n_cat < 64);
			if (n_cat == 64)
				break;
			id[n_cat] = pl.cat;
			size[n_cat++] = 0;
		}
		CHECK_EQ_INT(pl.cat, id[want]);
		size[want]++;
	}
	CHECK_EQ_INT(drt_cluster_count(cl), n_cat);
	drt_cluster_destroy(cl);
}

/* SpatialSim off the equator: areas are width x height whatever the
 * latitude. Space alone, new_th 0.5: a category [0,1]x[10,11] and q =
 * [0,1]x[11,12.5] (1 / 2.5 = 0.4): a new category; q' =
 * [0,1]x[9.8,10.8] (1 / 1.2 = 0.83) joins the first. */
static void test_spatial_off_equator(void)
{
	static const double lat[3][2] = { { 10, 11 }, { 11, 12.5 }, { 9.8, 10.8 } };
	struct drt_placement pl;
	struct spate_sub q[3];
	uint32_t cat[3];

	struct drt_cluster *cl = space_only_cluster();
	for (int i = 0; i < 3; i++) {
		q[i] = (struct spate_sub){ .id = (uint64_t)i + 1 };
		q[i].rect = (struct spate_rect){ 0, (int32_t)(lat[i][0] * SPATE_COORD_SCALE),
						 SPATE_COORD_SCALE,
						 (int32_t)(lat[i][1] * SPATE_COORD_SCALE) };
		cat[i] = placed(cl, &q[i], &pl, i < 2);
	}
	CHECK_EQ_INT(cat[2], cat[0]);
	drt_cluster_destroy(cl);
}

/* More actions queued than the queue's first block holds: 25
 * categories, then cmax 2: the next placement (into the nearest: no
 * co-match yet) merges 23 of them at once; all 23 handed out, every
 * category merged away once and never named again. */
static void test_many_merges(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[40];
	struct spate_sub q[26];
	uint32_t kw[26];
	char err[200];

	drt_params_default(&p);
	p.new_th = 1;
	p.cmax = 1000;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 26; i++) {
		if (i == 25) {
			p.cmax = 2;
			CHECK_EQ_INT(drt_cluster_set_params(cl, &p, err, sizeof(err)), 0);
		}
		lone_sub(&q[i], &kw[i], i + 1, -170 + 13 * (int)i, 5 * (int)(i % 7), 100 + i);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created == (i < 25));
	}
	CHECK_EQ_INT(drt_cluster_count(cl), 2);
	size_t n = drt_cluster_take_actions(cl, a, 40);
	CHECK_EQ_INT(n, 23);
	uint32_t total = 0;
	for (size_t i = 0; i < n && i < 40; i++) {
		CHECK_EQ_INT(a[i].kind, DRT_ACTION_MERGE);
		CHECK(a[i].cat >= 1 && a[i].cat <= 26 && a[i].into >= 1 && a[i].into <= 26);
		for (size_t j = 0; j < i; j++)
			CHECK(a[j].cat != a[i].cat && a[j].cat != a[i].into);
		total += a[i].size;
	}
	CHECK(total >= 23); /* each merge moves a sub at least */
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 40), 0);
	drt_cluster_destroy(cl);
}

/* At cmax with no co-match, q goes into its nearest category only
 * where that stays within cat_cap (16 here: max(16, 0.1 x 32 / 2)):
 * two workers, A (worker 0) holding na, B (worker 1) holding nb; q far
 * from both, nearer A (so worker 0 is tried first). A below the cap
 * takes q; else B below it, across workers when merge_th allows;
 * else q opens a third category instead of making one 17. */
static void test_place_nearest_full(uint32_t na, uint32_t nb, double merge_th)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q;
	uint32_t kw = 3, cat[2] = { 0, 0 };

	drt_params_default(&p);
	p.workers = 2;
	p.cmax = 2;
	p.merge_th = merge_th;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < na + nb; i++) {
		uint32_t b = i >= na;
		tiny_sub(&q, &kw, i + 1, b ? 50000 : 1000, 1000, 3);
		CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
		CHECK(pl.created == (i == 0 || i == na));
		if (i == 0 || i == na)
			cat[b] = pl.cat;
		CHECK_EQ_INT(pl.cat, cat[b]);
		CHECK_EQ_INT(pl.worker, b);
	}
	tiny_sub(&q, &kw, 40, 5000, 40000, 3);
	CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
	/* A if it has room, else B if merges may cross workers and it has */
	int want = na < 16 ? 0 : nb < 16 && merge_th > 0 ? 1 : -1;
	CHECK(pl.created == (want < 0));
	if (want >= 0)
		CHECK_EQ_INT(pl.cat, cat[want]);
	CHECK_EQ_INT(drt_cluster_count(cl), 2 + (want < 0));
	drt_cluster_destroy(cl);
}

/* The most similar category of all may score 0 (alpha 1, no keyword in
 * common): at cmax (variant fre), q still joins one, the first. */
static void test_best_anywhere_zero(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q[3];
	uint32_t kw[3], cat[3];

	drt_params_default(&p);
	p.variant = DRT_SIM_FRE;
	p.alpha = 1;
	p.cmax = 2;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 3; i++) {
		lone_sub(&q[i], &kw[i], i + 1, -100 + 60 * (int)i, 20, 7 + i);
		cat[i] = placed(cl, &q[i], &pl, i < 2);
	}
	CHECK_EQ_INT(cat[2], cat[0]);
	CHECK_EQ_INT(drt_cluster_count(cl), 2);
	drt_cluster_destroy(cl);
}

/* stats.bytes as categories come, each with a cell and keyword of its
 * own: a step costs the category alone, but where an array doubles.
 * At the 17th, 33rd and 65th category the category array and its
 * route output (pointers and drt_route) and the geometry table double;
 * at the 33rd and 65th the id map's estimate (16-byte slots at most
 * half full, 64 at least) too; at the 65th the pool (a pointer and a
 * free number a category). The routing, cell and keyword tables
 * double at the 7th and 13th category (a key of each: more than 6/8 of
 * 8, 16 slots), slots of 16, 8 + 8 + 256 (the footprint word and a
 * 2048-bit keyword filter) and 16 bytes; again at the 25th, 49th and
 * 97th. */
static void test_cats_growth_bytes(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cluster_stats st;
	struct spate_sub q;
	uint32_t kw;
	size_t b[67], geo[4];

	drt_params_default(&p);
	p.new_th = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 66; i++) {
		tiny_sub(&q, &kw, i + 1, -170000 + 5000 * (int)i, 10000 * (int)(i % 5), 200 + i);
		CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
		CHECK(pl.created);
		drt_cluster_stats(cl, &st);
		b[i + 1] = st.bytes;
	}
	for (int k = 0; k < 4; k++) {
		struct drt_geo g = { 0 };
		CHECK_EQ_INT(drt_geo_reserve(&g, 16u << k), 0);
		geo[k] = drt_geo_bytes(&g);
		drt_geo_free(&g);
	}
	size_t arr = sizeof(void *) + sizeof(struct drt_route), plain = b[16] - b[15];
	CHECK_EQ_INT(b[7] - b[6], plain + 8 * (16 + 272 + 16));
	CHECK_EQ_INT(b[13] - b[12], plain + 16 * (16 + 272 + 16));
	CHECK_EQ_INT(b[17] - b[16], plain + 16 * arr + geo[1] - geo[0]);
	CHECK_EQ_INT(b[18] - b[17], plain);
	CHECK_EQ_INT(b[32] - b[31], plain);
	CHECK_EQ_INT(b[33] - b[32], plain + 32 * arr + geo[2] - geo[1] + 64 * 16);
	CHECK_EQ_INT(b[64] - b[63], plain);
	CHECK_EQ_INT(b[65] - b[64], plain + 64 * arr + geo[3] - geo[2] + 128 * 16 +
					    64 * (sizeof(void *) + sizeof(uint32_t)));
	CHECK_EQ_INT(b[66] - b[65], plain);
	drt_cluster_destroy(cl);
}

/* A period's end out of memory says so (its snapshot of the co-match
 * pairs, then each block of the rebalance) and moves nothing; then it
 * goes through. */
static void test_period_no_memory(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cluster_stats st;
	struct spate_sub q[4];
	uint32_t kw[4], cat[4];

	drt_params_default(&p);
	p.workers = 2;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 4; i++) {
		lone_sub(&q[i], &kw[i], i + 1, -150 + 60 * (int)i, 10, 100 + i);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
	}
	drt_cluster_feedback(cl, cat, 4);
	for (long k = 1; k <= 4; k++) {
		fail_at = allocs + k;
		CHECK_EQ_INT(drt_cluster_period_end(cl), -SPATE_E_NO_MEMORY);
		fail_at = 0;
		drt_cluster_stats(cl, &st);
		CHECK_EQ_INT(st.moves, 0);
	}
	CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
	drt_cluster_destroy(cl);
	/* one category: nothing to balance, no block for it; the second
	 * allocation is the aged pairs' snapshot, whose loss is no error */
	cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	CHECK_EQ_INT(drt_cluster_place(cl, &q[0], &pl), 0);
	fail_at = allocs + 2;
	CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
	fail_at = 0;
	drt_cluster_destroy(cl);
}

/* Out of memory while a sub joins a category, half-way through its
 * keywords (the category's and the global tables grow at the 13th
 * key): what was counted goes back, in the category too. Against a
 * twin that placed it at once: after the sub goes again, a {30, 34,
 * 35} sub with alpha 1 and new_th 0.04 finds none left in the category
 * and opens its own, in both. */
static void test_join_no_memory(void)
{
	struct drt_params p;
	struct drt_placement pl, tw;
	struct drt_removal rm;
	struct drt_cluster_stats a, b;
	struct spate_sub q1[2], q2[2], r[2];
	uint32_t kw1[7] = { 40, 41, 42, 43, 44, 45, 46 }, kw2[7] = { 30, 31, 32, 33, 34, 35, 36 };
	uint32_t kw3[3] = { 30, 34, 35 };
	int failed = 0;

	drt_params_default(&p);
	struct drt_cluster *cl[2] = { drt_cluster_create(&p), drt_cluster_create(&p) };
	CHECK(cl[0] != NULL && cl[1] != NULL);
	for (int t = 0; t < 2; t++) {
		q1[t] = (struct spate_sub){ .id = 1, .kw = kw1, .n_kw = 7 };
		q1[t].rect =
			(struct spate_rect){ 0, 0, SPATE_COORD_SCALE / 10, SPATE_COORD_SCALE / 10 };
		q2[t] = q1[t];
		q2[t].id = 2;
		q2[t].kw = kw2;
		r[t] = q1[t];
		r[t].id = 3;
		r[t].kw = kw3;
		r[t].n_kw = 3;
		CHECK_EQ_INT(drt_cluster_place(cl[t], &q1[t], &pl), 0);
	}
	CHECK_EQ_INT(drt_cluster_place(cl[1], &q2[1], &tw), 0);
	for (long k = 1;; k++) {
		fail_at = allocs + k;
		int rc = drt_cluster_place(cl[0], &q2[0], &pl);
		fail_at = 0;
		if (rc == 0)
			break;
		CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
		failed++;
	}
	CHECK(failed >= 2);
	CHECK(!pl.created && !tw.created);
	drt_cluster_stats(cl[0], &a);
	drt_cluster_stats(cl[1], &b);
	CHECK_EQ_INT(a.bytes, b.bytes);
	p.alpha = 1;
	p.new_th = 0.04; /* one count left of 7 keywords: 1/7/3 = 0.048 */
	for (int t = 0; t < 2; t++) {
		CHECK_EQ_INT(drt_cluster_remove(cl[t], &q2[t], &rm), 0);
		CHECK_EQ_INT(drt_cluster_set_params(cl[t], &p, NULL, 0), 0);
		CHECK_EQ_INT(drt_cluster_place(cl[t], &r[t], t ? &tw : &pl), 0);
		drt_cluster_destroy(cl[t]);
	}
	CHECK(tw.created);
	CHECK(pl.created);
}

/* Co-match counts are kept when something reads them: merging
 * (variant freco) or balancing (2 workers and more); fre on one worker
 * keeps none. */
static void test_feedback_kept(void)
{
	static const uint32_t variant[4] = { DRT_SIM_FRE, DRT_SIM_FRE, DRT_SIM_FRE,
					     DRT_SIM_FRE_CO };
	static const uint32_t workers[4] = { 1, 2, 3, 1 };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cluster_stats st;
	struct spate_sub q[2];
	uint32_t kw[2], cat[2];

	for (int t = 0; t < 4; t++) {
		drt_params_default(&p);
		p.variant = variant[t];
		p.workers = workers[t];
		struct drt_cluster *cl = drt_cluster_create(&p);
		CHECK(cl != NULL);
		for (uint32_t i = 0; i < 2; i++) {
			lone_sub(&q[i], &kw[i], i + 1, -100 + 90 * (int)i, 10, 100 + i);
			CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
			cat[i] = pl.cat;
		}
		drt_cluster_feedback(cl, cat, 2);
		drt_cluster_stats(cl, &st);
		CHECK_EQ_INT(st.corr_pairs, t > 0);
		drt_cluster_destroy(cl);
	}
}

/* At cmax with no co-match, q goes to its spatially nearest category,
 * the first of equals: A = [0,1]x[0,1] and B = [4,5]x[0,1] are both at
 * SpatialSim 1/3 from q = [2,3]x[0,1]; q joins A. */
static void test_nearest_tie(void)
{
	static const int lon[3] = { 0, 4, 2 };
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q[3];
	uint32_t kw[3], cat[3];

	drt_params_default(&p);
	p.cmax = 2;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 3; i++) {
		lone_sub(&q[i], &kw[i], i + 1, lon[i], 0, 7);
		cat[i] = placed(cl, &q[i], &pl, i < 2);
	}
	CHECK_EQ_INT(cat[2], cat[0]);
	drt_cluster_destroy(cl);
}

/* Every co-matched category with a finite MergeJudgePara: the largest
 * finite one decides (a category never co-matched, CS + CD = 0, is
 * left out, not taken as infinite). Two workers, A and B on different
 * ones co-matched 3 times (MJP 0 each, below merge_th 1), C never:
 * cmax 3, D's category makes 4 and A and B merge across workers. */
static void test_merge_all_finite(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct drt_cluster_stats st;
	struct spate_sub q[4];
	uint32_t kw[4], cat[4], wk[4];

	drt_params_default(&p);
	p.workers = 2;
	p.cmax = 3;
	p.place_slack = 0;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 4; i++) {
		if (i == 3)
			for (int t = 0; t < 3; t++)
				drt_cluster_feedback(cl, cat, 2);
		lone_sub(&q[i], &kw[i], i + 1, -150 + 60 * (int)i, 10, 100 + i);
		cat[i] = placed(cl, &q[i], &pl, true);
		wk[i] = pl.worker;
	}
	CHECK(wk[0] != wk[1]);
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
	CHECK((a[0].cat == cat[0] && a[0].into == cat[1]) ||
	      (a[0].cat == cat[1] && a[0].into == cat[0]));
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.merges_between_nodes, 1);
	CHECK_EQ_INT(st.merges_no_corr, 0);
	drt_cluster_destroy(cl);
}

/* Pairs as correlated as each other: the one with the lowest ids
 * merges (the category's, then its partner's). One worker, 4
 * categories, pairs (1,3) (1,4) (2,3) (2,4) (3,4) co-matched twice
 * each: 1 and 3 merge, 1 into 3 (equal sizes: the partner takes). */
static void test_merge_tie_ids(void)
{
	static const uint32_t pair[5][2] = { { 1, 3 }, { 1, 4 }, { 2, 3 }, { 2, 4 }, { 3, 4 } };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct spate_sub q[5];
	uint32_t kw[5];

	drt_params_default(&p);
	p.cmax = 4;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 5; i++) {
		if (i == 4)
			for (int k = 0; k < 5; k++)
				for (int t = 0; t < 2; t++)
					drt_cluster_feedback(cl, pair[k], 2);
		lone_sub(&q[i], &kw[i], i + 1, -150 + 60 * (int)i, 10, 100 + i);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created);
		CHECK_EQ_INT(pl.cat, i + 1);
	}
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
	CHECK_EQ_INT(a[0].cat, 1);
	CHECK_EQ_INT(a[0].into, 3);
	drt_cluster_destroy(cl);
}

/* Placement looks in q's cells and in the world row: q, small, joins
 * the category of a sub over the whole world (filed in the world row)
 * that holds its rectangle. */
static void test_place_world_row(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub w, q;
	uint32_t kw[2];

	drt_params_default(&p);
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	lone_sub(&w, &kw[0], 1, 0, 0, 7);
	w.rect =
		(struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX, SPATE_LON_MAX, SPATE_LAT_MAX };
	CHECK_EQ_INT(drt_cluster_place(cl, &w, &pl), 0);
	uint32_t cat = pl.cat;
	tiny_sub(&q, &kw[1], 2, 100, 100, 7);
	CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
	CHECK(!pl.created);
	CHECK_EQ_INT(pl.cat, cat);
	drt_cluster_destroy(cl);
}

/* A category is one candidate however many of q's cells list it: A
 * and B in all 16 cells of q (32 list entries, MAX_CANDIDATES) do not
 * crowd out W in the world row, which has q's keyword (alpha 1): q
 * joins W. */
static void test_place_candidates_once(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub s[4];
	uint32_t kw[4] = { 1, 2, 3, 3 }, cat[4];
	const int32_t cell = SPATE_COORD_SCALE / 2;

	drt_params_default(&p);
	p.alpha = 1;
	p.rare_kw = 0; /* A and B on their fine cells */
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 4; i++) {
		s[i] = (struct spate_sub){ .id = i + 1, .kw = &kw[i], .n_kw = 1 };
		s[i].rect = i == 2 ? (struct spate_rect){ -SPATE_LON_MAX, -SPATE_LAT_MAX,
							  SPATE_LON_MAX, SPATE_LAT_MAX }
				   : (struct spate_rect){ 1, 1, 4 * cell - 1, 4 * cell - 1 };
		CHECK_EQ_INT(drt_cluster_place(cl, &s[i], &pl), 0);
		CHECK(pl.created == (i < 3));
		cat[i] = pl.cat;
	}
	CHECK_EQ_INT(cat[3], cat[2]);
	drt_cluster_destroy(cl);
}

/* A new category goes to the worker of its most similar category
 * while that worker holds at most (1 + place_slack) x the mean with
 * it, else to the emptiest: slack 0.5, A on worker 0, B (far) on 1
 * (2 > 1.5 x 1), C beside B on 1 (2 <= 1.5 x 1.5), though both
 * workers hold one sub then (the emptiest would be 0). */
static void test_new_cat_worker_slack(void)
{
	static const int at[3] = { -100, 50, 52 };
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q[3];
	uint32_t kw[3];

	drt_params_default(&p);
	p.workers = 2;
	p.place_slack = 0.5;
	p.new_th = 1; /* C a category of its own */
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 3; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, at[i] * 1000, 10000, 7);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK(pl.created);
		CHECK_EQ_INT(pl.worker, i > 0);
	}
	drt_cluster_destroy(cl);
}

/* A merge recounts CS and CD from the pairs it leaves: two workers,
 * A and C on 0, B and D on 1; A-C co-matched 5 times, C-B and A-D
 * once. E's category (cmax 4) merges A into C (MJP 5 each, pair A-C
 * the largest); A-C is gone and A-D is C-D, so C has CS 0, CD 2 (MJP
 * 0, as B's and D's): at F's, the largest MJP is 0, below merge_th 1,
 * and B merges into C across workers (with C's old CS 5, MJP 5 would
 * keep merges inside workers). */
static void test_merge_recounts(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct drt_cluster_stats st;
	struct spate_sub q[6];
	uint32_t kw[6], cat[6];

	drt_params_default(&p);
	p.workers = 2;
	p.cmax = 4;
	p.place_slack = 0;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 6; i++) {
		if (i == 4) {
			uint32_t ac[2] = { cat[0], cat[2] }, cb[2] = { cat[2], cat[1] };
			uint32_t ad[2] = { cat[0], cat[3] };
			for (int t = 0; t < 5; t++)
				drt_cluster_feedback(cl, ac, 2);
			drt_cluster_feedback(cl, cb, 2);
			drt_cluster_feedback(cl, ad, 2);
		}
		lone_sub(&q[i], &kw[i], i + 1, -170 + 60 * (int)i, 10, 100 + i);
		cat[i] = placed(cl, &q[i], &pl, true);
		if (i < 4)
			CHECK_EQ_INT(pl.worker, i % 2);
		size_t n = drt_cluster_take_actions(cl, a, 4);
		CHECK_EQ_INT(n, i >= 4);
		if (i == 4)
			CHECK(a[0].cat == cat[0] && a[0].into == cat[2]);
		if (i == 5)
			CHECK(a[0].cat == cat[1] && a[0].into == cat[2]);
		/* A's pairs are C's now: C-B and C-D, then C-D */
		drt_cluster_stats(cl, &st);
		CHECK_EQ_INT(st.corr_pairs, i < 4 ? 0 : i == 4 ? 2 : 1);
	}
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.merges_no_corr, 0);
	CHECK_EQ_INT(st.merges_between_nodes, 1);
	CHECK_EQ_INT(st.data_moved, 1); /* B's sub */
	CHECK_EQ_INT(st.merges_in_node, 1);
	CHECK_EQ_INT(st.merged_in_node_subs, 1); /* A's */
	drt_cluster_destroy(cl);
}

/* place_begin's filing goes stale when the tables change before
 * place_end (against the rule: nothing may touch cl in between): end
 * looks q's keys up afresh. q1 begun, q2 placed (new keys and cells),
 * q1 ended: an event at q1 with its keyword routes to q1's category,
 * and removing both leaves no key behind. */
static void test_place_plan_stale(void)
{
	struct drt_params p;
	struct drt_placement pl1, pl2;
	struct drt_place_plan plan;
	struct drt_removal rm;
	struct drt_cluster_stats st;
	const struct drt_route *r;
	struct spate_sub q1, q2;
	uint32_t kw1, kw2;

	drt_params_default(&p);
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	tiny_sub(&q1, &kw1, 1, 10000, 10000, 7);
	tiny_sub(&q2, &kw2, 2, 50000, 10000, 8);
	drt_cluster_place_begin(cl, &q1, &plan);
	CHECK_EQ_INT(drt_cluster_place(cl, &q2, &pl2), 0);
	CHECK_EQ_INT(drt_cluster_place_end(cl, &q1, &plan, &pl1), 0);
	struct spate_event e = {
		.id = 1, .lon = q1.rect.min_lon, .lat = q1.rect.min_lat, .n_kw = 1, .kw = &kw1
	};
	size_t n = drt_cluster_route(cl, &e, &r);
	CHECK_EQ_INT(n, 1);
	CHECK(n == 1 && r[0].cat == pl1.cat);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.route_keys, 2);
	CHECK_EQ_INT(st.cells, 2);
	CHECK_EQ_INT(drt_cluster_remove(cl, &q1, &rm), 0);
	CHECK_EQ_INT(drt_cluster_remove(cl, &q2, &rm), 0);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.route_keys + st.route_entries + st.cells + st.cell_entries, 0);
	drt_cluster_destroy(cl);
}

/* stats.bytes counts a routing list or a cell's footprint that holds
 * more than one category as its array: an 8-byte header and 4 entries
 * of 8 bytes at first. Alpha 1, one cell: A {7, 20}, then C {9}
 * elsewhere (a category alone), then B {8} beside A: B costs what C
 * did and the cell's footprint array [A, B]. B2 {8} joins B; E {7, 8}
 * is routed by 7 (1 sub against 2) and joins B (KeySim 1/2 against
 * A's 1/4): the list under (cell, 7) becomes the array [A, B], and
 * E's removal gives it back. */
static void test_list_array_bytes(void)
{
	static const uint32_t kws[6][2] = { { 7, 20 }, { 9 }, { 8 }, { 8 }, { 7, 8 } };
	static const uint16_t nkw[6] = { 2, 1, 1, 1, 2 };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_removal rm;
	struct drt_cluster_stats st;
	struct spate_sub q[5];
	uint32_t kw, cat[5];
	size_t b[6];
	const size_t arr = 8 + 4 * 8;

	drt_params_default(&p);
	p.alpha = 1;
	p.rare_kw = 0;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	drt_cluster_stats(cl, &st);
	b[0] = st.bytes;
	for (uint32_t i = 0; i < 5; i++) {
		tiny_sub(&q[i], &kw, i + 1, i == 1 ? 50000 : 10100, 10100, 0);
		q[i].kw = kws[i];
		q[i].n_kw = nkw[i];
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
		drt_cluster_stats(cl, &st);
		b[i + 1] = st.bytes;
	}
	CHECK(cat[1] != cat[0] && cat[2] != cat[0] && cat[3] == cat[2] && cat[4] == cat[2]);
	CHECK_EQ_INT(pl.route_kw, 7 + 1);
	CHECK_EQ_INT(b[3] - b[2], b[2] - b[1] + arr); /* B: a category and the footprint array */
	CHECK_EQ_INT(b[4], b[3]);
	CHECK_EQ_INT(b[5] - b[4], arr);    /* E: the list under (cell, 7) */
	CHECK_EQ_INT(st.route_entries, 4); /* (cell, 7): A, B; (cell, 8): B; C's */
	CHECK_EQ_INT(st.cell_entries, 3);
	CHECK_EQ_INT(drt_cluster_remove(cl, &q[4], &rm), 0);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.bytes, b[4]);
	drt_cluster_destroy(cl);
}

/* stats.bytes counts each category's keyword table: A {1..6} and B
 * {7..12} elsewhere; C {1..7} joins A (the same rectangle), whose
 * table doubles from 8 slots of 16 bytes at its 7th keyword; nothing
 * else grows (the global table has 12 keys of 16 slots). */
static void test_kw_table_bytes(void)
{
	static const uint32_t kws[3][7] = { { 1, 2, 3, 4, 5, 6 },
					    { 7, 8, 9, 10, 11, 12 },
					    { 1, 2, 3, 4, 5, 6, 7 } };
	static const uint16_t nkw[3] = { 6, 6, 7 };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cluster_stats st;
	struct spate_sub q[3];
	uint32_t kw, cat[3];
	size_t b[3];

	drt_params_default(&p);
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 3; i++) {
		tiny_sub(&q[i], &kw, i + 1, i == 1 ? 50000 : 10100, 10100, 0);
		q[i].kw = kws[i];
		q[i].n_kw = nkw[i];
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
		drt_cluster_stats(cl, &st);
		b[i] = st.bytes;
	}
	CHECK(cat[2] == cat[0] && cat[1] != cat[0]);
	CHECK_EQ_INT(b[2] - b[1], 8 * 16);
	drt_cluster_destroy(cl);
}

/* A category's counters as drt_cluster_cat_at shows them: inserts,
 * deletes and events routed to it this period; a merge adds the merged
 * one's; all 0 after the period's end. A: 3 inserts, a delete, 2
 * events; B far away: an insert, an event; A and B co-matched, cmax 2:
 * C's category makes 3 and B merges into A (the larger). */
static void test_cat_counters(void)
{
	static const int lon[5] = { 10100, 10100, 10100, 90000, 150000 };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_removal rm;
	struct drt_cat_info info;
	const struct drt_route *r;
	struct spate_sub q[5];
	uint32_t kw[5], cat[5];

	drt_params_default(&p);
	p.cmax = 2;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 5; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, lon[i], 10100, 7 + (i > 2) + (i > 3));
		if (i == 4) {
			uint32_t ab[2] = { cat[0], cat[3] };
			drt_cluster_feedback(cl, ab, 2);
		}
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
		if (i == 2)
			CHECK_EQ_INT(drt_cluster_remove(cl, &q[1], &rm), 0);
		if (i == 2 || i == 3) {
			struct spate_event e = { .id = i,
						 .lon = q[i].rect.min_lon,
						 .lat = q[i].rect.min_lat,
						 .n_kw = 1,
						 .kw = &kw[i] };
			for (uint32_t k = 0; k < 5 - i; k++)
				CHECK_EQ_INT(drt_cluster_route(cl, &e, &r), 1);
		}
		if (i == 3) {
			drt_cluster_cat_at(cl, 0, &info);
			CHECK_EQ_INT(info.id, cat[0]);
			CHECK_EQ_INT(info.size, 2);
			CHECK_EQ_INT(info.n_ins, 3);
			CHECK_EQ_INT(info.n_del, 1);
			CHECK_EQ_INT(info.t_num, 3);
		}
	}
	CHECK_EQ_INT(drt_cluster_count(cl), 2);
	bool seen = false;
	for (uint32_t k = 0; k < drt_cluster_count(cl); k++) {
		drt_cluster_cat_at(cl, k, &info);
		if (info.id != cat[0])
			continue;
		seen = true;
		CHECK_EQ_INT(info.size, 3);
		CHECK_EQ_INT(info.n_ins, 4);
		CHECK_EQ_INT(info.n_del, 1);
		CHECK_EQ_INT(info.t_num, 5);
	}
	CHECK(seen);
	CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
	for (uint32_t k = 0; k < drt_cluster_count(cl); k++) {
		drt_cluster_cat_at(cl, k, &info);
		CHECK(info.n_ins == 0 && info.n_del == 0 && info.t_num == 0);
	}
	drt_cluster_destroy(cl);
}

/* Sim-NonFre: KeySim is the share of q's keywords the category has.
 * Alpha 1: A {7}; B {8} shares none (a category of its own); C {7, 9}
 * has half of its keywords in A (0.5 = new_th: joins A); D {11, 12}
 * none anywhere (a new one). */
static void test_nonfre(void)
{
	static const uint32_t kws[4][2] = { { 7 }, { 8 }, { 7, 9 }, { 11, 12 } };
	static const uint16_t nkw[4] = { 1, 1, 2, 2 };
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q[4];
	uint32_t kw, cat[4];

	drt_params_default(&p);
	p.variant = DRT_SIM_NONFRE;
	p.alpha = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 4; i++) {
		tiny_sub(&q[i], &kw, i + 1, 10100, 10100, 0);
		q[i].kw = kws[i];
		q[i].n_kw = nkw[i];
		cat[i] = placed(cl, &q[i], &pl, i != 2);
	}
	CHECK_EQ_INT(cat[2], cat[0]);
	drt_cluster_destroy(cl);
}

/* A merge adds every keyword count of the merged category into the one
 * it goes into, those in its table's first and last slots too: B's
 * keyword k (home slot 0 or 7 of an 8-slot table) is counted in A
 * after B merges into
 * A (A larger; co-matched, cmax 2, C's category makes 3). Then alpha 1
 * and new_th 0.3: {k} joins A (KeySim 1/3). */
static void test_merge_keywords(size_t slot)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct drt_ftab t;
	struct spate_sub q[5];
	uint32_t kw[5], cat[5], k = 0;

	CHECK_EQ_INT(drt_ftab_init(&t, 8), 0);
	CHECK_EQ_INT(t.mask, 7);
	while (drt_ftab_home(&t, (uint64_t)k + 1) != slot)
		k++;
	drt_ftab_free(&t);
	drt_params_default(&p);
	p.cmax = 2;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	static const int lon[5] = { 10100, 10100, 90000, 150000, 10100 };
	for (uint32_t i = 0; i < 5; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, lon[i], 10100, i == 2 || i == 4 ? k : 1000 + i);
		if (i == 0 || i == 1)
			kw[i] = 1000; /* A: two subs of keyword 1000 */
		if (i == 3) {
			uint32_t ab[2] = { cat[0], cat[2] };
			drt_cluster_feedback(cl, ab, 2);
		}
		if (i == 4) {
			p.alpha = 1;
			p.new_th = 0.3;
			p.cmax = 10; /* below it: a new category if KeySim fails */
			CHECK_EQ_INT(drt_cluster_set_params(cl, &p, NULL, 0), 0);
		}
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
	}
	CHECK(cat[1] == cat[0] && cat[2] != cat[0]);
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
	CHECK(a[0].cat == cat[2] && a[0].into == cat[0]);
	CHECK(!pl.created);
	CHECK_EQ_INT(pl.cat, cat[0]);
	drt_cluster_destroy(cl);
}

/* merge_each takes the least MergeJudgePara only below merge_th, not at
 * it. Two workers: W and Y on 0, X and Z on 1; pairs W-Y, Y-X, X-Z
 * co-matched twice each: MJP W inf, Y 1, X 1, Z inf; merge_th 1. The
 * largest (inf) decides: W (the lowest id of the two) merges into Y
 * (its partner, equal sizes); at the least (1) X would go into Z. */
static void test_merge_each_at_th(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct spate_sub q[5];
	uint32_t kw[5], cat[5];

	drt_params_default(&p);
	p.workers = 2;
	p.cmax = 4;
	p.place_slack = 0;
	p.merge_each = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 5; i++) {
		if (i == 4) {
			uint32_t wy[2] = { cat[0], cat[2] }, yx[2] = { cat[2], cat[1] },
				 xz[2] = { cat[1], cat[3] };
			for (int t = 0; t < 2; t++) {
				drt_cluster_feedback(cl, wy, 2);
				drt_cluster_feedback(cl, yx, 2);
				drt_cluster_feedback(cl, xz, 2);
			}
		}
		lone_sub(&q[i], &kw[i], i + 1, -170 + 60 * (int)i, 10, 100 + i);
		cat[i] = placed(cl, &q[i], &pl, true);
		if (i < 4)
			CHECK_EQ_INT(pl.worker, i % 2);
	}
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
	CHECK(a[0].cat == cat[0] && a[0].into == cat[2]);
	drt_cluster_destroy(cl);
}

/* A removal takes its sub off its worker's count: two workers, slack
 * 0; A (worker 0) takes 3 subs, B far away goes to worker 1; A's 3
 * go; C far from both opens a category on the emptiest worker, 0
 * (B's worker 1 holds 1, over the mean of (1 + 1) / 2). */
static void test_remove_worker_count(void)
{
	static const int lon[5] = { 10100, 10100, 10100, 90000, 150000 };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_removal rm;
	struct spate_sub q[5];
	uint32_t kw[5];

	drt_params_default(&p);
	p.workers = 2;
	p.place_slack = 0;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 5; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, lon[i], 10100, 7);
		if (i == 4)
			for (uint32_t k = 0; k < 3; k++)
				CHECK_EQ_INT(drt_cluster_remove(cl, &q[k], &rm), 0);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK_EQ_INT(pl.worker, i == 3);
	}
	drt_cluster_destroy(cl);
}

/* route() out of memory for its keys (each of the three blocks of its
 * hit arrays in turn): the routes are all there, their keys not
 * (NULL, 0: use kw_mask); the next route has them. Two categories
 * hold the event's point. */
static void test_route_keys_no_memory(void)
{
	struct drt_params p;
	struct drt_placement pl;
	const struct drt_route *r;
	struct spate_sub q[2];
	uint32_t kw[2];

	drt_params_default(&p);
	p.alpha = 1;
	for (long k = 1; k <= 3; k++) {
		struct drt_cluster *cl = drt_cluster_create(&p);
		CHECK(cl != NULL);
		for (uint32_t i = 0; i < 2; i++) {
			tiny_sub(&q[i], &kw[i], i + 1, 10100, 10100, 7 + i);
			CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
			CHECK(pl.created);
		}
		uint32_t both[2] = { 7, 8 };
		struct spate_event e = { .id = 1,
					 .lon = q[0].rect.min_lon,
					 .lat = q[0].rect.min_lat,
					 .n_kw = 2,
					 .kw = both };
		fail_at = allocs + k;
		size_t n = drt_cluster_route(cl, &e, &r);
		fail_at = 0;
		CHECK_EQ_INT(n, 2);
		for (size_t j = 0; j < n && j < 2; j++)
			CHECK(r[j].keys == NULL && r[j].n_keys == 0);
		n = drt_cluster_route(cl, &e, &r);
		CHECK_EQ_INT(n, 2);
		for (size_t j = 0; j < n && j < 2; j++) {
			CHECK_EQ_INT(r[j].n_keys, 1);
			CHECK(r[j].keys != NULL && (uint32_t)r[j].keys[0] == 7 + 1 + j);
		}
		drt_cluster_destroy(cl);
	}
}

/* A period's end recounts every category's CS and CD from the aged
 * pairs, the first category's too. Two workers (A and C on 0, B and D
 * on 1), merge_finite: A-B co-matched once (aged away), C-D twice
 * (1), A-C 4 times (2). After the period A has CS 2, CD 0 (left out),
 * C MJP 2 (the largest finite): C merges into A (C's pair, equal
 * sizes: the partner takes). With A's old counts kept (CS 6, CD 1:
 * MJP 6) A would merge into C. */
static void test_period_recount(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct drt_cluster_stats st;
	struct spate_sub q[5];
	uint32_t kw[5], cat[5];

	drt_params_default(&p);
	p.workers = 2;
	p.cmax = 4;
	p.place_slack = 0;
	p.merge_finite = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 5; i++) {
		if (i == 4) {
			uint32_t ab[2] = { cat[0], cat[1] }, cd[2] = { cat[2], cat[3] },
				 ac[2] = { cat[0], cat[2] };
			drt_cluster_feedback(cl, ab, 2);
			for (int t = 0; t < 2; t++)
				drt_cluster_feedback(cl, cd, 2);
			for (int t = 0; t < 4; t++)
				drt_cluster_feedback(cl, ac, 2);
			CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
			drt_cluster_stats(cl, &st);
			CHECK_EQ_INT(st.moves, 0);
			CHECK_EQ_INT(st.corr_pairs, 2);
		}
		lone_sub(&q[i], &kw[i], i + 1, -170 + 60 * (int)i, 10, 100 + i);
		cat[i] = placed(cl, &q[i], &pl, true);
		if (i < 4)
			CHECK_EQ_INT(pl.worker, i % 2);
	}
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
	CHECK(a[0].cat == cat[2] && a[0].into == cat[0]);
	drt_cluster_destroy(cl);
}

/* Placement compares the first 32 categories met (MAX_CANDIDATES):
 * alpha 1, 33 categories in one cell, each with a keyword of its own;
 * q with the 33rd's keyword finds no candidate sharing it (KeySim 0
 * with the first 32) and opens a category. */
static void test_place_max_candidates(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q;
	uint32_t kw;

	drt_params_default(&p);
	p.alpha = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 34; i++) {
		tiny_sub(&q, &kw, i + 1, 10100, 10100, 100 + (i < 33 ? i : 32));
		CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
		CHECK(pl.created);
	}
	CHECK_EQ_INT(drt_cluster_count(cl), 34);
	drt_cluster_destroy(cl);
}

/* A period's end forgets the co-match pairs of a category gone: A and
 * B co-matched 4 times, B's only sub goes, the pair goes at the end
 * of the period (the halved count 2 would have stayed). */
static void test_period_forgets_gone(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_removal rm;
	struct drt_cluster_stats st;
	struct spate_sub q[2];
	uint32_t kw[2], cat[2];

	drt_params_default(&p);
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 2; i++) {
		lone_sub(&q[i], &kw[i], i + 1, -100 + 90 * (int)i, 10, 100 + i);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
	}
	for (int t = 0; t < 4; t++)
		drt_cluster_feedback(cl, cat, 2);
	CHECK_EQ_INT(drt_cluster_remove(cl, &q[1], &rm), 0);
	CHECK(rm.emptied);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.corr_pairs, 1);
	CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.corr_pairs, 0);
	/* counts halve each period: 3 co-matches last two (3 -> 1 -> gone) */
	CHECK_EQ_INT(drt_cluster_place(cl, &q[1], &pl), 0);
	cat[1] = pl.cat;
	for (int t = 0; t < 3; t++)
		drt_cluster_feedback(cl, cat, 2);
	for (int t = 0; t < 2; t++) {
		CHECK_EQ_INT(drt_cluster_period_end(cl), 0);
		drt_cluster_stats(cl, &st);
		CHECK_EQ_INT(st.corr_pairs, t == 0);
	}
	drt_cluster_destroy(cl);
}

/* drt_cluster_create out of memory at each of its allocations in turn:
 * NULL, nothing left allocated; then a cluster. */
static void test_create_no_memory(void)
{
	struct drt_params p;
	long live0 = n_live;

	drt_params_default(&p);
	long a0 = allocs;
	struct drt_cluster *cl = drt_cluster_create(&p);
	long need = allocs - a0;
	CHECK(cl != NULL && need >= 7);
	drt_cluster_destroy(cl);
	for (long k = 1; k <= need; k++) {
		fail_at = allocs + k;
		cl = drt_cluster_create(&p);
		fail_at = 0;
		CHECK(cl == NULL);
		if (cl != NULL)
			drt_cluster_destroy(cl);
		CHECK_EQ_INT(n_live, live0);
	}
}

/* Nothing fits the cap for the category merge_once takes first (no
 * co-match; the last one when the placement made none): then the
 * smallest category, the first of equals, merges into its nearest
 * that fits. Two workers, cap 16; S1 and S2 of one sub each, L of 15;
 * cmax lowered to 2, q joins L (16): L fits nowhere, S1 goes into S2
 * (across workers; equal sizes: the partner takes). */
static void test_merge_smallest(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct drt_cluster_stats st;
	struct spate_sub q;
	uint32_t kw, cat[3] = { 0, 0, 0 };
	char err[200];

	drt_params_default(&p);
	p.workers = 2;
	p.cmax = 3;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 18; i++) {
		uint32_t c = i < 2 ? i : 2;
		if (i == 17) {
			p.cmax = 2;
			CHECK_EQ_INT(drt_cluster_set_params(cl, &p, err, sizeof(err)), 0);
		}
		tiny_sub(&q, &kw, i + 1, (int)c * 60000 - 60000, 10100, 7 + c);
		CHECK_EQ_INT(drt_cluster_place(cl, &q, &pl), 0);
		CHECK(pl.created == (i <= 2));
		if (i <= 2)
			cat[c] = pl.cat;
		CHECK_EQ_INT(pl.cat, cat[c]);
	}
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
	CHECK(a[0].cat == cat[0] && a[0].into == cat[1]);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.merges_no_corr, 1);
	drt_cluster_destroy(cl);
}

/* route()'s kw_mask: bit i + 1 for the event's keyword i below 62, bit
 * 63 for any of the 62nd on: an event of 64 keywords, subs carrying
 * its 62nd, 63rd and 64th (indexes 61, 62, 63), each a category. */
static void test_route_high_bits(void)
{
	struct drt_params p;
	struct drt_placement pl;
	const struct drt_route *r;
	struct spate_sub q[3];
	uint32_t kw[3], ekw[64], cat[3];

	drt_params_default(&p);
	p.alpha = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 64; i++)
		ekw[i] = i;
	for (uint32_t i = 0; i < 3; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, 10100, 10100, 61 + i);
		cat[i] = placed(cl, &q[i], &pl, true);
	}
	struct spate_event e = {
		.id = 1, .lon = q[0].rect.min_lon, .lat = q[0].rect.min_lat, .n_kw = 64, .kw = ekw
	};
	size_t n = drt_cluster_route(cl, &e, &r);
	CHECK_EQ_INT(n, 3);
	for (size_t j = 0; j < n && j < 3; j++) {
		uint64_t want = r[j].cat == cat[0] ? 1ull << 62 : 1ull << 63;
		CHECK(r[j].kw_mask == want);
	}
	drt_cluster_destroy(cl);
}

/* A sub this cluster does not hold is refused, even when its engine
 * word (written by another cluster) names a number whose part here
 * was freed. */
static void test_remove_foreign(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_removal rm;
	struct spate_sub q, x;
	uint32_t kw, kx;

	drt_params_default(&p);
	struct drt_cluster *a = drt_cluster_create(&p), *b = drt_cluster_create(&p);
	CHECK(a != NULL && b != NULL);
	tiny_sub(&x, &kx, 1, 10100, 10100, 7);
	CHECK_EQ_INT(drt_cluster_place(b, &x, &pl), 0);
	CHECK_EQ_INT(drt_cluster_remove(b, &x, &rm), 0); /* b's part 1 freed */
	tiny_sub(&q, &kw, 2, 10100, 10100, 7);
	CHECK_EQ_INT(drt_cluster_place(a, &q, &pl), 0); /* q's word: a's part 1 */
	CHECK_EQ_INT(drt_cluster_remove(b, &q, &rm), -SPATE_E_UNKNOWN_ID);
	CHECK_EQ_INT(drt_cluster_remove(a, &q, &rm), 0);
	drt_cluster_destroy(a);
	drt_cluster_destroy(b);
}

/* A worker going down hands its categories to a live worker, whose
 * count takes their subs: two workers, slack 0; A (5 subs) on 0, B
 * on 1; worker 0 goes down (A to 1: 6 subs there) and comes back; C
 * far away opens on worker 0, the emptiest (1 holds 6 + 1 over the
 * mean of 3.5). */
static void test_worker_down_counts(void)
{
	static const int lon[7] = { 10100, 10100, 10100, 10100, 10100, 60000, 160000 };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cat_info info;
	struct spate_sub q[7];
	uint32_t kw[7];

	drt_params_default(&p);
	p.workers = 2;
	p.place_slack = 0;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 7; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, lon[i], 10100, 7);
		if (i == 6) {
			CHECK_EQ_INT(drt_cluster_worker_set(cl, 0, false), 1);
			drt_cluster_cat_at(cl, 0, &info);
			CHECK_EQ_INT(info.worker, 1);
			CHECK_EQ_INT(drt_cluster_worker_set(cl, 0, true), 0);
		}
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		CHECK_EQ_INT(pl.worker, i == 5);
	}
	drt_cluster_destroy(cl);
}

/* Lists are folded only when a category is not found under its own
 * entry: a and b (keyword 7, one cell, a category each) merge, a into
 * b; d joins b there: b's own entry counts it, a's part entry stays
 * until someone misses b (3 routing entries: a, b and c's; 3 in the
 * footprints). */
static void test_fold_lazily(void)
{
	static const int lon[4] = { 10100, 10200, 90000, 10300 };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct drt_cluster_stats st;
	struct spate_sub q[4];
	uint32_t kw[4], cat[4];
	char err[200];

	drt_params_default(&p);
	p.new_th = 1;
	p.cmax = 8;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 4; i++) {
		if (i == 2) {
			for (int t = 0; t < 3; t++)
				drt_cluster_feedback(cl, cat, 2);
			p.cmax = 2;
			CHECK_EQ_INT(drt_cluster_set_params(cl, &p, err, sizeof(err)), 0);
		}
		if (i == 3) {
			p.new_th = 0;
			CHECK_EQ_INT(drt_cluster_set_params(cl, &p, err, sizeof(err)), 0);
		}
		tiny_sub(&q[i], &kw[i], i + 1, lon[i], 10100, i == 2 ? 9 : 7);
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
	}
	CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
	CHECK(a[0].cat == cat[0] && a[0].into == cat[1]);
	CHECK_EQ_INT(cat[3], cat[1]);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.route_entries, 3);
	CHECK_EQ_INT(st.cell_entries, 3);
	drt_cluster_destroy(cl);
}

/* A routing key's add failing (its table must grow) in a cell whose
 * record the same add made: the record goes too. Six keywords filed in
 * one cell (6 keys: the 7th grows the table), then a seventh keyword
 * in a new cell, failing at each allocation in turn: one cell record
 * after each failure. */
static void test_new_cell_no_memory(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct drt_cluster_stats st;
	struct spate_sub q[7];
	uint32_t kw[7];
	int failed = 0;

	drt_params_default(&p);
	p.alpha = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 7; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, i < 6 ? 10100 : 90000, 10100, 50 + i);
		for (long k = 1; i == 6; k++) {
			fail_at = allocs + k;
			int rc = drt_cluster_place(cl, &q[i], &pl);
			fail_at = 0;
			if (rc == 0)
				break;
			failed++;
			drt_cluster_stats(cl, &st);
			CHECK_EQ_INT(st.cells, 1);
			CHECK_EQ_INT(st.route_keys, 6);
		}
		if (i < 6)
			CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
	}
	CHECK(failed > 0);
	drt_cluster_stats(cl, &st);
	CHECK_EQ_INT(st.cells, 2);
	CHECK_EQ_INT(st.route_keys, 7);
	drt_cluster_destroy(cl);
}

/* KeySim of a keyword-less sub: the category's share of keyword-less
 * subs. Alpha 1, one cell: A {7}; r {} finds none there (0: a category
 * of its own); s {} joins r's (1/1); t {7} joins A; u {} then joins
 * r's category (A holds none of them). */
static void test_keyword_less_keysim(void)
{
	struct drt_params p;
	struct drt_placement pl;
	struct spate_sub q[5];
	uint32_t kw[5], cat[5];
	static const uint16_t nkw[5] = { 1, 0, 0, 1, 0 };

	drt_params_default(&p);
	p.alpha = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 5; i++) {
		tiny_sub(&q[i], &kw[i], i + 1, 10100 + 10 * (int)i, 10100, 7);
		q[i].n_kw = nkw[i];
		CHECK_EQ_INT(drt_cluster_place(cl, &q[i], &pl), 0);
		cat[i] = pl.cat;
		CHECK(pl.created == (i < 2));
	}
	CHECK(cat[2] == cat[1] && cat[3] == cat[0] && cat[4] == cat[1]);
	drt_cluster_destroy(cl);
}

/* drt_cluster_create refuses each parameter out of its range on its
 * own: variant past freco, alpha below 0 or above 1; takes the least
 * of workers, cmax and lambda (1). */
static void test_create_ranges(void)
{
	struct drt_params p;

	for (int k = 0; k < 3; k++) {
		drt_params_default(&p);
		if (k == 0)
			p.variant = DRT_SIM_FRE_CO + 1;
		else
			p.alpha = k == 1 ? -0.1 : 1.1;
		struct drt_cluster *cl = drt_cluster_create(&p);
		CHECK(cl == NULL);
		drt_cluster_destroy(cl);
	}
	/* the smallest in range are taken: a worker, a category, a period
	 * of one event */
	drt_params_default(&p);
	p.workers = p.cmax = p.lambda = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	drt_cluster_destroy(cl);
}

/* A merge across workers moves the merged category's subs to the other
 * worker's count: two workers, slack 0, new_th 1; A (worker 0) and B
 * (worker 1) co-matched, C (worker 0) makes 3 over cmax 2 and A goes
 * into B: worker 1 holds 2, worker 0 1 (C). D beside B, a category of
 * its own most like B: B's worker holds 2 + 1 over the mean of 2, so
 * D opens on worker 0. */
static void test_merge_worker_counts(void)
{
	static const int lon[4] = { 10100, 60000, 110000, 60000 };
	struct drt_params p;
	struct drt_placement pl;
	struct drt_action a[4];
	struct spate_sub q[4];
	uint32_t kw[4], cat[4];
	char err[200];

	drt_params_default(&p);
	p.workers = 2;
	p.place_slack = 0;
	p.cmax = 2;
	p.new_th = 1;
	struct drt_cluster *cl = drt_cluster_create(&p);
	CHECK(cl != NULL);
	for (uint32_t i = 0; i < 4; i++) {
		if (i == 2)
			drt_cluster_feedback(cl, cat, 2);
		if (i == 3) {
			CHECK_EQ_INT(drt_cluster_take_actions(cl, a, 4), 1);
			CHECK(a[0].cat == cat[0] && a[0].into == cat[1]);
			p.cmax = 10;
			CHECK_EQ_INT(drt_cluster_set_params(cl, &p, err, sizeof(err)), 0);
		}
		tiny_sub(&q[i], &kw[i], i + 1, lon[i], 10100, 7 + i);
		cat[i] = placed(cl, &q[i], &pl, true);
		CHECK_EQ_INT(pl.worker, i == 1);
	}
	drt_cluster_destroy(cl);
}

int main(void)
{
	test_merge_worker_counts();
	test_keyword_less_keysim();
	test_create_ranges();
	test_fold_lazily();
	test_new_cell_no_memory();
	test_worker_down_counts();
	test_merge_smallest();
	test_route_high_bits();
	test_remove_foreign();
	test_create_no_memory();
	test_place_max_candidates();
	test_period_forgets_gone();
	test_period_recount();
	test_remove_worker_count();
	test_route_keys_no_memory();
	test_nonfre();
	test_merge_keywords(0);
	test_merge_keywords(7);
	test_merge_each_at_th();
	test_kw_table_bytes();
	test_list_array_bytes();
	test_cat_counters();
	test_place_plan_stale();
	test_merge_recounts();
	test_new_cat_worker_slack();
	test_nearest_tie();
	test_merge_all_finite();
	test_merge_tie_ids();
	test_place_world_row();
	test_place_candidates_once();
	test_join_no_memory();
	test_feedback_kept();
	test_many_merges();
	test_place_nearest_full(16, 16, 1);
	test_place_nearest_full(16, 15, 1);
	test_place_nearest_full(16, 15, 0);
	test_place_nearest_full(15, 16, 0);
	test_best_anywhere_zero();
	test_cats_growth_bytes();
	test_period_no_memory();
	test_keyword_count_down();
	test_place_cap(2, 1, 100, 0.2);
	test_place_cap(3, 0.5, 200, 0.2);
	test_place_cap(1, 1, 40, 0.2);
	test_place_cap(2, 1, 100, 1); /* a full category's Sim would pass new_th */
	test_spatial_off_equator();
	test_route_dense();
	test_set_params_refused();
	test_place_tie_first();
	test_best_anywhere();
	test_keywords_no_memory();
	test_bytes_part_record();
	test_place_no_memory();
	test_nearest_after_unlive();
	test_spatial_area();
	test_spatial_area_large();
	test_keyword_counts_go();
	test_id_base();
	test_corr_bytes();
	for (uint64_t seed = 1; seed <= 4; seed++)
		test_geo(seed);
	test_merge_most_correlated();
	test_fold_parts();
	test_merge_rule(0, 0, 5, 1, 0);
	test_merge_rule(1, 0, 5, 1, 0);
	test_merge_rule(0, 0, 1, 5, 0);
	test_merge_rule(0, 1, 1, 5, 0);
	test_merge_rule(0, 1, 5, 1, 0);
	test_merge_rule(0, 1, 5, 1, 1);
	test_merge_rule(1, 0, 5, 1, 1); /* b's CS recounted: 5, not 0 */
	test_merge_rule(0, 0, 5, 1, 1);
	test_merge_rule(0, 1, 1, 5, 1);
	test_new_cat_worker();
	test_rarest_keyword();
	test_only_worker();
	test_in_node();
	/* growth by copying; in place (mappings) from the first growth on;
	 * copying into a mapping at 64 KB, in place after */
	size_t map_min[] = { DRT_FTAB_MAP_MIN, 0, 64 << 10 };
	for (int k = 0; k < 3; k++) {
		test_ftab_grow(11, 6, map_min[k]);
		test_ftab_grow(12, 7, map_min[k]);
		test_ftab_grow(13, 4, map_min[k]);
		for (uint64_t seed = 1; seed <= 3; seed++)
			test_ftab(seed * 104729 + (uint64_t)k, 6, map_min[k]);
		for (uint64_t seed = 4; seed <= 5; seed++)
			test_ftab(seed * 104729 + (uint64_t)k, 7,
				  map_min[k]); /* the routing table's load */
	}
	test_engines();
	for (uint64_t seed = 1; seed <= 6; seed++)
		test_category(seed * 7919, seed % 2 ? 2 : 0.25);
	uint64_t merges = 0, moves = 0, capped = 0, reassigned = 0;
	/* no cap, the default cap, and tight caps (every merge near it) */
	for (uint64_t seed = 1; seed <= 24; seed++) {
		struct view v = { .worker_of = spate_idmap_create() };
		test_cluster(seed, (uint32_t)(seed % 3), 1 + (uint32_t)(seed % 5) * 3,
			     1 + (uint32_t)(seed % 4), seed % 2 ? 5 : 0.5,
			     (double[]){ 0, 0.1, 0.05, 0.3 }[seed / 2 % 4], &v);
		merges += v.merges;
		moves += v.moves;
		capped += v.capped;
		reassigned += v.reassigned;
		spate_idmap_destroy(v.worker_of);
	}
	printf("drt: %llu merges (%llu up to the cap), %llu moves seen, %llu categories of dead "
	       "workers"
	       " reassigned\n",
	       (unsigned long long)merges, (unsigned long long)capped, (unsigned long long)moves,
	       (unsigned long long)reassigned);
	CHECK(reassigned > 10);
	CHECK(merges > 15); /* the runs do exercise merging and balancing */
	CHECK(moves > 10);
	CHECK(capped > 10); /* and the cap */
	struct drt_params p;
	drt_params_default(&p);
	p.route_cell = 0;
	CHECK(drt_cluster_create(&p) == NULL);
	p.route_cell = 91; /* cells of 0.01 to 90 degrees */
	CHECK(drt_cluster_create(&p) == NULL);
	p.route_cell = 90;
	struct drt_cluster *widest = drt_cluster_create(&p);
	CHECK(widest != NULL);
	drt_cluster_destroy(widest);
	drt_params_default(&p);
	drt_params_default(&p);
	p.workers = 2;
	struct drt_cluster *two = drt_cluster_create(&p);
	CHECK_EQ_INT(drt_cluster_worker_set(two, 2, false), -SPATE_E_BAD_ID);
	CHECK_EQ_INT(drt_cluster_worker_set(two, 0, false), 0);
	CHECK_EQ_INT(drt_cluster_worker_set(two, 1, false), -SPATE_E_BAD_ID); /* the last one */
	CHECK(drt_cluster_worker_up(two, 1));
	drt_cluster_destroy(two);
	/* every block of every test given back (alloc_track.h) */
	CHECK_EQ_INT(n_live, 0);
	CHECK_EQ_INT(bad_frees, 0);
	CHECK_EQ_INT(overruns, 0); /* nothing written past a block */
	return check_summary("drt");
}
