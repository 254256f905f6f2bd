/* ring_out.c - bursts into an rte_ring, lossy or lossless (ring_out.h). */
#include <stdlib.h>
#include <string.h>

#include "infra/counters.h"
#include "infra/ring_out.h"

int ring_out_init(struct ring_out *o, struct rte_ring *ring, int lossless,
		  void (*drop)(void *ctx, void *obj), void *drop_ctx)
{
	memset(o, 0, sizeof(*o));
	o->ring = ring;
	o->lossless = lossless;
	o->drop = drop;
	o->drop_ctx = drop_ctx;
	o->cap = RING_OUT_BURST;
	o->v = malloc(o->cap * sizeof(*o->v));
	return o->v ? 0 : -1;
}

void ring_out_flush(struct ring_out *o)
{
	uint32_t want = o->n - o->head;

	if (want == 0 || o->hold)
		return;
	uint32_t sent = rte_ring_sp_enqueue_burst(o->ring, o->v + o->head, want, NULL);
	o->head += sent;
	if (sent < want) {
		if (o->lossless) {
			spated_cnt.ring_retry++;
			return; /* kept, in order, for the next flush */
		}
		for (uint32_t i = o->head; i < o->n; i++)
			o->drop(o->drop_ctx, o->v[i]);
	}
	o->head = o->n = 0;
}

/* Make room for one more at the end: slide down, or grow (lossless). */
static int make_room(struct ring_out *o)
{
	if (o->n < o->cap)
		return 0;
	if (o->head > 0) {
		memmove(o->v, o->v + o->head, (o->n - o->head) * sizeof(*o->v));
		o->n -= o->head;
		o->head = 0;
		return 0;
	}
	void **nv = realloc(o->v, 2 * o->cap * sizeof(*nv));
	if (nv == NULL)
		return -1;
	o->v = nv;
	o->cap *= 2;
	return 0;
}

void ring_out_push(struct ring_out *o, void *obj)
{
	uint32_t pending = o->n - o->head;

	/* Every full burst; a long lossless backlog is retried each burst too. */
	if (!o->hold && pending > 0 && pending % RING_OUT_BURST == 0)
		ring_out_flush(o);
	if (make_room(o) != 0) {
		spated_cnt.msg_no_memory++;
		o->drop(o->drop_ctx, obj);
		return;
	}
	o->v[o->n++] = obj;
}

void ring_out_each(const struct ring_out *o, void (*fn)(void *ctx, void *obj), void *ctx)
{
	for (uint32_t i = o->head; i < o->n; i++)
		fn(ctx, o->v[i]);
}

void ring_out_discard(struct ring_out *o)
{
	for (uint32_t i = o->head; i < o->n; i++)
		o->drop(o->drop_ctx, o->v[i]);
	o->head = o->n = 0;
}

void ring_out_fini(struct ring_out *o)
{
	for (uint32_t i = o->head; i < o->n; i++)
		o->drop(o->drop_ctx, o->v[i]);
	free(o->v);
	memset(o, 0, sizeof(*o));
}

unsigned int ring_drain(struct rte_ring *r, void (*fn)(void *ctx, void *obj), void *ctx)
{
	unsigned int budget = rte_ring_get_capacity(r), taken = 0, nb;
	void *objs[RING_OUT_BURST];

	do {
		nb = rte_ring_sc_dequeue_burst(r, objs, RING_OUT_BURST, NULL);
		for (unsigned int i = 0; i < nb; i++)
			fn(ctx, objs[i]);
		taken += nb;
	} while (nb == RING_OUT_BURST && taken < budget);
	return taken;
}
