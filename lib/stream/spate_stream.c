/* spate_stream.c - parser and writer of the text stream format (see
 * spate_stream.h). Every field is checked; a bad line gets a reason. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "proto/spate_err.h"
#include "stream/spate_stream.h"
#include "util/spate_hash.h"

#define MAX_FIELDS 9

struct field {
	const char *p;
	size_t len;
};

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -code;
}

static bool field_is(const struct field *f, const char *s)
{
	return f->len == strlen(s) && memcmp(f->p, s, f->len) == 0;
}

/* Shown in messages: at most 40 bytes of the field. */
#define SHOW(f) (int)((f)->len > 40 ? 40 : (f)->len), (f)->p

/* The number of the 8 digit values in w (0..9 a byte, the first digit
 * in the lowest byte): a few multiplies instead of a loop of 8 (each
 * pair, then each quad, then the two quads). */
static inline uint64_t digits_value(uint64_t w)
{
	w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffull;   /* pairs */
	w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffull; /* quads */
	return (w * 10000 + (w >> 32)) & 0xffffffffull;    /* all 8 */
}

/* The high bit of each byte of w (ASCII minus '0') that is not a
 * digit's value; a carry only leaves a byte whose bit is already on, so
 * the lowest bit set is the first byte that is not a digit. */
static inline uint64_t not_digits(uint64_t w)
{
	return ((w + 0x7676767676767676ull) | w) & 0x8080808080808080ull;
}

/* Is every byte of w (ASCII minus '0') a digit's value? */
static inline bool all_digits(uint64_t w)
{
	return not_digits(w) == 0;
}

/* A u64 in decimal. hi: how far reading is allowed (the line's end): an
 * id of up to 8 digits with 8 bytes to read is taken in one word (the
 * digit loop was 67 instructions a cities line). */
static int parse_u64(const struct field *f, const char *hi, uint64_t *out)
{
	uint64_t v = 0;

	size_t n = f->len, i = 0;
	const unsigned char *p = (const unsigned char *)f->p;

	if (n - 1 < 8 && hi - f->p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w ^= 0x3030303030303030ull;
		if (n < 8) /* the digits to the top: zeros (leading 0s) below */
			w <<= 8 * (8 - n);
		if (!all_digits(w))
			return -1;
		*out = digits_value(w);
		return 0;
	}
	if (n == 0 || n > 20)
		return -1;
	/* 19 digits cannot overflow; only a 20th needs the check */
	for (size_t m = n < 19 ? n : 19; i < m; i++) {
		unsigned d = p[i] - '0';
		if (d > 9)
			return -1;
		v = v * 10 + d;
	}
	if (i < n) {
		unsigned d = p[i] - '0';
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* The value of the 8 ASCII digits at p (first digit in the lowest byte),
 * or -1 when one of them is not a digit. */
static int64_t eight_digits(const char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	w ^= 0x3030303030303030ull; /* '0'..'9' -> 0..9, anything else above 9 */
	return all_digits(w) ? (int64_t)digits_value(w) : -1;
}

/* The usual coordinate, 1-3 integer digits and exactly 7 decimals (what
 * spate_format_coord writes, and every stream tool): its value, or -1
 * for anything else (the general parser decides). */
static int64_t coord_7_decimals(const char *p, size_t len)
{
	size_t dot = len - 8;

	if (len < 9 || len > 11 || p[dot] != '.')
		return -1;
	int64_t ip = 0;
	for (size_t i = 0; i < dot; i++) {
		unsigned d = (unsigned char)p[i] - '0';
		if (d > 9)
			return -1;
		ip = ip * 10 + d;
	}
	/* the 8 bytes from the dot, the dot read as a leading 0 */
	char b[8];
	memcpy(b, p + dot, 8);
	b[0] = '0';
	int64_t frac = eight_digits(b);
	return frac < 0 ? -1 : ip * SPATE_COORD_SCALE + frac;
}

int spate_parse_coord(const char *p, size_t len, int32_t max, int32_t *out)
{
	size_t i = 0;

	/* the common form first (a third of a stream line's parsing went
	 * here, a byte a step) */
	bool sign = len > 0 && (p[0] == '-' || p[0] == '+');
	int64_t fast = coord_7_decimals(p + sign, len - sign);
	if (fast >= 0) {
		if (sign && p[0] == '-')
			fast = -fast;
		if (fast < -(int64_t)max || fast > (int64_t)max)
			return -SPATE_E_BAD_COORD;
		*out = (int32_t)fast;
		return 0;
	}
	bool neg = false, digits = false;
	int64_t ip = 0, frac = 0;
	int fdigits = 0;
	bool round_up = false;

	if (len > 0 && (p[0] == '-' || p[0] == '+')) {
		neg = p[0] == '-';
		i++;
	}
	for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
		digits = true;
		ip = ip * 10 + (p[i] - '0');
		if (ip > 1000)
			return -SPATE_E_BAD_COORD;
	}
	if (i < len && p[i] == '.') {
		i++;
		for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
			digits = true;
			if (fdigits < 7) {
				frac = frac * 10 + (p[i] - '0');
				fdigits++;
			} else if (fdigits == 7) {
				/* The 8th decimal decides the rounding; ties go
				 * away from zero, whatever follows. */
				round_up = p[i] >= '5';
				fdigits++;
			}
		}
	}
	if (!digits || i != len)
		return -SPATE_E_BAD_SYNTAX;
	if (fdigits > 7)
		fdigits = 7;
	while (fdigits < 7) {
		frac *= 10;
		fdigits++;
	}
	int64_t v = ip * SPATE_COORD_SCALE + frac + (round_up ? 1 : 0);
	if (neg)
		v = -v;
	if (v < -(int64_t)max || v > (int64_t)max)
		return -SPATE_E_BAD_COORD;
	*out = (int32_t)v;
	return 0;
}

void spate_format_coord(int32_t v, char *buf, size_t len)
{
	int64_t a = v < 0 ? -(int64_t)v : v;

	snprintf(buf, len, "%s%" PRId64 ".%07" PRId64, v < 0 ? "-" : "", a / SPATE_COORD_SCALE,
		 a % SPATE_COORD_SCALE);
}

/* A bad coordinate's message, out of the way of parse_coord_field, whose
 * frame the varargs call made heavy on every call. */
static __attribute__((noinline, cold)) int coord_fail(const struct field *f, int rc, int32_t max,
						      const char *what, char *err, size_t errlen)
{
	if (rc == -SPATE_E_BAD_SYNTAX)
		return fail(err, errlen, SPATE_E_BAD_COORD, "%s '%.*s' is not a decimal number",
			    what, SHOW(f));
	return fail(err, errlen, SPATE_E_BAD_COORD, "%s '%.*s' out of range [-%d, %d]", what,
		    SHOW(f), max / SPATE_COORD_SCALE, max / SPATE_COORD_SCALE);
}

/* The usual form (coord_7_decimals, no sign or '-') here, the rest by
 * spate_parse_coord: the call and its frame were 40 of the 113
 * instructions a coordinate took. */
static inline int parse_coord_field(const struct field *f, int32_t max, const char *what,
				    int32_t *out, char *err, size_t errlen)
{
	bool neg = f->len > 0 && f->p[0] == '-';
	int64_t v = coord_7_decimals(f->p + neg, f->len - neg);
	int rc;

	if (v >= 0 && v <= (int64_t)max) {
		*out = (int32_t)(neg ? -v : v);
		return 0;
	}
	if ((rc = spate_parse_coord(f->p, f->len, max, out)) != 0)
		return coord_fail(f, rc, max, what, err, errlen);
	return 0;
}

/* 10^k, k <= 22: every one an exact double. */
static const double pow10_exact[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The plain decimal at the start of [p, end) ([+-]digits[.digits], at
 * most 2^53 as an integer of all the digits, at most 22 after the point,
 * under 64 bytes as parse_double wants) without strtod: the digits as an
 * integer m and the point's place k are exact doubles, so m / 10^k is one
 * correctly rounded IEEE division, which is what strtod returns
 * (Clinger's fast path). Where it stops (the first byte past it) with
 * *out, or NULL for anything else (exponents, long mantissas, no digit:
 * strtod decides). */
static inline __attribute__((always_inline)) const char *scan_decimal(const char *p,
								      const char *end, double *out)
{
	const char *q = p;
	bool neg = false;
	uint64_t m = 0;
	int k = 0;

	if (q < end && (*q == '-' || *q == '+'))
		neg = *q++ == '-';
	const char *digits = q;
	/* With 8 bytes left, fewer than 8 integer digits are taken in one
	 * word (the first byte that is not a digit is the first high bit: no
	 * carry before it); 8 or more go the loop's way. */
	if (end - q >= 8) {
		uint64_t w;
		memcpy(&w, q, 8);
		w ^= 0x3030303030303030ull;
		uint64_t not_digit = not_digits(w);
		if (not_digit != 0) {
			unsigned d = (unsigned)__builtin_ctzll(not_digit) / 8;
			if (d > 0) {
				m = digits_value(w << (8 * (8 - d)));
				q += d;
			}
		}
	}
	for (; q < end && (unsigned)(*q - '0') <= 9; q++) {
		if (m >= (1ull << 53) / 10)
			return NULL;
		m = m * 10 + (unsigned)(*q - '0');
	}
	bool some = q > digits;
	if (q < end && *q == '.') {
		const char *frac = ++q;
		for (; q < end && (unsigned)(*q - '0') <= 9; q++) {
			if (m >= (1ull << 53) / 10 || k == 22)
				return NULL;
			m = m * 10 + (unsigned)(*q - '0');
			k++;
		}
		some |= q > frac;
	}
	if (!some || q - p >= 64)
		return NULL;
	double v = (double)m / pow10_exact[k];
	*out = neg ? -v : v;
	return q;
}

/* A finite double from a field (strtod needs a NUL-terminated copy). */
static int parse_double(const char *p, size_t len, double *out)
{
	char tmp[64];
	char *end;

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	if (scan_decimal(p, p + len, out) == p + len)
		return 0;
	memcpy(tmp, p, len);
	tmp[len] = '\0';
	/* strtod would skip leading blanks; the format has none. */
	if (tmp[0] == ' ' || tmp[0] == '\t')
		return -1;
	errno = 0;
	double v = strtod(tmp, &end);
	if (end != tmp + len || !isfinite(v) || errno == ERANGE)
		return -1;
	*out = v;
	return 0;
}

/* Where the keyword at p (before end) stops, 8 bytes a step: at a comma
 * or at end when every byte before is keyword ASCII (*plain), else at
 * the first other byte (then *plain is false: UTF-8 or a bad byte, for
 * spate_check_keyword). One pass for the split and the check: memchr
 * for the comma and then the check cost 100 instructions a keyword, a
 * tenth of parsing a cities line. */
static const char *keyword_stop(const char *p, const char *end, bool *plain)
{
	for (;;) {
		size_t left = (size_t)(end - p);
		/* the padding's zero bytes stop it too (< 0x21) */
		uint64_t stop = spate_kw_stop_bits(
			spate_hash_load_padded((const unsigned char *)p, left < 8 ? left : 8));
		if (stop != 0) {
			size_t at = (size_t)__builtin_ctzll(stop) / 8;
			*plain = at >= left || p[at] == ',';
			return at >= left ? end : p + at;
		}
		p += 8;
	}
}

/* A bad keyword list's message (rc 0: too many keywords), out of the way
 * of parse_keywords' loop (as coord_fail). */
static __attribute__((noinline, cold)) int keywords_fail(const struct spate_limits *lim,
							 const char *k, size_t klen, int rc,
							 char *err, size_t errlen)
{
	if (rc == 0)
		return fail(err, errlen, SPATE_E_TOO_MANY_KEYWORDS, "more than %u keywords",
			    lim->max_keywords);
	return fail(err, errlen, -rc, "keyword '%.*s': %s", (int)(klen > 40 ? 40 : klen), k,
		    spate_err_reason(rc));
}

/* The limits of a keyword list, taken once. */
struct kw_limits {
	const struct spate_limits *lim;
	uint32_t max_n;
	size_t max_len;
};

/* The keyword [k, stop) as kw[c]: 0, or its error. A plain keyword
 * (keyword ASCII only) has only its length (and "-") to check. The
 * count stays in the caller's local (*n could alias kw[].len, so the
 * compiler reloaded it at every step). */
static inline int kw_take(const struct kw_limits *kl, struct spate_str *kw, uint32_t c,
			  const char *k, const char *stop, bool plain, char *err, size_t errlen)
{
	size_t klen = (size_t)(stop - k);

	if (c >= kl->max_n)
		return keywords_fail(kl->lim, k, klen, 0, err, errlen);
	if (!plain || klen - 1 >= kl->max_len || (klen == 1 && k[0] == '-')) {
		int rc = spate_check_keyword(kl->lim, k, klen);
		if (rc != 0)
			return keywords_fail(kl->lim, k, klen, rc, err, errlen);
	}
	kw[c].p = k;
	kw[c].len = (uint32_t)klen;
	return 0;
}

/* The keywords from p (a keyword's start) to end, one by one, the first
 * as kw[*n]: each one's end by keyword_stop, 8 bytes a step (memchr for
 * the comma of one that is not plain). */
static int keywords_by_word(const struct kw_limits *kl, const char *p, const char *end,
			    struct spate_str *kw, uint32_t *n, char *err, size_t errlen)
{
	uint32_t c = *n;
	int rc;

	for (;;) {
		bool plain;
		const char *k = p, *stop = keyword_stop(p, end, &plain);
		if (!plain) { /* not all keyword ASCII: its end by the comma */
			stop = memchr(stop, ',', (size_t)(end - stop));
			stop = stop ? stop : end;
		}
		if ((rc = kw_take(kl, kw, c, k, stop, plain, err, errlen)) != 0)
			break;
		c++;
		if (stop == end)
			break;
		p = stop + 1;
	}
	*n = c;
	return rc;
}

/* Split a comma list of keywords and check each. '-' alone means empty.
 * With SSE2, 16 bytes a step: the commas of a step as bits, and a byte
 * that is not keyword ASCII (< 0x21 signed takes 0x80-0xff too, and
 * 0x7f) sends the rest, from the keyword it is in, to keywords_by_word.
 * keyword_stop for each keyword and the loop around it cost 340
 * instructions a cities event (4.7 keywords). lo: where the line starts
 * (the last step reads the field's last 16 bytes, some before it). */
static int parse_keywords(const struct field *f, const char *lo, const struct spate_limits *lim,
			  struct spate_str *kw, uint32_t *n, char *err, size_t errlen)
{
	const struct kw_limits kl = {
		.lim = lim,
		.max_n = lim->max_keywords < SPATE_KW_MAX_HARD ? lim->max_keywords
							       : SPATE_KW_MAX_HARD,
		.max_len = lim->max_keyword_len < SPATE_KW_LEN_MAX_HARD ? lim->max_keyword_len
									: SPATE_KW_LEN_MAX_HARD,
	};
	uint32_t c = 0;
	int rc;

	*n = 0;
	if (f->len == 1 && f->p[0] == '-')
		return 0;
	const char *k = f->p, *end = f->p + f->len;
#if defined(__SSE2__)
	const __m128i comma = _mm_set1_epi8(','), low = _mm_set1_epi8(0x21),
		      del = _mm_set1_epi8(0x7f);
	for (const char *b = k;; b += 16) {
		/* the 16 bytes from b, or the field's last 16, those before b
		 * shifted out */
		unsigned seen = 0;
		const char *at = b;
		if (end - b < 16) {
			if (end - lo < 16)
				break;
			seen = 16 - (unsigned)(end - b);
			at = end - 16;
		}
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)at);
		unsigned bad = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmplt_epi8(v, low), _mm_cmpeq_epi8(v, del)));
		if ((bad >> seen) != 0)
			break;
		unsigned cm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)) >> seen;
		for (; cm != 0; cm &= cm - 1) {
			const char *stop = b + __builtin_ctz(cm);
			if ((rc = kw_take(&kl, kw, c, k, stop, true, err, errlen)) != 0) {
				*n = c;
				return rc;
			}
			c++;
			k = stop + 1;
		}
		if (end - b <= 16) { /* the last keyword, to the end */
			if ((rc = kw_take(&kl, kw, c, k, end, true, err, errlen)) == 0)
				c++;
			*n = c;
			return rc;
		}
	}
#endif
	*n = c;
	return keywords_by_word(&kl, k, end, kw, n, err, errlen);
}

static int find_op(const char *p, size_t len, size_t *name_len, int *op, size_t *op_len)
{
	for (size_t i = 0; i < len; i++) {
		char c = p[i];
		if (c != '<' && c != '>' && c != '=' && c != '!')
			continue;
		*name_len = i;
		char n = i + 1 < len ? p[i + 1] : '\0';
		*op_len = 1;
		switch (c) {
		case '<':
			*op = SPATE_OP_LT;
			if (n == '=') {
				*op = SPATE_OP_LE;
				*op_len = 2;
			}
			break;
		case '>':
			*op = SPATE_OP_GT;
			if (n == '=') {
				*op = SPATE_OP_GE;
				*op_len = 2;
			}
			break;
		case '=':
			*op = SPATE_OP_EQ;
			break;
		case '!':
			if (n != '=')
				return -1;
			*op = SPATE_OP_NE;
			*op_len = 2;
			break;
		}
		return 0;
	}
	return -1;
}

/* How many bytes of p (len) are name bytes (spate_name_ok) before the
 * first that is not: four table reads a step while four are left, no
 * branch between them (the byte loop took 9 instructions a byte, a
 * third of parsing an attribute). */
static inline __attribute__((always_inline)) size_t name_bytes(const char *p, size_t len)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0;

	while (i + 4 <= len && (spate_name_ok[s[i]] & spate_name_ok[s[i + 1]] &
				spate_name_ok[s[i + 2]] & spate_name_ok[s[i + 3]]))
		i += 4;
	while (i < len && spate_name_ok[s[i]])
		i++;
	return i;
}

/* One item of a pair list, `name OP number` in ilen bytes at item, with
 * every check and its message (the way of any item parse_pairs' quick
 * way does not take): 0 with *name_len, *op and *v. */
static int pair_checked(const char *item, size_t ilen, const struct spate_limits *lim,
			bool allow_ops, size_t *name_len, int *op, double *v, char *err,
			size_t errlen)
{
	const char *what = allow_ops ? "constraint" : "attribute";
	int ilen_show = (int)(ilen > 40 ? 40 : ilen);
	size_t op_len, at;

	/* The name's bytes, then the operator: one pass when the name is
	 * good (an operator byte is never a name byte, so this stops where
	 * find_op would); otherwise find_op and spate_check_name say what is
	 * wrong. */
	*name_len = name_bytes(item, ilen);
	char c = *name_len < ilen ? item[*name_len] : '\0';
	bool name_fits = *name_len > 0 && *name_len <= lim->max_name_len &&
			 *name_len <= SPATE_NAME_LEN_MAX_HARD;
	bool quick;
	if (c == '=') { /* every attribute's: what find_op says of it */
		*op = SPATE_OP_EQ;
		op_len = 1;
		quick = name_fits;
	} else {
		quick = name_fits && (c == '<' || c == '>' || c == '!') &&
			find_op(item + *name_len, ilen - *name_len, &at, op, &op_len) == 0;
	}
	if (!quick) {
		if (find_op(item, ilen, name_len, op, &op_len) != 0 ||
		    (!allow_ops && *op != SPATE_OP_EQ))
			return fail(err, errlen, allow_ops ? SPATE_E_BAD_OP : SPATE_E_BAD_SYNTAX,
				    "%s '%.*s': expected name%svalue", what, ilen_show, item,
				    allow_ops ? " OP " : "=");
		int rc = spate_check_name(lim, item, *name_len);
		if (rc != 0)
			return fail(err, errlen, -rc, "%s '%.*s': bad name: %s", what, ilen_show,
				    item, spate_err_reason(rc));
	} else if (!allow_ops && *op != SPATE_OP_EQ) {
		return fail(err, errlen, SPATE_E_BAD_SYNTAX, "%s '%.*s': expected name=value", what,
			    ilen_show, item);
	}
	if (parse_double(item + *name_len + op_len, ilen - *name_len - op_len, v) != 0)
		return fail(err, errlen, SPATE_E_BAD_VALUE,
			    "%s '%.*s': value is not a finite number", what, ilen_show, item);
	return 0;
}

/* How many bytes from item (before end) are name bytes: with SSE2, 16
 * at once (the field's last 16 where fewer are left, some before item:
 * lo is where the line starts), by ranges ('-'..'.', '0'..':', letters
 * folded to lower case, '_'); name_bytes' table reads, four a step, cost
 * 66 instructions a cities attribute name (10-12 bytes). */
static inline size_t name_bytes_at(const char *item, const char *end, const char *lo)
{
#if defined(__SSE2__)
	const char *at = item;
	unsigned seen = 0;
	if (end - item < 16 && end - lo >= 16) {
		at = end - 16;
		seen = (unsigned)(item - at);
	}
	if (end - at >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)at);
		__m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
		__m128i alpha =
			_mm_cmplt_epi8(_mm_add_epi8(lower, _mm_set1_epi8((char)(0x80 - 'a'))),
				       _mm_set1_epi8((char)(-128 + 26)));
		__m128i digit = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - '0'))),
					       _mm_set1_epi8((char)(-128 + 11)));
		__m128i dash = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - '-'))),
					      _mm_set1_epi8((char)(-128 + 2)));
		__m128i under = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
		unsigned ok = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_or_si128(alpha, digit), _mm_or_si128(dash, under)));
		unsigned other = ~ok >> seen & (0xffffu >> seen);
		if (other != 0)
			return (size_t)__builtin_ctz(other);
		size_t n = 16 - seen; /* all name bytes: on from there */
		return n + name_bytes(item + n, (size_t)(end - item) - n);
	}
#else
	(void)lo;
#endif
	return name_bytes(item, (size_t)(end - item));
}

/* Constraints (`allow_ops`) or attributes (only '='). The usual item, a
 * good name, its operator and a plain decimal, is read in one pass to
 * its comma (or the end): memchr for the comma first, then the name, the
 * operator and the number cost 223 instructions an attribute, a third
 * of parsing a cities line. Any other item goes by pair_checked, which
 * reads it again from its start. */
static int parse_pairs(const struct field *f, const char *lo, const struct spate_limits *lim,
		       bool allow_ops, struct spate_raw_constraint *cons,
		       struct spate_raw_attr *attrs, uint32_t *n, char *err, size_t errlen)
{
	uint32_t max = allow_ops ? lim->max_constraints : lim->max_attrs;
	uint32_t hard = allow_ops ? SPATE_CONS_MAX_HARD : SPATE_ATTR_MAX_HARD;
	uint32_t most = max < hard ? max : hard;
	size_t max_name = lim->max_name_len < SPATE_NAME_LEN_MAX_HARD ? lim->max_name_len
								      : SPATE_NAME_LEN_MAX_HARD;
	uint32_t c = 0;

	*n = 0;
	if (f->len == 1 && f->p[0] == '-')
		return 0;
	const char *p = f->p, *end = f->p + f->len;
	for (;;) {
		const char *item = p, *stop = NULL;
		size_t name_len, op_len = 1, at;
		int op = SPATE_OP_EQ;
		double v = 0;

		if (c >= most) {
			*n = c;
			return fail(
				err, errlen,
				allow_ops ? SPATE_E_TOO_MANY_CONSTRAINTS : SPATE_E_TOO_MANY_ATTRS,
				"more than %u %ss", max, allow_ops ? "constraint" : "attribute");
		}
		/* A name byte is never ',', an operator's or a number's, so
		 * the scan stops inside the item; the byte after an operator
		 * is the item's or its comma, which find_op reads as the end
		 * of the item. */
		name_len = name_bytes_at(item, end, lo);
		const char *o = item + name_len;
		bool quick = name_len - 1 < max_name && o < end &&
			     (*o == '=' || (allow_ops && (*o == '<' || *o == '>' || *o == '!') &&
					    find_op(o, (size_t)(end - o), &at, &op, &op_len) == 0));
		if (quick) {
			stop = scan_decimal(o + op_len, end, &v);
			if (stop != NULL && stop != end && *stop != ',')
				stop = NULL;
		}
		if (stop == NULL) {
			const char *comma = memchr(item, ',', (size_t)(end - item));
			stop = comma ? comma : end;
			int rc = pair_checked(item, (size_t)(stop - item), lim, allow_ops,
					      &name_len, &op, &v, err, errlen);
			if (rc != 0) {
				*n = c;
				return rc;
			}
		}
		if (allow_ops) {
			cons[c] = (struct spate_raw_constraint){ { item, (uint32_t)name_len },
								 (uint8_t)op,
								 v };
		} else {
			attrs[c] = (struct spate_raw_attr){ { item, (uint32_t)name_len }, v };
		}
		c++;
		if (stop == end) {
			*n = c;
			return 0;
		}
		p = stop + 1;
	}
}

/* A bad id's message, out of the way of parse_id (as coord_fail). */
static __attribute__((noinline, cold)) int id_fail(const struct field *f, char *err, size_t errlen)
{
	return fail(err, errlen, SPATE_E_BAD_ID, "id '%.*s' is not a decimal u64", SHOW(f));
}

/* hi: the line's end (parse_u64) */
static inline int parse_id(const struct field *f, const char *hi, uint64_t *id, char *err,
			   size_t errlen)
{
	return parse_u64(f, hi, id) != 0 ? id_fail(f, err, errlen) : 0;
}

static int parse_sub(const struct field *fl, size_t nf, const struct spate_limits *lim,
		     struct spate_raw_sub *s, char *err, size_t errlen)
{
	int rc;

	if (nf != 7 && nf != 8)
		return fail(err, errlen, SPATE_E_BAD_SYNTAX,
			    "sub takes 6 or 7 fields (id minlon minlat maxlon maxlat keywords "
			    "[constraints]), got %zu",
			    nf - 1);
	memset(&s->dest, 0, sizeof(s->dest));
	if ((rc = parse_id(&fl[1], fl[nf - 1].p + fl[nf - 1].len, &s->id, err, errlen)) ||
	    (rc = parse_coord_field(&fl[2], SPATE_LON_MAX, "minlon", &s->rect.min_lon, err,
				    errlen)) ||
	    (rc = parse_coord_field(&fl[3], SPATE_LAT_MAX, "minlat", &s->rect.min_lat, err,
				    errlen)) ||
	    (rc = parse_coord_field(&fl[4], SPATE_LON_MAX, "maxlon", &s->rect.max_lon, err,
				    errlen)) ||
	    (rc = parse_coord_field(&fl[5], SPATE_LAT_MAX, "maxlat", &s->rect.max_lat, err,
				    errlen)))
		return rc;
	if (spate_check_rect(&s->rect) != 0)
		return fail(err, errlen, SPATE_E_INVERTED_RECT,
			    "rectangle min greater than max (%.*s > %.*s or %.*s > %.*s)",
			    SHOW(&fl[2]), SHOW(&fl[4]), SHOW(&fl[3]), SHOW(&fl[5]));
	if ((rc = parse_keywords(&fl[6], fl[0].p, lim, s->kw, &s->n_kw, err, errlen)))
		return rc;
	s->n_cons = 0;
	if (nf == 8)
		return parse_pairs(&fl[7], fl[0].p, lim, true, s->cons, NULL, &s->n_cons, err,
				   errlen);
	return 0;
}

static int parse_event(const struct field *fl, size_t nf, const struct spate_limits *lim,
		       struct spate_raw_event *e, char *err, size_t errlen)
{
	int rc;

	if (nf != 5 && nf != 6)
		return fail(err, errlen, SPATE_E_BAD_SYNTAX,
			    "event takes 4 or 5 fields (id lon lat keywords [attributes]), got %zu",
			    nf - 1);
	if ((rc = parse_id(&fl[1], fl[nf - 1].p + fl[nf - 1].len, &e->id, err, errlen)) ||
	    (rc = parse_coord_field(&fl[2], SPATE_LON_MAX, "lon", &e->lon, err, errlen)) ||
	    (rc = parse_coord_field(&fl[3], SPATE_LAT_MAX, "lat", &e->lat, err, errlen)) ||
	    (rc = parse_keywords(&fl[4], fl[0].p, lim, e->kw, &e->n_kw, err, errlen)))
		return rc;
	e->n_attr = 0;
	if (nf == 6)
		return parse_pairs(&fl[5], fl[0].p, lim, false, NULL, e->attr, &e->n_attr, err,
				   errlen);
	return 0;
}

/* A line's fields and NUL bytes, found in one pass (16 bytes a step
 * where SSE2 is there): six memchr calls for the tabs, the loop around
 * them and one memchr for a NUL cost 280 instructions a cities line, a
 * fifth of parsing it. */
struct line_scan {
	struct field fl[MAX_FIELDS + 1]; /* the first MAX_FIELDS fields (and a start past them) */
	size_t n_tab;                    /* tabs in all */
	bool empty; /* one of the first MAX_FIELDS - 1 tabs ends an empty field */
	bool nul;
};

/* The tabs among the bytes from base whose bits are set in t: each ends
 * a field and starts the next. */
static inline void scan_tabs(struct line_scan *s, const char *base, unsigned t)
{
	for (; t != 0; t &= t - 1) {
		const char *at = base + __builtin_ctz(t);
		if (s->n_tab < MAX_FIELDS) {
			struct field *f = &s->fl[s->n_tab];
			f->len = (size_t)(at - f->p);
			s->empty |= f->len == 0;
			f[1].p = at + 1;
		}
		s->n_tab++;
	}
}

static void scan_line(const char *p, size_t len, struct line_scan *s)
{
	size_t i = 0;

	s->fl[0].p = p;
	s->n_tab = 0;
	s->empty = false;
	s->nul = false;
#if defined(__SSE2__)
	const __m128i tab = _mm_set1_epi8('\t'), zero = _mm_setzero_si128();
	unsigned nul = 0;

	for (; i + 16 <= len; i += 16) {
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		nul |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(c, zero));
		scan_tabs(s, p + i, (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(c, tab)));
	}
	if (i < len && len >= 16) {
		/* the last 16 bytes, less those seen already */
		unsigned seen = 16 - (unsigned)(len - i);
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(p + len - 16));
		nul |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(c, zero)) >> seen;
		scan_tabs(s, p + i, (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(c, tab)) >> seen);
		i = len;
	}
	s->nul = nul != 0;
#endif
	for (; i < len; i++) {
		s->nul |= p[i] == '\0';
		if (p[i] == '\t')
			scan_tabs(s, p + i, 1);
	}
	if (s->n_tab < MAX_FIELDS) {
		struct field *f = &s->fl[s->n_tab];
		f->len = (size_t)(p + len - f->p);
		s->empty |= f->len == 0;
	}
}

/* A bad split's message (an empty field, a tenth one): the fields in
 * order, as a split at each tab meets them. */
static __attribute__((noinline, cold)) int split_fail(const struct line_scan *sc, char *err,
						      size_t errlen)
{
	for (size_t k = 0; k <= sc->n_tab; k++) {
		if (k == MAX_FIELDS)
			return fail(err, errlen, SPATE_E_BAD_SYNTAX, "too many fields");
		if (sc->fl[k].len == 0)
			return fail(err, errlen, SPATE_E_BAD_SYNTAX,
				    "field %zu is empty (fields are separated by one tab)", k + 1);
	}
	return fail(err, errlen, SPATE_E_BAD_SYNTAX, "bad split"); /* not reached */
}

/* spate_stream_parse_line; with reject_nul a NUL byte anywhere in the
 * line is its error, before any other (op untouched then). */
static int parse_line(const char *line, size_t len, const struct spate_limits *lim,
		      struct spate_stream_op *op, char *err, size_t errlen, bool reject_nul)
{
	struct line_scan sc;
	const struct field *fl = sc.fl;

	/* a byte above '\r' ends most lines' stripping at one test */
	while (len > 0 && (unsigned char)line[len - 1] <= '\r' &&
	       (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	scan_line(line, len, &sc);
	if (reject_nul && sc.nul)
		return fail(err, errlen, SPATE_E_BAD_SYNTAX, "NUL byte in line");
	op->kind = SPATE_LINE_NONE;
	if (len == 0 || line[0] == '#')
		return 0;
	if (sc.empty || sc.n_tab >= MAX_FIELDS)
		return split_fail(&sc, err, errlen);
	size_t nf = sc.n_tab + 1;
	/* events first: most lines are */
	if (field_is(&fl[0], "event")) {
		op->kind = SPATE_LINE_EVENT;
		return parse_event(fl, nf, lim, &op->u.ev, err, errlen);
	}
	if (field_is(&fl[0], "sub")) {
		op->kind = SPATE_LINE_SUB;
		return parse_sub(fl, nf, lim, &op->u.sub, err, errlen);
	}
	if (field_is(&fl[0], "unsub")) {
		op->kind = SPATE_LINE_UNSUB;
		if (nf != 2)
			return fail(err, errlen, SPATE_E_BAD_SYNTAX,
				    "unsub takes 1 field (id), got %zu", nf - 1);
		return parse_id(&fl[1], line + len, &op->u.unsub_id, err, errlen);
	}
	op->kind = SPATE_LINE_NONE;
	return fail(err, errlen, SPATE_E_BAD_SYNTAX,
		    "unknown operation '%.*s' (expected sub, unsub or event)", SHOW(&fl[0]));
}

int spate_stream_parse_line(const char *line, size_t len, const struct spate_limits *lim,
			    struct spate_stream_op *op, char *err, size_t errlen)
{
	return parse_line(line, len, lim, op, err, errlen, false);
}

int spate_stream_open(struct spate_stream_reader *r, const char *path,
		      const struct spate_limits *lim)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->lim = lim;
	if (strcmp(path, "-") == 0) {
		r->f = stdin;
		r->path = "<stdin>";
		return 0;
	}
	r->f = fopen(path, "r");
	return r->f ? 0 : -1;
}

void spate_stream_close(struct spate_stream_reader *r)
{
	if (r->f && r->f != stdin)
		fclose(r->f);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

#define READ_BLOCK ((size_t)64 << 10)

/* next_line when the block read has no whole line left: reads on. */
static __attribute__((noinline)) char *next_line_read(struct spate_stream_reader *r, size_t *len)
{
	size_t scanned = 0; /* bytes from r->at known to hold no newline */

	for (;;) {
		char *line = r->buf + r->at;
		char *nl = r->end > r->at + scanned
				   ? memchr(line + scanned, '\n', r->end - r->at - scanned)
				   : NULL;
		if (nl != NULL || (r->eof && r->end > r->at)) {
			*len = nl != NULL ? (size_t)(nl + 1 - line) : r->end - r->at;
			r->at += *len;
			return line;
		}
		if (r->eof)
			return NULL;
		scanned = r->end - r->at;
		if (r->at > 0) { /* the partial line to the front */
			memmove(r->buf, line, scanned);
			r->at = 0;
			r->end = scanned;
		}
		if (r->end == r->cap) {
			size_t ncap = r->cap ? 2 * r->cap : READ_BLOCK;
			char *nb = realloc(r->buf, ncap);
			if (nb == NULL)
				return NULL;
			r->buf = nb;
			r->cap = ncap;
		}
		ssize_t n = read(fileno(r->f), r->buf + r->end, r->cap - r->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			r->eof = true;
		else
			r->end += (size_t)n;
	}
}

/* The next line (its newline included, if it has one) in place in r->buf,
 * valid until the next call; NULL at the end of the file (or when a line
 * outgrows memory, as getline did). getline cost 162 instructions a line
 * (its copy, stdio's locking), a twelfth of parsing a cities line. A line
 * whole in the block read is found here, in line; the rest by
 * next_line_read (as one call with the reading path, its frame cost
 * about 30 instructions a line). */
static inline char *next_line(struct spate_stream_reader *r, size_t *len)
{
	if (r->end > r->at) {
		char *line = r->buf + r->at;
		char *nl = memchr(line, '\n', r->end - r->at);
		if (nl != NULL) {
			*len = (size_t)(nl + 1 - line);
			r->at += *len;
			return line;
		}
	}
	return next_line_read(r, len);
}

/* The next operation, as spate_stream_next; a bad line's reason in why
 * when why is not NULL, and the line kept (r->bad, r->bad_len) for
 * spate_stream_next_reported to parse again for its reason. */
static inline int next_op(struct spate_stream_reader *r, struct spate_stream_op *op, char *why,
			  size_t whylen)
{
	size_t n;

	for (;;) {
		char *line = next_line(r, &n);
		if (line == NULL)
			return 0;
		r->line_no++;
		int rc = parse_line(line, n, r->lim, op, why, whylen, true);
		if (rc != 0) {
			r->bad = line;
			r->bad_len = n;
			return rc;
		}
		if (op->kind != SPATE_LINE_NONE)
			return 1;
	}
}

int spate_stream_next(struct spate_stream_reader *r, struct spate_stream_op *op, char *err,
		      size_t errlen)
{
	char why[256];
	int rc = next_op(r, op, why, sizeof(why));

	if (rc < 0)
		snprintf(err, errlen, "%s:%lu: %s", r->path, r->line_no, why);
	return rc;
}

/* A bad line's report, its reason from parsing the line again: the good
 * lines' way writes no message (the buffers for one, on the stack of
 * every call, and their setup were 40 instructions a line). */
static __attribute__((noinline, cold)) void report_bad(struct spate_stream_reader *r,
						       struct spate_stream_op *op, const char *prog)
{
	char why[256], err[512];

	parse_line(r->bad, r->bad_len, r->lim, op, why, sizeof(why), true);
	snprintf(err, sizeof(err), "%s:%lu: %s", r->path, r->line_no, why);
	fprintf(stderr, "%s: %s\n", prog, err);
}

int spate_stream_next_reported(struct spate_stream_reader *r, struct spate_stream_op *op,
			       const char *prog, bool skip_bad, uint64_t *n_bad)
{
	int rc;

	while ((rc = next_op(r, op, NULL, 0)) < 0) {
		report_bad(r, op, prog);
		(*n_bad)++;
		if (!skip_bad)
			return -1;
	}
	return rc;
}

static void write_strs(FILE *f, const struct spate_str *s, uint32_t n)
{
	if (n == 0) {
		fputc('-', f);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s%.*s", i ? "," : "", (int)s[i].len, s[i].p);
}

void spate_stream_write(FILE *f, const struct spate_stream_op *op)
{
	char a[24], b[24], c[24], d[24];

	switch (op->kind) {
	case SPATE_LINE_SUB: {
		const struct spate_raw_sub *s = &op->u.sub;
		spate_format_coord(s->rect.min_lon, a, sizeof(a));
		spate_format_coord(s->rect.min_lat, b, sizeof(b));
		spate_format_coord(s->rect.max_lon, c, sizeof(c));
		spate_format_coord(s->rect.max_lat, d, sizeof(d));
		fprintf(f, "sub\t%" PRIu64 "\t%s\t%s\t%s\t%s\t", s->id, a, b, c, d);
		write_strs(f, s->kw, s->n_kw);
		if (s->n_cons > 0) {
			fputc('\t', f);
			for (uint32_t i = 0; i < s->n_cons; i++)
				fprintf(f, "%s%.*s%s%.17g", i ? "," : "", (int)s->cons[i].name.len,
					s->cons[i].name.p, spate_op_str(s->cons[i].op),
					s->cons[i].value);
		}
		break;
	}
	case SPATE_LINE_UNSUB:
		fprintf(f, "unsub\t%" PRIu64, op->u.unsub_id);
		break;
	case SPATE_LINE_EVENT: {
		const struct spate_raw_event *e = &op->u.ev;
		spate_format_coord(e->lon, a, sizeof(a));
		spate_format_coord(e->lat, b, sizeof(b));
		fprintf(f, "event\t%" PRIu64 "\t%s\t%s\t", e->id, a, b);
		write_strs(f, e->kw, e->n_kw);
		if (e->n_attr > 0) {
			fputc('\t', f);
			for (uint32_t i = 0; i < e->n_attr; i++)
				fprintf(f, "%s%.*s=%.17g", i ? "," : "", (int)e->attr[i].name.len,
					e->attr[i].name.p, e->attr[i].value);
		}
		break;
	}
	default:
		return;
	}
	fputc('\n', f);
}
