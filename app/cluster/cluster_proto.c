/* cluster_proto.c - the cluster stage's protocol front (cluster_int.h).
 *
 * Each datagram from RX is decoded again (nothing read elsewhere is
 * trusted), its keys checked (access.h), and each message handed to the
 * matcher; refusals are NACKed here, an idempotent retransmission is
 * ACKed behind its original on the owning worker. The journal's replay,
 * a dead front's adopted subscriptions and the events other fronts relay
 * come in here too, with nobody to answer.
 */
#include <string.h>

#include "cluster/access.h"
#include "cluster/cluster_int.h"
#include "infra/counters.h"
#include "net/notify.h"
#include "proto/spate_err.h"

static void nack(struct stage_cluster *s, int code)
{
	s->last_nack = code;
	spated_cnt.bad_messages++;
	spated_cnt.msg_err[code < SPATE_E__COUNT ? code : 0]++;
	/* No address: a preloaded line, nobody to answer. (Not req_type 0:
	 * that is also a NACK for a message whose type could not be read.) */
	if (s->cur.to.ipv4 != 0)
		notifier_reply(s->nt, s->cur.to, s->cur.req_type, code, s->cur.req_seq, s->cur.id);
}

/* An idempotent retransmission: ACK once the original is applied, i.e.
 * after it on the owner of category `cat`. A retransmitted delete whose
 * category is gone (emptied by it or later): ACKed here, as nothing of
 * that category is left to wait for. */
static void ack_behind(struct stage_cluster *s, uint32_t cat, int deleted)
{
	struct ccat *c = ccat_of(s, cat);

	if (c == NULL && deleted) {
		if (s->cur.req_type != 0) /* 0: preloaded, nobody to answer */
			notifier_reply(s->nt, s->cur.to, s->cur.req_type, 0, s->cur.req_seq,
				       s->cur.id);
		return;
	}
	if (c == NULL) {
		SPATED_CAT_UNKNOWN(cat_unknown_ack);
		return;
	}
	struct pl_msg *m = control_msg(s, PL_ACK, cat, 0);
	if (m != NULL) {
		m->u.ack = s->cur;
		send_to(s, c->worker, m);
	}
}

void cluster_on_message(struct stage_cluster *s, const struct spate_hdr *hdr, struct spate_dest src,
			struct spate_msg *msg)
{
	int rc;

	s->cur = (struct pl_reply){ src, hdr->seq, src.ipv4 ? msg->type : 0, msg->id };
	s->forwarded = 0;
	/* From the network (not replayed or preloaded): rate-limited. */
	if (src.ipv4 != 0 && (msg->type == SPATE_MSG_SUB_ADD || msg->type == SPATE_MSG_SUB_DEL) &&
	    access_sub_op(spated_access, hdr->client_id) != 0) {
		nack(s, SPATE_E_RATE_LIMITED);
		return;
	}
	switch (msg->type) {
	case SPATE_MSG_EVENT:
		rc = spate_matcher_event(s->m, &msg->u.ev, &s->mv);
		if (rc != 0)
			nack(s, -rc);
		else if (s->relay != NULL && src.ipv4 != 0)
			s->relay(s->relay_ctx, &msg->u.ev);
		return;
	case SPATE_MSG_SUB_ADD: {
		struct spate_raw_sub *rs = &msg->u.sub;
		/* 0.0.0.0:0 = "where this came from"; each zero half is filled
		 * on its own ("0.0.0.0:5000" = my address, port 5000). */
		if (rs->dest.ipv4 == 0)
			rs->dest.ipv4 = src.ipv4;
		if (rs->dest.port == 0)
			rs->dest.port = src.port;
		rc = spate_matcher_sub_add(s->m, rs, hdr->client_id);
		if (rc != 0) {
			nack(s, -rc);
		} else if (s->forwarded) {
			spated_cnt.sub_adds++;
			if (src.ipv4 != 0)
				cluster_record_add(s, rs, hdr->client_id);
		} else
			ack_behind(s, cluster_current_cat(s, rs->id), 0);
		return;
	}
	case SPATE_MSG_SUB_DEL:
		rc = spate_matcher_sub_del(s->m, msg->id, hdr->client_id);
		if (rc < 0) {
			nack(s, -rc);
		} else if (rc == SPATE_MATCHER_DEL_REPEAT) {
			uint64_t *tag = spate_matcher_del_tag(s->m, msg->id);
			ack_behind(s, cluster_follow_cat(s, tag ? (uintptr_t)*tag : 0), 1);
		} else {
			spated_cnt.sub_dels++;
			if (src.ipv4 != 0)
				cluster_record_del(s, msg->id, hdr->client_id);
		}
		return;
	default:
		nack(s, SPATE_E_NOT_ALLOWED); /* servers send those, clients do not */
	}
}

void cluster_on_datagram(struct stage_cluster *s, struct rte_mbuf *mb)
{
	const uint8_t *buf = rte_pktmbuf_mtod(mb, const uint8_t *);
	size_t len = rte_pktmbuf_data_len(mb);
	struct spate_dest src = pkt_meta(mb)->peer;
	struct spate_hdr hdr;
	struct spate_reader rd;

	/* RX checked the header; decoding it again is cheap and keeps this
	 * stage from trusting anything it did not read itself. */
	if (spate_hdr_decode(buf, len, s->lim, &hdr) != 0) {
		spated_cnt.bad_header++;
		rte_pktmbuf_free(mb);
		return;
	}
	/* Keys: checked here, on the one lcore that owns the replay windows.
	 * Unsigned when required, a bad MAC, a replay: no reply, counted. */
	int arc = access_datagram(spated_access, buf, len, &hdr);
	if (arc != 0) {
		spated_cnt.auth_dropped++;
		spated_cnt.hdr_err[-arc < SPATE_E__COUNT ? -arc : 0]++;
		rte_pktmbuf_free(mb);
		return;
	}
	spate_reader_init(&rd, buf, len, &hdr);
	s->cur_rx_tsc = pkt_meta(mb)->rx_tsc;
	for (;;) {
		struct spate_msg *msg = &s->msg;
		/* When framing is lost the reader may not say what was refused:
		 * the NACK then names type 0, id 0 rather than stale values. */
		msg->type = 0;
		msg->id = 0;
		int rc = spate_reader_next(&rd, s->lim, msg);
		if (rc == 0)
			break;
		spated_cnt.messages++;
		if (rc == 1 && hdr.client_id != 0) {
			cluster_on_message(s, &hdr, src, msg);
		} else if (rc == 1) {
			/* Client 0 is the server's own (preloaded subscriptions):
			 * no datagram speaks for it. */
			s->cur = (struct pl_reply){ src, hdr.seq, msg->type, msg->id };
			nack(s, SPATE_E_RESERVED_CLIENT);
		} else {
			s->cur = (struct pl_reply){ src, hdr.seq, msg->type, msg->id };
			nack(s, -rc);
		}
	}
	s->cur_rx_tsc = 0; /* replayed, preloaded, relayed events: no stamp */
	rte_pktmbuf_free(mb);
}

int stage_cluster_apply(void *arg, uint32_t owner, const struct spate_msg *msg)
{
	struct stage_cluster *s = arg;
	const struct spate_hdr hdr = { .client_id = owner };
	const struct spate_dest none = { 0, 0 };

	if (msg->type != SPATE_MSG_SUB_ADD && msg->type != SPATE_MSG_SUB_DEL)
		return -SPATE_E_NOT_ALLOWED;
	s->msg = *msg;
	s->last_nack = 0;
	cluster_on_message(s, &hdr, none, &s->msg);
	return -s->last_nack;
}

int stage_cluster_adopt(void *arg, uint32_t owner, const struct spate_raw_sub *rs)
{
	struct stage_cluster *s = arg;

	s->msg.type = SPATE_MSG_SUB_ADD;
	s->msg.id = rs->id;
	s->msg.u.sub = *rs;
	int rc = stage_cluster_apply(s, owner, &s->msg);
	if (rc == 0 && s->forwarded)
		cluster_record_add(s, rs, owner); /* ours now: in our journal, copied on */
	return rc;
}

void stage_cluster_set_relay(struct stage_cluster *s,
			     void (*fn)(void *ctx, const struct spate_raw_event *ev), void *ctx)
{
	s->relay = fn;
	s->relay_ctx = ctx;
}

void stage_cluster_relayed(struct stage_cluster *s, const struct spate_raw_event *ev)
{
	s->cur = (struct pl_reply){ { 0, 0 }, 0, 0, ev->id };
	s->forwarded = 0;
	if (spate_matcher_event(s->m, ev, &s->mv) != 0)
		spated_cnt.msg_no_memory++; /* an event the other front took: nobody to NACK */
}
