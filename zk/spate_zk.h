/* spate_zk.h - what a multi-host Spate asks of Apache ZooKeeper
 * (docs/multihost.md), over the official C client (libzookeeper_mt):
 * membership (an ephemeral node per host), host epochs, front leader
 * election (ephemeral sequential nodes, each watching its predecessor)
 * and the versioned placement map (one node, compare-and-set writes).
 *
 * Synchronous calls, meant for the control side of a host, never a
 * data-plane lcore. Watches fire on the client library's own thread and
 * only set bits that spate_zk_events takes: the caller polls them and
 * re-reads (which re-arms the watch), so no callback runs caller code.
 *
 * Every call returns 0 or a negative ZooKeeper error code (spate_zk_error
 * names it). Not used by the single-box default (role "both").
 */
#ifndef SPATE_ZK_H
#define SPATE_ZK_H

#include <stddef.h>
#include <stdint.h>

/* ZooKeeper's codes for "someone else wrote first" and "already there". */
#define SPATE_ZK_CONFLICT (-103) /* ZBADVERSION */
#define SPATE_ZK_EXISTS (-110)   /* ZNODEEXISTS */
#define SPATE_ZK_GONE (-112)     /* ZSESSIONEXPIRED: a new session is needed */

/* Bits of spate_zk_events. */
enum {
	SPATE_ZK_MEMBERS = 1,   /* /hosts changed: call spate_zk_members */
	SPATE_ZK_LEADER = 2,    /* the front before us went: call spate_zk_elect */
	SPATE_ZK_MAP = 4,       /* /placement changed: call spate_zk_map_get */
	SPATE_ZK_EXPIRED = 8,   /* the session is gone: fence, start over */
	SPATE_ZK_SERVICES = 16, /* the service map changed: call spate_zk_services */
};

struct spate_zk;

/* Connect to servers ("h1:2181,h2:2181"), waiting at most wait_ms, with a
 * session timeout of session_ms, and make the layout under root (e.g.
 * "/spate/prod"): root/hosts, root/epochs, root/front, root/placement.
 *
 * digest ("user:password", the key file's zk_digest) authenticates the
 * session with ZooKeeper's digest scheme, and every node made (and the
 * layout's nodes, if they were open) gets the ACL "all for these
 * credentials, read for anyone": a client without them can look but
 * not delete a member or write the map. NULL: the nodes are open to
 * anyone (OPEN_ACL_UNSAFE; only with peer_auth = "none").
 *
 * The client library's own log lines go through a rate limiter: the
 * first is printed, then at most one line a LOG_EVERY_S with how many
 * were held back (an outage does not flood the log). NULL with a reason
 * in err on failure. */
struct spate_zk *spate_zk_open(const char *servers, const char *root, int session_ms, int wait_ms,
			       const char *digest, char *err, size_t errlen);
/* Ends the session: this host's ephemeral nodes go at once. */
void spate_zk_close(struct spate_zk *zk);

/* Take (and clear) the event bits set since the last call. */
unsigned spate_zk_events(struct spate_zk *zk);
/* Is the session connected to a server now (1), or is the client
 * looking for one (0: a server frozen or unreachable; the session may
 * still be alive on the servers' side, or expire when one is reached)? */
int spate_zk_connected(struct spate_zk *zk);

/* A new epoch for host: strictly greater than any it had before, never
 * reused (a persistent sequential node; older ones are deleted). */
int spate_zk_new_epoch(struct spate_zk *zk, uint32_t host, uint32_t *epoch);

/* Register host as a member (ephemeral root/hosts/<host>, data info).
 * SPATE_ZK_EXISTS if that host id is live in another session. */
int spate_zk_join(struct spate_zk *zk, uint32_t host, const char *info);
#define SPATE_ZK_NOAUTH (-102) /* ZNOAUTH: without the cluster's credentials */

/* Fence incarnation `epoch` of host: delete its member node if it still
 * names that epoch (data "... epoch=N ..."), by the version read, so a
 * newer incarnation's node is never touched. ZOK also when the node is
 * gone or names another epoch (nothing to fence). */
int spate_zk_fence(struct spate_zk *zk, uint32_t host, uint32_t epoch);
/* The live members, sorted (at most cap; *n is the full count); arms a
 * SPATE_ZK_MEMBERS watch. */
int spate_zk_members(struct spate_zk *zk, uint32_t *hosts, uint32_t cap, uint32_t *n);
/* A member's info string (NUL-terminated, cut to cap). */
int spate_zk_member_info(struct spate_zk *zk, uint32_t host, char *buf, size_t cap);

/* Stand in the front election as host (the first call enters it); sets
 * *leader to 1 when this session leads, else 0 and arms a
 * SPATE_ZK_LEADER watch on the front just before it. */
int spate_zk_elect(struct spate_zk *zk, uint32_t host, int *leader);

/* Read the placement map bytes (at most cap) and its version; arms a
 * SPATE_ZK_MAP watch. */
int spate_zk_map_get(struct spate_zk *zk, void *buf, size_t cap, size_t *len, int32_t *version);
/* Write it if its version is still `expected`; *version is the new one.
 * SPATE_ZK_CONFLICT when another write came first (a deposed leader). */
int spate_zk_map_set(struct spate_zk *zk, const void *buf, size_t len, int32_t expected,
		     int32_t *version);

/* The service map (several fronts, docs/multihost.md): one persistent
 * node per service, root/services/<id> (a front's host id), data
 * "owner=<host>": the front that serves it now.
 * spate_zk_services: every service and its owner (at most cap; *n the
 * count), arming a SPATE_ZK_SERVICES watch on the list and each node.
 * spate_zk_service_create: the node with this owner if there is none
 * (ZOK either way). spate_zk_service_claim: the owner becomes `to` if
 * it is `from`, by compare-and-set; SPATE_ZK_CONFLICT if it is not (or
 * another claim came first). */
int spate_zk_services(struct spate_zk *zk, uint32_t *id, uint32_t *owner, uint32_t cap,
		      uint32_t *n);
int spate_zk_service_create(struct spate_zk *zk, uint32_t id, uint32_t owner);
int spate_zk_service_claim(struct spate_zk *zk, uint32_t id, uint32_t from, uint32_t to);

const char *spate_zk_error(int rc);

#endif
