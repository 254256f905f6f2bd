/* test_app_ring.c - the stages' ring ends (app/infra/ring_out.c) on rte_rings
 * made in plain memory (rte_ring_init: no EAL): bursts of 32, what a
 * lossy end drops (in order, through its drop function) and a lossless
 * one keeps (in order, retried), holding, growth and sliding of the
 * backlog, a backlog that cannot grow (realloc wrapped to fail), and the
 * consumer's drain with its budget. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "check.h"
#include "infra/counters.h"
#include "infra/ring_out.h"

/* ---- realloc that fails on demand (-Wl,--wrap=realloc) ---- */
void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);
static int fail_realloc;

void *__wrap_realloc(void *p, size_t n)
{
	return fail_realloc ? NULL : __real_realloc(p, n);
}

static uintptr_t dropped[256];
static unsigned int n_dropped;

static void drop(void *ctx, void *obj)
{
	CHECK(ctx == &n_dropped);
	dropped[n_dropped++ % 256] = (uintptr_t)obj;
}

static struct rte_ring *ring(unsigned int count)
{
	ssize_t sz = rte_ring_get_memsize(count);
	struct rte_ring *r = aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)sz);

	if (r == NULL || rte_ring_init(r, "t", count, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0)
		abort();
	return r;
}

static void *obj(uintptr_t i)
{
	return (void *)i;
}

/* Dequeue all of r: the values must be first, first + 1, ... (n of them). */
static void expect_ring(struct rte_ring *r, uintptr_t first, unsigned int n, int line)
{
	void *o;
	unsigned int got = 0;

	while (rte_ring_sc_dequeue(r, &o) == 0) {
		if ((uintptr_t)o != first + got) {
			fprintf(stderr, "line %d: ring[%u] = %lu, want %lu\n", line, got,
				(unsigned long)(uintptr_t)o, (unsigned long)(first + got));
			check_failed();
		}
		got++;
	}
	check_count++;
	if (got != n) {
		fprintf(stderr, "line %d: %u in the ring, want %u\n", line, got, n);
		check_failed();
	}
}

static void test_lossy(void)
{
	struct rte_ring *r = ring(8); /* holds 7 */
	struct ring_out o;

	CHECK_EQ_INT(ring_out_init(&o, r, 0, drop, &n_dropped), 0);
	CHECK(o.ring == r);
	CHECK_EQ_INT(o.hold, 0);
	n_dropped = 0;
	for (uintptr_t i = 1; i <= 10; i++)
		ring_out_push(&o, obj(i));
	CHECK_EQ_INT(rte_ring_count(r), 0); /* under a burst: nothing yet */
	CHECK_EQ_INT(ring_out_backlog(&o), 10);
	ring_out_flush(&o);
	CHECK_EQ_INT(ring_out_backlog(&o), 0);
	CHECK_EQ_INT(n_dropped, 3);
	CHECK_EQ_INT(dropped[0], 8);
	CHECK_EQ_INT(dropped[2], 10);
	expect_ring(r, 1, 7, __LINE__);
	ring_out_flush(&o); /* nothing pending: nothing happens */
	CHECK_EQ_INT(n_dropped, 3);
	ring_out_fini(&o);
	CHECK(o.v == NULL);
	free(r);

	/* a full burst goes at the 33rd push */
	r = ring(128);
	CHECK_EQ_INT(ring_out_init(&o, r, 0, drop, &n_dropped), 0);
	for (uintptr_t i = 1; i <= 32; i++)
		ring_out_push(&o, obj(i));
	CHECK_EQ_INT(rte_ring_count(r), 0);
	ring_out_push(&o, obj(33));
	CHECK_EQ_INT(rte_ring_count(r), 32);
	CHECK_EQ_INT(ring_out_backlog(&o), 1);
	ring_out_flush(&o);
	expect_ring(r, 1, 33, __LINE__);
	ring_out_fini(&o);
	free(r);
}

static void test_lossless(void)
{
	struct rte_ring *r = ring(8);
	struct ring_out o;
	struct spated_counters before, now;

	spated_counters_sum(&before);
	CHECK_EQ_INT(ring_out_init(&o, r, 1, drop, &n_dropped), 0);
	n_dropped = 0;
	for (uintptr_t i = 1; i <= 10; i++)
		ring_out_push(&o, obj(i));
	ring_out_flush(&o);
	spated_counters_sum(&now);
	CHECK_EQ_INT(now.ring_retry - before.ring_retry, 1);
	CHECK_EQ_INT(n_dropped, 0);
	CHECK_EQ_INT(ring_out_backlog(&o), 3);
	expect_ring(r, 1, 7, __LINE__);
	ring_out_flush(&o);
	CHECK_EQ_INT(ring_out_backlog(&o), 0);
	expect_ring(r, 8, 3, __LINE__);

	/* a backlog past its first 32 slots: grown, then slid down, in order */
	for (uintptr_t i = 1; i <= 40; i++)
		ring_out_push(&o, obj(i)); /* the 33rd push flushes 7 */
	CHECK_EQ_INT(ring_out_backlog(&o), 33);
	expect_ring(r, 1, 7, __LINE__);
	for (uintptr_t i = 41; i <= 100; i++)
		ring_out_push(&o, obj(i));
	CHECK(o.cap >= 64);
	uintptr_t next = 8;
	for (int round = 0; round < 40; round++) {
		unsigned int in_ring = rte_ring_count(r);
		expect_ring(r, next, in_ring, __LINE__); /* consecutive, from next */
		next += in_ring;
		if (ring_out_backlog(&o) == 0)
			break;
		ring_out_flush(&o);
	}
	CHECK_EQ_INT(next, 101);
	CHECK_EQ_INT(n_dropped, 0);
	CHECK_EQ_INT(o.cap, 128); /* doubled twice: 32, 64, 128 */

	/* held: nothing reaches the ring, not even full bursts */
	o.hold = 1;
	for (uintptr_t i = 1; i <= 70; i++)
		ring_out_push(&o, obj(i));
	ring_out_flush(&o);
	CHECK_EQ_INT(rte_ring_count(r), 0);
	CHECK_EQ_INT(ring_out_backlog(&o), 70);
	o.hold = 0;
	ring_out_flush(&o);
	expect_ring(r, 1, 7, __LINE__);
	CHECK_EQ_INT(ring_out_backlog(&o), 63);
	/* discard: the rest dropped, in order */
	ring_out_discard(&o);
	CHECK_EQ_INT(n_dropped, 63);
	CHECK_EQ_INT(dropped[0], 8);
	CHECK_EQ_INT(dropped[62], 70);
	CHECK_EQ_INT(ring_out_backlog(&o), 0);

	/* no memory to grow: the object dropped, counted */
	n_dropped = 0;
	for (uintptr_t i = 1; i <= 7; i++) /* fill the ring */
		ring_out_push(&o, obj(i));
	ring_out_flush(&o);
	for (uintptr_t i = 1; i <= 128; i++)
		ring_out_push(&o, obj(i));
	CHECK_EQ_INT(ring_out_backlog(&o), 128);
	CHECK_EQ_INT(o.cap, 128);
	spated_counters_sum(&before);
	fail_realloc = 1;
	ring_out_push(&o, obj(999));
	fail_realloc = 0;
	spated_counters_sum(&now);
	CHECK_EQ_INT(now.msg_no_memory - before.msg_no_memory, 1);
	CHECK_EQ_INT(n_dropped, 1);
	CHECK_EQ_INT(dropped[0], 999);
	CHECK_EQ_INT(ring_out_backlog(&o), 128);
	/* fini: what is pending is dropped */
	ring_out_fini(&o);
	CHECK_EQ_INT(n_dropped, 129);
	CHECK_EQ_INT(dropped[1], 1);
	CHECK_EQ_INT(dropped[128], 128);
	while (rte_ring_count(r) > 0) {
		void *x;
		rte_ring_sc_dequeue(r, &x);
	}
	free(r);
}

static uintptr_t drained[256];
static unsigned int n_drained;

static void take(void *ctx, void *o)
{
	CHECK(ctx == &n_drained);
	drained[n_drained++ % 256] = (uintptr_t)o;
}

static struct rte_ring *refill;

/* A producer that keeps up: one more object for every one taken. */
static void take_and_add(void *ctx, void *o)
{
	take(ctx, o);
	if (refill != NULL)
		rte_ring_sp_enqueue(refill, o);
}

static void test_drain(void)
{
	struct rte_ring *r = ring(128);

	for (uintptr_t i = 1; i <= 100; i++)
		CHECK_EQ_INT(rte_ring_sp_enqueue(r, obj(i)), 0);
	n_drained = 0;
	CHECK_EQ_INT(ring_drain(r, take, &n_drained), 100);
	CHECK_EQ_INT(n_drained, 100);
	CHECK_EQ_INT(drained[0], 1);
	CHECK_EQ_INT(drained[99], 100);
	CHECK_EQ_INT(rte_ring_count(r), 0);
	CHECK_EQ_INT(ring_drain(r, take, &n_drained), 0);
	/* exactly bursts: 64 in two full bursts, then an empty one */
	for (uintptr_t i = 1; i <= 64; i++)
		rte_ring_sp_enqueue(r, obj(i));
	CHECK_EQ_INT(ring_drain(r, take, &n_drained), 64);
	free(r);
	/* the budget: a ring's worth (63 here); what the producer adds
	 * meanwhile waits for the next drain */
	r = ring(64);
	refill = r;
	for (uintptr_t i = 1; i <= 63; i++)
		rte_ring_sp_enqueue(r, obj(i));
	CHECK_EQ_INT(ring_drain(r, take_and_add, &n_drained), 64); /* two bursts */
	CHECK_EQ_INT(rte_ring_count(r), 63);
	refill = NULL;
	free(r);
}

int main(void)
{
	test_lossy();
	test_lossless();
	test_drain();
	return check_summary("app_ring");
}
