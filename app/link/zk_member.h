/* zk_member.h - a multi-host spated's membership in ZooKeeper
 * (docs/multihost.md), over zk/spate_zk.h.
 *
 * At start: connect, take a new epoch for this host (never reused), and
 * register as an ephemeral member /hosts/<host_id> with its role,
 * address, matching lcores and epoch; then wait (spated.zk_wait_ms at
 * most) for the configured peers to be members. A thread of its own
 * then watches the members and publishes each peer's epoch in a
 * host_view for the link stage (0: not a member). ZooKeeper calls never
 * run on a data-plane lcore.
 *
 * Sessions and fencing: ZooKeeper is the judge of who is a member, the
 * data plane's heartbeats the witness (stage_link.c): a peer the link
 * finds silent is fenced here by deleting its member node
 * (host_view_fence). A host whose own node is deleted while its session
 * lives was found dead: zk_member_fenced() turns 1 and spated stops
 * (exit status 3); restarted, it joins as a new, empty incarnation. A
 * session that merely expires (a frozen or unreachable ZooKeeper) is not
 * a verdict: a new session is opened and the host joins again under the
 * same epoch, and peers that heard it all along never noticed.
 */
#ifndef SPATED_ZK_MEMBER_H
#define SPATED_ZK_MEMBER_H

#include <stddef.h>
#include <stdint.h>

#include "link/host_conf.h"
#include "link/host_view.h"

struct zk_member;

/* NULL with the reason in err (no server, a host id taken by a live
 * session past zk_wait_ms, or a spated built without ZooKeeper). */
struct zk_member *zk_member_start(const struct host_conf *h, uint32_t ipv4, uint32_t lcores,
				  struct host_view *view, uint32_t *epoch, char *err,
				  size_t errlen);
/* Leave (the member node goes at once: peers see a clean exit). */
void zk_member_stop(struct zk_member *z);
int zk_member_fenced(const struct zk_member *z);
/* A front: does it serve a service now (read at start: a front whose
 * service another front took over is a standby, its journal stale)?
 * 1 without ZooKeeper. */
int zk_member_serves(const struct zk_member *z);
/* Sessions joined again after an expiry; peers fenced on the link's word. */
void zk_member_counts(const struct zk_member *z, uint64_t *rejoins, uint64_t *fences);

/* The placement map (docs/multihost.md): a front hands its categories'
 * places (spate_peer_place, any order) to the ZooKeeper thread, which
 * merges them into /placement by compare-and-set, keeping the entries
 * of the other fronts (a category id's top bits name its front: rank
 * is this front's). Match hosts only watch it. Cheap: copies, never
 * waits on ZooKeeper. */
struct category_dir;
void zk_member_offer_dir(struct zk_member *z, struct category_dir *d);
/* The map's version and size as last written or read (0, 0 before). */
void zk_member_map_state(const struct zk_member *z, uint64_t *version, uint64_t *cats,
			 uint64_t *writes);

#endif
