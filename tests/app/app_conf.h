/* app_conf.h - the config tests' loader: a text written to a file and
 * read into a fresh default conf, as spated reads its -c file. */
#ifndef SPATE_TEST_APP_CONF_H
#define SPATE_TEST_APP_CONF_H

#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"

/* spated_conf_load's return value for `text` as the whole of `path`, into
 * *c reset to the defaults; its message in err. A file that cannot be
 * written ends the test (exit 2). */
static inline int app_conf_load_text(struct spated_conf *c, const char *path, const char *text,
				     char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
	spated_conf_free(c);
	spated_conf_default(c);
	err[0] = '\0';
	return spated_conf_load(c, path, err, errlen);
}

#endif
