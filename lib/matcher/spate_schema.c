/* spate_schema.c - the attribute schema (spate_schema.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "matcher/spate_schema.h"

void spate_schema_default(struct spate_schema *s)
{
	memset(s, 0, sizeof(*s));
	s->dflt = (struct spate_attr_domain){ SPATE_DOMAIN_DEFAULT_MIN, SPATE_DOMAIN_DEFAULT_MAX,
					      SPATE_DOMAIN_DEFAULT_CELLS };
}

int spate_schema_check_domain(double min, double max, long long cells, char *why, size_t whylen)
{
	if (!isfinite(min) || !isfinite(max) || !(min < max) || !isfinite(max - min)) {
		snprintf(why, whylen,
			 "min = %.17g, max = %.17g: want finite numbers with min < max", min, max);
		return -1;
	}
	if (cells < 1 || cells > SPATE_SCHEMA_CELLS_MAX) {
		snprintf(why, whylen, "cells = %lld is out of range [1, %d]", cells,
			 SPATE_SCHEMA_CELLS_MAX);
		return -1;
	}
	return 0;
}

int spate_schema_add(struct spate_schema *s, const char *name, double min, double max,
		     long long cells, char *why, size_t whylen)
{
	size_t len = strlen(name);

	if (len == 0 || len >= SPATE_SCHEMA_NAME_MAX ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-") !=
		    len) {
		snprintf(why, whylen, "name '%s': want 1..%d bytes of [A-Za-z0-9_.:-]", name,
			 SPATE_SCHEMA_NAME_MAX - 1);
		return -1;
	}
	for (uint32_t i = 0; i < s->n; i++)
		if (strcmp(s->name[i], name) == 0) {
			snprintf(why, whylen, "attribute '%s' is declared twice", name);
			return -1;
		}
	if (s->n == SPATE_SCHEMA_MAX) {
		snprintf(why, whylen, "more than %d attributes declared", SPATE_SCHEMA_MAX);
		return -1;
	}
	if (spate_schema_check_domain(min, max, cells, why, whylen) != 0)
		return -1;
	memcpy(s->name[s->n], name, len + 1);
	s->attr[s->n++] = (struct spate_attr_domain){ min, max, (uint32_t)cells };
	return 0;
}
