/* fuzz_peer.c - libFuzzer target for the inter-host frame decoder
 * (spate_peer.h) and the reliable channel's receive path.
 *
 * For any input: spate_peer_decode must terminate without reading out of
 * bounds (ASan/UBSan say so); when it accepts a frame, every message must
 * re-encode to exactly its original bytes (one encoding per value) and
 * decode again to the same fields, and the frame handed to a channel
 * between its two hosts (with frames of its own in flight, so the acks
 * have something to act on) must leave the channel sane: no more in flight
 * than the window, at most one delivery of a frame it was given. A
 * mismatch aborts.
 *
 * Built with -DSPATE_FUZZ_SEEDS instead, it is a plain program writing a
 * seed corpus of valid frames into the directory argv[1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_cmp.h"
#include "peer/spate_peer_chan.h"

static uint8_t enc[SPATE_PEER_BODY_MAX];

static void fail(const char *what, const struct spate_peer_msg *m)
{
	fprintf(stderr, "fuzz_peer: %s (type %u, cat %u)\n", what, m->type, m->cat);
	abort();
}

static void check_message(const struct spate_peer_msg *m, const struct spate_limits *lim,
			  const uint8_t *orig, size_t orig_len)
{
	static struct spate_peer_msg m2;
	struct spate_peer_writer w;
	struct spate_peer_reader r;

	spate_peer_writer_init(&w, enc, sizeof(enc));
	if (peer_reencode(&w, m) != 0)
		fail("accepted message does not re-encode", m);
	if (w.len != orig_len || memcmp(enc, orig, orig_len) != 0)
		fail("re-encoding differs from the original bytes", m);
	spate_peer_reader_init(&r, enc, w.len, w.count);
	if (spate_peer_next(&r, lim, &m2) != 1 || !cmp_peer_msg(m, &m2))
		fail("re-encoded message decodes differently", m);
	if (spate_peer_next(&r, lim, &m2) != 0)
		fail("re-encoded body has more than one message", m);
}

static int deliveries;
static void on_deliver(void *ctx, const uint8_t *body, size_t len, uint16_t count)
{
	(void)ctx, (void)body, (void)len, (void)count;
	deliveries++;
}

static void check_channel(const uint8_t *data, const struct spate_peer_hdr *h)
{
	static uint8_t out[SPATE_PEER_FRAME_MAX];
	static const uint8_t merge[] = { SPATE_PEER_MERGE, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 2 };
	/* dst_epoch 0 is a static peer's hello: the codec takes it in a pure
	 * ack only, and a channel (which always knows its own epoch) refuses
	 * it, delivering nothing; the link stage answers hellos itself. */
	int hello = h->dst_epoch == 0;
	if (hello && h->count != 0)
		abort();
	struct spate_peer_chan *ch =
		spate_peer_chan_create(h->dst_host, hello ? 1 : h->dst_epoch, h->src_host,
				       h->src_epoch, SPATE_PEER_WINDOW_MAX, 10);
	if (!ch)
		abort(); /* a decoded header always names a valid pair */
	for (int i = 0; i < 5; i++)
		spate_peer_chan_queue(ch, merge, sizeof(merge), 1);
	for (uint64_t t = 0; t < 3; t++)
		while (spate_peer_chan_poll(ch, t * 10, out, sizeof(out)))
			;
	deliveries = 0;
	int rc = spate_peer_chan_receive(ch, data, h, on_deliver, NULL);
	if (hello) {
		if (rc >= 0 || deliveries != 0)
			abort();
		spate_peer_chan_destroy(ch);
		return;
	}
	if (rc != deliveries || rc > 1 || (rc == 1 && h->count == 0))
		abort();
	/* the same frame again is a duplicate */
	if (spate_peer_chan_receive(ch, data, h, on_deliver, NULL) != 0 || deliveries != rc)
		abort();
	if (spate_peer_chan_in_flight(ch) > 5)
		abort();
	while (spate_peer_chan_poll(ch, 1000, out, sizeof(out)))
		;
	spate_peer_chan_destroy(ch);
}

static void run(const uint8_t *data, size_t size, const struct spate_limits *lim)
{
	static struct spate_peer_msg m;
	struct spate_peer_hdr h;
	struct spate_peer_reader r;

	if (spate_peer_decode(data, size, lim, &h) != 0)
		return;
	spate_peer_reader_init(&r, spate_peer_body(data), spate_peer_body_len(&h), h.count);
	for (uint32_t i = 0; i < h.count; i++) {
		const uint8_t *start = r.p;
		if (spate_peer_next(&r, lim, &m) != 1)
			fail("message of an accepted frame refused", &m);
		check_message(&m, lim, start, (size_t)(r.p - start));
	}
	if (spate_peer_next(&r, lim, &m) != 0)
		fail("accepted frame has more messages than counted", &m);
	check_channel(data, &h);
}

#include "fuzz_limits.h"

#ifdef SPATE_FUZZ_SEEDS
/* ---- the seed corpus ---- */
#include "fuzz_seed.h"

static uint8_t body[SPATE_PEER_BODY_MAX], frame[SPATE_PEER_FRAME_MAX];

static int write_frame(const char *dir, const char *name, const struct spate_peer_writer *w,
		       uint32_t seq, uint32_t dst_epoch)
{
	struct spate_peer_hdr h = { .length = (uint16_t)(SPATE_PEER_OVERHEAD + w->len),
				    .count = w->count,
				    .src_host = 1,
				    .src_epoch = 3,
				    .dst_host = 2,
				    .dst_epoch = dst_epoch,
				    .seq = w->count ? seq : 0,
				    .ack = 2,
				    .sack = 5 };
	spate_peer_hdr_encode(frame, &h);
	memcpy(frame + SPATE_PEER_HDR_LEN, w->buf, w->len);
	memset(frame + SPATE_PEER_HDR_LEN + w->len, 0, SPATE_PEER_TAG_LEN); /* unsigned */
	if (write_seed(dir, name, frame, h.length) != 0)
		return -1;
	/* its boundary variants: the frame's length and count, each
	 * message's length, every string's length byte */
	static const char *const strs[] = { "iata:gka", "altitude_ft", "type:airport" };
	static struct seed_field f[1024];
	size_t nf = 0;
	f[nf++] = (struct seed_field){ 4, 2 };
	f[nf++] = (struct seed_field){ 6, 2 };
	for (size_t at = 0; at + SPATE_PEER_MSG_HDR_LEN <= w->len && nf < 14;) { /* the first 12 */
		uint16_t mlen = (uint16_t)(w->buf[at + 2] << 8 | w->buf[at + 3]);
		f[nf++] = (struct seed_field){ SPATE_PEER_HDR_LEN + at + 2, 2 };
		if (mlen < SPATE_PEER_MSG_HDR_LEN)
			break;
		at += mlen;
	}
	nf = find_length_bytes(frame, h.length, strs, sizeof(strs) / sizeof(strs[0]), f, nf, 1024);
	return write_field_edges(dir, name, frame, h.length, f, nf);
}

int main(int argc, char **argv)
{
	static struct spate_raw_event ev;
	static struct spate_raw_sub sub;
	static uint32_t cats[SPATE_PEER_CATS_MAX];
	struct spate_peer_reply rep = { 0x7f000001, 47101, SPATE_MSG_SUB_ADD, 9 };
	struct spate_peer_writer w;
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	static const int32_t rect[4] = { -10, -10, 10, 10 };
	peer_samples(&ev, &sub, rect);
	for (uint32_t i = 0; i < SPATE_PEER_CATS_MAX; i++)
		cats[i] = i * 7;

	spate_peer_writer_init(&w, body, sizeof(body));
	spate_peer_put_event(&w, 1, 2, cats, 3, &ev);
	spate_peer_put_create(&w, 5, 1);
	spate_peer_put_sub_add(&w, 5, 3, &rep, &sub);
	rep.req_type = SPATE_MSG_SUB_DEL;
	spate_peer_put_sub_del(&w, 5, 1, &rep, 1001);
	spate_peer_put_ack(&w, 5, &rep, 1001);
	spate_peer_put_merge(&w, 5, 6);
	spate_peer_put_move(&w, 5, 3, 1, 10);
	spate_peer_put_expect(&w, 5, 2, 1, 10);
	spate_peer_put_handoff_sub(&w, 5, 0, &sub);
	spate_peer_put_handoff_end(&w, 5, 1, 10);
	spate_peer_put_feedback(&w, 1, 2, cats, 2);
	bad |= write_frame(argv[1], "all-types", &w, 3, 4);

	spate_peer_writer_init(&w, body, sizeof(body));
	bad |= write_frame(argv[1], "pure-ack", &w, 0, 4);
	/* a static peer's hello: a pure ack naming no epoch of the receiver */
	bad |= write_frame(argv[1], "hello", &w, 0, 0);

	spate_peer_writer_init(&w, body, sizeof(body));
	spate_peer_put_event(&w, 7, 1, cats, SPATE_PEER_CATS_MAX, &ev);
	bad |= write_frame(argv[1], "event-all-cats", &w, 1, 4);

	spate_peer_writer_init(&w, body, sizeof(body));
	while (spate_peer_put_merge(&w, 1, 2) == 0)
		;
	bad |= write_frame(argv[1], "full-of-merges", &w, 2, 4);
	return bad ? 1 : 0;
}
#endif
