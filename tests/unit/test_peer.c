/* test_peer.c - the inter-host frames (spate_peer.h) and the reliable
 * channel (spate_peer_chan.h).
 *
 *  - every message type round-trips field for field, in one frame and
 *    re-encoded byte for byte;
 *  - malformed frames are refused with the documented code: each header
 *    field, lying lengths and counts, reserved bytes, every prefix;
 *  - the channel over a simulated link that loses, duplicates and
 *    reorders (seeded, many seeds, each run bounded in steps): a stream
 *    of category operations arrives exactly once and in order, and a
 *    replica of the category state built from it equals the sender's;
 *    feedback flows back the other way on the same channel pair;
 *  - epochs: frames of another incarnation are dropped, a reset starts
 *    over and says how much was lost. */
#include <stdlib.h>
#include <string.h>

#include "../proto/peer_cmp.h"
#include "check.h"
#include "proto/spate_be.h"
#include "peer/spate_peer_chan.h"
#include "peer/spate_peer_map.h"

static struct spate_limits lim;

/* ---- frames ---- */

static uint8_t frame[SPATE_PEER_FRAME_MAX];

/* Wrap a body into frame[] (hosts 1 -> 2, epochs 7, 9); its length. */
static size_t wrap(const struct spate_peer_writer *w, uint32_t seq)
{
	struct spate_peer_hdr h = { .length = (uint16_t)(SPATE_PEER_OVERHEAD + w->len),
				    .count = w->count,
				    .src_host = 1,
				    .src_epoch = 7,
				    .dst_host = 2,
				    .dst_epoch = 9,
				    .seq = seq,
				    .ack = 5,
				    .sack = 0x80000001u };
	spate_peer_hdr_encode(frame, &h);
	memcpy(frame + SPATE_PEER_HDR_LEN, w->buf, w->len);
	memset(frame + SPATE_PEER_HDR_LEN + w->len, 0xa5,
	       SPATE_PEER_TAG_LEN); /* not checked here */
	return h.length;
}

static struct spate_raw_event ev;
static struct spate_raw_sub sub;

static void fill_samples(void)
{
	static const int32_t world[4] = { -1800000000, -900000000, 1800000000, 900000000 };

	peer_samples(&ev, &sub, world);
	ev.kw[ev.n_kw++] = spate_str_of("caf\xc3\xa9"); /* a UTF-8 keyword too */
}

/* One message of each type, in type order. */
static void put_all(struct spate_peer_writer *w)
{
	static const uint32_t cats[3] = { 3, 0xfffffffeu, 17 };
	struct spate_peer_reply ra = { 0x7f000001, 47101, SPATE_MSG_SUB_ADD, 77 };
	struct spate_peer_reply rd = { 0, 0, SPATE_MSG_SUB_DEL, 78 };

	CHECK_EQ_INT(spate_peer_put_event(w, 1000, 2, cats, 3, &ev), 0);
	CHECK_EQ_INT(spate_peer_put_create(w, 5, 3), 0);
	CHECK_EQ_INT(spate_peer_put_sub_add(w, 5, 12, &ra, &sub), 0);
	CHECK_EQ_INT(spate_peer_put_sub_del(w, 5, 1, &rd, 1001), 0);
	CHECK_EQ_INT(spate_peer_put_ack(w, 5, &ra, 1002), 0);
	CHECK_EQ_INT(spate_peer_put_merge(w, 5, 6), 0);
	CHECK_EQ_INT(spate_peer_put_move(w, 5, 4, 2, 1ull << 40), 0);
	CHECK_EQ_INT(spate_peer_put_expect(w, 5, 3, 1, 99), 0);
	CHECK_EQ_INT(spate_peer_put_handoff_sub(w, 5, 0, &sub), 0);
	CHECK_EQ_INT(spate_peer_put_handoff_end(w, 5, 1, 99), 0);
	CHECK_EQ_INT(spate_peer_put_feedback(w, 1000, 2, cats, 0), 0);
	CHECK_EQ_INT(spate_peer_put_relay(w, &ev), 0);
	CHECK_EQ_INT(spate_peer_put_repl_add(w, 4242, &sub), 0);
	CHECK_EQ_INT(spate_peer_put_repl_del(w, 4242, 1003), 0);
	CHECK_EQ_INT(spate_peer_put_repl_sync(w, 1, 7), 0);
	CHECK_EQ_INT(spate_peer_put_done(w, 3, 0xfffffff0u), 0);
	CHECK_EQ_INT(w->count, SPATE_PEER_TYPE_MAX);
}

static void test_round_trip(void)
{
	static uint8_t body[SPATE_PEER_BODY_MAX], body2[SPATE_PEER_BODY_MAX];
	struct spate_peer_writer w, w2;
	struct spate_peer_reader r;
	struct spate_peer_hdr h;
	struct spate_peer_msg m, m2;

	spate_peer_writer_init(&w, body, sizeof(body));
	put_all(&w);
	size_t n = wrap(&w, 3);
	CHECK_EQ_INT(spate_peer_decode(frame, n, &lim, &h), 0);
	CHECK(h.length == n && h.count == w.count && h.src_host == 1 && h.src_epoch == 7 &&
	      h.dst_host == 2 && h.dst_epoch == 9 && h.seq == 3 && h.ack == 5 &&
	      h.sack == 0x80000001u);

	spate_peer_writer_init(&w2, body2, sizeof(body2));
	spate_peer_reader_init(&r, spate_peer_body(frame), spate_peer_body_len(&h), h.count);
	for (int t = 1; t <= SPATE_PEER_TYPE_MAX; t++) {
		CHECK_EQ_INT(spate_peer_next(&r, &lim, &m), 1);
		CHECK_EQ_INT(m.type, t);
		CHECK_EQ_INT(peer_reencode(&w2, &m), 0);
		/* decode the single re-encoded message again */
		struct spate_peer_writer one;
		static uint8_t ob[SPATE_PEER_BODY_MAX];
		struct spate_peer_reader r1;
		spate_peer_writer_init(&one, ob, sizeof(ob));
		CHECK_EQ_INT(peer_reencode(&one, &m), 0);
		spate_peer_reader_init(&r1, ob, one.len, one.count);
		CHECK_EQ_INT(spate_peer_next(&r1, &lim, &m2), 1);
		CHECK(cmp_peer_msg(&m, &m2));
		CHECK_EQ_INT(spate_peer_next(&r1, &lim, &m2), 0);
	}
	CHECK_EQ_INT(spate_peer_next(&r, &lim, &m), 0);
	/* byte for byte: one encoding per value */
	CHECK(w2.len == w.len && memcmp(body, body2, w.len) == 0);

	/* the fields themselves, spot checks on each type */
	spate_peer_reader_init(&r, body, w.len, w.count);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.ev_seq == 1000 && m.parts == 2 && m.n_cat == 3 &&
	      spate_peer_cat(&m, 1) == 0xfffffffeu && m.inner.type == SPATE_MSG_EVENT &&
	      cmp_event(&m.inner.u.ev, &ev));
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.lcore == 3);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.other == 12 && m.reply.ipv4 == 0x7f000001 && m.reply.port == 47101 &&
	      m.reply.req_type == SPATE_MSG_SUB_ADD && m.reply.req_seq == 77 && m.id == 1001 &&
	      cmp_sub(&m.inner.u.sub, &sub));
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.drop_cat == 1 && m.reply.req_type == SPATE_MSG_SUB_DEL &&
	      m.id == 1001);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.id == 1002 && m.reply.req_seq == 77);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.other == 6);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.other == 4 && m.lcore == 2 && m.version == 1ull << 40);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.other == 3 && m.lcore == 1 && m.version == 99);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.other == 0 && cmp_sub(&m.inner.u.sub, &sub));
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 5 && m.other == 1 && m.version == 99);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.ev_seq == 1000 && m.parts == 2 && m.n_cat == 0);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.type == SPATE_PEER_RELAY && cmp_event(&m.inner.u.ev, &ev));
	spate_peer_next(&r, &lim, &m);
	CHECK(m.other == 4242 && m.id == 1001 && cmp_sub(&m.inner.u.sub, &sub));
	spate_peer_next(&r, &lim, &m);
	CHECK(m.other == 4242 && m.id == 1003);
	spate_peer_next(&r, &lim, &m);
	CHECK(m.cat == 1 && m.other == 7);

	/* a pure ack frame */
	spate_peer_writer_init(&w, body, sizeof(body));
	n = wrap(&w, 0);
	CHECK_EQ_INT(spate_peer_decode(frame, n, &lim, &h), 0);
	CHECK(h.count == 0 && h.length == SPATE_PEER_OVERHEAD);

	/* the writer refuses what the format cannot carry */
	static uint32_t many[SPATE_PEER_CATS_MAX + 1];
	struct spate_peer_reply bad = { 0, 0, SPATE_MSG_EVENT, 0 };
	spate_peer_writer_init(&w, body, sizeof(body));
	CHECK_EQ_INT(spate_peer_put_event(&w, 1, 1, many, 0, &ev), -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(spate_peer_put_event(&w, 1, 0, many, 1, &ev), -SPATE_E_BAD_ID);
	CHECK_EQ_INT(spate_peer_put_feedback(&w, 1, 1, many, SPATE_PEER_CATS_MAX + 1),
		     -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(spate_peer_put_merge(&w, 4, 4), -SPATE_E_BAD_ID);
	CHECK_EQ_INT(spate_peer_put_move(&w, 4, 0, 1, 1), -SPATE_E_BAD_ID);
	CHECK_EQ_INT(spate_peer_put_ack(&w, 4, &bad, 1), -SPATE_E_BAD_ID);
	CHECK_EQ_INT(spate_peer_put_sub_del(&w, 4, 2, &bad, 1), -SPATE_E_BAD_ID);
	CHECK_EQ_INT(spate_peer_put_repl_sync(&w, 2, 0), -SPATE_E_BAD_FLAGS);
	CHECK_EQ_INT(w.count, 0);
	CHECK_EQ_INT(w.len, 0);
	/* full: NO_MEMORY and the writer unchanged */
	uint8_t small[40];
	spate_peer_writer_init(&w, small, sizeof(small));
	CHECK_EQ_INT(spate_peer_put_merge(&w, 1, 2), 0);
	CHECK_EQ_INT(spate_peer_put_move(&w, 1, 2, 0, 0), 0);
	CHECK_EQ_INT(spate_peer_put_move(&w, 1, 2, 0, 0), -SPATE_E_NO_MEMORY);
	CHECK(w.count == 2 && w.len == 36);
	/* a full set of categories fits and comes back */
	for (uint32_t i = 0; i < SPATE_PEER_CATS_MAX; i++)
		many[i] = i * 2654435761u;
	spate_peer_writer_init(&w, body, sizeof(body));
	CHECK_EQ_INT(spate_peer_put_event(&w, 9, 1, many, SPATE_PEER_CATS_MAX, &ev), 0);
	n = wrap(&w, 1);
	CHECK_EQ_INT(spate_peer_decode(frame, n, &lim, &h), 0);
	spate_peer_reader_init(&r, spate_peer_body(frame), spate_peer_body_len(&h), h.count);
	CHECK_EQ_INT(spate_peer_next(&r, &lim, &m), 1);
	CHECK(m.n_cat == SPATE_PEER_CATS_MAX && spate_peer_cat(&m, 255) == many[255]);
}

/* ---- malformed frames ---- */

static uint8_t good[SPATE_PEER_FRAME_MAX];
static size_t good_len;
static size_t off_of[SPATE_PEER_TYPE_MAX + 1]; /* each message's offset in good[] */

static int decode_mut(size_t len)
{
	struct spate_peer_hdr h;
	return spate_peer_decode(frame, len, &lim, &h);
}

/* frame = good with byte `off` set to v; the decode result. */
static int with_byte(size_t off, uint8_t v)
{
	memcpy(frame, good, good_len);
	frame[off] = v;
	return decode_mut(good_len);
}

static int with_be32(size_t off, uint32_t v)
{
	memcpy(frame, good, good_len);
	spate_put_be32(frame + off, v);
	return decode_mut(good_len);
}

static void test_malformed(void)
{
	static uint8_t body[SPATE_PEER_BODY_MAX];
	struct spate_peer_writer w;
	struct spate_peer_reader r;
	struct spate_peer_msg m;

	spate_peer_writer_init(&w, body, sizeof(body));
	put_all(&w);
	good_len = wrap(&w, 3);
	memcpy(good, frame, good_len);
	spate_peer_reader_init(&r, spate_peer_body(good), good_len - SPATE_PEER_OVERHEAD, w.count);
	for (int t = 1; t <= SPATE_PEER_TYPE_MAX; t++) {
		off_of[t] = (size_t)(r.p - good);
		spate_peer_next(&r, &lim, &m);
	}

	CHECK_EQ_INT(decode_mut(0), -SPATE_E_TRUNCATED);
	CHECK_EQ_INT(with_byte(1, 0x53), -SPATE_E_BAD_MAGIC); /* "SS" */
	CHECK_EQ_INT(with_byte(2, 1), -SPATE_E_BAD_VERSION);  /* version 1 had no tag */
	CHECK_EQ_INT(with_byte(3, 7), 0);                     /* the key id: the tag's business */
	CHECK_EQ_INT(with_byte(5, (uint8_t)(good_len + 1)), -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(with_be32(8, 0), -SPATE_E_BAD_ID);  /* src_host */
	CHECK_EQ_INT(with_be32(12, 0), -SPATE_E_BAD_ID); /* src_epoch */
	CHECK_EQ_INT(with_be32(16, 1), -SPATE_E_BAD_ID); /* dst == src */
	CHECK_EQ_INT(with_be32(20, 0), -SPATE_E_BAD_ID); /* dst_epoch, with messages */
	{
		/* a hello (static peers' handshake): a pure ack may name no
		 * incarnation of the receiver, and nothing else may */
		struct spate_peer_writer none;
		struct spate_peer_hdr hh;
		static uint8_t nb[8];
		spate_peer_writer_init(&none, nb, sizeof(nb));
		size_t hn = wrap(&none, 0);
		spate_put_be32(frame + 20, 0);
		CHECK_EQ_INT(spate_peer_decode(frame, hn, &lim, &hh), 0);
		CHECK(hh.dst_epoch == 0 && hh.count == 0);
		spate_put_be32(frame + 24, 1); /* a seq: a data frame, refused */
		CHECK_EQ_INT(spate_peer_decode(frame, hn, &lim, &hh), -SPATE_E_BAD_ID);
	}
	/* count: one too few (trailing data), one too many (truncated),
	 * more than can fit */
	CHECK_EQ_INT(with_byte(7, SPATE_PEER_TYPE_MAX - 1), -SPATE_E_TRAILING_DATA);
	CHECK_EQ_INT(with_byte(7, SPATE_PEER_TYPE_MAX + 1), -SPATE_E_TRUNCATED);
	CHECK_EQ_INT(with_byte(6, 0xff), -SPATE_E_TOO_MANY_MESSAGES);
	/* a pure ack carries no seq, and no body; never without its tag */
	memcpy(frame, good, SPATE_PEER_OVERHEAD);
	spate_put_be16(frame + 4, SPATE_PEER_OVERHEAD);
	spate_put_be16(frame + 6, 0);
	CHECK_EQ_INT(decode_mut(SPATE_PEER_OVERHEAD), -SPATE_E_BAD_ID);
	spate_put_be32(frame + 24, 0);
	CHECK_EQ_INT(decode_mut(SPATE_PEER_OVERHEAD), 0);
	spate_put_be16(frame + 4, SPATE_PEER_OVERHEAD - 1);
	CHECK_EQ_INT(decode_mut(SPATE_PEER_OVERHEAD - 1), -SPATE_E_TRUNCATED);
	spate_put_be16(frame + 4, SPATE_PEER_HDR_LEN);
	CHECK_EQ_INT(decode_mut(SPATE_PEER_HDR_LEN), -SPATE_E_TRUNCATED);
	/* over the maximum frame */
	static uint8_t big[SPATE_PEER_FRAME_MAX + 8];
	memcpy(big, frame, SPATE_PEER_HDR_LEN);
	spate_put_be16(big + 4, sizeof(big));
	struct spate_peer_hdr h;
	CHECK_EQ_INT(spate_peer_decode(big, sizeof(big), &lim, &h), -SPATE_E_BAD_LENGTH);

	/* message headers: unknown type, mflags, mlength too short / long */
	size_t ev_off = off_of[SPATE_PEER_EVENT];
	CHECK_EQ_INT(with_byte(ev_off, 0), -SPATE_E_UNKNOWN_TYPE);
	CHECK_EQ_INT(with_byte(ev_off, SPATE_PEER_TYPE_MAX + 1), -SPATE_E_UNKNOWN_TYPE);
	CHECK_EQ_INT(with_byte(ev_off + 1, 1), -SPATE_E_BAD_FLAGS);
	memcpy(frame, good, good_len);
	spate_put_be16(frame + ev_off + 2, 3);
	CHECK_EQ_INT(decode_mut(good_len), -SPATE_E_BAD_LENGTH);
	spate_put_be16(frame + ev_off + 2, 0xffff);
	CHECK_EQ_INT(decode_mut(good_len), -SPATE_E_TRUNCATED);

	/* bodies, one field at a time */
	size_t b = SPATE_PEER_MSG_HDR_LEN;
	CHECK_EQ_INT(with_byte(ev_off + b + 5, 0), -SPATE_E_BAD_ID);     /* parts 0 */
	CHECK_EQ_INT(with_byte(ev_off + b + 7, 0), -SPATE_E_BAD_LENGTH); /* n_cat 0 */
	CHECK_EQ_INT(with_byte(ev_off + b + 7, 4),
		     -SPATE_E_BAD_LENGTH); /* swallows the inner header */
	CHECK_EQ_INT(with_byte(ev_off + b + 6, 2), -SPATE_E_BAD_LENGTH); /* n_cat 515 */
	size_t inner = ev_off + b + 8 + 12;
	CHECK(with_byte(inner, SPATE_MSG_SUB_ADD) < 0); /* the body misread as a SUB_ADD */
	CHECK_EQ_INT(with_byte(inner, SPATE_MSG_SUB_DEL), -SPATE_E_BAD_LENGTH); /* longer */
	CHECK_EQ_INT(with_byte(inner, 99), -SPATE_E_UNKNOWN_TYPE);
	CHECK_EQ_INT(with_byte(inner + 1, 1), -SPATE_E_BAD_FLAGS);        /* inner mflags */
	CHECK_EQ_INT(with_byte(inner + 3, 0), -SPATE_E_BAD_LENGTH);       /* inner mlength */
	CHECK_EQ_INT(with_byte(inner + 4 + 8, 0x7f), -SPATE_E_BAD_COORD); /* inner lon */
	size_t cr = off_of[SPATE_PEER_CREATE] + b;
	CHECK_EQ_INT(with_byte(cr + 7, 1), -SPATE_E_BAD_FLAGS);
	size_t sa = off_of[SPATE_PEER_SUB_ADD] + b;
	CHECK_EQ_INT(with_byte(sa + 8 + 6, SPATE_MSG_EVENT), -SPATE_E_BAD_ID); /* reply type */
	CHECK_EQ_INT(with_byte(sa + 8 + 7, 1), -SPATE_E_BAD_FLAGS);            /* reply pad */
	CHECK_EQ_INT(with_byte(sa + 20, SPATE_MSG_SUB_DEL), -SPATE_E_BAD_LENGTH);
	size_t sd = off_of[SPATE_PEER_SUB_DEL] + b;
	CHECK_EQ_INT(with_byte(sd + 4, 2), -SPATE_E_BAD_FLAGS); /* drop_cat */
	CHECK_EQ_INT(with_byte(sd + 5, 1), -SPATE_E_BAD_FLAGS);
	CHECK_EQ_INT(with_byte(sd + 7, 1), -SPATE_E_BAD_FLAGS);
	size_t mg = off_of[SPATE_PEER_MERGE] + b;
	CHECK_EQ_INT(with_be32(mg + 4, 5), -SPATE_E_BAD_ID); /* into itself */
	size_t mv = off_of[SPATE_PEER_MOVE] + b;
	CHECK_EQ_INT(with_be32(mv + 4, 0), -SPATE_E_BAD_ID); /* to host 0 */
	CHECK_EQ_INT(with_byte(mv + 11, 1), -SPATE_E_BAD_FLAGS);
	size_t ex = off_of[SPATE_PEER_EXPECT] + b;
	CHECK_EQ_INT(with_be32(ex + 4, 0), -SPATE_E_BAD_ID);
	size_t fb = off_of[SPATE_PEER_FEEDBACK] + b;
	CHECK_EQ_INT(with_byte(fb + 5, 0), -SPATE_E_BAD_ID);     /* parts 0 */
	CHECK_EQ_INT(with_byte(fb + 7, 1), -SPATE_E_BAD_LENGTH); /* a cat past the end */
	size_t rl = off_of[SPATE_PEER_RELAY] + b;
	CHECK_EQ_INT(with_byte(rl + 3, 1), -SPATE_E_BAD_FLAGS); /* reserved */
	CHECK(with_byte(rl + 4, SPATE_MSG_SUB_ADD) < 0);        /* not an EVENT */
	size_t ra = off_of[SPATE_PEER_REPL_ADD] + b;
	CHECK_EQ_INT(with_byte(ra + 7, 1), -SPATE_E_BAD_FLAGS); /* reserved */
	CHECK(with_byte(ra + 8, SPATE_MSG_EVENT) < 0);          /* not a SUB_ADD */
	size_t rd = off_of[SPATE_PEER_REPL_DEL] + b;
	CHECK_EQ_INT(with_byte(rd + 4, 1), -SPATE_E_BAD_FLAGS);
	CHECK_EQ_INT(with_byte(rd - 1, 15), -SPATE_E_BAD_LENGTH); /* mlength: the id cut */
	size_t rs = off_of[SPATE_PEER_REPL_SYNC] + b;
	CHECK_EQ_INT(with_byte(rs + 3, 2), -SPATE_E_BAD_FLAGS); /* phase 2 */
	size_t dn = off_of[SPATE_PEER_DONE] + b;
	CHECK_EQ_INT(with_byte(dn + 3, 1), -SPATE_E_BAD_FLAGS); /* pad */

	/* a valid client message of the wrong type inside an EVENT */
	static const uint8_t wrong[] = {
		SPATE_PEER_EVENT,  0, 0, 28, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 4,
		SPATE_MSG_SUB_DEL, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 9
	};
	memcpy(frame, good, SPATE_PEER_HDR_LEN);
	memcpy(frame + SPATE_PEER_HDR_LEN, wrong, sizeof(wrong));
	spate_put_be16(frame + 4, SPATE_PEER_OVERHEAD + sizeof(wrong));
	spate_put_be16(frame + 6, 1);
	CHECK_EQ_INT(decode_mut(SPATE_PEER_OVERHEAD + sizeof(wrong)), -SPATE_E_BAD_ID);
	frame[SPATE_PEER_HDR_LEN + 16] = SPATE_MSG_EVENT; /* the right type, a short body */
	CHECK_EQ_INT(decode_mut(SPATE_PEER_OVERHEAD + sizeof(wrong)), -SPATE_E_BAD_LENGTH);

	/* a body with its mlength one longer than its fields */
	memcpy(frame, good, off_of[SPATE_PEER_MERGE]);
	size_t mlen = 12;
	memcpy(frame + off_of[SPATE_PEER_MERGE], good + off_of[SPATE_PEER_MERGE], mlen);
	frame[off_of[SPATE_PEER_MERGE] + mlen] = 0;
	spate_put_be16(frame + off_of[SPATE_PEER_MERGE] + 2, (uint16_t)(mlen + 1));
	size_t rest = good_len - off_of[SPATE_PEER_MERGE] - mlen;
	memcpy(frame + off_of[SPATE_PEER_MERGE] + mlen + 1, good + off_of[SPATE_PEER_MERGE] + mlen,
	       rest);
	spate_put_be16(frame + 4, (uint16_t)(good_len + 1));
	CHECK_EQ_INT(decode_mut(good_len + 1), -SPATE_E_BAD_LENGTH);

	/* every prefix is refused, with the length field lying or patched */
	for (size_t n = 0; n < good_len; n++) {
		memcpy(frame, good, good_len);
		CHECK(decode_mut(n) < 0);
		if (n >= SPATE_PEER_HDR_LEN) {
			spate_put_be16(frame + 4, (uint16_t)n);
			CHECK(decode_mut(n) < 0);
		}
	}
	/* and every single-byte flip of the header either decodes to the
	 * same frame shape or is refused (never a crash: ASan runs this) */
	for (size_t off = 0; off < good_len; off++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(frame, good, good_len);
			frame[off] ^= (uint8_t)(1u << bit);
			(void)decode_mut(good_len);
		}
}

/* ---- the channel over a bad link ---- */

#define NCAT 16
#define NSUB 128

/* The category state both ends keep: what the operations build. */
struct model {
	uint8_t exists[NCAT];
	uint16_t lcore[NCAT];
	uint32_t host[NCAT];
	uint64_t version[NCAT];
	uint32_t expect_from[NCAT];
	uint8_t sub_cat[NSUB]; /* category + 1, 0 = none */
	int32_t sub_lon[NSUB]; /* a content field, to see it travels */
	uint32_t events[NCAT]; /* events routed to the category */
	uint64_t acks;         /* sum of acked ids */
	uint64_t log;          /* order-sensitive hash of the operations */
	uint32_t handoffs;     /* completed HANDOFF_ENDs */
	uint32_t handoff_subs; /* subs received in handoffs */
	uint32_t ops;          /* operations applied */
	uint32_t errors;       /* operations inconsistent with the state */
};

static uint32_t cat_size(const struct model *md, uint32_t c)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < NSUB; i++)
		n += md->sub_cat[i] == c + 1;
	return n;
}

static void log_op(struct model *md, uint64_t a, uint64_t b)
{
	md->log = (md->log * 1000003u) ^ (a * 31 + b);
	md->ops++;
}

/* Apply one decoded operation to md (both ends use this). */
static void apply(struct model *md, const struct spate_peer_msg *m)
{
	uint32_t c = m->cat;
	bool in = c < NCAT;

	log_op(md, m->type, ((uint64_t)m->cat << 32) ^ m->other ^ m->id);
	switch (m->type) {
	case SPATE_PEER_EVENT:
		for (uint16_t i = 0; i < m->n_cat; i++) {
			uint32_t k = spate_peer_cat(m, i);
			if (k < NCAT && md->exists[k])
				md->events[k]++;
			else
				md->errors++;
		}
		log_op(md, m->ev_seq, m->inner.u.ev.id);
		return;
	case SPATE_PEER_CREATE:
		if (!in || md->exists[c]) {
			md->errors++;
			return;
		}
		md->exists[c] = 1;
		md->lcore[c] = m->lcore;
		return;
	case SPATE_PEER_SUB_ADD:
	case SPATE_PEER_HANDOFF_SUB:
		if (!in || !md->exists[c] || m->id >= NSUB || md->sub_cat[m->id]) {
			md->errors++;
			return;
		}
		md->sub_cat[m->id] = (uint8_t)(c + 1);
		md->sub_lon[m->id] = m->inner.u.sub.rect.min_lon;
		md->handoff_subs += m->type == SPATE_PEER_HANDOFF_SUB;
		return;
	case SPATE_PEER_SUB_DEL:
		if (!in || m->id >= NSUB || md->sub_cat[m->id] != c + 1) {
			md->errors++;
			return;
		}
		md->sub_cat[m->id] = 0;
		md->sub_lon[m->id] = 0;
		if (m->drop_cat) {
			if (cat_size(md, c))
				md->errors++;
			md->exists[c] = 0;
		}
		return;
	case SPATE_PEER_ACK:
		md->acks += m->id;
		return;
	case SPATE_PEER_MERGE:
		if (!in || m->other >= NCAT || !md->exists[c] || !md->exists[m->other]) {
			md->errors++;
			return;
		}
		for (uint32_t i = 0; i < NSUB; i++)
			if (md->sub_cat[i] == m->other + 1)
				md->sub_cat[i] = (uint8_t)(c + 1);
		md->exists[m->other] = 0;
		return;
	case SPATE_PEER_MOVE:
		if (!in || !md->exists[c] || m->version <= md->version[c]) {
			md->errors++;
			return;
		}
		md->host[c] = m->other;
		md->lcore[c] = m->lcore;
		md->version[c] = m->version;
		return;
	case SPATE_PEER_EXPECT:
		if (!in) {
			md->errors++;
			return;
		}
		md->expect_from[c] = m->other;
		return;
	case SPATE_PEER_HANDOFF_END:
		if (!in || !md->exists[c] || cat_size(md, c) != m->other)
			md->errors++;
		md->handoffs++;
		return;
	}
	md->errors++;
}

/* The sender: draws a valid next operation for its model, encodes it
 * into w and applies it (decoded back from w, so both ends apply the
 * same bytes). 0, or -SPATE_E_NO_MEMORY when w is full (nothing done). */
static uint64_t next_version = 1;

static int gen_op(struct model *md, struct spate_peer_writer *w, uint32_t *ev_seq)
{
	struct spate_peer_reply rep = { 0x7f000001, 47101, SPATE_MSG_SUB_ADD, 0 };
	size_t before = w->len;
	uint16_t cnt = w->count;
	uint32_t c = check_below(NCAT), o = check_below(NCAT), id = check_below(NSUB);
	uint32_t cats[NCAT], n = 0;
	int rc;

	for (uint32_t i = 0; i < NCAT; i++)
		if (md->exists[i] && check_below(3) == 0)
			cats[n++] = i;
	switch (check_below(9)) {
	case 0:
		if (md->exists[c])
			goto event;
		rc = spate_peer_put_create(w, c, (uint16_t)check_below(4));
		break;
	case 1:
	case 2:
		if (!md->exists[c] || md->sub_cat[id])
			goto event;
		sub.id = id;
		sub.rect.min_lon = -(int32_t)check_below(1000000);
		rep.req_seq = id;
		rc = spate_peer_put_sub_add(w, c, check_below(5), &rep, &sub);
		break;
	case 3:
		if (!md->sub_cat[id])
			goto event;
		c = md->sub_cat[id] - 1u;
		rep.req_type = SPATE_MSG_SUB_DEL;
		rc = spate_peer_put_sub_del(w, c, cat_size(md, c) == 1 && check_below(2), &rep, id);
		break;
	case 4:
		if (!md->exists[c] || !md->exists[o] || c == o)
			goto event;
		rc = spate_peer_put_merge(w, c, o);
		break;
	case 5:
		if (!md->exists[c])
			goto event;
		rc = spate_peer_put_move(w, c, 2 + check_below(3), (uint16_t)check_below(4),
					 next_version);
		if (rc == 0)
			next_version++;
		break;
	case 6:
		rc = spate_peer_put_expect(w, c, 2 + check_below(3), 0, next_version);
		break;
	case 7:
		/* ship category c: every sub, then the end marker, in one
		 * frame or not at all (a real sender splits; the test keeps
		 * the model simple) */
		if (!md->exists[c] || cat_size(md, c) > 4)
			goto event;
		rc = 0;
		for (uint32_t i = 0; i < NSUB && rc == 0; i++)
			if (md->sub_cat[i] == c + 1) {
				/* a handoff re-files the sub: delete, then re-add */
				rep.req_type = SPATE_MSG_SUB_DEL;
				if ((rc = spate_peer_put_sub_del(w, c, 0, &rep, i)))
					break;
				sub.id = i;
				sub.rect.min_lon = md->sub_lon[i];
				rc = spate_peer_put_handoff_sub(w, c, 0, &sub);
			}
		if (rc == 0)
			rc = spate_peer_put_handoff_end(w, c, cat_size(md, c), next_version);
		if (rc == 0)
			rc = spate_peer_put_ack(w, c, &rep, id);
		break;
	default:
event:
		if (n == 0) {
			rc = md->exists[c] ? spate_peer_put_expect(w, c, 2, 0, next_version)
					   : spate_peer_put_create(w, c, 0);
			break;
		}
		ev.id = *ev_seq;
		rc = spate_peer_put_event(w, (*ev_seq), 1, cats, (uint16_t)n, &ev);
		if (rc == 0)
			(*ev_seq)++;
		break;
	}
	if (rc) {
		w->len = before;
		w->count = cnt;
		return rc;
	}
	/* apply what was written, from its bytes */
	struct spate_peer_reader r;
	struct spate_peer_msg m;
	spate_peer_reader_init(&r, w->buf + before, w->len - before, (uint16_t)(w->count - cnt));
	while (spate_peer_next(&r, &lim, &m) == 1)
		apply(md, &m);
	return 0;
}

/* A frame on the simulated wire. */
struct wire {
	uint64_t at;
	int to; /* 0: A, 1: B */
	size_t len;
	uint8_t b[SPATE_PEER_FRAME_MAX];
};

#define WIRE_MAX 512
static struct wire wire[WIRE_MAX];
static int n_wire;

struct link {
	uint32_t loss, dup; /* per 1000 */
	uint64_t delay;     /* up to, ns */
	uint64_t dropped;
};

static void transmit(struct link *l, int to, const uint8_t *b, size_t len, uint64_t now)
{
	int copies = 1 + (check_below(1000) < l->dup);

	for (int i = 0; i < copies; i++) {
		if (check_below(1000) < l->loss || n_wire == WIRE_MAX) {
			l->dropped++;
			continue;
		}
		struct wire *f = &wire[n_wire++];
		f->at = now + check_rand() % (l->delay + 1);
		f->to = to;
		f->len = len;
		memcpy(f->b, b, len);
	}
}

/* B's side: the replica and the feedback it owes A. */
struct end_b {
	struct model md;
	uint32_t fb_owed_from, fb_owed_to; /* ev_seqs [from, to) to answer */
};

static void deliver_b(void *ctx, const uint8_t *body, size_t len, uint16_t count)
{
	struct end_b *e = ctx;
	struct spate_peer_reader r;
	struct spate_peer_msg m;
	int rc;

	spate_peer_reader_init(&r, body, len, count);
	while ((rc = spate_peer_next(&r, &lim, &m)) == 1) {
		apply(&e->md, &m);
		if (m.type == SPATE_PEER_EVENT) {
			if (m.ev_seq != e->fb_owed_to)
				e->md.errors++;
			e->fb_owed_to = m.ev_seq + 1;
		}
	}
	if (rc)
		e->md.errors++;
}

struct end_a {
	uint32_t fb_next; /* next feedback ev_seq expected */
	uint32_t errors;
};

static void deliver_a(void *ctx, const uint8_t *body, size_t len, uint16_t count)
{
	struct end_a *e = ctx;
	struct spate_peer_reader r;
	struct spate_peer_msg m;
	int rc;

	spate_peer_reader_init(&r, body, len, count);
	while ((rc = spate_peer_next(&r, &lim, &m)) == 1)
		if (m.type != SPATE_PEER_FEEDBACK || m.ev_seq != e->fb_next++)
			e->errors++;
	if (rc)
		e->errors++;
}

/* One seeded run; false (after saying why) on any failure. */
/* Over every run, what the links did: shown, so a reader sees the
 * channel was exercised. */
static struct spate_peer_chan_stats total;
static uint64_t total_dropped, total_ops;

static bool run_link(uint64_t seed, uint32_t n_ops)
{
	static uint8_t body[SPATE_PEER_BODY_MAX], out[SPATE_PEER_FRAME_MAX];
	static struct model ma;
	static struct end_b eb;
	struct end_a ea = { .fb_next = 1 };
	const uint64_t rto = 1000000; /* 1 ms */
	uint32_t window, ops = 0, ev_seq = 1;
	struct link l;
	bool pending = false;
	struct spate_peer_writer w;

	check_rng = seed * 0x9e3779b97f4a7c15ull | 1;
	window = 1 + check_below(SPATE_PEER_WINDOW_MAX);
	l = (struct link){ check_below(300), check_below(200), check_rand() % (5 * rto), 0 };
	memset(&ma, 0, sizeof(ma));
	memset(&eb, 0, sizeof(eb));
	eb.fb_owed_from = eb.fb_owed_to = 1;
	n_wire = 0;
	next_version = 1;

	struct spate_peer_chan *a = spate_peer_chan_create(1, 11, 2, 22, window, rto);
	struct spate_peer_chan *bch = spate_peer_chan_create(2, 22, 1, 11, window, rto);
	bool ok = a && bch;
	uint64_t now = 0, step;

	for (step = 0; ok && step < 400000; step++) {
		now += rto / 8;
		/* A: fill frames with operations while its window has room */
		while (ops < n_ops || pending) {
			if (!pending) {
				spate_peer_writer_init(&w, body,
						       64 + check_below(SPATE_PEER_BODY_MAX - 64));
				pending = true;
			}
			int rc = ops < n_ops ? gen_op(&ma, &w, &ev_seq) : -SPATE_E_NO_MEMORY;
			if (rc == 0 && ++ops < n_ops && check_below(4))
				continue;
			if (w.count == 0) { /* even one op did not fit: a bigger frame */
				pending = false;
				continue;
			}
			if (spate_peer_chan_queue(a, body, w.len, w.count) != 0)
				break; /* window full: the frame waits, pending */
			pending = false;
		}
		/* B: feedback for the events it got */
		while (eb.fb_owed_from != eb.fb_owed_to) {
			static uint8_t fbody[64];
			struct spate_peer_writer fw;
			uint32_t one = 0;
			spate_peer_writer_init(&fw, fbody, sizeof(fbody));
			spate_peer_put_feedback(&fw, eb.fb_owed_from, 1, &one, 1);
			if (spate_peer_chan_queue(bch, fbody, fw.len, fw.count) != 0)
				break;
			eb.fb_owed_from++;
		}
		size_t n;
		while ((n = spate_peer_chan_poll(a, now, out, sizeof(out))))
			transmit(&l, 1, out, n, now);
		while ((n = spate_peer_chan_poll(bch, now, out, sizeof(out))))
			transmit(&l, 0, out, n, now);
		/* the wire: deliver what is due, in a random order */
		for (int k = n_wire; k > 0 && n_wire > 0; k--) {
			int j = (int)check_below((uint32_t)n_wire);
			struct wire *f = &wire[j];
			if (f->at > now)
				continue;
			struct spate_peer_hdr h;
			int rc = spate_peer_decode(f->b, f->len, &lim, &h);
			if (rc != 0) {
				fprintf(stderr, "seed %llu: frame refused: %s\n",
					(unsigned long long)seed, spate_err_name(-rc));
				ok = false;
			} else if (f->to == 1) {
				ok &= spate_peer_chan_receive(bch, f->b, &h, deliver_b, &eb) >= 0;
			} else {
				ok &= spate_peer_chan_receive(a, f->b, &h, deliver_a, &ea) >= 0;
			}
			wire[j] = wire[--n_wire];
		}
		if (ops == n_ops && !pending && spate_peer_chan_in_flight(a) == 0 &&
		    spate_peer_chan_in_flight(bch) == 0 && eb.fb_owed_from == eb.fb_owed_to &&
		    ea.fb_next == ev_seq)
			break;
	}
	if (ok && (ma.errors || eb.md.errors || ea.errors)) {
		fprintf(stderr, "seed %llu: inconsistent operations (A %u, B %u, feedback %u)\n",
			(unsigned long long)seed, ma.errors, eb.md.errors, ea.errors);
		ok = false;
	}
	if (ok && memcmp(&ma, &eb.md, sizeof(ma)) != 0) {
		fprintf(stderr, "seed %llu: replica differs (ops %u vs %u)\n",
			(unsigned long long)seed, ma.ops, eb.md.ops);
		ok = false;
	}
	if (ok && (ops != n_ops || ea.fb_next != ev_seq)) {
		fprintf(stderr,
			"seed %llu: not finished after %llu steps (ops %u/%u, window %u, "
			"loss %u dup %u)\n",
			(unsigned long long)seed, (unsigned long long)step, ops, n_ops, window,
			l.loss, l.dup);
		ok = false;
	}
	if (ok && l.loss > 50) {
		/* a lossy link must have cost retransmissions */
		const struct spate_peer_chan_stats *st = spate_peer_chan_stats(a);
		const struct spate_peer_chan_stats *sb = spate_peer_chan_stats(bch);
		ok = st->retransmits > 0 && sb->delivered == st->queued &&
		     st->delivered == sb->queued;
		if (!ok)
			fprintf(stderr, "seed %llu: stats do not add up\n",
				(unsigned long long)seed);
	}
	for (int side = 0; side < 2; side++) {
		const struct spate_peer_chan_stats *st = spate_peer_chan_stats(side ? bch : a);
		total.sent += st->sent;
		total.retransmits += st->retransmits;
		total.acks_sent += st->acks_sent;
		total.delivered += st->delivered;
		total.duplicates += st->duplicates;
		total.out_of_window += st->out_of_window;
	}
	total_dropped += l.dropped;
	total_ops += n_ops;
	spate_peer_chan_destroy(a);
	spate_peer_chan_destroy(bch);
	return ok;
}

static void test_link(void)
{
	int failed = 0;

	fill_samples();
	for (uint64_t seed = 1; seed <= 300 && failed < 5; seed++)
		if (!run_link(seed, 300 + (uint32_t)(seed % 7) * 100))
			failed++;
	CHECK_EQ_INT(failed, 0);
	printf("test_peer: 300 links: %llu operations; frames: %llu sent, %llu resent, "
	       "%llu pure acks, %llu lost on the link, %llu duplicates and %llu beyond the "
	       "window dropped, %llu delivered\n",
	       (unsigned long long)total_ops, (unsigned long long)total.sent,
	       (unsigned long long)total.retransmits, (unsigned long long)total.acks_sent,
	       (unsigned long long)total_dropped, (unsigned long long)total.duplicates,
	       (unsigned long long)total.out_of_window, (unsigned long long)total.delivered);
	fill_samples();
}

/* ---- channel edges ---- */

static int n_delivered;
static void count_deliver(void *ctx, const uint8_t *body, size_t len, uint16_t count)
{
	(void)ctx, (void)body, (void)len, (void)count;
	n_delivered++;
}

/* CREATE byte for byte: its reserved half-word is 0 whatever was on
 * the stack. */
static void test_create_bytes(void)
{
	uint8_t body[64];
	struct spate_peer_writer w;
	static const uint8_t want[12] = {
		SPATE_PEER_CREATE, 0, 0, 12, 0x01, 0x02, 0x03, 0x04, 0x00, 0x07, 0, 0
	};

	spate_peer_writer_init(&w, body, sizeof(body));
	check_dirty_stack();
	CHECK_EQ_INT(spate_peer_put_create(&w, 0x01020304, 7), 0);
	CHECK_EQ_INT(w.len, sizeof(want));
	CHECK_EQ_INT(w.count, 1);
	CHECK(memcmp(body, want, sizeof(want)) == 0);
}

static void test_chan_edges(void)
{
	static uint8_t body[64], out[SPATE_PEER_FRAME_MAX];
	struct spate_peer_writer w;
	struct spate_peer_hdr h;

	CHECK(spate_peer_chan_create(1, 1, 1, 1, 4, 10) == NULL);
	CHECK(spate_peer_chan_create(1, 0, 2, 1, 4, 10) == NULL);
	CHECK(spate_peer_chan_create(1, 1, 2, 1, 33, 10) == NULL);
	CHECK(spate_peer_chan_create(1, 1, 2, 1, 4, 0) == NULL);

	struct spate_peer_chan *a = spate_peer_chan_create(1, 5, 2, 6, 2, 100);
	struct spate_peer_chan *b = spate_peer_chan_create(2, 6, 1, 5, 2, 100);
	spate_peer_writer_init(&w, body, sizeof(body));
	spate_peer_put_merge(&w, 1, 2);
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, w.len, 0), -SPATE_E_BAD_LENGTH);
	/* a body must hold count message headers (4 bytes each), at least */
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, 2 * SPATE_PEER_MSG_HDR_LEN - 1, 2),
		     -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, SPATE_PEER_BODY_MAX + 1, 1),
		     -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(spate_peer_chan_in_flight(a), 0);
	{ /* ... and exactly that much, or the largest body, is taken */
		static uint8_t big[SPATE_PEER_BODY_MAX];
		struct spate_peer_chan *c = spate_peer_chan_create(1, 5, 3, 6, 2, 100);
		CHECK_EQ_INT(spate_peer_chan_queue(c, big, 2 * SPATE_PEER_MSG_HDR_LEN, 2), 0);
		CHECK_EQ_INT(spate_peer_chan_queue(c, big, SPATE_PEER_BODY_MAX, 1), 0);
		CHECK_EQ_INT(spate_peer_chan_in_flight(c), 2);
		spate_peer_chan_destroy(c);
	}
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, w.len, w.count), 0);
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, w.len, w.count), 0);
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, w.len, w.count), -SPATE_E_NO_MEMORY);
	CHECK_EQ_INT(spate_peer_chan_in_flight(a), 2);
	CHECK_EQ_INT(spate_peer_chan_last_seq(a), 2);
	CHECK(!spate_peer_chan_acked(a, 1) && !spate_peer_chan_acked(a, 2));

	/* first frame: sent at t=0, not again before rto, again after */
	size_t n1 = spate_peer_chan_poll(a, 0, out, sizeof(out));
	CHECK(n1 > 0);
	CHECK_EQ_INT(spate_peer_decode(out, n1, &lim, &h), 0);
	CHECK(h.seq == 1 && h.ack == 0 && h.sack == 0);
	CHECK(spate_peer_chan_poll(a, 0, out, sizeof(out)) > 0); /* seq 2 */
	CHECK_EQ_INT(spate_peer_chan_poll(a, 99, out, sizeof(out)), 0);
	CHECK(spate_peer_chan_poll(a, 100, out, sizeof(out)) > 0); /* seq 1 again */
	CHECK_EQ_INT(spate_peer_decode(out, SPATE_PEER_OVERHEAD + w.len, &lim, &h), 0);
	CHECK_EQ_INT(h.seq, 1);
	/* backoff: the next try of seq 1 waits 2 rto */
	spate_peer_chan_poll(a, 100, out, sizeof(out)); /* seq 2 again */
	CHECK_EQ_INT(spate_peer_chan_poll(a, 299, out, sizeof(out)), 0);

	/* B gets seq 2 first: buffered, sacked, nothing delivered */
	static uint8_t f2[SPATE_PEER_FRAME_MAX];
	size_t n2 = spate_peer_chan_poll(a, 300, f2, sizeof(f2));
	CHECK_EQ_INT(spate_peer_decode(f2, n2, &lim, &h), 0);
	CHECK_EQ_INT(h.seq, 1);
	static uint8_t f3[SPATE_PEER_FRAME_MAX];
	size_t n3 = spate_peer_chan_poll(a, 300, f3, sizeof(f3));
	struct spate_peer_hdr h3;
	CHECK_EQ_INT(spate_peer_decode(f3, n3, &lim, &h3), 0);
	CHECK_EQ_INT(h3.seq, 2);
	CHECK_EQ_INT(spate_peer_chan_receive(b, f3, &h3, count_deliver, NULL), 0);
	size_t na = spate_peer_chan_poll(b, 300, out, sizeof(out));
	CHECK_EQ_INT(spate_peer_decode(out, na, &lim, &h), 0);
	CHECK(h.count == 0 && h.ack == 0 && h.sack == 1);
	CHECK_EQ_INT(spate_peer_chan_receive(a, out, &h, count_deliver, NULL), 0);
	/* seq 2 sacked: held there, not delivered: not acknowledged yet */
	CHECK(!spate_peer_chan_acked(a, 2));
	/* seq 2 sacked: only seq 1 is resent */
	size_t nr = spate_peer_chan_poll(a, 10000, out, sizeof(out));
	CHECK_EQ_INT(spate_peer_decode(out, nr, &lim, &h), 0);
	CHECK_EQ_INT(h.seq, 1);
	CHECK_EQ_INT(spate_peer_chan_poll(a, 10000, out, sizeof(out)), 0);
	/* seq 1 arrives: both delivered, in order; a duplicate is not */
	struct spate_peer_hdr h2;
	CHECK_EQ_INT(spate_peer_decode(f2, n2, &lim, &h2), 0);
	CHECK_EQ_INT(spate_peer_chan_receive(b, f2, &h2, count_deliver, NULL), 2);
	CHECK_EQ_INT(spate_peer_chan_receive(b, f2, &h2, count_deliver, NULL), 0);
	CHECK_EQ_INT(spate_peer_chan_receive(b, f3, &h3, count_deliver, NULL), 0);
	CHECK_EQ_INT(n_delivered, 2);
	CHECK_EQ_INT(spate_peer_chan_stats(b)->duplicates, 2);
	na = spate_peer_chan_poll(b, 10000, out, sizeof(out));
	CHECK_EQ_INT(spate_peer_decode(out, na, &lim, &h), 0);
	CHECK(h.ack == 2 && h.sack == 0);
	CHECK_EQ_INT(spate_peer_chan_receive(a, out, &h, count_deliver, NULL), 0);
	CHECK_EQ_INT(spate_peer_chan_in_flight(a), 0);
	CHECK(spate_peer_chan_acked(a, 1) && spate_peer_chan_acked(a, 2) &&
	      !spate_peer_chan_acked(a, 3));

	/* an ack of a frame never sent is ignored and counted */
	h.ack = 7;
	CHECK_EQ_INT(spate_peer_chan_receive(a, out, &h, count_deliver, NULL), 0);
	CHECK_EQ_INT(spate_peer_chan_stats(a)->bad_acks, 1);
	/* wrong hosts, stale and newer epochs */
	h.src_host = 3;
	CHECK_EQ_INT(spate_peer_chan_receive(a, out, &h, count_deliver, NULL), -SPATE_E_BAD_ID);
	h.src_host = 2;
	h.src_epoch = 5;
	CHECK_EQ_INT(spate_peer_chan_receive(a, out, &h, count_deliver, NULL),
		     -SPATE_E_AUTH_REPLAY);
	CHECK_EQ_INT(spate_peer_chan_newer_epoch(a), 0);
	h.src_epoch = 8;
	CHECK_EQ_INT(spate_peer_chan_receive(a, out, &h, count_deliver, NULL),
		     -SPATE_E_AUTH_REPLAY);
	CHECK_EQ_INT(spate_peer_chan_newer_epoch(a), 8);
	h.src_epoch = 6;
	h.dst_epoch = 4;
	CHECK_EQ_INT(spate_peer_chan_receive(a, out, &h, count_deliver, NULL),
		     -SPATE_E_AUTH_REPLAY);
	CHECK_EQ_INT(spate_peer_chan_stats(a)->stale, 3);

	/* B restarts as epoch 8: A resets, loses its one unacked frame, and
	 * the new pair starts at seq 1; an old frame of B's is stale */
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, w.len, w.count), 0);
	CHECK_EQ_INT(spate_peer_chan_reset(a, 8), 1);
	CHECK_EQ_INT(spate_peer_chan_in_flight(a), 0);
	CHECK_EQ_INT(spate_peer_chan_receive(a, f3, &h3, count_deliver, NULL), -SPATE_E_BAD_ID);
	struct spate_peer_chan *b2 = spate_peer_chan_create(2, 8, 1, 5, 2, 100);
	CHECK_EQ_INT(spate_peer_chan_receive(b2, f3, &h3, count_deliver, NULL),
		     -SPATE_E_AUTH_REPLAY);
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, w.len, w.count), 0);
	n1 = spate_peer_chan_poll(a, 20000, out, sizeof(out));
	CHECK_EQ_INT(spate_peer_decode(out, n1, &lim, &h), 0);
	CHECK(h.seq == 1 && h.dst_epoch == 8);
	n_delivered = 0;
	CHECK_EQ_INT(spate_peer_chan_receive(b2, out, &h, count_deliver, NULL), 1);
	CHECK_EQ_INT(n_delivered, 1);
	/* a frame a whole window ahead is dropped (and acked again) */
	h.seq += 3; /* window 2: seq 4 is beyond 2..3 */
	CHECK_EQ_INT(spate_peer_chan_receive(b2, out, &h, count_deliver, NULL), 0);
	CHECK_EQ_INT(spate_peer_chan_stats(b2)->out_of_window, 1);
	CHECK(spate_peer_chan_poll(b2, 20000, out, sizeof(out)) == SPATE_PEER_OVERHEAD);
	CHECK_EQ_INT(n_delivered, 1);

	/* a keepalive: nothing owed, nothing sent; owed, one pure ack that
	 * the peer accepts (its liveness), carrying the current ack; once */
	CHECK_EQ_INT(spate_peer_chan_poll(b2, 30000, out, sizeof(out)), 0);
	spate_peer_chan_owe_ack(b2);
	na = spate_peer_chan_poll(b2, 30000, out, sizeof(out));
	CHECK_EQ_INT(na, SPATE_PEER_OVERHEAD);
	CHECK_EQ_INT(spate_peer_decode(out, na, &lim, &h), 0);
	CHECK(h.count == 0 && h.seq == 0 && h.ack == 1 && h.src_epoch == 8 && h.dst_epoch == 5);
	CHECK_EQ_INT(spate_peer_chan_poll(b2, 30000, out, sizeof(out)), 0);
	uint64_t rx0 = spate_peer_chan_stats(a)->received;
	CHECK_EQ_INT(spate_peer_chan_receive(a, out, &h, count_deliver, NULL), 0);
	CHECK(spate_peer_chan_stats(a)->received == rx0 + 1);
	CHECK_EQ_INT(spate_peer_chan_in_flight(a), 0);

	spate_peer_chan_destroy(a);
	spate_peer_chan_destroy(b);
	spate_peer_chan_destroy(b2);
}

/* ---- round-trip time ---- */

/* A frame sent at 1000 and acked in a frame that arrives at 5000 (after
 * A's poll at 3000): one sample of 4000. A retransmitted frame gives none
 * (Karn). */
static void test_chan_rtt(void)
{
	static uint8_t body[64], out[SPATE_PEER_FRAME_MAX], ack[SPATE_PEER_FRAME_MAX];
	struct spate_peer_chan *a = spate_peer_chan_create(1, 5, 2, 6, 4, 10000);
	struct spate_peer_chan *b = spate_peer_chan_create(2, 6, 1, 5, 4, 10000);
	struct spate_peer_writer w;
	struct spate_peer_hdr h;

	spate_peer_writer_init(&w, body, sizeof(body));
	spate_peer_put_merge(&w, 1, 2);
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, w.len, w.count), 0);
	size_t n = spate_peer_chan_poll(a, 1000, out, sizeof(out));
	CHECK_EQ_INT(spate_peer_decode(out, n, &lim, &h), 0);
	CHECK_EQ_INT(spate_peer_chan_receive(b, out, &h, count_deliver, NULL), 1);
	n = spate_peer_chan_poll(b, 2000, ack, sizeof(ack));
	CHECK(n > 0);
	CHECK_EQ_INT(spate_peer_chan_poll(a, 3000, out, sizeof(out)), 0);
	spate_peer_chan_clock(a, 5000); /* the ack comes in at 5000 */
	CHECK_EQ_INT(spate_peer_decode(ack, n, &lim, &h), 0);
	CHECK_EQ_INT(spate_peer_chan_receive(a, ack, &h, count_deliver, NULL), 0);
	const struct spate_peer_chan_stats *st = spate_peer_chan_stats(a);
	CHECK(st->rtt_samples == 1 && st->rtt_last_ns == 4000 && st->rtt_srtt_ns == 4000 &&
	      st->rtt_min_ns == 4000);
	/* sent twice (the first copy lost): its ack is no sample */
	CHECK_EQ_INT(spate_peer_chan_queue(a, body, w.len, w.count), 0);
	spate_peer_chan_poll(a, 6000, out, sizeof(out));
	n = spate_peer_chan_poll(a, 16000, out, sizeof(out));
	CHECK_EQ_INT(spate_peer_decode(out, n, &lim, &h), 0);
	CHECK_EQ_INT(h.seq, 2);
	spate_peer_chan_receive(b, out, &h, count_deliver, NULL);
	n = spate_peer_chan_poll(b, 16200, ack, sizeof(ack));
	spate_peer_chan_poll(a, 17000, out, sizeof(out));
	CHECK_EQ_INT(spate_peer_decode(ack, n, &lim, &h), 0);
	spate_peer_chan_receive(a, ack, &h, count_deliver, NULL);
	CHECK_EQ_INT(spate_peer_chan_in_flight(a), 0);
	CHECK_EQ_INT(st->rtt_samples, 1);
	spate_peer_chan_destroy(a);
	spate_peer_chan_destroy(b);
}

/* ---- the placement map ---- */

static void test_map(void)
{
	struct spate_peer_place e[4] = { { 1, 2, 0 },
					 { 7, 3, 5 },
					 { 0x80000000u, 2, 65535 },
					 { 0xffffffffu, 9, 1 } },
				d[4];
	uint8_t buf[64], mut[64];
	uint32_t n = 99;

	size_t len = spate_peer_map_encode(buf, sizeof(buf), e, 4);
	CHECK_EQ_INT(len, spate_peer_map_size(4));
	CHECK_EQ_INT(spate_peer_map_decode(buf, len, d, 4, &n), 0);
	CHECK(n == 4 && memcmp(e, d, sizeof(e)) == 0);
	CHECK_EQ_INT(spate_peer_map_encode(buf, len - 1, e, 4), 0);
	/* empty map */
	CHECK_EQ_INT(spate_peer_map_encode(mut, sizeof(mut), e, 0), 8);
	CHECK_EQ_INT(spate_peer_map_decode(mut, 8, d, 0, &n), 0);
	CHECK_EQ_INT(n, 0);
	/* refusals */
	CHECK_EQ_INT(spate_peer_map_decode(buf, len, d, 3, &n), -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(spate_peer_map_decode(buf, 7, d, 4, &n), -SPATE_E_TRUNCATED);
	CHECK_EQ_INT(spate_peer_map_decode(buf, len - 1, d, 4, &n), -SPATE_E_BAD_LENGTH);
	memcpy(mut, buf, len);
	mut[0] = 'X';
	CHECK_EQ_INT(spate_peer_map_decode(mut, len, d, 4, &n), -SPATE_E_BAD_MAGIC);
	memcpy(mut, buf, len);
	spate_put_be32(mut + 4, 0x1999999au); /* count * 10 wraps in 32 bits */
	CHECK_EQ_INT(spate_peer_map_decode(mut, len, d, 4, &n), -SPATE_E_BAD_LENGTH);
	memcpy(mut, buf, len);
	spate_put_be32(mut + 8 + 10 + 4, 0); /* host 0 */
	CHECK_EQ_INT(spate_peer_map_decode(mut, len, d, 4, &n), -SPATE_E_BAD_ID);
	CHECK_EQ_INT(n, 0);
	memcpy(mut, buf, len);
	spate_put_be32(mut + 8 + 10, 1); /* duplicate category */
	CHECK_EQ_INT(spate_peer_map_decode(mut, len, d, 4, &n), -SPATE_E_BAD_ID);
	e[1].cat = 0; /* unsorted: the encoder refuses too */
	CHECK_EQ_INT(spate_peer_map_encode(buf, sizeof(buf), e, 4), 0);
}

int main(void)
{
	test_create_bytes();
	spate_limits_default(&lim);
	fill_samples();
	test_round_trip();
	test_malformed();
	test_chan_edges();
	test_chan_rtt();
	test_map();
	test_link();
	return check_summary("test_peer");
}
