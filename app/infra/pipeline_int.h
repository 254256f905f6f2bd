/* pipeline_int.h - what a stage's module sees of the pipeline while it
 * builds its stage (not for other readers: they use pipeline.h).
 *
 * Every stage registers from a constructor (PIPELINE_STAGE): its create
 * takes its rings from the pipeline's, makes the stage and places it on
 * its lcore (pipeline_place); its destroy frees it. pipeline_create
 * builds the shared parts and the rings, then creates the stages in
 * `order`, which is also the order in which an lcore polls the stages it
 * runs; pipeline_destroy destroys them in `destroy_order`.
 */
#ifndef SPATED_PIPELINE_INT_H
#define SPATED_PIPELINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "infra/pipeline.h"

#define PIPELINE_STAGES_MAX (3 + SPATED_RX_MAX + SPATED_MATCH_MAX)
#define PIPELINE_TX_INPUTS (3 + SPATED_RX_MAX + SPATED_MATCH_MAX)
#define IPV4_UDP_HDRS 28 /* IPv4 (no options) + UDP headers */

/* One SP/SC ring per producer/consumer pair, named for what it carries
 * (from_to). NULL where this host runs neither end. */
struct pipeline_rings {
	struct rte_ring *rx_to_cluster[SPATED_RX_MAX]; /* datagrams */
	struct rte_ring *rx_to_tx[SPATED_RX_MAX];      /* ARP/ICMP answers */
	struct rte_ring *rx_to_link[SPATED_RX_MAX];    /* frames from peer hosts */
	struct rte_ring *cluster_to_tx;                /* NACKs */
	struct rte_ring *link_to_tx;                   /* frames to peer hosts */
	/* on a match host the link stage stands for the cluster */
	struct rte_ring *cluster_to_match[SPATED_MATCH_MAX]; /* subs, event parts */
	struct rte_ring *match_to_cluster[SPATED_MATCH_MAX]; /* correlation feedback */
	struct rte_ring *match_to_tx[SPATED_MATCH_MAX];      /* notifications, ACKs */
	struct rte_ring *match_to_link[SPATED_MATCH_MAX];    /* handoffs to other hosts */
	struct rte_ring
		*match_to_match[SPATED_MATCH_MAX][SPATED_MATCH_MAX]; /* [from][to] handoffs */
	/* every ring into TX, in the order made */
	struct rte_ring *tx_in[PIPELINE_TX_INPUTS];
	uint32_t n_tx_in;
};

struct stage_ref {
	unsigned int (*poll)(void *arg);
	void *arg;
	size_t cycles; /* offset of its cycles counter in spated_counters */
};

struct lcore_plan {
	struct pipeline *p;
	unsigned int lcore;
	unsigned int n;
	struct stage_ref st[PIPELINE_STAGES_MAX];
};

struct pipeline {
	const struct spated_conf *conf;
	/* the started ports (their MACs) and the packet pool */
	uint16_t n_ports;
	const uint16_t *ports;
	const struct rte_ether_addr *macs;
	struct rte_mempool *pkt_pool;
	uint32_t epoch;         /* this host's incarnation */
	struct host_view *view; /* ZooKeeper's view of the peers (NULL: static) */
	int front;              /* runs the cluster stage */
	int multi;              /* several hosts: runs the link stage */
	uint32_t n_rxs;         /* RX stages: one per port and queue */
	uint32_t n_workers;     /* matching workers, here or on match hosts */
	uint32_t n_local;       /* matching stages on this host */
	size_t max_payload;     /* a datagram's UDP payload at the MTU */
	struct rte_mempool *msg_pool;
	struct category_dir *dir;
	struct call_rcu_data *crdp;
	struct pipeline_rings rings;
	/* the stages (owned by their modules' create/destroy) */
	struct stage_rx *rx[SPATED_RX_MAX];
	struct stage_tx *tx;
	struct stage_cluster *cluster;
	struct stage_match *match[SPATED_MATCH_MAX];
	struct stage_link *link; /* multi-host only (host_conf.h) */
	struct rte_ring *all_rings[8 + 3 * SPATED_RX_MAX + 4 * SPATED_MATCH_MAX +
				   SPATED_MATCH_MAX * SPATED_MATCH_MAX];
	unsigned int n_rings;
	struct lcore_plan plans[RTE_MAX_LCORE];
	volatile int stop;
	uint64_t last_polls[RTE_MAX_LCORE]; /* pipeline_progress's view */
};

struct pipeline_stage {
	const char *name;
	int order;         /* PIPELINE_ORDER_*: created and polled in this order */
	int destroy_order; /* destroyed in this order */
	void (*create)(struct pipeline *p);
	void (*destroy)(struct pipeline *p);
	struct pipeline_stage *next;
};

/* Poll order on an lcore: a datagram read by RX is clustered, relayed
 * and matched in the same turn, and TX sends what the turn made. The
 * link reads the cluster matcher's dictionaries: created after it. */
enum {
	PIPELINE_ORDER_RX = 10,
	PIPELINE_ORDER_CLUSTER = 20,
	PIPELINE_ORDER_LINK = 30,
	PIPELINE_ORDER_MATCH = 40,
	PIPELINE_ORDER_TX = 50,
};

/* Destroy order: RX first (nothing new comes in), the link before the
 * cluster (it reads the cluster matcher), TX last: it frees what the
 * others left in its rings. */
enum {
	PIPELINE_DESTROY_RX = 10,
	PIPELINE_DESTROY_LINK = 20,
	PIPELINE_DESTROY_CLUSTER = 30,
	PIPELINE_DESTROY_MATCH = 40,
	PIPELINE_DESTROY_TX = 50,
};

void pipeline_stage_register(struct pipeline_stage *st);
#define PIPELINE_STAGE(st)                     \
	RTE_INIT(pipeline_stage_register_##st) \
	{                                      \
		pipeline_stage_register(&st);  \
	}

/* Run poll(arg) on the configured lcore `id` (-1: main) of stage kind
 * `what` (spated.lcores.<what>), its busy cycles counted at `cycles`
 * (offsetof a spated_counters field). A bad lcore is fatal. */
void pipeline_place(struct pipeline *p, int id, const char *what, unsigned int (*poll)(void *),
		    void *arg, size_t cycles);
/* The configured lcore of a stage (-1: main), checked against the EAL. */
unsigned int pipeline_lcore_of(int id, const char *what);

#endif
