/* check_config.c - list every configuration error (check_config.h).
 *
 * The readers stop at their first error and say which setting it was
 * (spate_conf_last_error_setting). Remove that setting from the parsed
 * tree and read again: the next error shows, and so on until the tree
 * reads clean. The same readers as a real start, so the check cannot
 * disagree with it. Then what a start needs from the file system, looked
 * at without changing anything: the journal's directory, the files named,
 * and the overrides file a start would read. */
#include <errno.h>
#include <libconfig.h>
#include <libgen.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/check_config.h"
#include "config/config.h"

/* Every error is one setting removed: this bounds even a huge file. */
#define MAX_ERRORS 1000

/* One error about the file system, at the line of `key`. */
static void path_error(FILE *out, const config_t *cfg, const char *path, const char *key,
		       const char *what, const char *why)
{
	config_setting_t *s = config_lookup(cfg, key);

	fprintf(out, "%s:%d: %s: %s%s%s\n", path, s ? config_setting_source_line(s) : 0, key, what,
		why ? ": " : "", why ? why : "");
}

/* `file`'s directory exists and this user may create files in it; `file`
 * itself, if it exists, is a regular file it may read and write. */
static int check_writable(FILE *out, const config_t *cfg, const char *path, const char *key,
			  const char *file)
{
	char copy[4096], dir[4096], what[4200];
	struct stat sb;

	snprintf(copy, sizeof(copy), "%s", file);
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	if (stat(dir, &sb) != 0) {
		bool missing = errno == ENOENT;
		snprintf(what, sizeof(what), "directory %s%s", dir,
			 missing ? " does not exist" : "");
		path_error(out, cfg, path, key, what, missing ? NULL : strerror(errno));
		return 1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(what, sizeof(what), "%s is not a directory", dir);
		path_error(out, cfg, path, key, what, NULL);
		return 1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(what, sizeof(what), "cannot create files in %s", dir);
		path_error(out, cfg, path, key, what, strerror(errno));
		return 1;
	}
	if (stat(file, &sb) != 0)
		return 0; /* created at the first start */
	if (!S_ISREG(sb.st_mode)) {
		snprintf(what, sizeof(what), "%s is not a regular file", file);
		path_error(out, cfg, path, key, what, NULL);
		return 1;
	}
	if (access(file, R_OK | W_OK) != 0) {
		path_error(out, cfg, path, key, file, strerror(errno));
		return 1;
	}
	return 0;
}

static int check_paths(FILE *out, const config_t *cfg, const char *path,
		       const struct spated_conf *c)
{
	int n = 0;

	if (c->ops.journal_path[0] != '\0')
		n += check_writable(out, cfg, path, "journal.path", c->ops.journal_path);
	if (c->preload[0] != '\0' && access(c->preload, R_OK) != 0) {
		path_error(out, cfg, path, "spated.preload", c->preload, strerror(errno));
		n++;
	}
	return n;
}

int check_config(const char *path, FILE *out)
{
	config_t cfg;
	struct spated_conf c;
	char err[1024];
	int n = 0;

	config_init(&cfg);
	if (spate_conf_read_file(&cfg, path) != CONFIG_TRUE) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			fprintf(out, "%s:0: cannot read file\n", path);
		else
			fprintf(out,
				"%s:%d: %s (syntax errors stop the parse: fix it and check "
				"again)\n",
				path, config_error_line(&cfg), config_error_text(&cfg));
		config_destroy(&cfg);
		return 1;
	}
	for (;;) {
		spated_conf_default(&c);
		int rc = spated_conf_read_tree(&c, &cfg, path, err, sizeof(err));
		if (rc == 0)
			break;
		spated_conf_free(&c);
		fprintf(out, "%s\n", err);
		/* The readers only take settings from this tree: dropping the
		 * const to remove one from it is safe. */
		config_setting_t *s = (config_setting_t *)spate_conf_last_error_setting();
		if (++n == MAX_ERRORS || s == NULL || config_setting_is_root(s) ||
		    config_setting_remove_elem(config_setting_parent(s),
					       (unsigned)config_setting_index(s)) != CONFIG_TRUE) {
			spated_conf_default(&c); /* freed by the common path below */
			break;
		}
	}
	/* What the settings that read clean name: the start would need it. */
	n += check_paths(out, &cfg, path, &c);
	if (spated_conf_read_overrides(&c, err, sizeof(err)) != 0) {
		fprintf(out, "%s\n", err);
		n++;
	}
	spated_conf_free(&c);
	config_destroy(&cfg);
	if (n == 0)
		fprintf(out, "spated: %s: configuration OK\n", path);
	else
		fprintf(out, "spated: %s: %d error%s\n", path, n, n == 1 ? "" : "s");
	return n;
}
