/* sizing.h - the packet pool, the message pool, the stage rings and the
 * backlog bound derived from the memory spated is given, for each of
 * spated.mbufs, msgs, ring_size and backlog_max left at 0 (the default;
 * docs/operations.md, "Sizing pools and rings"):
 *
 *   M           DPDK's free heap at start: what -m / --socket-mem
 *               reserved, or, when DPDK grows its heap on demand
 *               (hugepages without --socket-mem), the free hugepages
 *   mbufs       2^k - 1 packet buffers in a quarter of M (at least 4095)
 *   msgs        2^k - 1 pipeline messages in an eighth of M (16383 at least)
 *   ring_size   2^k slots, an eighth of the mbufs: every packet ring full
 *               at once still leaves the pool for the RX queues and TX
 *               (1024 to 16384)
 *   backlog_max half the messages spread over the matching workers,
 *               less a ring's worth (at least 1024): a slow worker may
 *               hold back that many before the cluster stops reading
 *
 * So a burst the pools could hold waits in the rings and backlogs rather
 * than being shed; only a stage saturated for longer sheds (counted). */
#ifndef SPATED_SIZING_H
#define SPATED_SIZING_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* What the derivation starts from (sizing_memory() at start). */
struct sizing_in {
	uint64_t mem;      /* bytes: M above */
	size_t mbuf_bytes; /* one packet buffer in its pool, all overheads */
	size_t msg_bytes;  /* one pipeline message in its pool */
	uint32_t workers;  /* matching workers */
};

/* Fill every sizing key of c left at 0. Plain arithmetic, no DPDK. */
void sizing_derive(struct spated_conf *c, const struct sizing_in *in);

/* M: DPDK's free heap, or the free hugepages when the heap grows on
 * demand. After rte_eal_init. */
uint64_t sizing_memory(void);

#endif
