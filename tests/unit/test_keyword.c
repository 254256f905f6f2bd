/* test_keyword.c - spate_check_keyword (a table lookup per ASCII byte)
 * against a plain byte-by-byte oracle written here from the rules of
 * docs/protocol.md: printable ASCII but ',' and space, or well-formed
 * UTF-8 (no overlongs, no surrogates, at most U+10FFFF); not empty, not
 * "-" alone, not longer than the limit. Random strings built from the
 * bytes where the rules change, at every alignment. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proto/spate_err.h"
#include "proto/spate_types.h"

static bool oracle_utf8(const unsigned char *s, size_t len, size_t *i)
{
	unsigned char c = s[*i];
	size_t n = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t cp = n == 2 ? c & 0x1fu : n == 3 ? c & 0x0fu : c & 0x07u;

	if (n == 0 || *i + n > len)
		return false;
	for (size_t k = 1; k < n; k++) {
		if ((s[*i + k] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (s[*i + k] & 0x3fu);
	}
	uint32_t min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return false;
	*i += n;
	return true;
}

static int oracle(const struct spate_limits *lim, const unsigned char *s, size_t len)
{
	if (len == 0)
		return -SPATE_E_EMPTY_KEYWORD;
	if (len > lim->max_keyword_len)
		return -SPATE_E_KEYWORD_TOO_LONG;
	if (len == 1 && s[0] == '-')
		return -SPATE_E_BAD_KEYWORD;
	for (size_t i = 0; i < len;) {
		if (s[i] >= 0x80) {
			if (!oracle_utf8(s, len, &i))
				return -SPATE_E_BAD_KEYWORD;
		} else if (s[i] > 0x20 && s[i] < 0x7f && s[i] != ',') {
			i++;
		} else {
			return -SPATE_E_BAD_KEYWORD;
		}
	}
	return 0;
}

int main(void)
{
	static const unsigned char edge[] = { 0x00, 0x01, 0x1f, 0x20, 0x21, 0x2b, 0x2c, 0x2d,
					      0x7e, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
					      0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0 };
	static const char *utf8[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
				      "\xed\x9f\xbf", "\xf4\x8f\xbf\xbf" };
	struct spate_limits lim;
	unsigned char buf[8 + 300];
	long diff = 0, valid = 0;

	spate_limits_default(&lim);
	lim.max_keyword_len = 255;
	check_rng = 20261203;
	for (int t = 0; t < 400000; t++) {
		size_t off = check_below(8), len = 0, want = check_below(70);
		unsigned char *s = buf + off;
		int mode = (int)check_below(4);
		while (len < want) {
			uint32_t pick = check_below(100);
			if (mode == 0 || (int)pick < 90 - 25 * mode) {
				s[len++] = (unsigned char)('a' + check_below(26));
			} else if (pick < 96) {
				s[len++] = edge[check_below((uint32_t)sizeof(edge))];
			} else {
				const char *u = utf8[check_below(5)];
				size_t n = strlen(u);
				if (len + n > want)
					break;
				memcpy(s + len, u, n);
				len += n;
			}
		}
		int got = spate_check_keyword(&lim, (const char *)s, len);
		int exp = oracle(&lim, s, len);
		valid += exp == 0;
		if (got != exp && diff++ < 10)
			CHECK_EQ_INT(got, exp);
	}
	CHECK_EQ_INT(diff, 0);
	CHECK(valid > 50000); /* the valid side was exercised too */
	/* the length limit, on both sides */
	memset(buf, 'k', sizeof(buf));
	CHECK_EQ_INT(spate_check_keyword(&lim, (const char *)buf, 255), 0);
	CHECK_EQ_INT(spate_check_keyword(&lim, (const char *)buf, 256), -SPATE_E_KEYWORD_TOO_LONG);
	buf[200] = ',';
	CHECK_EQ_INT(spate_check_keyword(&lim, (const char *)buf, 255), -SPATE_E_BAD_KEYWORD);
	return check_summary("keyword");
}
