/* spate_stream.h - the text stream format: one operation per line,
 * tab-separated, '#' starts a comment line, blank lines ignored.
 *
 *   sub    <id> <minlon> <minlat> <maxlon> <maxlat> <kw,kw,...> [<constraints>]
 *   unsub  <id>
 *   event  <id> <lon> <lat> <kw,kw,...> [<attr=value,...>]
 *
 * ids are decimal u64. Coordinates are decimal degrees (no exponent),
 * rounded to the nearest 1e-7 degree (ties away from zero). Keywords are
 * comma-separated, '-' means none. Constraints are comma-separated
 * `name OP number`, OP one of >= <= != > < =; attributes `name=number`;
 * '-' means none. A repeated attribute in an event: the first value wins.
 * Strings in a parsed op point into the line and live as long as it does.
 */
#ifndef SPATE_STREAM_H
#define SPATE_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/spate_types.h"

enum spate_line_kind {
	SPATE_LINE_NONE = 0, /* blank or comment */
	SPATE_LINE_SUB,
	SPATE_LINE_UNSUB,
	SPATE_LINE_EVENT,
};

struct spate_stream_op {
	int kind; /* enum spate_line_kind */
	union {
		struct spate_raw_sub sub;
		uint64_t unsub_id;
		struct spate_raw_event ev;
	} u;
};

/* Parse one line (`len` bytes, no newline needed; a trailing "\r" or "\n"
 * is ignored). 0 with *op filled, or -SPATE_E_* with a reason in err. */
int spate_stream_parse_line(const char *line, size_t len, const struct spate_limits *lim,
			    struct spate_stream_op *op, char *err, size_t errlen);

/* Decimal degrees to 1e-7 fixed point: 0, or -SPATE_E_BAD_SYNTAX /
 * -SPATE_E_BAD_COORD. `max` is SPATE_LON_MAX or SPATE_LAT_MAX. */
int spate_parse_coord(const char *p, size_t len, int32_t max, int32_t *out);
/* Fixed point to text with 7 decimals ("-6.0816900"); buf >= 16 bytes. */
void spate_format_coord(int32_t v, char *buf, size_t len);

/* Reads a stream file line by line: blocks of the file (read(2), as
 * much as is there, so a pipe's lines come out as they arrive) into buf,
 * lines handed out in place. */
struct spate_stream_reader {
	FILE *f;
	const char *path;
	unsigned long line_no;
	char *buf;
	size_t cap;
	size_t at, end; /* buf[at, end): read, not handed out yet */
	bool eof;       /* read(2) said end of file (or failed) */
	const struct spate_limits *lim;
	const char *bad; /* the last bad line (bad_len bytes), for its report */
	size_t bad_len;
};

/* path "-" = stdin. 0, or -1 with errno set. */
int spate_stream_open(struct spate_stream_reader *r, const char *path,
		      const struct spate_limits *lim);
void spate_stream_close(struct spate_stream_reader *r);
/* Next operation (comments and blank lines skipped): 1 with *op, 0 at end
 * of file, or -SPATE_E_* with "path:line: reason" in err (the reader can
 * go on with the next line). */
int spate_stream_next(struct spate_stream_reader *r, struct spate_stream_op *op, char *err,
		      size_t errlen);

/* spate_stream_next for tools: a bad line is printed to stderr as
 * "prog: path:line: reason" and counted in *n_bad; with skip_bad the next
 * line is read, without it -1 is returned. 1 with *op, 0 at end. */
int spate_stream_next_reported(struct spate_stream_reader *r, struct spate_stream_op *op,
			       const char *prog, bool skip_bad, uint64_t *n_bad);

/* Write an op back in the stream format, newline included. */
void spate_stream_write(FILE *f, const struct spate_stream_op *op);

#endif
