/* spate_proto.c - encoder and strict decoder of the wire protocol
 * described in spate_proto.h and docs/protocol.md. The decoder checks
 * every length against the buffer before reading and never trusts a count. */
#include <math.h>
#include <string.h>

#include "proto/spate_proto.h"

/* ---- big-endian access ---- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}
static double getf64(const uint8_t *p)
{
	uint64_t u = get64(p);
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}
static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}
static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}
static void putf64(uint8_t *p, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	put64(p, u);
}

const char *spate_msg_type_name(int type)
{
	static const char *const names[] = { NULL,  "EVENT", "SUB_ADD", "SUB_DEL",
					     "ACK", "NACK",  "NOTIFY" };
	if (type < 1 || type > SPATE_MSG_TYPE_MAX)
		return "?";
	return names[type];
}

/* ---- decoding ---- */

int spate_hdr_decode(const void *buf, size_t len, const struct spate_limits *lim,
		     struct spate_hdr *hdr)
{
	const uint8_t *p = buf;

	if (len < SPATE_HDR_LEN)
		return -SPATE_E_TRUNCATED;
	if (get16(p) != SPATE_MAGIC)
		return -SPATE_E_BAD_MAGIC;
	hdr->version = p[2];
	hdr->flags = p[3];
	hdr->length = get16(p + 4);
	hdr->count = get16(p + 6);
	hdr->client_id = get32(p + 8);
	hdr->seq = get32(p + 12);
	if (hdr->version != SPATE_VERSION)
		return -SPATE_E_BAD_VERSION;
	if (hdr->flags & ~SPATE_FLAGS_KNOWN)
		return -SPATE_E_BAD_FLAGS;
	if (hdr->length != len)
		return -SPATE_E_BAD_LENGTH;
	if (hdr->count == 0 || hdr->count > lim->max_messages)
		return -SPATE_E_TOO_MANY_MESSAGES;
	if ((hdr->flags & SPATE_FLAG_AUTH) && len < SPATE_HDR_LEN + SPATE_AUTH_TRAILER_LEN)
		return -SPATE_E_TRUNCATED;
	return 0;
}

int spate_dgram_peek(const void *buf, size_t len, const struct spate_limits *lim,
		     struct spate_dgram_peek *out)
{
	int rc = spate_hdr_decode(buf, len, lim, &out->hdr);

	out->events = 0;
	out->first_type = 0;
	out->first_id = 0;
	if (rc != 0)
		return rc;
	const uint8_t *p = (const uint8_t *)buf + SPATE_HDR_LEN, *end = (const uint8_t *)buf + len;
	if (out->hdr.flags & SPATE_FLAG_AUTH)
		end -= SPATE_AUTH_TRAILER_LEN;
	for (uint32_t i = 0; i < out->hdr.count && end - p >= SPATE_MSG_HDR_LEN; i++) {
		uint16_t mlen = get16(p + 2);
		if (mlen < SPATE_MSG_HDR_LEN || mlen > end - p)
			break;
		if (i == 0) {
			out->first_type = p[0];
			if (mlen >= SPATE_MSG_HDR_LEN + 8)
				out->first_id = get64(p + SPATE_MSG_HDR_LEN);
		}
		out->events += p[0] == SPATE_MSG_EVENT;
		p += mlen;
	}
	return 0;
}

void spate_reader_init(struct spate_reader *r, const void *buf, size_t len,
		       const struct spate_hdr *hdr)
{
	r->p = (const uint8_t *)buf + SPATE_HDR_LEN;
	r->end = (const uint8_t *)buf + len;
	if ((hdr->flags & SPATE_FLAG_AUTH) && len >= SPATE_HDR_LEN + SPATE_AUTH_TRAILER_LEN)
		r->end -= SPATE_AUTH_TRAILER_LEN;
	r->left = hdr->count;
	r->broken = len < SPATE_HDR_LEN;
}

/* A cursor over one message body: every read checks the room first. */
struct cur {
	const uint8_t *p, *end;
};

static bool need(const struct cur *c, size_t n)
{
	return (size_t)(c->end - c->p) >= n;
}

/* A length-prefixed string checked by `check` (keyword or name). */
static int get_str(struct cur *c, const struct spate_limits *lim, struct spate_str *out,
		   int (*check)(const struct spate_limits *, const char *, size_t))
{
	if (!need(c, 1))
		return -SPATE_E_BAD_LENGTH;
	uint8_t n = c->p[0];
	if (!need(c, 1 + (size_t)n))
		return -SPATE_E_BAD_LENGTH;
	out->p = (const char *)c->p + 1;
	out->len = n;
	c->p += 1 + (size_t)n;
	return check(lim, out->p, n);
}

static int get_value(struct cur *c, double *v)
{
	if (!need(c, 8))
		return -SPATE_E_BAD_LENGTH;
	*v = getf64(c->p);
	c->p += 8;
	return isfinite(*v) ? 0 : -SPATE_E_BAD_VALUE;
}

static int get_keywords(struct cur *c, const struct spate_limits *lim, uint32_t n,
			struct spate_str *kw)
{
	if (n > lim->max_keywords || n > SPATE_KW_MAX_HARD)
		return -SPATE_E_TOO_MANY_KEYWORDS;
	for (uint32_t i = 0; i < n; i++) {
		int rc = get_str(c, lim, &kw[i], spate_check_keyword);
		if (rc)
			return rc;
	}
	return 0;
}

static int decode_event(struct cur *c, const struct spate_limits *lim, struct spate_msg *m)
{
	struct spate_raw_event *e = &m->u.ev;
	int rc;

	/* The id first, on its own: even a short body can then be NACKed by id. */
	if (!need(c, 8))
		return -SPATE_E_BAD_LENGTH;
	e->id = m->id = get64(c->p);
	if (!need(c, 20))
		return -SPATE_E_BAD_LENGTH;
	e->lon = (int32_t)get32(c->p + 8);
	e->lat = (int32_t)get32(c->p + 12);
	e->n_kw = c->p[16];
	e->n_attr = c->p[17];
	if (get16(c->p + 18) != 0)
		return -SPATE_E_BAD_FLAGS;
	c->p += 20;
	if (spate_check_lon(e->lon) || spate_check_lat(e->lat))
		return -SPATE_E_BAD_COORD;
	if ((rc = get_keywords(c, lim, e->n_kw, e->kw)))
		return rc;
	if (e->n_attr > lim->max_attrs || e->n_attr > SPATE_ATTR_MAX_HARD)
		return -SPATE_E_TOO_MANY_ATTRS;
	for (uint32_t i = 0; i < e->n_attr; i++)
		if ((rc = get_str(c, lim, &e->attr[i].name, spate_check_name)) ||
		    (rc = get_value(c, &e->attr[i].value)))
			return rc;
	return 0;
}

static int decode_sub_add(struct cur *c, const struct spate_limits *lim, struct spate_msg *m)
{
	struct spate_raw_sub *s = &m->u.sub;
	int rc;

	if (!need(c, 8))
		return -SPATE_E_BAD_LENGTH;
	s->id = m->id = get64(c->p);
	if (!need(c, 32))
		return -SPATE_E_BAD_LENGTH;
	s->rect.min_lon = (int32_t)get32(c->p + 8);
	s->rect.min_lat = (int32_t)get32(c->p + 12);
	s->rect.max_lon = (int32_t)get32(c->p + 16);
	s->rect.max_lat = (int32_t)get32(c->p + 20);
	s->dest.ipv4 = get32(c->p + 24);
	s->dest.port = get16(c->p + 28);
	s->n_kw = c->p[30];
	s->n_cons = c->p[31];
	c->p += 32;
	if ((rc = spate_check_rect(&s->rect)))
		return rc;
	if ((rc = get_keywords(c, lim, s->n_kw, s->kw)))
		return rc;
	if (s->n_cons > lim->max_constraints || s->n_cons > SPATE_CONS_MAX_HARD)
		return -SPATE_E_TOO_MANY_CONSTRAINTS;
	for (uint32_t i = 0; i < s->n_cons; i++) {
		struct spate_raw_constraint *k = &s->cons[i];
		if ((rc = get_str(c, lim, &k->name, spate_check_name)))
			return rc;
		if (!need(c, 1))
			return -SPATE_E_BAD_LENGTH;
		k->op = c->p[0];
		c->p++;
		if (k->op < 1 || k->op > SPATE_OP_MAX)
			return -SPATE_E_BAD_OP;
		if ((rc = get_value(c, &k->value)))
			return rc;
	}
	return 0;
}

static int decode_body(struct cur *c, const struct spate_limits *lim, struct spate_msg *m)
{
	switch (m->type) {
	case SPATE_MSG_EVENT:
		return decode_event(c, lim, m);
	case SPATE_MSG_SUB_ADD:
		return decode_sub_add(c, lim, m);
	case SPATE_MSG_SUB_DEL:
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->id = get64(c->p);
		c->p += 8;
		return 0;
	case SPATE_MSG_ACK:
	case SPATE_MSG_NACK:
		if (!need(c, 16))
			return -SPATE_E_BAD_LENGTH;
		m->u.ack.req_type = c->p[0];
		m->u.ack.code = c->p[1];
		m->u.ack.req_seq = get32(c->p + 4);
		m->u.ack.id = m->id = get64(c->p + 8);
		if (get16(c->p + 2) != 0 || (m->type == SPATE_MSG_ACK && c->p[1] != 0))
			return -SPATE_E_BAD_FLAGS;
		c->p += 16;
		return 0;
	case SPATE_MSG_NOTIFY:
		if (!need(c, 12))
			return -SPATE_E_BAD_LENGTH;
		m->u.notify.event_id = m->id = get64(c->p);
		m->u.notify.n_subs = get16(c->p + 8);
		if (get16(c->p + 10) != 0)
			return -SPATE_E_BAD_FLAGS;
		c->p += 12;
		if (!need(c, (size_t)m->u.notify.n_subs * 8))
			return -SPATE_E_BAD_LENGTH;
		m->u.notify.ids = c->p;
		c->p += (size_t)m->u.notify.n_subs * 8;
		return 0;
	}
	return -SPATE_E_UNKNOWN_TYPE;
}

int spate_reader_next(struct spate_reader *r, const struct spate_limits *lim, struct spate_msg *msg)
{
	/* Never leave a previous message's type or id for a NACK to name. */
	msg->type = 0;
	msg->id = 0;
	if (r->broken)
		return 0;
	size_t room = (size_t)(r->end - r->p);
	if (r->left == 0) {
		if (room == 0)
			return 0;
		r->broken = 1;
		return -SPATE_E_TRAILING_DATA;
	}
	if (room < SPATE_MSG_HDR_LEN) {
		r->broken = 1;
		return -SPATE_E_TRUNCATED;
	}
	uint16_t mlen = get16(r->p + 2);
	if (mlen < SPATE_MSG_HDR_LEN || mlen > room) {
		r->broken = 1;
		return mlen > room ? -SPATE_E_TRUNCATED : -SPATE_E_BAD_LENGTH;
	}
	msg->type = r->p[0];
	uint8_t mflags = r->p[1];
	struct cur c = { r->p + SPATE_MSG_HDR_LEN, r->p + mlen };
	/* Framing is sound from here: whatever the body says, the next
	 * message starts after mlen bytes. */
	r->p += mlen;
	r->left--;
	int rc = decode_body(&c, lim, msg);
	if (rc == 0 && mflags != 0)
		rc = -SPATE_E_BAD_FLAGS;
	if (rc == 0 && c.p != c.end)
		rc = -SPATE_E_BAD_LENGTH; /* body longer than its fields */
	return rc == 0 ? 1 : rc;
}

uint64_t spate_notify_id(const struct spate_notify *n, uint16_t i)
{
	return get64(n->ids + (size_t)i * 8);
}

/* ---- encoding ---- */

void spate_writer_init(struct spate_writer *w, void *buf, size_t cap, uint8_t flags,
		       uint32_t client_id, uint32_t seq)
{
	w->buf = buf;
	/* The header's length is a u16: a bigger buffer cannot be used. */
	w->cap = cap > 65535 ? 65535 : cap;
	w->len = SPATE_HDR_LEN;
	w->count = 0;
	if (cap < SPATE_HDR_LEN) {
		/* Too small for even the header: every put fails, finish
		 * writes nothing and returns 0. */
		w->cap = 0;
		return;
	}
	put16(w->buf, SPATE_MAGIC);
	w->buf[2] = SPATE_VERSION;
	w->buf[3] = flags;
	put16(w->buf + 4, 0);
	put16(w->buf + 6, 0);
	put32(w->buf + 8, client_id);
	put32(w->buf + 12, seq);
}

/* Reserve a message of body size `body`; NULL if it does not fit. */
static uint8_t *msg_begin(struct spate_writer *w, uint8_t type, size_t body)
{
	size_t mlen = SPATE_MSG_HDR_LEN + body;

	if (mlen > 65535 || w->len + mlen > w->cap || w->count == UINT16_MAX)
		return NULL;
	uint8_t *p = w->buf + w->len;
	p[0] = type;
	p[1] = 0;
	put16(p + 2, (uint16_t)mlen);
	w->len += mlen;
	w->count++;
	return p + SPATE_MSG_HDR_LEN;
}

static size_t strs_size(const struct spate_str *s, uint32_t n)
{
	size_t sz = 0;
	for (uint32_t i = 0; i < n; i++)
		sz += 1 + (size_t)s[i].len;
	return sz;
}

static bool strs_ok(const struct spate_str *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (s[i].len > 255)
			return false;
	return true;
}

static uint8_t *put_str(uint8_t *p, const struct spate_str *s)
{
	p[0] = (uint8_t)s->len;
	memcpy(p + 1, s->p, s->len);
	return p + 1 + s->len;
}

int spate_put_event(struct spate_writer *w, const struct spate_raw_event *ev)
{
	if (ev->n_kw > SPATE_KW_MAX_HARD || ev->n_attr > SPATE_ATTR_MAX_HARD ||
	    !strs_ok(ev->kw, ev->n_kw))
		return -SPATE_E_BAD_LENGTH;
	size_t body = 20 + strs_size(ev->kw, ev->n_kw);
	for (uint32_t i = 0; i < ev->n_attr; i++) {
		if (ev->attr[i].name.len > 255)
			return -SPATE_E_BAD_LENGTH;
		body += 1 + ev->attr[i].name.len + 8;
	}
	uint8_t *p = msg_begin(w, SPATE_MSG_EVENT, body);
	if (p == NULL)
		return -SPATE_E_NO_MEMORY;
	put64(p, ev->id);
	put32(p + 8, (uint32_t)ev->lon);
	put32(p + 12, (uint32_t)ev->lat);
	p[16] = (uint8_t)ev->n_kw;
	p[17] = (uint8_t)ev->n_attr;
	put16(p + 18, 0);
	p += 20;
	for (uint32_t i = 0; i < ev->n_kw; i++)
		p = put_str(p, &ev->kw[i]);
	for (uint32_t i = 0; i < ev->n_attr; i++) {
		p = put_str(p, &ev->attr[i].name);
		putf64(p, ev->attr[i].value);
		p += 8;
	}
	return 0;
}

int spate_put_sub_add(struct spate_writer *w, const struct spate_raw_sub *s)
{
	if (s->n_kw > SPATE_KW_MAX_HARD || s->n_cons > SPATE_CONS_MAX_HARD ||
	    !strs_ok(s->kw, s->n_kw))
		return -SPATE_E_BAD_LENGTH;
	size_t body = 32 + strs_size(s->kw, s->n_kw);
	for (uint32_t i = 0; i < s->n_cons; i++) {
		if (s->cons[i].name.len > 255)
			return -SPATE_E_BAD_LENGTH;
		body += 1 + s->cons[i].name.len + 1 + 8;
	}
	uint8_t *p = msg_begin(w, SPATE_MSG_SUB_ADD, body);
	if (p == NULL)
		return -SPATE_E_NO_MEMORY;
	put64(p, s->id);
	put32(p + 8, (uint32_t)s->rect.min_lon);
	put32(p + 12, (uint32_t)s->rect.min_lat);
	put32(p + 16, (uint32_t)s->rect.max_lon);
	put32(p + 20, (uint32_t)s->rect.max_lat);
	put32(p + 24, s->dest.ipv4);
	put16(p + 28, s->dest.port);
	p[30] = (uint8_t)s->n_kw;
	p[31] = (uint8_t)s->n_cons;
	p += 32;
	for (uint32_t i = 0; i < s->n_kw; i++)
		p = put_str(p, &s->kw[i]);
	for (uint32_t i = 0; i < s->n_cons; i++) {
		p = put_str(p, &s->cons[i].name);
		*p++ = s->cons[i].op;
		putf64(p, s->cons[i].value);
		p += 8;
	}
	return 0;
}

int spate_put_sub_del(struct spate_writer *w, uint64_t id)
{
	uint8_t *p = msg_begin(w, SPATE_MSG_SUB_DEL, 8);

	if (p == NULL)
		return -SPATE_E_NO_MEMORY;
	put64(p, id);
	return 0;
}

static int put_reply(struct spate_writer *w, uint8_t type, uint8_t req_type, uint8_t code,
		     uint32_t req_seq, uint64_t id)
{
	uint8_t *p = msg_begin(w, type, 16);

	if (p == NULL)
		return -SPATE_E_NO_MEMORY;
	p[0] = req_type;
	p[1] = code;
	put16(p + 2, 0);
	put32(p + 4, req_seq);
	put64(p + 8, id);
	return 0;
}

int spate_put_ack(struct spate_writer *w, uint8_t req_type, uint32_t req_seq, uint64_t id)
{
	return put_reply(w, SPATE_MSG_ACK, req_type, 0, req_seq, id);
}

int spate_put_nack(struct spate_writer *w, uint8_t req_type, uint8_t code, uint32_t req_seq,
		   uint64_t id)
{
	return put_reply(w, SPATE_MSG_NACK, req_type, code, req_seq, id);
}

int spate_put_notify(struct spate_writer *w, uint64_t event_id, const uint64_t *sub_ids, uint16_t n)
{
	/* mlength is a u16: more ids cannot be encoded in one message. */
	if (SPATE_MSG_HDR_LEN + 12 + (size_t)n * 8 > 65535)
		return -SPATE_E_BAD_LENGTH;
	uint8_t *p = msg_begin(w, SPATE_MSG_NOTIFY, 12 + (size_t)n * 8);

	if (p == NULL)
		return -SPATE_E_NO_MEMORY;
	put64(p, event_id);
	put16(p + 8, n);
	put16(p + 10, 0);
	for (uint16_t i = 0; i < n; i++)
		put64(p + 12 + (size_t)i * 8, sub_ids[i]);
	return 0;
}

uint16_t spate_notify_room(const struct spate_writer *w)
{
	size_t fixed = SPATE_MSG_HDR_LEN + 12;

	if (w->count == UINT16_MAX || w->len + fixed > w->cap)
		return 0;
	size_t n = (w->cap - w->len - fixed) / 8;
	size_t max = (65535 - fixed) / 8;
	return (uint16_t)(n < max ? n : max);
}

size_t spate_writer_finish(struct spate_writer *w)
{
	if (w->cap < SPATE_HDR_LEN)
		return 0;
	put16(w->buf + 4, (uint16_t)w->len);
	put16(w->buf + 6, w->count);
	return w->len;
}
