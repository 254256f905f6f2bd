/* stage_cluster.c - the cluster stage (stage_cluster.h): its life and
 * its poll.
 *
 * The poll takes correlation feedback from the workers, settles the
 * hold-back (cluster_hold.c), then reads the RX rings while every
 * backlog to the workers and the message pool have room for one more
 * datagram (flow control below), handing each to the protocol front
 * (cluster_proto.c). A preload file is applied first, as SUB_ADD/SUB_DEL
 * of client 0. The other jobs are in the files cluster_int.h lists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "cluster/cluster_int.h"
#include "control/control.h"
#include "infra/counters.h"
#include "net/notify.h"

#define DEL_MEMORY 4096 /* recent deletes recognised when retransmitted */

static void drop_msg(void *ctx, void *obj)
{
	struct stage_cluster *s = ctx;
	pl_msg_put(s->msg_pool, obj);
}

struct stage_cluster *stage_cluster_create(const struct stage_cluster_conf *c)
{
	struct stage_cluster *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->front.s = s;
	s->dir = c->dir;
	s->lim = &c->common->limits;
	s->n_in = c->n_in;
	s->n_workers = c->n_workers;
	s->msg_pool = c->msg_pool;
	s->backlog_max = c->backlog_max;
	s->pool_margin = PL_BURST + rte_lcore_count() * (c->msg_pool->cache_size * 3 / 2 + 1);
	struct drt_params p = c->common->matcher.params.drt;
	p.workers = c->n_workers;
	s->cl = drt_cluster_create(&p);
	if (s->cl != NULL && c->cat_base != 0 && drt_cluster_set_id_base(s->cl, c->cat_base) != 0)
		goto fail;
	s->cats = spate_idmap_create();
	s->home = spate_idmap_create();
	s->fwd = spate_idmap_create();
	s->fb = calloc(FB_SLOTS, sizeof(*s->fb));
	s->fb_in = calloc(c->n_workers, sizeof(*s->fb_in));
	s->m = spate_matcher_create_engine(&c->common->matcher, &cluster_front_ops, &s->front);
	if (s->m != NULL && spate_matcher_remember_deletes(s->m, DEL_MEMORY) != 0)
		goto fail;
	s->in = calloc(c->n_in, sizeof(*s->in));
	s->to_match = calloc(c->n_workers, sizeof(*s->to_match));
	if (!s->cl || !s->cats || !s->home || !s->fwd || !s->fb || !s->fb_in || !s->m || !s->in ||
	    !s->to_match || tx_out_init(&s->to_tx, c->to_tx, c->pkt_pool) != 0)
		goto fail;
	s->nt = notifier_create(c->max_payload, c->common->limits.max_messages, tx_out_payload,
				&s->to_tx);
	if (s->nt == NULL)
		goto fail;
	memcpy(s->in, c->in, c->n_in * sizeof(*s->in));
	memcpy(s->fb_in, c->feedback, c->n_workers * sizeof(*s->fb_in));
	for (uint32_t w = 0; w < c->n_workers; w++)
		if (ring_out_init(&s->to_match[w], c->to_match[w], 1, drop_msg, s) != 0)
			goto fail;
	if (c->preload != NULL && c->preload[0] != '\0') {
		if (spate_stream_open(&s->pre, c->preload, s->lim) != 0) {
			fprintf(stderr, "spated: preload %s: cannot open\n", c->preload);
			goto fail;
		}
		s->pre_open = 1;
	}
	return s;
fail:
	stage_cluster_destroy(s);
	return NULL;
}

void stage_cluster_flush(struct stage_cluster *s)
{
	for (uint32_t w = 0; w < s->n_workers; w++)
		ring_out_flush(&s->to_match[w]);
	notifier_flush(s->nt);
	tx_out_flush(&s->to_tx);
}

/* Messages a datagram of `count` may take: each (and two spare) for every worker. */
static unsigned int dgram_need(const struct stage_cluster *s, unsigned int count)
{
	return (count + 2) * s->n_workers;
}

/* Room for one more datagram of `count` messages? Every lossless backlog
 * short enough, and the message pool able to take every message of it
 * for every worker (a datagram's events could go to all). Otherwise the
 * datagram waits, and RX's ring fills: overload is dropped, counted, at
 * the door, never as a lost part of an event or a lost change. */
static int has_room(struct stage_cluster *s, unsigned int count)
{
	for (uint32_t w = 0; w < s->n_workers; w++)
		if (ring_out_backlog(&s->to_match[w]) > s->backlog_max)
			return 0;
	return s->pool_est >= dgram_need(s, count) + s->pool_margin;
}

static void read_pool(struct stage_cluster *s)
{
	s->pool_est = rte_mempool_avail_count(s->msg_pool);
}

/* A datagram of `count` messages was handled. */
static void took(struct stage_cluster *s, unsigned int count)
{
	unsigned int need = dgram_need(s, count);

	s->pool_est = s->pool_est > need ? s->pool_est - need : 0;
}

static unsigned int dgram_count(struct rte_mbuf *mb)
{
	const uint8_t *b = rte_pktmbuf_mtod(mb, const uint8_t *);
	/* header offset 6: the message count (RX checked the header) */
	return rte_pktmbuf_data_len(mb) >= SPATE_HDR_LEN ? (unsigned int)(b[6] << 8 | b[7]) : 0;
}

/* Up to a burst of preloaded lines, as SUB_ADD/SUB_DEL of client 0 with
 * no one to answer; RX waits until the file is done. */
static unsigned int preload_step(struct stage_cluster *s)
{
	static const struct spate_hdr hdr = { 0 };
	const struct spate_dest none = { 0, 0 };
	char err[256];
	unsigned int n = 0;

	read_pool(s);
	while (n < PL_BURST && has_room(s, 1)) {
		struct spate_stream_op *op = &s->pre_op;
		int rc = spate_stream_next(&s->pre, op, err, sizeof(err));
		if (rc == 0) {
			spate_stream_close(&s->pre);
			s->pre_open = 0;
			printf("spated: preload done\n");
			fflush(stdout);
			break;
		}
		n++;
		took(s, 1);
		if (rc < 0) {
			fprintf(stderr, "spated: preload: %s\n", err);
			continue;
		}
		s->msg.type = op->kind == SPATE_LINE_SUB     ? SPATE_MSG_SUB_ADD
			      : op->kind == SPATE_LINE_UNSUB ? SPATE_MSG_SUB_DEL
							     : 0;
		if (s->msg.type == 0)
			continue; /* events are not preloaded */
		if (op->kind == SPATE_LINE_SUB) {
			s->msg.u.sub = op->u.sub;
			s->msg.id = op->u.sub.id;
		} else {
			s->msg.id = op->u.unsub_id;
		}
		cluster_on_message(s, &hdr, none, &s->msg);
	}
	stage_cluster_flush(s);
	return n;
}

unsigned int stage_cluster_poll(struct stage_cluster *s)
{
	unsigned int total = 0;

	if (s->rebalance_at != 0 && rte_get_timer_cycles() >= s->rebalance_at) {
		/* a worker came back: balancing gives it its share now */
		s->rebalance_at = 0;
		spated_cnt.rebalances_up++;
		drt_cluster_period_end(s->cl);
		cluster_run_actions(s);
	}

	/* correlation feedback from the workers (a hint: never held back),
	 * all of it: a worker's poll may answer many event parts */
	for (uint32_t w = 0; w < s->n_workers; w++)
		ring_drain(s->fb_in[w], cluster_feedback, s);
	cluster_settle(s, false); /* an interval policy's sync comes due with no traffic too */
	stage_cluster_flush(s);   /* the backlogs first */
	if (s->pre_open)
		return preload_step(s);
	/* the RX rings in turn, one burst each, handled while there is room;
	 * the pool read once a poll that has a datagram (summing its lcore
	 * caches is a tenth of an idle poll's cost) */
	bool pool_read = false;
	for (uint32_t k = 0; k <= s->n_in; k++) {
		if (s->n_pending == s->next_pending) {
			if (k == s->n_in)
				break;
			uint32_t r = (s->next_in + k) % s->n_in;
			s->n_pending = rte_ring_sc_dequeue_burst(s->in[r], (void **)s->pending,
								 PL_BURST, NULL);
			s->next_pending = 0;
		}
		while (s->next_pending < s->n_pending) {
			struct rte_mbuf *mb = s->pending[s->next_pending];
			unsigned int count = dgram_count(mb);
			if (!pool_read) {
				read_pool(s);
				pool_read = true;
			}
			if (!has_room(s, count)) {
				read_pool(s); /* the estimate may be low */
				if (!has_room(s, count)) {
					/* Held output filled a backlog: sync now, let it go. */
					cluster_settle(s, true);
					stage_cluster_flush(s);
				}
			}
			if (!has_room(s, count)) {
				spated_cnt.backpressure++;
				return total;
			}
			s->next_pending++;
			cluster_on_datagram(s, mb);
			took(s, count);
			total++;
		}
	}
	s->next_in++;
	cluster_settle(s, false); /* one sync for the burst's sub operations */
	stage_cluster_flush(s);
	control_poll(); /* operators' requests, between two polls: no lock */
	return total;
}

struct spate_matcher *stage_cluster_matcher(struct stage_cluster *s)
{
	return s->m;
}

int stage_cluster_ready(struct stage_cluster *s)
{
	read_pool(s);
	return has_room(s, 1);
}

static void free_ccat(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	free(val);
}

void stage_cluster_destroy(struct stage_cluster *s)
{
	if (s == NULL)
		return;
	if (s->pre_open)
		spate_stream_close(&s->pre);
	while (s->next_pending < s->n_pending)
		rte_pktmbuf_free(s->pending[s->next_pending++]);
	for (uint32_t r = 0; s->in && r < s->n_in; r++) {
		void *m;
		while (rte_ring_sc_dequeue(s->in[r], &m) == 0)
			rte_pktmbuf_free(m);
	}
	for (uint32_t w = 0; s->to_match && w < s->n_workers; w++)
		ring_out_fini(&s->to_match[w]);
	notifier_destroy(s->nt);
	tx_out_fini(&s->to_tx);
	for (uint32_t w = 0; s->fb_in && w < s->n_workers; w++) {
		void *m;
		while (s->fb_in[w] && rte_ring_sc_dequeue(s->fb_in[w], &m) == 0)
			pl_msg_put(s->msg_pool, m);
	}
	spate_matcher_destroy(s->m);
	drt_cluster_destroy(s->cl);
	spate_idmap_destroy_each(s->cats, free_ccat, NULL);
	spate_idmap_destroy(s->home);
	spate_idmap_destroy(s->fwd);
	free(s->fb);
	free(s->fb_in);
	spate_matchvec_free(&s->mv);
	free(s->in);
	free(s->to_match);
	free(s);
}
