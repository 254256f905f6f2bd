/* config.h - spated's configuration: the common "spate" group (limits,
 * engine, quotas; lib/conf/spate_conf.h) plus the daemon's own "spated" group:
 *
 *   spated: {
 *     eal = [ "--file-prefix=spated" ];
 *     port: { device = "net_af_packet0,iface=spate0"; };  # none by default:
 *                           # every port the EAL probed (-a PCI, --vdev)
 *     ipv4 = "198.18.0.1";  udp_port = 47100;
 *     mtu = 1500;  mbufs = 0;  rx_desc = 512;  tx_desc = 512;
 *     stats_interval = 0;   # seconds, 0 = off
 *     idle_spin_us = 1000;  # keep polling this long after work, then
 *     idle_sleep_us = 0;    # sleep up to this between polls; 0 = busy poll
 *                           # (lcore_idle.h; both live with spatectl set)
 *     lcores: { rx = 0; tx = 0; cluster = 0; match = [ 0 ]; };
 *     ring_size = 0;  msgs = 0;  backlog_max = 0;  # 0: derived from the
 *                           # memory spated is given (sizing.h)
 *     category_engine = "drt";  rcu_cpu = -1;
 *     rcu_warn_ms = 1000;   # warn about RCU grace periods longer, 0 = off
 *     debug_hooks = false;  # allow `spatectl debug ...` (tests only)
 *     cpu_accounting = false; # match_cpu_ns: two system calls a busy
 *                           # poll on every matching lcore (benchmarks)
 *     role = "both";  # and host_id, peers, peer_rto_ms: host_conf.h
 *   };
 *
 * lcores: the EAL lcore of each stage (docs/architecture.md); any number
 * of stages may share one, and each entry of `match` is one matching
 * worker. Unset (-1): the main lcore. Checked against the EAL's enabled
 * lcores at start.
 *
 * Every key is optional (defaults above); unknown keys are errors so that
 * typos do not silently fall back to a default. Every key is a row of the
 * parameter table (config/spated_params.h, docs/parameters.md).
 */
#ifndef SPATED_CONFIG_H
#define SPATED_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include <libconfig.h>

#include "link/host_conf.h"
#include "config/ops_conf.h"
#include "conf/spate_conf.h"

#define SPATED_EAL_ARGS_MAX 64

#define SPATED_MATCH_MAX 16
#define SPATED_RX_MAX 8    /* RX stages: ports x RX queues */
#define SPATED_PORTS_MAX 4 /* = NET_PORTS_MAX */

struct spated_lcores {
	/* RX: one lcore per RX queue of the port (rx = N or rx = [ N, ... ]) */
	uint32_t n_rx;
	int rx[SPATED_RX_MAX];
	int tx, cluster; /* lcore ids; -1 = the main lcore */
	uint32_t n_match;
	int match[SPATED_MATCH_MAX];
};

struct spated_conf {
	struct spate_conf common;
	int n_eal;
	char *eal[SPATED_EAL_ARGS_MAX]; /* owned (strdup) */
	/* the ports: vdev strings (spated.port.device, a string or a list) */
	char devices[SPATED_PORTS_MAX][256];
	uint32_t n_devices;
	uint32_t ipv4;    /* host byte order */
	int prefix_len;   /* of the link (ipv4 = "A.B.C.D/N"); -1 unset */
	uint32_t gateway; /* next hop off the link; 0 = none */
	uint16_t udp_port;
	uint32_t mtu, mbufs, rx_desc, tx_desc;
	uint32_t stats_interval;              /* seconds, 0 = off */
	uint32_t idle_spin_us, idle_sleep_us; /* lcore_idle.h; changed live */
	struct spated_lcores lcores;
	uint32_t ring_size;       /* slots of every stage ring (power of 2) */
	uint32_t msgs;            /* pipeline messages in the pool */
	uint32_t backlog_max;     /* cluster stops reading past this backlog */
	char category_engine[32]; /* index inside each category: "drt" or a lib engine */
	int rcu_cpu;              /* CPU of the call_rcu thread; -1 = not pinned */
	uint32_t rcu_warn_ms;     /* grace-period watchdog threshold, 0 = off */
	bool debug_hooks;         /* fault-injection commands allowed */
	bool cpu_accounting;      /* matching lcores count match_cpu_ns */
	char preload[256];        /* stream file of subscriptions applied at start */
	struct ops_conf ops;      /* journal, control, access groups */
	struct host_conf hosts;   /* role, host_id, peers (host_conf.h) */
};

void spated_conf_default(struct spated_conf *c);
/* The link's netmask (host order; 0 when no prefix is given). */
static inline uint32_t spated_conf_mask(const struct spated_conf *c)
{
	return c->prefix_len <= 0 ? 0 : ~0u << (32 - c->prefix_len);
}
/* Load `path` (NULL = defaults only). 0, or -1 with "file:line: message"
 * in err. */
int spated_conf_load(struct spated_conf *c, const char *path, char *err, size_t errlen);
/* The overrides file (control.overrides) over a configuration read
 * already, as spated_conf_load does. 0, or -1 with err. */
int spated_conf_read_overrides(struct spated_conf *c, char *err, size_t errlen);
void spated_conf_free(struct spated_conf *c);
/* The rows of the "spated" group (spate_param.h), ended by a NULL key;
 * the whole table: config/spated_params.h. */
extern const struct spate_param spated_conf_rows[];

/* Every group of a parsed tree (no overrides file). 0, or -1 with
 * "file:line: message" in err. */
int spated_conf_read_tree(struct spated_conf *c, const config_t *cfg, const char *path, char *err,
			  size_t errlen);

#endif
