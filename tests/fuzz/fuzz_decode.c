/* fuzz_decode.c - libFuzzer target for the wire decoder.
 *
 * For any input: the header decode and the reader loop must terminate
 * without reading out of bounds (ASan/UBSan say so), and every message
 * they accept must re-encode to exactly its original bytes (the format
 * has one encoding per value: reserved fields are 0 and lengths exact)
 * and decode again to the same fields. Runs twice, with the default
 * limits and with limits above the hard maxima, so the decoder's caps on
 * its fixed arrays are exercised too. A mismatch aborts.
 *
 * Built with -DSPATE_FUZZ_SEEDS instead, it is a plain program writing a
 * seed corpus of valid datagrams (every type) into the directory argv[1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto_cmp.h"
#include "proto/spate_proto.h"

static uint8_t enc[65535];
static uint64_t ids[65535 / 8];
static struct spate_msg m1, m2; /* a few KB each: static */

static void fail(const char *what, const struct spate_msg *m)
{
	fprintf(stderr, "fuzz_decode: %s (type %u, id %llu)\n", what, m->type,
		(unsigned long long)m->id);
	abort();
}

/* Encode m as the only message of a datagram; its length, or 0. */
static size_t reencode(const struct spate_hdr *h, const struct spate_msg *m)
{
	struct spate_writer w;
	int rc = -1;

	/* Without the auth flag: the writer adds no trailer (signing is
	 * spate_auth's job), and the message bytes are the same. */
	spate_writer_init(&w, enc, sizeof(enc), h->flags & ~SPATE_FLAG_AUTH, h->client_id, h->seq);
	switch (m->type) {
	case SPATE_MSG_EVENT:
		rc = spate_put_event(&w, &m->u.ev);
		break;
	case SPATE_MSG_SUB_ADD:
		rc = spate_put_sub_add(&w, &m->u.sub);
		break;
	case SPATE_MSG_SUB_DEL:
		rc = spate_put_sub_del(&w, m->id);
		break;
	case SPATE_MSG_ACK:
		rc = spate_put_ack(&w, m->u.ack.req_type, m->u.ack.req_seq, m->u.ack.id);
		break;
	case SPATE_MSG_NACK:
		rc = spate_put_nack(&w, m->u.ack.req_type, m->u.ack.code, m->u.ack.req_seq,
				    m->u.ack.id);
		break;
	case SPATE_MSG_NOTIFY:
		for (uint16_t i = 0; i < m->u.notify.n_subs; i++)
			ids[i] = spate_notify_id(&m->u.notify, i);
		rc = spate_put_notify(&w, m->u.notify.event_id, ids, m->u.notify.n_subs);
		break;
	}
	if (rc != 0)
		fail("accepted message does not re-encode", m);
	return spate_writer_finish(&w);
}

static void check_round_trip(const struct spate_hdr *h, const struct spate_limits *lim,
			     const uint8_t *orig, size_t orig_len)
{
	size_t n = reencode(h, &m1);
	struct spate_hdr h2;
	struct spate_reader r;

	if (n != SPATE_HDR_LEN + orig_len || memcmp(enc + SPATE_HDR_LEN, orig, orig_len) != 0)
		fail("re-encoding differs from the original bytes", &m1);
	if (spate_hdr_decode(enc, n, lim, &h2) != 0 || h2.count != 1 ||
	    h2.flags != (h->flags & ~SPATE_FLAG_AUTH) || h2.client_id != h->client_id ||
	    h2.seq != h->seq)
		fail("re-encoded header does not decode", &m1);
	spate_reader_init(&r, enc, n, &h2);
	if (spate_reader_next(&r, lim, &m2) != 1)
		fail("re-encoded message does not decode", &m1);
	if (!cmp_msg(&m1, &m2))
		fail("decoded fields differ after a round trip", &m1);
	if (spate_reader_next(&r, lim, &m2) != 0)
		fail("re-encoded datagram has more than one message", &m1);
}

static void run(const uint8_t *data, size_t size, const struct spate_limits *lim)
{
	struct spate_hdr h;
	struct spate_reader r;
	int rc;

	if (spate_hdr_decode(data, size, lim, &h) != 0)
		return;
	spate_reader_init(&r, data, size, &h);
	for (uint32_t steps = 0;; steps++) {
		const uint8_t *start = r.p;

		/* each call consumes a message or ends: count+1 calls at most */
		if (steps > (uint32_t)h.count + 1)
			fail("reader does not end", &m1);
		rc = spate_reader_next(&r, lim, &m1);
		if (r.p < start || r.p > r.end)
			fail("reader cursor left the datagram", &m1);
		if (rc == 0)
			break;
		if (rc == 1)
			check_round_trip(&h, lim, start, (size_t)(r.p - start));
		else if (rc >= 0 || -rc >= SPATE_E__COUNT)
			fail("reader returned an unknown code", &m1);
	}
	if (spate_reader_next(&r, lim, &m1) != 0)
		fail("reader restarted after its end", &m1);
}

#include "fuzz_limits.h"

#ifdef SPATE_FUZZ_SEEDS
/* ---- the seed corpus ---- */
#include "fuzz_seed.h"

int main(int argc, char **argv)
{
	static uint8_t buf[SPATE_DGRAM_MAX];
	static struct spate_raw_event ev;
	static struct spate_raw_sub sub;
	struct spate_writer w;
	uint64_t few[5] = { 1, 2, 3, 1ull << 40, UINT64_MAX };
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	ev = (struct spate_raw_event){
		.id = 42, .lon = 1453920000, .lat = -60816900, .n_kw = 2, .n_attr = 2
	};
	ev.kw[0] = spate_str_of("iata:gka");
	ev.kw[1] = spate_str_of("caf\xc3\xa9");
	ev.attr[0] = (struct spate_raw_attr){ spate_str_of("altitude_ft"), 5282 };
	ev.attr[1] = (struct spate_raw_attr){ spate_str_of("x.y"), -0.5 };
	sub = (struct spate_raw_sub){ .id = 1001,
				      .rect = { -1800000000, -900000000, 1800000000, 900000000 },
				      .dest = { 0xc0000207, 47200 },
				      .n_kw = 1,
				      .n_cons = 2 };
	sub.kw[0] = spate_str_of("type:airport");
	sub.cons[0] =
		(struct spate_raw_constraint){ spate_str_of("altitude_ft"), SPATE_OP_GE, 5000 };
	sub.cons[1] = (struct spate_raw_constraint){ spate_str_of("r"), SPATE_OP_NE, 1e300 };

	for (int t = 0; t <= SPATE_MSG_TYPE_MAX; t++) {
		char name[32];

		spate_writer_init(&w, buf, sizeof(buf), t >= SPATE_MSG_ACK ? SPATE_FLAG_SERVER : 0,
				  7, (uint32_t)t);
		if (t == 0 || t == SPATE_MSG_EVENT)
			spate_put_event(&w, &ev);
		if (t == 0 || t == SPATE_MSG_SUB_ADD)
			spate_put_sub_add(&w, &sub);
		if (t == 0 || t == SPATE_MSG_SUB_DEL)
			spate_put_sub_del(&w, 1001);
		if (t == 0 || t == SPATE_MSG_ACK)
			spate_put_ack(&w, SPATE_MSG_SUB_ADD, 2, 1001);
		if (t == 0 || t == SPATE_MSG_NACK)
			spate_put_nack(&w, SPATE_MSG_SUB_ADD, SPATE_E_INVERTED_RECT, 4, 1004);
		if (t == 0 || t == SPATE_MSG_NOTIFY)
			spate_put_notify(&w, 42, few, 5);
		snprintf(name, sizeof(name), "type-%d", t);
		size_t n = spate_writer_finish(&w);
		bad |= write_seed(argv[1], t ? name : "all-types", buf, n);
		if (t == 0)
			continue;
		/* every length and count of the one message at its edges: the
		 * datagram's length and count, the message length, the
		 * EVENT's and SUB_ADD's keyword/attribute/constraint counts,
		 * NOTIFY's id count, every string's length byte */
		static const char *const strs[] = { "iata:gka", "caf\xc3\xa9",  "altitude_ft",
						    "x.y",      "type:airport", "r" };
		const size_t b = SPATE_HDR_LEN + SPATE_MSG_HDR_LEN;
		struct seed_field f[32] = { { 4, 2 }, { 6, 2 }, { SPATE_HDR_LEN + 2, 2 } };
		size_t nf = 3;
		if (t == SPATE_MSG_EVENT) {
			f[nf++] = (struct seed_field){ b + 16, 1 };
			f[nf++] = (struct seed_field){ b + 17, 1 };
		} else if (t == SPATE_MSG_SUB_ADD) {
			f[nf++] = (struct seed_field){ b + 30, 1 };
			f[nf++] = (struct seed_field){ b + 31, 1 };
		} else if (t == SPATE_MSG_NOTIFY) {
			f[nf++] = (struct seed_field){ b + 8, 2 };
		}
		nf = find_length_bytes(buf, n, strs, sizeof(strs) / sizeof(strs[0]), f, nf, 32);
		bad |= write_field_edges(argv[1], name, buf, n, f, nf);
	}
	/* a full datagram of NOTIFY ids */
	static uint64_t many[SPATE_DGRAM_MAX / 8];
	spate_writer_init(&w, buf, sizeof(buf), SPATE_FLAG_SERVER, 0, 9);
	spate_put_notify(&w, 1, many, spate_notify_room(&w));
	bad |= write_seed(argv[1], "notify-full", buf, spate_writer_finish(&w));

	/* an unknown type (99) before a valid EVENT */
	spate_writer_init(&w, buf, sizeof(buf), 0, 7, 10);
	spate_put_sub_del(&w, 5);
	spate_put_event(&w, &ev);
	size_t n = spate_writer_finish(&w);
	buf[SPATE_HDR_LEN] = 99;
	bad |= write_seed(argv[1], "unknown-type", buf, n);

	/* at the limits (the defaults), each at max and max + 1 (refused
	 * with the default limits, accepted with the fuzzer's high ones):
	 * 16 and 17 keywords, a 64- and a 65-byte keyword, 16 and 17
	 * attributes, a 32- and a 33-byte name */
	static char kws[SPATE_KW_MAX_HARD][256], names[SPATE_ATTR_MAX_HARD][256];
	struct spate_limits lim;
	spate_limits_default(&lim);
	for (int variant = 0; variant < 8; variant++) {
		int plus = variant & 1, what = variant / 2;
		uint32_t nkw = what == 0 ? lim.max_keywords + (uint32_t)plus : 1;
		uint32_t kwlen = what == 1 ? lim.max_keyword_len + (uint32_t)plus : 4;
		uint32_t nattr = what == 2 ? lim.max_attrs + (uint32_t)plus : 1;
		uint32_t nlen = what == 3 ? lim.max_name_len + (uint32_t)plus : 4;
		ev.n_kw = (uint16_t)nkw;
		ev.n_attr = (uint16_t)nattr;
		for (uint32_t i = 0; i < nkw; i++) {
			memset(kws[i], 'k', kwlen);
			kws[i][kwlen] = '\0';
			kws[i][0] = (char)('a' + (int)(i % 26));
			ev.kw[i] = spate_str_of(kws[i]);
		}
		for (uint32_t i = 0; i < nattr; i++) {
			memset(names[i], 'n', nlen);
			names[i][nlen] = '\0';
			names[i][0] = (char)('a' + (int)i);
			ev.attr[i] = (struct spate_raw_attr){ spate_str_of(names[i]), (double)i };
		}
		char name[32];
		spate_writer_init(&w, buf, sizeof(buf), 0, 7, 20);
		if (spate_put_event(&w, &ev) != 0) {
			fprintf(stderr, "limits seed %d does not encode\n", variant);
			return 1;
		}
		snprintf(name, sizeof(name), "event-limits-%d", variant);
		bad |= write_seed(argv[1], name, buf, spate_writer_finish(&w));
	}
	/* as many messages as the default limit (64 SUB_DELs) and one more */
	for (int extra = 0; extra < 2; extra++) {
		spate_writer_init(&w, buf, sizeof(buf), 0, 7, 21);
		for (uint32_t i = 0; i < lim.max_messages + (uint32_t)extra; i++)
			spate_put_sub_del(&w, i + 1);
		bad |= write_seed(argv[1], extra ? "max-messages-plus-1" : "max-messages", buf,
				  spate_writer_finish(&w));
	}
	return bad ? 1 : 0;
}
#endif
