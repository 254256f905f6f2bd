/* ctl_out.h - what a control command prints, written once and rendered
 * either as JSON (spatectl --json) or as indented "key: value" text. */
#ifndef SPATED_CTL_OUT_H
#define SPATED_CTL_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CTL_OUT_DEPTH 8

struct ctl_out {
	FILE *f;
	bool json;
	int depth;
	bool first[CTL_OUT_DEPTH]; /* no member printed yet at this depth */
	bool array[CTL_OUT_DEPTH]; /* this level is an array */
};

/* Starts the top-level object. */
void ctl_out_init(struct ctl_out *o, FILE *f, bool json);
/* Closes every open level (and ends the JSON line). */
void ctl_out_finish(struct ctl_out *o);

/* Members of the current object (key) or items of the current array
 * (key NULL). */
void ctl_out_u64(struct ctl_out *o, const char *key, uint64_t v);
void ctl_out_dbl(struct ctl_out *o, const char *key, double v);
void ctl_out_str(struct ctl_out *o, const char *key, const char *v);
void ctl_out_bool(struct ctl_out *o, const char *key, bool v);
/* A value known only as text: in JSON a number when it is one by JSON's
 * grammar ("0.2", "1000", not "0600"), true/false, else a string. */
void ctl_out_value(struct ctl_out *o, const char *key, const char *text);
void ctl_out_obj(struct ctl_out *o, const char *key); /* opens an object */
void ctl_out_arr(struct ctl_out *o, const char *key); /* opens an array */
void ctl_out_end(struct ctl_out *o);                  /* closes one level */

#endif
