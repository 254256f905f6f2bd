/* spate_peer.c - encoder and strict decoder of the inter-host frames
 * described in spate_peer.h and docs/multihost.md. The decoder checks
 * every length against the buffer before reading and never trusts a
 * count; embedded client messages go through spate_proto's own reader. */
#include <string.h>

#include "proto/spate_be.h"
#include "peer/spate_peer.h"

const char *spate_peer_type_name(int type)
{
	static const char *const names[] = { NULL,      "EVENT",       "CREATE",      "SUB_ADD",
					     "SUB_DEL", "ACK",         "MERGE",       "MOVE",
					     "EXPECT",  "HANDOFF_SUB", "HANDOFF_END", "FEEDBACK",
					     "RELAY",   "REPL_ADD",    "REPL_DEL",    "REPL_SYNC",
					     "DONE" };
	if (type < 1 || type > SPATE_PEER_TYPE_MAX)
		return "?";
	return names[type];
}

uint32_t spate_peer_cat(const struct spate_peer_msg *m, uint16_t i)
{
	return spate_be32(m->cats + (size_t)i * 4);
}

/* ---- decoding ---- */

#define REPLY_LEN 12

/* A cursor over one message body: every read checks the room first. */
struct cur {
	const uint8_t *p, *end;
};

static int need(const struct cur *c, size_t n)
{
	return (size_t)(c->end - c->p) >= n;
}

static int get_reply(struct cur *c, struct spate_peer_reply *r)
{
	if (!need(c, REPLY_LEN))
		return -SPATE_E_BAD_LENGTH;
	r->ipv4 = spate_be32(c->p);
	r->port = spate_be16(c->p + 4);
	r->req_type = c->p[6];
	r->req_seq = spate_be32(c->p + 8);
	uint8_t pad = c->p[7];
	c->p += REPLY_LEN;
	if (pad != 0)
		return -SPATE_E_BAD_FLAGS;
	if (r->req_type != SPATE_MSG_SUB_ADD && r->req_type != SPATE_MSG_SUB_DEL)
		return -SPATE_E_BAD_ID;
	return 0;
}

/* ev_seq, parts, n_cat and the category list of EVENT and FEEDBACK. */
static int get_cats(struct cur *c, struct spate_peer_msg *m, uint16_t min_cat)
{
	if (!need(c, 8))
		return -SPATE_E_BAD_LENGTH;
	m->ev_seq = spate_be32(c->p);
	m->parts = spate_be16(c->p + 4);
	m->n_cat = spate_be16(c->p + 6);
	c->p += 8;
	if (m->parts == 0)
		return -SPATE_E_BAD_ID;
	if (m->n_cat < min_cat || m->n_cat > SPATE_PEER_CATS_MAX)
		return -SPATE_E_BAD_LENGTH;
	if (!need(c, (size_t)m->n_cat * 4))
		return -SPATE_E_BAD_LENGTH;
	m->cats = c->p;
	c->p += (size_t)m->n_cat * 4;
	return 0;
}

/* The rest of the body is exactly one client message of type `type`. */
static int get_inner(struct cur *c, const struct spate_limits *lim, uint8_t type,
		     struct spate_msg *inner)
{
	struct spate_reader r = { .p = c->p, .end = c->end, .left = 1, .broken = 0 };
	int rc = spate_reader_next(&r, lim, inner);

	if (rc < 0)
		return rc;
	if (rc == 0 || r.p != c->end)
		return -SPATE_E_BAD_LENGTH;
	if (inner->type != type)
		return -SPATE_E_BAD_ID;
	c->p = c->end;
	return 0;
}

/* u32 cat, u32 host, u16 lcore, u16 0, u64 version: MOVE and EXPECT. */
static int get_placement(struct cur *c, struct spate_peer_msg *m)
{
	if (!need(c, 20))
		return -SPATE_E_BAD_LENGTH;
	m->cat = spate_be32(c->p);
	m->other = spate_be32(c->p + 4);
	m->lcore = spate_be16(c->p + 8);
	uint16_t pad = spate_be16(c->p + 10);
	m->version = spate_be64(c->p + 12);
	c->p += 20;
	if (pad != 0)
		return -SPATE_E_BAD_FLAGS;
	return m->other == 0 ? -SPATE_E_BAD_ID : 0;
}

static int decode_body(struct cur *c, const struct spate_limits *lim, struct spate_peer_msg *m)
{
	int rc;

	switch (m->type) {
	case SPATE_PEER_EVENT:
		if ((rc = get_cats(c, m, 1)))
			return rc;
		return get_inner(c, lim, SPATE_MSG_EVENT, &m->inner);
	case SPATE_PEER_FEEDBACK:
		return get_cats(c, m, 0);
	case SPATE_PEER_CREATE:
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->cat = spate_be32(c->p);
		m->lcore = spate_be16(c->p + 4);
		rc = spate_be16(c->p + 6) ? -SPATE_E_BAD_FLAGS : 0;
		c->p += 8;
		return rc;
	case SPATE_PEER_SUB_ADD:
	case SPATE_PEER_HANDOFF_SUB:
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->cat = spate_be32(c->p);
		m->other = spate_be32(c->p + 4);
		c->p += 8;
		if (m->type == SPATE_PEER_SUB_ADD && (rc = get_reply(c, &m->reply)))
			return rc;
		if ((rc = get_inner(c, lim, SPATE_MSG_SUB_ADD, &m->inner)))
			return rc;
		m->id = m->inner.id;
		return 0;
	case SPATE_PEER_SUB_DEL:
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->cat = spate_be32(c->p);
		m->drop_cat = c->p[4];
		rc = (c->p[5] || spate_be16(c->p + 6)) ? -SPATE_E_BAD_FLAGS : 0;
		c->p += 8;
		if (rc)
			return rc;
		if (m->drop_cat > 1)
			return -SPATE_E_BAD_FLAGS;
		goto reply_and_id;
	case SPATE_PEER_ACK:
		if (!need(c, 4))
			return -SPATE_E_BAD_LENGTH;
		m->cat = spate_be32(c->p);
		c->p += 4;
reply_and_id:
		if ((rc = get_reply(c, &m->reply)))
			return rc;
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->id = spate_be64(c->p);
		c->p += 8;
		return 0;
	case SPATE_PEER_MERGE:
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->cat = spate_be32(c->p);
		m->other = spate_be32(c->p + 4);
		c->p += 8;
		return m->cat == m->other ? -SPATE_E_BAD_ID : 0;
	case SPATE_PEER_MOVE:
	case SPATE_PEER_EXPECT:
		return get_placement(c, m);
	case SPATE_PEER_RELAY:
		if (!need(c, 4))
			return -SPATE_E_BAD_LENGTH;
		rc = spate_be32(c->p) ? -SPATE_E_BAD_FLAGS : 0;
		c->p += 4;
		return rc ? rc : get_inner(c, lim, SPATE_MSG_EVENT, &m->inner);
	case SPATE_PEER_HANDOFF_END:
		if (!need(c, 16))
			return -SPATE_E_BAD_LENGTH;
		m->cat = spate_be32(c->p);
		m->other = spate_be32(c->p + 4);
		m->version = spate_be64(c->p + 8);
		c->p += 16;
		return 0;
	case SPATE_PEER_REPL_ADD:
	case SPATE_PEER_REPL_DEL:
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->other = spate_be32(c->p);
		rc = spate_be32(c->p + 4) ? -SPATE_E_BAD_FLAGS : 0;
		c->p += 8;
		if (rc)
			return rc;
		if (m->type == SPATE_PEER_REPL_ADD) {
			if ((rc = get_inner(c, lim, SPATE_MSG_SUB_ADD, &m->inner)))
				return rc;
			m->id = m->inner.id;
			return 0;
		}
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->id = spate_be64(c->p);
		c->p += 8;
		return 0;
	case SPATE_PEER_REPL_SYNC:
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->cat = spate_be32(c->p);
		m->other = spate_be32(c->p + 4);
		c->p += 8;
		return m->cat > 1 ? -SPATE_E_BAD_FLAGS : 0;
	case SPATE_PEER_DONE:
		if (!need(c, 8))
			return -SPATE_E_BAD_LENGTH;
		m->lcore = spate_be16(c->p);
		rc = spate_be16(c->p + 2) ? -SPATE_E_BAD_FLAGS : 0;
		m->ev_seq = spate_be32(c->p + 4);
		c->p += 8;
		return rc;
	}
	return -SPATE_E_UNKNOWN_TYPE;
}

void spate_peer_reader_init(struct spate_peer_reader *r, const void *body, size_t len,
			    uint16_t count)
{
	r->p = body;
	r->end = r->p + len;
	r->left = count;
}

int spate_peer_next(struct spate_peer_reader *r, const struct spate_limits *lim,
		    struct spate_peer_msg *m)
{
	size_t room = (size_t)(r->end - r->p);

	memset(m, 0, offsetof(struct spate_peer_msg, inner));
	m->inner.type = 0;
	if (r->left == 0) {
		if (room == 0)
			return 0;
		r->p = r->end;
		return -SPATE_E_TRAILING_DATA;
	}
	if (room < SPATE_PEER_MSG_HDR_LEN) {
		r->left = 0;
		r->p = r->end;
		return -SPATE_E_TRUNCATED;
	}
	uint16_t mlen = spate_be16(r->p + 2);
	if (mlen < SPATE_PEER_MSG_HDR_LEN || mlen > room) {
		r->left = 0;
		r->p = r->end;
		return mlen > room ? -SPATE_E_TRUNCATED : -SPATE_E_BAD_LENGTH;
	}
	m->type = r->p[0];
	uint8_t mflags = r->p[1];
	struct cur c = { r->p + SPATE_PEER_MSG_HDR_LEN, r->p + mlen };
	int rc = decode_body(&c, lim, m);

	if (rc == 0 && mflags != 0)
		rc = -SPATE_E_BAD_FLAGS;
	if (rc == 0 && c.p != c.end)
		rc = -SPATE_E_BAD_LENGTH; /* body longer than its fields */
	if (rc) {
		/* A checked frame has no bad message: stop here. */
		r->left = 0;
		r->p = r->end;
		return rc;
	}
	r->p += mlen;
	r->left--;
	return 1;
}

int spate_peer_decode_hdr(const void *buf, size_t len, struct spate_peer_hdr *h)
{
	const uint8_t *p = buf;

	if (len < SPATE_PEER_OVERHEAD)
		return -SPATE_E_TRUNCATED;
	if (spate_be16(p) != SPATE_PEER_MAGIC)
		return -SPATE_E_BAD_MAGIC;
	if (p[2] != SPATE_PEER_VERSION)
		return -SPATE_E_BAD_VERSION;
	h->key = p[3];
	h->length = spate_be16(p + 4);
	h->count = spate_be16(p + 6);
	h->src_host = spate_be32(p + 8);
	h->src_epoch = spate_be32(p + 12);
	h->dst_host = spate_be32(p + 16);
	h->dst_epoch = spate_be32(p + 20);
	h->seq = spate_be32(p + 24);
	h->ack = spate_be32(p + 28);
	h->sack = spate_be32(p + 32);
	if (h->length != len || len > SPATE_PEER_FRAME_MAX)
		return -SPATE_E_BAD_LENGTH;
	if (h->src_host == 0 || h->dst_host == 0 || h->src_host == h->dst_host ||
	    h->src_epoch == 0 || (h->dst_epoch == 0 && h->count != 0) ||
	    (h->count == 0 && h->seq != 0))
		return -SPATE_E_BAD_ID;
	/* A message is at least its header: a count that cannot fit lies. */
	if ((size_t)h->count * SPATE_PEER_MSG_HDR_LEN > len - SPATE_PEER_OVERHEAD)
		return -SPATE_E_TOO_MANY_MESSAGES;
	return 0;
}

int spate_peer_decode(const void *buf, size_t len, const struct spate_limits *lim,
		      struct spate_peer_hdr *h)
{
	int rc = spate_peer_decode_hdr(buf, len, h);

	if (rc != 0)
		return rc;

	struct spate_peer_reader r;
	struct spate_peer_msg m;

	spate_peer_reader_init(&r, spate_peer_body(buf), spate_peer_body_len(h), h->count);
	while ((rc = spate_peer_next(&r, lim, &m)) == 1)
		;
	return rc;
}

/* ---- encoding ---- */

void spate_peer_hdr_encode(void *buf, const struct spate_peer_hdr *h)
{
	uint8_t *p = buf;

	spate_put_be16(p, SPATE_PEER_MAGIC);
	p[2] = SPATE_PEER_VERSION;
	p[3] = h->key;
	spate_put_be16(p + 4, h->length);
	spate_put_be16(p + 6, h->count);
	spate_put_be32(p + 8, h->src_host);
	spate_put_be32(p + 12, h->src_epoch);
	spate_put_be32(p + 16, h->dst_host);
	spate_put_be32(p + 20, h->dst_epoch);
	spate_put_be32(p + 24, h->seq);
	spate_put_be32(p + 28, h->ack);
	spate_put_be32(p + 32, h->sack);
}

void spate_peer_writer_init(struct spate_peer_writer *w, void *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap > SPATE_PEER_BODY_MAX ? SPATE_PEER_BODY_MAX : cap;
	w->len = 0;
	w->count = 0;
}

/* Fixed fields of the longest message: EVENT's 8 bytes and its list. */
#define FIXED_MAX (8 + 4 * SPATE_PEER_CATS_MAX)

/* Append one message: its fixed fields, then `tail` (an embedded client
 * message, or nothing). */
static int put_msg(struct spate_peer_writer *w, uint8_t type, const uint8_t *fixed, size_t flen,
		   const uint8_t *tail, size_t tlen)
{
	size_t mlen = SPATE_PEER_MSG_HDR_LEN + flen + tlen;

	if (w->count == UINT16_MAX || mlen > w->cap - w->len)
		return -SPATE_E_NO_MEMORY;
	uint8_t *p = w->buf + w->len;
	p[0] = type;
	p[1] = 0;
	spate_put_be16(p + 2, (uint16_t)mlen);
	memcpy(p + SPATE_PEER_MSG_HDR_LEN, fixed, flen);
	if (tlen)
		memcpy(p + SPATE_PEER_MSG_HDR_LEN + flen, tail, tlen);
	w->len += mlen;
	w->count++;
	return 0;
}

static int put_reply(uint8_t *p, const struct spate_peer_reply *r)
{
	if (r->req_type != SPATE_MSG_SUB_ADD && r->req_type != SPATE_MSG_SUB_DEL)
		return -SPATE_E_BAD_ID;
	spate_put_be32(p, r->ipv4);
	spate_put_be16(p + 4, r->port);
	p[6] = r->req_type;
	p[7] = 0;
	spate_put_be32(p + 8, r->req_seq);
	return 0;
}

/* A client message encoded by spate_proto into inner[]: its bytes (after
 * the client datagram header) and length through msg and len. */
struct inner_buf {
	uint8_t b[SPATE_HDR_LEN + SPATE_PEER_BODY_MAX];
};

static int encode_inner(struct inner_buf *ib, int type, const void *what, const uint8_t **msg,
			size_t *len)
{
	struct spate_writer cw;
	int rc;

	spate_writer_init(&cw, ib->b, sizeof(ib->b), 0, 0, 0);
	if (type == SPATE_MSG_EVENT)
		rc = spate_put_event(&cw, what);
	else
		rc = spate_put_sub_add(&cw, what);
	if (rc)
		return rc;
	*msg = ib->b + SPATE_HDR_LEN;
	*len = spate_writer_finish(&cw) - SPATE_HDR_LEN;
	return 0;
}

static size_t put_cats(uint8_t *f, uint32_t ev_seq, uint16_t parts, const uint32_t *cats,
		       uint16_t n_cat)
{
	spate_put_be32(f, ev_seq);
	spate_put_be16(f + 4, parts);
	spate_put_be16(f + 6, n_cat);
	for (uint16_t i = 0; i < n_cat; i++)
		spate_put_be32(f + 8 + 4 * (size_t)i, cats[i]);
	return 8 + 4 * (size_t)n_cat;
}

int spate_peer_put_event(struct spate_peer_writer *w, uint32_t ev_seq, uint16_t parts,
			 const uint32_t *cats, uint16_t n_cat, const struct spate_raw_event *ev)
{
	uint8_t f[FIXED_MAX];
	struct inner_buf ib;
	const uint8_t *msg;
	size_t len;
	int rc;

	if (parts == 0)
		return -SPATE_E_BAD_ID;
	if (n_cat == 0 || n_cat > SPATE_PEER_CATS_MAX)
		return -SPATE_E_BAD_LENGTH;
	if ((rc = encode_inner(&ib, SPATE_MSG_EVENT, ev, &msg, &len)))
		return rc;
	return put_msg(w, SPATE_PEER_EVENT, f, put_cats(f, ev_seq, parts, cats, n_cat), msg, len);
}

int spate_peer_put_relay(struct spate_peer_writer *w, const struct spate_raw_event *ev)
{
	uint8_t f[4] = { 0, 0, 0, 0 };
	struct inner_buf ib;
	const uint8_t *msg;
	size_t len;
	int rc;

	if ((rc = encode_inner(&ib, SPATE_MSG_EVENT, ev, &msg, &len)))
		return rc;
	return put_msg(w, SPATE_PEER_RELAY, f, sizeof(f), msg, len);
}

int spate_peer_put_repl_add(struct spate_peer_writer *w, uint32_t owner,
			    const struct spate_raw_sub *sub)
{
	uint8_t f[8];
	struct inner_buf ib;
	const uint8_t *msg;
	size_t len;
	int rc;

	spate_put_be32(f, owner);
	spate_put_be32(f + 4, 0);
	if ((rc = encode_inner(&ib, SPATE_MSG_SUB_ADD, sub, &msg, &len)))
		return rc;
	return put_msg(w, SPATE_PEER_REPL_ADD, f, sizeof(f), msg, len);
}

int spate_peer_put_repl_del(struct spate_peer_writer *w, uint32_t owner, uint64_t id)
{
	uint8_t f[16];

	spate_put_be32(f, owner);
	spate_put_be32(f + 4, 0);
	spate_put_be64(f + 8, id);
	return put_msg(w, SPATE_PEER_REPL_DEL, f, sizeof(f), NULL, 0);
}

int spate_peer_put_repl_sync(struct spate_peer_writer *w, uint32_t phase, uint32_t n)
{
	uint8_t f[8];

	if (phase > 1)
		return -SPATE_E_BAD_FLAGS;
	spate_put_be32(f, phase);
	spate_put_be32(f + 4, n);
	return put_msg(w, SPATE_PEER_REPL_SYNC, f, sizeof(f), NULL, 0);
}

int spate_peer_put_done(struct spate_peer_writer *w, uint16_t lcore, uint32_t ev_seq)
{
	uint8_t f[8];

	spate_put_be16(f, lcore);
	spate_put_be16(f + 2, 0);
	spate_put_be32(f + 4, ev_seq);
	return put_msg(w, SPATE_PEER_DONE, f, sizeof(f), NULL, 0);
}

int spate_peer_put_feedback(struct spate_peer_writer *w, uint32_t ev_seq, uint16_t parts,
			    const uint32_t *cats, uint16_t n_cat)
{
	uint8_t f[FIXED_MAX];

	if (parts == 0)
		return -SPATE_E_BAD_ID;
	if (n_cat > SPATE_PEER_CATS_MAX)
		return -SPATE_E_BAD_LENGTH;
	return put_msg(w, SPATE_PEER_FEEDBACK, f, put_cats(f, ev_seq, parts, cats, n_cat), NULL, 0);
}

int spate_peer_put_create(struct spate_peer_writer *w, uint32_t cat, uint16_t lcore)
{
	uint8_t f[8];

	spate_put_be32(f, cat);
	spate_put_be16(f + 4, lcore);
	spate_put_be16(f + 6, 0);
	return put_msg(w, SPATE_PEER_CREATE, f, sizeof(f), NULL, 0);
}

/* SUB_ADD (with a reply) and HANDOFF_SUB (reply NULL). */
static int put_sub(struct spate_peer_writer *w, uint8_t type, uint32_t cat, uint32_t route_kw,
		   const struct spate_peer_reply *reply, const struct spate_raw_sub *sub)
{
	uint8_t f[8 + REPLY_LEN];
	size_t flen = 8;
	struct inner_buf ib;
	const uint8_t *msg;
	size_t len;
	int rc;

	spate_put_be32(f, cat);
	spate_put_be32(f + 4, route_kw);
	if (reply) {
		if ((rc = put_reply(f + 8, reply)))
			return rc;
		flen += REPLY_LEN;
	}
	if ((rc = encode_inner(&ib, SPATE_MSG_SUB_ADD, sub, &msg, &len)))
		return rc;
	return put_msg(w, type, f, flen, msg, len);
}

int spate_peer_put_sub_add(struct spate_peer_writer *w, uint32_t cat, uint32_t route_kw,
			   const struct spate_peer_reply *reply, const struct spate_raw_sub *sub)
{
	return put_sub(w, SPATE_PEER_SUB_ADD, cat, route_kw, reply, sub);
}

int spate_peer_put_handoff_sub(struct spate_peer_writer *w, uint32_t cat, uint32_t route_kw,
			       const struct spate_raw_sub *sub)
{
	return put_sub(w, SPATE_PEER_HANDOFF_SUB, cat, route_kw, NULL, sub);
}

int spate_peer_put_sub_del(struct spate_peer_writer *w, uint32_t cat, uint8_t drop_cat,
			   const struct spate_peer_reply *reply, uint64_t id)
{
	uint8_t f[8 + REPLY_LEN + 8];
	int rc;

	if (drop_cat > 1)
		return -SPATE_E_BAD_ID;
	spate_put_be32(f, cat);
	f[4] = drop_cat;
	f[5] = 0;
	spate_put_be16(f + 6, 0);
	if ((rc = put_reply(f + 8, reply)))
		return rc;
	spate_put_be64(f + 8 + REPLY_LEN, id);
	return put_msg(w, SPATE_PEER_SUB_DEL, f, sizeof(f), NULL, 0);
}

int spate_peer_put_ack(struct spate_peer_writer *w, uint32_t cat,
		       const struct spate_peer_reply *reply, uint64_t id)
{
	uint8_t f[4 + REPLY_LEN + 8];
	int rc;

	spate_put_be32(f, cat);
	if ((rc = put_reply(f + 4, reply)))
		return rc;
	spate_put_be64(f + 4 + REPLY_LEN, id);
	return put_msg(w, SPATE_PEER_ACK, f, sizeof(f), NULL, 0);
}

int spate_peer_put_merge(struct spate_peer_writer *w, uint32_t into, uint32_t from)
{
	uint8_t f[8];

	if (into == from)
		return -SPATE_E_BAD_ID;
	spate_put_be32(f, into);
	spate_put_be32(f + 4, from);
	return put_msg(w, SPATE_PEER_MERGE, f, sizeof(f), NULL, 0);
}

static int put_placement(struct spate_peer_writer *w, uint8_t type, uint32_t cat, uint32_t host,
			 uint16_t lcore, uint64_t version)
{
	uint8_t f[20];

	if (host == 0)
		return -SPATE_E_BAD_ID;
	spate_put_be32(f, cat);
	spate_put_be32(f + 4, host);
	spate_put_be16(f + 8, lcore);
	spate_put_be16(f + 10, 0);
	spate_put_be64(f + 12, version);
	return put_msg(w, type, f, sizeof(f), NULL, 0);
}

int spate_peer_put_move(struct spate_peer_writer *w, uint32_t cat, uint32_t to_host,
			uint16_t to_lcore, uint64_t version)
{
	return put_placement(w, SPATE_PEER_MOVE, cat, to_host, to_lcore, version);
}

int spate_peer_put_expect(struct spate_peer_writer *w, uint32_t cat, uint32_t from_host,
			  uint16_t lcore, uint64_t version)
{
	return put_placement(w, SPATE_PEER_EXPECT, cat, from_host, lcore, version);
}

int spate_peer_put_handoff_end(struct spate_peer_writer *w, uint32_t cat, uint32_t n_subs,
			       uint64_t version)
{
	uint8_t f[16];

	spate_put_be32(f, cat);
	spate_put_be32(f + 4, n_subs);
	spate_put_be64(f + 8, version);
	return put_msg(w, SPATE_PEER_HANDOFF_END, f, sizeof(f), NULL, 0);
}
