/* gen_places.h - spate-gen's event store: points with keywords and
 * numeric attributes, kept in memory (the DRt workload derives
 * subscriptions from random events, so all must be known up front).
 * Filled by the synthetic models in spate-gen.c or read from a GeoNames
 * table (cities500.txt, cities1000.txt, ...) or a plain
 * "lon<TAB>lat<TAB>keywords[<TAB>extra...]" file. Every keyword and name
 * stored has passed the stream format's checks against the limits. */
#ifndef SPATE_TOOLS_GEN_PLACES_H
#define SPATE_TOOLS_GEN_PLACES_H

#include <stddef.h>
#include <stdint.h>

#include "proto/spate_types.h"

struct gen_attr {
	uint32_t name; /* offset of a NUL-terminated string in the pool */
	double value;
};

struct gen_place {
	int32_t lon, lat;
	uint32_t kw_first, n_kw, attr_first, n_attr;
};

struct gen_places {
	struct gen_place *p;
	size_t n, cap;
	uint32_t *kw; /* pool offsets */
	size_t n_kw, cap_kw;
	struct gen_attr *attr;
	size_t n_attr, cap_attr;
	char *pool;
	size_t pool_len, pool_cap;
	const struct spate_limits *lim;
};

void gen_places_init(struct gen_places *g, const struct spate_limits *lim);
void gen_places_free(struct gen_places *g);

/* Start a new place; then add its keywords and attributes. 0 or -1 (out
 * of memory). */
int gen_places_begin(struct gen_places *g, int32_t lon, int32_t lat);
/* 0 added, 1 skipped (a repeat, or the place is full), -1 out of memory,
 * or -SPATE_E_* (< -1) when the keyword is not valid. */
int gen_places_add_kw(struct gen_places *g, const char *p, size_t len);
/* Same codes; an attribute name already on the place is skipped. */
int gen_places_add_attr(struct gen_places *g, const char *name, size_t len, double value);
/* The string at a pool offset. */
static inline const char *gen_places_str(const struct gen_places *g, uint32_t off)
{
	return g->pool + off;
}

/* Read places from a file: format "geonames" or "tsv". attr_names: for
 * tsv, comma-separated names of the extra numeric columns (NULL: c4, c5,
 * ... by column number). At most max places (0 = all). 0, or -1 with
 * "prog: path:line: reason" on stderr. */
int gen_places_read(struct gen_places *g, const char *path, const char *format,
		    const char *attr_names, uint64_t max, const char *prog);

/* The place as a raw event (strings point into the store). */
void gen_places_event(const struct gen_places *g, size_t i, uint64_t id,
		      struct spate_raw_event *ev);

#endif
