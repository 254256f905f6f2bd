/* check_config.h - `spated --check-config`: every error of a config file,
 * each with its line, not just the first. */
#ifndef SPATED_CHECK_CONFIG_H
#define SPATED_CHECK_CONFIG_H

#include <stdio.h>

/* Print one "file:line: message" per error to out, then a summary line.
 * Returns the number of errors (0 = the file is good). A syntax error
 * stops libconfig's parser, so it is reported alone. */
int check_config(const char *path, FILE *out);

#endif
