/* spate-gen - workload generator: writes stream files (docs/stream-format.md)
 * for spate-match, spate-bench, spate-replay, spate-pub/sub and spate-pcap.
 *
 * Workloads:
 *   drt     the DRt-Cluster paper's method: subscriptions (0.01 x events
 *           by default) made from random events, with a random subset of
 *           their keywords and a rectangle centred on the event, extended
 *           by a random amount in lon and lat; interleaved with the events.
 *   fast    FAST-style (Mahmood et al., ICDE 2018): Zipf vocabulary, 1-3
 *           keywords per subscription, squares of side up to a fraction of
 *           the extent; subscriptions first.
 *   rein    the REIN/MP-REIN attribute workload: d attributes over [0, R),
 *           subscriptions are intervals of width w*R on psi_S attributes,
 *           events carry psi_E attributes with uniform values.
 *   places  events only, from a GeoNames table or a lon/lat/keywords TSV.
 * Space is uniform or skewed (Gaussian hotspots of Zipf weights); deletes
 * and interleaving are options; the same arguments and --seed give the
 * same bytes. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_places.h"
#include "gen_rng.h"
#include "opt.h"
#include "outfile.h"
#include "conf/spate_conf.h"
#include "proto/spate_err.h"
#include "stream/spate_stream.h"

#define PROG "spate-gen"

enum workload { WL_DRT, WL_FAST, WL_REIN, WL_PLACES };
static const char *const workload_names[] = { "drt", "fast", "rein", "places" };

struct gen {
	enum workload wl;
	struct gen_rng rng;
	struct spate_limits lim;
	uint64_t n_events, n_subs;
	bool events_set, subs_set, order_set;
	double sub_ratio, del_frac;
	bool interleaved;
	double ext[4]; /* min_lon, min_lat, max_lon, max_lat, degrees */
	bool ext_set, skewed;
	int hotspots;
	double spread;
	size_t vocab;
	double zipf;
	int ekw_min, ekw_max, skw_min, skw_max;
	bool ekw_set;
	double max_extent, side, cons_ratio;
	int attrs, sub_attrs, event_attrs;
	double width, domain;
	const char *input, *input_fmt, *attr_names;
	bool shuffle;
	/* built */
	struct gen_places places;
	struct gen_zipf words, hs_weight;
	double (*hs)[2];
	char (*attr_name)[16];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--workload drt|fast|rein|places] [options] [--out FILE]\n"
		"Writes a Spate stream file (sub/unsub/event lines) to FILE (default '-': "
		"stdout).\n"
		"Same arguments and --seed, same bytes.\n"
		"Workloads:\n"
		"  drt      (default) subscriptions from random events: a random subset of\n"
		"           their keywords, a rectangle centred on the event, extended by up\n"
		"           to --max-extent degrees each way; interleaved with the events\n"
		"  fast     FAST-style: Zipf keywords, squares of side up to --side x extent;\n"
		"           subscriptions first\n"
		"  rein     numeric attributes only (REIN/MP-REIN): intervals of width\n"
		"           --width x --domain on --sub-attrs of --attrs attributes; events\n"
		"           carry --event-attrs attributes; subscriptions first\n"
		"  places   events only, from --input\n"
		"Common:\n"
		"  --seed N            random seed (default 1)\n"
		"  --events N          events (default 10000; with --input: all its places)\n"
		"  --subs N            subscriptions (default: drt 0.01 x events, else = events)\n"
		"  --sub-ratio R       subscriptions per event instead of --subs\n"
		"  --order interleaved|subs-first   (default: drt interleaved, else subs-first)\n"
		"  --deletes F         this fraction of subscriptions is removed later (default "
		"0)\n"
		"  --extent W,S,E,N    area in degrees (default: fast -125,24,-66,50, else the "
		"world)\n"
		"  --space uniform|skewed  where points fall (default uniform)\n"
		"  --hotspots K        skewed: K Gaussian hotspots, Zipf-weighted (default 10)\n"
		"  --spread F          skewed: std deviation, fraction of the extent (default "
		"0.02)\n"
		"  --vocab N           synthetic vocabulary size (default 1000)\n"
		"  --zipf S            Zipf exponent of the vocabulary (default 1.0)\n"
		"  --event-kw MIN[,MAX] keywords per synthetic event (default drt 1,5; fast 10)\n"
		"  --sub-kw MIN[,MAX]  keywords per subscription (default 1,3)\n"
		"  --conf FILE         libconfig file: its 'spate.limits' bound what is generated\n"
		"drt: --max-extent D (degrees, default 5)  --cons-ratio F (share of subscriptions\n"
		"     with a constraint on an attribute of their event, default 0)\n"
		"fast: --side F (largest square side, fraction of the extent, default 0.01)\n"
		"rein: --attrs D (10) --sub-attrs S (5) --event-attrs E (10) --width W (0.5)\n"
		"      --domain R (1000000); attributes are named a0, a1, ...\n"
		"Input (drt, places): --input FILE  --input-format geonames|tsv (default tsv)\n"
		"  geonames: the 19-column GeoNames table (cities500.txt, cities1000.txt, ...):\n"
		"            keywords n:<name token>, ctry:<cc>, fc:<feature code>, tz:<zone>;\n"
		"            attributes population, elevation, dem\n"
		"  tsv:      lon<TAB>lat<TAB>kw,kw,...[<TAB>extra...]; extra columns are\n"
		"            name=value lists or bare numbers named by --attr-names a,b,...\n"
		"            (default c4, c5, ...)\n"
		"  --shuffle           shuffle the places (seeded) before use\n");
}

/* ---- options ----------------------------------------------------------- */

static int parse_range(const char *name, const char *s, int *lo, int *hi)
{
	char a[32];
	const char *comma = strchr(s, ',');

	if (comma == NULL)
		return opt_int(PROG, name, s, 0, SPATE_KW_MAX_HARD, lo) ||
				       opt_int(PROG, name, s, 0, SPATE_KW_MAX_HARD, hi)
			       ? -1
			       : 0;
	snprintf(a, sizeof(a), "%.*s", (int)(comma - s), s);
	if (opt_int(PROG, name, a, 0, SPATE_KW_MAX_HARD, lo) != 0 ||
	    opt_int(PROG, name, comma + 1, 0, SPATE_KW_MAX_HARD, hi) != 0)
		return -1;
	if (*lo > *hi) {
		fprintf(stderr, PROG ": --%s: MIN above MAX in '%s'\n", name, s);
		return -1;
	}
	return 0;
}

static int parse_extent(const char *s, double ext[4])
{
	char extra;

	if (sscanf(s, "%lf,%lf,%lf,%lf%c", &ext[0], &ext[1], &ext[2], &ext[3], &extra) != 4 ||
	    ext[0] < -180 || ext[2] > 180 || ext[1] < -90 || ext[3] > 90 || ext[0] >= ext[2] ||
	    ext[1] >= ext[3]) {
		fprintf(stderr,
			PROG ": --extent: bad value '%s' (want W,S,E,N degrees, W<E, S<N)\n", s);
		return -1;
	}
	return 0;
}

/* Check the combination against the limits; 0 or -1 with a message. */
static int check_conf(struct gen *g)
{
	const struct spate_limits *l = &g->lim;

	if (g->ekw_max > (int)l->max_keywords || g->skw_max > (int)l->max_keywords) {
		fprintf(stderr,
			PROG ": at most %u keywords per event or subscription (max_keywords)\n",
			l->max_keywords);
		return -1;
	}
	if (g->wl == WL_REIN) {
		if (g->sub_attrs > g->attrs || g->event_attrs > g->attrs || g->sub_attrs < 1) {
			fprintf(stderr, PROG ": need 1 <= --sub-attrs <= --attrs and --event-attrs "
					     "<= --attrs\n");
			return -1;
		}
		if (2 * g->sub_attrs > (int)l->max_constraints ||
		    g->event_attrs > (int)l->max_attrs) {
			fprintf(stderr,
				PROG ": --sub-attrs %d needs %d constraints and --event-attrs %d "
				     "attributes; the limits allow %u and %u (max_constraints, "
				     "max_attrs; see --conf)\n",
				g->sub_attrs, 2 * g->sub_attrs, g->event_attrs, l->max_constraints,
				l->max_attrs);
			return -1;
		}
	}
	if (g->input != NULL && g->wl != WL_DRT && g->wl != WL_PLACES) {
		fprintf(stderr, PROG ": --input goes with --workload drt or places\n");
		return -1;
	}
	if (g->wl == WL_PLACES && g->input == NULL) {
		fprintf(stderr, PROG ": --workload places needs --input FILE\n");
		return -1;
	}
	if (g->vocab < 1) {
		fprintf(stderr, PROG ": --vocab must be at least 1\n");
		return -1;
	}
	return 0;
}

/* ---- space ------------------------------------------------------------- */

static int32_t to_fixed(double deg, int32_t max)
{
	double v = round(deg * SPATE_COORD_SCALE);

	if (v > max)
		v = max;
	if (v < -max)
		v = -max;
	return (int32_t)v;
}

/* A point in the extent, uniform or around a Zipf-chosen hotspot. */
static void draw_point(struct gen *g, double *lon, double *lat)
{
	double w = g->ext[2] - g->ext[0], h = g->ext[3] - g->ext[1];

	if (!g->skewed) {
		*lon = gen_rng_uniform(&g->rng, g->ext[0], g->ext[2]);
		*lat = gen_rng_uniform(&g->rng, g->ext[1], g->ext[3]);
		return;
	}
	size_t k = gen_zipf_draw(&g->hs_weight, &g->rng) - 1;
	for (int tries = 0;; tries++) {
		*lon = g->hs[k][0] + gen_rng_normal(&g->rng) * g->spread * w;
		*lat = g->hs[k][1] + gen_rng_normal(&g->rng) * g->spread * h;
		if ((*lon >= g->ext[0] && *lon <= g->ext[2] && *lat >= g->ext[1] &&
		     *lat <= g->ext[3]) ||
		    tries == 100)
			break;
	}
	*lon = fmin(fmax(*lon, g->ext[0]), g->ext[2]);
	*lat = fmin(fmax(*lat, g->ext[1]), g->ext[3]);
}

/* ---- synthetic events -------------------------------------------------- */

/* n distinct indexes of [0, d) into out (partial Fisher-Yates). */
static void pick_distinct(struct gen_rng *r, int d, int n, int *out)
{
	int idx[SPATE_ATTR_MAX_HARD * 8];

	for (int i = 0; i < d; i++)
		idx[i] = i;
	for (int i = 0; i < n; i++) {
		int j = i + (int)gen_rng_below(r, (uint64_t)(d - i));
		int t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
		out[i] = idx[i];
	}
}

/* Keywords "w<rank>" from the Zipf vocabulary: n draws, repeats dropped. */
static int add_zipf_words(struct gen *g, int n)
{
	char w[24];

	for (int i = 0; i < n; i++) {
		int len = snprintf(w, sizeof(w), "w%zu", gen_zipf_draw(&g->words, &g->rng));
		if (gen_places_add_kw(&g->places, w, (size_t)len) == -1)
			return -1;
	}
	return 0;
}

static int synth_events(struct gen *g)
{
	for (uint64_t i = 0; i < g->n_events; i++) {
		double lon, lat;
		draw_point(g, &lon, &lat);
		if (gen_places_begin(&g->places, to_fixed(lon, SPATE_LON_MAX),
				     to_fixed(lat, SPATE_LAT_MAX)) != 0)
			return -1;
		if (g->wl == WL_REIN) {
			int which[SPATE_ATTR_MAX_HARD * 8];
			pick_distinct(&g->rng, g->attrs, g->event_attrs, which);
			for (int a = 0; a < g->event_attrs; a++) {
				double v = (double)gen_rng_below(&g->rng, (uint64_t)g->domain);
				const char *nm = g->attr_name[which[a]];
				if (gen_places_add_attr(&g->places, nm, strlen(nm), v) == -1)
					return -1;
			}
			continue;
		}
		int n = g->ekw_min +
			(int)gen_rng_below(&g->rng, (uint64_t)(g->ekw_max - g->ekw_min + 1));
		if (add_zipf_words(g, n) != 0)
			return -1;
	}
	return 0;
}

/* ---- subscriptions ----------------------------------------------------- */

struct sub_buf {
	struct spate_stream_op op;
	char words[SPATE_KW_MAX_HARD][24];
};

static void rect_around(struct spate_raw_sub *s, double lon0, double lat0, double lon1, double lat1)
{
	s->rect.min_lon = to_fixed(fmax(lon0, -180), SPATE_LON_MAX);
	s->rect.min_lat = to_fixed(fmax(lat0, -90), SPATE_LAT_MAX);
	s->rect.max_lon = to_fixed(fmin(lon1, 180), SPATE_LON_MAX);
	s->rect.max_lat = to_fixed(fmin(lat1, 90), SPATE_LAT_MAX);
}

static int sub_kw_count(struct gen *g, int have)
{
	int hi = g->skw_max < have ? g->skw_max : have;
	int lo = g->skw_min < hi ? g->skw_min : hi;

	return lo + (int)gen_rng_below(&g->rng, (uint64_t)(hi - lo + 1));
}

static void make_sub_drt(struct gen *g, struct spate_raw_sub *s)
{
	const struct gen_place *e = &g->places.p[gen_rng_below(&g->rng, g->places.n)];
	int kwi[SPATE_KW_MAX_HARD];
	int k = sub_kw_count(g, (int)e->n_kw);

	pick_distinct(&g->rng, (int)e->n_kw, k, kwi);
	s->n_kw = (uint32_t)k;
	for (int i = 0; i < k; i++) {
		const char *w = gen_places_str(&g->places, g->places.kw[e->kw_first + kwi[i]]);
		s->kw[i] = (struct spate_str){ w, (uint32_t)strlen(w) };
	}
	double lon = e->lon / (double)SPATE_COORD_SCALE, lat = e->lat / (double)SPATE_COORD_SCALE;
	double dx = gen_rng_uniform(&g->rng, 0, g->max_extent);
	double dy = gen_rng_uniform(&g->rng, 0, g->max_extent);
	rect_around(s, lon - dx, lat - dy, lon + dx, lat + dy);
	s->n_cons = 0;
	if (e->n_attr > 0 && g->cons_ratio > 0 && gen_rng_unit(&g->rng) < g->cons_ratio) {
		const struct gen_attr *a =
			&g->places.attr[e->attr_first + gen_rng_below(&g->rng, e->n_attr)];
		const char *nm = gen_places_str(&g->places, a->name);
		s->cons[0] = (struct spate_raw_constraint){ { nm, (uint32_t)strlen(nm) },
							    gen_rng_below(&g->rng, 2) ? SPATE_OP_GE
										      : SPATE_OP_LE,
							    a->value };
		s->n_cons = 1;
	}
}

static void make_sub_fast(struct gen *g, struct sub_buf *b)
{
	struct spate_raw_sub *s = &b->op.u.sub;
	int want =
		g->skw_min + (int)gen_rng_below(&g->rng, (uint64_t)(g->skw_max - g->skw_min + 1));

	s->n_kw = 0;
	for (int i = 0; i < want; i++) {
		size_t rank = gen_zipf_draw(&g->words, &g->rng);
		int len = snprintf(b->words[s->n_kw], sizeof(b->words[0]), "w%zu", rank);
		bool dup = false;
		for (uint32_t j = 0; j < s->n_kw; j++)
			dup |= s->kw[j].len == (uint32_t)len &&
			       memcmp(s->kw[j].p, b->words[s->n_kw], (size_t)len) == 0;
		if (!dup) {
			s->kw[s->n_kw] = (struct spate_str){ b->words[s->n_kw], (uint32_t)len };
			s->n_kw++;
		}
	}
	double w = g->ext[2] - g->ext[0], h = g->ext[3] - g->ext[1];
	double f = gen_rng_uniform(&g->rng, 0, g->side), sw = f * w, sh = f * h, cx, cy;
	draw_point(g, &cx, &cy);
	/* Keep the square inside the extent, as FAST's generator does. */
	double x = fmin(fmax(cx - sw / 2, g->ext[0]), g->ext[2] - sw);
	double y = fmin(fmax(cy - sh / 2, g->ext[1]), g->ext[3] - sh);
	rect_around(s, x, y, x + sw, y + sh);
	s->n_cons = 0;
}

static void make_sub_rein(struct gen *g, struct spate_raw_sub *s)
{
	int which[SPATE_ATTR_MAX_HARD * 8];
	double wid = floor(g->width * g->domain);

	rect_around(s, g->ext[0], g->ext[1], g->ext[2], g->ext[3]);
	s->n_kw = 0;
	pick_distinct(&g->rng, g->attrs, g->sub_attrs, which);
	s->n_cons = 0;
	for (int a = 0; a < g->sub_attrs; a++) {
		const char *nm = g->attr_name[which[a]];
		double lo = (double)gen_rng_below(&g->rng, (uint64_t)(g->domain - wid) + 1);
		struct spate_str name = { nm, (uint32_t)strlen(nm) };
		s->cons[s->n_cons++] = (struct spate_raw_constraint){ name, SPATE_OP_GE, lo };
		s->cons[s->n_cons++] = (struct spate_raw_constraint){ name, SPATE_OP_LE, lo + wid };
	}
}

/* ---- the stream -------------------------------------------------------- */

struct emitter {
	struct gen *g;
	FILE *f;
	uint64_t next_sub, n_subs, *del_head, *del_next;
	uint64_t subs_out, unsubs_out, events_out;
};

static void emit_sub(struct emitter *em, uint64_t pos)
{
	struct gen *g = em->g;
	struct sub_buf b;
	struct spate_raw_sub *s = &b.op.u.sub;
	uint64_t id = em->next_sub++;

	memset(s, 0, offsetof(struct spate_raw_sub, kw));
	b.op.kind = SPATE_LINE_SUB;
	s->id = id;
	if (g->wl == WL_DRT)
		make_sub_drt(g, s);
	else if (g->wl == WL_FAST)
		make_sub_fast(g, &b);
	else
		make_sub_rein(g, s);
	spate_stream_write(em->f, &b.op);
	em->subs_out++;
	/* Schedule its removal before a later event (or at the end). */
	if (g->del_frac > 0 && gen_rng_unit(&g->rng) < g->del_frac) {
		/* Slot n + 1 is after the last event. */
		uint64_t at = pos + 1 + gen_rng_below(&g->rng, g->places.n - pos + 1);
		em->del_next[id] = em->del_head[at];
		em->del_head[at] = id;
	}
}

static void emit_unsubs(struct emitter *em, uint64_t pos)
{
	for (uint64_t id = em->del_head[pos]; id != 0; id = em->del_next[id]) {
		struct spate_stream_op op = { .kind = SPATE_LINE_UNSUB, .u.unsub_id = id };
		spate_stream_write(em->f, &op);
		em->unsubs_out++;
	}
}

static int emit_stream(struct gen *g, FILE *f)
{
	uint64_t n = g->places.n, m = g->wl == WL_PLACES ? 0 : g->n_subs;
	struct emitter em = { .g = g, .f = f, .next_sub = 1, .n_subs = m };
	/* An op holds a whole raw event (kilobytes): not on the stack. */
	static struct spate_stream_op evop = { .kind = SPATE_LINE_EVENT };

	em.del_head = calloc(n + 2, sizeof(uint64_t));
	em.del_next = calloc(m + 1, sizeof(uint64_t));
	if (em.del_head == NULL || em.del_next == NULL) {
		free(em.del_head);
		free(em.del_next);
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	if (!g->interleaved)
		while (em.next_sub <= m)
			emit_sub(&em, 0);
	for (uint64_t i = 0; i <= n; i++) {
		emit_unsubs(&em, i);
		/* Interleaved: subscription j (1-based) goes before event
		 * floor((j - 1) * n / m), so they spread evenly. */
		while (g->interleaved && em.next_sub <= m &&
		       (i == n || (em.next_sub - 1) * n / m <= i))
			emit_sub(&em, i);
		if (i == n)
			break;
		gen_places_event(&g->places, i, i + 1, &evop.u.ev);
		spate_stream_write(f, &evop);
		em.events_out++;
	}
	emit_unsubs(&em, n + 1);
	free(em.del_head);
	free(em.del_next);
	fprintf(stderr, PROG ": %" PRIu64 " events, %" PRIu64 " subs, %" PRIu64 " unsubs\n",
		em.events_out, em.subs_out, em.unsubs_out);
	return 0;
}

static int shuffle_places(struct gen *g)
{
	struct gen_places *p = &g->places;

	for (size_t i = p->n; i > 1; i--) {
		size_t j = (size_t)gen_rng_below(&g->rng, i);
		struct gen_place t = p->p[i - 1];
		p->p[i - 1] = p->p[j];
		p->p[j] = t;
	}
	return 0;
}

static int build(struct gen *g)
{
	if (gen_zipf_init(&g->words, g->vocab, g->zipf) != 0)
		return -1;
	if (g->skewed) {
		g->hs = calloc((size_t)g->hotspots, sizeof(*g->hs));
		if (g->hs == NULL || gen_zipf_init(&g->hs_weight, (size_t)g->hotspots, 1.0) != 0)
			return -1;
		for (int k = 0; k < g->hotspots; k++) {
			g->hs[k][0] = gen_rng_uniform(&g->rng, g->ext[0], g->ext[2]);
			g->hs[k][1] = gen_rng_uniform(&g->rng, g->ext[1], g->ext[3]);
		}
	}
	if (g->wl == WL_REIN) {
		g->attr_name = calloc((size_t)g->attrs, sizeof(*g->attr_name));
		if (g->attr_name == NULL)
			return -1;
		for (int a = 0; a < g->attrs; a++)
			snprintf(g->attr_name[a], sizeof(g->attr_name[a]), "a%d", a);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' },
		{ "subs", required_argument, NULL, 'u' },
		{ "sub-ratio", required_argument, NULL, 'U' },
		{ "order", required_argument, NULL, 'O' },
		{ "deletes", required_argument, NULL, 'D' },
		{ "extent", required_argument, NULL, 'x' },
		{ "space", required_argument, NULL, 'p' },
		{ "hotspots", required_argument, NULL, 'H' },
		{ "spread", required_argument, NULL, 'r' },
		{ "vocab", required_argument, NULL, 'v' },
		{ "zipf", required_argument, NULL, 'z' },
		{ "event-kw", required_argument, NULL, 'k' },
		{ "sub-kw", required_argument, NULL, 'K' },
		{ "max-extent", required_argument, NULL, 'm' },
		{ "cons-ratio", required_argument, NULL, 'C' },
		{ "side", required_argument, NULL, 'S' },
		{ "attrs", required_argument, NULL, 'a' },
		{ "sub-attrs", required_argument, NULL, 'A' },
		{ "event-attrs", required_argument, NULL, 'E' },
		{ "width", required_argument, NULL, 'W' },
		{ "domain", required_argument, NULL, 'R' },
		{ "input", required_argument, NULL, 'i' },
		{ "input-format", required_argument, NULL, 'f' },
		{ "attr-names", required_argument, NULL, 'N' },
		{ "shuffle", no_argument, NULL, 'X' },
		{ "conf", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct gen g = {
		.n_events = 10000,
		.sub_ratio = 0.01,
		.hotspots = 10,
		.spread = 0.02,
		.vocab = 1000,
		.zipf = 1.0,
		.ekw_min = 1,
		.ekw_max = 5,
		.skw_min = 1,
		.skw_max = 3,
		.max_extent = 5,
		.side = 0.01,
		.attrs = 10,
		.sub_attrs = 5,
		.event_attrs = 10,
		.width = 0.5,
		.domain = 1000000,
		.input_fmt = "tsv",
	};
	const char *out = "-", *conf_path = NULL;
	uint64_t seed = 1, v;
	bool ratio_set = false;
	struct spate_conf conf;
	char err[512];
	int c, bad = 0;

	spate_conf_default(&conf);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': {
			size_t i;
			for (i = 0; i < 4 && strcmp(optarg, workload_names[i]) != 0; i++)
				;
			if (i == 4) {
				fprintf(stderr,
					PROG
					": --workload: unknown '%s' (drt, fast, rein, places)\n",
					optarg);
				bad = 1;
			}
			g.wl = (enum workload)i;
			break;
		}
		case 's':
			bad |= opt_u64(PROG, "seed", optarg, 0, UINT64_MAX, &seed);
			break;
		case 'e':
			bad |= opt_u64(PROG, "events", optarg, 0, 100000000, &g.n_events);
			g.events_set = true;
			break;
		case 'u':
			bad |= opt_u64(PROG, "subs", optarg, 0, 100000000, &g.n_subs);
			g.subs_set = true;
			break;
		case 'U':
			bad |= opt_double(PROG, "sub-ratio", optarg, 0, 10000, &g.sub_ratio);
			ratio_set = true;
			break;
		case 'O':
			if (strcmp(optarg, "interleaved") != 0 &&
			    strcmp(optarg, "subs-first") != 0) {
				fprintf(stderr,
					PROG ": --order: unknown '%s' (interleaved, subs-first)\n",
					optarg);
				bad = 1;
			}
			g.interleaved = strcmp(optarg, "interleaved") == 0;
			g.order_set = true;
			break;
		case 'D':
			bad |= opt_double(PROG, "deletes", optarg, 0, 1, &g.del_frac);
			break;
		case 'x':
			bad |= parse_extent(optarg, g.ext);
			g.ext_set = true;
			break;
		case 'p':
			if (strcmp(optarg, "uniform") != 0 && strcmp(optarg, "skewed") != 0) {
				fprintf(stderr, PROG ": --space: unknown '%s' (uniform, skewed)\n",
					optarg);
				bad = 1;
			}
			g.skewed = strcmp(optarg, "skewed") == 0;
			break;
		case 'H':
			bad |= opt_int(PROG, "hotspots", optarg, 1, 100000, &g.hotspots);
			break;
		case 'r':
			bad |= opt_double(PROG, "spread", optarg, 0, 10, &g.spread);
			break;
		case 'v':
			bad |= opt_u64(PROG, "vocab", optarg, 1, 100000000, &v);
			g.vocab = (size_t)v;
			break;
		case 'z':
			bad |= opt_double(PROG, "zipf", optarg, 0, 10, &g.zipf);
			break;
		case 'k':
			bad |= parse_range("event-kw", optarg, &g.ekw_min, &g.ekw_max);
			g.ekw_set = true;
			break;
		case 'K':
			bad |= parse_range("sub-kw", optarg, &g.skw_min, &g.skw_max);
			break;
		case 'm':
			bad |= opt_double(PROG, "max-extent", optarg, 0, 360, &g.max_extent);
			break;
		case 'C':
			bad |= opt_double(PROG, "cons-ratio", optarg, 0, 1, &g.cons_ratio);
			break;
		case 'S':
			bad |= opt_double(PROG, "side", optarg, 0, 1, &g.side);
			break;
		case 'a':
			bad |= opt_int(PROG, "attrs", optarg, 1, SPATE_ATTR_MAX_HARD * 8, &g.attrs);
			break;
		case 'A':
			bad |= opt_int(PROG, "sub-attrs", optarg, 1, SPATE_CONS_MAX_HARD,
				       &g.sub_attrs);
			break;
		case 'E':
			bad |= opt_int(PROG, "event-attrs", optarg, 0, SPATE_ATTR_MAX_HARD,
				       &g.event_attrs);
			break;
		case 'W':
			bad |= opt_double(PROG, "width", optarg, 0, 1, &g.width);
			break;
		case 'R':
			bad |= opt_double(PROG, "domain", optarg, 1, 1e15, &g.domain);
			break;
		case 'i':
			g.input = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "geonames") != 0 && strcmp(optarg, "tsv") != 0) {
				fprintf(stderr,
					PROG ": --input-format: unknown '%s' (geonames, tsv)\n",
					optarg);
				bad = 1;
			}
			g.input_fmt = optarg;
			break;
		case 'N':
			g.attr_names = optarg;
			break;
		case 'X':
			g.shuffle = true;
			break;
		case 'c':
			conf_path = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return opt_other(PROG, c, usage);
		}
	}
	if (bad)
		return 2;
	if (optind != argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (conf_path && spate_conf_load(&conf, conf_path, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	g.lim = conf.limits;
	/* Workload defaults. */
	if (!g.order_set)
		g.interleaved = g.wl == WL_DRT;
	if (!g.ext_set) {
		static const double us[4] = { -125, 24, -66, 50 },
				    world[4] = { -180, -90, 180, 90 };
		memcpy(g.ext, g.wl == WL_FAST ? us : world, sizeof(g.ext));
	}
	if (g.wl == WL_FAST && !g.ekw_set)
		g.ekw_min = g.ekw_max = 10;
	if (check_conf(&g) != 0)
		return 2;
	gen_rng_seed(&g.rng, seed);
	gen_places_init(&g.places, &g.lim);
	if (build(&g) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (g.input != NULL) {
		if (gen_places_read(&g.places, g.input, g.input_fmt, g.attr_names,
				    g.events_set ? g.n_events : 0, PROG) != 0)
			return 1;
	} else if (synth_events(&g) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (g.shuffle)
		shuffle_places(&g);
	g.n_events = g.places.n;
	if (!g.subs_set)
		g.n_subs = g.wl == WL_DRT || ratio_set
				   ? (uint64_t)llround(g.sub_ratio * (double)g.n_events)
				   : g.n_events;
	if (g.wl == WL_DRT && g.n_events == 0 && g.n_subs > 0) {
		fprintf(stderr,
			PROG ": drt derives subscriptions from events: need --events > 0\n");
		return 2;
	}

	struct outfile of;
	if (outfile_open(&of, PROG, out) != 0)
		return 1;
	/* The command line heads the file: how to make it again (but not
	 * where it was written, so that copies compare equal). */
	fputs("# " PROG, of.f);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--out") == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--out=", 6) != 0)
			fprintf(of.f, " %s", argv[i]);
	}
	fputc('\n', of.f);
	if (emit_stream(&g, of.f) != 0) {
		outfile_abort(&of);
		return 1;
	}
	int status = outfile_commit(&of) == 0 ? 0 : 1;
	gen_places_free(&g.places);
	gen_zipf_free(&g.words);
	gen_zipf_free(&g.hs_weight);
	free(g.hs);
	free(g.attr_name);
	return status;
}
