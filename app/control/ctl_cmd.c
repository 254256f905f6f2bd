/* ctl_cmd.c - the registry of spatectl's commands (ctl_cmd.h). Filled by
 * constructors before main, read afterwards by the control thread only:
 * no lock. */
#include <string.h>

#include "control/ctl_cmd.h"

static struct ctl_cmd *cmds; /* by rank, then registration order */

/* The path's words equal words[0..k): k, else -1. */
static int path_match(const char *path, char *const *words, int n)
{
	int k = 0;

	for (const char *p = path; *p != '\0'; k++) {
		size_t len = strcspn(p, " ");
		if (k >= n || strlen(words[k]) != len || strncmp(words[k], p, len) != 0)
			return -1;
		p += len;
		p += strspn(p, " ");
	}
	return k;
}

static bool same_path(const char *a, const char *b)
{
	/* word by word, so "show  stats" is "show stats" */
	for (;;) {
		a += strspn(a, " ");
		b += strspn(b, " ");
		size_t la = strcspn(a, " "), lb = strcspn(b, " ");
		if (la != lb || strncmp(a, b, la) != 0)
			return false;
		if (la == 0)
			return true;
		a += la;
		b += lb;
	}
}

int ctl_cmd_register(struct ctl_cmd *c)
{
	struct ctl_cmd **at;

	if (c->path == NULL || c->path[strspn(c->path, " ")] == '\0' || c->usage == NULL ||
	    c->help == NULL || c->fn == NULL)
		return -1;
	for (struct ctl_cmd *o = cmds; o != NULL; o = o->next)
		if (o == c || same_path(o->path, c->path))
			return -1;
	for (at = &cmds; *at != NULL && (*at)->rank <= c->rank; at = &(*at)->next)
		;
	c->next = *at;
	*at = c;
	return 0;
}

const struct ctl_cmd *ctl_cmd_match(char *const *words, int n, int *path_words)
{
	for (const struct ctl_cmd *c = cmds; c != NULL; c = c->next) {
		int k = path_match(c->path, words, n);
		if (k >= 0) {
			*path_words = k;
			return c;
		}
	}
	return NULL;
}

const struct ctl_cmd *ctl_cmd_first(void)
{
	return cmds;
}
