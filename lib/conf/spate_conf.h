/* spate_conf.h - the common "spate" section of a libconfig file: limits,
 * engine and quotas. Shared by spated and the offline tools; spated reads
 * its own "spated" section on top (app/).
 *
 *   spate: {
 *     engine = "brute";
 *     limits: { max_keywords = 16; max_keyword_len = 64;
 *               max_constraints = 16; max_attrs = 16; max_name_len = 32;
 *               max_messages = 64; };
 *     quotas: { max_subs = 0; max_subs_per_client = 0; };  # 0 = unlimited
 *     attributes = ( { name = "price"; min = 0.0; max = 1000.0; cells = 100; } );
 *     attribute_default = { min = 0.0; max = 1000000.0; cells = 1000; };
 *   };
 * (the attribute schema: spate_schema.h)
 */
#ifndef SPATE_CONF_H
#define SPATE_CONF_H

#include <libconfig.h>
#include <stddef.h>

#include "conf/spate_param.h"
#include "matcher/spate_matcher.h"
#include "proto/spate_types.h"

struct spate_conf {
	struct spate_limits limits;
	struct spate_matcher_conf matcher; /* matcher.engine points into engine[] */
	char engine[32];
};

void spate_conf_default(struct spate_conf *c);
/* Read the "spate" group of a parsed tree (missing group or keys keep their
 * defaults). 0, or -1 with "file:line: message" in err. */
int spate_conf_read(struct spate_conf *c, const config_t *cfg, const char *path, char *err,
		    size_t errlen);
/* The rows of the "spate" group (spate_param.h), ended by a NULL key. */
extern const struct spate_param spate_conf_rows[];
/* The attribute schema of a "spate" group (read after its other keys). */
int spate_conf_read_schema(struct spate_conf *c, const config_setting_t *top, const char *path,
			   char *err, size_t errlen);

/* Format "path:line: message" (line of setting s, 0 if NULL) into err;
 * returns -1 so callers can `return spate_conf_error(...)`. */
int spate_conf_error(char *err, size_t errlen, const char *path, const config_setting_t *s,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Run time (spatectl): the integer settings (limits.*, quotas.*) by name,
 * set from text with the file's range check (the error names the range),
 * read back as text. 0, or -1 (with err). */
size_t spate_conf_int_count(void);
const char *spate_conf_int_name(size_t i);
int spate_conf_int_set(struct spate_conf *c, const char *path, const char *value, char *err,
		       size_t errlen);
int spate_conf_int_get(const struct spate_conf *c, const char *path, char *buf, size_t len);

/* The setting the last spate_conf_error named (NULL: none). A checker
 * that removes it from the tree and reads again finds the next error:
 * that is how `spated --check-config` lists every error, each with its
 * line, without a second set of readers. */
const config_setting_t *spate_conf_last_error_setting(void);

/* Parse `path` and read it. 0, or -1 with "file:line: message" in err. */
int spate_conf_load(struct spate_conf *c, const char *path, char *err, size_t errlen);
/* config_read_file with @include resolved next to `path` (a cluster file
 * beside spated.conf: docs/operations.md). CONFIG_TRUE or CONFIG_FALSE. */
int spate_conf_read_file(config_t *cfg, const char *path);

#endif
