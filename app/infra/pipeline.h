/* pipeline.h - spated's stages on their lcores: RX -> cluster ->
 * matching (N workers) -> TX, with one SP/SC ring per producer/consumer
 * pair, and the RCU (liburcu QSBR) life of every polling lcore.
 *
 * Each lcore runs the stages placed on it (spated.lcores, config.h) in
 * turn, reports a quiescent state once per loop, and goes RCU-offline
 * around its idle sleeps. The main lcore also runs the housekeeping
 * callback (stats, signals, the control side) every
 * PIPELINE_HOUSEKEEPING polls, or every millisecond when it runs no
 * stage. docs/architecture.md has the picture.
 */
#ifndef SPATED_PIPELINE_H
#define SPATED_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "cluster/category_dir.h"
#include "config/config.h"
#include "matcher/spate_matcher.h"

#define PIPELINE_HOUSEKEEPING 256

struct pipeline;

/* Rings, message pool, directory, and the stages their modules register
 * (pipeline_int.h), for the started ports (their ids and MACs; each with
 * lcores.n_rx RX queues and one TX queue). Errors are fatal (rte_exit)
 * with the reason. */
struct host_view;
/* epoch: this host's incarnation (1 without ZooKeeper); view: which
 * peers ZooKeeper says are alive (NULL: static peers). */
struct pipeline *pipeline_create(const struct spated_conf *conf, uint16_t n_ports,
				 const uint16_t *ports, const struct rte_ether_addr *macs,
				 struct rte_mempool *pkt_pool, uint32_t epoch,
				 struct host_view *view);
/* Launch the lcores and run the main lcore's part until housekeeping
 * returns non-zero; then stop every lcore and wait for them. */
void pipeline_run(struct pipeline *p, int (*housekeeping)(void *ctx), void *ctx);
/* Free the stages (their queued packets and messages too) and the rest. */
void pipeline_destroy(struct pipeline *p);

/* For readers in the housekeeping callback (stats, control): the
 * directory - the main lcore is a registered, online QSBR reader there -
 * and the number of matching workers. */
struct category_dir *pipeline_dir(struct pipeline *p);
uint32_t pipeline_workers(const struct pipeline *p);
/* For the metrics (metrics.h), read from a control thread: every stage
 * ring (fn once each), the message pool, the link stage (NULL on a
 * single host) and worker w's lcore (UINT32_MAX: on another host). */
void pipeline_visit_rings(const struct pipeline *p, void (*fn)(void *ctx, const struct rte_ring *r),
			  void *ctx);
struct rte_mempool *pipeline_msg_pool(const struct pipeline *p);
struct stage_link *pipeline_link(const struct pipeline *p);
unsigned int pipeline_worker_lcore(const struct pipeline *p, uint32_t w);
/* The cluster stage's matcher and lcore: control requests (control.h)
 * run there, between two of its polls. */
struct spate_matcher *pipeline_matcher(struct pipeline *p);
unsigned int pipeline_cluster_lcore(const struct pipeline *p);

/* Whether every worker lcore running stages made at least one poll
 * since the previous call (the main lcore runs the caller: it
 * progresses if this runs at all). For the service watchdog; ctx is the
 * pipeline. */
bool pipeline_progress(void *ctx);

#endif
