/* test_app_cluster_proto.c - the cluster stage's protocol front
 * (app/cluster/cluster_proto.c) from its other doors: the journal's
 * replay (stage_cluster_apply), a dead front's subscriptions
 * (stage_cluster_adopt), events relayed between fronts, the RX stamp an
 * event carries to its worker, a retransmitted delete ACKed at once or
 * behind the worker, and datagrams refused before their messages (a bad
 * header, a missing signature), each mbuf back in its pool. What the
 * client datagrams' NACKs say is test_app_cluster's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <urcu/urcu-qsbr.h>

#include "app_eal.h"
#include "check.h"
#include "cluster/access.h"
#include "cluster/category_dir.h"
#include "cluster/stage_cluster.h"
#include "conf/spate_conf.h"
#include "infra/counters.h"
#include "infra/pl_msg.h"
#include "proto/spate_proto.h"

#define CLIENT_IP 0x0a000009u
#define CLIENT_PORT 41000

static struct rte_mempool *mbufs, *msgs;
static struct rte_ring *rx_in, *work, *fb, *tx;
static struct stage_cluster *st;
static struct spated_counters c0;

static uint64_t since_mark(size_t offset)
{
	struct spated_counters now;

	spated_counters_sum(&now);
	return *(uint64_t *)((char *)&now + offset) - *(uint64_t *)((char *)&c0 + offset);
}
#define SINCE(f) since_mark(offsetof(struct spated_counters, f))

static void raw_sub(struct spate_raw_sub *rs, uint64_t id, int32_t lon, const char *kw)
{
	memset(rs, 0, sizeof(*rs));
	rs->id = id;
	rs->rect = (struct spate_rect){ lon, 0, lon + 100, 100 };
	rs->n_kw = 1;
	rs->kw[0] = (struct spate_str){ kw, (uint32_t)strlen(kw) };
}

static void raw_event(struct spate_raw_event *ev, uint64_t id, int32_t lon, const char *kw)
{
	memset(ev, 0, sizeof(*ev));
	ev->id = id;
	ev->lon = lon;
	ev->lat = 50;
	ev->n_kw = 1;
	ev->kw[0] = (struct spate_str){ kw, (uint32_t)strlen(kw) };
}

/* A datagram of client 7 as RX hands it over, stamped rx_tsc; polled. */
static void deliver(const uint8_t *buf, size_t len, uint64_t rx_tsc)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mbufs);

	memcpy(rte_pktmbuf_append(m, (uint16_t)len), buf, len);
	*pkt_meta(m) = (struct pkt_meta){ .kind = PKT_DGRAM,
					  .peer = { CLIENT_IP, CLIENT_PORT },
					  .rx_tsc = rx_tsc };
	CHECK_EQ_INT(rte_ring_enqueue(rx_in, m), 0);
	spated_counters_sum(&c0);
	stage_cluster_poll(st);
}

/* Messages for the worker: how many of `type`, the first of them kept
 * in *first (the caller puts it back); the rest go back to the pool. */
static unsigned int for_worker(uint8_t type, struct pl_msg **first)
{
	void *o = NULL;
	unsigned int n = 0;

	*first = NULL;
	while (rte_ring_dequeue(work, &o) == 0) {
		struct pl_msg *m = o;
		if (m->type == type && n++ == 0)
			*first = m;
		else
			pl_msg_put(msgs, m);
	}
	return n;
}

static void drop_worker_msgs(void)
{
	struct pl_msg *m;

	for_worker(0, &m);
}

/* The replies queued for TX: how many messages, the first kept. */
static unsigned int replies(struct spate_msg *first)
{
	void *o = NULL;
	unsigned int n = 0;
	struct spate_limits lim;

	spate_limits_default(&lim);
	while (rte_ring_dequeue(tx, &o) == 0) {
		struct rte_mbuf *m = o;
		struct spate_hdr h;
		struct spate_reader r;
		struct spate_msg msg;
		CHECK_EQ_INT(pkt_meta(m)->peer.ipv4, CLIENT_IP);
		if (spate_hdr_decode(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m), &lim,
				     &h) == 0) {
			spate_reader_init(&r, rte_pktmbuf_mtod(m, uint8_t *),
					  rte_pktmbuf_data_len(m), &h);
			while (spate_reader_next(&r, &lim, &msg) == 1)
				if (n++ == 0)
					*first = msg;
		}
		rte_pktmbuf_free(m);
	}
	return n;
}

/* The journal's replay and a dead front's subscriptions: applied with
 * nobody to answer; refusals are returned (and counted), not NACKed;
 * only SUB_ADD and SUB_DEL are taken. */
static int recorded_adds, recorded_dels;
static uint32_t recorded_owner;

static void rec_add(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	(void)ctx;
	(void)rs;
	recorded_adds++;
	recorded_owner = owner;
}

static void rec_del(void *ctx, uint64_t id, uint32_t owner)
{
	(void)ctx;
	(void)id;
	recorded_dels++;
	recorded_owner = owner;
}

static int rec_done(void *ctx)
{
	(void)ctx;
	return 1;
}

static void test_apply(void)
{
	struct spate_matcher *mt = stage_cluster_matcher(st);
	struct spate_msg msg;
	struct pl_msg *pm;
	struct spate_msg rp;

	stage_cluster_set_repl(st, rec_add, rec_del, rec_done, NULL);
	memset(&msg, 0, sizeof(msg));
	msg.type = SPATE_MSG_SUB_ADD;
	raw_sub(&msg.u.sub, 10, 0, "a");
	msg.id = 10;
	msg.u.sub.dest = (struct spate_dest){ CLIENT_IP, CLIENT_PORT };
	spated_counters_sum(&c0);
	CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), 0);
	CHECK_EQ_INT(spate_matcher_sub_count(mt), 1);
	CHECK_EQ_INT(SINCE(sub_adds), 1);
	CHECK_EQ_INT(recorded_adds, 0); /* replayed: in the journal already */
	stage_cluster_flush(st);
	CHECK_EQ_INT(for_worker(PL_SUB_ADD, &pm), 1);
	if (pm != NULL) {
		CHECK_EQ_INT(pm->u.sub.sub.id, 10);
		CHECK_EQ_INT(pm->u.sub.sub.owner, 7);
		CHECK_EQ_INT(pm->u.sub.reply.req_type, 0); /* nobody to answer */
		pl_msg_put(msgs, pm);
	}
	/* the same id with other content: refused, returned, counted */
	raw_sub(&msg.u.sub, 10, 0, "other");
	spated_counters_sum(&c0);
	CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), -SPATE_E_DUPLICATE_ID);
	CHECK_EQ_INT(SINCE(bad_messages), 1);
	CHECK_EQ_INT(SINCE(msg_err[SPATE_E_DUPLICATE_ID]), 1);
	/* not a subscription change: refused before anything happens */
	msg.type = SPATE_MSG_EVENT;
	raw_event(&msg.u.ev, 1, 10, "a");
	spated_counters_sum(&c0);
	CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), -SPATE_E_NOT_ALLOWED);
	CHECK_EQ_INT(SINCE(events), 0);
	CHECK_EQ_INT(SINCE(bad_messages), 0);
	msg.type = SPATE_MSG_ACK;
	CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), -SPATE_E_NOT_ALLOWED);
	/* deletes: another owner's refused, then its own (0 after a refusal:
	 * the last code does not stick) */
	msg.type = SPATE_MSG_SUB_DEL;
	msg.id = 10;
	CHECK_EQ_INT(stage_cluster_apply(st, 8, &msg), -SPATE_E_NOT_OWNER);
	spated_counters_sum(&c0);
	CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), 0);
	CHECK_EQ_INT(SINCE(sub_dels), 1);
	CHECK_EQ_INT(recorded_dels, 0);
	CHECK_EQ_INT(spate_matcher_sub_count(mt), 0);
	stage_cluster_flush(st);
	CHECK_EQ_INT(for_worker(PL_SUB_DEL, &pm), 1);
	if (pm != NULL)
		pl_msg_put(msgs, pm);
	CHECK_EQ_INT(replies(&rp), 0);

	/* adopted: applied, then recorded as this front's own */
	struct spate_raw_sub rs;
	raw_sub(&rs, 20, 0, "a");
	rs.dest = (struct spate_dest){ CLIENT_IP, CLIENT_PORT };
	CHECK_EQ_INT(stage_cluster_adopt(st, 9, &rs), 0);
	CHECK_EQ_INT(recorded_adds, 1);
	CHECK_EQ_INT(recorded_owner, 9);
	CHECK(spate_matcher_sub_find(mt, 20) != NULL);
	/* an id taken already: the code, nothing recorded */
	raw_sub(&rs, 20, 0, "b");
	CHECK_EQ_INT(stage_cluster_adopt(st, 9, &rs), -SPATE_E_DUPLICATE_ID);
	CHECK_EQ_INT(recorded_adds, 1);
	stage_cluster_flush(st);
	drop_worker_msgs();
	CHECK_EQ_INT(replies(&rp), 0);

	/* from the network the same changes are recorded */
	uint8_t buf[512];
	struct spate_writer w;
	spate_writer_init(&w, buf, sizeof(buf), 0, 7, 100);
	raw_sub(&rs, 21, 0, "a");
	CHECK_EQ_INT(spate_put_sub_add(&w, &rs), 0);
	deliver(buf, spate_writer_finish(&w), 0);
	CHECK_EQ_INT(recorded_adds, 2);
	CHECK_EQ_INT(recorded_owner, 7);
	spate_writer_init(&w, buf, sizeof(buf), 0, 7, 101);
	CHECK_EQ_INT(spate_put_sub_del(&w, 21), 0);
	deliver(buf, spate_writer_finish(&w), 0);
	CHECK_EQ_INT(recorded_dels, 1);
	drop_worker_msgs();
	stage_cluster_set_repl(st, NULL, NULL, NULL, NULL);

	/* the replay is not rate-limited (a client's limit of 2 at once) */
	struct ops_conf oc;
	ops_conf_default(&oc);
	oc.rate = 0.001;
	oc.burst = 2;
	struct access *open = spated_access;
	spated_access = access_create(&oc);
	msg.type = SPATE_MSG_SUB_ADD;
	for (uint64_t id = 40; id < 45; id++) {
		msg.id = id;
		raw_sub(&msg.u.sub, id, 0, "r");
		CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), 0);
	}
	msg.type = SPATE_MSG_SUB_DEL;
	for (uint64_t id = 40; id < 45; id++) {
		msg.id = id;
		CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), 0);
	}
	stage_cluster_flush(st);
	drop_worker_msgs();
	access_destroy(spated_access);
	spated_access = open;
}

/* An event from a client is matched and relayed to the other fronts,
 * with its datagram's RX stamp on the way to the worker; one relayed by
 * another front is matched, not stamped and not relayed again. */
static int relayed;
static uint64_t relayed_id;

static void relay(void *ctx, const struct spate_raw_event *ev)
{
	CHECK(ctx == &relayed);
	relayed++;
	relayed_id = ev->id;
}

/* One event, counted, went to the worker with this id and RX stamp. */
static void event_went(uint64_t id, uint64_t rx_tsc)
{
	struct pl_msg *pm;

	CHECK_EQ_INT(SINCE(events), 1);
	CHECK_EQ_INT(for_worker(PL_EVENT, &pm), 1);
	if (pm != NULL) {
		CHECK_EQ_INT(pm->u.ev.id, id);
		CHECK_EQ_INT(pm->u.ev.rx_tsc, rx_tsc);
		pl_msg_put(msgs, pm);
	}
}

static void test_relay_and_stamp(void)
{
	uint8_t buf[512];
	struct spate_writer w;
	struct spate_raw_event ev;

	stage_cluster_set_relay(st, relay, &relayed);
	raw_event(&ev, 555, 10, "a");
	spate_writer_init(&w, buf, sizeof(buf), 0, 7, 200);
	CHECK_EQ_INT(spate_put_event(&w, &ev), 0);
	deliver(buf, spate_writer_finish(&w), 987654321);
	CHECK_EQ_INT(relayed, 1);
	CHECK_EQ_INT(relayed_id, 555);
	event_went(555, 987654321);
	/* relayed here by another front */
	ev.id = 556;
	spated_counters_sum(&c0);
	stage_cluster_relayed(st, &ev);
	stage_cluster_flush(st);
	CHECK_EQ_INT(relayed, 1);
	event_went(556, 0);
	stage_cluster_set_relay(st, NULL, NULL);
}

/* A delete sent again (its ACK lost): ACKed behind the worker while its
 * category lives, at once when the category is gone. */
static void test_delete_again(void)
{
	uint8_t buf[512];
	struct spate_writer w;
	struct spate_raw_sub rs;
	struct pl_msg *pm;
	struct spate_msg rp;

	/* 30 and 31 in a category of their own (far from the others), 30
	 * deleted twice */
	spate_writer_init(&w, buf, sizeof(buf), 0, 7, 300);
	raw_sub(&rs, 30, 500000000, "d");
	CHECK_EQ_INT(spate_put_sub_add(&w, &rs), 0);
	raw_sub(&rs, 31, 500000000, "d");
	CHECK_EQ_INT(spate_put_sub_add(&w, &rs), 0);
	deliver(buf, spate_writer_finish(&w), 0);
	drop_worker_msgs();
	for (int i = 0; i < 2; i++) {
		spate_writer_init(&w, buf, sizeof(buf), 0, 7, 301 + (uint32_t)i);
		CHECK_EQ_INT(spate_put_sub_del(&w, 30), 0);
		deliver(buf, spate_writer_finish(&w), 0);
	}
	CHECK_EQ_INT(replies(&rp), 0);
	CHECK_EQ_INT(for_worker(PL_ACK, &pm), 1);
	if (pm != NULL) {
		CHECK_EQ_INT(pm->u.ack.req_type, SPATE_MSG_SUB_DEL);
		CHECK_EQ_INT(pm->u.ack.req_seq, 302);
		CHECK_EQ_INT(pm->u.ack.id, 30);
		CHECK_EQ_INT(pm->u.ack.to.ipv4, CLIENT_IP);
		CHECK_EQ_INT(pm->u.ack.to.port, CLIENT_PORT);
		pl_msg_put(msgs, pm);
	}
	/* 31 was the last: its category goes; the retransmission is ACKed here */
	for (int i = 0; i < 2; i++) {
		spate_writer_init(&w, buf, sizeof(buf), 0, 7, 310 + (uint32_t)i);
		CHECK_EQ_INT(spate_put_sub_del(&w, 31), 0);
		deliver(buf, spate_writer_finish(&w), 0);
	}
	CHECK_EQ_INT(for_worker(PL_ACK, &pm), 0);
	drop_worker_msgs();
	CHECK_EQ_INT(replies(&rp), 1);
	CHECK_EQ_INT(rp.type, SPATE_MSG_ACK);
	CHECK_EQ_INT(rp.u.ack.req_type, SPATE_MSG_SUB_DEL);
	CHECK_EQ_INT(rp.u.ack.req_seq, 311);
	CHECK_EQ_INT(rp.u.ack.id, 31);
	/* replayed from the journal twice (in a category of its own, gone
	 * with it): no one to ACK */
	struct spate_msg msg;
	memset(&msg, 0, sizeof(msg));
	msg.type = SPATE_MSG_SUB_ADD;
	msg.id = 32;
	raw_sub(&msg.u.sub, 32, -500000000, "e");
	msg.u.sub.dest = (struct spate_dest){ CLIENT_IP, CLIENT_PORT };
	CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), 0);
	msg.type = SPATE_MSG_SUB_DEL;
	CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), 0);
	CHECK_EQ_INT(stage_cluster_apply(st, 7, &msg), 0);
	stage_cluster_flush(st);
	CHECK_EQ_INT(for_worker(PL_ACK, &pm), 0);
	CHECK_EQ_INT(replies(&rp), 0);
}

/* Refused before its messages: a header that does not decode, an
 * unsigned datagram where signatures are required. Counted, never
 * answered, the mbuf back in the pool. */
static void test_refused(void)
{
	uint8_t buf[512];
	struct spate_writer w;
	struct spate_msg rp;

	spate_writer_init(&w, buf, sizeof(buf), 0, 7, 400);
	CHECK_EQ_INT(spate_put_sub_del(&w, 99), 0);
	size_t len = spate_writer_finish(&w);
	buf[0] ^= 0xff;
	deliver(buf, len, 0);
	CHECK_EQ_INT(SINCE(bad_header), 1);
	CHECK_EQ_INT(SINCE(messages), 0);
	buf[0] ^= 0xff;
	CHECK_EQ_INT(rte_mempool_in_use_count(mbufs), 0);
	/* signatures required, this one unsigned */
	struct ops_conf oc;
	ops_conf_default(&oc);
	static struct ops_key key = { .client = 7, .len = 32 };
	memset(key.key, 0x11, key.len);
	oc.keys = &key;
	oc.n_keys = 1;
	oc.require_auth = true;
	struct access *open = spated_access;
	spated_access = access_create(&oc);
	CHECK(spated_access != NULL);
	deliver(buf, len, 0);
	CHECK_EQ_INT(SINCE(auth_dropped), 1);
	CHECK_EQ_INT(SINCE(messages), 0);
	CHECK_EQ_INT(SINCE(hdr_err[SPATE_E_AUTH_REQUIRED]), 1);
	CHECK_EQ_INT(rte_mempool_in_use_count(mbufs), 0);
	access_destroy(spated_access);
	spated_access = open;
	CHECK_EQ_INT(replies(&rp), 0);
	/* and the same datagram, now taken: UNKNOWN_ID, the mbuf freed too */
	deliver(buf, len, 0);
	CHECK_EQ_INT(SINCE(messages), 1);
	CHECK_EQ_INT(replies(&rp), 1);
	CHECK_EQ_INT(rp.u.ack.code, SPATE_E_UNKNOWN_ID);
	CHECK_EQ_INT(rte_mempool_in_use_count(mbufs), 0);
}

int main(void)
{
	app_eal_start("app-cluster-proto");
	urcu_qsbr_register_thread();
	spated_counters_bind(rte_lcore_id());
	static struct spate_conf common;
	spate_conf_default(&common);
	struct ops_conf oc;
	ops_conf_default(&oc);
	spated_access = access_create(&oc);
	mbufs = rte_pktmbuf_pool_create("app_cp_pkts", 255, 0, PKT_META_SIZE,
					RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	msgs = rte_mempool_create("app_cp_msgs", 511, sizeof(struct pl_msg), 0, 0, NULL, NULL, NULL,
				  NULL, SOCKET_ID_ANY, 0);
	rx_in = rte_ring_create("app_cp_in", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	work = rte_ring_create("app_cp_work", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	fb = rte_ring_create("app_cp_fb", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	tx = rte_ring_create("app_cp_tx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct category_dir *dir = category_dir_create();
	struct stage_cluster_conf c = { .in = &rx_in,
					.n_in = 1,
					.to_match = &work,
					.feedback = &fb,
					.n_workers = 1,
					.to_tx = tx,
					.msg_pool = msgs,
					.pkt_pool = mbufs,
					.dir = dir,
					.common = &common,
					.max_payload = 1472,
					.backlog_max = 1024 };
	st = spated_access && mbufs && msgs && rx_in && work && fb && tx && dir
		     ? stage_cluster_create(&c)
		     : NULL;
	if (st == NULL) {
		fprintf(stderr, "setup failed\n");
		return 2;
	}
	test_apply();
	test_relay_and_stamp();
	test_delete_again();
	test_refused();
	stage_cluster_destroy(st);
	category_dir_destroy(dir);
	access_destroy(spated_access);
	urcu_qsbr_unregister_thread();
	return check_summary("app_cluster_proto");
}
