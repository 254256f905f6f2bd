/* spate_types.c - limits, operators and the validators shared by the wire
 * codec and the stream parser, so both refuse exactly the same input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto/spate_err.h"
#include "proto/spate_types.h"

static const char *const op_text[SPATE_OP_MAX + 1] = {
	[SPATE_OP_GE] = ">=", [SPATE_OP_LE] = "<=", [SPATE_OP_GT] = ">",
	[SPATE_OP_LT] = "<",  [SPATE_OP_EQ] = "=",  [SPATE_OP_NE] = "!=",
};

const char *spate_op_str(int op)
{
	if (op < 1 || op > SPATE_OP_MAX)
		return NULL;
	return op_text[op];
}

bool spate_op_holds(int op, double value, double bound)
{
	return spate_op_holds_inline(op, value, bound);
}

void spate_limits_default(struct spate_limits *lim)
{
	lim->max_keywords = 16;
	lim->max_keyword_len = 64;
	lim->max_constraints = 16;
	lim->max_attrs = 16;
	lim->max_name_len = 32;
	lim->max_messages = 64;
}

int spate_limits_check(const struct spate_limits *lim)
{
	if (lim->max_keywords < 1 || lim->max_keywords > SPATE_KW_MAX_HARD ||
	    lim->max_keyword_len < 1 || lim->max_keyword_len > SPATE_KW_LEN_MAX_HARD ||
	    lim->max_constraints < 1 || lim->max_constraints > SPATE_CONS_MAX_HARD ||
	    lim->max_attrs < 1 || lim->max_attrs > SPATE_ATTR_MAX_HARD || lim->max_name_len < 1 ||
	    lim->max_name_len > SPATE_NAME_LEN_MAX_HARD || lim->max_messages < 1 ||
	    lim->max_messages > 1024)
		return -SPATE_E_BAD_VALUE;
	return 0;
}

int spate_check_lon(int64_t lon)
{
	return (lon < -SPATE_LON_MAX || lon > SPATE_LON_MAX) ? -SPATE_E_BAD_COORD : 0;
}

int spate_check_lat(int64_t lat)
{
	return (lat < -SPATE_LAT_MAX || lat > SPATE_LAT_MAX) ? -SPATE_E_BAD_COORD : 0;
}

int spate_check_rect(const struct spate_rect *r)
{
	if (spate_check_lon(r->min_lon) || spate_check_lon(r->max_lon) ||
	    spate_check_lat(r->min_lat) || spate_check_lat(r->max_lat))
		return -SPATE_E_BAD_COORD;
	if (r->min_lon > r->max_lon || r->min_lat > r->max_lat)
		return -SPATE_E_INVERTED_RECT;
	return 0;
}

/* Length of the UTF-8 sequence starting at p (at most `left` bytes), or 0
 * if it is not well formed (overlong forms, surrogates and code points
 * past U+10FFFF are refused). */
static size_t utf8_seq_len(const unsigned char *p, size_t left)
{
	unsigned char c = p[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff)
		return 0;
	return n;
}

/* 1 for the ASCII bytes a keyword may hold: 0x21..0x7e but ',' (0x2c). */
static const uint8_t kw_ascii_ok[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	/* 0x80..0xff: 0 (UTF-8, checked on its own) */
};

int spate_check_keyword(const struct spate_limits *lim, const char *p, size_t len)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0;

	if (len == 0)
		return -SPATE_E_EMPTY_KEYWORD;
	if (len > lim->max_keyword_len || len > SPATE_KW_LEN_MAX_HARD)
		return -SPATE_E_KEYWORD_TOO_LONG;
	/* "-" alone means "no keywords" in the stream format. */
	if (len == 1 && s[0] == '-')
		return -SPATE_E_BAD_KEYWORD;
	/* ASCII, the common case, eight bytes a step (every event's keywords
	 * pass here, on the cluster lcore); the rest a byte a step */
	for (uint64_t w; i + 8 <= len && (memcpy(&w, s + i, 8), spate_kw_stop_bits(w) == 0);)
		i += 8;
	while (i < len) {
		if (kw_ascii_ok[s[i]]) {
			i++;
			continue;
		}
		if (s[i] < 0x80)
			return -SPATE_E_BAD_KEYWORD;
		size_t n = utf8_seq_len(s + i, len - i);
		if (n == 0)
			return -SPATE_E_BAD_KEYWORD;
		i += n;
	}
	return 0;
}

/* 1 for the bytes of an attribute name: [A-Za-z0-9_.:-]. */
const uint8_t spate_name_ok[256] = {
	['-'] = 1, ['.'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, [':'] = 1, ['_'] = 1, ['A'] = 1, ['B'] = 1,
	['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
	['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
	['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
};

int spate_check_name(const struct spate_limits *lim, const char *p, size_t len)
{
	if (len == 0)
		return -SPATE_E_EMPTY_KEYWORD;
	if (len > lim->max_name_len || len > SPATE_NAME_LEN_MAX_HARD)
		return -SPATE_E_KEYWORD_TOO_LONG;
	for (size_t i = 0; i < len; i++)
		if (!spate_name_ok[(unsigned char)p[i]])
			return -SPATE_E_BAD_KEYWORD;
	return 0;
}

void spate_format_double(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e15) { /* whole numbers as such: 1000 */
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}
