/* pl_msg.c - messages from the pool, or the heap for control messages
 * when the pool runs dry (pl_msg.h). */
#include <stdlib.h>

#include "infra/counters.h"
#include "infra/pl_msg.h"

struct pl_msg *pl_msg_get(struct rte_mempool *mp, int must)
{
	void *obj;

	if (rte_mempool_get(mp, &obj) == 0) {
		struct pl_msg *m = obj;
		m->heap = 0;
		return m;
	}
	if (!must)
		return NULL; /* the caller counts it under its own reason */
	struct pl_msg *m = malloc(sizeof(*m));
	if (m == NULL) {
		spated_cnt.msg_no_memory++;
		return NULL;
	}
	spated_cnt.msg_heap++;
	m->heap = 1;
	return m;
}

void pl_msg_put(struct rte_mempool *mp, struct pl_msg *m)
{
	if (m->heap)
		free(m);
	else
		rte_mempool_put(mp, m);
}

struct pl_msg *pl_msg_control(struct rte_mempool *mp, uint8_t type, uint32_t cat, uint32_t other)
{
	struct pl_msg *m = pl_msg_get(mp, 1);

	if (m != NULL) {
		m->type = type;
		m->cat = cat;
		m->other = other;
	}
	return m;
}
