/* spate_peer.h - the inter-host frame codec of a multi-host Spate
 * (docs/multihost.md): what a front host sends a match host (events with
 * their target categories, category operations) and what match hosts send
 * each other and the front (category handoffs, correlation feedback).
 *
 * Plain C, strict like spate_proto.c: every length is checked against the
 * buffer before a read, every count against its bound, every reserved
 * field must be 0, and a frame is accepted only when its header and every
 * message in it decode. Events and subscriptions travel as the client
 * protocol's own EVENT / SUB_ADD messages (spate_proto.h) embedded in the
 * peer message, so their encoding and validation exist once.
 *
 * A frame is a 36-byte header, `count` messages, then a 16-byte tag;
 * integers big-endian.
 *   off size field
 *     0   2  magic      0x5348 ("SH")
 *     2   1  version    2
 *     3   1  key        the cluster key that signed the frame (1..255);
 *                       0 = unsigned (only with peer_auth = "none")
 *     4   2  length     bytes of the whole frame, header and tag included
 *     6   2  count      messages that follow; 0 = a pure acknowledgement
 *     8   4  src_host   sender's host id (!= 0)
 *    12   4  src_epoch  sender's incarnation (!= 0)
 *    16   4  dst_host   receiver's host id (!= 0, != src_host)
 *    20   4  dst_epoch  receiver's incarnation as the sender knows it (!= 0)
 *                        (0 only in a pure ack: a hello, "I do not know your
 *                        incarnation yet": static peers' handshake)
 *    24   4  seq        this frame's sequence number; 0 when count is 0
 *    28   4  ack        every frame of dst's up to ack (serial order) arrived
 *    32   4  sack       bit i: dst's frame ack + 2 + i arrived too
 * The reliable channel (spate_peer_chan.h) owns seq/ack/sack; this file
 * only encodes and checks them. The tag (the last 16 bytes: HMAC-SHA256
 * truncated, over everything before it) is spate_peer_auth.h's: the
 * codec leaves it alone, and the decoder never looks at it.
 *
 * Message: u8 type, u8 mflags (0), u16 mlength (header included), body.
 * Bodies ("reply" = u32 ipv4, u16 port, u8 req_type (2 SUB_ADD or
 * 3 SUB_DEL), u8 0, u32 req_seq; ipv4:port 0:0 = answer nobody):
 *   EVENT       (1): u32 ev_seq, u16 parts (>= 1), u16 n_cat (1..256),
 *                    n_cat * u32 cat, client EVENT message
 *   CREATE      (2): u32 cat, u16 lcore, u16 0
 *   SUB_ADD     (3): u32 cat, u32 route_kw, reply, client SUB_ADD message
 *   SUB_DEL     (4): u32 cat, u8 drop_cat (0|1), u8 0, u16 0, reply, u64 id
 *   ACK         (5): u32 cat, reply, u64 id
 *   MERGE       (6): u32 into, u32 from (!= into)
 *   MOVE        (7): u32 cat, u32 to_host (!= 0), u16 to_lcore, u16 0,
 *                    u64 version
 *   EXPECT      (8): u32 cat, u32 from_host (!= 0), u16 lcore, u16 0,
 *                    u64 version
 *   HANDOFF_SUB (9): u32 cat, u32 route_kw, client SUB_ADD message
 *   HANDOFF_END(10): u32 cat, u32 n_subs, u64 version
 *   FEEDBACK   (11): u32 ev_seq, u16 parts (>= 1), u16 n_cat (0..256),
 *                    n_cat * u32 cat
 *   RELAY      (12): u32 0, client EVENT message
 *   REPL_ADD   (13): u32 owner, u32 0, client SUB_ADD message (front ->
 *                    front: a subscription the sender applied, for its
 *                    standby's copy)
 *   REPL_DEL   (14): u32 owner, u32 0, u64 id
 *   REPL_SYNC  (15): u32 phase (0: a snapshot begins, forget the copy;
 *                    1: it ends), u32 n (subscriptions it carried)
 *   DONE       (16): u16 lcore, u16 0, u32 ev_seq (match -> front: every
 *                    EVENT part of the receiver's up to ev_seq that the
 *                    receiver's worker for this lcore sent is matched)
 * An embedded client message must fill the rest of its peer message
 * exactly and be of the named type.
 */
#ifndef SPATE_PEER_H
#define SPATE_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "proto/spate_proto.h"

#define SPATE_PEER_MAGIC 0x5348
#define SPATE_PEER_VERSION 2
#define SPATE_PEER_HDR_LEN 36
/* The authentication tag that ends every frame (spate_peer_auth.h). */
#define SPATE_PEER_TAG_LEN 16
/* Header and tag: a frame's bytes besides its messages. */
#define SPATE_PEER_OVERHEAD (SPATE_PEER_HDR_LEN + SPATE_PEER_TAG_LEN)
#define SPATE_PEER_MSG_HDR_LEN 4
/* Largest frame: an embedded client SUB_ADD may be a whole client
 * datagram (1456 bytes of message), so inter-host links run jumbo frames
 * (docs/multihost.md); 4096 leaves room for batching. */
#define SPATE_PEER_FRAME_MAX 4096
#define SPATE_PEER_BODY_MAX (SPATE_PEER_FRAME_MAX - SPATE_PEER_OVERHEAD)
/* Most categories one EVENT or FEEDBACK message names. */
#define SPATE_PEER_CATS_MAX 256

enum spate_peer_type {
	SPATE_PEER_EVENT = 1,
	SPATE_PEER_CREATE,
	SPATE_PEER_SUB_ADD,
	SPATE_PEER_SUB_DEL,
	SPATE_PEER_ACK,
	SPATE_PEER_MERGE,
	SPATE_PEER_MOVE,
	SPATE_PEER_EXPECT,
	SPATE_PEER_HANDOFF_SUB,
	SPATE_PEER_HANDOFF_END,
	SPATE_PEER_FEEDBACK,
	SPATE_PEER_RELAY,    /* front -> front: a client's event, to route in your categories */
	SPATE_PEER_REPL_ADD, /* front -> front: replication of the sender's subscriptions */
	SPATE_PEER_REPL_DEL,
	SPATE_PEER_REPL_SYNC,
	SPATE_PEER_DONE, /* match -> front: event parts matched, up to ev_seq */
};
#define SPATE_PEER_TYPE_MAX SPATE_PEER_DONE

/* "EVENT", "CREATE", ...; "?" if unknown. */
const char *spate_peer_type_name(int type);

struct spate_peer_hdr {
	uint8_t key; /* the signing key's id; 0 = unsigned */
	uint16_t length, count;
	uint32_t src_host, src_epoch, dst_host, dst_epoch;
	uint32_t seq, ack, sack;
};

/* Whom a match host answers for a subscription change. */
struct spate_peer_reply {
	uint32_t ipv4;
	uint16_t port;
	uint8_t req_type; /* SPATE_MSG_SUB_ADD or SPATE_MSG_SUB_DEL */
	uint32_t req_seq;
};

struct spate_peer_msg {
	uint8_t type;
	uint32_t cat;                  /* every type but EVENT and FEEDBACK; MERGE: into */
	uint32_t other;                /* MERGE: from; MOVE: to_host; EXPECT: from_host;
			    * HANDOFF_END: n_subs; SUB_ADD, HANDOFF_SUB: route_kw;
			    * REPL_ADD, REPL_DEL: owner; REPL_SYNC: n (and cat: phase) */
	uint16_t lcore;                /* CREATE, MOVE, EXPECT, DONE */
	uint8_t drop_cat;              /* SUB_DEL */
	uint64_t id;                   /* SUB_DEL, ACK */
	uint64_t version;              /* MOVE, EXPECT, HANDOFF_END: placement map version */
	uint32_t ev_seq;               /* EVENT, FEEDBACK, DONE */
	uint16_t parts;                /* EVENT, FEEDBACK */
	uint16_t n_cat;                /* EVENT, FEEDBACK */
	const uint8_t *cats;           /* n_cat big-endian u32 inside the frame */
	struct spate_peer_reply reply; /* SUB_ADD, SUB_DEL, ACK */
	struct spate_msg inner;        /* EVENT, SUB_ADD, HANDOFF_SUB: the client message */
};

/* The i-th category of a decoded EVENT or FEEDBACK. */
uint32_t spate_peer_cat(const struct spate_peer_msg *m, uint16_t i);

/* Check the header of a frame of `len` bytes (not its messages, not its
 * tag): what a receiver reads before it spends a MAC on the frame. 0, or
 * -SPATE_E_TRUNCATED (shorter than a header and a tag), -SPATE_E_BAD_MAGIC,
 * -SPATE_E_BAD_VERSION, -SPATE_E_BAD_LENGTH, -SPATE_E_BAD_ID or
 * -SPATE_E_TOO_MANY_MESSAGES, as spate_peer_decode. */
int spate_peer_decode_hdr(const void *buf, size_t len, struct spate_peer_hdr *hdr);

/* Check a whole frame of `len` bytes: the header, then every message
 * (embedded client messages against lim); the tag is not checked here
 * (spate_peer_auth_verify). 0, or the first problem:
 * -SPATE_E_TRUNCATED (shorter than a header and a tag, or a message
 * header), -SPATE_E_BAD_MAGIC, -SPATE_E_BAD_VERSION, -SPATE_E_BAD_FLAGS
 * (mflags or a reserved field not 0), -SPATE_E_BAD_LENGTH (length field
 * differs from len, mlength lies, a body longer or shorter than its
 * fields, a count out of range), -SPATE_E_BAD_ID (a host or epoch 0,
 * src == dst, seq != 0 on a pure ack, a MERGE of a category into itself,
 * a bad reply type, a wrong embedded type), -SPATE_E_UNKNOWN_TYPE,
 * -SPATE_E_TOO_MANY_MESSAGES (more messages than fit), -SPATE_E_TRAILING_DATA,
 * or the embedded client message's own error. */
int spate_peer_decode(const void *buf, size_t len, const struct spate_limits *lim,
		      struct spate_peer_hdr *hdr);

/* The messages of a frame the decoder accepted: after the header, before
 * the tag. */
static inline const uint8_t *spate_peer_body(const void *frame)
{
	return (const uint8_t *)frame + SPATE_PEER_HDR_LEN;
}
static inline size_t spate_peer_body_len(const struct spate_peer_hdr *h)
{
	return (size_t)h->length - SPATE_PEER_OVERHEAD;
}

/* Walks the messages of a frame body (what follows the header) that
 * spate_peer_decode accepted, or a body the channel delivers. */
struct spate_peer_reader {
	const uint8_t *p, *end;
	uint32_t left;
};
void spate_peer_reader_init(struct spate_peer_reader *r, const void *body, size_t len,
			    uint16_t count);
/* 1 with the next message in *m, 0 at the end, -SPATE_E_* if the body is
 * not a checked one (then it stops). Pointers in *m point into the body. */
int spate_peer_next(struct spate_peer_reader *r, const struct spate_limits *lim,
		    struct spate_peer_msg *m);

/* Writes the header of a frame; key, seq/ack/sack as given (the tag is
 * the signer's: spate_peer_auth_sign). */
void spate_peer_hdr_encode(void *buf, const struct spate_peer_hdr *h);

/* Builds a frame body (messages only) in a caller-owned buffer of at most
 * SPATE_PEER_BODY_MAX bytes. Each put returns 0, -SPATE_E_NO_MEMORY when
 * the message does not fit (the writer is unchanged: hand the body over
 * and start another), or -SPATE_E_BAD_LENGTH / -SPATE_E_BAD_ID for a
 * value the format cannot carry (the decoder's rules). */
struct spate_peer_writer {
	uint8_t *buf;
	size_t cap, len;
	uint16_t count;
};
void spate_peer_writer_init(struct spate_peer_writer *w, void *buf, size_t cap);

int spate_peer_put_event(struct spate_peer_writer *w, uint32_t ev_seq, uint16_t parts,
			 const uint32_t *cats, uint16_t n_cat, const struct spate_raw_event *ev);
int spate_peer_put_create(struct spate_peer_writer *w, uint32_t cat, uint16_t lcore);
int spate_peer_put_sub_add(struct spate_peer_writer *w, uint32_t cat, uint32_t route_kw,
			   const struct spate_peer_reply *reply, const struct spate_raw_sub *sub);
int spate_peer_put_sub_del(struct spate_peer_writer *w, uint32_t cat, uint8_t drop_cat,
			   const struct spate_peer_reply *reply, uint64_t id);
int spate_peer_put_ack(struct spate_peer_writer *w, uint32_t cat,
		       const struct spate_peer_reply *reply, uint64_t id);
int spate_peer_put_merge(struct spate_peer_writer *w, uint32_t into, uint32_t from);
int spate_peer_put_move(struct spate_peer_writer *w, uint32_t cat, uint32_t to_host,
			uint16_t to_lcore, uint64_t version);
int spate_peer_put_expect(struct spate_peer_writer *w, uint32_t cat, uint32_t from_host,
			  uint16_t lcore, uint64_t version);
int spate_peer_put_handoff_sub(struct spate_peer_writer *w, uint32_t cat, uint32_t route_kw,
			       const struct spate_raw_sub *sub);
int spate_peer_put_handoff_end(struct spate_peer_writer *w, uint32_t cat, uint32_t n_subs,
			       uint64_t version);
/* RELAY: u32 0 (reserved), then the client EVENT message. */
int spate_peer_put_relay(struct spate_peer_writer *w, const struct spate_raw_event *ev);
int spate_peer_put_feedback(struct spate_peer_writer *w, uint32_t ev_seq, uint16_t parts,
			    const uint32_t *cats, uint16_t n_cat);
/* Replication between fronts: a subscription of client `owner` applied
 * (dest resolved), one deleted, a snapshot's bounds (phase 0 begin, 1
 * end with the count it carried). */
int spate_peer_put_repl_add(struct spate_peer_writer *w, uint32_t owner,
			    const struct spate_raw_sub *sub);
int spate_peer_put_repl_del(struct spate_peer_writer *w, uint32_t owner, uint64_t id);
int spate_peer_put_repl_sync(struct spate_peer_writer *w, uint32_t phase, uint32_t n);
int spate_peer_put_done(struct spate_peer_writer *w, uint16_t lcore, uint32_t ev_seq);

#endif
