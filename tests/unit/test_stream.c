/* test_stream.c - the stream format parser on good and bad lines. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "proto/spate_err.h"
#include "stream/spate_stream.h"

static struct spate_limits lim;

static int parse(const char *line, struct spate_stream_op *op)
{
	char err[256];
	return spate_stream_parse_line(line, strlen(line), &lim, op, err, sizeof(err));
}

static bool str_is(const struct spate_str *s, const char *want)
{
	return s->len == strlen(want) && memcmp(s->p, want, s->len) == 0;
}

/* The line fmt makes parses to want (0 or -SPATE_E_*). */
static void check_line(int want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check_line(int want, const char *fmt, ...)
{
	char line[512];
	struct spate_stream_op op;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	CHECK_EQ_INT(parse(line, &op), want);
}

static void test_good(void)
{
	struct spate_stream_op op;

	CHECK_EQ_INT(parse("", &op), 0);
	CHECK_EQ_INT(op.kind, SPATE_LINE_NONE);
	CHECK_EQ_INT(parse("# a comment\tsub\t1", &op), 0);
	CHECK_EQ_INT(op.kind, SPATE_LINE_NONE);

	CHECK_EQ_INT(
		parse("sub\t7\t-10.5\t-20\t30.25\t40.0000001\tcafe,bar\tpop>=100,elev<500.5,x!=3\n",
		      &op),
		0);
	CHECK_EQ_INT(op.kind, SPATE_LINE_SUB);
	CHECK_EQ_INT(op.u.sub.id, 7);
	CHECK_EQ_INT(op.u.sub.rect.min_lon, -105000000);
	CHECK_EQ_INT(op.u.sub.rect.min_lat, -200000000);
	CHECK_EQ_INT(op.u.sub.rect.max_lon, 302500000);
	CHECK_EQ_INT(op.u.sub.rect.max_lat, 400000001);
	CHECK_EQ_INT(op.u.sub.n_kw, 2);
	CHECK(str_is(&op.u.sub.kw[0], "cafe") && str_is(&op.u.sub.kw[1], "bar"));
	CHECK_EQ_INT(op.u.sub.n_cons, 3);
	CHECK(str_is(&op.u.sub.cons[0].name, "pop") && op.u.sub.cons[0].op == SPATE_OP_GE &&
	      op.u.sub.cons[0].value == 100);
	CHECK(str_is(&op.u.sub.cons[1].name, "elev") && op.u.sub.cons[1].op == SPATE_OP_LT &&
	      op.u.sub.cons[1].value == 500.5);
	CHECK(op.u.sub.cons[2].op == SPATE_OP_NE);

	CHECK_EQ_INT(parse("sub\t18446744073709551615\t-180\t-90\t180\t90\t-\r\n", &op), 0);
	CHECK(op.u.sub.id == UINT64_MAX);
	/* a 20th digit of 9 (the 20th is read apart from the first 19) */
	CHECK_EQ_INT(parse("sub\t10000000000000000009\t-180\t-90\t180\t90\t-", &op), 0);
	CHECK(op.u.sub.id == 10000000000000000009ull);
	CHECK_EQ_INT(op.u.sub.n_kw, 0);
	CHECK_EQ_INT(op.u.sub.n_cons, 0);
	CHECK_EQ_INT(parse("sub\t1\t0\t0\t0\t0\tk\t-", &op), 0);
	CHECK_EQ_INT(op.u.sub.n_cons, 0);
	CHECK_EQ_INT(parse("sub\t1\t0\t0\t0\t0\tk\ta<=1,b>2,c=3", &op), 0);
	CHECK(op.u.sub.cons[0].op == SPATE_OP_LE && op.u.sub.cons[1].op == SPATE_OP_GT &&
	      op.u.sub.cons[2].op == SPATE_OP_EQ && op.u.sub.cons[2].value == 3);

	CHECK_EQ_INT(parse("unsub\t42", &op), 0);
	CHECK_EQ_INT(op.kind, SPATE_LINE_UNSUB);
	CHECK_EQ_INT(op.u.unsub_id, 42);

	CHECK_EQ_INT(
		parse("event\t9\t145.39200\t-6.08169\tiata:gka,n:goroka\taltitude_ft=5282,utc=10",
		      &op),
		0);
	CHECK_EQ_INT(op.kind, SPATE_LINE_EVENT);
	CHECK_EQ_INT(op.u.ev.lon, 1453920000);
	CHECK_EQ_INT(op.u.ev.lat, -60816900);
	CHECK_EQ_INT(op.u.ev.n_kw, 2);
	CHECK_EQ_INT(op.u.ev.n_attr, 2);
	CHECK(op.u.ev.attr[0].value == 5282 && str_is(&op.u.ev.attr[1].name, "utc"));
	CHECK_EQ_INT(parse("event\t9\t0\t0\t-", &op), 0);
	CHECK_EQ_INT(op.u.ev.n_kw, 0);
	/* UTF-8 keywords are fine. */
	CHECK_EQ_INT(parse("event\t9\t0\t0\tcaf\xc3\xa9,\xe5\x8c\x97\xe4\xba\xac", &op), 0);
	CHECK_EQ_INT(op.u.ev.n_kw, 2);
	/* exactly the limit of keywords */
	CHECK_EQ_INT(parse("event\t1\t0\t0\ta,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p", &op), 0);
	CHECK_EQ_INT(op.u.ev.n_kw, 16);
}

static void test_coords(void)
{
	int32_t v;

	CHECK_EQ_INT(spate_parse_coord("1.00000005", 10, SPATE_LON_MAX, &v), 0);
	CHECK_EQ_INT(v, 10000001); /* tie rounds away from zero */
	CHECK_EQ_INT(spate_parse_coord("-1.00000005", 11, SPATE_LON_MAX, &v), 0);
	CHECK_EQ_INT(v, -10000001);
	CHECK_EQ_INT(spate_parse_coord("1.000000049999", 14, SPATE_LON_MAX, &v), 0);
	CHECK_EQ_INT(v, 10000000);
	CHECK_EQ_INT(spate_parse_coord("180", 3, SPATE_LON_MAX, &v), 0);
	CHECK_EQ_INT(v, SPATE_LON_MAX);
	CHECK_EQ_INT(spate_parse_coord("180.00000001", 12, SPATE_LON_MAX, &v), 0);
	CHECK_EQ_INT(spate_parse_coord("180.00000005", 12, SPATE_LON_MAX, &v), -SPATE_E_BAD_COORD);
	CHECK_EQ_INT(spate_parse_coord("-90.0000001", 11, SPATE_LAT_MAX, &v), -SPATE_E_BAD_COORD);
	CHECK_EQ_INT(spate_parse_coord("1e3", 3, SPATE_LON_MAX, &v), -SPATE_E_BAD_SYNTAX);
	CHECK_EQ_INT(spate_parse_coord("nan", 3, SPATE_LON_MAX, &v), -SPATE_E_BAD_SYNTAX);
	CHECK_EQ_INT(spate_parse_coord(".", 1, SPATE_LON_MAX, &v), -SPATE_E_BAD_SYNTAX);
	CHECK_EQ_INT(spate_parse_coord("-", 1, SPATE_LON_MAX, &v), -SPATE_E_BAD_SYNTAX);
	CHECK_EQ_INT(spate_parse_coord("99999999999", 11, SPATE_LON_MAX, &v), -SPATE_E_BAD_COORD);

	/* Exactly 7 decimals take a fast path: the same value and verdict as
	 * the general parser gives the same text with an 8th decimal 0, on
	 * every value's form and with each byte replaced by a non-digit. */
	check_rng = 77;
	for (int k = 0; k < 200000; k++) {
		char s7[16], s8[17];
		int32_t a = 0, b = 0;
		int64_t x = (int64_t)check_below(2 * 1000 * 10000000u + 1) - 1000ll * 10000000;
		if (k % 4 == 0) /* near the borders and zero */
			x = (int64_t)(k % 8 ? SPATE_LON_MAX : 0) + (int64_t)check_below(5) - 2;
		int n = snprintf(s7, sizeof(s7), "%s%s%lld.%07lld", x < 0 ? "-" : "",
				 k % 3 == 0 && x >= 0 ? "+" : "", (long long)(llabs(x) / 10000000),
				 (long long)(llabs(x) % 10000000));
		if (k % 5 == 0) /* a byte gone wrong: a letter, a dot, a space, '/', ':' */
			s7[check_below((uint32_t)n)] = "a./: -"[check_below(6)];
		snprintf(s8, sizeof(s8), "%s0", s7);
		int ra = spate_parse_coord(s7, (size_t)n, SPATE_LON_MAX, &a);
		int rb = spate_parse_coord(s8, (size_t)n + 1, SPATE_LON_MAX, &b);
		CHECK_EQ_INT(ra, rb);
		if (ra == 0 && rb == 0)
			CHECK_EQ_INT(a, b);
		if (ra == 0 && k % 5 != 0)
			CHECK_EQ_INT(a, x);
	}

	char buf[24];
	spate_format_coord(-60816900, buf, sizeof(buf));
	CHECK(strcmp(buf, "-6.0816900") == 0);
	spate_format_coord(-1, buf, sizeof(buf));
	CHECK(strcmp(buf, "-0.0000001") == 0);
	spate_format_coord(SPATE_LON_MAX, buf, sizeof(buf));
	CHECK(strcmp(buf, "180.0000000") == 0);
}

static void test_bad(void)
{
	static const struct {
		const char *line;
		int code;
	} cases[] = {
		{ "subscribe\t1", SPATE_E_BAD_SYNTAX },
		{ "sub\t1\t0\t0\t1\t1", SPATE_E_BAD_SYNTAX },
		{ "sub\t1\t0\t0\t1\t1\tk\t-\textra", SPATE_E_BAD_SYNTAX },
		{ "sub\t-1\t0\t0\t1\t1\tk", SPATE_E_BAD_ID },
		{ "sub\t18446744073709551616\t0\t0\t1\t1\tk", SPATE_E_BAD_ID },
		{ "sub\tx\t0\t0\t1\t1\tk", SPATE_E_BAD_ID },
		{ "sub\t1\t0\t0\t1\t1\t", SPATE_E_BAD_SYNTAX },
		{ "sub\t1\t0\t0\t1\t1\t\tk", SPATE_E_BAD_SYNTAX },
		{ "sub\t1\t0 \t0\t1\t1\tk", SPATE_E_BAD_COORD },
		{ "sub\t1\t181\t0\t182\t1\tk", SPATE_E_BAD_COORD },
		{ "sub\t1\t0\t-91\t1\t1\tk", SPATE_E_BAD_COORD },
		{ "sub\t1\t5\t0\t1\t1\tk", SPATE_E_INVERTED_RECT },
		{ "sub\t1\t0\t5\t1\t1\tk", SPATE_E_INVERTED_RECT },
		{ "sub\t1\t0\t0\t1\t1\ta,,b", SPATE_E_EMPTY_KEYWORD },
		{ "sub\t1\t0\t0\t1\t1\ta,", SPATE_E_EMPTY_KEYWORD },
		{ "sub\t1\t0\t0\t1\t1\ta b", SPATE_E_BAD_KEYWORD },
		{ "sub\t1\t0\t0\t1\t1\ta,-", SPATE_E_BAD_KEYWORD },
		{ "sub\t1\t0\t0\t1\t1\t\xff\xfe", SPATE_E_BAD_KEYWORD },
		{ "sub\t1\t0\t0\t1\t1\t\xc0\xaf", SPATE_E_BAD_KEYWORD },
		{ "sub\t1\t0\t0\t1\t1\ta,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q",
		  SPATE_E_TOO_MANY_KEYWORDS },
		{ "sub\t1\t0\t0\t1\t1\t"
		  "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
		  SPATE_E_KEYWORD_TOO_LONG },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop", SPATE_E_BAD_OP },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop!100", SPATE_E_BAD_OP },
		/* no operator in the first item, one in the next: not borrowed */
		{ "sub\t1\t0\t0\t1\t1\tk\tpop!100,x!=1", SPATE_E_BAD_OP },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop<,x<=1", SPATE_E_BAD_VALUE },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop>=", SPATE_E_BAD_VALUE },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop>=abc", SPATE_E_BAD_VALUE },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop>=nan", SPATE_E_BAD_VALUE },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop>=inf", SPATE_E_BAD_VALUE },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop>=1e999", SPATE_E_BAD_VALUE },
		{ "sub\t1\t0\t0\t1\t1\tk\tpop>=1,", SPATE_E_BAD_OP },
		{ "sub\t1\t0\t0\t1\t1\tk\t>=1", SPATE_E_EMPTY_KEYWORD },
		{ "sub\t1\t0\t0\t1\t1\tk\tp$p>=1", SPATE_E_BAD_KEYWORD },
		{ "sub\t1\t0\t0\t1\t1\tk\t"
		  "a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1",
		  SPATE_E_TOO_MANY_CONSTRAINTS },
		{ "unsub", SPATE_E_BAD_SYNTAX },
		{ "unsub\t1\t2", SPATE_E_BAD_SYNTAX },
		{ "unsub\t0x10", SPATE_E_BAD_ID },
		{ "event\t1\t0\t0", SPATE_E_BAD_SYNTAX },
		{ "event\t1\tNaN\t0\tk", SPATE_E_BAD_COORD },
		{ "event\t1\t0\t90.0000001\tk", SPATE_E_BAD_COORD },
		{ "event\t1\t0\t0\tk\tpop>5", SPATE_E_BAD_SYNTAX },
		{ "event\t1\t0\t0\tk\tpop", SPATE_E_BAD_SYNTAX },
		{ "event\t1\t0\t0\tk\tpop=", SPATE_E_BAD_VALUE },
		{ "event\t1\t0\t0\tk\tpop=-inf", SPATE_E_BAD_VALUE },
		{ "event\t1\t0\t0\tk\t"
		  "a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1",
		  SPATE_E_TOO_MANY_ATTRS },
		{ "event 1 0 0 k", SPATE_E_BAD_SYNTAX },
		{ "\tevent\t1\t0\t0\tk", SPATE_E_BAD_SYNTAX },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spate_stream_op op;
		char err[256] = "";
		int rc = spate_stream_parse_line(cases[i].line, strlen(cases[i].line), &lim, &op,
						 err, sizeof(err));
		if (rc != -cases[i].code)
			fprintf(stderr, "case %zu '%s': got %s (%s), want %s\n", i, cases[i].line,
				spate_err_name(rc), err, spate_err_name(cases[i].code));
		CHECK_EQ_INT(rc, -cases[i].code);
		CHECK(err[0] != '\0');
	}
}

/* Writing an op and parsing it again gives the same op. */
static void test_write_roundtrip(void)
{
	const char *lines[] = {
		"sub\t5\t-10.1234567\t-0.0000001\t10\t20\ta,b\tx>=0.1,y!=-3e-7",
		"event\t6\t1.5\t-2.5\tk\tx=0.30000000000000004",
		"unsub\t5",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct spate_stream_op a, b;
		char buf[1024];
		CHECK_EQ_INT(parse(lines[i], &a), 0);
		FILE *f = fmemopen(buf, sizeof(buf), "w");
		spate_stream_write(f, &a);
		fclose(f);
		CHECK_EQ_INT(parse(buf, &b), 0);
		CHECK_EQ_INT(a.kind, b.kind);
		if (a.kind == SPATE_LINE_SUB) {
			CHECK(memcmp(&a.u.sub.rect, &b.u.sub.rect, sizeof(a.u.sub.rect)) == 0);
			CHECK(a.u.sub.cons[1].value == b.u.sub.cons[1].value);
		} else if (a.kind == SPATE_LINE_EVENT) {
			CHECK(a.u.ev.lon == b.u.ev.lon && a.u.ev.lat == b.u.ev.lat);
			CHECK(a.u.ev.attr[0].value == b.u.ev.attr[0].value);
		}
	}
}

/* Values are parsed without strtod when they are plain decimals
 * (parse_decimal_fast): every value must be bit for bit what strtod
 * gives, on random decimals of every length around the fast path's
 * limits (2^53, 22 decimals), signs, leading zeros and dots, and
 * exponents (strtod's). */
/* xorshift64: the random cases' generator */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

static void test_values_as_strtod(void)
{
	uint64_t x = 88172645463325252ull;
	int bad = 0;

	for (int t = 0; t < 300000; t++) {
		char num[64], line[256], line2[256];
		size_t n = 0;
		uint64_t r = next_rand(&x);
		if (r % 3 == 0)
			num[n++] = r % 2 ? '-' : '+';
		r /= 6;
		int ip = (int)(r % 20), fp = (int)(r / 20 % 27);
		r /= 540;
		for (int i = 0; i < ip; i++, r = r * 6364136223846793005ull + 1)
			num[n++] = (char)('0' +
					  (i == 0 && r % 4 ? 1 + (r >> 33) % 9 : (r >> 33) % 10));
		if (fp > 0 || ip == 0) {
			num[n++] = '.';
			for (int i = 0; i < fp || (ip == 0 && i == 0);
			     i++, r = r * 6364136223846793005ull + 1)
				num[n++] = (char)('0' + (r >> 33) % 10);
		}
		if (x % 50 == 0)
			n += (size_t)sprintf(num + n, "e%d", (int)(x % 40) - 20);
		num[n] = '\0';
		double want = strtod(num, NULL);
		struct spate_stream_op op, op2, op3;
		snprintf(line, sizeof(line), "event\t1\t0\t0\t-\ta=%s", num);
		if (parse(line, &op) != 0 || op.u.ev.n_attr != 1 ||
		    memcmp(&op.u.ev.attr[0].value, &want, sizeof(want)) != 0) {
			if (bad++ < 5)
				fprintf(stderr, "value '%s': parsed %.17g, strtod %.17g\n", num,
					op.u.ev.attr[0].value, want);
		}
		/* before a comma, as an attribute and as a constraint */
		snprintf(line, sizeof(line), "event\t1\t0\t0\t-\ta=%s,b=%s", num, num);
		snprintf(line2, sizeof(line2), "sub\t1\t0\t0\t1\t1\tk\tp>=%s,q!=%s", num, num);
		if (parse(line, &op2) != 0 || op2.u.ev.n_attr != 2 ||
		    memcmp(&op2.u.ev.attr[0].value, &want, sizeof(want)) != 0 ||
		    memcmp(&op2.u.ev.attr[1].value, &want, sizeof(want)) != 0 ||
		    parse(line2, &op3) != 0 || op3.u.sub.n_cons != 2 ||
		    op3.u.sub.cons[0].op != SPATE_OP_GE || op3.u.sub.cons[1].op != SPATE_OP_NE ||
		    memcmp(&op3.u.sub.cons[0].value, &want, sizeof(want)) != 0 ||
		    memcmp(&op3.u.sub.cons[1].value, &want, sizeof(want)) != 0) {
			if (bad++ < 5)
				fprintf(stderr, "value '%s' in a list: wrong\n", num);
		}
	}
	CHECK_EQ_INT(bad, 0);
}

/* A value of 64 bytes or more is refused (strtod's copy has 64), a plain
 * one of leading zeros too, and a value that runs into something other
 * than a comma, wherever the item stands in its list. */
static void test_values_long(void)
{
	char zeros[80];
	struct spate_stream_op op;

	for (int len = 60; len <= 66; len++) {
		memset(zeros, '0', sizeof(zeros));
		zeros[len - 1] = '1';
		zeros[len] = '\0';
		int want = len < 64 ? 0 : -SPATE_E_BAD_VALUE;
		check_line(want, "event\t1\t0\t0\t-\ta=%s", zeros);
		check_line(want, "event\t1\t0\t0\t-\ta=%s,b=2", zeros);
		check_line(want, "sub\t1\t0\t0\t1\t1\tk\tb<2,a>=%s", zeros);
	}
	CHECK_EQ_INT(parse("event\t1\t0\t0\t-\ta=12x,b=2", &op), -SPATE_E_BAD_VALUE);
	CHECK_EQ_INT(parse("event\t1\t0\t0\t-\ta=1.5=2,b=2", &op), -SPATE_E_BAD_VALUE);
	CHECK_EQ_INT(parse("event\t1\t0\t0\t-\ta=1,b=2 ", &op), -SPATE_E_BAD_VALUE);
	CHECK_EQ_INT(parse("event\t1\t0\t0\t-\ta=1e3,b=.5", &op), 0);
	CHECK(op.u.ev.n_attr == 2 && op.u.ev.attr[0].value == 1000 && op.u.ev.attr[1].value == 0.5);
}

/* Attribute and constraint names at and past the length limit (the
 * parser's one-pass name scan must keep spate_check_name's limit). */
static void test_name_limits(void)
{
	struct spate_stream_op op;
	char name[400];

	for (uint32_t len = lim.max_name_len; len <= lim.max_name_len + 1; len++) {
		memset(name, 'a', len);
		name[len] = '\0';
		int want = len <= lim.max_name_len ? 0 : -SPATE_E_KEYWORD_TOO_LONG;
		check_line(want, "event\t1\t0\t0\t-\t%s=1", name);
		check_line(want, "sub\t1\t0\t0\t1\t1\tk\t%s>=1", name);
	}
	CHECK_EQ_INT(parse("event\t1\t0\t0\t-\ta<1", &op), -SPATE_E_BAD_SYNTAX);
	CHECK_EQ_INT(parse("event\t1\t0\t0\t-\ta b=1", &op), -SPATE_E_BAD_KEYWORD);
	CHECK_EQ_INT(parse("sub\t1\t0\t0\t1\t1\tk\ta!1", &op), -SPATE_E_BAD_OP);
	CHECK_EQ_INT(parse("sub\t1\t0\t0\t1\t1\tk\t=1", &op), -SPATE_E_EMPTY_KEYWORD);
}

/* Random keyword lists against the plain definition: split at every
 * comma, each piece checked by spate_check_keyword, the first failure's
 * code (the parser reads 8 bytes a step: commas and bad bytes at every
 * offset of a word, keywords across words, padding at the field's end). */
static void test_keywords_as_split(void)
{
	static const char *const atoms[] = { "a",    "b",    "Zq",   ",",        ",",
					     "-",    "\x7f", "\x80", "\xc3\xa9", "\xe2\x82\xac",
					     "\xc0", " ",    "~",    "!",        "0123456" };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int bad = 0;

	for (int t = 0; t < 200000; t++) {
		char kw[160], line[256];
		size_t n = 0;
		int atoms_n = 1 + (int)(next_rand(&x) % 24);
		uint64_t r = x >> 5;
		for (int i = 0; i < atoms_n; i++, r = r * 6364136223846793005ull + 1) {
			/* mostly plain bytes: the fast path, long keywords too */
			uint64_t pick = (r >> 33) % 64;
			const char *a = pick < 40 ? atoms[pick % 3] : atoms[(pick - 40) % 15];
			size_t al = strlen(a);
			if (n + al >= 150)
				break;
			memcpy(kw + n, a, al);
			n += al;
		}
		kw[n] = '\0';
		if (n == 0 || strchr(kw, '\t') != NULL)
			continue;
		/* the reference */
		int want = 0;
		uint32_t want_n = 0;
		struct spate_str want_kw[SPATE_KW_MAX_HARD];
		if (!(n == 1 && kw[0] == '-')) {
			const char *p = kw, *end = kw + n;
			for (;;) {
				const char *c = memchr(p, ',', (size_t)(end - p));
				size_t kl = (size_t)((c ? c : end) - p);
				if (want_n >= lim.max_keywords || want_n >= SPATE_KW_MAX_HARD) {
					want = -SPATE_E_TOO_MANY_KEYWORDS;
					break;
				}
				if ((want = spate_check_keyword(&lim, p, kl)) != 0)
					break;
				want_kw[want_n++] = (struct spate_str){ p, (uint32_t)kl };
				if (c == NULL)
					break;
				p = c + 1;
			}
		}
		struct spate_stream_op op;
		snprintf(line, sizeof(line), "event\t1\t0\t0\t%s", kw);
		int got = parse(line, &op);
		bool same = got == want;
		for (uint32_t i = 0; same && want == 0 && i < want_n; i++)
			same = op.u.ev.n_kw == want_n && op.u.ev.kw[i].len == want_kw[i].len &&
			       memcmp(op.u.ev.kw[i].p, want_kw[i].p, want_kw[i].len) == 0;
		if (!same && bad++ < 5)
			fprintf(stderr, "keywords '%s': parsed %d (%u), split %d (%u)\n", kw, got,
				op.u.ev.n_kw, want, want_n);
	}
	CHECK_EQ_INT(bad, 0);
}

/* Every byte at every offset of an attribute name (the parser reads
 * names four bytes a step): a name byte keeps the name whole, any other
 * ends it there or fails the line. */
static void test_name_bytes(void)
{
	static const size_t lens[] = { 1, 3, 10, 14, 15, 16, 17, 18, 31 };
	int bad = 0;

	/* names of several lengths, after another attribute or not: the
	 * scan's 16 bytes from the name, or the field's last 16 */
	for (size_t L = 0; L < sizeof(lens) / sizeof(lens[0]); L++)
		for (int before = 0; before < 2; before++)
			for (int b = 0; b < 256; b++)
				for (size_t j = 0; j < lens[L] && b != '\t'; j++) {
					char line[96];
					size_t len = lens[L];
					size_t n = (size_t)snprintf(line, sizeof(line),
								    "event\t1\t0\t0\t-\t%s",
								    before ? "x=1," : "");
					memset(line + n, 'a', len);
					line[n + j] = (char)b;
					memcpy(line + n + len, "=1", 3);
					struct spate_stream_op op;
					char err[256];
					int rc = spate_stream_parse_line(line, n + len + 2, &lim,
									 &op, err, sizeof(err));
					const struct spate_raw_attr *a = &op.u.ev.attr[before];
					bool good =
						spate_name_ok[b]
							? rc == 0 &&
								  op.u.ev.n_attr ==
									  (uint32_t)before + 1 &&
								  a->name.len == len
							: rc != 0 || a->name.len == j;
					if (!good && bad++ < 5)
						fprintf(stderr,
							"name byte 0x%02x at %zu of %zu: rc %d\n",
							b, j, len, rc);
				}
	CHECK_EQ_INT(bad, 0);
}

/* A file that is not there: -1 and errno, nothing to close but the
 * reader itself. */
static void test_open_missing(void)
{
	struct spate_stream_reader r;

	errno = 0;
	CHECK_EQ_INT(spate_stream_open(&r, "/nonexistent/spate-stream.tsv", &lim), -1);
	CHECK_EQ_INT(errno, ENOENT);
	CHECK(r.f == NULL);
}

/* The reader's blocks: lines across block borders, a line longer than a
 * block (the buffer grows, the partial line moves), CRLF, comments,
 * blank lines, a bad line in the middle (reported, then the next one),
 * and a last line without a newline; every event comes out whole, with
 * its line number. */
static void test_reader_blocks(void)
{
	char path[] = "/tmp/test_stream_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	const unsigned n_events = 20000;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	unsigned long line = 0, bad_line = 0;
	for (unsigned i = 1; i <= n_events; i++) {
		if (i == 7000) { /* 300 kB of comment: longer than any block */
			fputc('#', f);
			for (int j = 0; j < 300000; j++)
				fputc('x', f);
			fputc('\n', f);
			line++;
		}
		if (i == 9000) {
			fputs("event\tnot-an-id\t0\t0\t-\n", f);
			bad_line = ++line;
		}
		if (i % 97 == 0) {
			fputs("\n", f);
			line++;
		}
		/* i keywords mod 5, "k<i>" the last: the line's length varies */
		fprintf(f, "event\t%u\t1.5\t-2.25\t", i);
		for (unsigned k = 0; k < i % 5; k++)
			fprintf(f, "w%u,", k);
		fprintf(f, "k%u%s", i, i == n_events ? "" : i % 3 == 0 ? "\r\n" : "\n");
		line++;
	}
	fclose(f);

	struct spate_stream_reader r;
	struct spate_stream_op op;
	char err[512];
	unsigned next = 1, wrong = 0, errors = 0;
	CHECK_EQ_INT(spate_stream_open(&r, path, &lim), 0);
	int rc;
	while ((rc = spate_stream_next(&r, &op, err, sizeof(err))) != 0) {
		if (rc < 0) {
			errors++;
			CHECK_EQ_INT(rc, -SPATE_E_BAD_ID);
			CHECK_EQ_INT((long)r.line_no, (long)bad_line);
			continue;
		}
		char last[32];
		snprintf(last, sizeof(last), "k%u", next);
		if (op.kind != SPATE_LINE_EVENT || op.u.ev.id != next ||
		    op.u.ev.n_kw != next % 5 + 1 || !str_is(&op.u.ev.kw[next % 5], last))
			wrong++;
		next++;
	}
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(errors, 1);
	CHECK_EQ_INT(next, n_events + 1);
	CHECK_EQ_INT((long)r.line_no, (long)line);
	/* the buffer holds the longest line and a block, not the file (1 MB) */
	CHECK(r.cap <= (size_t)512 << 10);
	spate_stream_close(&r);
	unlink(path);
}

/* The split into fields on lines of every length around the 16-byte
 * steps of the scan, tabs and empty fields everywhere: the message is
 * the one a split at each tab, in order, gives (an empty field first,
 * then a tenth field; then how many fields an event has, or its id). */
static void test_split_as_tabs(void)
{
	unsigned bad = 0;
	uint64_t r = 7;

	for (int t = 0; t < 20000; t++) {
		char line[200], want[256], err[256] = "";
		size_t n = 0, nf = 1, empty = 0, start = 0;
		int words = 1 + (int)(r >> 40) % 12;
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		n = (size_t)sprintf(line, "event");
		for (int w = 1; w < words; w++) {
			line[n++] = '\t';
			int len = (int)(r >> 33) % 9 - 1; /* -1..7; -1 and 0: empty */
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			for (int i = 0; i < len; i++)
				line[n++] = (char)('a' + (r >> (20 + i)) % 26);
		}
		line[n] = '\0';
		/* the reference split */
		for (size_t i = 0; i <= n && !empty; i++) {
			if (i < n && line[i] != '\t')
				continue;
			if (nf == 10) {
				snprintf(want, sizeof(want), "too many fields");
				empty = 1;
			} else if (i == start) {
				snprintf(want, sizeof(want),
					 "field %zu is empty (fields are separated by one tab)",
					 nf);
				empty = 1;
			}
			nf++;
			start = i + 1;
		}
		nf--;
		if (!empty && nf != 5 && nf != 6)
			snprintf(want, sizeof(want),
				 "event takes 4 or 5 fields (id lon lat keywords [attributes]), "
				 "got %zu",
				 nf - 1);
		else if (!empty)
			snprintf(want, sizeof(want), "id '%.*s' is not a decimal u64",
				 (int)strcspn(line + 6, "\t"), line + 6);
		struct spate_stream_op op;
		spate_stream_parse_line(line, n, &lim, &op, err, sizeof(err));
		if (strcmp(err, want) != 0 && bad++ < 5)
			fprintf(stderr, "line '%s': '%s', want '%s'\n", line, err, want);
	}
	CHECK_EQ_INT(bad, 0);
}

/* A NUL byte anywhere in a line (before, in and after the 16-byte steps
 * of the scan, in a comment too) is that line's error, by its number;
 * the lines around it come out whole. */
static void test_reader_nul(void)
{
	char path[] = "/tmp/test_stream_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	static const char good[] = "event\t1\t1.5\t-2.25\tabc,defghijk,lmnop\tpop=1,x=2\n";
	size_t glen = strlen(good);

	CHECK(f != NULL);
	if (f == NULL)
		return;
	/* line 2k + 1 good, line 2k + 2 the good one with a NUL at byte k */
	for (size_t k = 0; k < glen - 1; k++) {
		fputs(good, f);
		fwrite(good, 1, k, f);
		fputc('\0', f);
		fputs(good + k + 1, f);
	}
	fwrite("# a comment\0\n", 1, 13, f);
	fclose(f);

	struct spate_stream_reader r;
	struct spate_stream_op op;
	char err[512], want[512];
	unsigned ok = 0, nul = 0, wrong = 0;
	CHECK_EQ_INT(spate_stream_open(&r, path, &lim), 0);
	int rc;
	while ((rc = spate_stream_next(&r, &op, err, sizeof(err))) != 0) {
		if (rc > 0) {
			ok++;
			wrong += r.line_no % 2 != 1 || op.kind != SPATE_LINE_EVENT ||
				 op.u.ev.n_attr != 2;
			continue;
		}
		nul++;
		snprintf(want, sizeof(want), "%s:%lu: NUL byte in line", path, r.line_no);
		wrong += rc != -SPATE_E_BAD_SYNTAX || strcmp(err, want) != 0 ||
			 (r.line_no % 2 != 0 && r.line_no != 2 * (glen - 1) + 1);
	}
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(ok, glen - 1);
	CHECK_EQ_INT(nul, glen);
	spate_stream_close(&r);
	unlink(path);
}

/* Ids of 1 to 21 bytes, digits with now and then another byte (the
 * bytes next to '0' and '9' too) anywhere, in an event line and at the
 * end of an unsub line (where fewer than 8 bytes may follow): taken
 * exactly when strtoull takes the whole text without overflow. */
static void test_ids_as_strtoull(void)
{
	static const char other[] = "/:+- a\xb0";
	uint64_t x = 0x2545f4914f6cdd1dull;
	int bad = 0;

	for (int t = 0; t < 200000; t++) {
		char id[32], line[96];
		uint64_t r = next_rand(&x);
		int n = 1 + (int)(r % 21);
		r /= 21;
		for (int i = 0; i < n; i++, r = r * 6364136223846793005ull + 1)
			id[i] = (char)('0' + (r >> 40) % 10);
		if (r % 3 == 0) /* one byte that is not a digit */
			id[(r >> 20) % (uint64_t)n] = other[(r >> 10) % (sizeof(other) - 1)];
		else if (r % 3 == 1 && n == 20) /* near UINT64_MAX */
			memcpy(id, (r >> 9) % 2 ? "18446744073709551615" : "18446744073709551616",
			       20);
		id[n] = '\0';
		char *end;
		errno = 0;
		unsigned long long want = strtoull(id, &end, 10);
		bool ok = *end == '\0' && errno == 0 && id[0] >= '0' && id[0] <= '9' && n <= 20;
		struct spate_stream_op op;
		snprintf(line, sizeof(line), "event\t%s\t0\t0\tk", id);
		int rc = parse(line, &op);
		bool same = ok ? rc == 0 && op.u.ev.id == want : rc == -SPATE_E_BAD_ID;
		/* unsub at the very end of its block: a read past the line is
		 * one past the block (ASan, valgrind) */
		int len = snprintf(line, sizeof(line), "unsub\t%s", id);
		char *heap = malloc((size_t)len), err[256];
		if (heap == NULL)
			break;
		memcpy(heap, line, (size_t)len);
		rc = spate_stream_parse_line(heap, (size_t)len, &lim, &op, err, sizeof(err));
		free(heap);
		same = same && (ok ? rc == 0 && op.u.unsub_id == want : rc == -SPATE_E_BAD_ID);
		if (!same && bad++ < 5)
			fprintf(stderr, "id '%s': wrong\n", id);
	}
	CHECK_EQ_INT(bad, 0);
}

/* err NULL: the code alone, whatever errlen says (no message is written
 * anywhere); errlen 0: err is not touched. */
static void test_err_optional(void)
{
	static const char *const bad[] = {
		"sub\tx\t0\t0\t1\t1\tk",
		"event\t1\tNaN\t0\tk",
		"event\t1\t0\t0\tk\tpop=",
		"unsub\t1\t2",
		"nope\t1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct spate_stream_op op;
		char err[8] = "X";
		int want = parse(bad[i], &op);
		CHECK(want < 0);
		CHECK_EQ_INT(spate_stream_parse_line(bad[i], strlen(bad[i]), &lim, &op, NULL, 256),
			     want);
		CHECK_EQ_INT(spate_stream_parse_line(bad[i], strlen(bad[i]), &lim, &op, err, 0),
			     want);
		CHECK(strcmp(err, "X") == 0);
	}
}

/* A bad coordinate's message says which way it is bad. */
static void test_coord_messages(void)
{
	static const struct {
		const char *line, *says;
	} cases[] = {
		{ "event\t1\tNaN\t0\tk", "'NaN' is not a decimal number" },
		{ "event\t1\t0\t1.2.3\tk", "'1.2.3' is not a decimal number" },
		{ "event\t1\t0\t90.0000001\tk", "'90.0000001' out of range [-90, 90]" },
		{ "sub\t1\t-180.5\t0\t1\t1\tk", "'-180.5' out of range [-180, 180]" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spate_stream_op op;
		char err[256] = "";
		CHECK_EQ_INT(spate_stream_parse_line(cases[i].line, strlen(cases[i].line), &lim,
						     &op, err, sizeof(err)),
			     -SPATE_E_BAD_COORD);
		if (strstr(err, cases[i].says) == NULL)
			fprintf(stderr, "'%s': message '%s', want '%s'\n", cases[i].line, err,
				cases[i].says);
		CHECK(strstr(err, cases[i].says) != NULL);
	}
}

/* spate_parse_coord reads len bytes and no more: every prefix of a
 * generated coordinate text (sign, 0-4 integer digits, a point, 0-10
 * decimals, now and then another byte), parsed in place with digits
 * after it, gives what the same bytes give alone at the end of a heap
 * block (where ASan sees a read past them). */
static void test_coord_len_only(void)
{
	static const char other[] = "./-+e x9";
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int bad = 0;

	for (int t = 0; t < 20000; t++) {
		char s[48];
		size_t n = 0;
		uint64_t r = next_rand(&x);
		if (r % 3 == 0)
			s[n++] = r % 2 ? '-' : '+';
		for (int k = (int)(r >> 8) % 5; k > 0; k--)
			s[n++] = (char)('0' + (r >> (8 + 4 * k)) % 10);
		if ((r >> 30) % 4 != 0) {
			s[n++] = '.';
			for (int k = (int)(r >> 33) % 11; k > 0; k--)
				s[n++] = (char)('0' + (r >> (20 + 3 * k)) % 10);
		}
		if (n > 0 && (r >> 60) % 4 == 0)
			s[(r >> 40) % n] = other[(r >> 50) % (sizeof(other) - 1)];
		size_t full = n;
		for (int k = 0; k < 8; k++) /* digits after the text */
			s[n++] = (char)('0' + (r >> (4 * k)) % 10);
		for (size_t len = 0; len <= full; len++) {
			char *alone = malloc(len > 0 ? len : 1);
			if (alone == NULL)
				return;
			memcpy(alone, s, len);
			int32_t a = -1, b = -1;
			int ra = spate_parse_coord(s, len, SPATE_LON_MAX, &a);
			int rb = spate_parse_coord(alone, len, SPATE_LON_MAX, &b);
			free(alone);
			if ((ra != rb || (ra == 0 && a != b)) && bad++ < 5)
				fprintf(stderr,
					"coord '%.*s' (len %zu): %d/%d in place, %d/%d alone\n",
					(int)n, s, len, ra, a, rb, b);
		}
	}
	CHECK_EQ_INT(bad, 0);
}

/* Attribute and constraint fields of 1-5 items (names of 1-24 bytes,
 * now and then one byte that is not a name byte anywhere in one, fields
 * of 4-150 bytes, so the name scan's 16 bytes meet every offset from
 * the field's end): taken exactly when every name is all name bytes
 * (spate_name_ok), with each name and value as written. */
static void test_pairs_as_reference(void)
{
	static const char *const ops[] = { "=", "<", "<=", ">", ">=", "!=" };
	static const char bad_bytes[] = "$ ~#/\"'\x80\xff;?";
	char good_bytes[256];
	size_t n_good = 0;
	uint64_t x = 0xd1b54a32d192ed03ull;
	int bad = 0;

	for (int b = 1; b < 256; b++)
		if (spate_name_ok[b] && b != '\t')
			good_bytes[n_good++] = (char)b;
	for (int t = 0; t < 30000; t++) {
		char line[320], names[5][32];
		size_t name_len[5];
		unsigned value[5], op_of[5];
		bool sub = t % 2 == 1, all_good = true;
		uint64_t r = next_rand(&x);
		int items = 1 + (int)(r % 5);
		size_t n =
			(size_t)snprintf(line, sizeof(line),
					 sub ? "sub\t1\t0\t0\t1\t1\tk\t" : "event\t1\t0\t0\tk\t");
		for (int i = 0; i < items; i++) {
			r = next_rand(&x);
			name_len[i] = 1 + (size_t)(r % 24);
			r /= 24;
			for (size_t j = 0; j < name_len[i]; j++, r = r * 6364136223846793005ull + 1)
				names[i][j] = good_bytes[(r >> 33) % n_good];
			if (r % 4 == 0) {
				names[i][(r >> 8) % name_len[i]] =
					bad_bytes[(r >> 16) % (sizeof(bad_bytes) - 1)];
				all_good = false;
			}
			op_of[i] = sub ? (unsigned)((r >> 24) % 6) : 0;
			value[i] = (unsigned)((r >> 30) % 1000000);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%.*s%s%u",
					      i > 0 ? "," : "", (int)name_len[i], names[i],
					      ops[op_of[i]], value[i]);
		}
		struct spate_stream_op op;
		int rc = parse(line, &op);
		bool same = all_good ? rc == 0 : rc != 0;
		for (int i = 0; same && rc == 0 && i < items; i++) {
			const struct spate_str *nm =
				sub ? &op.u.sub.cons[i].name : &op.u.ev.attr[i].name;
			double v = sub ? op.u.sub.cons[i].value : op.u.ev.attr[i].value;
			same = nm->len == name_len[i] && memcmp(nm->p, names[i], nm->len) == 0 &&
			       v == value[i] &&
			       (sub ? op.u.sub.n_cons : op.u.ev.n_attr) == (uint32_t)items;
		}
		if (!same && bad++ < 5)
			fprintf(stderr, "'%s': rc %d, want %s\n", line, rc,
				all_good ? "0" : "an error");
	}
	CHECK_EQ_INT(bad, 0);
}

/* Every "name OP" with nothing after it: no value (BAD_VALUE), at the
 * field's end and before a comma; "!" alone is no operator. */
static void test_pairs_no_value(void)
{
	static const char *const ops[] = { "=", "<", "<=", ">", ">=", "!=" };
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		check_line(-SPATE_E_BAD_VALUE, "sub\t1\t0\t0\t1\t1\tk\tpop%s", ops[i]);
		check_line(-SPATE_E_BAD_VALUE, "sub\t1\t0\t0\t1\t1\tk\tpop%s,a=1", ops[i]);
		check_line(-SPATE_E_BAD_VALUE, "sub\t1\t0\t0\t1\t1\tk\ta=1,pop%s", ops[i]);
	}
	check_line(-SPATE_E_BAD_OP, "sub\t1\t0\t0\t1\t1\tk\tpop!");
	check_line(-SPATE_E_BAD_OP, "sub\t1\t0\t0\t1\t1\tk\tpop!,a=1");
}

/* The reader writes err only for a bad line: not at the end of the file. */
static void test_reader_end_quiet(void)
{
	char path[] = "/tmp/test_stream_XXXXXX";
	int fd = mkstemp(path);
	static const char text[] = "event\t1\t0\t0\tk\n# end\n";

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);
	struct spate_stream_reader r;
	struct spate_stream_op op;
	char err[256] = "untouched";
	CHECK_EQ_INT(spate_stream_open(&r, path, &lim), 0);
	CHECK_EQ_INT(spate_stream_next(&r, &op, err, sizeof(err)), 1);
	CHECK_EQ_INT(spate_stream_next(&r, &op, err, sizeof(err)), 0);
	CHECK(strcmp(err, "untouched") == 0);
	CHECK_EQ_INT(spate_stream_next(&r, &op, err, sizeof(err)), 0);
	CHECK(strcmp(err, "untouched") == 0);
	spate_stream_close(&r);
	unlink(path);
}

/* Fill the stack below the caller with byte c: a parse that reads a
 * byte it never wrote sees c there (a digit makes a wrong value). */
static __attribute__((noinline)) void dirty_stack(char c)
{
	volatile char pad[16384];
	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = c;
}

/* Every 7-decimal coordinate's last decimal against every digit left on
 * the stack, by spate_parse_coord and in an event line. */
static void test_coord_stack_digits(void)
{
	for (int c = 0; c < 10; c++)
		for (int d = 0; d < 10; d++) {
			char s[] = "12.3456780", line[64];
			struct spate_stream_op op;
			int32_t v = 0;
			s[9] = (char)('0' + d);
			dirty_stack((char)('0' + c));
			CHECK_EQ_INT(spate_parse_coord(s, 10, SPATE_LON_MAX, &v), 0);
			CHECK_EQ_INT(v, 123456780 + d);
			snprintf(line, sizeof(line), "event\t1\t%s\t-%s\tk", s, s + 1);
			dirty_stack((char)('0' + c));
			CHECK_EQ_INT(parse(line, &op), 0);
			CHECK_EQ_INT(op.u.ev.lon, 123456780 + d);
			CHECK_EQ_INT(op.u.ev.lat, -(23456780 + d));
		}
}

/* Coordinates of exactly 7 decimals one after another, every last
 * decimal after every other: each its own value. */
static void test_coord_in_a_row(void)
{
	for (int a = 0; a < 10; a++)
		for (int b = 0; b < 10; b++) {
			char s[2][16] = { "12.345678", "-7.654321" };
			int32_t v = 0;
			s[0][9] = (char)('0' + a);
			s[1][9] = (char)('0' + b);
			s[0][10] = s[1][10] = '\0';
			CHECK_EQ_INT(spate_parse_coord(s[0], 10, SPATE_LON_MAX, &v), 0);
			CHECK_EQ_INT(v, 123456780 + a);
			CHECK_EQ_INT(spate_parse_coord(s[1], 10, SPATE_LON_MAX, &v), 0);
			CHECK_EQ_INT(v, -(76543210 + b));
		}
}

/* The shortest event lines (ids of 1-9 digits, one-byte fields) at the
 * very end of their heap block, each after a longer line with
 * attributes: the id is read inside the line (a read past it is one
 * past the block: ASan, valgrind) and right. */
static void test_short_events_at_block_end(void)
{
	for (int digits = 1; digits <= 9; digits++) {
		char longer[128], id[16];
		struct spate_stream_op op;
		char err[256];
		snprintf(id, sizeof(id), "%.*s", digits, "987654321");
		int n = snprintf(longer, sizeof(longer), "event\t%s\t1.5\t2.5\tkey,word\tpop=5,x=1",
				 id);
		CHECK_EQ_INT(
			spate_stream_parse_line(longer, (size_t)n, &lim, &op, err, sizeof(err)), 0);
		char line[32];
		int len = snprintf(line, sizeof(line), "event\t%s\t0\t0\tk", id);
		char *heap = malloc((size_t)len);
		if (heap == NULL)
			return;
		memcpy(heap, line, (size_t)len);
		CHECK_EQ_INT(
			spate_stream_parse_line(heap, (size_t)len, &lim, &op, err, sizeof(err)), 0);
		free(heap);
		CHECK(op.u.ev.id == strtoull(id, NULL, 10));
		/* and just before a page no one may read (a read past the
		 * line is a SIGSEGV without ASan too) */
		long page = sysconf(_SC_PAGESIZE);
		char *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(map != MAP_FAILED);
		if (map == MAP_FAILED)
			return;
		CHECK_EQ_INT(mprotect(map + page, (size_t)page, PROT_NONE), 0);
		memcpy(map + page - len, line, (size_t)len);
		CHECK_EQ_INT(
			spate_stream_parse_line(longer, (size_t)n, &lim, &op, err, sizeof(err)), 0);
		CHECK_EQ_INT(spate_stream_parse_line(map + page - len, (size_t)len, &lim, &op, err,
						     sizeof(err)),
			     0);
		CHECK(op.u.ev.id == strtoull(id, NULL, 10));
		munmap(map, 2 * (size_t)page);
	}
}

int main(void)
{
	spate_limits_default(&lim);
	test_open_missing();
	test_good();
	test_coords();
	test_bad();
	test_write_roundtrip();
	test_values_as_strtod();
	test_values_long();
	test_name_limits();
	test_keywords_as_split();
	test_reader_blocks();
	test_name_bytes();
	test_split_as_tabs();
	test_reader_nul();
	test_ids_as_strtoull();
	test_err_optional();
	test_coord_messages();
	test_coord_len_only();
	test_pairs_as_reference();
	test_pairs_no_value();
	test_reader_end_quiet();
	test_coord_in_a_row();
	test_coord_stack_digits();
	test_short_events_at_block_end();
	return check_summary("stream");
}
