/* metrics.h - spated's figures for Prometheus: an HTTP endpoint
 * (metrics.listen = "127.0.0.1:9180"; GET /metrics) served by a control
 * thread of its own, never a data-plane lcore, through libmicrohttpd.
 *
 * The page is OpenMetrics 1.0 when the scraper asks for it (Prometheus
 * does), else the Prometheus text format 0.0.4 (curl, promtool): the
 * counters of counters.h per lcore (lcore="N"; lcore="control" for the
 * control threads' own), drops by cause, refusals by reason, per-stage
 * cycles, the ports' figures per port, gauges (subscriptions, clients,
 * categories and subscriptions per worker, ring occupancy, pools in use,
 * the journal, peers up), the latency histograms of latency.h as
 * Prometheus histograms (spate_latency_seconds{stage}), and build info.
 * Names follow Prometheus' conventions (base units, _total counters);
 * docs/operations.md lists them. Everything is read as telemetry reads
 * it: plain loads of per-lcore blocks, no lock the data plane takes.
 */
#ifndef SPATED_METRICS_H
#define SPATED_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

struct pipeline;

struct metrics_source {
	struct pipeline *pl; /* rings, message pool, link, directory */
	struct rte_mempool *pkt_pool;
	const uint16_t *ports;
	uint16_t n_ports;
};

/* Write the page to f: OpenMetrics 1.0 (om) or the text format 0.0.4.
 * The caller is a registered QSBR thread, offline (the directory is read
 * online for a moment). */
void metrics_render(FILE *f, bool om, const struct metrics_source *src);

/* Listen on "A.B.C.D:PORT" and serve from a control thread ("" = do
 * nothing). 0, or -1 with the reason in err. */
int metrics_start(const char *listen, const struct metrics_source *src, char *err, size_t errlen);
void metrics_stop(void);

#endif
