/* zk_member.c - membership in ZooKeeper (zk_member.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link/zk_member.h"

#ifndef SPATED_HAVE_ZK

struct zk_member *zk_member_start(const struct host_conf *h, uint32_t ipv4, uint32_t lcores,
				  struct host_view *view, uint32_t *epoch, char *err, size_t errlen)
{
	(void)h, (void)ipv4, (void)lcores, (void)view, (void)epoch;
	snprintf(err, errlen, "spated: built without ZooKeeper's C client (libzookeeper-mt-dev)");
	return NULL;
}

void zk_member_stop(struct zk_member *z)
{
	(void)z;
}

int zk_member_fenced(const struct zk_member *z)
{
	(void)z;
	return 0;
}

void zk_member_counts(const struct zk_member *z, uint64_t *rejoins, uint64_t *fences)
{
	(void)z;
	*rejoins = *fences = 0;
}

int zk_member_serves(const struct zk_member *z)
{
	(void)z;
	return 1;
}

void zk_member_offer_dir(struct zk_member *z, struct category_dir *d)
{
	(void)z, (void)d;
}

void zk_member_map_state(const struct zk_member *z, uint64_t *version, uint64_t *cats,
			 uint64_t *writes)
{
	(void)z;
	*version = *cats = *writes = 0;
}

#else

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "cluster/category_dir.h"
#include "config/config.h"
#include "peer/spate_peer_map.h"
#include "spate_zk.h"

#define WATCH_EVERY_MS 20
/* At start, how long to keep trying to reach ZooKeeper. */
#define ZK_START_MS 60000
/* One znode holds 1 MB: about 100k categories (docs/multihost.md). */
#define MAP_MAX_ENTRIES ((1u << 20) - 64) / SPATE_PEER_MAP_ENTRY
#define MAP_BYTES (1u << 20)

struct zk_member {
	struct spate_zk *zk;
	const struct host_conf *h;
	struct host_view *view;
	pthread_t thread;
	int stop;   /* atomic */
	int fenced; /* atomic */
	uint32_t epoch;
	char info[256];           /* the member node's data */
	uint64_t rejoins, fences; /* atomic: sessions joined again, peers fenced */
	uint32_t serves;          /* fronts: services this front owns (last read) */
	int connected;            /* the watch thread's view of the session */
	uint64_t lost_at;         /* ms: when the connection was lost */
	/* fences asked for by the link, not yet carried out */
	uint32_t fence_seen, n_fence;
	uint32_t fence_host[SPATED_PEERS_MAX], fence_epoch[SPATED_PEERS_MAX];
	/* the placement map */
	pthread_mutex_t map_mu;
	struct spate_peer_place *offer, *last, *tmp, *tmp2; /* [MAP_MAX_ENTRIES] */
	uint32_t n_offer, n_last;
	int offered;                                /* a new offer waits (under map_mu) */
	uint8_t *map_buf;                           /* [MAP_BYTES] */
	uint64_t map_version, map_cats, map_writes; /* atomic */
	uint32_t w_host[SPATED_MATCH_MAX], w_lcore[SPATED_MATCH_MAX]; /* front: worker -> place */
	uint32_t n_workers, rank;
};

static int by_cat(const void *a, const void *b)
{
	uint32_t x = ((const struct spate_peer_place *)a)->cat;
	uint32_t y = ((const struct spate_peer_place *)b)->cat;

	return x < y ? -1 : x > y;
}

/* Read /placement (re-arms its watch): its entries in z->tmp. */
static int map_read(struct zk_member *z, uint32_t *n, int32_t *version)
{
	size_t len = 0;
	int rc = spate_zk_map_get(z->zk, z->map_buf, MAP_BYTES, &len, version);

	*n = 0;
	if (rc != 0)
		return rc;
	if (len != 0 && spate_peer_map_decode(z->map_buf, len, z->tmp, MAP_MAX_ENTRIES, n) != 0)
		*n = 0; /* not ours or damaged: rewritten by the next front's write */
	__atomic_store_n(&z->map_version, (uint64_t)*version, __ATOMIC_RELAXED);
	__atomic_store_n(&z->map_cats, (uint64_t)*n, __ATOMIC_RELAXED);
	return 0;
}

/* This front's offer merged into the map by compare-and-set: 0 written,
 * else try again next round (another front wrote first). */
static int map_write(struct zk_member *z)
{
	uint32_t n, keep = 0;
	int32_t version, nv;
	int rc = map_read(z, &n, &version);

	if (rc != 0)
		return rc;
	for (uint32_t i = 0; i < n; i++)
		if (z->tmp[i].cat >> SPATED_CAT_FRONT_SHIFT != z->rank)
			z->tmp[keep++] = z->tmp[i];
	pthread_mutex_lock(&z->map_mu);
	uint32_t mine = z->n_offer;
	if (keep + mine > MAP_MAX_ENTRIES)
		mine = MAP_MAX_ENTRIES - keep; /* past one znode: the rest is not published */
	memcpy(z->tmp + keep, z->offer, mine * sizeof(*z->tmp));
	z->offered = 0;
	pthread_mutex_unlock(&z->map_mu);
	qsort(z->tmp, keep + mine, sizeof(*z->tmp), by_cat);
	size_t len = spate_peer_map_encode(z->map_buf, MAP_BYTES, z->tmp, keep + mine);
	if (len == 0)
		return -1;
	rc = spate_zk_map_set(z->zk, z->map_buf, len, version, &nv);
	if (rc != 0) {
		pthread_mutex_lock(&z->map_mu);
		z->offered = 1; /* again next round */
		pthread_mutex_unlock(&z->map_mu);
		return rc;
	}
	__atomic_store_n(&z->map_version, (uint64_t)nv, __ATOMIC_RELAXED);
	__atomic_store_n(&z->map_cats, (uint64_t)(keep + mine), __ATOMIC_RELAXED);
	__atomic_add_fetch(&z->map_writes, 1, __ATOMIC_RELAXED);
	return 0;
}

struct offer_ctx {
	struct zk_member *z;
	uint32_t n;
};

static void offer_one(void *ctx, uint32_t cat, uint32_t owner, uint32_t n_subs)
{
	struct offer_ctx *x = ctx;

	(void)n_subs;
	if (owner >= x->z->n_workers || x->n == MAP_MAX_ENTRIES)
		return;
	x->z->tmp2[x->n++] = (struct spate_peer_place){ cat, x->z->w_host[owner],
							(uint16_t)x->z->w_lcore[owner] };
}

void zk_member_offer_dir(struct zk_member *z, struct category_dir *d)
{
	if (z == NULL || z->h->role != SPATED_ROLE_FRONT)
		return;
	struct offer_ctx x = { z, 0 };
	category_dir_visit(d, offer_one, &x);
	qsort(z->tmp2, x.n, sizeof(*z->tmp2), by_cat);
	if (x.n == z->n_last && memcmp(z->tmp2, z->last, x.n * sizeof(*z->last)) == 0)
		return; /* nothing moved since the last offer */
	memcpy(z->last, z->tmp2, x.n * sizeof(*z->last));
	z->n_last = x.n;
	pthread_mutex_lock(&z->map_mu);
	memcpy(z->offer, z->tmp2, x.n * sizeof(*z->offer));
	z->n_offer = x.n;
	z->offered = 1;
	pthread_mutex_unlock(&z->map_mu);
}

void zk_member_map_state(const struct zk_member *z, uint64_t *version, uint64_t *cats,
			 uint64_t *writes)
{
	*version = *cats = *writes = 0;
	if (z == NULL)
		return;
	*version = __atomic_load_n(&z->map_version, __ATOMIC_RELAXED);
	*cats = __atomic_load_n(&z->map_cats, __ATOMIC_RELAXED);
	*writes = __atomic_load_n(&z->map_writes, __ATOMIC_RELAXED);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Each configured peer's epoch from its member node (0: absent); how
 * many are members. Re-arms the members watch. */
static int read_members(struct zk_member *z, uint32_t *epoch, uint32_t *present)
{
	uint32_t hosts[256], n = 0;
	int rc = spate_zk_members(z->zk, hosts, 256, &n);

	*present = 0;
	if (rc != 0)
		return rc;
	int self = 0;
	for (uint32_t k = 0; k < n && k < 256; k++)
		self |= hosts[k] == z->h->host_id;
	if (!self && !__atomic_load_n(&z->fenced, __ATOMIC_ACQUIRE)) {
		/* our session lives and our node is gone: a peer deleted it,
		 * the cluster's decision that this incarnation is dead */
		fprintf(stderr,
			"spated: zookeeper: this host's member node (epoch %u) was deleted:"
			" the cluster found it dead; fenced, it stops\n",
			z->epoch);
		__atomic_store_n(&z->fenced, 1, __ATOMIC_RELEASE);
	}
	for (uint32_t i = 0; i < z->h->n_peers; i++) {
		epoch[i] = 0;
		for (uint32_t k = 0; k < n && k < 256; k++) {
			if (hosts[k] != z->h->peer[i].host)
				continue;
			char info[256];
			const char *e;
			if (spate_zk_member_info(z->zk, hosts[k], info, sizeof(info)) == 0 &&
			    (e = strstr(info, "epoch=")) != NULL)
				epoch[i] = (uint32_t)strtoul(e + 6, NULL, 10);
		}
		*present += epoch[i] != 0;
	}
	return 0;
}

static int publish(struct zk_member *z, uint32_t *present)
{
	uint32_t host[SPATED_PEERS_MAX], epoch[SPATED_PEERS_MAX];
	int rc = read_members(z, epoch, present);

	if (rc != 0)
		return rc;
	for (uint32_t i = 0; i < z->h->n_peers; i++)
		host[i] = z->h->peer[i].host;
	host_view_publish(z->view, host, epoch, z->h->n_peers);
	return 0;
}

static int session_join(struct zk_member *z, int new_epoch, uint64_t give_up, char *err,
			size_t errlen);

static int is_front_peer(const struct zk_member *z, uint32_t host)
{
	for (uint32_t i = 0; i < z->h->n_peers; i++)
		if (z->h->peer[i].host == host)
			return z->h->peer[i].lcores == 0;
	return 0;
}

/* Fronts: the service map to the link (which serves what it owns). */
static int read_services(struct zk_member *z)
{
	uint32_t id[SPATED_PEERS_MAX + 1], owner[SPATED_PEERS_MAX + 1], n = 0;

	if (z->h->role != SPATED_ROLE_FRONT)
		return 0;
	int rc = spate_zk_services(z->zk, id, owner, SPATED_PEERS_MAX + 1, &n);
	if (rc == 0) {
		host_view_publish_svc(z->view, id, owner, n);
		z->serves = 0;
		for (uint32_t i = 0; i < n; i++)
			z->serves += owner[i] == z->h->host_id;
	}
	return rc;
}

/* Front `host`, incarnation `epoch`, is fenced: if the link holds a
 * complete copy of it, its services become ours. Claimed in id order and
 * given up at the first lost claim, so two fronts never split one dead
 * front's services (its subscriptions are not split by service). */
static void claim_services(struct zk_member *z, uint32_t host, uint32_t epoch)
{
	uint32_t id[SPATED_PEERS_MAX + 1], owner[SPATED_PEERS_MAX + 1], n = 0, got = 0;

	if (z->h->role != SPATED_ROLE_FRONT || !is_front_peer(z, host))
		return;
	if (host_view_copy_epoch(z->view, host) != epoch) {
		fprintf(stderr,
			"spated: zookeeper: front %u (epoch %u) fenced; no complete copy of it"
			" here: its services wait for it\n",
			host, epoch);
		return;
	}
	if (spate_zk_services(z->zk, id, owner, SPATED_PEERS_MAX + 1, &n) != 0)
		return;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = i + 1; k < n; k++)
			if (id[k] < id[i]) {
				uint32_t a = id[i], b = owner[i];
				id[i] = id[k], owner[i] = owner[k];
				id[k] = a, owner[k] = b;
			}
	for (uint32_t i = 0; i < n; i++) {
		if (owner[i] != host)
			continue;
		int rc = spate_zk_service_claim(z->zk, id[i], host, z->h->host_id);
		if (rc != 0) {
			fprintf(stderr, "spated: zookeeper: service %u of front %u: %s\n", id[i],
				host,
				rc == SPATE_ZK_CONFLICT ? "another front took it"
							: spate_zk_error(rc));
			break;
		}
		got++;
	}
	if (got > 0)
		fprintf(stderr, "spated: zookeeper: front %u's services (%u) are ours now\n", host,
			got);
	read_services(z);
}

/* The fences the link asked for, carried out while ZooKeeper answers
 * (a lost connection leaves them for the next round). */
static void run_fences(struct zk_member *z)
{
	uint32_t host[SPATED_PEERS_MAX], epoch[SPATED_PEERS_MAX];
	uint32_t n = host_view_take_fences(z->view, &z->fence_seen, host, epoch);

	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;
		while (k < z->n_fence && z->fence_host[k] != host[i])
			k++;
		if (k == SPATED_PEERS_MAX)
			continue;
		z->fence_host[k] = host[i];
		z->fence_epoch[k] = epoch[i];
		if (k == z->n_fence)
			z->n_fence++;
	}
	for (uint32_t k = 0; k < z->n_fence;) {
		int rc = spate_zk_fence(z->zk, z->fence_host[k], z->fence_epoch[k]);
		if (rc != 0) {
			k++;
			continue;
		}
		fprintf(stderr,
			"spated: zookeeper: host %u epoch %u fenced (its member node is gone)\n",
			z->fence_host[k], z->fence_epoch[k]);
		__atomic_add_fetch(&z->fences, 1, __ATOMIC_RELAXED);
		claim_services(z, z->fence_host[k], z->fence_epoch[k]);
		z->n_fence--;
		z->fence_host[k] = z->fence_host[z->n_fence];
		z->fence_epoch[k] = z->fence_epoch[z->n_fence];
	}
}

/* Say when ZooKeeper is lost and found again: while it is away the
 * data plane goes on (heartbeats still find the dead, their fences wait
 * for it), and whether the session survived tells the operator whether
 * this host had to join again. */
static void watch_connection(struct zk_member *z)
{
	int up = spate_zk_connected(z->zk);

	if (up == z->connected)
		return;
	z->connected = up;
	if (!up) {
		z->lost_at = now_ms();
		fprintf(stderr,
			"spated: zookeeper: connection lost: matching goes on; a host found"
			" dead meanwhile is failed over at once and fenced when it is back\n");
	} else {
		fprintf(stderr, "spated: zookeeper: reached again after %llu ms: session kept\n",
			(unsigned long long)(now_ms() - z->lost_at));
	}
}

static void *watch(void *arg)
{
	struct zk_member *z = arg;
	struct timespec nap = { 0, WATCH_EVERY_MS * 1000000L };
	char err[256];

	int again = 0;

	while (!__atomic_load_n(&z->stop, __ATOMIC_ACQUIRE)) {
		unsigned ev = spate_zk_events(z->zk);
		if (ev & SPATE_ZK_EXPIRED) {
			/* ZooKeeper lost us (a frozen server, a long pause, a broken
			 * management link): not the cluster's decision that we are
			 * dead. Peers that still hear us wait for us to join again
			 * under the same epoch; one that found us dead has fenced
			 * this epoch, and will delete our node again (then we stop). */
			fprintf(stderr,
				"spated: zookeeper: session expired: joining again as epoch %u\n",
				z->epoch);
			if (z->connected)
				z->lost_at = now_ms(); /* the loss itself went unseen */
			spate_zk_close(z->zk);
			z->zk = NULL;
			if (session_join(z, 0, 0, err, sizeof(err)) != 0)
				break; /* asked to stop */
			__atomic_add_fetch(&z->rejoins, 1, __ATOMIC_RELAXED);
			fprintf(stderr,
				"spated: zookeeper: host %u joined again (epoch %u) %llu ms after"
				" the connection was lost\n",
				z->h->host_id, z->epoch,
				(unsigned long long)(now_ms() - z->lost_at));
			z->connected = 1;
			again = 1;
			ev |= SPATE_ZK_MAP;
		}

		watch_connection(z);
		uint32_t present, n;
		int32_t version;
		int offered;
		pthread_mutex_lock(&z->map_mu);
		offered = z->offered;
		pthread_mutex_unlock(&z->map_mu);
		if (offered && z->h->role == SPATED_ROLE_FRONT)
			map_write(z); /* a conflict or a lost connection: next round */
		else if (ev & SPATE_ZK_MAP)
			map_read(z, &n, &version);
		if (ev & SPATE_ZK_SERVICES)
			read_services(z);
		if ((ev & SPATE_ZK_MEMBERS) || again) {
			if (again)
				read_services(z);
			int rc = publish(z, &present);
			/* disconnected for a moment: read again next round */
			if (rc != 0 && !again)
				fprintf(stderr, "spated: zookeeper: members: %s\n",
					spate_zk_error(rc));
			again = rc != 0;
		}
		run_fences(z);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

static void free_map(struct zk_member *z)
{
	free(z->offer);
	free(z->last);
	free(z->tmp);
	free(z->tmp2);
	free(z->map_buf);
}

/* At start, after joining: the peers (waited for zk_wait_ms at most:
 * late ones are down until they join) and, on a front, its own service
 * (ours unless another front took it over) and the service map. 0 or a
 * ZooKeeper error. */
static int start_reads(struct zk_member *z, uint32_t *present)
{
	uint64_t until = now_ms() + z->h->zk_wait_ms;
	int rc;

	while ((rc = publish(z, present)) == 0 && *present < z->h->n_peers && now_ms() < until)
		usleep(50000);
	if (rc != 0)
		return rc;
	spate_zk_events(z->zk); /* what the waiting saw is published */
	if ((rc = publish(z, present)) != 0)
		return rc;
	if (z->h->role != SPATED_ROLE_FRONT)
		return 0;
	if ((rc = spate_zk_service_create(z->zk, z->h->host_id, z->h->host_id)) != 0)
		return rc;
	return read_services(z);
}

/* Register as a member under z->epoch. A predecessor killed a moment
 * ago holds the id until its session expires: wait for that, three
 * session timeouts at most; a node still there after it belongs to a
 * live session: another host runs with this host_id. 0, a ZooKeeper
 * error, or 1 (that duplicate: err says so). */
static int join(struct zk_member *z, struct spate_zk *zk, char *err, size_t errlen)
{
	const struct host_conf *h = z->h;
	char info[300];
	uint64_t until = now_ms() + 3ull * h->zk_session_ms + 1000;
	int rc, said = 0;

	snprintf(info, sizeof(info), "%s%u", z->info, z->epoch);
	while ((rc = spate_zk_join(zk, h->host_id, info)) == SPATE_ZK_EXISTS) {
		if (now_ms() >= until) {
			char other[256];
			if (spate_zk_member_info(zk, h->host_id, other, sizeof(other)) != 0)
				other[0] = '\0';
			snprintf(err, errlen,
				 "spated: zookeeper: host id %u is taken by a live member"
				 " (\"%s\"): is another host configured with host_id %u?",
				 h->host_id, other, h->host_id);
			return 1;
		}
		if (!said++)
			fprintf(stderr,
				"spated: zookeeper: host %u is still a member (a previous run's"
				" session): waiting for it to expire\n",
				h->host_id);
		usleep(100000);
	}
	if (rc != 0)
		snprintf(err, errlen, "spated: zookeeper %s: join as host %u: %s", h->zookeeper,
			 h->host_id, spate_zk_error(rc));
	return rc;
}

/* A session, then (new_epoch: a new epoch and) the member node. Hosts
 * and ZooKeeper start in any order and a loaded server answers late:
 * tried again until it works, until give_up (ms; 0: until asked to
 * stop), each try waiting two session timeouts. 0, or -1 (err). */
static int session_join(struct zk_member *z, int new_epoch, uint64_t give_up, char *err,
			size_t errlen)
{
	const struct host_conf *h = z->h;
	int tries = 0;

	for (;;) {
		if (__atomic_load_n(&z->stop, __ATOMIC_ACQUIRE))
			return -1;
		int wait = (int)(2 * h->zk_session_ms > 2000 ? 2 * h->zk_session_ms : 2000);
		struct spate_zk *zk =
			spate_zk_open(h->zookeeper, h->zk_root, (int)h->zk_session_ms, wait,
				      h->keys.zk_digest[0] ? h->keys.zk_digest : NULL, err, errlen);
		if (zk != NULL) {
			int rc = new_epoch ? spate_zk_new_epoch(zk, h->host_id, &z->epoch) : 0;
			if (rc != 0)
				snprintf(err, errlen, "spated: zookeeper %s: new epoch: %s",
					 h->zookeeper, spate_zk_error(rc));
			else
				new_epoch = 0, rc = join(z, zk, err, errlen);
			if (rc == 0) {
				z->zk = zk;
				return 0;
			}
			spate_zk_close(zk);
			if (rc == 1)
				return -1; /* a duplicate host id: trying again will not help */
		}
		if (give_up != 0 && now_ms() >= give_up)
			return -1;
		if (tries++ % 10 == 0)
			fprintf(stderr, "spated: zookeeper %s: %s; trying again\n", h->zookeeper,
				err);
		usleep(200000);
	}
}

struct zk_member *zk_member_start(const struct host_conf *h, uint32_t ipv4, uint32_t lcores,
				  struct host_view *view, uint32_t *epoch, char *err, size_t errlen)
{
	struct zk_member *z = calloc(1, sizeof(*z));
	int rc;

	if (z == NULL) {
		snprintf(err, errlen, "spated: zookeeper: no memory");
		return NULL;
	}
	z->h = h;
	z->view = view;
	pthread_mutex_init(&z->map_mu, NULL);
	z->offer = calloc(MAP_MAX_ENTRIES, sizeof(*z->offer));
	z->last = calloc(MAP_MAX_ENTRIES, sizeof(*z->last));
	z->tmp = calloc(MAP_MAX_ENTRIES, sizeof(*z->tmp));
	z->tmp2 = calloc(MAP_MAX_ENTRIES, sizeof(*z->tmp2));
	z->map_buf = malloc(MAP_BYTES);
	if (!z->offer || !z->last || !z->tmp || !z->tmp2 || !z->map_buf) {
		snprintf(err, errlen, "spated: zookeeper: no memory for the placement map");
		goto fail;
	}
	z->rank = host_conf_front_rank(h, h->host_id);
	for (uint32_t i = 0; i < h->n_peers; i++)
		for (uint32_t l = 0; l < h->peer[i].lcores && z->n_workers < SPATED_MATCH_MAX;
		     l++) {
			z->w_host[z->n_workers] = h->peer[i].host;
			z->w_lcore[z->n_workers++] = l;
		}
	snprintf(z->info, sizeof(z->info),
		 "role=%s ipv4=%u.%u.%u.%u lcores=%u epoch=", host_conf_role_name(h->role),
		 ipv4 >> 24, (ipv4 >> 16) & 0xff, (ipv4 >> 8) & 0xff, ipv4 & 0xff, lcores);
	uint64_t give_up = now_ms() + ZK_START_MS;
	if (session_join(z, 1, give_up, err, errlen) != 0)
		goto fail;
	*epoch = z->epoch;
	/* what the start needs to read: a loaded server answers late, or the
	 * session is lost meanwhile: tried again until give_up */
	uint32_t present = 0;
	int tries = 0;
	while ((rc = start_reads(z, &present)) != 0) {
		if (now_ms() >= give_up) {
			snprintf(err, errlen, "spated: zookeeper %s: %s", h->zookeeper,
				 spate_zk_error(rc));
			goto fail;
		}
		if (tries++ % 10 == 0)
			fprintf(stderr, "spated: zookeeper %s: %s at start; trying again\n",
				h->zookeeper, spate_zk_error(rc));
		if (rc == SPATE_ZK_GONE || (spate_zk_events(z->zk) & SPATE_ZK_EXPIRED)) {
			spate_zk_close(z->zk);
			z->zk = NULL;
			if (session_join(z, 0, give_up, err, errlen) != 0)
				goto fail;
		}
		usleep(200000);
	}
	if (h->role == SPATED_ROLE_FRONT)
		fprintf(stderr, "spated: zookeeper: front %u serves %u service(s)%s\n", h->host_id,
			z->serves, z->serves ? "" : ": a standby (another front took its service)");
	uint32_t n_map;
	int32_t v_map;
	map_read(z, &n_map, &v_map); /* and watch the placement map */
	fprintf(stderr, "spated: zookeeper: host %u epoch %u joined %s%s; %u of %u peers present\n",
		h->host_id, z->epoch, h->zookeeper, h->zk_root, present, h->n_peers);
	z->connected = 1;
	if (pthread_create(&z->thread, NULL, watch, z) != 0) {
		snprintf(err, errlen, "spated: zookeeper: cannot start the watch thread");
		goto fail;
	}
	return z;
fail:
	if (z->zk != NULL)
		spate_zk_close(z->zk);
	free_map(z);
	free(z);
	return NULL;
}

void zk_member_stop(struct zk_member *z)
{
	if (z == NULL)
		return;
	__atomic_store_n(&z->stop, 1, __ATOMIC_RELEASE);
	pthread_join(z->thread, NULL);
	spate_zk_close(z->zk);
	free_map(z);
	free(z);
}

int zk_member_fenced(const struct zk_member *z)
{
	return z != NULL && __atomic_load_n(&z->fenced, __ATOMIC_ACQUIRE);
}

int zk_member_serves(const struct zk_member *z)
{
	return z == NULL || z->serves > 0;
}

void zk_member_counts(const struct zk_member *z, uint64_t *rejoins, uint64_t *fences)
{
	*rejoins = z ? __atomic_load_n(&z->rejoins, __ATOMIC_RELAXED) : 0;
	*fences = z ? __atomic_load_n(&z->fences, __ATOMIC_RELAXED) : 0;
}

#endif
