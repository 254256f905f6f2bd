/* opt.h - command-line numbers for the tools: the whole argument must be
 * a number in range, else "prog: --name: bad value 'x' (want ...)" is
 * printed and -1 returned (callers exit 2, the usage error status). */
#ifndef SPATE_TOOLS_OPT_H
#define SPATE_TOOLS_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

int opt_u64(const char *prog, const char *name, const char *s, uint64_t min, uint64_t max,
	    uint64_t *out);
int opt_int(const char *prog, const char *name, const char *s, int min, int max, int *out);
int opt_double(const char *prog, const char *name, const char *s, double min, double max,
	       double *out);
/* "on" or "off". */
int opt_onoff(const char *prog, const char *name, const char *s, bool *out);

/* The end of every tool's getopt switch, for an option the tool does not
 * take itself: 'h' (--help: usage on stdout, 0), 'V' (--version: the
 * release line), anything else (usage on stderr, 2). Returns the exit
 * status. */
int opt_other(const char *prog, int c, void (*usage)(FILE *f));

#endif
