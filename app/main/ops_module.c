/* ops_module.c - the operators' interfaces spated registers (module.h):
 * the control socket (spatectl) with telemetry and the info block, and
 * the metrics listener (Prometheus/OpenMetrics). */
#include <stdlib.h>

#include "control/control.h"
#include "control/metrics.h"
#include "control/telemetry.h"
#include "infra/module.h"
#include "infra/pipeline.h"
#include "main/info.h"

/* Control requests run on the cluster stage's lcore, which owns the
 * matcher and the settings (stage_cluster_poll calls control_poll).
 * On a match host the link stage's lcore (the cluster's) runs them:
 * no clustering commands there, `show cluster` everywhere. */
static void control_init(struct spated *d)
{
	static struct control_target ctl; /* read by the control thread */
	char err[512];

	spated_info_start(pipeline_matcher(d->pl));
	telemetry_register();
	ctl = (struct control_target){
		.conf = &d->conf,
		.conf_path = d->conf_path,
		.matcher = pipeline_matcher(d->pl),
		.dp_lcore = pipeline_cluster_lcore(d->pl),
		.link = pipeline_link(d->pl),
		.dir = d->conf.hosts.role == SPATED_ROLE_MATCH ? NULL : pipeline_dir(d->pl),
		.n_ports = d->n_ports,
		.ports = d->ports,
	};
	if (control_start(&ctl, err, sizeof(err)) != 0)
		rte_exit(EXIT_FAILURE, "%s\n", err);
}

static void control_fini(struct spated *d)
{
	(void)d;
	control_stop();
}

static struct spated_module control_module = {
	.name = "control",
	.order = SPATED_ORDER_CONTROL,
	.init = control_init,
	.fini = control_fini,
};
SPATED_MODULE(control_module)

static void metrics_init(struct spated *d)
{
	static struct metrics_source src; /* read by the metrics thread */
	char err[512];

	src = (struct metrics_source){ d->pl, d->pkt_pool, d->ports, d->n_ports };
	if (metrics_start(d->conf.ops.metrics_listen, &src, err, sizeof(err)) != 0)
		rte_exit(EXIT_FAILURE, "%s\n", err);
}

/* First of all: it reads the ports and the pipeline. */
static void metrics_fini_early(struct spated *d)
{
	(void)d;
	metrics_stop();
}

static struct spated_module metrics_module = {
	.name = "metrics",
	.order = SPATED_ORDER_METRICS,
	.init = metrics_init,
	.stop = metrics_fini_early,
};
SPATED_MODULE(metrics_module)
