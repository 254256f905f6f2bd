/* test_protocol_doc.c - docs/protocol.md's worked examples must be true.
 *
 * Every ```hex block (whitespace-separated two-digit hex bytes) is decoded
 * with the real decoder and printed in the document's "decoded" line
 * format; the ```decoded block right after it must be exactly that text.
 * Fewer than 4 examples, or a message type the document promises an
 * example for but does not have, is a failure too. The "NACK codes" table
 * must list every code of lib/proto/spate_err.h once, in order, with its name
 * and reason as the X-macro has them (the one source of the codes).
 *
 * usage: test_protocol_doc docs/protocol.md */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/spate_auth.h"
#include "proto/spate_err.h"
#include "proto/spate_proto.h"

#define MAX_EXAMPLE 4096

static struct spate_limits lim;
static struct spate_msg msg; /* a few KB: not on the stack */

/* ---- the decoded line format (documented in docs/protocol.md) ---- */

/* Whole numbers as such (5400, not 5.4e+03); others as the shortest %g
 * form that reads back as the same double. */
static void print_double(FILE *f, double v)
{
	char tmp[40];

	if (v == (double)(long long)v && v > -1e15 && v < 1e15) {
		fprintf(f, "%s%lld", signbit(v) && v == 0 ? "-" : "", (long long)v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	fputs(tmp, f);
}

static void print_str(FILE *f, const struct spate_str *s)
{
	fwrite(s->p, 1, s->len, f);
}

static void print_type(FILE *f, int type)
{
	const char *name = spate_msg_type_name(type);

	if (strcmp(name, "?") == 0)
		fprintf(f, "%d", type);
	else
		fputs(name, f);
}

static void print_code(FILE *f, int code)
{
	const char *name = spate_err_name(code);

	if (code == 0 || strcmp(name, "?") == 0)
		fprintf(f, "%d", code);
	else
		fputs(name, f);
}

static void print_kws(FILE *f, const struct spate_str *kw, uint32_t n)
{
	fputs(" kw=", f);
	if (n == 0)
		fputc('-', f);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		print_str(f, &kw[i]);
	}
}

static void print_event(FILE *f, const struct spate_raw_event *e)
{
	fprintf(f, "EVENT id=%llu lon=%d lat=%d", (unsigned long long)e->id, e->lon, e->lat);
	print_kws(f, e->kw, e->n_kw);
	fputs(" attrs=", f);
	if (e->n_attr == 0)
		fputc('-', f);
	for (uint32_t i = 0; i < e->n_attr; i++) {
		if (i)
			fputc(',', f);
		print_str(f, &e->attr[i].name);
		fputc('=', f);
		print_double(f, e->attr[i].value);
	}
}

static void print_sub(FILE *f, const struct spate_raw_sub *s)
{
	uint32_t a = s->dest.ipv4;

	fprintf(f, "SUB_ADD id=%llu rect=%d,%d,%d,%d dest=%u.%u.%u.%u:%u",
		(unsigned long long)s->id, s->rect.min_lon, s->rect.min_lat, s->rect.max_lon,
		s->rect.max_lat, a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255, s->dest.port);
	print_kws(f, s->kw, s->n_kw);
	fputs(" cons=", f);
	if (s->n_cons == 0)
		fputc('-', f);
	for (uint32_t i = 0; i < s->n_cons; i++) {
		if (i)
			fputc(',', f);
		print_str(f, &s->cons[i].name);
		fputs(spate_op_str(s->cons[i].op), f);
		print_double(f, s->cons[i].value);
	}
}

static void print_msg(FILE *f, const struct spate_msg *m)
{
	switch (m->type) {
	case SPATE_MSG_EVENT:
		print_event(f, &m->u.ev);
		break;
	case SPATE_MSG_SUB_ADD:
		print_sub(f, &m->u.sub);
		break;
	case SPATE_MSG_SUB_DEL:
		fprintf(f, "SUB_DEL id=%llu", (unsigned long long)m->id);
		break;
	case SPATE_MSG_ACK:
	case SPATE_MSG_NACK:
		fprintf(f, "%s req_type=", spate_msg_type_name(m->type));
		print_type(f, m->u.ack.req_type);
		if (m->type == SPATE_MSG_NACK) {
			fputs(" code=", f);
			print_code(f, m->u.ack.code);
		}
		fprintf(f, " req_seq=%u id=%llu", m->u.ack.req_seq,
			(unsigned long long)m->u.ack.id);
		break;
	case SPATE_MSG_NOTIFY:
		fprintf(f, "NOTIFY event_id=%llu subs=", (unsigned long long)m->u.notify.event_id);
		if (m->u.notify.n_subs == 0)
			fputc('-', f);
		for (uint16_t i = 0; i < m->u.notify.n_subs; i++)
			fprintf(f, "%s%llu", i ? "," : "",
				(unsigned long long)spate_notify_id(&m->u.notify, i));
		break;
	}
	fputc('\n', f);
}

/* An authenticated datagram's trailer, checked with the document's example
 * key (bytes 0x00 to 0x1f, the key of every client in the examples):
 * "AUTH nonce=N mac=valid" (or "mac=AUTH_FAILED" etc., the check's code). */
static void print_auth(FILE *f, const uint8_t *buf, size_t len, const struct spate_hdr *h)
{
	uint8_t key[32];
	uint64_t nonce = 0;
	struct spate_auth *a = spate_auth_create(true);

	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 8; i++)
		nonce = nonce << 8 | buf[len - SPATE_AUTH_TRAILER_LEN + (size_t)i];
	if (a == NULL || spate_auth_set_key(a, h->client_id, key, sizeof(key)) != 0) {
		fputs("AUTH (no memory)\n", f);
		spate_auth_destroy(a);
		return;
	}
	int rc = spate_auth_check(a, buf, len, h);
	fprintf(f, "AUTH nonce=%llu mac=", (unsigned long long)nonce);
	if (rc == 0)
		fputs("valid", f);
	else
		print_code(f, -rc);
	fputc('\n', f);
	spate_auth_destroy(a);
}

/* The whole datagram in the decoded format. */
static void print_dgram(FILE *f, const uint8_t *buf, size_t len)
{
	struct spate_hdr h;
	struct spate_reader r;
	int rc = spate_hdr_decode(buf, len, &lim, &h);

	if (rc != 0) {
		fputs("BAD_HEADER code=", f);
		print_code(f, -rc);
		fputc('\n', f);
		return;
	}
	fprintf(f, "HDR version=%u flags=0x%02x length=%u count=%u client_id=%u seq=%u\n",
		h.version, h.flags, h.length, h.count, h.client_id, h.seq);
	spate_reader_init(&r, buf, len, &h);
	while ((rc = spate_reader_next(&r, &lim, &msg)) != 0) {
		if (rc == 1) {
			print_msg(f, &msg);
			continue;
		}
		fputs("REFUSED type=", f);
		print_type(f, msg.type);
		fprintf(f, " id=%llu code=", (unsigned long long)msg.id);
		print_code(f, -rc);
		fputc('\n', f);
	}
	if (h.flags & SPATE_FLAG_AUTH)
		print_auth(f, buf, len, &h);
}

/* ---- reading the document ---- */

struct doc {
	FILE *f;
	int line;
	char buf[1024];
};

static char *next_line(struct doc *d)
{
	if (fgets(d->buf, sizeof(d->buf), d->f) == NULL)
		return NULL;
	d->line++;
	d->buf[strcspn(d->buf, "\r\n")] = 0;
	return d->buf;
}

static int is_fence(const char *l, const char *info)
{
	return strncmp(l, "```", 3) == 0 && strcmp(l + 3, info) == 0;
}

/* Parse hex lines up to the closing fence. Returns the byte count or -1. */
static long read_hex(struct doc *d, uint8_t *out, size_t cap)
{
	size_t n = 0;
	char *l;

	while ((l = next_line(d)) != NULL) {
		if (is_fence(l, ""))
			return (long)n;
		for (char *tok = strtok(l, " \t"); tok; tok = strtok(NULL, " \t")) {
			if (strlen(tok) != 2 || !isxdigit((unsigned char)tok[0]) ||
			    !isxdigit((unsigned char)tok[1]) || n == cap) {
				fprintf(stderr, "protocol.md:%d: bad hex byte '%s'\n", d->line,
					tok);
				return -1;
			}
			out[n++] = (uint8_t)strtoul(tok, NULL, 16);
		}
	}
	fprintf(stderr, "protocol.md:%d: unterminated hex block\n", d->line);
	return -1;
}

/* The decoded block up to its closing fence, lines joined with '\n'. */
static int read_decoded(struct doc *d, char *out, size_t cap)
{
	size_t n = 0;
	char *l;

	out[0] = 0;
	while ((l = next_line(d)) != NULL) {
		if (is_fence(l, ""))
			return 0;
		size_t k = strlen(l);
		if (n + k + 2 > cap)
			break;
		memcpy(out + n, l, k);
		n += k;
		out[n++] = '\n';
		out[n] = 0;
	}
	fprintf(stderr, "protocol.md:%d: unterminated or huge decoded block\n", d->line);
	return -1;
}

/* After a hex block, skip blank lines; the next line must open `decoded`. */
static int expect_decoded_fence(struct doc *d)
{
	char *l;

	while ((l = next_line(d)) != NULL) {
		if (l[0] == 0)
			continue;
		if (is_fence(l, "decoded"))
			return 0;
		break;
	}
	fprintf(stderr, "protocol.md:%d: a hex block must be followed by a decoded block\n",
		d->line);
	return -1;
}

static int check_example(struct doc *d, int hex_line, char *seen)
{
	static uint8_t bytes[MAX_EXAMPLE];
	static char want[MAX_EXAMPLE * 4];
	char *got = NULL;
	size_t got_len = 0;
	long n = read_hex(d, bytes, sizeof(bytes));

	if (n < 0 || expect_decoded_fence(d) != 0 || read_decoded(d, want, sizeof(want)) != 0)
		return -1;
	FILE *mem = open_memstream(&got, &got_len);
	if (mem == NULL) {
		perror("open_memstream");
		return -1;
	}
	print_dgram(mem, bytes, (size_t)n);
	fclose(mem);
	int rc = 0;
	if (strcmp(got, want) != 0) {
		fprintf(stderr,
			"protocol.md:%d: example does not decode as documented\n"
			"--- documented:\n%s--- decoder says:\n%s---\n",
			hex_line, want, got);
		rc = -1;
	}
	/* note which message types the examples show (first word per line) */
	for (int t = 1; t <= SPATE_MSG_TYPE_MAX; t++) {
		char key[16];
		snprintf(key, sizeof(key), "\n%s ", spate_msg_type_name(t));
		if (strstr(got, key))
			seen[t] = 1;
	}
	free(got);
	return rc;
}

/* One row of the NACK codes table: "| N | `NAME` | reason | when |".
 * Returns 0 when it agrees with spate_err.h and is the next code. */
static int check_code_row(const struct doc *d, const char *l, int *next)
{
	char name[64], reason[256];
	int code, n = 0;

	if (sscanf(l, "| %d | `%63[^`]` | %255[^|]|%n", &code, name, reason, &n) != 3 || n == 0) {
		fprintf(stderr, "protocol.md:%d: not a NACK code row\n", d->line);
		return -1;
	}
	for (size_t k = strlen(reason); k > 0 && reason[k - 1] == ' '; k--)
		reason[k - 1] = 0;
	if (code != *next || code >= SPATE_E__COUNT) {
		fprintf(stderr,
			"protocol.md:%d: code %d where %d was due (%d codes in spate_err.h)\n",
			d->line, code, *next, SPATE_E__COUNT);
		return -1;
	}
	++*next;
	if (strcmp(name, spate_err_name(code)) != 0 ||
	    strcmp(reason, spate_err_reason(code)) != 0) {
		fprintf(stderr,
			"protocol.md:%d: code %d is `%s` \"%s\" here, `%s` \"%s\" in spate_err.h\n",
			d->line, code, name, reason, spate_err_name(code), spate_err_reason(code));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int in_codes = 0, next_code = 0;
	struct doc d = { 0 };
	char seen[SPATE_MSG_TYPE_MAX + 1] = { 0 };
	int examples = 0, bad = 0;
	char *l;

	if (argc != 2) {
		fprintf(stderr, "usage: %s docs/protocol.md\n", argv[0]);
		return 2;
	}
	d.f = fopen(argv[1], "r");
	if (d.f == NULL) {
		perror(argv[1]);
		return 2;
	}
	spate_limits_default(&lim);
	while ((l = next_line(&d)) != NULL) {
		if (strncmp(l, "## ", 3) == 0)
			in_codes = strcmp(l, "## NACK codes") == 0;
		if (in_codes && l[0] == '|' && isdigit((unsigned char)l[strspn(l, "| ")]) &&
		    check_code_row(&d, l, &next_code) != 0)
			bad++;
		if (is_fence(l, "decoded")) {
			fprintf(stderr, "protocol.md:%d: decoded block without hex\n", d.line);
			bad++;
		}
		if (!is_fence(l, "hex"))
			continue;
		examples++;
		if (check_example(&d, d.line, seen) != 0)
			bad++;
	}
	fclose(d.f);
	if (examples < 4) {
		fprintf(stderr, "protocol.md: %d examples, at least 4 wanted\n", examples);
		bad++;
	}
	/* the document promises an example of each of these */
	static const int promised[] = { SPATE_MSG_EVENT, SPATE_MSG_SUB_ADD, SPATE_MSG_SUB_DEL,
					SPATE_MSG_NACK, SPATE_MSG_NOTIFY };
	for (size_t i = 0; i < sizeof(promised) / sizeof(promised[0]); i++)
		if (!seen[promised[i]]) {
			fprintf(stderr, "protocol.md: no valid %s example\n",
				spate_msg_type_name(promised[i]));
			bad++;
		}
	if (next_code != SPATE_E__COUNT) {
		fprintf(stderr,
			"protocol.md: the NACK codes table lists %d codes, spate_err.h has %d\n",
			next_code, SPATE_E__COUNT);
		bad++;
	}
	printf("%d examples, %d NACK codes, %d bad\n", examples, next_code, bad);
	return bad ? 1 : 0;
}
