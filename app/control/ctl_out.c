/* ctl_out.c - JSON or text rendering of control output (ctl_out.h). */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "control/ctl_out.h"
#include "proto/spate_types.h"

void ctl_out_init(struct ctl_out *o, FILE *f, bool json)
{
	o->f = f;
	o->json = json;
	o->depth = 0;
	o->first[0] = true;
	o->array[0] = false;
	if (json)
		fputc('{', f);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Separator and key before a value. */
static void lead(struct ctl_out *o, const char *key)
{
	if (o->json) {
		if (!o->first[o->depth])
			fputc(',', o->f);
		if (key && !o->array[o->depth]) {
			json_str(o->f, key);
			fputc(':', o->f);
		}
	} else {
		fprintf(o->f, "%*s", 2 * o->depth, "");
		if (o->array[o->depth])
			fputs("- ", o->f);
		if (key && !o->array[o->depth])
			fprintf(o->f, "%s: ", key);
	}
	o->first[o->depth] = false;
}

void ctl_out_u64(struct ctl_out *o, const char *key, uint64_t v)
{
	lead(o, key);
	fprintf(o->f, o->json ? "%llu" : "%llu\n", (unsigned long long)v);
}

void ctl_out_dbl(struct ctl_out *o, const char *key, double v)
{
	char buf[40];

	lead(o, key);
	/* the shortest text that reads back as v: 27.3, not 27.300000000000001 */
	spate_format_double(buf, sizeof(buf), v);
	if (o->json && !isfinite(v))
		fputs("null", o->f);
	else
		fprintf(o->f, o->json ? "%s" : "%s\n", buf);
}

void ctl_out_str(struct ctl_out *o, const char *key, const char *v)
{
	lead(o, key);
	if (o->json)
		json_str(o->f, v);
	else
		fprintf(o->f, "%s\n", v);
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool is_json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (isdigit((unsigned char)*s))
			s++;
	else
		return false;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

void ctl_out_value(struct ctl_out *o, const char *key, const char *text)
{
	if (!o->json ||
	    !(is_json_number(text) || strcmp(text, "true") == 0 || strcmp(text, "false") == 0)) {
		ctl_out_str(o, key, text);
		return;
	}
	lead(o, key);
	fputs(text, o->f);
}

void ctl_out_bool(struct ctl_out *o, const char *key, bool v)
{
	lead(o, key);
	fprintf(o->f, o->json ? "%s" : "%s\n", v ? "true" : "false");
}

static void open_level(struct ctl_out *o, const char *key, bool array)
{
	lead(o, key);
	if (o->json)
		fputc(array ? '[' : '{', o->f);
	else
		fputc('\n', o->f);
	if (o->depth + 1 < CTL_OUT_DEPTH)
		o->depth++;
	o->first[o->depth] = true;
	o->array[o->depth] = array;
}

void ctl_out_obj(struct ctl_out *o, const char *key)
{
	open_level(o, key, false);
}

void ctl_out_arr(struct ctl_out *o, const char *key)
{
	open_level(o, key, true);
}

void ctl_out_end(struct ctl_out *o)
{
	if (o->depth == 0)
		return;
	if (o->json)
		fputc(o->array[o->depth] ? ']' : '}', o->f);
	o->depth--;
}

void ctl_out_finish(struct ctl_out *o)
{
	while (o->depth > 0)
		ctl_out_end(o);
	if (o->json)
		fputs("}\n", o->f);
}
