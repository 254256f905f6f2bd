/* spate_peer_chan.h - the reliable channel between two Spate hosts: one
 * direction pair (this host <-> one peer) of the frames spate_peer.h
 * encodes, delivered exactly once and in order over a link that loses,
 * reorders and duplicates.
 *
 * A pure state machine: no sockets, no threads, no clock of its own. The
 * caller queues frame bodies (spate_peer_writer), polls for frames to put
 * on the wire, hands it every frame that spate_peer_decode accepted, and
 * passes the time (any monotonic nanosecond count) to each call.
 *
 *  - Sequence numbers: per direction, one per data frame, from 1, u32 in
 *    serial order (wrap-safe; the window is far below 2^31).
 *  - Acks: every frame carries the cumulative ack (all up to ack
 *    arrived) and a 32-bit selective ack of the frames after the first
 *    gap; a pure ack frame (count 0) goes out when nothing carries it.
 *  - Bounded window: at most `window` (<= 32) frames unacknowledged;
 *    queueing beyond returns -SPATE_E_NO_MEMORY and the caller keeps the
 *    operations (backpressure, as the lossless rings do on one box).
 *  - Retransmission: a frame not acked rto after it was sent goes again,
 *    the timeout doubling per try up to 16 * rto; selectively acked
 *    frames are not resent.
 *  - Receive: duplicates and frames beyond the window are dropped
 *    (counted, and acked again so the sender learns); frames after a gap
 *    wait in a reorder buffer; the caller sees each frame body exactly
 *    once, in sequence order.
 *  - Round-trip time: an ack that releases a frame sent once (Karn's
 *    rule: never a retransmitted one) gives a sample, from its sending to
 *    the time spate_peer_chan_clock gave before the ack's receive (else
 *    the last poll's); smoothed as TCP does (RFC 6298, 1/8).
 *  - Epochs: a channel binds one incarnation of each host (ids from
 *    ZooKeeper, docs/multihost.md). Frames naming another epoch on
 *    either side are stale or early and dropped; when the peer shows a
 *    newer epoch the channel remembers it (newer_epoch) and the caller,
 *    once ZooKeeper confirms the restart, calls spate_peer_chan_reset:
 *    whatever was in flight is lost to the new incarnation and must be
 *    rebuilt (the failover path), never silently replayed.
 * Not thread-safe: one owner (the lcore that runs the host link).
 */
#ifndef SPATE_PEER_CHAN_H
#define SPATE_PEER_CHAN_H

#include <stddef.h>
#include <stdint.h>

#include "peer/spate_peer.h"

#define SPATE_PEER_WINDOW_MAX 32

struct spate_peer_chan_stats {
	uint64_t queued;        /* data frames accepted by queue */
	uint64_t sent;          /* data frames put on the wire, first time */
	uint64_t retransmits;   /* data frames put on the wire again */
	uint64_t acks_sent;     /* pure ack frames */
	uint64_t received;      /* frames handed to receive, epochs matching */
	uint64_t delivered;     /* data frames given to the caller, in order */
	uint64_t duplicates;    /* data frames seen before */
	uint64_t out_of_window; /* data frames too far ahead */
	uint64_t stale;         /* frames naming another epoch */
	uint64_t bad_acks;      /* acks of frames never sent */
	uint64_t rtt_samples;   /* round trips measured */
	uint64_t rtt_last_ns;   /* the last one */
	uint64_t rtt_srtt_ns;   /* smoothed (RFC 6298), 0 before the first */
	uint64_t rtt_min_ns;    /* the least seen, 0 before the first */
};

struct spate_peer_chan;

/* A channel between this host (host, epoch) and a peer (peer_host,
 * peer_epoch); all nonzero, hosts different. window in [1, 32], rto > 0
 * (nanoseconds). NULL on a bad argument or no memory. */
struct spate_peer_chan *spate_peer_chan_create(uint32_t host, uint32_t epoch, uint32_t peer_host,
					       uint32_t peer_epoch, uint32_t window, uint64_t rto);
void spate_peer_chan_destroy(struct spate_peer_chan *ch);

/* Take a frame body of `count` (>= 1) messages, len <= SPATE_PEER_BODY_MAX
 * bytes (copied). 0, -SPATE_E_NO_MEMORY when the window is full, or
 * -SPATE_E_BAD_LENGTH. */
int spate_peer_chan_queue(struct spate_peer_chan *ch, const void *body, size_t len, uint16_t count);

/* The next frame to put on the wire now, written into out (cap >=
 * SPATE_PEER_FRAME_MAX): a data frame due (first sending or retransmit,
 * oldest first) or else a pure ack if one is owed. Its length, or 0 when
 * nothing is to be sent. Call until 0. */
size_t spate_peer_chan_poll(struct spate_peer_chan *ch, uint64_t now, void *out, size_t cap);

/* Owe the peer an acknowledgement: the next poll sends a pure ack if no
 * data frame is due. A keepalive: any frame a peer accepts tells it this
 * host is alive (the caller's heartbeat, docs/multihost.md). */
void spate_peer_chan_owe_ack(struct spate_peer_chan *ch);

/* What the channel hands the caller: one frame body, in order, once. */
typedef void spate_peer_deliver_fn(void *ctx, const uint8_t *body, size_t len, uint16_t count);

/* A frame spate_peer_decode accepted (buf, with its decoded header h)
 * from this channel's peer. Processes its acks and, for a data frame,
 * delivers it and every buffered frame it unblocks through fn. Returns
 * the number of bodies delivered (>= 0), -SPATE_E_BAD_ID when the frame
 * is for another pair of hosts, -SPATE_E_AUTH_REPLAY when it names
 * another epoch (stale; see newer_epoch). */
int spate_peer_chan_receive(struct spate_peer_chan *ch, const void *buf,
			    const struct spate_peer_hdr *h, spate_peer_deliver_fn *fn, void *ctx);

/* The time now, for the round-trip samples of the next receive (polls
 * set it too). */
void spate_peer_chan_clock(struct spate_peer_chan *ch, uint64_t now);

/* Start over with the peer's new incarnation: both directions restart at
 * sequence 1, buffers emptied. Returns how many queued frames were not
 * acknowledged (lost to the old incarnation). */
uint32_t spate_peer_chan_reset(struct spate_peer_chan *ch, uint32_t peer_epoch);

/* The sequence number of the last frame queued (0: none yet), and
 * whether the peer acknowledged every frame up to `seq`: what a caller
 * waits for before it answers a client for something the peer must
 * hold (a front's standby, docs/multihost.md). */
uint32_t spate_peer_chan_last_seq(const struct spate_peer_chan *ch);
int spate_peer_chan_acked(const struct spate_peer_chan *ch, uint32_t seq);
/* Frames queued and not yet acknowledged (0: everything arrived). */
uint32_t spate_peer_chan_in_flight(const struct spate_peer_chan *ch);
/* The highest peer epoch seen above the bound one, or 0. */
uint32_t spate_peer_chan_newer_epoch(const struct spate_peer_chan *ch);
const struct spate_peer_chan_stats *spate_peer_chan_stats(const struct spate_peer_chan *ch);

#endif
