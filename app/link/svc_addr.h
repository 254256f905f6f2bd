/* svc_addr.h - the service addresses a front answers for besides its own
 * (docs/multihost.md, "A front's failover"): clients talk to a front's
 * service address, which moves to the front that takes its
 * subscriptions over; that front then answers ARP and IPv4 for it and
 * announces it with gratuitous ARP.
 *
 * One writer (the front's link lcore, when ZooKeeper's service map says
 * this front serves an address or no longer does), many readers (the
 * RX lcores, only for a frame not to the host's own address): plain
 * atomic loads and stores, no lock. */
#ifndef SPATED_SVC_ADDR_H
#define SPATED_SVC_ADDR_H

#include <stdint.h>

#define SVC_ADDR_MAX 16

/* Answer for ip (host order) from now on, or no more. */
void svc_addr_set(uint32_t ip, int on);
/* Is ip one of the service addresses served now? */
int svc_addr_has(uint32_t ip);
/* Replies go out from the address the client talked to (a client with
 * a connected socket takes nothing else): RX notes, for a client's
 * datagram to the client port, which address it was sent to (0: the
 * host's own); TX asks which source to use for a client (0: its own).
 * A small direct-mapped memo (SVC_MEMO slots, one 64-bit word each:
 * address, port and the served slot's index; a collision falls back to
 * the host's own address). */
void svc_addr_note(uint32_t client_ip, uint16_t client_port, uint32_t dst);
uint32_t svc_addr_src_for(uint32_t client_ip, uint16_t client_port);

#endif
