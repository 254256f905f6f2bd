/* ring_out.h - one producer's end of one SP/SC rte_ring, with bursts.
 *
 * Objects are collected and enqueued in bursts. When the ring takes only
 * part of a burst:
 *  - a lossy ring_out (packets to TX, datagrams to the cluster) hands the
 *    rest to its drop function, which frees and counts them: the ring is
 *    the place where overload turns into counted drops;
 *  - a lossless one (messages between the cluster and matching stages,
 *    where losing a subscription change or a category would break
 *    exactness) keeps the rest, in order, in a backlog sent first next
 *    time. The producer watches ring_out_backlog() and stops taking new
 *    input while it is long, so the backlog stays short and memory flat.
 */
#ifndef SPATED_RING_OUT_H
#define SPATED_RING_OUT_H

#include <stdint.h>

#include <rte_ring.h>

#define RING_OUT_BURST 32

struct ring_out {
	struct rte_ring *ring;
	int lossless;
	/* Held: nothing reaches the ring, everything waits in order in the
	 * backlog (the cluster stage, while journal records are not durable:
	 * app/store/durable.h). */
	int hold;
	void (*drop)(void *ctx, void *obj); /* free and count one object */
	void *drop_ctx;
	void **v; /* pending objects v[head..n) */
	uint32_t head, n, cap;
};

/* 0, or -1 on no memory. */
int ring_out_init(struct ring_out *o, struct rte_ring *ring, int lossless,
		  void (*drop)(void *ctx, void *obj), void *drop_ctx);
/* Queue one object; a full burst is flushed. A lossless ring_out whose
 * backlog cannot grow (no memory) drops the object through drop(). */
void ring_out_push(struct ring_out *o, void *obj);
/* Enqueue what is pending (end of a poll). */
void ring_out_flush(struct ring_out *o);
/* Objects not yet in the ring. */
static inline uint32_t ring_out_backlog(const struct ring_out *o)
{
	return o->n - o->head;
}
/* Each object pending, in order, to fn (a look: they stay pending). */
void ring_out_each(const struct ring_out *o, void (*fn)(void *ctx, void *obj), void *ctx);
/* Drop whatever is still pending (its consumer is gone: a dead host). */
void ring_out_discard(struct ring_out *o);
/* Drop whatever is still pending and free the buffer (at exit). */
void ring_out_fini(struct ring_out *o);

/* The consumer's end: hand every object of ring r to fn, a burst at a
 * time, until it is empty or a ring's worth was taken (what the producer
 * adds meanwhile on another lcore waits for the next poll). Returns how
 * many were taken. */
unsigned int ring_drain(struct rte_ring *r, void (*fn)(void *ctx, void *obj), void *ctx);

#endif
