/* spate_err.h - every error and NACK code Spate knows, from one table.
 *
 * The X-macro below is the single source of the enum, the names and the
 * human-readable reasons (VPP's foreach_*_error style): adding a reason is
 * one line, and the counters, NACK codes and docs/protocol.md stay in step.
 * The numeric value of a code is its wire value in a NACK: never renumber,
 * only append.
 */
#ifndef SPATE_ERR_H
#define SPATE_ERR_H

/*        name                 value  reason */
/* clang-format off */
#define SPATE_FOREACH_ERR(X)                                                   \
	X(OK,                    0, "ok")                                     \
	X(BAD_LENGTH,            1, "length field disagrees with the data")   \
	X(BAD_MAGIC,             2, "bad magic")                              \
	X(BAD_VERSION,           3, "unsupported protocol version")           \
	X(TRUNCATED,             4, "message truncated")                      \
	X(BAD_COORD,             5, "coordinate out of range or not a number")\
	X(INVERTED_RECT,         6, "rectangle min greater than max")         \
	X(TOO_MANY_KEYWORDS,     7, "too many keywords")                      \
	X(KEYWORD_TOO_LONG,      8, "keyword too long")                       \
	X(EMPTY_KEYWORD,         9, "empty keyword")                          \
	X(BAD_KEYWORD,          10, "keyword is not valid UTF-8 or has a separator") \
	X(TOO_MANY_CONSTRAINTS, 11, "too many constraints")                   \
	X(BAD_OP,               12, "unknown constraint operator")            \
	X(BAD_VALUE,            13, "numeric value is not a finite number")   \
	X(TOO_MANY_ATTRS,       14, "too many attributes")                    \
	X(UNKNOWN_TYPE,         15, "unknown message type")                   \
	X(DUPLICATE_ID,         16, "subscription id already in use")         \
	X(UNKNOWN_ID,           17, "unknown subscription id")                \
	X(NOT_OWNER,            18, "subscription belongs to another client") \
	X(OVER_QUOTA,           19, "client is over its subscription quota")  \
	X(NO_MEMORY,            20, "server out of memory")                   \
	X(BAD_FLAGS,            21, "reserved bits or flags set")             \
	X(TOO_MANY_MESSAGES,    22, "too many messages in one datagram")      \
	X(BAD_SYNTAX,           23, "syntax error")                           \
	X(BAD_ID,               24, "bad id")                                 \
	X(TRAILING_DATA,        25, "trailing bytes after the last message")  \
	X(NOT_ALLOWED,          26, "message type not accepted here")       \
	X(OUT_OF_DOMAIN,        27, "constraint value outside the attribute's declared domain") \
	X(AUTH_REQUIRED,        28, "datagram not authenticated but keys are required") \
	X(AUTH_FAILED,          29, "no key for the client, or a wrong HMAC") \
	X(AUTH_REPLAY,          30, "nonce already used or too old")         \
	X(RATE_LIMITED,         31, "client over its subscription operation rate") \
	X(RESERVED_CLIENT,      32, "client id 0 is reserved for the server") \
	X(OVERLOADED,           33, "server overloaded: datagram dropped unread")
/* clang-format on */

enum spate_err {
#define SPATE_ERR_ENUM(name, val, str) SPATE_E_##name = val,
	SPATE_FOREACH_ERR(SPATE_ERR_ENUM)
#undef SPATE_ERR_ENUM
		SPATE_E__COUNT
};

/* Short name, e.g. "INVERTED_RECT"; "?" for an unknown code. */
const char *spate_err_name(int code);
/* Reason for people, e.g. "rectangle min greater than max". */
const char *spate_err_reason(int code);

#endif
