/* spate_types.h - the data model shared by the codec, the stream parser and
 * the engines.
 *
 * Two forms exist for events and subscriptions:
 *  - the *raw* form (spate_raw_event, spate_raw_sub): keywords and attribute
 *    names as byte strings pointing into the input buffer, exactly as decoded
 *    from a frame or parsed from a stream line, already validated against
 *    the limits;
 *  - the *interned* form (spate_event, spate_sub in spate_engine.h):
 *    keywords and attribute names replaced by dictionary ids, sorted, which
 *    is what engines index and match.
 * Coordinates are fixed point, 1e-7 degree, in int32 (lon in
 * [-1800000000, 1800000000], lat in [-900000000, 900000000]) so that every
 * tool and the daemon see bit-identical values.
 */
#ifndef SPATE_TYPES_H
#define SPATE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SPATE_COORD_SCALE 10000000 /* units per degree */
#define SPATE_LON_MAX (180 * SPATE_COORD_SCALE)
#define SPATE_LAT_MAX (90 * SPATE_COORD_SCALE)

/* Hard ceilings, fixed at compile time (wire counts are u8, lengths u8).
 * The configurable limits in spate_limits must stay at or below these. */
#define SPATE_KW_MAX_HARD 64
#define SPATE_KW_LEN_MAX_HARD 255
#define SPATE_CONS_MAX_HARD 32
#define SPATE_ATTR_MAX_HARD 32
#define SPATE_NAME_LEN_MAX_HARD 255

/* Constraint operators; the numeric value is the wire value. */
enum spate_op {
	SPATE_OP_GE = 1, /* >= */
	SPATE_OP_LE = 2, /* <= */
	SPATE_OP_GT = 3, /* >  */
	SPATE_OP_LT = 4, /* <  */
	SPATE_OP_EQ = 5, /* =  */
	SPATE_OP_NE = 6, /* != */
};
#define SPATE_OP_MAX SPATE_OP_NE

/* Text of an operator as written in streams (">=", ...); NULL if unknown. */
const char *spate_op_str(int op);
/* Does `value OP bound` hold? */
bool spate_op_holds(int op, double value, double bound);
/* The same, inlined where a loop confirms many constraints. */
static inline bool spate_op_holds_inline(int op, double value, double bound)
{
	switch (op) {
	case SPATE_OP_GE:
		return value >= bound;
	case SPATE_OP_LE:
		return value <= bound;
	case SPATE_OP_GT:
		return value > bound;
	case SPATE_OP_LT:
		return value < bound;
	case SPATE_OP_EQ:
		return value == bound;
	case SPATE_OP_NE:
		return value != bound;
	}
	return false;
}

/* Runtime limits, checked by the decoder and the stream parser. */
struct spate_limits {
	uint32_t max_keywords;    /* per event or subscription */
	uint32_t max_keyword_len; /* bytes */
	uint32_t max_constraints; /* per subscription */
	uint32_t max_attrs;       /* per event */
	uint32_t max_name_len;    /* attribute name bytes */
	uint32_t max_messages;    /* per datagram */
};
/* Defaults: 16 keywords of 64 bytes, 16 constraints, 16 attributes, names of
 * 32 bytes, 64 messages a datagram. */
void spate_limits_default(struct spate_limits *lim);
/* 0, or -SPATE_E_BAD_VALUE when a limit is 0 or above its hard ceiling. */
int spate_limits_check(const struct spate_limits *lim);

struct spate_str {
	const char *p; /* not NUL-terminated */
	uint32_t len;
};

/* A C string as a spate_str (tests and seed generators build messages
 * from literals). */
static inline struct spate_str spate_str_of(const char *s)
{
	return (struct spate_str){ s, (uint32_t)strlen(s) };
}

struct spate_rect {
	int32_t min_lon, min_lat, max_lon, max_lat; /* inclusive */
};

/* Where notifications for a subscription go. addr/port 0 = "the address the
 * SUB_ADD came from". Both in host byte order. */
struct spate_dest {
	uint32_t ipv4;
	uint16_t port;
};

struct spate_raw_attr {
	struct spate_str name;
	double value;
};

struct spate_raw_constraint {
	struct spate_str name;
	uint8_t op; /* enum spate_op */
	double value;
};

struct spate_raw_event {
	uint64_t id;
	int32_t lon, lat;
	uint32_t n_kw, n_attr;
	struct spate_str kw[SPATE_KW_MAX_HARD];
	struct spate_raw_attr attr[SPATE_ATTR_MAX_HARD];
};

struct spate_raw_sub {
	uint64_t id;
	struct spate_rect rect;
	struct spate_dest dest;
	uint32_t n_kw, n_cons;
	struct spate_str kw[SPATE_KW_MAX_HARD];
	struct spate_raw_constraint cons[SPATE_CONS_MAX_HARD];
};

/* The shortest %g text that reads back as exactly v ("0.7", not
 * "0.69999999999999996"): how settings are shown to operators. */
void spate_format_double(char *buf, size_t len, double v);

/* Validation shared by the codec and the stream parser: 0 or -SPATE_E_*. */
int spate_check_lon(int64_t lon);
int spate_check_lat(int64_t lat);
int spate_check_rect(const struct spate_rect *r);
/* A keyword is 1..max_keyword_len bytes of valid UTF-8 without control
 * characters, commas, tabs or spaces (the stream format's separators). */
int spate_check_keyword(const struct spate_limits *lim, const char *p, size_t len);
/* The bytes of w (8 bytes, the first in the low byte) that are not
 * keyword ASCII (0x21..0x7e) or are a comma: the high bit of each set.
 * Exact for the lowest one (the borrow and carry tricks can only err in
 * a byte above one that is already out of range), so 0 says all 8 are
 * keyword ASCII, and the lowest bit says where a keyword stops (a comma,
 * or a byte spate_check_keyword must look at). */
static inline uint64_t spate_kw_stop_bits(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t below = (w - ones * 0x21) & ~w & high; /* a byte < 0x21 */
	uint64_t above = ((w + ones) | w) & high;       /* a byte >= 0x7f */
	uint64_t x = w ^ (ones * ','), comma = (x - ones) & ~x & high;

	return below | above | comma;
}
/* An attribute name: 1..max_name_len bytes of [A-Za-z0-9_.:-]. */
extern const uint8_t spate_name_ok[256]; /* 1 for those bytes */
int spate_check_name(const struct spate_limits *lim, const char *p, size_t len);

#endif
