/* check_config.c - list every configuration error (check_config.h).
 *
 * The readers stop at their first error and say which setting it was
 * (spate_conf_last_error_setting). Remove that setting from the parsed
 * tree and read again: the next error shows, and so on until the tree
 * reads clean. The same readers as a real start, so the check cannot
 * disagree with it. */
#include <libconfig.h>

#include "check_config.h"
#include "config.h"

/* Every error is one setting removed: this bounds even a huge file. */
#define MAX_ERRORS 1000

int check_config(const char *path, FILE *out)
{
	config_t cfg;
	char err[512];
	int n = 0;

	config_init(&cfg);
	if (config_read_file(&cfg, path) != CONFIG_TRUE) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			fprintf(out, "%s:0: cannot read file\n", path);
		else
			fprintf(out, "%s:%d: %s (syntax errors stop the parse: fix it and check again)\n",
				path, config_error_line(&cfg), config_error_text(&cfg));
		config_destroy(&cfg);
		return 1;
	}
	while (n < MAX_ERRORS) {
		struct spated_conf c;
		spated_conf_default(&c);
		int rc = spated_conf_read_tree(&c, &cfg, path, err, sizeof(err));
		spated_conf_free(&c);
		if (rc == 0)
			break;
		fprintf(out, "%s\n", err);
		n++;
		/* The readers only take settings from this tree: dropping the
		 * const to remove one from it is safe. */
		config_setting_t *s = (config_setting_t *)spate_conf_last_error_setting();
		if (s == NULL || config_setting_is_root(s) ||
		    config_setting_remove_elem(config_setting_parent(s),
					       (unsigned)config_setting_index(s)) != CONFIG_TRUE)
			break;
	}
	config_destroy(&cfg);
	if (n == 0)
		fprintf(out, "spated: %s: configuration OK\n", path);
	else
		fprintf(out, "spated: %s: %d error%s\n", path, n, n == 1 ? "" : "s");
	return n;
}
