/* sizing.c - pools, rings and backlogs from the memory (sizing.h). */
#include <stdio.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "infra/sizing.h"

/* The largest 2^k - 1 not above n, within [lo, hi] (both 2^j - 1). */
static uint32_t pow2m1_within(uint64_t n, uint32_t lo, uint32_t hi)
{
	uint64_t v = lo;

	while (v * 2 + 1 <= n && v * 2 + 1 <= hi)
		v = v * 2 + 1;
	return (uint32_t)v;
}

static uint32_t pow2_within(uint64_t n, uint32_t lo, uint32_t hi)
{
	uint64_t v = lo;

	while (v * 2 <= n && v * 2 <= hi)
		v *= 2;
	return (uint32_t)v;
}

void sizing_derive(struct spated_conf *c, const struct sizing_in *in)
{
	uint32_t workers = in->workers ? in->workers : 1;

	if (c->mbufs == 0)
		c->mbufs = pow2m1_within(in->mem / 4 / (in->mbuf_bytes ? in->mbuf_bytes : 1), 4095,
					 (1u << 20) - 1);
	if (c->msgs == 0)
		c->msgs = pow2m1_within(in->mem / 8 / (in->msg_bytes ? in->msg_bytes : 1), 16383,
					(1u << 22) - 1);
	if (c->ring_size == 0)
		c->ring_size = pow2_within(((uint64_t)c->mbufs + 1) / 8, 1024, 16384);
	if (c->backlog_max == 0) {
		uint64_t share = c->msgs / 2 / workers;
		c->backlog_max =
			share > c->ring_size + 1024 ? (uint32_t)(share - c->ring_size) : 1024;
	}
}

uint64_t sizing_memory(void)
{
	uint64_t heap = 0;

	for (unsigned int i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			heap += st.heap_freesz_bytes;
	}
	if (!rte_eal_has_hugepages())
		return heap; /* --no-huge -m N: the heap is all there is */
	/* Hugepages: a heap reserved up front (--socket-mem, -m) is the
	 * budget; one that grows on demand can take the free hugepages. */
	FILE *f = fopen("/proc/meminfo", "r");
	uint64_t free_pages = 0, page_kb = 0;
	char line[128];
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		unsigned long long v;
		if (sscanf(line, "HugePages_Free: %llu", &v) == 1)
			free_pages = v;
		else if (sscanf(line, "Hugepagesize: %llu kB", &v) == 1)
			page_kb = v;
	}
	if (f != NULL)
		fclose(f);
	uint64_t hp = free_pages * page_kb * 1024;
	return heap > hp ? heap : hp;
}
