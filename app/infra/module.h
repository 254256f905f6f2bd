/* module.h - spated's modules and what they share while the daemon runs.
 *
 * Each module (net, cluster, link, ...) registers what it owns from a
 * constructor (SPATED_MODULE): a step of the start (init), of the stop
 * (stop: leave the outside world at once, right after the lcores end)
 * and of the teardown (fini: free). main() runs every init in
 * increasing order, then the pipeline, then every stop and every fini
 * in decreasing order; it names no module. The pipeline's stages
 * register the same way (pipeline_int.h, PIPELINE_STAGE).
 *
 * Errors in init are fatal (rte_exit with the reason), as the DPDK
 * examples do for the start.
 */
#ifndef SPATED_MODULE_H
#define SPATED_MODULE_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mempool.h>

#include "config/config.h"
#include "link/host_view.h"

/* The running daemon: what the modules set up and read from each other. */
struct spated {
	struct spated_conf conf;
	const char *conf_path;
	/* the EAL's arguments as given (rte_eal_init reorders its copy) */
	int eal_argc;
	char **eal_given;
	int have_vdev; /* the EAL arguments named a --vdev themselves */
	/* net: the started ports, their MACs, the packet pool */
	uint16_t ports[SPATED_PORTS_MAX];
	uint16_t n_ports;
	struct rte_ether_addr macs[SPATED_PORTS_MAX];
	struct rte_mempool *pkt_pool;
	/* link: this incarnation's epoch, ZooKeeper's view of the peers */
	uint32_t epoch;
	struct zk_member *zk;  /* NULL: no ZooKeeper */
	struct host_view view; /* valid when zk != NULL */
	struct pipeline *pl;
	int exit_code; /* 3: fenced by ZooKeeper, 4: the front restarted */
};

struct spated_module {
	const char *name;
	int order; /* SPATED_ORDER_*: init in increasing order */
	void (*init)(struct spated *d);
	void (*stop)(struct spated *d);
	void (*fini)(struct spated *d);
	struct spated_module *next;
};

/* The start's order: who needs whom. */
enum {
	SPATED_ORDER_ACCESS = 10,   /* keys: before the stages check datagrams */
	SPATED_ORDER_PORTS = 20,    /* ports and the packet pool */
	SPATED_ORDER_MEMBER = 30,   /* epoch and ZooKeeper: the link binds to them */
	SPATED_ORDER_PIPELINE = 40, /* stages, rings, lcore plans */
	SPATED_ORDER_JOURNAL = 50,  /* replayed into the stages */
	SPATED_ORDER_CONTROL = 60,  /* spatectl, telemetry: read the stages */
	SPATED_ORDER_STATS = 70,    /* the counters line at exit */
	SPATED_ORDER_METRICS = 80,  /* stopped first: it reads ports and pipeline */
};

void spated_module_register(struct spated_module *m);
#define SPATED_MODULE(m)                     \
	RTE_INIT(spated_module_register_##m) \
	{                                    \
		spated_module_register(&m);  \
	}

/* Every module's init, in order; stop and fini in the reverse order. */
void spated_modules_init(struct spated *d);
void spated_modules_stop(struct spated *d);
void spated_modules_fini(struct spated *d);

#endif
