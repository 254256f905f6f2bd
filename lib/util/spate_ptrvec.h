/* spate_ptrvec.h - a growable array of pointers with unordered removal:
 * the lists of the engines' grid cells, buckets and categories. */
#ifndef SPATE_PTRVEC_H
#define SPATE_PTRVEC_H

#include <stdint.h>
#include <stdlib.h>

struct spate_ptrvec {
	void **v;
	uint32_t n, cap;
};

/* Append p; 0, or -1 on no memory (the vector is unchanged). */
static inline int spate_ptrvec_push(struct spate_ptrvec *l, const void *p)
{
	if (l->n == l->cap) {
		uint32_t ncap = l->cap ? l->cap * 2 : 4;
		void **nv = realloc(l->v, ncap * sizeof(*nv));
		if (nv == NULL)
			return -1;
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n++] = (void *)(uintptr_t)p;
	return 0;
}

/* Remove the first occurrence of p, moving the last element into its
 * place (order is not kept). */
static inline void spate_ptrvec_remove(struct spate_ptrvec *l, const void *p)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->v[i] == p) {
			l->v[i] = l->v[--l->n];
			return;
		}
}

#endif
