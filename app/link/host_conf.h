/* host_conf.h - the multi-host part of the "spated" group
 * (docs/multihost.md):
 *
 *   spated: {
 *     role = "both";      # "both" (one box, the default), "front", "match"
 *     host_id = 1;        # != 0, unique in the cluster (front/match)
 *     peers = ( { host = 2; ipv4 = "10.0.0.2"; lcores = 2; }, ... );
 *     peer_rto_ms = 20;   # the inter-host channel's retransmission timeout
 *     peer_hb_ms = 50;    # a frame to every peer at least this often (heartbeat)
 *     peer_dead_ms = 300; # a peer silent this long is dead (ZooKeeper fences it)
 *     peer_drop_ppm = 0;  # tests only (debug_hooks): drop inter-host frames
 *     zookeeper = "10.1.0.5:2181,10.1.0.6:2181,10.1.0.7:2181"; # membership, epochs
 *     zk_root = "/spate/default"; # this cluster's nodes in ZooKeeper
 *     zk_session_ms = 4000;   # a dead host is noticed after about this long
 *     zk_wait_ms = 30000;     # at start: how long to wait for the peers to join
 *     peer_key_file = "/etc/spate/cluster.key"; # the cluster keys (spate_peer_auth.h)
 *     peer_auth = "hmac-sha256"; # or "none": unsigned frames (debug_hooks only)
 *   };
 *
 * Every inter-host frame is signed with a cluster key from
 * peer_key_file (docs/operations.md, "Cluster keys"); a front or match
 * host without one is refused, unless peer_auth = "none" (tests and
 * benchmarks: it needs debug_hooks = true).
 *
 * With zookeeper set, peers stays the address book but ZooKeeper says
 * which peers are alive and which incarnation (epoch) each one is: a
 * front rebuilds a dead match host's categories on the others, a
 * restarted host comes back as a new, empty incarnation
 * (docs/multihost.md).
 *
 * peers is the static membership (ZooKeeper membership replaces it
 * later): a front lists its match hosts with how many matching lcores
 * each runs (its matching workers, in that order); a match host lists
 * its front (no lcores) and the other match hosts (with their lcores:
 * categories move between match hosts directly). Inter-host frames use UDP port SPATED_PEER_PORT on the
 * data-plane port. Static peers all run epoch 1 (no fencing of restarts
 * without ZooKeeper).
 */
#ifndef SPATED_HOST_CONF_H
#define SPATED_HOST_CONF_H

#include <stdint.h>

#include <libconfig.h>

#include "auth/spate_peer_auth.h"
#include "conf/spate_param.h"

#define SPATED_PEERS_MAX 16
#define SPATED_PEER_PORT 47110

enum spated_role {
	SPATED_ROLE_BOTH = 0,
	SPATED_ROLE_FRONT,
	SPATED_ROLE_MATCH,
};

struct spated_peer {
	uint32_t host;    /* its host_id */
	uint32_t ipv4;    /* host byte order */
	uint32_t lcores;  /* a match host's matching workers (front's view) */
	uint32_t service; /* a front's service address (cluster file; 0: none) */
	uint8_t role;     /* cluster file: SPATED_ROLE_FRONT or _MATCH */
};

struct host_conf {
	uint8_t role; /* enum spated_role */
	uint32_t host_id;
	uint32_t n_peers;
	struct spated_peer peer[SPATED_PEERS_MAX];
	uint32_t rto_ms;
	uint32_t hb_ms, dead_ms;
	uint32_t drop_ppm;   /* fault injection: frames dropped per million, each way */
	char zookeeper[256]; /* "" = static peers, no ZooKeeper */
	char zk_root[128];
	uint32_t zk_session_ms, zk_wait_ms;
	uint32_t service;               /* a front's service address (cluster file; 0: none) */
	int clustered;                  /* read from a cluster group */
	char key_file[256];             /* "" = none */
	int auth_none;                  /* peer_auth = "none" */
	struct spate_peer_keyfile keys; /* read by host_conf_check */
};

/* The multi-host rows of the "spated" group (spate_param.h), ended by a
 * NULL key: role, host_id, peers, peer_*, zookeeper, zk_*. */
extern const struct spate_param host_conf_rows[];
/* The keys of one cluster.hosts entry (host_conf_read_cluster). */
extern const struct spate_param host_conf_host_entry_rows[];

void host_conf_default(struct host_conf *h);
/* One setting of the "spated" group: 0 read, -1 error (err filled), 1
 * not one of ours. */
int host_conf_read(struct host_conf *h, const config_setting_t *s, const char *path, char *err,
		   size_t errlen);
/* The cluster file (docs/operations.md): a top-level group, the same on
 * every host (usually pulled in with @include), with the cluster-wide
 * settings (zookeeper, zk_*, peer_*) and every host once:
 *
 *   cluster: {
 *     zookeeper = "10.1.0.5:2181";
 *     hosts = ( { host = 1; role = "front"; ipv4 = "10.0.0.1"; service = "10.0.0.101"; },
 *               { host = 3; role = "match"; ipv4 = "10.0.0.3"; lcores = 2; }, ... );
 *   };
 *
 * A host finds itself by spated.host_id: its role and address come from
 * its entry, every other host is a peer. `top` is the spated group
 * (role and peers must not be there), `ipv4` the spated address
 * (`ipv4_given`: set in spated too, then it must agree), n_match the
 * matching lcores spated.lcores lists (a match host's entry must agree).
 * 0 or -1 (err filled). */
int host_conf_read_cluster(struct host_conf *h, const config_setting_t *g,
			   const config_setting_t *top, uint32_t *ipv4, int ipv4_given,
			   uint32_t n_match, const char *path, char *err, size_t errlen);
/* After the whole group: a role that needs a host id and peers has them,
 * and its key file is read (into h->keys);
 * `n_match` is spated.lcores.match's length (a front's own workers are
 * its peers' lcores, at most `match_max`). 0 or -1 (err filled). */
int host_conf_check(struct host_conf *h, const config_setting_t *top, const char *path,
		    uint32_t match_max, char *err, size_t errlen);
/* Forget the keys (at exit). */
void host_conf_wipe(struct host_conf *h);
/* "both", "front", "match". */
const char *host_conf_role_name(uint8_t role);
/* A front's matching workers: the sum of its peers' lcores. */
uint32_t host_conf_remote_workers(const struct host_conf *h);
/* Several fronts: peers without lcores are fronts (a front's fellow
 * fronts, a match host's fronts). A front's rank among all the fronts
 * by host id (this one included for a front): each front numbers its
 * categories from rank << SPATED_CAT_FRONT_SHIFT, so a category id
 * names its front everywhere. */
#define SPATED_CAT_FRONT_SHIFT 28
uint32_t host_conf_front_rank(const struct host_conf *h, uint32_t front_host);

#endif
