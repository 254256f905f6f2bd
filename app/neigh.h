/* neigh.h - the neighbour table: IPv4 -> MAC for the one link spated is on.
 *
 * Learned from ARP (requests for us and replies to us) and from the source
 * of every IPv4 frame addressed to us, so a client that talks to us can
 * always be answered without an ARP round trip. Small and fixed size
 * (set-associative, LRU within a set), no ageing: on one link a MAC that
 * changes is re-learned from the next frame that host sends.
 */
#ifndef SPATED_NEIGH_H
#define SPATED_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#define NEIGH_SETS 16
#define NEIGH_WAYS 4

struct neigh_entry {
	uint32_t ip;             /* host order; 0 = free */
	bool valid;              /* mac known (else: ARP request pending) */
	struct rte_ether_addr mac;
	uint64_t last_use;       /* table tick: LRU */
	uint64_t last_request;   /* tsc of the last ARP request sent */
};

struct neigh_table {
	struct neigh_entry e[NEIGH_SETS * NEIGH_WAYS];
	uint64_t tick;
};

/* true when this is news: a new address, or a new or first-known MAC. */
bool neigh_learn(struct neigh_table *t, uint32_t ip, const struct rte_ether_addr *mac);
/* The MAC of ip, or NULL. */
const struct rte_ether_addr *neigh_lookup(struct neigh_table *t, uint32_t ip);
/* Unknown ip: should an ARP request go out now? At most one per `gap`
 * tsc cycles per address, so a burst of notifications to an unknown
 * host does not become a burst of ARP requests. */
bool neigh_want_request(struct neigh_table *t, uint32_t ip, uint64_t now, uint64_t gap);

#endif
