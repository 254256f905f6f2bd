/* host_conf.c - spated.role, host_id, peers, peer_rto_ms, and the
 * cluster file (host_conf.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "link/host_conf.h"
#include "conf/spate_conf.h"
#include "conf/spate_param.h"

static const char *const role_names[] = { "both", "front", "match", NULL };

const char *host_conf_role_name(uint8_t role)
{
	return role < 3 ? role_names[role] : "?";
}

void host_conf_default(struct host_conf *h)
{
	memset(h, 0, sizeof(*h));
	h->role = SPATED_ROLE_BOTH;
	h->rto_ms = 20;
	h->hb_ms = 50;
	h->dead_ms = 300;
	snprintf(h->zk_root, sizeof(h->zk_root), "/spate/default");
	h->zk_session_ms = 4000;
	h->zk_wait_ms = 30000;
}

void host_conf_wipe(struct host_conf *h)
{
	spate_peer_keyfile_wipe(&h->keys);
}

uint32_t host_conf_remote_workers(const struct host_conf *h)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < h->n_peers; i++)
		n += h->peer[i].lcores;
	return n;
}

uint32_t host_conf_front_rank(const struct host_conf *h, uint32_t front_host)
{
	uint32_t r = 0;

	if (h->role == SPATED_ROLE_FRONT && h->host_id < front_host)
		r++;
	for (uint32_t i = 0; i < h->n_peers; i++)
		r += h->peer[i].lcores == 0 && h->peer[i].host < front_host;
	return r;
}

/* The group a top-level setting is in ("spated", or "cluster" for the
 * cluster file's), for messages. */
static const char *grp(const config_setting_t *s)
{
	const config_setting_t *g = config_setting_parent(s);
	const char *n = g ? config_setting_name(g) : NULL;

	return n && strcmp(n, "cluster") == 0 ? "cluster" : "spated";
}

static int read_addr(const config_setting_t *s, const char *what, uint32_t *out, const char *path,
		     char *err, size_t errlen)
{
	const char *v = config_setting_get_string(s);
	struct in_addr a;

	if (v == NULL || inet_pton(AF_INET, v, &a) != 1)
		return spate_conf_error(err, errlen, path, s,
					"%s must be a dotted IPv4 address string", what);
	*out = ntohl(a.s_addr);
	return 0;
}

/* One entry of spated.peers, or (cluster) of cluster.hosts, which also
 * names each host's role and a front's service address. */
/* "spated.peers" or "cluster.hosts": the list a setting's entry is in. */
static const char *entry_list(const config_setting_t *s)
{
	const config_setting_t *list = config_setting_parent(config_setting_parent(s));
	const char *n = list ? config_setting_name(list) : NULL;

	return n && strcmp(n, "hosts") == 0 ? "cluster.hosts" : "spated.peers";
}

static int read_entry_addr(void *obj, const config_setting_t *s, const char *path, char *err,
			   size_t errlen)
{
	struct spated_peer *p = obj;
	const char *key = config_setting_name(s);
	char what[64];

	snprintf(what, sizeof(what), "%s.%s", entry_list(s), key);
	return read_addr(s, what, strcmp(key, "service") == 0 ? &p->service : &p->ipv4, path, err,
			 errlen);
}

#define PEER(f) offsetof(struct spated_peer, f), sizeof(((struct spated_peer *)0)->f)
static const char *const entry_roles[] = { "", "front", "match", NULL };

/* One entry of spated.peers, and of cluster.hosts (which also names each
 * host's role and a front's service address). */
static const struct spate_param peer_entry_rows[] = {
	{ "host", SPATE_PARAM_U32, SPATE_PARAM_FILE, 1, UINT32_MAX, "", PEER(host), NULL, NULL, 0,
	  "the peer's host_id (required)" },
	{ "ipv4", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "", 0, 0, NULL, read_entry_addr, 0,
	  "its data-plane address \"A.B.C.D\" (required)" },
	{ "lcores", SPATE_PARAM_U32, SPATE_PARAM_FILE, 0, 1024, "0", PEER(lcores), NULL, NULL, 0,
	  "a match host's matching lcores, in its lcores.match order; 0: a front" },
	{ NULL },
};
const struct spate_param host_conf_host_entry_rows[] = {
	{ "host", SPATE_PARAM_U32, SPATE_PARAM_FILE, 1, UINT32_MAX, "", PEER(host), NULL, NULL, 0,
	  "the host's host_id (required)" },
	{ "role", SPATE_PARAM_ENUM, SPATE_PARAM_FILE, 0, 0, "", PEER(role), entry_roles, NULL, 0,
	  "front or match (required)" },
	{ "ipv4", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "", 0, 0, NULL, read_entry_addr, 0,
	  "its data-plane address \"A.B.C.D\" (required)" },
	{ "lcores", SPATE_PARAM_U32, SPATE_PARAM_FILE, 1, 1024, "", PEER(lcores), NULL, NULL, 0,
	  "a match host's matching lcores (required of a match host)" },
	{ "service", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "none", 0, 0, NULL,
	  read_entry_addr, 0, "a front's service address \"A.B.C.D\" (optional)" },
	{ NULL },
};

static int read_peer(struct spated_peer *p, const config_setting_t *g, int cluster,
		     const char *path, char *err, size_t errlen)
{
	const char *list = cluster ? "cluster.hosts" : "spated.peers";

	if (!config_setting_is_group(g))
		return spate_conf_error(
			err, errlen, path, g,
			cluster ? "cluster.hosts entries must be groups { host = N; role = "
				  "\"front\"|\"match\"; ipv4 = \"a.b.c.d\"; ... }"
				: "spated.peers entries must be groups { host = N; ipv4 = "
				  "\"a.b.c.d\"; lcores = N; }");
	if (spate_param_read_entry(cluster ? host_conf_host_entry_rows : peer_entry_rows, p, g,
				   list, path, err, errlen) != 0)
		return -1;
	int have_ip = p->ipv4 != 0;
	if (p->host == 0 || !have_ip || (cluster && p->role == 0))
		return spate_conf_error(err, errlen, path, g, "%s: every %s needs host%s and ipv4",
					list, cluster ? "host" : "peer", cluster ? ", role" : "");
	if (cluster && (p->role == SPATED_ROLE_MATCH) != (p->lcores != 0))
		return spate_conf_error(err, errlen, path, g,
					"cluster.hosts: host %u: a match host"
					" needs lcores (its matching lcores), a front has none",
					p->host);
	if (cluster && p->service != 0 && p->role != SPATED_ROLE_FRONT)
		return spate_conf_error(err, errlen, path, g,
					"cluster.hosts: host %u: only a front"
					" has a service address",
					p->host);
	return 0;
}

static int read_key_file(void *obj, const config_setting_t *s, const char *path, char *err,
			 size_t errlen)
{
	struct host_conf *h = obj;
	const char *v = config_setting_get_string(s);

	if (v == NULL || v[0] == '\0' || strlen(v) >= sizeof(h->key_file))
		return spate_conf_error(err, errlen, path, s,
					"%s.peer_key_file must be a path (under %zu bytes)", grp(s),
					sizeof(h->key_file));
	snprintf(h->key_file, sizeof(h->key_file), "%s", v);
	return 0;
}

/* zookeeper ("host:port,...") and zk_root (a ZooKeeper path). */
static int read_zk(void *obj, const config_setting_t *s, const char *path, char *err, size_t errlen)
{
	struct host_conf *h = obj;
	int root = config_setting_name(s)[1] == 'k';
	const char *v = config_setting_get_string(s);
	char *dst = root ? h->zk_root : h->zookeeper;
	size_t cap = root ? sizeof(h->zk_root) : sizeof(h->zookeeper);

	if (v == NULL || v[0] == '\0' || strlen(v) >= cap ||
	    (root && (v[0] != '/' || v[1] == '\0')))
		return spate_conf_error(err, errlen, path, s,
					root ? "%s.zk_root must be a ZooKeeper path like "
					       "\"/spate/prod\" (under %zu bytes)"
					     : "%s.zookeeper must be a string "
					       "\"host:port,host:port\" (under %zu bytes)",
					grp(s), cap);
	snprintf(dst, cap, "%s", v);
	return 0;
}

static int read_peers(void *obj, const config_setting_t *s, const char *path, char *err,
		      size_t errlen)
{
	struct host_conf *h = obj;
	int n = config_setting_length(s);

	if (!config_setting_is_list(s) || n > SPATED_PEERS_MAX)
		return spate_conf_error(
			err, errlen, path, s,
			"spated.peers must be a list of at most %d groups ( { ... }, ... )",
			SPATED_PEERS_MAX);
	h->n_peers = 0;
	for (int i = 0; i < n; i++) {
		struct spated_peer *p = &h->peer[h->n_peers];
		memset(p, 0, sizeof(*p));
		if (read_peer(p, config_setting_get_elem(s, i), 0, path, err, errlen) != 0)
			return -1;
		for (uint32_t k = 0; k < h->n_peers; k++)
			if (h->peer[k].host == p->host)
				return spate_conf_error(
					err, errlen, path, config_setting_get_elem(s, i),
					"spated.peers: host %u listed twice", p->host);
		h->n_peers++;
	}
	return 0;
}

#define HC(f) offsetof(struct host_conf, f), sizeof(((struct host_conf *)0)->f)
#define MS(key, f, lo, hi, def, help)                                                   \
	{                                                                               \
		key, SPATE_PARAM_U32, SPATE_PARAM_FILE, lo, hi, def, HC(f), NULL, NULL, \
			SPATE_PARAM_CLUSTER, help                                       \
	}

static const char *const auth_names[] = { "hmac-sha256", "none", NULL };

/* The multi-host rows of the "spated" group (spate_param.h); those
 * marked SPATE_PARAM_CLUSTER may be set once in the cluster group. */
const struct spate_param host_conf_rows[] = {
	{ "role", SPATE_PARAM_ENUM, SPATE_PARAM_FILE, 0, 0, "both", HC(role), role_names, NULL, 0,
	  "both: one box; front: clustering, the clients; match: matching workers only" },
	{ "host_id", SPATE_PARAM_U32, SPATE_PARAM_FILE, 1, UINT32_MAX, "0", HC(host_id), NULL, NULL,
	  0, "this host in the cluster, unique (front and match; 0: unset)" },
	{ "peers", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "( )", 0, 0, NULL, read_peers, 0,
	  "static membership: ( { host = N; ipv4 = \"A.B.C.D\"; lcores = N (a match host); }, "
	  "... ) (host_conf.h)",
	  peer_entry_rows },
	MS("peer_rto_ms", rto_ms, 1, 10000, "20",
	   "the inter-host channel's retransmission timeout"),
	MS("peer_hb_ms", hb_ms, 5, 10000, "50", "a frame to every peer at least this often"),
	MS("peer_dead_ms", dead_ms, 20, 60000, "300",
	   "a peer silent this long is dead (at least 3 x peer_hb_ms)"),
	MS("peer_drop_ppm", drop_ppm, 0, 500000, "0",
	   "fault injection: inter-host frames dropped per million (needs debug_hooks)"),
	{ "peer_key_file", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "", 0, 0, NULL,
	  read_key_file, SPATE_PARAM_CLUSTER,
	  "the cluster keys that sign inter-host frames (docs/operations.md, \"Cluster keys\")" },
	{ "peer_auth", SPATE_PARAM_ENUM, SPATE_PARAM_FILE, 0, 0, "hmac-sha256", HC(auth_none),
	  auth_names, NULL, SPATE_PARAM_CLUSTER,
	  "none: unsigned inter-host frames (tests and benchmarks: needs debug_hooks)" },
	{ "zookeeper", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "", 0, 0, NULL, read_zk,
	  SPATE_PARAM_CLUSTER,
	  "\"host:port,host:port\": membership and epochs; \"\" = static peers" },
	{ "zk_root", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "/spate/default", 0, 0, NULL,
	  read_zk, SPATE_PARAM_CLUSTER, "this cluster's nodes in ZooKeeper" },
	MS("zk_session_ms", zk_session_ms, 400, 60000, "4000",
	   "a dead host is noticed after about this long"),
	MS("zk_wait_ms", zk_wait_ms, 0, 600000, "30000",
	   "at start: how long to wait for the peers to join"),
	{ NULL },
};

/* The rows with struct host_conf as root, and the cluster group's own key
 * (what host_conf_read_cluster may meet, and its list of known keys). */
static const struct spate_param cluster_rows[] = {
	{ "hosts", SPATE_PARAM_CUSTOM, SPATE_PARAM_FILE, 0, 0, "", 0, 0, NULL, NULL, 0, "",
	  host_conf_host_entry_rows },
	{ NULL },
};
static const struct spate_param_section host_sec = { "spated", "spated.", 0, false,
						     host_conf_rows };
static const struct spate_param_section cluster_sec = { "cluster", "cluster.", 0, false,
							cluster_rows };
static const struct spate_param_section *const host_secs[] = { &host_sec, &cluster_sec };
static const struct spate_param_table host_table = { host_secs, 2 };

int host_conf_read(struct host_conf *h, const config_setting_t *s, const char *path, char *err,
		   size_t errlen)
{
	const char *name = config_setting_name(s);
	char what[96];

	for (size_t i = 0; host_conf_rows[i].key != NULL; i++)
		if (strcmp(host_conf_rows[i].key, name) == 0) {
			snprintf(what, sizeof(what), "%s.%s", grp(s), name);
			return spate_param_read_setting(
				(struct spate_param_ref){ &host_sec, &host_conf_rows[i] }, h, s,
				what, path, err, errlen);
		}
	return 1;
}

/* Settings of the cluster group that are each host's own. */
static const char *const per_host[] = { "role", "host_id", "peers" };

int host_conf_read_cluster(struct host_conf *h, const config_setting_t *g,
			   const config_setting_t *top, uint32_t *ipv4, int ipv4_given,
			   uint32_t n_match, const char *path, char *err, size_t errlen)
{
	const config_setting_t *hosts = NULL;

	if (!config_setting_is_group(g))
		return spate_conf_error(err, errlen, path, g, "'cluster' must be a group { ... }");
	for (size_t k = 0; top != NULL && k < sizeof(per_host) / sizeof(per_host[0]); k++) {
		const config_setting_t *s =
			config_setting_lookup((config_setting_t *)top, per_host[k]);
		if (s != NULL && k != 1)
			return spate_conf_error(
				err, errlen, path, s,
				"spated.%s: with a cluster group,"
				" every host is listed once in cluster.hosts (remove it here)",
				per_host[k]);
	}
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, i);
		const char *name = config_setting_name(s);
		if (strcmp(name, "hosts") == 0) {
			hosts = s;
			continue;
		}
		for (size_t k = 0; k < sizeof(per_host) / sizeof(per_host[0]); k++)
			if (strcmp(name, per_host[k]) == 0)
				return spate_conf_error(err, errlen, path, s,
							"cluster.%s: each host's own"
							" (spated.host_id; roles in cluster.hosts)",
							name);
		if (top != NULL && config_setting_get_member(top, name) != NULL)
			return spate_conf_error(err, errlen, path, s,
						"cluster.%s is set in spated too:"
						" say it once",
						name);
		int rc = 1;
		for (size_t k = 0; host_conf_rows[k].key != NULL && rc > 0; k++)
			if ((host_conf_rows[k].flags & SPATE_PARAM_CLUSTER) &&
			    strcmp(host_conf_rows[k].key, name) == 0)
				rc = host_conf_read(h, s, path, err, errlen);
		if (rc > 0) {
			char known[400];
			spate_param_known(&host_table, "cluster", known, sizeof(known));
			return spate_conf_error(err, errlen, path, s,
						"cluster: unknown setting '%s' (known: %s)", name,
						known);
		}
		if (rc < 0)
			return -1;
	}
	int n = hosts ? config_setting_length(hosts) : 0;
	if (hosts == NULL || !config_setting_is_list(hosts) || n < 2 || n > SPATED_PEERS_MAX + 1)
		return spate_conf_error(
			err, errlen, path, hosts ? hosts : g,
			"cluster.hosts must be a list of 2 to %d groups, every host once"
			" ( { host = N; role = \"front\"; ipv4 = \"a.b.c.d\"; }, ... )",
			SPATED_PEERS_MAX + 1);
	struct spated_peer all[SPATED_PEERS_MAX + 1];
	int self = -1, fronts = 0;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(hosts, (unsigned)i);
		memset(&all[i], 0, sizeof(all[i]));
		if (read_peer(&all[i], e, 1, path, err, errlen) != 0)
			return -1;
		for (int k = 0; k < i; k++) {
			if (all[k].host == all[i].host)
				return spate_conf_error(err, errlen, path, e,
							"cluster.hosts: host %u listed twice",
							all[i].host);
			if (all[k].ipv4 == all[i].ipv4 ||
			    (all[i].service != 0 &&
			     (all[k].ipv4 == all[i].service || all[k].service == all[i].service)))
				return spate_conf_error(err, errlen, path, e,
							"cluster.hosts: host %u:"
							" an address of host %u again",
							all[i].host, all[k].host);
		}
		fronts += all[i].role == SPATED_ROLE_FRONT;
		if (all[i].host == h->host_id)
			self = i;
	}
	if (fronts == 0 || fronts == n)
		return spate_conf_error(err, errlen, path, hosts,
					"cluster.hosts: at least one front and one match host");
	if (self < 0) {
		char ids[200];
		size_t o = 0;
		ids[0] = '\0';
		for (int i = 0; i < n && o + 12 < sizeof(ids); i++)
			o += (size_t)snprintf(ids + o, sizeof(ids) - o, "%s%u", i ? ", " : "",
					      all[i].host);
		if (h->host_id == 0)
			return spate_conf_error(err, errlen, path, top ? top : g,
						"spated.host_id:"
						" with a cluster group each host says which it is"
						" (one of %s)",
						ids);
		return spate_conf_error(err, errlen, path, top ? top : g,
					"spated.host_id = %u is not in cluster.hosts (%s)",
					h->host_id, ids);
	}
	if (ipv4_given && *ipv4 != all[self].ipv4)
		return spate_conf_error(
			err, errlen, path, top,
			"spated.ipv4 differs from host %u's address in cluster.hosts", h->host_id);
	if (all[self].role == SPATED_ROLE_MATCH && all[self].lcores != n_match)
		return spate_conf_error(err, errlen, path, top,
					"host %u: cluster.hosts says %u matching"
					" lcores, spated.lcores.match lists %u",
					h->host_id, all[self].lcores, n_match);
	h->role = all[self].role;
	h->service = all[self].service;
	*ipv4 = all[self].ipv4;
	h->n_peers = 0;
	for (int i = 0; i < n; i++)
		if (i != self) {
			h->peer[h->n_peers] = all[i];
			if (all[i].role == SPATED_ROLE_FRONT)
				h->peer[h->n_peers].lcores = 0;
			h->n_peers++;
		}
	h->clustered = 1;
	return 0;
}

int host_conf_check(struct host_conf *h, const config_setting_t *top, const char *path,
		    uint32_t match_max, char *err, size_t errlen)
{
	if (h->role == SPATED_ROLE_BOTH)
		return h->zookeeper[0] == '\0'
			       ? 0
			       : spate_conf_error(err, errlen, path, top,
						  "spated.zookeeper is for role \"front\" or "
						  "\"match\" (one box needs none)");
#ifndef SPATED_HAVE_ZK
	if (h->zookeeper[0] != '\0')
		return spate_conf_error(
			err, errlen, path, top,
			"spated.zookeeper: this spated was built without ZooKeeper's C client "
			"(install libzookeeper-mt-dev and rebuild)");
#endif
	const char *role = host_conf_role_name(h->role);
	if (h->dead_ms < 3 * h->hb_ms)
		return spate_conf_error(
			err, errlen, path, top,
			"spated.peer_dead_ms = %u must be at least 3 x peer_hb_ms (%u): "
			"a lost heartbeat or two must not kill a peer",
			h->dead_ms, h->hb_ms);
	if (h->host_id == 0)
		return spate_conf_error(err, errlen, path, top,
					"spated.role = \"%s\" needs spated.host_id", role);
	if (h->n_peers == 0)
		return spate_conf_error(err, errlen, path, top,
					"spated.role = \"%s\" needs spated.peers", role);
	for (uint32_t i = 0; i < h->n_peers; i++)
		if (h->peer[i].host == h->host_id)
			return spate_conf_error(err, errlen, path, top,
						"spated.peers lists this host (host_id %u) itself",
						h->host_id);
	if (h->role == SPATED_ROLE_MATCH) {
		uint32_t fronts = 0;
		for (uint32_t i = 0; i < h->n_peers; i++)
			fronts += h->peer[i].lcores == 0;
		if (fronts == 0 || fronts > (1u << (32 - SPATED_CAT_FRONT_SHIFT)))
			return spate_conf_error(
				err, errlen, path, top,
				"spated.peers of a match host: its fronts (no lcores, 1 to %u), "
				"then the other match hosts with their lcores (%u without lcores)",
				1u << (32 - SPATED_CAT_FRONT_SHIFT), fronts);
	}
	if (h->role == SPATED_ROLE_FRONT) {
		uint32_t w = host_conf_remote_workers(h);
		if (w == 0 || w > match_max)
			return spate_conf_error(
				err, errlen, path, top,
				"spated.peers of a front: their lcores add up to %u, want 1 to %u",
				w, match_max);
		/* peers without lcores are the other fronts (events are relayed
		 * to them: each routes them through its own categories) */
		if (host_conf_front_rank(h, UINT32_MAX) > (1u << (32 - SPATED_CAT_FRONT_SHIFT)))
			return spate_conf_error(err, errlen, path, top,
						"spated.peers of a front: more than %u fronts",
						1u << (32 - SPATED_CAT_FRONT_SHIFT));
	}
	if (h->auth_none && h->key_file[0] != '\0')
		return spate_conf_error(
			err, errlen, path, top,
			"spated.peer_auth = \"none\" and spated.peer_key_file: choose one");
	if (!h->auth_none && h->key_file[0] == '\0')
		return spate_conf_error(
			err, errlen, path, top,
			"spated.role = \"%s\" needs spated.peer_key_file: the cluster key that "
			"signs inter-host frames (docs/operations.md, \"Cluster keys\")",
			role);
	if (h->key_file[0] != '\0') {
		char why[400];
		if (spate_peer_keyfile_load(h->key_file, &h->keys, why, sizeof(why)) != 0)
			return spate_conf_error(
				err, errlen, path,
				config_setting_lookup((config_setting_t *)top, "peer_key_file"),
				"spated.peer_key_file: %s", why);
		if (h->zookeeper[0] != '\0' && h->keys.zk_digest[0] == '\0')
			return spate_conf_error(
				err, errlen, path,
				config_setting_lookup((config_setting_t *)top, "peer_key_file"),
				"spated.peer_key_file %s has no zk_digest line: ZooKeeper's nodes "
				"need the cluster's credentials (zk_digest user:password)",
				h->key_file);
	}
	return 0;
}
