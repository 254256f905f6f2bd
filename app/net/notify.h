/* notify.h - everything spated sends at the Spate layer goes through here:
 * a small table of receivers (dest ip:port) that owns each receiver's
 * datagram sequence number and its open NOTIFY datagram.
 *
 * NOTIFY messages for a receiver are packed into its open datagram during
 * an RX burst and sent when it is full or at the end of the burst
 * (notifier_flush), so one burst of events costs a receiver few
 * datagrams. Replies (ACK/NACK) are sent at once through notifier_send.
 * No DPDK here: sending is a callback, so this runs on any lcore or in a
 * unit test.
 */
#ifndef SPATED_NOTIFY_H
#define SPATED_NOTIFY_H

#include <stddef.h>
#include <stdint.h>

#include "matcher/spate_engine.h"
#include "proto/spate_types.h"

/* Send one finished datagram (UDP payload) to `to`. The callee copies. */
typedef void (*spated_send_fn)(void *ctx, struct spate_dest to, const void *buf, size_t len);

struct notifier;

/* max_payload: largest UDP payload (fits the MTU); max_messages: the
 * per-datagram message limit receivers enforce. NULL on no memory. */
struct notifier *notifier_create(size_t max_payload, uint32_t max_messages, spated_send_fn send,
				 void *ctx);
void notifier_destroy(struct notifier *n);

/* Queue NOTIFY(event_id, ids[0..count)) for `to`, split over several
 * messages and datagrams when it does not fit. */
void notifier_add(struct notifier *n, struct spate_dest to, uint64_t event_id, const uint64_t *ids,
		  size_t count);

/* Queue NOTIFYs for every match of one event: grouped by destination,
 * each receiver gets its sub ids ascending. 0 or -SPATE_E_NO_MEMORY. */
int notifier_add_matches(struct notifier *n, uint64_t event_id, const struct spate_matchvec *mv);

/* Queue an ACK (code 0) or NACK (code = enum spate_err) for `to` in the
 * same open datagram as its notifications. */
void notifier_reply(struct notifier *n, struct spate_dest to, uint8_t req_type, int code,
		    uint32_t req_seq, uint64_t id);

/* Send a finished datagram now, stamping the receiver's next sequence
 * number into its header. */
void notifier_send(struct notifier *n, struct spate_dest to, uint8_t *buf, size_t len);

/* Stamp the receiver's next sequence number into a finished datagram
 * without sending it: the TX stage numbers what every lcore built, so a
 * receiver sees one sequence however many lcores write to it. */
void notifier_stamp(struct notifier *n, struct spate_dest to, uint8_t *buf);

/* Send every open NOTIFY datagram (end of an RX burst). */
void notifier_flush(struct notifier *n);

#endif
