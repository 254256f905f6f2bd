/* spate_proto.h - the Spate wire protocol: one codec for the daemon and
 * every tool. docs/protocol.md describes the same bytes for people.
 *
 * A datagram (UDP payload) is a 16-byte header followed by `count`
 * messages. All integers are big-endian (network order); doubles are IEEE
 * 754 binary64, big-endian. Signed values are two's complement.
 *
 * Header:
 *   off size field
 *     0   2  magic      0x5350 ("SP")
 *     2   1  version    1
 *     3   1  flags      bit 0 = sent by a server; bit 1 = authenticated
 *                       (a 40-byte trailer follows the messages, see
 *                       spate_auth.h); bits 2-7 reserved, 0
 *     4   2  length     bytes of the whole datagram, header included;
 *                       must equal the UDP payload length
 *     6   2  count      number of messages that follow (>= 1)
 *     8   4  client_id  sender's client id (0 from the server)
 *    12   4  seq        sender's sequence number; from the server, a
 *                       per-receiver counter so receivers can see loss
 *
 * Message: a 4-byte header then a body.
 *     0   1  type       enum spate_msg_type
 *     1   1  mflags     reserved, 0
 *     2   2  mlength    bytes of this message, its header included
 * The body must be exactly mlength - 4 bytes; lengths that lie in either
 * direction are refused.
 *
 * Bodies (a "kw" is: u8 len, then len bytes of UTF-8; a "name" likewise):
 *   EVENT   (1): u64 id, i32 lon, i32 lat, u8 n_kw, u8 n_attr, u16 0,
 *                n_kw * kw, n_attr * (name, f64 value)
 *   SUB_ADD (2): u64 id, i32 min_lon, i32 min_lat, i32 max_lon,
 *                i32 max_lat, u32 dest_ipv4, u16 dest_port, u8 n_kw,
 *                u8 n_cons, n_kw * kw, n_cons * (name, u8 op, f64 value)
 *   SUB_DEL (3): u64 id
 *   ACK     (4): u8 req_type, u8 0, u16 0, u32 req_seq, u64 id
 *   NACK    (5): u8 req_type, u8 code (enum spate_err), u16 0,
 *                u32 req_seq, u64 id
 *   NOTIFY  (6): u64 event_id, u16 n_subs, u16 0, n_subs * u64 sub_id
 * Coordinates are 1e-7 degree; rectangles inclusive. dest 0.0.0.0:0 means
 * "notify the address and port this SUB_ADD came from".
 */
#ifndef SPATE_PROTO_H
#define SPATE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "proto/spate_err.h"
#include "proto/spate_types.h"

#define SPATE_MAGIC 0x5350
#define SPATE_VERSION 1
#define SPATE_DEFAULT_PORT 47100
#define SPATE_HDR_LEN 16
#define SPATE_MSG_HDR_LEN 4
#define SPATE_FLAG_SERVER 0x01
/* The datagram ends with an authentication trailer (spate_auth.h): u64
 * nonce and a 32-byte HMAC-SHA256, counted in `length`, after the last
 * message. */
#define SPATE_FLAG_AUTH 0x02
#define SPATE_AUTH_TRAILER_LEN 40
#define SPATE_FLAGS_KNOWN (SPATE_FLAG_SERVER | SPATE_FLAG_AUTH)
/* Largest datagram the tools build: fits a 1500-byte MTU with IPv4+UDP. */
#define SPATE_DGRAM_MAX 1472

enum spate_msg_type {
	SPATE_MSG_EVENT = 1,
	SPATE_MSG_SUB_ADD = 2,
	SPATE_MSG_SUB_DEL = 3,
	SPATE_MSG_ACK = 4,
	SPATE_MSG_NACK = 5,
	SPATE_MSG_NOTIFY = 6,
};
#define SPATE_MSG_TYPE_MAX SPATE_MSG_NOTIFY

/* "EVENT", "SUB_ADD", ...; "?" if unknown. */
const char *spate_msg_type_name(int type);

struct spate_hdr {
	uint8_t version;
	uint8_t flags;
	uint16_t length;
	uint16_t count;
	uint32_t client_id;
	uint32_t seq;
};

struct spate_ack {
	uint8_t req_type;
	uint8_t code; /* NACK only: enum spate_err */
	uint32_t req_seq;
	uint64_t id;
};

struct spate_notify {
	uint64_t event_id;
	uint16_t n_subs;
	const uint8_t *ids; /* n_subs big-endian u64, inside the buffer */
};

struct spate_msg {
	uint8_t type;
	/* Set for SUB_ADD/SUB_DEL (and EVENT) whenever the id field could be
	 * read, even when the message is refused: a NACK can then name it. */
	uint64_t id;
	union {
		struct spate_raw_event ev;
		struct spate_raw_sub sub;
		struct spate_ack ack; /* ACK and NACK */
		struct spate_notify notify;
	} u;
};

/* Validate and decode the header of a datagram of `len` bytes (with the
 * auth flag, it must have room for the trailer, else TRUNCATED).
 * 0 or -SPATE_E_{TRUNCATED,BAD_MAGIC,BAD_VERSION,BAD_FLAGS,BAD_LENGTH,
 * TOO_MANY_MESSAGES}. */
int spate_hdr_decode(const void *buf, size_t len, const struct spate_limits *lim,
		     struct spate_hdr *hdr);

/* What a server can tell of a datagram it drops unread (overload): its
 * header's fields, how many of its messages are EVENTs and the first
 * message's type and id (0 when it cannot be read), found by walking the
 * message headers only - no message is decoded or checked. */
struct spate_dgram_peek {
	struct spate_hdr hdr;
	uint32_t events;
	uint8_t first_type;
	uint64_t first_id;
};

/* 0 with *out filled, or the header's refusal (spate_hdr_decode). The
 * walk stops where framing is lost, counting what came before. */
int spate_dgram_peek(const void *buf, size_t len, const struct spate_limits *lim,
		     struct spate_dgram_peek *out);

/* Walks the messages of a datagram whose header decoded. */
struct spate_reader {
	const uint8_t *p, *end;
	uint32_t left; /* messages still announced by the header */
	int broken;    /* framing lost: no further message can be found */
};

/* `buf`/`len` is the whole datagram, header included; the messages end
 * before the auth trailer when the header has SPATE_FLAG_AUTH. */
void spate_reader_init(struct spate_reader *r, const void *buf, size_t len,
		       const struct spate_hdr *hdr);

/* Decode the next message into *msg.
 * Returns 1 with a valid message, 0 when the datagram is done, or
 * -SPATE_E_* for a refused message. After a refusal whose message length
 * was sane the reader moves to the next message (msg->type and msg->id
 * say what was refused); when framing is lost (bad mlength, fewer or more
 * messages than announced) it returns the error once and then 0. String
 * fields of *msg point into the buffer and live as long as it does. */
int spate_reader_next(struct spate_reader *r, const struct spate_limits *lim,
		      struct spate_msg *msg);

/* The i-th sub id of a decoded NOTIFY. */
uint64_t spate_notify_id(const struct spate_notify *n, uint16_t i);

/* Builds one datagram in a caller-owned buffer. */
struct spate_writer {
	uint8_t *buf;
	size_t cap, len;
	uint16_t count;
};

void spate_writer_init(struct spate_writer *w, void *buf, size_t cap, uint8_t flags,
		       uint32_t client_id, uint32_t seq);

/* Each put returns 0, or -SPATE_E_NO_MEMORY if the message does not fit
 * (the writer is then unchanged: finish, send, start a new one), or
 * -SPATE_E_BAD_LENGTH if a count or string length cannot be encoded. */
int spate_put_event(struct spate_writer *w, const struct spate_raw_event *ev);
int spate_put_sub_add(struct spate_writer *w, const struct spate_raw_sub *sub);
int spate_put_sub_del(struct spate_writer *w, uint64_t id);
int spate_put_ack(struct spate_writer *w, uint8_t req_type, uint32_t req_seq, uint64_t id);
int spate_put_nack(struct spate_writer *w, uint8_t req_type, uint8_t code, uint32_t req_seq,
		   uint64_t id);
int spate_put_notify(struct spate_writer *w, uint64_t event_id, const uint64_t *sub_ids,
		     uint16_t n);
/* How many sub ids a NOTIFY put now could carry (0 if none fits). */
uint16_t spate_notify_room(const struct spate_writer *w);
/* Patch length and count into the header; returns the datagram length. */
size_t spate_writer_finish(struct spate_writer *w);

#endif
