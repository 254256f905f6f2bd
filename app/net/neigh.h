/* neigh.h - the neighbour table: IPv4 -> MAC for the link spated is on.
 *
 * Learned from ARP (requests for us and replies to us) and from the source
 * of every IPv4 frame addressed to us, so a client that talks to us can
 * always be answered without an ARP round trip. Fixed size
 * (set-associative, LRU within a set, NEIGH_SETS x NEIGH_WAYS hosts), no
 * ageing: on one link a MAC that changes is re-learned from the next frame
 * that host sends.
 *
 * A frame for a host whose MAC is not known yet is held (up to NEIGH_HOLD
 * per host, NEIGH_HELD_MAX in all) while ARP asks for it, and released
 * when the answer is learned, as a kernel does: the first notifications
 * to a subscriber that never talked to us are not lost. Held frames are
 * dropped through the table's drop function when the host does not answer
 * within a few requests (neigh_expire) or its entry is reused.
 */
#ifndef SPATED_NEIGH_H
#define SPATED_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#define NEIGH_SET_BITS 10
#define NEIGH_SETS (1u << NEIGH_SET_BITS)
#define NEIGH_WAYS 4
#define NEIGH_HOLD 4       /* frames held per unresolved host */
#define NEIGH_HELD_MAX 256 /* frames held in all: the pool stays for traffic */

struct neigh_entry {
	uint32_t ip; /* host order; 0 = free */
	bool valid;  /* mac known (else: ARP request pending) */
	uint8_t n_held;
	uint16_t port; /* the port it was learned on */
	struct rte_ether_addr mac;
	uint64_t last_use;      /* table tick: LRU */
	uint64_t last_request;  /* tsc of the last ARP request sent */
	uint64_t first_request; /* tsc of the first unanswered one */
	void *held[NEIGH_HOLD];
};

struct neigh_table {
	struct neigh_entry e[NEIGH_SETS * NEIGH_WAYS];
	uint64_t tick;
	uint32_t n_held;
	/* frees (and counts) a held frame that will not be sent; NULL: none */
	void (*drop)(void *ctx, void *frame);
	void *drop_ctx;
};

/* ip is at mac, behind `port`. true when this is news: a new address,
 * a new or first-known MAC, or another port. */
bool neigh_learn(struct neigh_table *t, uint32_t ip, const struct rte_ether_addr *mac,
		 uint16_t port);
/* The MAC of ip (and in *port the port it is behind), or NULL. */
const struct rte_ether_addr *neigh_lookup(struct neigh_table *t, uint32_t ip, uint16_t *port);
/* Unknown ip: should an ARP request go out now? At most one per `gap`
 * tsc cycles per address, so a burst of notifications to an unknown
 * host does not become a burst of ARP requests. */
bool neigh_want_request(struct neigh_table *t, uint32_t ip, uint64_t now, uint64_t gap);
/* Hold `frame` until ip is learned: true, or false when ip's or the
 * table's share is full (the caller drops it). */
bool neigh_hold(struct neigh_table *t, uint32_t ip, void *frame);
/* After learning ip: its held frames, oldest first, into out[] (at most
 * NEIGH_HOLD); returns how many. The table no longer holds them. */
unsigned int neigh_take_held(struct neigh_table *t, uint32_t ip, void **out);
/* Drop the frames of hosts still unresolved `max_age` tsc cycles after
 * their first request. Returns how many were dropped. */
unsigned int neigh_expire(struct neigh_table *t, uint64_t now, uint64_t max_age);

#endif
