/* module.c - the module list (module.h). */
#include <stdio.h>
#include <stdlib.h>

#include "infra/module.h"

#define MODULES_MAX 32

static struct spated_module *modules; /* sorted by order, then name */

void spated_module_register(struct spated_module *m)
{
	struct spated_module **at = &modules;

	while (*at != NULL && (*at)->order <= m->order)
		at = &(*at)->next;
	m->next = *at;
	*at = m;
}

/* The list in reverse order (stop and fini). */
static unsigned int reversed(struct spated_module **out)
{
	unsigned int n = 0;

	for (struct spated_module *m = modules; m != NULL && n < MODULES_MAX; m = m->next)
		out[n++] = m;
	for (unsigned int i = 0; i < n / 2; i++) {
		struct spated_module *t = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

void spated_modules_init(struct spated *d)
{
	for (struct spated_module *m = modules; m != NULL; m = m->next)
		if (m->init != NULL)
			m->init(d);
}

void spated_modules_stop(struct spated *d)
{
	struct spated_module *r[MODULES_MAX];
	unsigned int n = reversed(r);

	for (unsigned int i = 0; i < n; i++)
		if (r[i]->stop != NULL)
			r[i]->stop(d);
}

void spated_modules_fini(struct spated *d)
{
	struct spated_module *r[MODULES_MAX];
	unsigned int n = reversed(r);

	for (unsigned int i = 0; i < n; i++)
		if (r[i]->fini != NULL)
			r[i]->fini(d);
}
