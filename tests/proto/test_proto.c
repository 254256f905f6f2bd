/* test_proto.c - exhaustive tests of the wire codec (lib/proto/spate_proto.c):
 * golden bytes, round trips of every message type, every truncation of
 * valid datagrams, a table of malformed inputs with their exact codes, a
 * writer out of room, spate_notify_room, and a seeded random round trip.
 *
 * Inputs handed to the decoder are copied to end exactly where an
 * inaccessible page begins, so a read one byte past the end faults in
 * every build, not only under ASan/valgrind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "proto_cmp.h"
#include "proto/spate_proto.h"

static struct spate_limits lim;
static struct spate_msg msg; /* a few KB: not on the stack */

/* The datagram of n bytes in buf: its header decoded under l (a check:
 * it must be accepted; a failure names the caller's line), then what the
 * reader says of its first message (into msg). */
static int first_msg(const uint8_t *buf, size_t n, const struct spate_limits *l,
		     struct spate_hdr *h, struct spate_reader *r, int line)
{
	int rc = spate_hdr_decode(buf, n, l, h);

	check_count++;
	if (rc != 0) {
		fprintf(stderr, "%s:%d: spate_hdr_decode == %d, expected 0\n", __FILE__, line, rc);
		check_failed();
	}
	spate_reader_init(r, buf, n, h);
	return spate_reader_next(r, l, &msg);
}
#define FIRST_MSG(lim_) first_msg(buf, n, lim_, &h, &r, __LINE__)
static char abuf[300]; /* 'a' * 300 for long strings */

static struct spate_str A(uint32_t n) {
	return (struct spate_str){ abuf, n };
}

static void
set16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* ---- sample messages ---- */

static void sample_event(struct spate_raw_event *e)
{
	memset(e, 0, sizeof(*e));
	e->id = 42;
	e->lon = 1453920000;
	e->lat = -60816900;
	e->n_kw = 2;
	e->kw[0] = spate_str_of("iata:gka");
	e->kw[1] = spate_str_of("type:airport");
	e->n_attr = 1;
	e->attr[0] = (struct spate_raw_attr){ spate_str_of("altitude_ft"), 5282 };
}

static void sample_sub(struct spate_raw_sub *s)
{
	memset(s, 0, sizeof(*s));
	s->id = 0x0102030405060708ull;
	s->rect = (struct spate_rect){ 1400000000, -100000000, 1500000000, 0 };
	s->dest = (struct spate_dest){ 0xc0000201, 5000 };
	s->n_kw = 1;
	s->kw[0] = spate_str_of("type:airport");
	s->n_cons = 2;
	s->cons[0] =
		(struct spate_raw_constraint){ spate_str_of("altitude_ft"), SPATE_OP_GE, 1000 };
	s->cons[1] = (struct spate_raw_constraint){ spate_str_of("runways"), SPATE_OP_NE, -0.0 };
}

static const uint64_t sample_ids[3] = { 7, 8, UINT64_MAX };

/* Append one sample message of `type` (0 = one of each). */
static void put_sample(struct spate_writer *w, int type)
{
	struct spate_raw_event e;
	struct spate_raw_sub s;

	sample_event(&e);
	sample_sub(&s);
	if (type == 0 || type == SPATE_MSG_EVENT)
		CHECK_EQ_INT(spate_put_event(w, &e), 0);
	if (type == 0 || type == SPATE_MSG_SUB_ADD)
		CHECK_EQ_INT(spate_put_sub_add(w, &s), 0);
	if (type == 0 || type == SPATE_MSG_SUB_DEL)
		CHECK_EQ_INT(spate_put_sub_del(w, 77), 0);
	if (type == 0 || type == SPATE_MSG_ACK)
		CHECK_EQ_INT(spate_put_ack(w, SPATE_MSG_SUB_ADD, 9, 77), 0);
	if (type == 0 || type == SPATE_MSG_NACK)
		CHECK_EQ_INT(spate_put_nack(w, SPATE_MSG_SUB_DEL, SPATE_E_UNKNOWN_ID, 10, 78), 0);
	if (type == 0 || type == SPATE_MSG_NOTIFY)
		CHECK_EQ_INT(spate_put_notify(w, 42, sample_ids, 3), 0);
}

static size_t frame(uint8_t *buf, size_t cap, int type)
{
	struct spate_writer w;

	spate_writer_init(&w, buf, cap, 0, 7, 1);
	put_sample(&w, type);
	return spate_writer_finish(&w);
}

/* Does msg hold the sample of its type? */
static bool is_sample(const struct spate_msg *m)
{
	struct spate_raw_event e;
	struct spate_raw_sub s;

	switch (m->type) {
	case SPATE_MSG_EVENT:
		sample_event(&e);
		return m->id == 42 && cmp_event(&m->u.ev, &e);
	case SPATE_MSG_SUB_ADD:
		sample_sub(&s);
		return m->id == s.id && cmp_sub(&m->u.sub, &s);
	case SPATE_MSG_SUB_DEL:
		return m->id == 77;
	case SPATE_MSG_ACK:
		return m->u.ack.req_type == SPATE_MSG_SUB_ADD && m->u.ack.code == 0 &&
		       m->u.ack.req_seq == 9 && m->u.ack.id == 77 && m->id == 77;
	case SPATE_MSG_NACK:
		return m->u.ack.req_type == SPATE_MSG_SUB_DEL &&
		       m->u.ack.code == SPATE_E_UNKNOWN_ID && m->u.ack.req_seq == 10 &&
		       m->u.ack.id == 78;
	case SPATE_MSG_NOTIFY:
		return m->u.notify.event_id == 42 && m->u.notify.n_subs == 3 &&
		       spate_notify_id(&m->u.notify, 0) == 7 &&
		       spate_notify_id(&m->u.notify, 1) == 8 &&
		       spate_notify_id(&m->u.notify, 2) == UINT64_MAX;
	}
	return false;
}

/* ---- decoding helpers ---- */

/* A copy of buf that ends right before a PROT_NONE page. */
struct guarded {
	void *map;
	size_t maplen;
};

static uint8_t *guard_copy(const uint8_t *buf, size_t len, struct guarded *g)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (len + pg - 1) / pg * pg;

	g->maplen = data + pg;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED || mprotect((uint8_t *)g->map + data, pg, PROT_NONE) != 0) {
		perror("mmap");
		exit(2);
	}
	uint8_t *p = (uint8_t *)g->map + data - len;
	memcpy(p, buf, len);
	return p;
}

/* The header's error, else the first message error, else 0. *n_ok counts
 * the valid messages. Works on an exact-size copy. */
static int first_err(const uint8_t *in, size_t len, int *n_ok)
{
	struct guarded g;
	uint8_t *buf = guard_copy(in, len, &g);
	struct spate_hdr h;
	struct spate_reader r;
	int rc, first = 0, steps = 0;

	*n_ok = 0;
	rc = spate_hdr_decode(buf, len, &lim, &h);
	if (rc == 0) {
		spate_reader_init(&r, buf, len, &h);
		while ((rc = spate_reader_next(&r, &lim, &msg)) != 0) {
			if (rc == 1)
				(*n_ok)++;
			else if (first == 0)
				first = rc;
			if (++steps > 70000) {
				CHECK(!"reader does not end");
				break;
			}
		}
		rc = first;
	}
	munmap(g.map, g.maplen);
	return rc;
}

/* ---- golden bytes: the encoder against the spec, by hand ---- */

static const uint8_t golden_event[] = {
	0x53, 0x50, 0x01, 0x00, 0x00, 0x52, 0x00, 0x01, /* magic ver flags len count */
	0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, /* client_id 7, seq 1 */
	0x01, 0x00, 0x00, 0x42,                         /* EVENT, mlength 66 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, /* id 42 */
	0x56, 0xa9, 0x0f, 0x00, 0xfc, 0x60, 0x01, 0xfc, /* lon, lat */
	0x02, 0x01, 0x00, 0x00,                         /* n_kw n_attr 0 */
	0x08, 'i',  'a',  't',  'a',  ':',  'g',  'k',  'a',  0x0c, 't',  'y',  'p', 'e', ':',
	'a',  'i',  'r',  'p',  'o',  'r',  't',  0x0b, 'a',  'l',  't',  'i',  't', 'u', 'd',
	'e',  '_',  'f',  't',  0x40, 0xb4, 0xa2, 0x00, 0x00, 0x00, 0x00, 0x00, /* 5282.0 */
};

static void test_golden(void)
{
	uint8_t buf[256];
	size_t n = frame(buf, sizeof(buf), SPATE_MSG_EVENT);
	int ok;

	CHECK_EQ_INT(n, sizeof(golden_event));
	CHECK(n == sizeof(golden_event) && memcmp(buf, golden_event, n) == 0);
	CHECK_EQ_INT(first_err(golden_event, sizeof(golden_event), &ok), 0);
	CHECK_EQ_INT(ok, 1);
	/* first_err's copy is gone: decode in place to look at the strings */
	struct spate_hdr h;
	struct spate_reader r;
	CHECK_EQ_INT(spate_hdr_decode(golden_event, sizeof(golden_event), &lim, &h), 0);
	spate_reader_init(&r, golden_event, sizeof(golden_event), &h);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 1);
	CHECK(is_sample(&msg));
}

/* ---- round trips ---- */

static void test_round_trip(void)
{
	static const int types[] = { SPATE_MSG_EVENT,
				     SPATE_MSG_SUB_ADD,
				     SPATE_MSG_SUB_DEL,
				     SPATE_MSG_ACK,
				     SPATE_MSG_NACK,
				     SPATE_MSG_NOTIFY,
				     0 };
	uint8_t buf[SPATE_DGRAM_MAX];

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		struct spate_writer w;
		struct spate_hdr h;
		struct spate_reader r;
		int want = types[t] ? 1 : SPATE_MSG_TYPE_MAX, seen = 0, rc;

		spate_writer_init(&w, buf, sizeof(buf), SPATE_FLAG_SERVER, 0xdeadbeef, 0xfffffffe);
		put_sample(&w, types[t]);
		size_t n = spate_writer_finish(&w);
		CHECK_EQ_INT(spate_hdr_decode(buf, n, &lim, &h), 0);
		CHECK_EQ_INT(h.version, SPATE_VERSION);
		CHECK_EQ_INT(h.flags, SPATE_FLAG_SERVER);
		CHECK_EQ_INT(h.length, n);
		CHECK_EQ_INT(h.count, want);
		CHECK_EQ_INT(h.client_id, 0xdeadbeef);
		CHECK_EQ_INT(h.seq, 0xfffffffe);
		spate_reader_init(&r, buf, n, &h);
		while ((rc = spate_reader_next(&r, &lim, &msg)) == 1) {
			seen++;
			CHECK(is_sample(&msg));
			CHECK(types[t] == 0 || msg.type == types[t]);
		}
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_INT(seen, want);
		CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 0); /* stays done */
	}
}

static void test_type_names(void)
{
	CHECK(strcmp(spate_msg_type_name(SPATE_MSG_EVENT), "EVENT") == 0);
	CHECK(strcmp(spate_msg_type_name(SPATE_MSG_SUB_ADD), "SUB_ADD") == 0);
	CHECK(strcmp(spate_msg_type_name(SPATE_MSG_SUB_DEL), "SUB_DEL") == 0);
	CHECK(strcmp(spate_msg_type_name(SPATE_MSG_ACK), "ACK") == 0);
	CHECK(strcmp(spate_msg_type_name(SPATE_MSG_NACK), "NACK") == 0);
	CHECK(strcmp(spate_msg_type_name(SPATE_MSG_NOTIFY), "NOTIFY") == 0);
	CHECK(strcmp(spate_msg_type_name(0), "?") == 0);
	CHECK(strcmp(spate_msg_type_name(7), "?") == 0);
	CHECK(strcmp(spate_msg_type_name(99), "?") == 0);
	CHECK(strcmp(spate_msg_type_name(-1), "?") == 0);
}

/* ---- truncations ---- */

static void truncations_of(const uint8_t *buf, size_t n)
{
	uint8_t tmp[SPATE_DGRAM_MAX];
	int ok;

	for (size_t len = 0; len < n; len++) {
		/* The header still announces the full length. */
		CHECK(first_err(buf, len, &ok) != 0);
		if (len < SPATE_HDR_LEN) {
			CHECK_EQ_INT(first_err(buf, len, &ok), -SPATE_E_TRUNCATED);
			continue;
		}
		CHECK_EQ_INT(first_err(buf, len, &ok), -SPATE_E_BAD_LENGTH);
		/* The header agrees with the truncation: the messages must
		 * still be found short. */
		memcpy(tmp, buf, len);
		set16(tmp + 4, (uint16_t)len);
		int rc = first_err(tmp, len, &ok);
		CHECK(rc != 0);
		CHECK(ok < get16(buf + 6));
		if (rc == 0)
			fprintf(stderr, "  truncation to %zu of %zu accepted\n", len, n);
	}
}

static void test_truncations(void)
{
	uint8_t buf[SPATE_DGRAM_MAX];

	for (int type = 0; type <= SPATE_MSG_TYPE_MAX; type++)
		truncations_of(buf, frame(buf, sizeof(buf), type));
}

/* ---- malformed inputs, each with its own code ---- */

/* Offsets in a datagram holding one message (spate_proto.h). */
enum {
	O_FLAGS = 3,
	O_LEN = 4,
	O_COUNT = 6,
	O_TYPE = 16,
	O_MFLAGS = 17,
	O_MLEN = 18,
	O_BODY = 20,
	O_EV_NKW = O_BODY + 16,
	O_EV_RSV = O_BODY + 18,
	O_SUB_NKW = O_BODY + 30,
	O_SUB_NCONS = O_BODY + 31,
	O_NOTIFY_N = O_BODY + 8,
	O_NOTIFY_RSV = O_BODY + 10,
	O_ACK_CODE = O_BODY + 1,
	O_ACK_RSV = O_BODY + 2,
};

static size_t put_one_event(uint8_t *b, const struct spate_raw_event *e)
{
	struct spate_writer w;

	spate_writer_init(&w, b, SPATE_DGRAM_MAX, 0, 7, 1);
	CHECK_EQ_INT(spate_put_event(&w, e), 0);
	return spate_writer_finish(&w);
}

static size_t put_one_sub(uint8_t *b, const struct spate_raw_sub *s)
{
	struct spate_writer w;

	spate_writer_init(&w, b, SPATE_DGRAM_MAX, 0, 7, 1);
	CHECK_EQ_INT(spate_put_sub_add(&w, s), 0);
	return spate_writer_finish(&w);
}

/* Grow the last (only) message and the datagram by `k` zero bytes. */
static size_t grow(uint8_t *b, size_t n, size_t k)
{
	memset(b + n, 0, k);
	set16(b + O_MLEN, (uint16_t)(get16(b + O_MLEN) + k));
	set16(b + O_LEN, (uint16_t)(n + k));
	return n + k;
}

/* Cases: an event or sub built from the sample after `...`, or a sample
 * datagram of TYPE patched by `...` (which may change n). */
#define EV_CASE(fn, ...)                     \
	static size_t fn(uint8_t *b)         \
	{                                    \
		struct spate_raw_event e;    \
		sample_event(&e);            \
		__VA_ARGS__;                 \
		return put_one_event(b, &e); \
	}
#define SUB_CASE(fn, ...)                  \
	static size_t fn(uint8_t *b)       \
	{                                  \
		struct spate_raw_sub s;    \
		sample_sub(&s);            \
		__VA_ARGS__;               \
		return put_one_sub(b, &s); \
	}
#define RAW_CASE(fn, TYPE, ...)                             \
	static size_t fn(uint8_t *b)                        \
	{                                                   \
		size_t n = frame(b, SPATE_DGRAM_MAX, TYPE); \
		__VA_ARGS__;                                \
		return n;                                   \
	}

RAW_CASE(c_short_hdr, SPATE_MSG_SUB_DEL, n = 15)
RAW_CASE(c_magic, SPATE_MSG_SUB_DEL, b[0] = 0x50)
RAW_CASE(c_version0, SPATE_MSG_SUB_DEL, b[2] = 0)
RAW_CASE(c_version2, SPATE_MSG_SUB_DEL, b[2] = 2)
RAW_CASE(c_flags4, SPATE_MSG_SUB_DEL, b[O_FLAGS] = 0x04)
/* the auth flag on a datagram too short to hold the 40-byte trailer */
RAW_CASE(c_auth_short, SPATE_MSG_SUB_DEL, b[O_FLAGS] = SPATE_FLAG_AUTH)
RAW_CASE(c_flags80, SPATE_MSG_SUB_DEL, b[O_FLAGS] = 0x81)
RAW_CASE(c_len_more, SPATE_MSG_SUB_DEL, set16(b + O_LEN, (uint16_t)(n + 1)))
RAW_CASE(c_len_less, SPATE_MSG_SUB_DEL, set16(b + O_LEN, (uint16_t)(n - 1)))
RAW_CASE(c_len_extra, SPATE_MSG_SUB_DEL, b[n++] = 0) /* header says n, got n+1 */
RAW_CASE(c_count0, SPATE_MSG_SUB_DEL, set16(b + O_COUNT, 0))
RAW_CASE(c_count65, SPATE_MSG_SUB_DEL, set16(b + O_COUNT, 65))
RAW_CASE(c_count_max, SPATE_MSG_SUB_DEL, set16(b + O_COUNT, 0xffff))
RAW_CASE(c_count_more, SPATE_MSG_SUB_DEL, set16(b + O_COUNT, 2))
RAW_CASE(c_count_less, 0, set16(b + O_COUNT, 5)) /* 6 messages follow */
RAW_CASE(c_trailing, SPATE_MSG_SUB_DEL, b[n++] = 0; set16(b + O_LEN, (uint16_t)n))
RAW_CASE(c_trailing3, SPATE_MSG_SUB_DEL, memset(b + n, 0, 3); n += 3; set16(b + O_LEN, (uint16_t)n))
RAW_CASE(c_mlen0, SPATE_MSG_SUB_DEL, set16(b + O_MLEN, 0))
RAW_CASE(c_mlen3, SPATE_MSG_SUB_DEL, set16(b + O_MLEN, 3))
RAW_CASE(c_mlen_past, SPATE_MSG_SUB_DEL, set16(b + O_MLEN, (uint16_t)(n - 16 + 1)))
RAW_CASE(c_mlen_ffff, SPATE_MSG_SUB_DEL, set16(b + O_MLEN, 0xffff))
RAW_CASE(c_mflags, SPATE_MSG_SUB_DEL, b[O_MFLAGS] = 1)
RAW_CASE(c_del_short, SPATE_MSG_SUB_DEL, set16(b + O_MLEN, 11); n--; set16(b + O_LEN, (uint16_t)n))
RAW_CASE(c_del_long, SPATE_MSG_SUB_DEL, n = grow(b, n, 1))
RAW_CASE(c_ev_long, SPATE_MSG_EVENT, n = grow(b, n, 8))
RAW_CASE(c_ev_short, SPATE_MSG_EVENT, set16(b + O_MLEN, (uint16_t)(get16(b + O_MLEN) - 1)))
RAW_CASE(c_ev_rsv, SPATE_MSG_EVENT, b[O_EV_RSV + 1] = 1)
RAW_CASE(c_ev_nkw255, SPATE_MSG_EVENT, b[O_EV_NKW] = 255)
RAW_CASE(c_sub_long, SPATE_MSG_SUB_ADD, n = grow(b, n, 1))
RAW_CASE(c_sub_ncons255, SPATE_MSG_SUB_ADD, b[O_SUB_NCONS] = 255)
RAW_CASE(c_sub_nkw_lie, SPATE_MSG_SUB_ADD, b[O_SUB_NKW] = 2) /* eats a constraint */
RAW_CASE(c_ack_code, SPATE_MSG_ACK, b[O_ACK_CODE] = 1)
RAW_CASE(c_ack_rsv, SPATE_MSG_ACK, b[O_ACK_RSV] = 1)
RAW_CASE(c_nack_rsv, SPATE_MSG_NACK, b[O_ACK_RSV + 1] = 1)
RAW_CASE(c_ack_long, SPATE_MSG_ACK, n = grow(b, n, 4))
RAW_CASE(c_notify_more, SPATE_MSG_NOTIFY, set16(b + O_NOTIFY_N, 4))
RAW_CASE(c_notify_less, SPATE_MSG_NOTIFY, set16(b + O_NOTIFY_N, 2))
RAW_CASE(c_notify_rsv, SPATE_MSG_NOTIFY, b[O_NOTIFY_RSV] = 0x80)
RAW_CASE(c_type0, SPATE_MSG_SUB_DEL, b[O_TYPE] = 0)
RAW_CASE(c_type99, SPATE_MSG_SUB_DEL, b[O_TYPE] = 99)

EV_CASE(c_lon_hi, e.lon = SPATE_LON_MAX + 1) /* 180.0000001 */
EV_CASE(c_lon_lo, e.lon = -SPATE_LON_MAX - 1)
EV_CASE(c_lon_min, e.lon = INT32_MIN)
EV_CASE(c_lat_lo, e.lat = -SPATE_LAT_MAX - 1) /* -90.0000001 */
EV_CASE(c_lat_hi, e.lat = SPATE_LAT_MAX + 1)
EV_CASE(c_ev_17kw, e.n_kw = 17; for (int i = 0; i < 17; i++) e.kw[i] = spate_str_of("k"))
EV_CASE(c_kw_long, e.kw[1] = A(65))
EV_CASE(c_kw_empty, e.kw[0] = spate_str_of(""))
EV_CASE(c_kw_utf8, e.kw[0] = spate_str_of("caf\xc3")) /* cut sequence */
EV_CASE(c_kw_overlong, e.kw[0] = spate_str_of("\xc0\xaf"))
EV_CASE(c_kw_surrogate, e.kw[0] = spate_str_of("\xed\xa0\x80"))
EV_CASE(c_kw_comma, e.kw[0] = spate_str_of("a,b"))
EV_CASE(c_kw_space, e.kw[0] = spate_str_of("a b"))
EV_CASE(c_kw_ctrl, e.kw[0] = spate_str_of("a\x01"))
EV_CASE(c_attr_nan, e.attr[0].value = NAN)
EV_CASE(c_attr_inf, e.attr[0].value = INFINITY)
EV_CASE(c_attr_ninf, e.attr[0].value = -INFINITY)
EV_CASE(c_ev_17attr, e.n_attr = 17;
	for (int i = 0; i < 17; i++) e.attr[i] = (struct spate_raw_attr){ spate_str_of("a"), i })
EV_CASE(c_name_long, e.attr[0].name = A(33))
EV_CASE(c_name_empty, e.attr[0].name = spate_str_of(""))
EV_CASE(c_name_bad, e.attr[0].name = spate_str_of("alt ft"))

SUB_CASE(c_rect_lon, s.rect.max_lon = SPATE_LON_MAX + 1)
SUB_CASE(c_rect_lat, s.rect.min_lat = -SPATE_LAT_MAX - 1)
SUB_CASE(c_inv_lon, s.rect.min_lon = s.rect.max_lon + 1)
SUB_CASE(c_inv_lat, s.rect.max_lat = s.rect.min_lat - 1)
SUB_CASE(c_sub_17kw, s.n_kw = 17; for (int i = 0; i < 17; i++) s.kw[i] = spate_str_of("k"))
SUB_CASE(c_sub_kw_empty, s.kw[0] = spate_str_of(""))
SUB_CASE(c_sub_kw_comma, s.kw[0] = spate_str_of(","))
SUB_CASE(c_op0, s.cons[0].op = 0)
SUB_CASE(c_op7, s.cons[1].op = 7)
SUB_CASE(c_cons_nan, s.cons[0].value = NAN)
SUB_CASE(c_cons_inf, s.cons[1].value = -INFINITY)
SUB_CASE(c_sub_17cons, s.n_cons = 17;
	 for (int i = 0; i < 17; i++)
		 s.cons[i] = (struct spate_raw_constraint){ spate_str_of("a"), SPATE_OP_EQ, i })
SUB_CASE(c_cons_name, s.cons[0].name = spate_str_of("a=b"))

/* A string whose length byte runs past its message's end, into the next
 * message: must be BAD_LENGTH, not whatever the next bytes look like. */
static size_t string_overrun(uint8_t *b, int name)
{
	struct spate_writer w;
	struct spate_raw_event e;

	sample_event(&e);
	e.n_kw = name ? 0 : 1;
	e.kw[0] = spate_str_of("abc");
	e.n_attr = name ? 1 : 0;
	e.attr[0] = (struct spate_raw_attr){ spate_str_of("abc"), 1 };
	spate_writer_init(&w, b, SPATE_DGRAM_MAX, 0, 7, 1);
	CHECK_EQ_INT(spate_put_event(&w, &e), 0);
	CHECK_EQ_INT(spate_put_sub_del(&w, 77), 0);
	size_t n = spate_writer_finish(&w);
	b[O_BODY + 20] = 20;
	return n;
}

static size_t c_kw_overrun(uint8_t *b)
{
	return string_overrun(b, 0);
}

static size_t c_name_overrun(uint8_t *b)
{
	return string_overrun(b, 1);
}

/* A string whose length byte claims one byte more than its message (the
 * last of the datagram) holds: BAD_LENGTH, and no byte past the datagram
 * read (first_err's guard page). For each kind of string: an event's
 * keyword and attribute name, a subscription's keyword and constraint
 * name. Also the length that fits exactly, for the keywords, which end
 * their messages: decoded. */
static void test_string_one_past(void)
{
	uint8_t b[SPATE_DGRAM_MAX];
	struct spate_writer w;
	struct spate_raw_event e;
	struct spate_raw_sub s;

	for (int k = 0; k < 4; k++) {
		spate_writer_init(&w, b, sizeof(b), 0, 7, 1);
		if (k < 2) {
			sample_event(&e);
			e.n_kw = k == 0;
			e.n_attr = k == 1;
			e.kw[0] = spate_str_of("abc");
			e.attr[0].name = spate_str_of("abc");
			CHECK_EQ_INT(spate_put_event(&w, &e), 0);
		} else {
			sample_sub(&s);
			s.n_kw = k == 2;
			s.n_cons = k == 3;
			s.kw[0] = spate_str_of("abc");
			s.cons[0].name = spate_str_of("abc");
			CHECK_EQ_INT(spate_put_sub_add(&w, &s), 0);
		}
		size_t n = spate_writer_finish(&w), at = 0;
		for (size_t i = 0; i + 4 <= n; i++)
			if (memcmp(b + i,
				   "\x03"
				   "abc",
				   4) == 0)
				at = i;
		CHECK(at > 0);
		int ok;
		CHECK_EQ_INT(first_err(b, n, &ok), 0);
		CHECK_EQ_INT(ok, 1);
		b[at] = (uint8_t)(n - at); /* n - at - 1 bytes follow it */
		CHECK_EQ_INT(first_err(b, n, &ok), -SPATE_E_BAD_LENGTH);
		CHECK_EQ_INT(ok, 0);
	}
}

/* Boundaries the tables above do not reach:
 * - a value whose 8 bytes lack one at the datagram's end: BAD_LENGTH,
 *   the byte after the datagram never read (first_err's guard page);
 * - a message of mlength 4 (a header, no body) before a good one: the
 *   first refused for its body, the second decoded (framing intact);
 * - a subscription with exactly the hard maximum of keywords and of
 *   constraints encodes; one more of either is refused. */
static void test_more_boundaries(void)
{
	uint8_t b[SPATE_DGRAM_MAX];
	struct spate_writer w;
	struct spate_raw_event e;
	struct spate_raw_sub *s = calloc(1, sizeof(*s));
	int ok;

	/* the value ends the event: cut its last byte, lengths patched */
	sample_event(&e);
	e.n_kw = 0;
	spate_writer_init(&w, b, sizeof(b), 0, 7, 1);
	CHECK_EQ_INT(spate_put_event(&w, &e), 0);
	size_t n = spate_writer_finish(&w) - 1;
	set16(b + 4, (uint16_t)n);
	set16(b + SPATE_HDR_LEN + 2, (uint16_t)(n - SPATE_HDR_LEN));
	CHECK_EQ_INT(first_err(b, n, &ok), -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(ok, 0);

	spate_writer_init(&w, b, sizeof(b), 0, 7, 1);
	CHECK_EQ_INT(spate_put_sub_del(&w, 5), 0);
	CHECK_EQ_INT(spate_put_sub_del(&w, 6), 0);
	n = spate_writer_finish(&w);
	/* the first SUB_DEL shrunk to its 4-byte header, its body bytes gone */
	memmove(b + SPATE_HDR_LEN + 4, b + SPATE_HDR_LEN + 12, n - SPATE_HDR_LEN - 12);
	n -= 8;
	set16(b + 4, (uint16_t)n);
	set16(b + SPATE_HDR_LEN + 2, 4);
	CHECK_EQ_INT(first_err(b, n, &ok), -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(ok, 1);

	sample_sub(s);
	s->n_kw = SPATE_KW_MAX_HARD;
	for (uint32_t i = 0; i < s->n_kw; i++)
		s->kw[i] = spate_str_of("k");
	s->n_cons = SPATE_CONS_MAX_HARD;
	for (uint32_t i = 0; i < s->n_cons; i++)
		s->cons[i] = (struct spate_raw_constraint){ spate_str_of("a"), SPATE_OP_EQ, i };
	spate_writer_init(&w, b, sizeof(b), 0, 7, 1);
	CHECK_EQ_INT(spate_put_sub_add(&w, s), 0);
	s->n_kw = SPATE_KW_MAX_HARD + 1;
	CHECK_EQ_INT(spate_put_sub_add(&w, s), -SPATE_E_BAD_LENGTH);
	s->n_kw = SPATE_KW_MAX_HARD;
	s->n_cons = SPATE_CONS_MAX_HARD + 1;
	CHECK_EQ_INT(spate_put_sub_add(&w, s), -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(w.count, 1);
	free(s);
}

/* The decoder's limits: the defaults exactly, and for each limit 0 and
 * its hard maximum + 1 refused, 1 and the hard maximum accepted. */
static void test_limits_check(void)
{
	struct spate_limits l;
	struct {
		uint32_t *field;
		uint32_t max;
	} f[] = {
		{ &l.max_keywords, SPATE_KW_MAX_HARD },
		{ &l.max_keyword_len, SPATE_KW_LEN_MAX_HARD },
		{ &l.max_constraints, SPATE_CONS_MAX_HARD },
		{ &l.max_attrs, SPATE_ATTR_MAX_HARD },
		{ &l.max_name_len, SPATE_NAME_LEN_MAX_HARD },
		{ &l.max_messages, 1024 },
	};

	spate_limits_default(&l);
	CHECK(l.max_keywords == 16 && l.max_keyword_len == 64 && l.max_constraints == 16 &&
	      l.max_attrs == 16 && l.max_name_len == 32 && l.max_messages == 64);
	CHECK_EQ_INT(spate_limits_check(&l), 0);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		static const int64_t delta[4] = { -1, 0, 0, 1 };
		for (int k = 0; k < 4; k++) {
			spate_limits_default(&l);
			*f[i].field =
				k < 2 ? (uint32_t)(1 + delta[k]) : (uint32_t)(f[i].max + delta[k]);
			int want = k == 0 || k == 3 ? -SPATE_E_BAD_VALUE : 0;
			check_count++;
			if (spate_limits_check(&l) != want) {
				fprintf(stderr, "%s:%d: limit %zu = %u: got %d, want %d\n",
					__FILE__, __LINE__, i, *f[i].field, spate_limits_check(&l),
					want);
				check_failed();
			}
		}
	}
}

/* UTF-8 at the edges of its lengths: the smallest code point of 3 and
 * of 4 bytes is a keyword, the largest one encoded a byte too long is
 * not; spate_format_double's shortest round-tripping text. */
static void test_utf8_and_doubles(void)
{
	static const struct {
		const char *s;
		int ok;
	} kw[] = {
		{ "\xe0\xa0\x80", 1 },     /* U+0800 */
		{ "\xe0\x9f\xbf", 0 },     /* U+07FF, overlong */
		{ "\xf0\x90\x80\x80", 1 }, /* U+10000 */
		{ "\xf0\x8f\xbf\xbf", 0 }, /* U+FFFF, overlong */
		{ "\xf4\x8f\xbf\xbf", 1 }, /* U+10FFFF */
		{ "\xf4\x90\x80\x80", 0 }, /* U+110000 */
		{ "\xed\x9f\xbf", 1 },     /* U+D7FF */
		{ "\xed\xa0\x80", 0 },     /* U+D800, a surrogate */
	};
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		int rc = spate_check_keyword(&lim, kw[i].s, strlen(kw[i].s));
		if (kw[i].ok)
			CHECK_EQ_INT(rc, 0);
		else
			CHECK(rc != 0);
	}
	static const struct {
		double v;
		const char *text;
	} d[] = { { 0.7, "0.7" },    { 0.1 + 0.2, "0.30000000000000004" },
		  { 1000, "1000" },  { -2.5, "-2.5" },
		  { 1e20, "1e+20" }, { 1.0 / 3, "0.3333333333333333" } };
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		char buf[64] = "";
		spate_format_double(buf, sizeof(buf), d[i].v);
		check_count++;
		if (strcmp(buf, d[i].text) != 0) {
			fprintf(stderr, "%s:%d: format %.17g: '%s', want '%s'\n", __FILE__,
				__LINE__, d[i].v, buf, d[i].text);
			check_failed();
		}
	}
}

struct bad_case {
	const char *name;
	size_t (*build)(uint8_t *b);
	int want; /* enum spate_err */
	int n_ok; /* valid messages still decoded */
};

static const struct bad_case bad_cases[] = {
	{ "shorter than a header", c_short_hdr, SPATE_E_TRUNCATED, 0 },
	{ "bad magic", c_magic, SPATE_E_BAD_MAGIC, 0 },
	{ "version 0", c_version0, SPATE_E_BAD_VERSION, 0 },
	{ "version 2", c_version2, SPATE_E_BAD_VERSION, 0 },
	{ "reserved flag bit 2", c_flags4, SPATE_E_BAD_FLAGS, 0 },
	{ "auth flag without room for the trailer", c_auth_short, SPATE_E_TRUNCATED, 0 },
	{ "reserved flag bit 7", c_flags80, SPATE_E_BAD_FLAGS, 0 },
	{ "header length says more", c_len_more, SPATE_E_BAD_LENGTH, 0 },
	{ "header length says less", c_len_less, SPATE_E_BAD_LENGTH, 0 },
	{ "datagram longer than header length", c_len_extra, SPATE_E_BAD_LENGTH, 0 },
	{ "count 0", c_count0, SPATE_E_TOO_MANY_MESSAGES, 0 },
	{ "count 65", c_count65, SPATE_E_TOO_MANY_MESSAGES, 0 },
	{ "count 65535", c_count_max, SPATE_E_TOO_MANY_MESSAGES, 0 },
	{ "fewer messages than announced", c_count_more, SPATE_E_TRUNCATED, 1 },
	{ "more messages than announced", c_count_less, SPATE_E_TRAILING_DATA, 5 },
	{ "one trailing byte", c_trailing, SPATE_E_TRAILING_DATA, 1 },
	{ "three trailing bytes", c_trailing3, SPATE_E_TRAILING_DATA, 1 },
	{ "mlength 0", c_mlen0, SPATE_E_BAD_LENGTH, 0 },
	{ "mlength 3", c_mlen3, SPATE_E_BAD_LENGTH, 0 },
	{ "mlength past the end", c_mlen_past, SPATE_E_TRUNCATED, 0 },
	{ "mlength 65535", c_mlen_ffff, SPATE_E_TRUNCATED, 0 },
	{ "mflags set", c_mflags, SPATE_E_BAD_FLAGS, 0 },
	{ "SUB_DEL body 7 bytes", c_del_short, SPATE_E_BAD_LENGTH, 0 },
	{ "SUB_DEL body 9 bytes", c_del_long, SPATE_E_BAD_LENGTH, 0 },
	{ "EVENT mlength too long", c_ev_long, SPATE_E_BAD_LENGTH, 0 },
	{ "EVENT mlength too short", c_ev_short, SPATE_E_BAD_LENGTH, 0 },
	{ "EVENT reserved u16", c_ev_rsv, SPATE_E_BAD_FLAGS, 0 },
	{ "EVENT n_kw 255", c_ev_nkw255, SPATE_E_TOO_MANY_KEYWORDS, 0 },
	{ "SUB_ADD mlength too long", c_sub_long, SPATE_E_BAD_LENGTH, 0 },
	{ "SUB_ADD n_cons 255", c_sub_ncons255, SPATE_E_TOO_MANY_CONSTRAINTS, 0 },
	{ "SUB_ADD n_kw lies", c_sub_nkw_lie, SPATE_E_BAD_KEYWORD, 0 },
	{ "ACK with a code", c_ack_code, SPATE_E_BAD_FLAGS, 0 },
	{ "ACK reserved", c_ack_rsv, SPATE_E_BAD_FLAGS, 0 },
	{ "NACK reserved", c_nack_rsv, SPATE_E_BAD_FLAGS, 0 },
	{ "ACK body too long", c_ack_long, SPATE_E_BAD_LENGTH, 0 },
	{ "NOTIFY n_subs says more", c_notify_more, SPATE_E_BAD_LENGTH, 0 },
	{ "NOTIFY n_subs says less", c_notify_less, SPATE_E_BAD_LENGTH, 0 },
	{ "NOTIFY reserved", c_notify_rsv, SPATE_E_BAD_FLAGS, 0 },
	{ "type 0", c_type0, SPATE_E_UNKNOWN_TYPE, 0 },
	{ "type 99", c_type99, SPATE_E_UNKNOWN_TYPE, 0 },
	{ "lon 180.0000001", c_lon_hi, SPATE_E_BAD_COORD, 0 },
	{ "lon -180.0000001", c_lon_lo, SPATE_E_BAD_COORD, 0 },
	{ "lon INT32_MIN", c_lon_min, SPATE_E_BAD_COORD, 0 },
	{ "lat -90.0000001", c_lat_lo, SPATE_E_BAD_COORD, 0 },
	{ "lat 90.0000001", c_lat_hi, SPATE_E_BAD_COORD, 0 },
	{ "EVENT 17 keywords", c_ev_17kw, SPATE_E_TOO_MANY_KEYWORDS, 0 },
	{ "keyword 65 bytes", c_kw_long, SPATE_E_KEYWORD_TOO_LONG, 0 },
	{ "empty keyword", c_kw_empty, SPATE_E_EMPTY_KEYWORD, 0 },
	{ "keyword cut UTF-8", c_kw_utf8, SPATE_E_BAD_KEYWORD, 0 },
	{ "keyword overlong UTF-8", c_kw_overlong, SPATE_E_BAD_KEYWORD, 0 },
	{ "keyword UTF-16 surrogate", c_kw_surrogate, SPATE_E_BAD_KEYWORD, 0 },
	{ "keyword with a comma", c_kw_comma, SPATE_E_BAD_KEYWORD, 0 },
	{ "keyword with a space", c_kw_space, SPATE_E_BAD_KEYWORD, 0 },
	{ "keyword with a control char", c_kw_ctrl, SPATE_E_BAD_KEYWORD, 0 },
	{ "keyword runs past mlength", c_kw_overrun, SPATE_E_BAD_LENGTH, 1 },
	{ "name runs past mlength", c_name_overrun, SPATE_E_BAD_LENGTH, 1 },
	{ "attr value NaN", c_attr_nan, SPATE_E_BAD_VALUE, 0 },
	{ "attr value +inf", c_attr_inf, SPATE_E_BAD_VALUE, 0 },
	{ "attr value -inf", c_attr_ninf, SPATE_E_BAD_VALUE, 0 },
	{ "EVENT 17 attrs", c_ev_17attr, SPATE_E_TOO_MANY_ATTRS, 0 },
	{ "attr name 33 bytes", c_name_long, SPATE_E_KEYWORD_TOO_LONG, 0 },
	{ "attr name empty", c_name_empty, SPATE_E_EMPTY_KEYWORD, 0 },
	{ "attr name with a space", c_name_bad, SPATE_E_BAD_KEYWORD, 0 },
	{ "rect lon 180.0000001", c_rect_lon, SPATE_E_BAD_COORD, 0 },
	{ "rect lat -90.0000001", c_rect_lat, SPATE_E_BAD_COORD, 0 },
	{ "rect inverted lon", c_inv_lon, SPATE_E_INVERTED_RECT, 0 },
	{ "rect inverted lat", c_inv_lat, SPATE_E_INVERTED_RECT, 0 },
	{ "SUB_ADD 17 keywords", c_sub_17kw, SPATE_E_TOO_MANY_KEYWORDS, 0 },
	{ "SUB_ADD empty keyword", c_sub_kw_empty, SPATE_E_EMPTY_KEYWORD, 0 },
	{ "SUB_ADD keyword ','", c_sub_kw_comma, SPATE_E_BAD_KEYWORD, 0 },
	{ "op 0", c_op0, SPATE_E_BAD_OP, 0 },
	{ "op 7", c_op7, SPATE_E_BAD_OP, 0 },
	{ "constraint NaN", c_cons_nan, SPATE_E_BAD_VALUE, 0 },
	{ "constraint -inf", c_cons_inf, SPATE_E_BAD_VALUE, 0 },
	{ "17 constraints", c_sub_17cons, SPATE_E_TOO_MANY_CONSTRAINTS, 0 },
	{ "constraint name 'a=b'", c_cons_name, SPATE_E_BAD_KEYWORD, 0 },
};

static void test_bad_table(void)
{
	uint8_t buf[SPATE_DGRAM_MAX + 64];

	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		size_t n = c->build(buf);
		int ok, rc = first_err(buf, n, &ok);

		check_count++;
		if (rc != -c->want || ok != c->n_ok) {
			check_failures++;
			fprintf(stderr, "%s:%d: case '%s': got %s with %d valid, want %s with %d\n",
				__FILE__, __LINE__, c->name, spate_err_name(rc), ok,
				spate_err_name(c->want), c->n_ok);
		}
	}
}

/* A refused message whose length was sane is skipped, and the next one is
 * decoded; the refused one still names its type and id. */
static void test_skip_and_ids(void)
{
	uint8_t buf[SPATE_DGRAM_MAX];
	struct spate_writer w;
	struct spate_raw_sub s;
	struct spate_hdr h;
	struct spate_reader r;

	/* unknown type 99, then a valid EVENT */
	spate_writer_init(&w, buf, sizeof(buf), 0, 1, 2);
	put_sample(&w, SPATE_MSG_SUB_DEL);
	put_sample(&w, SPATE_MSG_EVENT);
	size_t n = spate_writer_finish(&w);
	buf[O_TYPE] = 99;
	CHECK_EQ_INT(FIRST_MSG(&lim), -SPATE_E_UNKNOWN_TYPE);
	CHECK_EQ_INT(msg.type, 99);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 1);
	CHECK(msg.type == SPATE_MSG_EVENT && is_sample(&msg));
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 0);

	/* an inverted SUB_ADD names its id; the SUB_DEL after it decodes */
	sample_sub(&s);
	s.rect.min_lon = s.rect.max_lon + 1;
	spate_writer_init(&w, buf, sizeof(buf), 0, 1, 2);
	CHECK_EQ_INT(spate_put_sub_add(&w, &s), 0);
	put_sample(&w, SPATE_MSG_SUB_DEL);
	n = spate_writer_finish(&w);
	CHECK_EQ_INT(FIRST_MSG(&lim), -SPATE_E_INVERTED_RECT);
	CHECK_EQ_INT(msg.type, SPATE_MSG_SUB_ADD);
	CHECK(msg.id == s.id);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 1);
	CHECK(msg.type == SPATE_MSG_SUB_DEL && msg.id == 77);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 0);

	/* a SUB_ADD cut to its id still names it */
	spate_writer_init(&w, buf, sizeof(buf), 0, 1, 2);
	CHECK_EQ_INT(spate_put_sub_add(&w, &s), 0);
	set16(buf + O_MLEN, 4 + 8);
	set16(buf + O_COUNT, 1);
	set16(buf + O_LEN, O_BODY + 8);
	CHECK_EQ_INT(spate_hdr_decode(buf, O_BODY + 8, &lim, &h), 0);
	spate_reader_init(&r, buf, O_BODY + 8, &h);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), -SPATE_E_BAD_LENGTH);
	CHECK(msg.type == SPATE_MSG_SUB_ADD && msg.id == s.id);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 0);

	/* framing lost: the error once, then done, with no stale id */
	n = frame(buf, sizeof(buf), 0);
	set16(buf + O_MLEN, 2);
	CHECK_EQ_INT(spate_hdr_decode(buf, n, &lim, &h), 0);
	spate_reader_init(&r, buf, n, &h);
	msg.id = 12345;
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(msg.id, 0);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 0);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 0);
}

/* Limits set above the hard maxima must not let the decoder write past
 * the fixed arrays of the raw structs. */
static void test_limits_above_hard(void)
{
	struct spate_limits big = { 1000, 1000, 1000, 1000, 1000, 1000 };
	uint8_t buf[SPATE_DGRAM_MAX];
	struct spate_hdr h;
	struct spate_reader r;
	struct spate_raw_event e;
	struct spate_raw_sub s;
	size_t n;

	sample_event(&e);
	e.n_kw = 0;
	e.n_attr = 0;
	n = put_one_event(buf, &e);
	buf[O_EV_NKW] = SPATE_KW_MAX_HARD + 1;
	CHECK_EQ_INT(FIRST_MSG(&big), -SPATE_E_TOO_MANY_KEYWORDS);
	buf[O_EV_NKW] = 0;
	buf[O_EV_NKW + 1] = SPATE_ATTR_MAX_HARD + 1;
	spate_reader_init(&r, buf, n, &h);
	CHECK_EQ_INT(spate_reader_next(&r, &big, &msg), -SPATE_E_TOO_MANY_ATTRS);

	sample_sub(&s);
	s.n_kw = 0;
	s.n_cons = 0;
	n = put_one_sub(buf, &s);
	buf[O_SUB_NCONS] = SPATE_CONS_MAX_HARD + 1;
	CHECK_EQ_INT(FIRST_MSG(&big), -SPATE_E_TOO_MANY_CONSTRAINTS);

	/* 255-byte keyword: the hard maximum, accepted under big limits */
	sample_event(&e);
	e.kw[0] = A(255);
	n = put_one_event(buf, &e);
	CHECK_EQ_INT(FIRST_MSG(&big), 1);
	CHECK(cmp_event(&msg.u.ev, &e));
}

/* ---- the writer ---- */

static void test_writer_full(void)
{
	uint8_t buf[400], snap[400];
	struct spate_writer w, wsnap;
	struct spate_raw_event e;
	int puts = 0, rc;

	/* fill until the writer refuses; the refusal changes nothing */
	memset(buf, 0xaa, sizeof(buf));
	sample_event(&e);
	spate_writer_init(&w, buf, 300, 0, 1, 1);
	while ((rc = spate_put_event(&w, &e)) == 0)
		puts++;
	CHECK_EQ_INT(rc, -SPATE_E_NO_MEMORY);
	CHECK_EQ_INT(puts, (300 - 16) / 66);
	memcpy(snap, buf, sizeof(buf));
	wsnap = w;
	CHECK_EQ_INT(spate_put_event(&w, &e), -SPATE_E_NO_MEMORY);
	CHECK_EQ_INT(spate_put_notify(&w, 1, sample_ids, 3), -SPATE_E_NO_MEMORY);
	/* a SUB_DEL (12 bytes) still fits in the 20 left */
	CHECK_EQ_INT(300 - w.len, 20);
	CHECK_EQ_INT(spate_put_sub_del(&w, 77), 0);
	CHECK_EQ_INT(spate_put_sub_del(&w, 77), -SPATE_E_NO_MEMORY);
	CHECK_EQ_INT(w.len, wsnap.len + 12);
	CHECK_EQ_INT(w.count, wsnap.count + 1);
	CHECK(memcmp(buf + w.len, snap + w.len, sizeof(buf) - w.len) == 0);
	CHECK(buf[300] == 0xaa);
	size_t n = spate_writer_finish(&w);
	int ok;
	CHECK_EQ_INT(first_err(buf, n, &ok), 0);
	CHECK_EQ_INT(ok, puts + 1);

	/* refused puts leave writer and buffer alone */
	struct spate_raw_sub s;
	sample_sub(&s);
	spate_writer_init(&w, buf, 60, 0, 1, 1);
	memcpy(snap, buf, sizeof(buf));
	wsnap = w;
	CHECK_EQ_INT(spate_put_sub_add(&w, &s), -SPATE_E_NO_MEMORY);
	CHECK_EQ_INT(spate_put_event(&w, &e), -SPATE_E_NO_MEMORY);
	CHECK(memcmp(&w, &wsnap, sizeof(w)) == 0 && memcmp(buf, snap, sizeof(buf)) == 0);

	/* unencodable: refused with BAD_LENGTH, nothing written */
	spate_writer_init(&w, buf, sizeof(buf), 0, 1, 1);
	memcpy(snap, buf, sizeof(buf));
	wsnap = w;
	e.kw[0] = A(256);
	CHECK_EQ_INT(spate_put_event(&w, &e), -SPATE_E_BAD_LENGTH);
	sample_event(&e);
	e.attr[0].name = A(256);
	CHECK_EQ_INT(spate_put_event(&w, &e), -SPATE_E_BAD_LENGTH);
	e.n_attr = SPATE_ATTR_MAX_HARD + 1;
	CHECK_EQ_INT(spate_put_event(&w, &e), -SPATE_E_BAD_LENGTH);
	sample_event(&e);
	e.n_kw = SPATE_KW_MAX_HARD + 1;
	CHECK_EQ_INT(spate_put_event(&w, &e), -SPATE_E_BAD_LENGTH);
	s.n_cons = SPATE_CONS_MAX_HARD + 1;
	CHECK_EQ_INT(spate_put_sub_add(&w, &s), -SPATE_E_BAD_LENGTH);
	sample_sub(&s);
	s.cons[1].name = A(256);
	CHECK_EQ_INT(spate_put_sub_add(&w, &s), -SPATE_E_BAD_LENGTH);
	CHECK(memcmp(&w, &wsnap, sizeof(w)) == 0 && memcmp(buf, snap, sizeof(buf)) == 0);

	/* a buffer smaller than a header: nothing is ever written */
	memset(buf, 0xaa, sizeof(buf));
	spate_writer_init(&w, buf, 15, 0, 1, 1);
	CHECK_EQ_INT(spate_put_sub_del(&w, 1), -SPATE_E_NO_MEMORY);
	CHECK_EQ_INT(spate_notify_room(&w), 0);
	CHECK_EQ_INT(spate_writer_finish(&w), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i] != 0xaa) {
			CHECK(!"tiny writer wrote");
			break;
		}

	/* a header only fits exactly */
	spate_writer_init(&w, buf, 16, 0, 1, 1);
	CHECK_EQ_INT(spate_put_sub_del(&w, 1), -SPATE_E_NO_MEMORY);
	CHECK_EQ_INT(spate_writer_finish(&w), 16);
}

static uint64_t ids[8200];

static void test_notify_room(void)
{
	static uint8_t buf[70000];
	struct spate_writer w;

	for (size_t cap = 0; cap < 400; cap++) {
		for (int pre = 0; pre < 2; pre++) {
			spate_writer_init(&w, buf, cap, 0, 1, 1);
			if (pre && spate_put_sub_del(&w, 5) != 0)
				continue;
			size_t used = w.len;
			uint16_t room = spate_notify_room(&w);
			size_t want = cap >= used + 16 ? (cap - used - 16) / 8 : 0;
			if (cap < 16)
				want = 0;
			CHECK_EQ_INT(room, want);
			CHECK_EQ_INT(spate_put_notify(&w, 1, ids, (uint16_t)(room + 1)),
				     -SPATE_E_NO_MEMORY);
			if (room > 0) {
				CHECK_EQ_INT(spate_put_notify(&w, 1, ids, room), 0);
				CHECK_EQ_INT(spate_notify_room(&w), 0);
			}
		}
	}
	/* the biggest datagram: capped at 65535 bytes */
	for (uint16_t i = 0; i < 8200; i++)
		ids[i] = i;
	spate_writer_init(&w, buf, sizeof(buf), 0, 1, 1);
	CHECK_EQ_INT(spate_notify_room(&w), (65535 - 32) / 8);
	CHECK_EQ_INT(spate_put_notify(&w, 1, ids, 8190), -SPATE_E_BAD_LENGTH);
	CHECK_EQ_INT(spate_put_notify(&w, 1, ids, spate_notify_room(&w)), 0);
	size_t n = spate_writer_finish(&w);
	CHECK_EQ_INT(n, 32 + 8 * ((65535 - 32) / 8));
	struct spate_hdr h;
	struct spate_reader r;
	CHECK_EQ_INT(FIRST_MSG(&lim), 1);
	CHECK_EQ_INT(msg.u.notify.n_subs, (65535 - 32) / 8);
	CHECK_EQ_INT(spate_notify_id(&msg.u.notify, 8000), 8000);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 0);
}

/* ---- many random messages ---- */

static uint64_t rng_state = 0x5eed5eed12345678ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

static char arena[65536];
static size_t arena_used;

/* A valid keyword: ASCII and multi-byte UTF-8, never "-" alone. */
static struct spate_str rnd_keyword(void)
{
	static const char *const pieces[] = { "a",
					      "Z",
					      "9",
					      ":",
					      "_",
					      "/",
					      ".",
					      "-",
					      "#",
					      "\xc3\xa9",
					      "\xe4\xb8\xad",
					      "\xf0\x9f\x98\x80" };
	uint32_t max = rnd_below(16) == 0 ? lim.max_keyword_len : 12;
	uint32_t want = 1 + rnd_below(max);
	char *p = arena + arena_used;
	uint32_t len = 0;

	while (len < want) {
		const char *pc = pieces[rnd_below(12)];
		size_t k = strlen(pc);
		if (len + k > lim.max_keyword_len)
			break;
		memcpy(p + len, pc, k);
		len += (uint32_t)k;
	}
	if (len == 0 || (len == 1 && p[0] == '-'))
		p[len++] = 'k';
	arena_used += len;
	return (struct spate_str){ p, len };
}

static struct spate_str rnd_name(void)
{
	static const char set[] = "abcXYZ019_.:-";
	uint32_t len = 1 + rnd_below(rnd_below(8) == 0 ? lim.max_name_len : 8);
	char *p = arena + arena_used;

	for (uint32_t i = 0; i < len; i++)
		p[i] = set[rnd_below(sizeof(set) - 1)];
	arena_used += len;
	return (struct spate_str){ p, len };
}

static double rnd_value(void)
{
	switch (rnd_below(4)) {
	case 0:
		return (double)(int32_t)rnd();
	case 1:
		return -0.0;
	default:
		for (;;) {
			uint64_t u = rnd();
			double d;
			memcpy(&d, &u, sizeof(d));
			if (isfinite(d))
				return d;
		}
	}
}

static int32_t rnd_coord(int32_t max)
{
	if (rnd_below(10) == 0)
		return rnd_below(2) ? max : -max;
	return (int32_t)((int64_t)(rnd() % (2 * (uint64_t)max + 1)) - max);
}

static uint32_t rnd_count(uint32_t max)
{
	return rnd_below(8) == 0 ? rnd_below(max + 1) : rnd_below(4);
}

/* What was put, to compare with what comes back. */
struct gen {
	int type;
	struct spate_raw_event ev;
	struct spate_raw_sub sub;
	uint64_t id;
	uint8_t req_type, code;
	uint32_t req_seq;
	uint16_t n_ids;
	uint64_t ids[40];
};

static int put_random(struct spate_writer *w, struct gen *g)
{
	g->type = 1 + (int)rnd_below(SPATE_MSG_TYPE_MAX);
	g->id = rnd();
	switch (g->type) {
	case SPATE_MSG_EVENT: {
		struct spate_raw_event *e = &g->ev;
		e->id = g->id;
		e->lon = rnd_coord(SPATE_LON_MAX);
		e->lat = rnd_coord(SPATE_LAT_MAX);
		e->n_kw = rnd_count(lim.max_keywords);
		e->n_attr = rnd_count(lim.max_attrs);
		for (uint32_t i = 0; i < e->n_kw; i++)
			e->kw[i] = rnd_keyword();
		for (uint32_t i = 0; i < e->n_attr; i++)
			e->attr[i] = (struct spate_raw_attr){ rnd_name(), rnd_value() };
		return spate_put_event(w, e);
	}
	case SPATE_MSG_SUB_ADD: {
		struct spate_raw_sub *s = &g->sub;
		int32_t a = rnd_coord(SPATE_LON_MAX), b = rnd_coord(SPATE_LON_MAX);
		int32_t c = rnd_coord(SPATE_LAT_MAX), d = rnd_coord(SPATE_LAT_MAX);
		s->id = g->id;
		s->rect = (struct spate_rect){ a < b ? a : b, c < d ? c : d, a < b ? b : a,
					       c < d ? d : c };
		s->dest = rnd_below(3) ? (struct spate_dest){ (uint32_t)rnd(), (uint16_t)rnd() }
				       : (struct spate_dest){ 0, 0 };
		s->n_kw = rnd_count(lim.max_keywords);
		s->n_cons = rnd_count(lim.max_constraints);
		for (uint32_t i = 0; i < s->n_kw; i++)
			s->kw[i] = rnd_keyword();
		for (uint32_t i = 0; i < s->n_cons; i++)
			s->cons[i] = (struct spate_raw_constraint){
				rnd_name(), (uint8_t)(1 + rnd_below(SPATE_OP_MAX)), rnd_value()
			};
		return spate_put_sub_add(w, s);
	}
	case SPATE_MSG_SUB_DEL:
		return spate_put_sub_del(w, g->id);
	case SPATE_MSG_ACK:
	case SPATE_MSG_NACK:
		g->req_type = (uint8_t)rnd();
		g->code = g->type == SPATE_MSG_ACK ? 0 : (uint8_t)(1 + rnd_below(255));
		g->req_seq = (uint32_t)rnd();
		if (g->type == SPATE_MSG_ACK)
			return spate_put_ack(w, g->req_type, g->req_seq, g->id);
		return spate_put_nack(w, g->req_type, g->code, g->req_seq, g->id);
	default:
		g->n_ids = (uint16_t)rnd_below(40);
		for (uint16_t i = 0; i < g->n_ids; i++)
			g->ids[i] = rnd();
		return spate_put_notify(w, g->id, g->ids, g->n_ids);
	}
}

static bool gen_matches(const struct gen *g, const struct spate_msg *m)
{
	if (m->type != g->type || m->id != g->id)
		return false;
	switch (g->type) {
	case SPATE_MSG_EVENT:
		return cmp_event(&m->u.ev, &g->ev);
	case SPATE_MSG_SUB_ADD:
		return cmp_sub(&m->u.sub, &g->sub);
	case SPATE_MSG_SUB_DEL:
		return true;
	case SPATE_MSG_ACK:
	case SPATE_MSG_NACK:
		return m->u.ack.req_type == g->req_type && m->u.ack.code == g->code &&
		       m->u.ack.req_seq == g->req_seq && m->u.ack.id == g->id;
	default:
		if (m->u.notify.event_id != g->id || m->u.notify.n_subs != g->n_ids)
			return false;
		for (uint16_t i = 0; i < g->n_ids; i++)
			if (spate_notify_id(&m->u.notify, i) != g->ids[i])
				return false;
		return true;
	}
}

static struct gen gens[64];

/* Decode datagram `buf` and compare with gens[0..count). */
static void check_random_dgram(const uint8_t *buf, size_t n, int count, uint32_t seq)
{
	struct spate_hdr h;
	struct spate_reader r;
	int i = 0, rc;

	CHECK_EQ_INT(spate_hdr_decode(buf, n, &lim, &h), 0);
	CHECK_EQ_INT(h.count, count);
	CHECK_EQ_INT(h.seq, seq);
	spate_reader_init(&r, buf, n, &h);
	while ((rc = spate_reader_next(&r, &lim, &msg)) == 1) {
		if (i >= count || !gen_matches(&gens[i], &msg)) {
			CHECK(!"random message did not round trip");
			fprintf(stderr, "  datagram seq %u, message %d, type %d\n", seq, i,
				msg.type);
			return;
		}
		i++;
	}
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(i, count);
}

static void test_random(void)
{
	uint8_t buf[SPATE_DGRAM_MAX];
	struct spate_writer w;
	int total = 0, count = 0, skipped = 0;
	uint32_t seq = 1;

	spate_writer_init(&w, buf, sizeof(buf), 0, 99, seq);
	arena_used = 0;
	while (total < 20000) {
		/* One datagram's strings use at most a few KB of the arena. */
		if (arena_used > sizeof(arena) - 8192) {
			CHECK(!"arena full");
			break;
		}
		int rc = put_random(&w, &gens[count]);
		if (rc == -SPATE_E_NO_MEMORY && count == 0) {
			skipped++; /* too big for any datagram */
			arena_used = 0;
			continue;
		}
		if (rc == 0) {
			count++;
			total++;
		}
		if (rc == -SPATE_E_NO_MEMORY || count == (int)lim.max_messages) {
			size_t n = spate_writer_finish(&w);
			check_random_dgram(buf, n, count, seq);
			count = 0;
			arena_used = 0;
			spate_writer_init(&w, buf, sizeof(buf), 0, 99, ++seq);
			if (rc == -SPATE_E_NO_MEMORY)
				continue; /* that message is dropped, not retried */
		} else {
			CHECK_EQ_INT(rc, 0);
		}
	}
	if (count > 0)
		check_random_dgram(buf, spate_writer_finish(&w), count, seq);
	CHECK(skipped < total / 10);
	printf("random: %d messages in %u datagrams (%d too big skipped)\n", total, seq, skipped);
}

/* spate_dgram_peek: the header, the EVENT count and the first message of
 * a datagram, without decoding; a bad header is refused, a walk that
 * loses framing counts what came before. */
static void test_peek(void)
{
	uint8_t buf[SPATE_DGRAM_MAX], copy[SPATE_DGRAM_MAX];
	struct spate_writer w;
	struct spate_raw_event e;
	struct spate_raw_sub sub;
	struct spate_dgram_peek pk;

	sample_event(&e);
	sample_sub(&sub);
	spate_writer_init(&w, buf, sizeof(buf), 0, 77, 9);
	CHECK(spate_put_sub_add(&w, &sub) == 0);
	for (int i = 0; i < 5; i++) {
		e.id = 100 + (uint64_t)i;
		CHECK(spate_put_event(&w, &e) == 0);
	}
	CHECK(spate_put_sub_del(&w, 5) == 0);
	size_t len = spate_writer_finish(&w);
	memcpy(copy, buf, len);
	CHECK(spate_dgram_peek(copy, len, &lim, &pk) == 0);
	CHECK(pk.hdr.client_id == 77 && pk.hdr.seq == 9 && pk.hdr.count == 7);
	CHECK(pk.events == 5);
	CHECK(pk.first_type == SPATE_MSG_SUB_ADD && pk.first_id == sub.id);

	/* framing lost in the fourth message: three read, two of them EVENTs */
	size_t off = SPATE_HDR_LEN;
	for (int i = 0; i < 3; i++)
		off += get16(copy + off + 2);
	set16(copy + off + 2, 2);
	CHECK(spate_dgram_peek(copy, len, &lim, &pk) == 0);
	CHECK(pk.events == 2);
	/* a header refused: nothing counted */
	memcpy(copy, buf, len);
	copy[0] = 0;
	CHECK(spate_dgram_peek(copy, len, &lim, &pk) == -SPATE_E_BAD_MAGIC);
	CHECK(pk.events == 0 && pk.first_type == 0);
	CHECK(spate_dgram_peek(buf, len - 1, &lim, &pk) == -SPATE_E_BAD_LENGTH);
	/* a first message too short for an id */
	spate_writer_init(&w, buf, sizeof(buf), 0, 1, 1);
	CHECK(spate_put_ack(&w, SPATE_MSG_SUB_ADD, 3, 4) == 0);
	len = spate_writer_finish(&w);
	set16(buf + SPATE_HDR_LEN + 2, SPATE_MSG_HDR_LEN);
	set16(buf + 4, SPATE_HDR_LEN + SPATE_MSG_HDR_LEN);
	CHECK(spate_dgram_peek(buf, SPATE_HDR_LEN + SPATE_MSG_HDR_LEN, &lim, &pk) == 0);
	CHECK(pk.first_type == SPATE_MSG_ACK && pk.first_id == 0 && pk.events == 0);
}

int main(void)
{
	spate_limits_default(&lim);
	memset(abuf, 'a', sizeof(abuf));

	test_golden();
	test_round_trip();
	test_type_names();
	test_truncations();
	test_bad_table();
	test_string_one_past();
	test_more_boundaries();
	test_limits_check();
	test_utf8_and_doubles();
	test_skip_and_ids();
	test_limits_above_hard();
	test_writer_full();
	test_notify_room();
	test_random();
	test_peek();

	return check_summary("proto");
}
