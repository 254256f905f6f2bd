/* spate_peer_chan.c - the reliable inter-host channel of
 * spate_peer_chan.h: a selective-repeat sender and receiver sharing one
 * window size, slots indexed by sequence number modulo the maximum
 * window. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "peer/spate_peer_chan.h"

/* The retransmission timeout doubles per try up to rto << BACKOFF_MAX. */
#define BACKOFF_MAX 4

struct slot {
	bool used;   /* send: queued, not yet acked; receive: buffered */
	bool sacked; /* send: selectively acked, do not resend */
	uint16_t count;
	uint32_t seq;
	uint32_t tries; /* send: times put on the wire */
	uint64_t due;   /* send: when to (re)send */
	uint64_t sent;  /* send: when first put on the wire */
	size_t len;
	uint8_t body[SPATE_PEER_BODY_MAX];
};

struct spate_peer_chan {
	uint32_t host, epoch, peer_host, peer_epoch, newer_epoch;
	uint32_t window;
	uint64_t rto;
	uint32_t snd_una; /* oldest frame not acknowledged */
	uint32_t snd_nxt; /* sequence number of the next frame queued */
	uint32_t rcv_nxt; /* next sequence number to deliver */
	bool ack_owed;
	uint64_t now; /* the last poll's or clock's time: a receive's clock */
	struct spate_peer_chan_stats st;
	struct slot snd[SPATE_PEER_WINDOW_MAX];
	struct slot rcv[SPATE_PEER_WINDOW_MAX];
};

/* Serial-number difference a - b (RFC 1982 style). */
static int32_t sdiff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static struct slot *slot_of(struct slot *s, uint32_t seq)
{
	return &s[seq % SPATE_PEER_WINDOW_MAX];
}

static void start(struct spate_peer_chan *ch)
{
	for (uint32_t i = 0; i < SPATE_PEER_WINDOW_MAX; i++)
		ch->snd[i].used = ch->rcv[i].used = false;
	ch->snd_una = ch->snd_nxt = ch->rcv_nxt = 1;
	ch->ack_owed = false;
	ch->newer_epoch = 0;
}

struct spate_peer_chan *spate_peer_chan_create(uint32_t host, uint32_t epoch, uint32_t peer_host,
					       uint32_t peer_epoch, uint32_t window, uint64_t rto)
{
	if (!host || !epoch || !peer_host || !peer_epoch || host == peer_host || window == 0 ||
	    window > SPATE_PEER_WINDOW_MAX || rto == 0)
		return NULL;
	struct spate_peer_chan *ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ch->host = host;
	ch->epoch = epoch;
	ch->peer_host = peer_host;
	ch->peer_epoch = peer_epoch;
	ch->window = window;
	ch->rto = rto;
	start(ch);
	return ch;
}

void spate_peer_chan_destroy(struct spate_peer_chan *ch)
{
	free(ch);
}

uint32_t spate_peer_chan_in_flight(const struct spate_peer_chan *ch)
{
	return ch->snd_nxt - ch->snd_una;
}

uint32_t spate_peer_chan_last_seq(const struct spate_peer_chan *ch)
{
	return ch->snd_nxt - 1;
}

int spate_peer_chan_acked(const struct spate_peer_chan *ch, uint32_t seq)
{
	return sdiff(seq, ch->snd_una) < 0;
}

uint32_t spate_peer_chan_newer_epoch(const struct spate_peer_chan *ch)
{
	return ch->newer_epoch;
}

const struct spate_peer_chan_stats *spate_peer_chan_stats(const struct spate_peer_chan *ch)
{
	return &ch->st;
}

void spate_peer_chan_clock(struct spate_peer_chan *ch, uint64_t now)
{
	ch->now = now;
}

uint32_t spate_peer_chan_reset(struct spate_peer_chan *ch, uint32_t peer_epoch)
{
	uint32_t lost = spate_peer_chan_in_flight(ch);

	if (peer_epoch)
		ch->peer_epoch = peer_epoch;
	start(ch);
	return lost;
}

int spate_peer_chan_queue(struct spate_peer_chan *ch, const void *body, size_t len, uint16_t count)
{
	if (count == 0 || len < (size_t)count * SPATE_PEER_MSG_HDR_LEN || len > SPATE_PEER_BODY_MAX)
		return -SPATE_E_BAD_LENGTH;
	if (spate_peer_chan_in_flight(ch) >= ch->window)
		return -SPATE_E_NO_MEMORY;
	struct slot *s = slot_of(ch->snd, ch->snd_nxt);
	s->used = true;
	s->sacked = false;
	s->seq = ch->snd_nxt++;
	s->count = count;
	s->tries = 0;
	s->due = 0;
	s->len = len;
	memcpy(s->body, body, len);
	ch->st.queued++;
	return 0;
}

/* Selective ack of what arrived past the first gap: bit i = rcv_nxt+1+i. */
static uint32_t sack_bits(const struct spate_peer_chan *ch)
{
	uint32_t bits = 0;

	for (uint32_t i = 0; i + 1 < ch->window && i < 32; i++) {
		const struct slot *s = &ch->rcv[(ch->rcv_nxt + 1 + i) % SPATE_PEER_WINDOW_MAX];
		if (s->used && s->seq == ch->rcv_nxt + 1 + i)
			bits |= 1u << i;
	}
	return bits;
}

static size_t emit(struct spate_peer_chan *ch, uint8_t *out, const struct slot *s)
{
	struct spate_peer_hdr h = {
		.length = (uint16_t)(SPATE_PEER_OVERHEAD + (s ? s->len : 0)),
		.count = s ? s->count : 0,
		.src_host = ch->host,
		.src_epoch = ch->epoch,
		.dst_host = ch->peer_host,
		.dst_epoch = ch->peer_epoch,
		.seq = s ? s->seq : 0,
		.ack = ch->rcv_nxt - 1,
		.sack = sack_bits(ch),
	};

	spate_peer_hdr_encode(out, &h);
	if (s)
		memcpy(out + SPATE_PEER_HDR_LEN, s->body, s->len);
	/* unsigned: the caller signs the frame (spate_peer_auth_sign) */
	memset(out + h.length - SPATE_PEER_TAG_LEN, 0, SPATE_PEER_TAG_LEN);
	ch->ack_owed = false;
	return h.length;
}

size_t spate_peer_chan_poll(struct spate_peer_chan *ch, uint64_t now, void *out, size_t cap)
{
	if (cap < SPATE_PEER_FRAME_MAX)
		return 0;
	ch->now = now;
	for (uint32_t seq = ch->snd_una; seq != ch->snd_nxt; seq++) {
		struct slot *s = slot_of(ch->snd, seq);
		if (!s->used || s->sacked || (s->tries && s->due > now))
			continue;
		uint32_t shift = s->tries < BACKOFF_MAX ? s->tries : BACKOFF_MAX;
		if (s->tries++) {
			ch->st.retransmits++;
		} else {
			ch->st.sent++;
			s->sent = now;
		}
		s->due = now + (ch->rto << shift);
		return emit(ch, out, s);
	}
	if (!ch->ack_owed)
		return 0;
	ch->st.acks_sent++;
	return emit(ch, out, NULL);
}

static void rtt_sample(struct spate_peer_chan *ch, uint64_t ns)
{
	struct spate_peer_chan_stats *st = &ch->st;

	st->rtt_last_ns = ns;
	st->rtt_srtt_ns = st->rtt_samples++ ? st->rtt_srtt_ns - st->rtt_srtt_ns / 8 + ns / 8 : ns;
	if (st->rtt_samples == 1 || ns < st->rtt_min_ns)
		st->rtt_min_ns = ns;
}

void spate_peer_chan_owe_ack(struct spate_peer_chan *ch)
{
	ch->ack_owed = true;
}

/* The peer's ack fields: release what it has, mark what it sacked. */
static void take_acks(struct spate_peer_chan *ch, const struct spate_peer_hdr *h)
{
	/* ack must lie in [snd_una - 1, snd_nxt - 1]. */
	if (sdiff(h->ack, ch->snd_una - 1) < 0 || sdiff(h->ack, ch->snd_nxt - 1) > 0) {
		ch->st.bad_acks++;
		return;
	}
	while (ch->snd_una != h->ack + 1) {
		struct slot *s = slot_of(ch->snd, ch->snd_una);
		if (s->tries == 1 && h->ack == ch->snd_una && ch->now >= s->sent)
			rtt_sample(ch, ch->now - s->sent); /* the newest one acked */
		s->used = false;
		ch->snd_una++;
	}
	for (uint32_t i = 0; i < 32; i++) {
		uint32_t seq = h->ack + 2 + i;
		if (!(h->sack & (1u << i)))
			continue;
		if (sdiff(seq, ch->snd_nxt) >= 0) {
			ch->st.bad_acks++;
			break;
		}
		struct slot *s = slot_of(ch->snd, seq);
		if (s->used && s->seq == seq)
			s->sacked = true;
	}
}

int spate_peer_chan_receive(struct spate_peer_chan *ch, const void *buf,
			    const struct spate_peer_hdr *h, spate_peer_deliver_fn *fn, void *ctx)
{
	const uint8_t *body = spate_peer_body(buf);
	size_t len = spate_peer_body_len(h);
	int delivered = 0;

	if (h->src_host != ch->peer_host || h->dst_host != ch->host)
		return -SPATE_E_BAD_ID;
	if (h->src_epoch != ch->peer_epoch || h->dst_epoch != ch->epoch) {
		ch->st.stale++;
		if (sdiff(h->src_epoch, ch->peer_epoch) > 0 &&
		    (!ch->newer_epoch || sdiff(h->src_epoch, ch->newer_epoch) > 0))
			ch->newer_epoch = h->src_epoch;
		return -SPATE_E_AUTH_REPLAY;
	}
	ch->st.received++;
	take_acks(ch, h);
	if (h->count == 0)
		return 0;

	/* Whatever happens to a data frame, the sender hears back. */
	ch->ack_owed = true;
	int32_t d = sdiff(h->seq, ch->rcv_nxt);
	if (d < 0) {
		ch->st.duplicates++;
		return 0;
	}
	if ((uint32_t)d >= ch->window) {
		ch->st.out_of_window++;
		return 0;
	}
	if (d > 0) {
		struct slot *s = slot_of(ch->rcv, h->seq);
		if (s->used && s->seq == h->seq) {
			ch->st.duplicates++;
			return 0;
		}
		s->used = true;
		s->seq = h->seq;
		s->count = h->count;
		s->len = len;
		memcpy(s->body, body, len);
		return 0;
	}
	fn(ctx, body, len, h->count);
	ch->rcv_nxt++;
	delivered++;
	for (;;) {
		struct slot *s = slot_of(ch->rcv, ch->rcv_nxt);
		if (!s->used || s->seq != ch->rcv_nxt)
			break;
		fn(ctx, s->body, s->len, s->count);
		s->used = false;
		ch->rcv_nxt++;
		delivered++;
	}
	ch->st.delivered += (uint64_t)delivered;
	return delivered;
}
