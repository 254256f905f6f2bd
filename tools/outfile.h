/* outfile.h - output files that are never left half-written: the tools
 * write to a temporary file beside the target and rename it into place
 * only when everything went well ("-" means stdout, written directly, as
 * is a target that is not a regular file: /dev/null, a FIFO). */
#ifndef SPATE_TOOLS_OUTFILE_H
#define SPATE_TOOLS_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *f;
	const char *prog, *path;
	char tmp[4096]; /* "" when written directly */
};

/* 0 with o->f open, or -1 with a message on stderr. */
int outfile_open(struct outfile *o, const char *prog, const char *path);
/* Flush, close and rename into place: 0, or -1 (message printed, the
 * temporary file removed, the target untouched). When a library closed
 * o->f itself (after checking its own flush), set o->f to NULL first:
 * then only the rename is left. */
int outfile_commit(struct outfile *o);
/* Give up: close and remove the temporary file. */
void outfile_abort(struct outfile *o);

#endif
