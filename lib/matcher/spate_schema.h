/* spate_schema.h - the attribute schema: for each declared numeric
 * attribute its value domain [min, max] and the number of cells the
 * REIN-style indexes split it into.
 *
 * Declared attributes are interned first by the matcher, in the order of
 * the schema, so attribute id i < n is schema entry i: engines look a
 * domain up by id with no string work. A subscription constraint on a
 * declared attribute with a value outside [min, max] is refused
 * (SPATE_E_OUT_OF_DOMAIN); event values are not refused: indexes clamp
 * them into the edge cells and confirm by comparing, so they still match
 * exactly. Undeclared attributes use the default domain and are not
 * checked.
 */
#ifndef SPATE_SCHEMA_H
#define SPATE_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#define SPATE_SCHEMA_MAX 64      /* declared attributes */
#define SPATE_SCHEMA_NAME_MAX 64 /* bytes of a declared name, with the NUL */
#define SPATE_SCHEMA_CELLS_MAX 65536
/* The default domain: the usual REIN setup, [0, 10^6) in 1000 cells. */
#define SPATE_DOMAIN_DEFAULT_MIN 0.0
#define SPATE_DOMAIN_DEFAULT_MAX 1e6
#define SPATE_DOMAIN_DEFAULT_CELLS 1000

struct spate_attr_domain {
	double min, max; /* finite, min < max */
	uint32_t cells;  /* 1 .. SPATE_SCHEMA_CELLS_MAX */
};

struct spate_schema {
	uint32_t n;
	struct spate_attr_domain dflt;                   /* undeclared attributes */
	struct spate_attr_domain attr[SPATE_SCHEMA_MAX]; /* by attribute id */
	char name[SPATE_SCHEMA_MAX][SPATE_SCHEMA_NAME_MAX];
};

/* No attribute declared; the default domain as above. */
void spate_schema_default(struct spate_schema *s);
/* Check a domain: 0, or -1 with the reason in why. */
int spate_schema_check_domain(double min, double max, long long cells, char *why, size_t whylen);
/* Declare an attribute (name: 1..SPATE_SCHEMA_NAME_MAX-1 bytes of
 * [A-Za-z0-9_.:-], new). 0, or -1 with the reason in why. */
int spate_schema_add(struct spate_schema *s, const char *name, double min, double max,
		     long long cells, char *why, size_t whylen);
/* The domain of attribute id `attr` (declared or the default). */
static inline const struct spate_attr_domain *spate_schema_domain(const struct spate_schema *s,
								  uint32_t attr)
{
	return attr < s->n ? &s->attr[attr] : &s->dflt;
}

#endif
