/* test_app_cluster.c - the cluster stage (app/cluster/stage_cluster.c) on rings,
 * without a port: client datagrams go into its RX ring as the RX stage
 * leaves them (payload, source in the meta), one poll handles them, and
 * the rings to the matching worker and to TX are read back. Checked
 * exactly: the NACK of every refusal (its code number on the wire, the
 * request type, seq and id it names, the address it goes to), the
 * per-code counters, and what a SUB_ADD carries to its worker (the
 * reply address, the destination with each zero half filled from the
 * source, in host byte order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <urcu/urcu-qsbr.h>

#include "cluster/access.h"
#include "app_eal.h"
#include "cluster/category_dir.h"
#include "check.h"
#include "infra/counters.h"
#include "infra/pl_msg.h"
#include "conf/spate_conf.h"
#include "proto/spate_proto.h"
#include "cluster/stage_cluster.h"

#define SRC_IP 0x0a000002u
#define SRC_PORT 40000

static struct rte_mempool *pkt_pool, *msg_pool;
static struct rte_ring *in, *to_match, *feedback, *to_tx;
static struct stage_cluster *cl;
static struct spate_conf common;
static struct spated_counters before;

/* ---- datagrams in ---- */

struct dg {
	uint8_t buf[2048];
	struct spate_writer w;
};

static void dg_begin(struct dg *d, uint32_t client, uint32_t seq)
{
	spate_writer_init(&d->w, d->buf, sizeof(d->buf), 0, client, seq);
}

static void sub_of(struct spate_raw_sub *rs, uint64_t id, const char *kw, uint32_t ip,
		   uint16_t port)
{
	memset(rs, 0, sizeof(*rs));
	rs->id = id;
	rs->rect = (struct spate_rect){ 0, 0, 1000, 1000 };
	rs->n_kw = 1;
	rs->kw[0] = (struct spate_str){ kw, (uint32_t)strlen(kw) };
	rs->dest = (struct spate_dest){ ip, port };
}

static void dg_sub_add(struct dg *d, uint64_t id, const char *kw, uint32_t ip, uint16_t port)
{
	struct spate_raw_sub rs;

	sub_of(&rs, id, kw, ip, port);
	if (spate_put_sub_add(&d->w, &rs) != 0)
		abort();
}

/* Hand the datagram to the stage as RX would: source in the meta. */
static void dg_send(struct dg *d, uint32_t src_ip)
{
	size_t len = spate_writer_finish(&d->w);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pkt_pool);

	memcpy(rte_pktmbuf_append(m, (uint16_t)len), d->buf, len);
	pkt_meta(m)->kind = PKT_DGRAM;
	pkt_meta(m)->peer = (struct spate_dest){ src_ip, SRC_PORT };
	pkt_meta(m)->rx_tsc = 0;
	if (rte_ring_enqueue(in, m) != 0)
		abort();
}

/* ---- what comes out ---- */

struct reply {
	uint8_t type, req_type, code;
	uint32_t seq;
	uint64_t id;
	uint32_t to_ip;
	uint16_t to_port;
};

/* Every ACK/NACK in the datagrams queued for TX, in order. */
static unsigned int replies(struct reply *out, unsigned int max)
{
	void *obj = NULL;
	unsigned int n = 0;
	struct spate_limits lim;

	spate_limits_default(&lim);
	while (rte_ring_dequeue(to_tx, &obj) == 0) {
		struct rte_mbuf *m = obj;
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		size_t len = rte_pktmbuf_data_len(m);
		struct spate_hdr h;
		struct spate_reader r;
		struct spate_msg msg;
		CHECK_EQ_INT(pkt_meta(m)->kind, PKT_PAYLOAD);
		CHECK_EQ_INT(pkt_meta(m)->rx_tsc, 0); /* replies are not timed */
		CHECK_EQ_INT(spate_hdr_decode(p, len, &lim, &h), 0);
		CHECK_EQ_INT(h.flags, SPATE_FLAG_SERVER);
		spate_reader_init(&r, p, len, &h);
		while (spate_reader_next(&r, &lim, &msg) == 1 && n < max)
			out[n++] = (struct reply){ msg.type,
						   msg.u.ack.req_type,
						   msg.u.ack.code,
						   msg.u.ack.req_seq,
						   msg.u.ack.id,
						   pkt_meta(m)->peer.ipv4,
						   pkt_meta(m)->peer.port };
		rte_pktmbuf_free(m);
	}
	return n;
}

/* Every message queued for the worker, by type; the SUB_ADDs kept. */
static unsigned int to_worker(uint8_t type, struct pl_msg **keep, unsigned int max)
{
	void *obj = NULL;
	unsigned int n = 0;

	while (rte_ring_dequeue(to_match, &obj) == 0) {
		struct pl_msg *m = obj;
		if (m->type == type && n < max)
			keep[n++] = m;
		else
			pl_msg_put(msg_pool, m);
	}
	return n;
}

static void put_all(struct pl_msg **v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		pl_msg_put(msg_pool, v[i]);
}

static void poll_once(void)
{
	spated_counters_sum(&before);
	stage_cluster_poll(cl);
}

static uint64_t moved_err(int code)
{
	struct spated_counters now;

	spated_counters_sum(&now);
	return now.msg_err[code] - before.msg_err[code];
}

#define CNT(field) (now.field - before.field)

#define CHECK_NACK(rp, code_, req_type_, seq_, id_)      \
	do {                                             \
		CHECK_EQ_INT((rp).type, SPATE_MSG_NACK); \
		CHECK_EQ_INT((rp).code, code_);          \
		CHECK_EQ_INT((rp).req_type, req_type_);  \
		CHECK_EQ_INT((rp).seq, seq_);            \
		CHECK_EQ_INT((rp).id, id_);              \
		CHECK_EQ_INT((rp).to_ip, SRC_IP);        \
		CHECK_EQ_INT((rp).to_port, SRC_PORT);    \
	} while (0)

/* The datagram in d sent and polled: refused by exactly one NACK, of
 * code err (wire number num: both checked) for the message of type
 * req_type, seq and id; err's counter moved once. A macro: a failure
 * names the caller's line. */
#define SEND_ONE_NACK(d, err, num, req_type_, seq_, id_)        \
	do {                                                    \
		struct reply one_[16];                          \
		dg_send(d, SRC_IP);                             \
		poll_once();                                    \
		CHECK_EQ_INT(replies(one_, 16), 1);             \
		CHECK_NACK(one_[0], num, req_type_, seq_, id_); \
		CHECK_EQ_INT(moved_err(err), 1);                \
	} while (0)

static void test_sub_add(void)
{
	struct dg d;
	struct pl_msg *got[16];
	struct reply rp[16];

	/* three adds in one datagram: the destination's zero halves filled
	 * from the source, each on its own */
	dg_begin(&d, 7, 1000);
	dg_sub_add(&d, 1, "a", 0, 0);
	dg_sub_add(&d, 2, "a", 0, 0x1234);
	dg_sub_add(&d, 3, "a", 0x0b0c0d0e, 0);
	dg_sub_add(&d, 4, "a", 0x0b0c0d0e, 0xfe01);
	dg_send(&d, SRC_IP);
	poll_once();
	struct spated_counters now;
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(messages), 4);
	CHECK_EQ_INT(CNT(sub_adds), 4);
	CHECK_EQ_INT(CNT(bad_messages), 0);
	CHECK_EQ_INT(replies(rp, 16), 0); /* ACKed by the worker, once applied */
	unsigned int n = to_worker(PL_SUB_ADD, got, 16);
	CHECK_EQ_INT(n, 4);
	static const struct spate_dest want[] = {
		{ SRC_IP, SRC_PORT },
		{ SRC_IP, 0x1234 },
		{ 0x0b0c0d0e, SRC_PORT },
		{ 0x0b0c0d0e, 0xfe01 },
	};
	for (unsigned int i = 0; i < n && i < 4; i++) {
		const struct pl_sub *ps = &got[i]->u.sub;
		CHECK_EQ_INT(ps->sub.id, i + 1);
		CHECK_EQ_INT(ps->sub.owner, 7);
		CHECK_EQ_INT(ps->sub.dest.ipv4, want[i].ipv4);
		CHECK_EQ_INT(ps->sub.dest.port, want[i].port);
		CHECK_EQ_INT(ps->reply.to.ipv4, SRC_IP);
		CHECK_EQ_INT(ps->reply.to.port, SRC_PORT);
		CHECK_EQ_INT(ps->reply.req_seq, 1000);
		CHECK_EQ_INT(ps->reply.req_type, SPATE_MSG_SUB_ADD);
		CHECK_EQ_INT(ps->reply.id, i + 1);
		CHECK_EQ_INT(ps->sub.n_kw, 1);
		CHECK(got[i]->cat != 0);
	}
	put_all(got, n);
	CHECK_EQ_INT(spate_matcher_sub_count(stage_cluster_matcher(cl)), 4);
}

static void test_nacks(void)
{
	struct dg d;
	struct reply rp[16];
	struct pl_msg *got[16];

	/* id 1 again with other content: DUPLICATE_ID (16) */
	dg_begin(&d, 7, 2000);
	dg_sub_add(&d, 1, "zz", 0, 0);
	SEND_ONE_NACK(&d, SPATE_E_DUPLICATE_ID, 16, SPATE_MSG_SUB_ADD, 2000, 1);
	/* the same add again (a retransmission): no NACK, an ACK behind it */
	dg_begin(&d, 7, 2001);
	dg_sub_add(&d, 1, "a", 0, 0);
	dg_send(&d, SRC_IP);
	poll_once();
	CHECK_EQ_INT(replies(rp, 16), 0);
	unsigned int n = to_worker(PL_ACK, got, 16);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		CHECK_EQ_INT(got[0]->u.ack.req_seq, 2001);
		CHECK_EQ_INT(got[0]->u.ack.id, 1);
		CHECK_EQ_INT(got[0]->u.ack.req_type, SPATE_MSG_SUB_ADD);
		CHECK_EQ_INT(got[0]->u.ack.to.ipv4, SRC_IP);
	}
	put_all(got, n);

	/* deletes: unknown id (17), another client's (18), then its own */
	dg_begin(&d, 8, 3000);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 99), 0);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 2), 0);
	dg_send(&d, SRC_IP);
	poll_once();
	CHECK_EQ_INT(replies(rp, 16), 2);
	CHECK_NACK(rp[0], 17, SPATE_MSG_SUB_DEL, 3000, 99);
	CHECK_NACK(rp[1], 18, SPATE_MSG_SUB_DEL, 3000, 2);
	CHECK_EQ_INT(moved_err(SPATE_E_UNKNOWN_ID), 1);
	CHECK_EQ_INT(moved_err(SPATE_E_NOT_OWNER), 1);
	struct spated_counters now;
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(bad_messages), 2);
	CHECK_EQ_INT(CNT(messages), 2);
	dg_begin(&d, 7, 3001);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 2), 0);
	dg_send(&d, SRC_IP);
	poll_once();
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(sub_dels), 1);
	CHECK_EQ_INT(replies(rp, 16), 0);
	n = to_worker(PL_SUB_DEL, got, 16);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		CHECK_EQ_INT(got[0]->u.sub.sub.id, 2);
		CHECK_EQ_INT(got[0]->u.sub.reply.req_seq, 3001);
		CHECK_EQ_INT(got[0]->u.sub.reply.req_type, SPATE_MSG_SUB_DEL);
	}
	put_all(got, n);
	CHECK_EQ_INT(spate_matcher_sub_count(stage_cluster_matcher(cl)), 3);

	/* client 0 is the server's own: RESERVED_CLIENT (32) */
	dg_begin(&d, 0, 4000);
	dg_sub_add(&d, 50, "a", 0, 0);
	SEND_ONE_NACK(&d, SPATE_E_RESERVED_CLIENT, 32, SPATE_MSG_SUB_ADD, 4000, 50);
	/* a client's ACK: NOT_ALLOWED (26) */
	dg_begin(&d, 7, 4001);
	CHECK_EQ_INT(spate_put_ack(&d.w, SPATE_MSG_SUB_ADD, 5, 6), 0);
	SEND_ONE_NACK(&d, SPATE_E_NOT_ALLOWED, 26, SPATE_MSG_ACK, 4001, 6);
	/* over the per-client quota of 5 (19): client 9 adds 6 */
	dg_begin(&d, 9, 5000);
	for (uint64_t id = 100; id < 106; id++)
		dg_sub_add(&d, id, "q", 0, 0);
	SEND_ONE_NACK(&d, SPATE_E_OVER_QUOTA, 19, SPATE_MSG_SUB_ADD, 5000, 105);
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(sub_adds), 5);
	put_all(got, to_worker(0, got, 16));
	/* an inverted rectangle (6), decoded and refused by the codec */
	struct spate_raw_sub rs;
	sub_of(&rs, 200, "a", 0, 0);
	rs.rect = (struct spate_rect){ 10, 0, 5, 10 };
	dg_begin(&d, 7, 6000);
	CHECK_EQ_INT(spate_put_sub_add(&d.w, &rs), 0);
	SEND_ONE_NACK(&d, SPATE_E_INVERTED_RECT, 6, SPATE_MSG_SUB_ADD, 6000, 200);
	/* a datagram whose header is bad never gets this far: counted, no reply */
	dg_begin(&d, 7, 7000);
	dg_sub_add(&d, 300, "a", 0, 0);
	d.buf[0] ^= 0xff;
	dg_send(&d, SRC_IP);
	poll_once();
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(bad_header), 1);
	CHECK_EQ_INT(CNT(messages), 0);
	CHECK_EQ_INT(replies(rp, 16), 0);
}

/* An event in the subscriptions' category: one part to the worker,
 * with its id, place, keywords and attributes. */
static void test_event(void)
{
	struct dg d;
	struct pl_msg *got[16];
	struct spate_raw_event ev;

	/* a subscription that names attribute p: events carry it from now */
	struct spate_raw_sub rs;
	sub_of(&rs, 600, "a", 0, 0);
	rs.n_cons = 1;
	rs.cons[0] = (struct spate_raw_constraint){ { "p", 1 }, SPATE_OP_GE, 0 };
	dg_begin(&d, 7, 7999);
	CHECK_EQ_INT(spate_put_sub_add(&d.w, &rs), 0);
	dg_send(&d, SRC_IP);
	poll_once();
	put_all(got, to_worker(0, got, 16));
	memset(&ev, 0, sizeof(ev));
	ev.id = 777;
	ev.lon = 5;
	ev.lat = 6;
	ev.n_kw = 1;
	ev.kw[0] = (struct spate_str){ "a", 1 };
	ev.n_attr = 2;
	ev.attr[0] = (struct spate_raw_attr){ { "p", 1 }, 2.5 };
	ev.attr[1] = (struct spate_raw_attr){ { "q", 1 }, -7 };
	dg_begin(&d, 7, 8000);
	CHECK_EQ_INT(spate_put_event(&d.w, &ev), 0);
	dg_send(&d, SRC_IP);
	poll_once();
	struct spated_counters now;
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(messages), 1);
	CHECK_EQ_INT(CNT(bad_messages), 0);
	unsigned int n = to_worker(PL_EVENT, got, 16);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		const struct pl_event *pe = &got[0]->u.ev;
		CHECK_EQ_INT(pe->id, 777);
		CHECK_EQ_INT(pe->lon, 5);
		CHECK_EQ_INT(pe->lat, 6);
		CHECK_EQ_INT(pe->n_kw, 1);
		CHECK_EQ_INT(pe->n_attr, 1); /* q: named by no subscription */
		CHECK(pe->attr[0].value == 2.5);
		CHECK_EQ_INT(pe->parts, 1);
		CHECK_EQ_INT(pe->n_cat, 1);
		CHECK(pe->cats[0] != 0);
	}
	put_all(got, n);
	struct reply rp[4];
	CHECK_EQ_INT(replies(rp, 4), 0); /* events are not answered */
}

/* Copies to the other fronts (a standby): everything this stage sends
 * waits until they say the copy arrived. */
static int repl_adds, repl_dels, repl_ok;

static void repl_add(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	(void)ctx;
	CHECK_EQ_INT(rs->id, 400);
	CHECK_EQ_INT(owner, 7);
	repl_adds++;
}

static void repl_del(void *ctx, uint64_t id, uint32_t owner)
{
	(void)ctx;
	CHECK_EQ_INT(id, 400);
	CHECK_EQ_INT(owner, 7);
	repl_dels++;
}

static int repl_done(void *ctx)
{
	(void)ctx;
	return repl_ok;
}

static void test_held(void)
{
	struct dg d;
	struct pl_msg *got[16];

	stage_cluster_set_repl(cl, repl_add, repl_del, repl_done, NULL);
	repl_ok = 0;
	dg_begin(&d, 7, 9000);
	dg_sub_add(&d, 400, "a", 0, 0);
	dg_send(&d, SRC_IP);
	poll_once();
	CHECK_EQ_INT(repl_adds, 1);
	CHECK_EQ_INT(to_worker(PL_SUB_ADD, got, 16), 0); /* held */
	poll_once();
	CHECK_EQ_INT(to_worker(PL_SUB_ADD, got, 16), 0);
	repl_ok = 1;
	poll_once();
	unsigned int n = to_worker(PL_SUB_ADD, got, 16);
	CHECK_EQ_INT(n, 1);
	if (n == 1)
		CHECK_EQ_INT(got[0]->u.sub.sub.id, 400);
	put_all(got, n);
	dg_begin(&d, 7, 9001);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 400), 0);
	dg_send(&d, SRC_IP);
	poll_once();
	CHECK_EQ_INT(repl_dels, 1);
	put_all(got, to_worker(0, got, 16));
	stage_cluster_set_repl(cl, NULL, NULL, NULL, NULL);
}

/* access.rate: SUB_ADD and SUB_DEL are rate limited per client
 * (RATE_LIMITED, 31); events are not. */
static void test_rate(void)
{
	struct dg d;
	struct reply rp[16];
	struct pl_msg *got[16];
	struct ops_conf oc;

	access_destroy(spated_access);
	ops_conf_default(&oc);
	oc.rate = 0.001;
	oc.burst = 2;
	spated_access = access_create(&oc);
	dg_begin(&d, 11, 10000);
	dg_sub_add(&d, 500, "r", 0, 0);
	dg_sub_add(&d, 501, "r", 0, 0);
	dg_sub_add(&d, 502, "r", 0, 0);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 500), 0);
	struct spate_raw_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.id = 9;
	ev.n_kw = 1;
	ev.kw[0] = (struct spate_str){ "r", 1 };
	for (int i = 0; i < 3; i++)
		CHECK_EQ_INT(spate_put_event(&d.w, &ev), 0);
	dg_send(&d, SRC_IP);
	poll_once();
	CHECK_EQ_INT(replies(rp, 16), 2);
	CHECK_NACK(rp[0], 31, SPATE_MSG_SUB_ADD, 10000, 502);
	CHECK_NACK(rp[1], 31, SPATE_MSG_SUB_DEL, 10000, 500);
	CHECK_EQ_INT(moved_err(SPATE_E_RATE_LIMITED), 2);
	put_all(got, to_worker(0, got, 16));
	oc.rate = 0;
	access_destroy(spated_access);
	spated_access = access_create(&oc);
}

/* The ring to TX full: a reply is dropped and counted (ring_full_tx),
 * nothing else happens (no neighbour to forget on this stage). */
static void test_tx_full(void)
{
	struct dg d;
	struct reply rp[80];
	void *fill[80];
	unsigned int k = 0;

	while (rte_ring_free_count(to_tx) > 0 && (fill[k] = rte_pktmbuf_alloc(pkt_pool)) != NULL) {
		pkt_meta((struct rte_mbuf *)fill[k])->kind = PKT_PAYLOAD;
		CHECK_EQ_INT(rte_ring_enqueue(to_tx, fill[k]), 0);
		k++;
	}
	dg_begin(&d, 7, 11000);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 12345), 0);
	dg_send(&d, SRC_IP);
	poll_once();
	struct spated_counters now;
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(ring_full_tx), 1);
	CHECK_EQ_INT(moved_err(SPATE_E_UNKNOWN_ID), 1);
	void *o = NULL;
	while (rte_ring_dequeue(to_tx, &o) == 0)
		rte_pktmbuf_free(o);
	dg_begin(&d, 7, 11001);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 12345), 0);
	dg_send(&d, SRC_IP);
	poll_once();
	CHECK_EQ_INT(replies(rp, 80), 1);
	CHECK_NACK(rp[0], 17, SPATE_MSG_SUB_DEL, 11001, 12345);
}

/* Messages: from the pool while it has some; then NULL for what may be
 * lost (the caller counts it), or the heap for control messages. */
static void test_pl_msg(void)
{
	struct rte_mempool *mp = rte_mempool_create("app_cl_small", 2, sizeof(struct pl_msg), 0, 0,
						    NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	struct spated_counters now;
	struct pl_msg *a, *b, *c, *d;

	CHECK(mp != NULL);
	spated_counters_sum(&before);
	a = pl_msg_get(mp, 0);
	b = pl_msg_get(mp, 1);
	CHECK(a != NULL && b != NULL);
	CHECK_EQ_INT(a->heap, 0);
	CHECK_EQ_INT(b->heap, 0);
	CHECK_EQ_INT(rte_mempool_avail_count(mp), 0);
	CHECK(pl_msg_get(mp, 0) == NULL);
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(msg_heap), 0);
	CHECK_EQ_INT(CNT(msg_no_memory), 0);
	c = pl_msg_control(mp, PL_MOVE, 12, 34);
	CHECK(c != NULL);
	if (c != NULL) {
		CHECK_EQ_INT(c->heap, 1);
		CHECK_EQ_INT(c->type, PL_MOVE);
		CHECK_EQ_INT(c->cat, 12);
		CHECK_EQ_INT(c->other, 34);
	}
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(msg_heap), 1);
	pl_msg_put(mp, c);
	pl_msg_put(mp, a);
	CHECK_EQ_INT(rte_mempool_avail_count(mp), 1);
	d = pl_msg_control(mp, PL_MERGE, 5, 6);
	CHECK(d == a); /* back from the pool */
	CHECK_EQ_INT(d->heap, 0);
	CHECK_EQ_INT(d->type, PL_MERGE);
	pl_msg_put(mp, d);
	pl_msg_put(mp, b);
	CHECK_EQ_INT(rte_mempool_avail_count(mp), 2);
	rte_mempool_free(mp);
}

int main(void)
{
	app_eal_start("app-cluster");
	urcu_qsbr_register_thread();
	spated_counters_bind(rte_lcore_id());
	spate_conf_default(&common);
	common.matcher.max_subs_per_client = 5;
	struct ops_conf oc;
	ops_conf_default(&oc);
	spated_access = access_create(&oc);
	pkt_pool = rte_pktmbuf_pool_create("app_cl_pkts", 511, 0, PKT_META_SIZE,
					   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	msg_pool = rte_mempool_create("app_cl_msgs", 1023, sizeof(struct pl_msg), 0, 0, NULL, NULL,
				      NULL, NULL, SOCKET_ID_ANY, 0);
	in = rte_ring_create("app_cl_in", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	to_match =
		rte_ring_create("app_cl_match", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	feedback = rte_ring_create("app_cl_fb", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	to_tx = rte_ring_create("app_cl_tx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct category_dir *dir = category_dir_create();
	if (!spated_access || !pkt_pool || !msg_pool || !in || !to_match || !feedback || !to_tx ||
	    !dir) {
		fprintf(stderr, "setup failed\n");
		return 2;
	}
	struct stage_cluster_conf c = { .in = &in,
					.n_in = 1,
					.to_match = &to_match,
					.feedback = &feedback,
					.n_workers = 1,
					.to_tx = to_tx,
					.msg_pool = msg_pool,
					.pkt_pool = pkt_pool,
					.dir = dir,
					.common = &common,
					.max_payload = 1472,
					.backlog_max = 1024 };
	cl = stage_cluster_create(&c);
	if (cl == NULL) {
		fprintf(stderr, "stage_cluster_create\n");
		return 2;
	}
	test_sub_add();
	test_nacks();
	test_event();
	test_held();
	test_rate();
	test_pl_msg();
	test_tx_full();
	stage_cluster_destroy(cl);
	category_dir_destroy(dir);
	access_destroy(spated_access);
	urcu_qsbr_unregister_thread();
	return check_summary("app_cluster");
}
