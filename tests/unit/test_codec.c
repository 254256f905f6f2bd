/* test_codec.c - the wire codec's own smoke test: every message type round
 * trips, every truncation of a valid datagram is refused, framing errors
 * are caught. (tests/proto/ holds the exhaustive tables and the fuzzer.) */
#include <string.h>

#include "check.h"
#include "proto/spate_proto.h"

static struct spate_limits lim;

static size_t build(uint8_t *buf, size_t cap)
{
	struct spate_writer w;
	struct spate_raw_event ev = {
		.id = 42, .lon = -1800000000, .lat = 900000000, .n_kw = 2, .n_attr = 1
	};
	struct spate_raw_sub sub = { .id = UINT64_MAX,
				     .rect = { -5, -6, 7, 8 },
				     .dest = { 0xc6120002, 4000 },
				     .n_kw = 1,
				     .n_cons = 2 };
	uint64_t ids[3] = { 1, 2, 1ull << 60 };

	ev.kw[0] = spate_str_of("caf\xc3\xa9");
	ev.kw[1] = spate_str_of("x:y");
	ev.attr[0] = (struct spate_raw_attr){ spate_str_of("pop"), -0.5 };
	sub.kw[0] = spate_str_of("k");
	sub.cons[0] = (struct spate_raw_constraint){ spate_str_of("pop"), SPATE_OP_GE, 1e6 };
	sub.cons[1] = (struct spate_raw_constraint){ spate_str_of("t"), SPATE_OP_NE, 0 };
	spate_writer_init(&w, buf, cap, 0, 7, 99);
	CHECK_EQ_INT(spate_put_event(&w, &ev), 0);
	CHECK_EQ_INT(spate_put_sub_add(&w, &sub), 0);
	CHECK_EQ_INT(spate_put_sub_del(&w, 5), 0);
	CHECK_EQ_INT(spate_put_ack(&w, SPATE_MSG_SUB_ADD, 3, 4), 0);
	CHECK_EQ_INT(spate_put_nack(&w, SPATE_MSG_SUB_DEL, SPATE_E_UNKNOWN_ID, 5, 6), 0);
	CHECK_EQ_INT(spate_put_notify(&w, 8, ids, 3), 0);
	return spate_writer_finish(&w);
}

static void test_roundtrip(void)
{
	uint8_t buf[1024];
	size_t len = build(buf, sizeof(buf));
	struct spate_hdr h;
	struct spate_reader r;
	struct spate_msg m;

	CHECK_EQ_INT(spate_hdr_decode(buf, len, &lim, &h), 0);
	CHECK(h.count == 6 && h.client_id == 7 && h.seq == 99 && h.length == len);
	spate_reader_init(&r, buf, len, &h);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &m), 1);
	CHECK(m.type == SPATE_MSG_EVENT && m.u.ev.id == 42 && m.u.ev.lon == -1800000000 &&
	      m.u.ev.lat == 900000000 && m.u.ev.n_kw == 2 && m.u.ev.kw[0].len == 5 &&
	      memcmp(m.u.ev.kw[1].p, "x:y", 3) == 0 && m.u.ev.attr[0].value == -0.5);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &m), 1);
	CHECK(m.type == SPATE_MSG_SUB_ADD && m.u.sub.id == UINT64_MAX &&
	      m.u.sub.rect.min_lon == -5 && m.u.sub.rect.max_lat == 8 &&
	      m.u.sub.dest.ipv4 == 0xc6120002 && m.u.sub.dest.port == 4000 && m.u.sub.n_cons == 2 &&
	      m.u.sub.cons[0].op == SPATE_OP_GE && m.u.sub.cons[0].value == 1e6 &&
	      m.u.sub.cons[1].op == SPATE_OP_NE);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &m), 1);
	CHECK(m.type == SPATE_MSG_SUB_DEL && m.id == 5);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &m), 1);
	CHECK(m.type == SPATE_MSG_ACK && m.u.ack.req_type == SPATE_MSG_SUB_ADD &&
	      m.u.ack.req_seq == 3 && m.u.ack.id == 4);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &m), 1);
	CHECK(m.type == SPATE_MSG_NACK && m.u.ack.code == SPATE_E_UNKNOWN_ID && m.u.ack.id == 6);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &m), 1);
	CHECK(m.type == SPATE_MSG_NOTIFY && m.u.notify.event_id == 8 && m.u.notify.n_subs == 3 &&
	      spate_notify_id(&m.u.notify, 2) == 1ull << 60);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &m), 0);
}

/* Decode a whole datagram: the first error, or 0 when all messages pass. */
static int decode_all(const uint8_t *buf, size_t len)
{
	struct spate_hdr h;
	struct spate_reader r;
	struct spate_msg m;
	int rc = spate_hdr_decode(buf, len, &lim, &h);

	if (rc)
		return rc;
	spate_reader_init(&r, buf, len, &h);
	while ((rc = spate_reader_next(&r, &lim, &m)) == 1)
		;
	return rc;
}

static void test_truncations(void)
{
	uint8_t buf[1024], cut[1024];
	size_t len = build(buf, sizeof(buf));

	for (size_t n = 0; n < len; n++) {
		memcpy(cut, buf, n);
		/* as cut, and with the header's length patched to agree */
		CHECK(decode_all(cut, n) < 0);
		if (n >= 6) {
			cut[4] = (uint8_t)(n >> 8);
			cut[5] = (uint8_t)n;
			CHECK(decode_all(cut, n) < 0);
		}
	}
	CHECK_EQ_INT(decode_all(buf, len), 0);
}

static void test_malformed(void)
{
	uint8_t buf[1024];
	size_t len = build(buf, sizeof(buf));

	buf[0] ^= 1;
	CHECK_EQ_INT(decode_all(buf, len), -SPATE_E_BAD_MAGIC);
	buf[0] ^= 1;
	buf[2] = 2;
	CHECK_EQ_INT(decode_all(buf, len), -SPATE_E_BAD_VERSION);
	buf[2] = 1;
	buf[7] = 7; /* one message more than present */
	CHECK_EQ_INT(decode_all(buf, len), -SPATE_E_TRUNCATED);
	buf[7] = 5; /* one fewer */
	CHECK_EQ_INT(decode_all(buf, len), -SPATE_E_TRAILING_DATA);
	buf[7] = 6;
	/* first message (EVENT) mlength one short: its body does not parse */
	buf[SPATE_HDR_LEN + 3]--;
	CHECK(decode_all(buf, len) < 0);
	buf[SPATE_HDR_LEN + 3]++;
	/* event longitude past 180 */
	uint8_t *lon = buf + SPATE_HDR_LEN + 4 + 8;
	uint32_t bad = (uint32_t)(int32_t)-1800000001;
	uint8_t saved[4];
	memcpy(saved, lon, 4);
	lon[0] = (uint8_t)(bad >> 24);
	lon[1] = (uint8_t)(bad >> 16);
	lon[2] = (uint8_t)(bad >> 8);
	lon[3] = (uint8_t)bad;
	CHECK_EQ_INT(decode_all(buf, len), -SPATE_E_BAD_COORD);
	memcpy(lon, saved, 4);
	CHECK_EQ_INT(decode_all(buf, len), 0);
}

static void test_room(void)
{
	uint8_t buf[SPATE_DGRAM_MAX];
	uint64_t ids[400] = { 0 };
	struct spate_writer w;

	spate_writer_init(&w, buf, sizeof(buf), SPATE_FLAG_SERVER, 0, 1);
	uint16_t room = spate_notify_room(&w);
	CHECK_EQ_INT(room, (SPATE_DGRAM_MAX - SPATE_HDR_LEN - 16) / 8);
	CHECK_EQ_INT(spate_put_notify(&w, 1, ids, (uint16_t)(room + 1)), -SPATE_E_NO_MEMORY);
	CHECK_EQ_INT(w.count, 0);
	CHECK_EQ_INT(spate_put_notify(&w, 1, ids, room), 0);
	CHECK_EQ_INT(spate_notify_room(&w), 0);
	CHECK_EQ_INT(spate_put_sub_del(&w, 1), -SPATE_E_NO_MEMORY);
}

int main(void)
{
	spate_limits_default(&lim);
	test_roundtrip();
	test_truncations();
	test_malformed();
	test_room();
	return check_summary("codec");
}
