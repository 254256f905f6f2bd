/* test_app_workers.c - the cluster stage (app/cluster/) with three
 * matching workers, on rings, without a port: which worker's ring each
 * placed subscription goes to, the merges the clustering decides (the
 * MOVE, EXPECT and MERGE messages on the right rings, in order, and
 * their counters), correlation feedback gathered from the parts of an
 * event, the balancing moves, the failover of dead workers and their
 * return (stage_cluster_workers_down/up), the flow control that holds
 * datagrams back (backlogs, message pool, the header's message count),
 * the preload file and what the stage frees when it goes. Every
 * expectation is exact: which message, for which category, naming what,
 * on which worker's ring; the clustering's own view (the engine's
 * category listing) and the category directory agree with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
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
#include "matcher/spate_matcher.h"
#include "proto/spate_err.h"
#include "proto/spate_proto.h"
#include "store/durable.h"

#define NW 3
#define DEG SPATE_COORD_SCALE
#define CLIENT 7
#define SRC_IP 0x0a000002u
#define SRC_PORT 40000
#define MAX_OUT 64
#define PKTS 255
#define MSGS 1023

static struct rte_mempool *pkt_pool, *msg_pool;
static struct rte_ring *in, *to_match[NW], *fb[NW], *to_tx;
static struct rte_ring *big[NW], *small[NW]; /* to_match: 255 or 3 messages */
static struct category_dir *dir;
static struct spate_conf common;
static struct stage_cluster *cl;
static struct spated_counters before;

static struct stage_cluster_conf conf_of(struct rte_ring **rings, uint32_t backlog_max,
					 const char *preload, uint32_t cat_base)
{
	memcpy(to_match, rings, sizeof(to_match));
	return (struct stage_cluster_conf){ .in = &in,
					    .n_in = 1,
					    .to_match = to_match,
					    .feedback = fb,
					    .n_workers = NW,
					    .to_tx = to_tx,
					    .msg_pool = msg_pool,
					    .pkt_pool = pkt_pool,
					    .dir = dir,
					    .common = &common,
					    .max_payload = 1472,
					    .backlog_max = backlog_max,
					    .preload = preload,
					    .cat_base = cat_base };
}

static void stage_start(struct rte_ring **rings, uint32_t backlog_max, const char *preload,
			uint32_t cat_base)
{
	dir = category_dir_create();
	struct stage_cluster_conf c = conf_of(rings, backlog_max, preload, cat_base);
	cl = dir ? stage_cluster_create(&c) : NULL;
	if (cl == NULL) {
		fprintf(stderr, "stage_cluster_create failed\n");
		exit(2);
	}
}

/* Every ring emptied: messages back to their pool, packets freed. */
static void rings_empty(void)
{
	void *o = NULL;

	for (uint32_t w = 0; w < NW; w++) {
		while (rte_ring_dequeue(to_match[w], &o) == 0)
			pl_msg_put(msg_pool, o);
		while (rte_ring_dequeue(fb[w], &o) == 0)
			pl_msg_put(msg_pool, o);
	}
	while (rte_ring_dequeue(to_tx, &o) == 0)
		rte_pktmbuf_free(o);
	while (rte_ring_dequeue(in, &o) == 0)
		rte_pktmbuf_free(o);
}

/* The stage gone: every datagram it held or had not read yet freed,
 * every feedback message given back, nothing else left anywhere. */
static void stage_stop(void)
{
	stage_cluster_destroy(cl);
	cl = NULL;
	category_dir_destroy(dir);
	CHECK_EQ_INT(rte_ring_count(in), 0);
	for (uint32_t w = 0; w < NW; w++)
		CHECK_EQ_INT(rte_ring_count(fb[w]), 0);
	CHECK_EQ_INT(rte_mempool_avail_count(pkt_pool) + rte_ring_count(to_tx), PKTS);
	rings_empty();
	CHECK_EQ_INT(rte_mempool_avail_count(msg_pool), MSGS);
}

/* ---- in: datagrams as RX leaves them, feedback as workers send it ---- */

struct dg {
	uint8_t buf[2048];
	struct spate_writer w;
};

static void dg_begin(struct dg *d, uint32_t seq)
{
	spate_writer_init(&d->w, d->buf, sizeof(d->buf), 0, CLIENT, seq);
}

/* Subscription id with keyword kw over [x0, x1] x [y0, y1] degrees. */
static void dg_sub(struct dg *d, uint64_t id, const char *kw, int x0, int y0, int x1, int y1)
{
	struct spate_raw_sub rs;

	memset(&rs, 0, sizeof(rs));
	rs.id = id;
	rs.rect = (struct spate_rect){ x0 * DEG, y0 * DEG, x1 * DEG, y1 * DEG };
	rs.n_kw = 1;
	rs.kw[0] = (struct spate_str){ kw, (uint32_t)strlen(kw) };
	rs.dest = (struct spate_dest){ SRC_IP, 5000 };
	if (spate_put_sub_add(&d->w, &rs) != 0)
		abort();
}

/* A datagram of len bytes into the RX ring, as RX leaves it. */
static void queue_bytes(const uint8_t *buf, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pkt_pool);

	if (m == NULL)
		abort();
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), buf, len);
	pkt_meta(m)->kind = PKT_DGRAM;
	pkt_meta(m)->peer = (struct spate_dest){ SRC_IP, SRC_PORT };
	pkt_meta(m)->rx_tsc = 0;
	if (rte_ring_enqueue(in, m) != 0)
		abort();
}

static void dg_queue(struct dg *d)
{
	size_t len = spate_writer_finish(&d->w);

	queue_bytes(d->buf, len);
}

static unsigned int poll_once(void)
{
	spated_counters_sum(&before);
	return stage_cluster_poll(cl);
}

/* One SUB_ADD in a datagram of its own (seq = id), polled. */
static void add(uint64_t id, const char *kw, int x0, int y0, int x1, int y1)
{
	struct dg d;

	dg_begin(&d, (uint32_t)id);
	dg_sub(&d, id, kw, x0, y0, x1, y1);
	dg_queue(&d);
	CHECK_EQ_INT(poll_once(), 1);
}

static void del(uint64_t id)
{
	struct dg d;

	dg_begin(&d, (uint32_t)id + 1000);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, id), 0);
	dg_queue(&d);
	CHECK_EQ_INT(poll_once(), 1);
}

/* An event at (x, y) degrees with keywords kw1 (and kw2, unless NULL). */
static void event(uint64_t id, const char *kw1, const char *kw2, int x, int y)
{
	struct dg d;
	struct spate_raw_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.id = id;
	ev.lon = x * DEG;
	ev.lat = y * DEG;
	ev.kw[ev.n_kw++] = (struct spate_str){ kw1, (uint32_t)strlen(kw1) };
	if (kw2 != NULL)
		ev.kw[ev.n_kw++] = (struct spate_str){ kw2, (uint32_t)strlen(kw2) };
	dg_begin(&d, (uint32_t)id);
	CHECK_EQ_INT(spate_put_event(&d.w, &ev), 0);
	dg_queue(&d);
	CHECK_EQ_INT(poll_once(), 1);
}

/* Worker w's feedback for event part seq of `parts`: it matched in cats. */
static void feedback(uint32_t w, uint32_t seq, uint16_t parts, const uint32_t *cats, uint16_t n)
{
	struct pl_msg *m = pl_msg_get(msg_pool, 1);

	if (m == NULL)
		abort();
	m->type = PL_FEEDBACK;
	m->cat = cats[0];
	m->u.fb.origin = cats[0];
	m->u.fb.seq = seq;
	m->u.fb.parts = parts;
	m->u.fb.n = n;
	memcpy(m->u.fb.cats, cats, n * sizeof(*cats));
	if (rte_ring_enqueue(fb[w], m) != 0)
		abort();
}

/* ---- out: what the workers' rings hold ---- */

struct out {
	uint8_t type;
	uint32_t cat, other;
	uint64_t sub;      /* SUB_ADD/SUB_DEL: the subscription */
	uint8_t answered;  /* SUB_ADD/SUB_DEL: a client is answered (reply set) */
	uint32_t seq;      /* EVENT: the cluster's event number */
	uint16_t parts, n; /* EVENT: parts, categories */
	uint32_t cats[4];  /* EVENT: the first categories */
	uint32_t n_kw;     /* SUB_ADD: keywords carried */
	uint32_t kw[2];    /* SUB_ADD, EVENT: the first keyword ids */
	struct spate_rect rect;
};

/* The interned keyword of subscriptions 0-15, as their SUB_ADDs said. */
static uint32_t kw_of_sub[16];

/* Every message on worker w's ring, in order, freed. */
static unsigned int take(uint32_t w, struct out *v, unsigned int max)
{
	void *o = NULL;
	unsigned int n = 0;

	while (rte_ring_dequeue(to_match[w], &o) == 0) {
		struct pl_msg *m = o;
		if (n < max) {
			struct out *x = &v[n++];
			memset(x, 0, sizeof(*x));
			x->type = m->type;
			x->cat = m->cat;
			x->other = m->other;
			if (m->type == PL_SUB_ADD || m->type == PL_SUB_DEL) {
				x->sub = m->u.sub.sub.id;
				x->answered = m->u.sub.reply.req_type != 0 ||
					      m->u.sub.reply.to.ipv4 != 0 ||
					      m->u.sub.reply.req_seq != 0;
				x->n_kw = m->u.sub.sub.n_kw;
				memcpy(x->kw, m->u.sub.kw, sizeof(x->kw));
				if (m->type == PL_SUB_ADD && x->sub < 16)
					kw_of_sub[x->sub] = m->u.sub.kw[0];
				x->rect = m->u.sub.sub.rect;
			}
			if (m->type == PL_EVENT) {
				x->seq = m->u.ev.seq;
				x->parts = m->u.ev.parts;
				x->n = m->u.ev.n_cat;
				memcpy(x->cats, m->u.ev.cats, sizeof(x->cats));
				memcpy(x->kw, m->u.ev.kw, sizeof(x->kw));
			}
		}
		pl_msg_put(msg_pool, m);
	}
	return n;
}

/* All three rings at once. */
struct outs {
	struct out v[NW][MAX_OUT];
	unsigned int n[NW];
};

static void take_all(struct outs *o)
{
	for (uint32_t w = 0; w < NW; w++)
		o->n[w] = take(w, o->v[w], MAX_OUT);
}

#define CHECK_MSG(o, type_, cat_, other_)        \
	do {                                     \
		CHECK_EQ_INT((o).type, type_);   \
		CHECK_EQ_INT((o).cat, cat_);     \
		CHECK_EQ_INT((o).other, other_); \
	} while (0)

#define CHECK_ADD(o, cat_, sub_, answered_)            \
	do {                                           \
		CHECK_EQ_INT((o).type, PL_SUB_ADD);    \
		CHECK_EQ_INT((o).cat, cat_);           \
		CHECK_EQ_INT((o).sub, sub_);           \
		CHECK_EQ_INT((o).answered, answered_); \
	} while (0)

/* The datagram just polled placed one subscription: its SUB_ADD, the
 * only message, on worker w's ring for category cat. */
#define CHECK_PLACED(w, cat_, sub_)                                  \
	do {                                                         \
		struct outs o_;                                      \
		take_all(&o_);                                       \
		for (uint32_t k_ = 0; k_ < NW; k_++)                 \
			CHECK_EQ_INT(o_.n[k_], k_ == (w) ? 1u : 0u); \
		if (o_.n[w] == 1)                                    \
			CHECK_ADD(o_.v[w][0], cat_, sub_, 1);        \
	} while (0)

#define CNT(field) (now.field - before.field)

/* ---- the clustering's view and the directory ---- */

struct cats_seen {
	uint32_t n, id[32], worker[32], size[32];
};

static void cat_seen(void *ctx, const struct spate_category_info *ci)
{
	struct cats_seen *x = ctx;

	if (x->n < 32) {
		x->id[x->n] = ci->id;
		x->worker[x->n] = ci->worker;
		x->size[x->n] = ci->n_subs;
		x->n++;
	}
}

static struct cats_seen cats_now(void)
{
	struct cats_seen x = { 0 };

	CHECK_EQ_INT(spate_matcher_categories(stage_cluster_matcher(cl), cat_seen, &x), 0);
	return x;
}

/* The clustering holds category cat on worker w with size subscriptions. */
#define CHECK_CAT(cat_, w_, size_)                          \
	do {                                                \
		struct cats_seen x_ = cats_now();           \
		uint32_t i_ = 0;                            \
		while (i_ < x_.n && x_.id[i_] != (cat_))    \
			i_++;                               \
		CHECK(i_ < x_.n);                           \
		if (i_ < x_.n) {                            \
			CHECK_EQ_INT(x_.worker[i_], w_);    \
			CHECK_EQ_INT(x_.size[i_], size_);   \
		}                                           \
		CHECK_EQ_INT(dir_owner(cat_), (int)(w_));   \
		CHECK_EQ_INT(dir_size(cat_), (int)(size_)); \
	} while (0)

static int dir_owner(uint32_t cat)
{
	uint32_t w;

	return category_dir_owner(dir, cat, &w) == 0 ? (int)w : -1;
}

struct dir_find {
	uint32_t cat;
	int size;
};

static void dir_entry(void *ctx, uint32_t cat, uint32_t owner, uint32_t n_subs)
{
	struct dir_find *f = ctx;

	(void)owner;
	if (cat == f->cat)
		f->size = (int)n_subs;
}

static int dir_size(uint32_t cat)
{
	struct dir_find f = { cat, -1 };

	category_dir_visit(dir, dir_entry, &f);
	return f.size;
}

/* ---- placement, merges, feedback, failover: one story ---- */

/* Copies to the other fronts (a standby): while repl_ok is 0, everything
 * the stage sends waits in its backlogs. */
static int repl_ok;

static void repl_add(void *ctx, const struct spate_raw_sub *rs, uint32_t owner)
{
	CHECK(ctx == &repl_ok); /* the context given with the functions */
	CHECK_EQ_INT(owner, CLIENT);
	(void)rs;
}

static void repl_del(void *ctx, uint64_t id, uint32_t owner)
{
	CHECK(ctx == &repl_ok);
	(void)id;
	(void)owner;
}

static int repl_done(void *ctx)
{
	CHECK(ctx == &repl_ok);
	return repl_ok;
}

/* Subscriptions of category cat sent again (unanswered) in o, as a set. */
static uint64_t resent_mask(const struct out *o, unsigned int n, uint32_t cat)
{
	uint64_t m = 0;

	for (unsigned int i = 0; i < n; i++)
		if (o[i].type == PL_SUB_ADD && o[i].cat == cat && !o[i].answered)
			m |= 1ull << o[i].sub;
	return m;
}

/* On a new stage: subscription 1 "a" [40,42]^2, 2 "b" [0,2]^2 and 3 "c"
 * [1,3]^2, dissimilar (SpatialSim of the overlapping b and c: 4/9),
 * make categories 1, 2 and 3 on the workers holding the fewest: 0, 1
 * and 2. */
static void place_abc(void)
{
	add(1, "a", 40, 40, 42, 42);
	CHECK_PLACED(0, 1, 1);
	add(2, "b", 0, 0, 2, 2);
	CHECK_PLACED(1, 2, 2);
	add(3, "c", 1, 1, 3, 3);
	CHECK_PLACED(2, 3, 3);
}

/* Three workers, cmax 4. Subscriptions 1 "a" [40,42]^2, 2 "b" [0,2]^2,
 * 3 "c" [1,3]^2 and 4 "d" [-42,-40]^2 are dissimilar (SpatialSim of the
 * overlapping b and c: 4/9): four categories, 1-4, spread over the
 * workers holding the fewest (0, 1, 2, then 0 again). */
static void test_place(void)
{
	place_abc();
	add(4, "d", -42, -42, -40, -40);
	CHECK_PLACED(0, 4, 4);
	/* the same place and keyword as 1: into category 1 */
	add(10, "a", 40, 40, 42, 42);
	CHECK_PLACED(0, 1, 10);
	CHECK_CAT(1, 0, 2);
	CHECK_CAT(2, 1, 1);
	CHECK_CAT(3, 2, 1);
	CHECK_CAT(4, 0, 1);
	/* and out again: a SUB_DEL for its category, answered, the size back */
	del(10);
	struct outs o;
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 1);
	CHECK_EQ_INT(o.n[1] + o.n[2], 0);
	CHECK_MSG(o.v[0][0], PL_SUB_DEL, 1, 0);
	CHECK_EQ_INT(o.v[0][0].sub, 10);
	CHECK_EQ_INT(o.v[0][0].answered, 1);
	CHECK_CAT(1, 0, 1);
}

/* An event in b and c's overlap goes in two parts (workers 1 and 2) with
 * one sequence number; once both workers' feedback is in, categories 2
 * and 3 are correlated (across workers). Worker 0 says 1 and 4 matched
 * one event together (one part): correlated on one worker. */
static uint32_t test_feedback(void)
{
	struct outs o;
	struct spated_counters now;

	event(100, "b", "c", 1, 1);
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(events), 1);
	CHECK_EQ_INT(CNT(events_routed), 2);
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 0);
	CHECK_EQ_INT(o.n[1], 1);
	CHECK_EQ_INT(o.n[2], 1);
	uint32_t seq = o.v[1][0].seq;
	for (uint32_t w = 1; w < NW && o.n[w] == 1; w++) {
		CHECK_EQ_INT(o.v[w][0].type, PL_EVENT);
		CHECK_EQ_INT(o.v[w][0].seq, seq);
		CHECK_EQ_INT(o.v[w][0].parts, 2);
		CHECK_EQ_INT(o.v[w][0].n, 1);
		CHECK_EQ_INT(o.v[w][0].cats[0], w + 1);
		/* its keywords: b's and c's interned ids, as placed */
		uint32_t k0 = o.v[w][0].kw[0], k1 = o.v[w][0].kw[1];
		CHECK((k0 == kw_of_sub[2] && k1 == kw_of_sub[3]) ||
		      (k0 == kw_of_sub[3] && k1 == kw_of_sub[2]));
		CHECK(kw_of_sub[2] != kw_of_sub[3]);
	}
	/* an event in category 1 alone: one part */
	event(101, "a", NULL, 41, 41);
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 1);
	CHECK_EQ_INT(o.n[1] + o.n[2], 0);
	if (o.n[0] == 1) {
		CHECK_EQ_INT(o.v[0][0].parts, 1);
		CHECK_EQ_INT(o.v[0][0].seq, seq + 1);
		CHECK_EQ_INT(o.v[0][0].cats[0], 1);
	}
	const uint32_t two[] = { 2 }, three[] = { 3 }, one_four[] = { 1, 4 };
	feedback(1, seq, 2, two, 1);
	feedback(2, seq, 2, three, 1);
	feedback(0, seq + 1, 1, one_four, 2);
	CHECK_EQ_INT(poll_once(), 0);
	/* every feedback message taken and given back */
	for (uint32_t w = 0; w < NW; w++)
		CHECK_EQ_INT(rte_ring_count(fb[w]), 0);
	return seq;
}

/* The merge counters of the last poll (now - before): subscriptions
 * merged on their worker, merges across workers and their
 * subscriptions; no message lost. */
#define CHECK_MERGES(in_node, between, between_subs)                 \
	do {                                                         \
		CHECK_EQ_INT(CNT(merge_subs_in_node), in_node);      \
		CHECK_EQ_INT(CNT(merges_between), between);          \
		CHECK_EQ_INT(CNT(merge_subs_between), between_subs); \
		CHECK_EQ_INT(CNT(msg_no_memory), 0);                 \
	} while (0)

/* Over cmax, the clustering merges the most correlated pair: first 1
 * and 4 on worker 0 (CD = 0: the largest MergeJudgePara, in the node),
 * then 2 into 3 across workers (moved first: EXPECT to the new owner,
 * MOVE to the old, then MERGE). */
static void test_merges(void)
{
	struct outs o;
	struct spated_counters now;

	/* 5 "e" [-2,40]..: a new category (5) on worker 1, the emptiest;
	 * then 1 merges into 4 (equal sizes: into the partner) */
	add(5, "e", -20, 60, -18, 62);
	spated_counters_sum(&now);
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 1);
	CHECK_EQ_INT(o.n[1], 1);
	CHECK_EQ_INT(o.n[2], 0);
	CHECK_ADD(o.v[1][0], 5, 5, 1);
	CHECK_MSG(o.v[0][0], PL_MERGE, 4, 1);
	CHECK_MERGES(1, 0, 0);
	CHECK_CAT(4, 0, 2);
	CHECK_CAT(5, 1, 1);
	CHECK_EQ_INT(dir_owner(1), -1); /* gone from the directory */

	/* 6 "f": category 6 on worker 2; 2 merges into 3 across workers */
	add(6, "f", 60, -20, 62, -18);
	spated_counters_sum(&now);
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 0);
	CHECK_EQ_INT(o.n[1], 1);
	CHECK_EQ_INT(o.n[2], 3);
	CHECK_MSG(o.v[1][0], PL_MOVE, 2, 2);
	CHECK_ADD(o.v[2][0], 6, 6, 1);
	CHECK_MSG(o.v[2][1], PL_EXPECT, 2, 1);
	CHECK_MSG(o.v[2][2], PL_MERGE, 3, 2);
	CHECK_MERGES(0, 1, 1);
	CHECK_CAT(3, 2, 2);
	CHECK_CAT(6, 2, 1);
	CHECK_EQ_INT(dir_owner(2), -1);

	/* subscription 2 was placed in 2: its delete goes to 3 now */
	add(7, "b", 0, 0, 2, 2);
	take_all(&o);
	CHECK_EQ_INT(o.n[2], 1);
	CHECK_ADD(o.v[2][0], 3, 7, 1);
	del(7);
	take_all(&o);
	CHECK_EQ_INT(o.n[2], 1);
	CHECK_MSG(o.v[2][0], PL_SUB_DEL, 3, 0);
	CHECK_CAT(3, 2, 2);
}

/* The messages stage_cluster_waiting shows, in order. */
struct waiting {
	unsigned int n;
	int type[8];
	uint64_t ev_id[8];
};

static void waiting_one(void *ctx, void *obj)
{
	struct waiting *w = ctx;
	const struct pl_msg *m = obj;

	if (w->n < 8) {
		w->type[w->n] = m->type;
		w->ev_id[w->n] = m->type == PL_EVENT ? m->u.ev.id : 0;
	}
	w->n++;
}

/* Worker 1 dies (3, out of range, is ignored). Category 5 goes to the
 * live worker holding the fewest (0), and 3 came from worker 1 (the
 * merge moved 2 from it): both are sent again whole, unanswered. What
 * was still waiting for worker 1 (an event part, held back behind a
 * subscription change not yet copied to the other fronts) is dropped. */
static void test_down(void)
{
	struct outs o;
	struct spated_counters now;
	const uint32_t dead[] = { 1, 3 };

	stage_cluster_set_repl(cl, repl_add, repl_del, repl_done, &repl_ok);
	repl_ok = 0;
	add(11, "a", 40, 40, 42, 42);   /* held: into category 4 on worker 0 */
	event(102, "e", NULL, -19, 61); /* held: category 5, worker 1 */
	take_all(&o);
	CHECK_EQ_INT(o.n[0] + o.n[1] + o.n[2], 0);
	/* what waits is shown as it is (the link counts the dead host's
	 * events among it as lost), and only for its own worker */
	struct waiting w0 = { 0 }, w1 = { 0 }, w2 = { 0 };
	stage_cluster_waiting(cl, 0, waiting_one, &w0);
	stage_cluster_waiting(cl, 1, waiting_one, &w1);
	stage_cluster_waiting(cl, 2, waiting_one, &w2);
	stage_cluster_waiting(cl, NW, waiting_one, &w2); /* no such worker */
	CHECK_EQ_INT(w0.n, 1);
	CHECK_EQ_INT(w0.type[0], PL_SUB_ADD);
	CHECK_EQ_INT(w1.n, 1);
	CHECK_EQ_INT(w1.type[0], PL_EVENT);
	CHECK_EQ_INT(w1.ev_id[0], 102);
	CHECK_EQ_INT(w2.n, 0);
	spated_counters_sum(&before);
	CHECK_EQ_INT(stage_cluster_workers_down(cl, dead, 2), 0);
	w1.n = 0;
	stage_cluster_waiting(cl, 1, waiting_one, &w1);
	CHECK_EQ_INT(w1.n, 0); /* discarded with the dead worker */
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(failover_cats), 1);
	CHECK_EQ_INT(CNT(failover_subs), 3);
	CHECK_EQ_INT(CNT(msg_no_memory), 0);
	take_all(&o);
	CHECK_EQ_INT(o.n[0] + o.n[1] + o.n[2], 0); /* still held */
	repl_ok = 1;
	CHECK_EQ_INT(poll_once(), 0);
	take_all(&o);
	CHECK_EQ_INT(o.n[1], 0); /* the event part is gone */
	CHECK_EQ_INT(o.n[0], 2);
	CHECK_ADD(o.v[0][0], 4, 11, 1);
	CHECK_ADD(o.v[0][1], 5, 5, 0);
	CHECK_EQ_INT(o.v[0][1].n_kw, 1);
	CHECK_EQ_INT(o.v[0][1].rect.min_lon, -20 * DEG);
	CHECK_EQ_INT(o.v[0][1].rect.max_lat, 62 * DEG);
	CHECK_EQ_INT(o.n[2], 2);
	CHECK_EQ_INT(resent_mask(o.v[2], o.n[2], 3), 1ull << 2 | 1ull << 3);
	CHECK_CAT(5, 0, 1);
	CHECK_CAT(3, 2, 2);
	stage_cluster_set_repl(cl, NULL, NULL, NULL, NULL);

	/* worker 1 down again: nothing moves, nothing is sent */
	spated_counters_sum(&before);
	CHECK_EQ_INT(stage_cluster_workers_down(cl, dead, 1), 0);
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(failover_cats), 0);
	take_all(&o);
	/* 3 came from worker 1: sent again, nothing else */
	CHECK_EQ_INT(o.n[0] + o.n[1], 0);
	CHECK_EQ_INT(o.n[2], 2);
	CHECK_EQ_INT(resent_mask(o.v[2], o.n[2], 3), 1ull << 2 | 1ull << 3);
	/* a new subscription does not go to the dead worker */
	add(12, "g", -60, -20, -58, -18);
	take_all(&o);
	CHECK_EQ_INT(o.n[1], 0);
	CHECK_EQ_INT(o.n[0] + o.n[2], 1);
}

/* The balancing moved categories (the clustering's view now, against
 * `was`): each moved one has an EXPECT naming its old owner on the new
 * owner's ring and a MOVE naming the new owner on the old one's, and
 * nothing else was sent; move_subs counts their subscriptions. */
static void check_moves(const struct cats_seen *was, const struct spated_counters *now)
{
	struct cats_seen x = cats_now();
	struct outs o;
	unsigned int moved = 0, sent = 0;
	uint64_t subs = 0;

	take_all(&o);
	for (uint32_t i = 0; i < x.n; i++) {
		uint32_t j = 0;
		while (j < was->n && was->id[j] != x.id[i])
			j++;
		if (j == was->n || was->worker[j] == x.worker[i])
			continue;
		uint32_t from = was->worker[j], to = x.worker[i];
		int expect = 0, move = 0;
		for (unsigned int k = 0; k < o.n[to]; k++)
			expect += o.v[to][k].type == PL_EXPECT && o.v[to][k].cat == x.id[i] &&
				  o.v[to][k].other == from;
		for (unsigned int k = 0; k < o.n[from]; k++)
			move += o.v[from][k].type == PL_MOVE && o.v[from][k].cat == x.id[i] &&
				o.v[from][k].other == to;
		CHECK_EQ_INT(expect, 1);
		CHECK_EQ_INT(move, 1);
		CHECK_EQ_INT(dir_owner(x.id[i]), (int)to);
		moved++;
		subs += x.size[i];
	}
	for (uint32_t w = 0; w < NW; w++)
		sent += o.n[w];
	CHECK(moved > 0); /* worker 2 held the load, 0 and 1 none */
	CHECK_EQ_INT(sent, 2 * moved);
	CHECK_EQ_INT(now->move_subs - before.move_subs, subs);
}

/* Workers 0 and 2 die too: 0's categories go to 2, the last, which
 * stays (unreachable: -SPATE_E_BAD_ID). When all three come back (new,
 * empty incarnations), every category on them is sent whole, and the
 * load period ends a second later so that balancing gives them work. */
static void test_all_down(void)
{
	struct outs o;
	struct spated_counters now;
	/* 1 again last: down already, it does not hide 2's refusal */
	const uint32_t dead[] = { 0, 2, 1 }, back[] = { 0, 1, 2 };

	spated_counters_sum(&before);
	CHECK_EQ_INT(stage_cluster_workers_down(cl, dead, 3), -SPATE_E_BAD_ID);
	spated_counters_sum(&now);
	struct cats_seen x = cats_now();
	uint64_t subs = 0, moved = 0, cats = 0;
	for (uint32_t i = 0; i < x.n; i++) {
		CHECK_EQ_INT(x.worker[i], 2);
		subs += x.size[i];
	}
	take_all(&o);
	CHECK_EQ_INT(o.n[0] + o.n[1], 0);
	for (unsigned int i = 0; i < o.n[2]; i++) {
		CHECK_EQ_INT(o.v[2][i].type, PL_SUB_ADD);
		CHECK_EQ_INT(o.v[2][i].answered, 0);
		moved += o.v[2][i].cat != 3 && o.v[2][i].cat != 6;
		unsigned int k = 0;
		while (k < i && o.v[2][k].cat != o.v[2][i].cat)
			k++;
		cats += k == i; /* the first of its category */
	}
	/* categories 4 (1, 4, 11), 5 (5) and 12's moved from 0 (counted),
	 * and 3 again: it came from 1, named again (not counted) */
	CHECK_EQ_INT(resent_mask(o.v[2], o.n[2], 3), 1ull << 2 | 1ull << 3);
	CHECK_EQ_INT(moved, o.n[2] - 2);
	CHECK_EQ_INT(CNT(failover_subs), o.n[2]);
	CHECK(cats >= 3);
	CHECK_EQ_INT(CNT(failover_cats), cats - 1);

	spated_counters_sum(&before);
	uint64_t t_up = rte_get_timer_cycles();
	stage_cluster_workers_up(cl, back, 3);
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(failover_cats), x.n);
	CHECK_EQ_INT(CNT(failover_subs), subs);
	take_all(&o);
	CHECK_EQ_INT(o.n[0] + o.n[1], 0);
	CHECK_EQ_INT(o.n[2], subs);

	/* room for new categories again (cmax is live; workers is not) */
	struct spate_matcher *m = stage_cluster_matcher(cl);
	struct spate_engine_params ep = spate_matcher_get_conf(m)->params;
	char err[160] = "";
	ep.drt.workers = 5;
	CHECK(spate_matcher_set_params(m, &ep, err, sizeof(err)) != 0);
	CHECK(strcmp(err, "workers changes at the next start only (it shapes the pipeline)") == 0);
	ep.drt.workers = spate_matcher_get_conf(m)->params.drt.workers;
	ep.drt.cmax = 100;
	CHECK_EQ_INT(spate_matcher_set_params(m, &ep, err, sizeof(err)), 0);
	/* worker 0 is up and empty: a new category goes there */
	add(13, "h", 70, 70, 72, 72);
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 1);
	CHECK_EQ_INT(o.n[1] + o.n[2], 0);
	CHECK_EQ_INT(o.v[0][0].sub, 13);
	x = cats_now();

	/* the load period ends within a second or so: wait for it */
	uint64_t end = rte_get_timer_cycles() + 20 * rte_get_timer_hz();
	do {
		poll_once();
		spated_counters_sum(&now);
	} while (now.rebalances_up == before.rebalances_up && rte_get_timer_cycles() < end);
	CHECK_EQ_INT(CNT(rebalances_up), 1);
	CHECK(rte_get_timer_cycles() - t_up >= rte_get_timer_hz()); /* not before a second */
	check_moves(&x, &now);
	/* and only once */
	poll_once();
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(rebalances_up), 0);

	/* worker 2 dies again: what is on it is rehomed (counted), and what
	 * the balancing moved away from it is sent again (its handoff may
	 * never have come): every category that was on 2 before the moves */
	const uint32_t two[] = { 2 };
	struct cats_seen y = cats_now();
	uint64_t from2 = 0;
	unsigned int on2 = 0;
	for (uint32_t i = 0; i < y.n; i++) {
		uint32_t j = 0;
		while (j < x.n && x.id[j] != y.id[i])
			j++;
		if (j < x.n && x.worker[j] == 2)
			from2 += y.size[i];
		on2 += y.worker[i] == 2;
	}
	spated_counters_sum(&before);
	CHECK_EQ_INT(stage_cluster_workers_down(cl, two, 1), 0);
	spated_counters_sum(&now);
	take_all(&o);
	CHECK_EQ_INT(o.n[2], 0);
	CHECK_EQ_INT(o.n[0] + o.n[1], from2);
	CHECK_EQ_INT(CNT(failover_subs), from2);
	CHECK_EQ_INT(CNT(failover_cats), on2);
	CHECK(on2 < y.n); /* some had moved away */
	rings_empty();
}

/* ---- flow control ---- */

/* Leave exactly `left` messages in the pool (the rest in `kept`). */
static struct pl_msg *kept[MSGS];
static unsigned int n_kept;

static void pool_leave(unsigned int left)
{
	while (rte_mempool_avail_count(msg_pool) > left)
		kept[n_kept++] = pl_msg_get(msg_pool, 0);
	while (rte_mempool_avail_count(msg_pool) < left && n_kept > 0)
		pl_msg_put(msg_pool, kept[--n_kept]);
	CHECK_EQ_INT(rte_mempool_avail_count(msg_pool), left);
}

static void pool_restore(void)
{
	while (n_kept > 0)
		pl_msg_put(msg_pool, kept[--n_kept]);
}

/* n SUB_ADDs in one datagram (ids from id, one place: one category). */
static void queue_adds(uint64_t id, unsigned int n)
{
	struct dg d;

	dg_begin(&d, (uint32_t)id);
	for (unsigned int i = 0; i < n; i++)
		dg_sub(&d, id + i, "p", 10, 10, 12, 12);
	dg_queue(&d);
}

/* A datagram of `count` messages (the header's) waits unless the pool
 * has (count + 2) x 3 workers + the margin (PL_BURST + 1: one lcore, no
 * cache) messages; then it is handled. Counted: backpressure. */
#define CHECK_ROOM(count_, queue_)                                        \
	do {                                                              \
		unsigned int need_ = ((count_) + 2) * NW + PL_BURST + 1;  \
		struct spated_counters now_;                              \
		pool_leave(need_ - 1);                                    \
		queue_;                                                   \
		CHECK_EQ_INT(poll_once(), 0);                             \
		spated_counters_sum(&now_);                               \
		CHECK_EQ_INT(now_.backpressure - before.backpressure, 1); \
		CHECK_EQ_INT(rte_ring_count(in), 0); /* taken, waiting */ \
		pool_leave(need_);                                        \
		CHECK_EQ_INT(poll_once(), 1);                             \
		spated_counters_sum(&now_);                               \
		CHECK_EQ_INT(now_.backpressure - before.backpressure, 0); \
	} while (0)

static void test_pool_room(void)
{
	struct outs o;
	struct spated_counters now;

	stage_start(big, 1024, NULL, 0);
	CHECK_ROOM(1, queue_adds(1, 1));
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 1);
	CHECK_ADD(o.v[0][0], 1, 1, 1);
	CHECK_ROOM(5, queue_adds(10, 5));
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 5);
	/* the header says 258 messages (more than a datagram may carry):
	 * room for them all the same, the count's high byte read too */
	pool_restore();
	struct dg d;
	dg_begin(&d, 5000);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 9000), 0);
	size_t len = spate_writer_finish(&d.w);
	d.buf[6] = 1;
	d.buf[7] = 2;
	CHECK_ROOM(258, queue_bytes(d.buf, len));
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(messages), 0);
	/* shorter than a header: counts as no message (bad, dropped) */
	CHECK_ROOM(0, queue_bytes(d.buf, 8));
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(messages), 0);

	/* two datagrams in one poll: the first's messages counted against
	 * the pool before the second (the estimate, then a fresh read) */
	take_all(&o);
	pool_leave(3 * NW + PL_BURST + 1);
	queue_adds(20, 1);
	queue_adds(21, 1);
	CHECK_EQ_INT(poll_once(), 1); /* the first took one: one short */
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(backpressure), 1);
	take_all(&o); /* its message back to the pool */
	CHECK_EQ_INT(o.n[0], 1);
	CHECK_EQ_INT(poll_once(), 1);
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 1);
	CHECK_ADD(o.v[0][0], 1, 21, 1);
	pool_leave(3 * NW + PL_BURST + 2); /* one to spare: both */
	queue_adds(22, 1);
	queue_adds(23, 1);
	CHECK_EQ_INT(poll_once(), 2);
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 2);

	/* held at the end: freed with the stage (stage_stop checks) */
	pool_leave(0);
	queue_adds(30, 1);
	queue_adds(31, 1);
	CHECK_EQ_INT(poll_once(), 0);
	pool_restore();
	const uint32_t one[] = { 1 };
	feedback(1, 77, 2, one, 1); /* not read yet either */
	stage_stop();
}

/* Rings of 3 messages, backlog_max 2: a datagram waits while a worker's
 * backlog is longer than 2; nothing is lost (a lossless backlog), and
 * the order holds. */
static void test_backlog(void)
{
	struct outs o;
	struct spated_counters now;
	void *obj = NULL;

	stage_start(small, 2, NULL, 0);
	queue_adds(1, 6); /* 3 in the ring, 3 in the backlog */
	CHECK_EQ_INT(poll_once(), 1);
	CHECK_EQ_INT(rte_ring_count(small[0]), 3);
	queue_adds(7, 1);
	CHECK_EQ_INT(poll_once(), 0);
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(backpressure), 1);
	/* one taken: the backlog is 2, not longer than 2 */
	CHECK_EQ_INT(rte_ring_dequeue(small[0], &obj), 0);
	CHECK_EQ_INT(((struct pl_msg *)obj)->u.sub.sub.id, 1);
	pl_msg_put(msg_pool, obj);
	CHECK_EQ_INT(poll_once(), 1);
	uint64_t next = 2;
	for (int round = 0; round < 4; round++) {
		take_all(&o);
		for (unsigned int i = 0; i < o.n[0]; i++)
			CHECK_EQ_INT(o.v[0][i].sub, next++);
		poll_once();
	}
	CHECK_EQ_INT(next, 8);
	stage_stop();
}

/* A preload file: applied first, as client 0's with nobody to answer;
 * the datagrams wait until it is done. One that cannot be opened:
 * no stage. */
static void test_preload(void)
{
	char path[] = "/tmp/spate-app-workers-XXXXXX";
	int fd = mkstemp(path);
	struct outs o;

	CHECK(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "sub\t1\t0\t0\t2\t2\ta\n"
		   "event\t5\t0.5\t0.5\ta\n"
		   "sub\t2\t0\t0\t2\t2\ta\n"
		   "nonsense\n"
		   "unsub\t1\n");
	fclose(f);
	stage_start(big, 1024, path, 0);
	queue_adds(100, 1);
	CHECK_EQ_INT(poll_once(), 5);        /* five lines, to the end */
	CHECK_EQ_INT(rte_ring_count(in), 1); /* the datagram waits */
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 3);
	CHECK_ADD(o.v[0][0], 1, 1, 0);
	CHECK_ADD(o.v[0][1], 1, 2, 0);
	CHECK_MSG(o.v[0][2], PL_SUB_DEL, 1, 0);
	CHECK_EQ_INT(o.v[0][2].sub, 1);
	CHECK_EQ_INT(spate_matcher_sub_count(stage_cluster_matcher(cl)), 1);
	CHECK_EQ_INT(poll_once(), 1); /* the file is done: the datagram */
	CHECK_PLACED(1, 2, 100);      /* a new category, the emptiest worker */
	stage_stop();
	unlink(path);
	dir = category_dir_create();
	struct stage_cluster_conf c = conf_of(big, 1024, path, 0);
	/* the operator is told which file, on stderr */
	char errpath[] = "/tmp/spate-app-workers-XXXXXX", said[512] = "", want[128];
	int efd = mkstemp(errpath), saved = dup(2);
	CHECK(efd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(efd, 2);
	CHECK(stage_cluster_create(&c) == NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t got = pread(efd, said, sizeof(said) - 1, 0);
	said[got > 0 ? got : 0] = '\0';
	snprintf(want, sizeof(want), "spated: preload %s: cannot open\n", path);
	CHECK(strstr(said, want) != NULL);
	close(efd);
	unlink(errpath);
	category_dir_destroy(dir);
}

/* Several fronts: this one's categories are numbered from its base. */
static void test_cat_base(void)
{
	stage_start(big, 1024, NULL, 0x20000000);
	add(1, "a", 0, 0, 1, 1);
	CHECK_PLACED(0, 0x20000000, 1);
	add(2, "b", 50, 50, 51, 51);
	CHECK_PLACED(1, 0x20000001, 2);
	stage_stop();
}

/* ---- the journal's hold-back ---- */

static void appended_of(void *ctx, const char *name, uint64_t v)
{
	if (strcmp(name, "appended") == 0)
		*(uint64_t *)ctx = v;
}

static uint64_t appended(struct durable *d)
{
	uint64_t v = UINT64_MAX;

	durable_figures(d, appended_of, &v);
	return v;
}

/* With a journal synced every 60 s, a SUB_ADD and a SUB_DEL are each
 * recorded and held until their record is synced: at the end of a poll
 * (not yet due: held), or when a backlog is over backlog_max (0 here)
 * and the next datagram forces the sync. The journal replayed into a
 * new stage gives its subscriptions back. */
static void test_journal(void)
{
	char dirp[64], path[96], err[256];
	struct spate_journal_conf jc;
	struct outs o;
	struct dg d;

	/* the pid in the name: a run killed midway leaves the folder, and
	 * tools/mutation-test.py removes those whose process is gone */
	snprintf(dirp, sizeof(dirp), "/tmp/spate-app-workers-%d-XXXXXX", (int)getpid());
	CHECK(mkdtemp(dirp) != NULL);
	snprintf(path, sizeof(path), "%s/journal", dirp);
	spate_journal_conf_default(&jc);
	jc.sync = SPATE_JOURNAL_SYNC_INTERVAL;
	jc.sync_interval_us = 60000000;
	stage_start(big, 0, NULL, 0);
	struct durable *j = durable_open(path, &jc, stage_cluster_apply, cl,
					 stage_cluster_matcher(cl), err, sizeof(err));
	CHECK(j != NULL);
	if (j == NULL) {
		stage_stop();
		return;
	}
	stage_cluster_set_durable(cl, j);
	add(100, "z", -50, -50, -48, -48); /* the first sync is at once */
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 1);
	add(1, "a", 0, 0, 2, 2); /* the next is due in 60 s */
	CHECK_EQ_INT(appended(j), 2);
	take_all(&o);
	CHECK_EQ_INT(o.n[0] + o.n[1] + o.n[2], 0); /* held: not synced */
	dg_begin(&d, 50);
	CHECK_EQ_INT(spate_put_sub_del(&d.w, 1), 0);
	dg_queue(&d);
	CHECK_EQ_INT(poll_once(), 1); /* the backlog forced the sync first */
	CHECK_EQ_INT(appended(j), 3);
	take_all(&o);
	CHECK_EQ_INT(o.n[0] + o.n[1] + o.n[2], 1); /* the add, synced; the delete held */
	CHECK_ADD(o.v[1][0], 2, 1, 1);
	add(2, "b", 50, 50, 52, 52); /* the delete synced and sent; the add held */
	CHECK_EQ_INT(appended(j), 4);
	take_all(&o);
	CHECK_EQ_INT(o.n[0] + o.n[1] + o.n[2], 1);
	CHECK_MSG(o.v[1][0], PL_SUB_DEL, 2, 0);
	CHECK_EQ_INT(o.v[1][0].sub, 1);
	durable_close(j);
	stage_stop();

	/* replayed: 100 and 2 are there, 1 is not */
	stage_start(big, 1024, NULL, 0);
	j = durable_open(path, &jc, stage_cluster_apply, cl, stage_cluster_matcher(cl), err,
			 sizeof(err));
	CHECK(j != NULL);
	stage_cluster_flush(cl);
	CHECK_EQ_INT(spate_matcher_sub_count(stage_cluster_matcher(cl)), 2);
	CHECK(spate_matcher_sub_find(stage_cluster_matcher(cl), 2) != NULL);
	CHECK(spate_matcher_sub_find(stage_cluster_matcher(cl), 1) == NULL);
	durable_close(j);
	stage_stop();
	unlink(path);
	rmdir(dirp);
}

/* ---- feedback slots ---- */

/* The sequence number of the event whose parts are on the rings (every
 * part names it; `parts` checked), the rings emptied. */
static uint32_t event_seq(uint16_t parts)
{
	struct outs o;
	uint32_t seq = 0;
	unsigned int n = 0;

	take_all(&o);
	for (uint32_t w = 0; w < NW; w++)
		for (unsigned int i = 0; i < o.n[w]; i++, n++) {
			CHECK_EQ_INT(o.v[w][i].type, PL_EVENT);
			CHECK_EQ_INT(o.v[w][i].parts, parts);
			if (n == 0)
				seq = o.v[w][i].seq;
			CHECK_EQ_INT(o.v[w][i].seq, seq);
		}
	CHECK_EQ_INT(n, parts);
	return seq;
}

/* n events in no category (they take sequence numbers all the same). */
static void events_nowhere(unsigned int n)
{
	while (n > 0) {
		struct dg d;
		unsigned int k = n < 40 ? n : 40;
		struct spate_raw_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.lon = 100 * DEG;
		ev.lat = -10 * DEG;
		ev.n_kw = 1;
		ev.kw[0] = (struct spate_str){ "a", 1 };
		dg_begin(&d, n);
		for (unsigned int i = 0; i < k; i++) {
			ev.id = 5000 + n - i;
			CHECK_EQ_INT(spate_put_event(&d.w, &ev), 0);
		}
		dg_queue(&d);
		CHECK_EQ_INT(poll_once(), 1);
		n -= k;
	}
}

/* Feedback of an event sent in parts is gathered in one of 1024 slots
 * (its number mod 1024) until every part is in. A one-part event takes
 * no slot: one 1024 numbers later leaves a slot waiting for its last
 * part alone. An event of several parts 1024 numbers later takes the
 * slot over and starts it empty. What the correlation learns shows in
 * the merge it decides: 2 into 3 (their event completed late), not 4
 * into 5 (their slot taken over: counted once, as any event). */
static void test_feedback_slots(void)
{
	const uint32_t two[] = { 2 }, three[] = { 3 }, four[] = { 4 }, five[] = { 5 };
	struct outs o;

	common.matcher.params.drt.cmax = 5;
	stage_start(big, 1024, NULL, 0);
	place_abc();
	add(4, "d", 20, 20, 22, 22);
	CHECK_PLACED(0, 4, 4);
	add(5, "e", 21, 21, 23, 23);
	CHECK_PLACED(1, 5, 5);
	event(200, "b", "c", 1, 1); /* X: 2 and 3, workers 1 and 2 */
	uint32_t s = event_seq(2);
	event(201, "d", "e", 21, 21); /* X2: 4 and 5, workers 0 and 1 */
	CHECK_EQ_INT(event_seq(2), s + 1);
	feedback(1, s, 2, two, 1);      /* X's second part comes late */
	feedback(0, s + 1, 2, four, 1); /* X2's second part never */
	CHECK_EQ_INT(poll_once(), 0);
	events_nowhere(1022);
	event(202, "a", NULL, 41, 41); /* Z: one part, X's slot number */
	CHECK_EQ_INT(event_seq(1), s + 1024);
	event(203, "d", "e", 21, 21); /* Y: X2's slot number */
	CHECK_EQ_INT(event_seq(2), s + 1025);
	feedback(0, s + 1025, 2, four, 1);
	feedback(1, s + 1025, 2, five, 1);
	feedback(2, s, 2, three, 1);
	CHECK_EQ_INT(poll_once(), 0);
	/* a sixth category: one merge, 2 into 3 across workers */
	add(6, "f", -40, -40, -38, -38);
	take_all(&o);
	unsigned int k = 0;
	for (uint32_t w = 0; w < NW; w++)
		for (unsigned int i = 0; i < o.n[w]; i++)
			if (o.v[w][i].type != PL_SUB_ADD)
				k++;
	CHECK_EQ_INT(k, 3);
	CHECK_EQ_INT(o.n[1] > 0 ? o.v[1][o.n[1] - 1].type : 0, PL_MOVE);
	if (o.n[1] > 0)
		CHECK_MSG(o.v[1][o.n[1] - 1], PL_MOVE, 2, 2);
	CHECK(o.n[2] >= 2);
	if (o.n[2] >= 2) {
		CHECK_MSG(o.v[2][o.n[2] - 2], PL_EXPECT, 2, 1);
		CHECK_MSG(o.v[2][o.n[2] - 1], PL_MERGE, 3, 2);
	}
	stage_stop();
	common.matcher.params.drt.cmax = 4;
}

/* Sixteen categories (the clustering's array full): worker 0 dies and
 * each of its categories goes to a live worker, its one subscription
 * sent there again, unanswered; nothing else is sent. */
static void test_rehome_many(void)
{
	struct outs o;
	struct spated_counters now;
	const uint32_t dead[] = { 0 };
	char kw[16][4];

	common.matcher.params.drt.cmax = 20;
	stage_start(big, 1024, NULL, 0);
	for (int i = 0; i < 16; i++) {
		snprintf(kw[i], sizeof(kw[i]), "k%d", i);
		int x = (i % 4) * 20 - 80, y = (i / 4) * 20 - 40;
		add((uint64_t)i + 1, kw[i], x, y, x + 2, y + 2);
	}
	take_all(&o);
	struct cats_seen was = cats_now();
	CHECK_EQ_INT(was.n, 16);
	spated_counters_sum(&before);
	CHECK_EQ_INT(stage_cluster_workers_down(cl, dead, 1), 0);
	spated_counters_sum(&now);
	struct cats_seen x = cats_now();
	take_all(&o);
	CHECK_EQ_INT(o.n[0], 0);
	unsigned int on0 = 0;
	for (uint32_t i = 0; i < was.n; i++) {
		CHECK_EQ_INT(x.id[i], was.id[i]);
		CHECK(x.worker[i] != 0);
		if (was.worker[i] != 0) {
			CHECK_EQ_INT(x.worker[i], was.worker[i]);
			continue;
		}
		on0++;
		uint32_t w = x.worker[i];
		CHECK_EQ_INT(dir_owner(x.id[i]), (int)w);
		unsigned int sent = 0;
		for (unsigned int k = 0; k < o.n[w]; k++)
			sent += o.v[w][k].cat == x.id[i] && o.v[w][k].type == PL_SUB_ADD &&
				!o.v[w][k].answered;
		CHECK_EQ_INT(sent, 1);
	}
	CHECK(on0 >= 5);
	CHECK_EQ_INT(o.n[1] + o.n[2], on0);
	CHECK_EQ_INT(CNT(failover_cats), on0);
	CHECK_EQ_INT(CNT(failover_subs), on0);
	/* worker 0 back: a new category goes to it (it holds the fewest) */
	const uint32_t back[] = { 0 };
	stage_cluster_workers_up(cl, back, 1);
	add(17, "k99", 70, 70, 72, 72);
	take_all(&o);
	int where = -1;
	for (uint32_t w = 0; w < NW; w++)
		for (unsigned int i = 0; i < o.n[w]; i++)
			if (o.v[w][i].type == PL_SUB_ADD && o.v[w][i].sub == 17)
				where = (int)w;
	CHECK_EQ_INT(where, 0);
	stage_stop();
	common.matcher.params.drt.cmax = 4;
}

int main(void)
{
	app_eal_start("app-workers");
	urcu_qsbr_register_thread();
	spated_counters_bind(rte_lcore_id());
	spate_conf_default(&common);
	common.matcher.params.drt.cmax = 4;
	struct ops_conf oc;
	ops_conf_default(&oc);
	oc.rate = 0; /* no rate limit: what is sent here is placed */
	spated_access = access_create(&oc);
	pkt_pool = rte_pktmbuf_pool_create("app_wk_pkts", PKTS, 0, PKT_META_SIZE,
					   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	msg_pool = rte_mempool_create("app_wk_msgs", MSGS, sizeof(struct pl_msg), 0, 0, NULL, NULL,
				      NULL, NULL, SOCKET_ID_ANY, 0);
	in = rte_ring_create("app_wk_in", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	to_tx = rte_ring_create("app_wk_tx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	for (uint32_t w = 0; w < NW; w++) {
		char name[32];
		snprintf(name, sizeof(name), "app_wk_m%u", w);
		big[w] = rte_ring_create(name, 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "app_wk_s%u", w);
		small[w] = rte_ring_create(name, 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "app_wk_f%u", w);
		fb[w] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (big[w] == NULL || small[w] == NULL || fb[w] == NULL) {
			fprintf(stderr, "rings: %s\n", rte_strerror(rte_errno));
			return 2;
		}
	}
	if (!spated_access || !pkt_pool || !msg_pool || !in || !to_tx) {
		fprintf(stderr, "setup failed\n");
		return 2;
	}
	stage_start(big, 1024, NULL, 0);
	test_place();
	test_feedback();
	test_merges();
	test_down();
	test_all_down();
	stage_stop();
	test_pool_room();
	test_backlog();
	test_preload();
	test_cat_base();
	test_journal();
	test_feedback_slots();
	test_rehome_many();
	access_destroy(spated_access);
	urcu_qsbr_unregister_thread();
	return check_summary("app_workers");
}
