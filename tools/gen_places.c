/* gen_places.c - spate-gen's event store and its file readers
 * (gen_places.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_places.h"
#include "proto/spate_err.h"
#include "stream/spate_stream.h"

void gen_places_init(struct gen_places *g, const struct spate_limits *lim)
{
	memset(g, 0, sizeof(*g));
	g->lim = lim;
}

void gen_places_free(struct gen_places *g)
{
	free(g->p);
	free(g->kw);
	free(g->attr);
	free(g->pool);
	memset(g, 0, sizeof(*g));
}

/* Make room for one more element of size `sz` in *arr. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 1024;
	void *na = realloc(*arr, ncap * sz);
	if (na == NULL)
		return -1;
	*arr = na;
	*cap = ncap;
	return 0;
}

static int pool_add(struct gen_places *g, const char *p, size_t len, uint32_t *off)
{
	while (g->pool_len + len + 1 > g->pool_cap) {
		size_t ncap = g->pool_cap ? g->pool_cap * 2 : 65536;
		char *np = realloc(g->pool, ncap);
		if (np == NULL || ncap > UINT32_MAX)
			return -1;
		g->pool = np;
		g->pool_cap = ncap;
	}
	*off = (uint32_t)g->pool_len;
	memcpy(g->pool + g->pool_len, p, len);
	g->pool[g->pool_len + len] = '\0';
	g->pool_len += len + 1;
	return 0;
}

int gen_places_begin(struct gen_places *g, int32_t lon, int32_t lat)
{
	if (grow((void **)&g->p, &g->cap, g->n, sizeof(*g->p)) != 0)
		return -1;
	g->p[g->n++] = (struct gen_place){ lon, lat, (uint32_t)g->n_kw, 0, (uint32_t)g->n_attr, 0 };
	return 0;
}

static bool same(const struct gen_places *g, uint32_t off, const char *p, size_t len)
{
	return strncmp(g->pool + off, p, len) == 0 && g->pool[off + len] == '\0';
}

int gen_places_add_kw(struct gen_places *g, const char *p, size_t len)
{
	struct gen_place *pl = &g->p[g->n - 1];
	int rc = spate_check_keyword(g->lim, p, len);

	/* "-" alone is the stream format's "none". */
	if (rc == 0 && len == 1 && p[0] == '-')
		rc = -SPATE_E_BAD_KEYWORD;
	if (rc != 0)
		return rc < -1 ? rc : -SPATE_E_BAD_KEYWORD;
	if (pl->n_kw >= g->lim->max_keywords)
		return 1;
	for (uint32_t i = 0; i < pl->n_kw; i++)
		if (same(g, g->kw[pl->kw_first + i], p, len))
			return 1;
	if (grow((void **)&g->kw, &g->cap_kw, g->n_kw, sizeof(*g->kw)) != 0 ||
	    pool_add(g, p, len, &g->kw[g->n_kw]) != 0)
		return -1;
	g->n_kw++;
	pl->n_kw++;
	return 0;
}

int gen_places_add_attr(struct gen_places *g, const char *name, size_t len, double value)
{
	struct gen_place *pl = &g->p[g->n - 1];
	int rc = spate_check_name(g->lim, name, len);

	if (rc != 0)
		return rc < -1 ? rc : -SPATE_E_BAD_KEYWORD;
	if (!isfinite(value))
		return -SPATE_E_BAD_VALUE;
	if (pl->n_attr >= g->lim->max_attrs)
		return 1;
	for (uint32_t i = 0; i < pl->n_attr; i++)
		if (same(g, g->attr[pl->attr_first + i].name, name, len))
			return 1;
	if (grow((void **)&g->attr, &g->cap_attr, g->n_attr, sizeof(*g->attr)) != 0 ||
	    pool_add(g, name, len, &g->attr[g->n_attr].name) != 0)
		return -1;
	g->attr[g->n_attr++].value = value;
	pl->n_attr++;
	return 0;
}

void gen_places_event(const struct gen_places *g, size_t i, uint64_t id, struct spate_raw_event *ev)
{
	const struct gen_place *pl = &g->p[i];

	ev->id = id;
	ev->lon = pl->lon;
	ev->lat = pl->lat;
	ev->n_kw = pl->n_kw;
	ev->n_attr = pl->n_attr;
	for (uint32_t k = 0; k < pl->n_kw; k++) {
		const char *s = g->pool + g->kw[pl->kw_first + k];
		ev->kw[k] = (struct spate_str){ s, (uint32_t)strlen(s) };
	}
	for (uint32_t a = 0; a < pl->n_attr; a++) {
		const struct gen_attr *at = &g->attr[pl->attr_first + a];
		const char *s = g->pool + at->name;
		ev->attr[a] = (struct spate_raw_attr){ { s, (uint32_t)strlen(s) }, at->value };
	}
}

/* ---- readers ---------------------------------------------------------- */

#define MAX_FIELDS 64

struct line_ctx {
	const char *prog, *path;
	unsigned long line_no;
};

static int bad_line(const struct line_ctx *lc, const char *what)
{
	fprintf(stderr, "%s: %s:%lu: %s\n", lc->prog, lc->path, lc->line_no, what);
	return -1;
}

/* Split a line in place on tabs; returns the number of fields. */
static int split_tabs(char *line, char **f, int max)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	for (char *p = line; n < max; p++) {
		f[n++] = p;
		p = strchr(p, '\t');
		if (p == NULL)
			break;
		*p = '\0';
	}
	return n;
}

static int parse_number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return *s != '\0' && *end == '\0' && errno == 0 && isfinite(*v) ? 0 : -1;
}

static int parse_point(const struct line_ctx *lc, const char *lon_s, const char *lat_s,
		       int32_t *lon, int32_t *lat)
{
	char msg[160];

	if (spate_parse_coord(lon_s, strlen(lon_s), SPATE_LON_MAX, lon) != 0 ||
	    spate_parse_coord(lat_s, strlen(lat_s), SPATE_LAT_MAX, lat) != 0) {
		snprintf(msg, sizeof(msg), "bad coordinates lon '%.40s' lat '%.40s'", lon_s, lat_s);
		return bad_line(lc, msg);
	}
	return 0;
}

static int oom(const struct line_ctx *lc)
{
	return bad_line(lc, "out of memory");
}

/* A keyword made from free text: "prefix:" + the token, lower case. */
static int add_token_kw(struct gen_places *g, const char *prefix, const char *p, size_t len)
{
	char buf[300];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%s", prefix);

	for (size_t i = 0; i < len && n < g->lim->max_keyword_len && n < sizeof(buf) - 1; i++)
		buf[n++] = (char)tolower((unsigned char)p[i]);
	/* Free text may still fail the checks (odd bytes): then leave it. */
	return gen_places_add_kw(g, buf, n) == -1 ? -1 : 0;
}

/* GeoNames "geoname" table: 19 tab-separated columns (readme.txt of
 * download.geonames.org/export/dump). */
enum {
	GN_ID,
	GN_NAME,
	GN_ASCIINAME,
	GN_ALTNAMES,
	GN_LAT,
	GN_LON,
	GN_FCLASS,
	GN_FCODE,
	GN_COUNTRY,
	GN_CC2,
	GN_ADMIN1,
	GN_ADMIN2,
	GN_ADMIN3,
	GN_ADMIN4,
	GN_POPULATION,
	GN_ELEVATION,
	GN_DEM,
	GN_TZ,
	GN_MODIFIED,
	GN_FIELDS
};

static int geonames_row(struct gen_places *g, const struct line_ctx *lc, char **f, int nf)
{
	char msg[120];
	int32_t lon, lat;
	double v;

	if (nf != GN_FIELDS) {
		snprintf(msg, sizeof(msg), "expected %d tab-separated GeoNames fields, got %d",
			 GN_FIELDS, nf);
		return bad_line(lc, msg);
	}
	if (parse_point(lc, f[GN_LON], f[GN_LAT], &lon, &lat) != 0)
		return -1;
	if (gen_places_begin(g, lon, lat) != 0)
		return oom(lc);
	/* Name tokens: runs of ASCII letters and digits of the ASCII name. */
	for (const char *p = f[GN_ASCIINAME]; *p;) {
		size_t n = 0;
		while (p[n] && isalnum((unsigned char)p[n]))
			n++;
		if (n > 0 && add_token_kw(g, "n:", p, n) != 0)
			return oom(lc);
		p += n;
		while (*p && !isalnum((unsigned char)*p))
			p++;
	}
	static const struct {
		int col;
		const char *prefix;
	} kws[] = {
		{ GN_COUNTRY, "ctry:" },
		{ GN_FCODE, "fc:" },
		{ GN_TZ, "tz:" },
	};
	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (f[kws[i].col][0] != '\0' &&
		    add_token_kw(g, kws[i].prefix, f[kws[i].col], strlen(f[kws[i].col])) != 0)
			return oom(lc);
	static const struct {
		int col;
		const char *name;
	} attrs[] = {
		{ GN_POPULATION, "population" },
		{ GN_ELEVATION, "elevation" },
		{ GN_DEM, "dem" },
	};
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		if (f[attrs[i].col][0] == '\0')
			continue;
		if (parse_number(f[attrs[i].col], &v) != 0) {
			snprintf(msg, sizeof(msg), "%s: not a number: '%.40s'", attrs[i].name,
				 f[attrs[i].col]);
			return bad_line(lc, msg);
		}
		if (gen_places_add_attr(g, attrs[i].name, strlen(attrs[i].name), v) == -1)
			return oom(lc);
	}
	return 0;
}

static int report_rc(const struct line_ctx *lc, int rc, const char *what, const char *p, size_t len)
{
	char msg[200];

	if (rc == -1)
		return oom(lc);
	snprintf(msg, sizeof(msg), "%s '%.*s': %s", what, (int)(len > 60 ? 60 : len), p,
		 spate_err_reason(rc));
	return bad_line(lc, msg);
}

/* "lon lat keywords [extra...]": extra columns are name=value lists or
 * bare numbers named by attr_names. */
static int tsv_row(struct gen_places *g, const struct line_ctx *lc, char **f, int nf,
		   const char *attr_names)
{
	char msg[160];
	int32_t lon, lat;
	double v;
	int rc;

	if (nf < 3)
		return bad_line(lc, "expected lon<TAB>lat<TAB>keywords[<TAB>more]");
	if (parse_point(lc, f[0], f[1], &lon, &lat) != 0)
		return -1;
	if (gen_places_begin(g, lon, lat) != 0)
		return oom(lc);
	if (strcmp(f[2], "-") != 0) {
		for (char *p = f[2]; *p;) {
			size_t n = strcspn(p, ",");
			rc = gen_places_add_kw(g, p, n);
			if (rc < 0)
				return report_rc(lc, rc, "keyword", p, n);
			p += n + (p[n] == ',');
		}
	}
	const char *names = attr_names;
	for (int c = 3; c < nf; c++) {
		char name[64];
		size_t nlen;
		/* The name of a bare column: the next of attr_names, or cN. */
		if (names != NULL && *names) {
			nlen = strcspn(names, ",");
			snprintf(name, sizeof(name), "%.*s", (int)nlen, names);
			names += nlen + (names[nlen] == ',');
		} else {
			snprintf(name, sizeof(name), "c%d", c + 1);
		}
		if (strchr(f[c], '=') == NULL) {
			if (parse_number(f[c], &v) != 0) {
				snprintf(msg, sizeof(msg),
					 "column %d: not a number or name=value list: '%.40s'",
					 c + 1, f[c]);
				return bad_line(lc, msg);
			}
			rc = gen_places_add_attr(g, name, strlen(name), v);
			if (rc < 0)
				return report_rc(lc, rc, "attribute", name, strlen(name));
			continue;
		}
		for (char *p = f[c]; *p;) {
			size_t n = strcspn(p, ","), eq = strcspn(p, "=");
			char val[64];
			if (eq >= n || n - eq - 1 >= sizeof(val)) {
				snprintf(msg, sizeof(msg), "column %d: want name=value: '%.*s'",
					 c + 1, (int)(n > 40 ? 40 : n), p);
				return bad_line(lc, msg);
			}
			memcpy(val, p + eq + 1, n - eq - 1);
			val[n - eq - 1] = '\0';
			if (parse_number(val, &v) != 0) {
				snprintf(msg, sizeof(msg), "column %d: not a number: '%s'", c + 1,
					 val);
				return bad_line(lc, msg);
			}
			rc = gen_places_add_attr(g, p, eq, v);
			if (rc < 0)
				return report_rc(lc, rc, "attribute", p, eq);
			p += n + (p[n] == ',');
		}
	}
	return 0;
}

int gen_places_read(struct gen_places *g, const char *path, const char *format,
		    const char *attr_names, uint64_t max, const char *prog)
{
	struct line_ctx lc = { prog, path, 0 };
	bool geonames = strcmp(format, "geonames") == 0;
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char *line = NULL, *fields[MAX_FIELDS];
	size_t cap = 0;
	int rc = 0;

	if (!geonames && strcmp(format, "tsv") != 0) {
		fprintf(stderr, "%s: unknown input format '%s' (geonames or tsv)\n", prog, format);
		return -1;
	}
	if (f == NULL) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	while ((max == 0 || g->n < max) && getline(&line, &cap, f) > 0) {
		lc.line_no++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		int nf = split_tabs(line, fields, MAX_FIELDS);
		rc = geonames ? geonames_row(g, &lc, fields, nf)
			      : tsv_row(g, &lc, fields, nf, attr_names);
		if (rc != 0)
			break;
	}
	if (rc == 0 && ferror(f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && g->n == 0) {
		fprintf(stderr, "%s: %s: no places\n", prog, path);
		rc = -1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}
