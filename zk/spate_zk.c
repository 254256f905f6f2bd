/* spate_zk.c - membership, epochs, front election and the placement map
 * over the ZooKeeper C client (spate_zk.h). The client library runs its
 * own I/O and completion threads; its callbacks here only update the
 * connection state under a mutex or OR bits into an atomic word. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the synchronous API is the threaded library's */
#define THREADED 1
#include <zookeeper/zookeeper.h>

#include "spate_zk.h"

_Static_assert(SPATE_ZK_CONFLICT == ZBADVERSION, "ZBADVERSION");
_Static_assert(SPATE_ZK_EXISTS == ZNODEEXISTS, "ZNODEEXISTS");
_Static_assert(SPATE_ZK_NOAUTH == ZNOAUTH, "ZNOAUTH");
_Static_assert(SPATE_ZK_GONE == ZSESSIONEXPIRED, "ZSESSIONEXPIRED");

#define PATH_MAX_ZK 512

struct spate_zk {
	zhandle_t *zh;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state;       /* last session state seen (ZOO_*_STATE) */
	unsigned events; /* SPATE_ZK_* bits, atomic */
	char root[256];
	char front[PATH_MAX_ZK]; /* our election node, once entered */
	int auth_rc;             /* zoo_add_auth's answer; 1 = none yet (under mu) */
	struct ACL acl_entries[2];
	struct ACL_vector acl_mine; /* all for our credentials, read for anyone */
	struct ACL_vector *acl;     /* what nodes are made with */
};

/* ---- the client library's log, rate-limited ----
 *
 * During an outage the C client logs every reconnection attempt (several
 * lines a second). The first line is printed, then at most one a
 * LOG_EVERY_S: the latest line and how many were held back. The callback
 * has no context argument: one limiter per process (there is one session). */
#define LOG_EVERY_S 5

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static time_t log_last;
static unsigned long log_held;

static void on_log(const char *message)
{
	time_t now = time(NULL);
	size_t n = strlen(message);

	while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == '\r'))
		n--;
	pthread_mutex_lock(&log_mu);
	if (log_last != 0 && now - log_last < LOG_EVERY_S) {
		log_held++;
		pthread_mutex_unlock(&log_mu);
		return;
	}
	if (log_held)
		fprintf(stderr, "spated: zookeeper client: %.*s (and %lu more messages in %ld s)\n",
			(int)n, message, log_held, (long)(now - log_last));
	else
		fprintf(stderr, "spated: zookeeper client: %.*s\n", (int)n, message);
	log_last = now;
	log_held = 0;
	pthread_mutex_unlock(&log_mu);
}

static void set_bits(struct spate_zk *zk, unsigned bits)
{
	__atomic_fetch_or(&zk->events, bits, __ATOMIC_RELEASE);
}

unsigned spate_zk_events(struct spate_zk *zk)
{
	return __atomic_exchange_n(&zk->events, 0, __ATOMIC_ACQ_REL);
}

int spate_zk_connected(struct spate_zk *zk)
{
	pthread_mutex_lock(&zk->mu);
	int up = zk->state == ZOO_CONNECTED_STATE;
	pthread_mutex_unlock(&zk->mu);
	return up;
}

const char *spate_zk_error(int rc)
{
	return zerror(rc);
}

/* The session watcher: connection state changes. */
static void on_session(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
	struct spate_zk *zk = ctx;

	(void)zh, (void)path;
	if (type != ZOO_SESSION_EVENT)
		return;
	pthread_mutex_lock(&zk->mu);
	zk->state = state;
	pthread_cond_broadcast(&zk->cv);
	pthread_mutex_unlock(&zk->mu);
	if (state == ZOO_EXPIRED_SESSION_STATE)
		set_bits(zk, SPATE_ZK_EXPIRED);
}

/* Node watches: one per kind, so no path parsing is needed. A session
 * event delivered to a node watch (disconnection) re-arms nothing and
 * is left to on_session. */
static void on_members(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
	(void)zh, (void)state, (void)path;
	if (type != ZOO_SESSION_EVENT)
		set_bits(ctx, SPATE_ZK_MEMBERS);
}

static void on_leader(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
	(void)zh, (void)state, (void)path;
	if (type != ZOO_SESSION_EVENT)
		set_bits(ctx, SPATE_ZK_LEADER);
}

static void on_map(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
	(void)zh, (void)state, (void)path;
	if (type != ZOO_SESSION_EVENT)
		set_bits(ctx, SPATE_ZK_MAP);
}

static void on_services(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
	(void)zh, (void)state, (void)path;
	if (type != ZOO_SESSION_EVENT)
		set_bits(ctx, SPATE_ZK_SERVICES);
}

/* out (PATH_MAX_ZK bytes) = root + the formatted rest. The root is
 * short (checked at open) and the rests are ours, so nothing is cut. */
static void path_of(const struct spate_zk *zk, char *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void path_of(const struct spate_zk *zk, char *out, const char *fmt, ...)
{
	size_t n = strlen(zk->root);
	va_list ap;

	memcpy(out, zk->root, n + 1);
	va_start(ap, fmt);
	vsnprintf(out + n, PATH_MAX_ZK - n, fmt, ap);
	va_end(ap);
}

/* out = dir + "/" + name; ZBADARGUMENTS if it does not fit. */
static int join_path(char *out, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);

	if (a + 1 + b >= PATH_MAX_ZK)
		return ZBADARGUMENTS;
	memcpy(out, dir, a);
	out[a] = '/';
	memcpy(out + a + 1, name, b + 1);
	return ZOK;
}

/* Create path and its missing parents as persistent empty nodes. */
static int ensure(struct spate_zk *zk, const char *path)
{
	char part[PATH_MAX_ZK];
	size_t n = strlen(path);

	if (n >= sizeof(part))
		return ZBADARGUMENTS;
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(part, path, i);
		part[i] = '\0';
		int rc = zoo_create(zk->zh, part, NULL, -1, zk->acl, ZOO_PERSISTENT, NULL, 0);
		if (rc != ZOK && rc != ZNODEEXISTS)
			return rc;
	}
	return ZOK;
}

static int wait_connected(struct spate_zk *zk, int wait_ms)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += wait_ms / 1000;
	until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&zk->mu);
	while (zk->state != ZOO_CONNECTED_STATE && zk->state != ZOO_EXPIRED_SESSION_STATE &&
	       rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&zk->cv, &zk->mu, &until);
	int ok = zk->state == ZOO_CONNECTED_STATE;
	pthread_mutex_unlock(&zk->mu);
	return ok;
}

static void on_auth(int rc, const void *data)
{
	struct spate_zk *zk = (struct spate_zk *)data;

	pthread_mutex_lock(&zk->mu);
	zk->auth_rc = rc;
	pthread_cond_broadcast(&zk->cv);
	pthread_mutex_unlock(&zk->mu);
}

/* Authenticate the session with digest credentials: ZOK or why not. */
static int add_digest(struct spate_zk *zk, const char *digest, int wait_ms)
{
	struct timespec until;
	int rc;

	zk->auth_rc = 1;
	rc = zoo_add_auth(zk->zh, "digest", digest, (int)strlen(digest), on_auth, zk);
	if (rc != ZOK)
		return rc;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += wait_ms / 1000 + 1;
	pthread_mutex_lock(&zk->mu);
	while (zk->auth_rc == 1 && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&zk->cv, &zk->mu, &until);
	rc = zk->auth_rc == 1 ? ZOPERATIONTIMEOUT : zk->auth_rc;
	pthread_mutex_unlock(&zk->mu);
	return rc;
}

struct spate_zk *spate_zk_open(const char *servers, const char *root, int session_ms, int wait_ms,
			       const char *digest, char *err, size_t errlen)
{
	static const char *const dirs[] = { "",       "/hosts",     "/epochs",
					    "/front", "/placement", "/services" };
	struct spate_zk *zk;

	if (root[0] != '/' || strlen(root) >= sizeof(zk->root) || root[strlen(root) - 1] == '/') {
		snprintf(err, errlen, "zookeeper root '%s' must be an absolute path", root);
		return NULL;
	}
	zk = calloc(1, sizeof(*zk));
	if (!zk) {
		snprintf(err, errlen, "no memory");
		return NULL;
	}
	pthread_mutex_init(&zk->mu, NULL);
	pthread_cond_init(&zk->cv, NULL);
	snprintf(zk->root, sizeof(zk->root), "%s", root);
	/* ours: everything for the holders of the credentials (every host of
	 * the cluster), reading for anyone (zkCli get for operators) */
	zk->acl_entries[0] = (struct ACL){ ZOO_PERM_ALL, { "auth", "" } };
	zk->acl_entries[1] = (struct ACL){ ZOO_PERM_READ, { "world", "anyone" } };
	zk->acl_mine = (struct ACL_vector){ 2, zk->acl_entries };
	zk->acl = digest ? &zk->acl_mine : &ZOO_OPEN_ACL_UNSAFE;
	zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
	zk->zh = zookeeper_init2(servers, on_session, session_ms, NULL, zk, 0, on_log);
	if (!zk->zh) {
		snprintf(err, errlen, "zookeeper_init(%s): %s", servers, strerror(errno));
		goto fail;
	}
	if (!wait_connected(zk, wait_ms)) {
		snprintf(err, errlen, "no ZooKeeper session with %s within %d ms", servers,
			 wait_ms);
		goto fail;
	}
	int rc = digest ? add_digest(zk, digest, wait_ms) : ZOK;
	if (rc != ZOK) {
		snprintf(err, errlen,
			 "ZooKeeper %s refused the key file's zk_digest credentials: %s", servers,
			 zerror(rc));
		goto fail;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char p[PATH_MAX_ZK];
		path_of(zk, p, "%s", dirs[i]);
		rc = ensure(zk, p);
		/* a layout made open by an older spated: ours from now on (an
		 * ACL of other credentials is refused: ZNOAUTH) */
		if (rc == ZOK && digest)
			rc = zoo_set_acl(zk->zh, p, -1, zk->acl);
		if (rc != ZOK) {
			snprintf(err, errlen, "%s %s: %s%s", i ? "create" : "take", p, zerror(rc),
				 rc == ZNOAUTH
					 ? " (the node belongs to other ZooKeeper credentials: "
					   "another cluster's zk_digest?)"
					 : "");
			goto fail;
		}
	}
	return zk;
fail:
	spate_zk_close(zk);
	return NULL;
}

void spate_zk_close(struct spate_zk *zk)
{
	if (!zk)
		return;
	if (zk->zh)
		zookeeper_close(zk->zh);
	pthread_cond_destroy(&zk->cv);
	pthread_mutex_destroy(&zk->mu);
	free(zk);
}

/* The 10-digit counter ZooKeeper appends to a sequential node's name. */
static int seq_of(const char *name, uint32_t *seq)
{
	size_t n = strlen(name);
	char *end;

	if (n < 10)
		return -1;
	errno = 0;
	unsigned long v = strtoul(name + n - 10, &end, 10);
	if (errno || *end || v > INT32_MAX)
		return -1;
	*seq = (uint32_t)v;
	return 0;
}

int spate_zk_new_epoch(struct spate_zk *zk, uint32_t host, uint32_t *epoch)
{
	char dir[PATH_MAX_ZK], node[PATH_MAX_ZK], made[PATH_MAX_ZK];
	struct String_vector kids = { 0, NULL };
	uint32_t seq;
	int rc;

	path_of(zk, dir, "/epochs/%" PRIu32, host);
	if ((rc = ensure(zk, dir)) != ZOK)
		return rc;
	if ((rc = join_path(node, dir, "e-")) != ZOK)
		return rc;
	rc = zoo_create(zk->zh, node, NULL, -1, zk->acl, ZOO_PERSISTENT_SEQUENTIAL, made,
			sizeof(made));
	if (rc != ZOK)
		return rc;
	if (seq_of(made, &seq))
		return ZAPIERROR;
	*epoch = seq + 1; /* never 0 */
	/* Older epochs are history: drop them (failures only leave litter). */
	if (zoo_get_children(zk->zh, dir, 0, &kids) == ZOK) {
		for (int32_t i = 0; i < kids.count; i++) {
			uint32_t s;
			if (seq_of(kids.data[i], &s) == 0 && s < seq &&
			    join_path(node, dir, kids.data[i]) == ZOK)
				zoo_delete(zk->zh, node, -1);
		}
		deallocate_String_vector(&kids);
	}
	return ZOK;
}

int spate_zk_join(struct spate_zk *zk, uint32_t host, const char *info)
{
	char p[PATH_MAX_ZK];

	path_of(zk, p, "/hosts/%" PRIu32, host);
	return zoo_create(zk->zh, p, info, (int)strlen(info), zk->acl, ZOO_EPHEMERAL, NULL, 0);
}

int spate_zk_fence(struct spate_zk *zk, uint32_t host, uint32_t epoch)
{
	char p[PATH_MAX_ZK], buf[256];
	int len = (int)sizeof(buf) - 1;
	struct Stat st;

	path_of(zk, p, "/hosts/%" PRIu32, host);
	int rc = zoo_get(zk->zh, p, 0, buf, &len, &st);
	if (rc == ZNONODE)
		return ZOK;
	if (rc != ZOK)
		return rc;
	buf[len > 0 ? len : 0] = '\0';
	const char *e = strstr(buf, "epoch=");
	if (e == NULL || strtoul(e + 6, NULL, 10) != epoch)
		return ZOK;
	rc = zoo_delete(zk->zh, p, st.version);
	return rc == ZNONODE || rc == ZBADVERSION ? ZOK : rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int spate_zk_members(struct spate_zk *zk, uint32_t *hosts, uint32_t cap, uint32_t *n)
{
	char p[PATH_MAX_ZK];
	struct String_vector kids = { 0, NULL };
	int rc;

	path_of(zk, p, "/hosts");
	if ((rc = zoo_wget_children(zk->zh, p, on_members, zk, &kids)) != ZOK)
		return rc;
	uint32_t k = 0;
	for (int32_t i = 0; i < kids.count; i++) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(kids.data[i], &end, 10);
		/* a node that is not a host id is someone else's: skip it */
		if (errno || *end || v == 0 || v > UINT32_MAX || kids.data[i][0] == '0')
			continue;
		if (k < cap)
			hosts[k] = (uint32_t)v;
		k++;
	}
	deallocate_String_vector(&kids);
	qsort(hosts, k < cap ? k : cap, sizeof(*hosts), cmp_u32);
	*n = k;
	return ZOK;
}

int spate_zk_member_info(struct spate_zk *zk, uint32_t host, char *buf, size_t cap)
{
	char p[PATH_MAX_ZK];
	int len = cap > 1 ? (int)(cap - 1) : 0;

	if (cap == 0)
		return ZBADARGUMENTS;
	path_of(zk, p, "/hosts/%" PRIu32, host);
	int rc = zoo_get(zk->zh, p, 0, buf, &len, NULL);
	buf[rc == ZOK && len > 0 ? len : 0] = '\0';
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int spate_zk_elect(struct spate_zk *zk, uint32_t host, int *leader)
{
	char dir[PATH_MAX_ZK], p[PATH_MAX_ZK];
	int rc;

	path_of(zk, dir, "/front");
	if (!zk->front[0]) {
		char id[16];
		if ((rc = join_path(p, dir, "n-")) != ZOK)
			return rc;
		snprintf(id, sizeof(id), "%" PRIu32, host);
		rc = zoo_create(zk->zh, p, id, (int)strlen(id), zk->acl, ZOO_EPHEMERAL_SEQUENTIAL,
				zk->front, sizeof(zk->front));
		if (rc != ZOK) {
			zk->front[0] = '\0';
			return rc;
		}
	}
	const char *mine = strrchr(zk->front, '/') + 1;
	/* Until a predecessor is watched (it may vanish between the listing
	 * and the watch: then list again). Bounded: each pass sees one
	 * predecessor fewer or returns. */
	for (;;) {
		struct String_vector kids = { 0, NULL };
		if ((rc = zoo_get_children(zk->zh, dir, 0, &kids)) != ZOK)
			return rc;
		qsort(kids.data, (size_t)kids.count, sizeof(char *), cmp_str);
		const char *before = NULL;
		int found = 0;
		for (int32_t i = 0; i < kids.count; i++) {
			if (strcmp(kids.data[i], mine) == 0) {
				found = 1;
				break;
			}
			before = kids.data[i];
		}
		if (!found) { /* our node is gone: the session was lost */
			deallocate_String_vector(&kids);
			zk->front[0] = '\0';
			return ZNONODE;
		}
		if (!before) {
			deallocate_String_vector(&kids);
			*leader = 1;
			return ZOK;
		}
		rc = join_path(p, dir, before);
		deallocate_String_vector(&kids);
		if (rc != ZOK)
			return rc;
		rc = zoo_wexists(zk->zh, p, on_leader, zk, NULL);
		if (rc == ZOK) {
			*leader = 0;
			return ZOK;
		}
		if (rc != ZNONODE)
			return rc;
	}
}

/* "owner=N" of a service node; 0 if it says nothing else. */
static uint32_t owner_of(const char *buf, int len)
{
	char s[64];

	if (len <= 0 || len >= (int)sizeof(s))
		return 0;
	memcpy(s, buf, (size_t)len);
	s[len] = '\0';
	return strncmp(s, "owner=", 6) == 0 ? (uint32_t)strtoul(s + 6, NULL, 10) : 0;
}

int spate_zk_services(struct spate_zk *zk, uint32_t *id, uint32_t *owner, uint32_t cap, uint32_t *n)
{
	char dir[PATH_MAX_ZK], p[PATH_MAX_ZK], buf[64];
	struct String_vector kids = { 0, NULL };
	int rc;

	path_of(zk, dir, "/services");
	if ((rc = zoo_wget_children(zk->zh, dir, on_services, zk, &kids)) != ZOK)
		return rc;
	uint32_t k = 0;
	for (int32_t i = 0; i < kids.count && rc == ZOK; i++) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(kids.data[i], &end, 10);
		if (errno || *end || v == 0 || v > UINT32_MAX ||
		    join_path(p, dir, kids.data[i]) != ZOK)
			continue;
		int len = (int)sizeof(buf);
		rc = zoo_wget(zk->zh, p, on_services, zk, buf, &len, NULL);
		if (rc == ZNONODE) {
			rc = ZOK;
			continue;
		}
		if (rc == ZOK && k < cap) {
			id[k] = (uint32_t)v;
			owner[k] = owner_of(buf, len);
			k++;
		}
	}
	deallocate_String_vector(&kids);
	*n = k;
	return rc;
}

int spate_zk_service_create(struct spate_zk *zk, uint32_t id, uint32_t owner)
{
	char p[PATH_MAX_ZK], data[32];

	path_of(zk, p, "/services/%" PRIu32, id);
	snprintf(data, sizeof(data), "owner=%" PRIu32, owner);
	int rc = zoo_create(zk->zh, p, data, (int)strlen(data), zk->acl, ZOO_PERSISTENT, NULL, 0);
	return rc == ZNODEEXISTS ? ZOK : rc;
}

int spate_zk_service_claim(struct spate_zk *zk, uint32_t id, uint32_t from, uint32_t to)
{
	char p[PATH_MAX_ZK], buf[64], data[32];
	int len = (int)sizeof(buf);
	struct Stat st;

	path_of(zk, p, "/services/%" PRIu32, id);
	int rc = zoo_get(zk->zh, p, 0, buf, &len, &st);
	if (rc != ZOK)
		return rc;
	if (owner_of(buf, len) != from)
		return ZBADVERSION;
	snprintf(data, sizeof(data), "owner=%" PRIu32, to);
	return zoo_set(zk->zh, p, data, (int)strlen(data), st.version);
}

int spate_zk_map_get(struct spate_zk *zk, void *buf, size_t cap, size_t *len, int32_t *version)
{
	char p[PATH_MAX_ZK];
	struct Stat st;
	int n = cap > INT32_MAX ? INT32_MAX : (int)cap;

	path_of(zk, p, "/placement");
	int rc = zoo_wget(zk->zh, p, on_map, zk, buf, &n, &st);
	if (rc != ZOK)
		return rc;
	if ((size_t)st.dataLength > cap)
		return ZMARSHALLINGERROR; /* the map is larger than the buffer */
	*len = n < 0 ? 0 : (size_t)n;
	*version = st.version;
	return ZOK;
}

int spate_zk_map_set(struct spate_zk *zk, const void *buf, size_t len, int32_t expected,
		     int32_t *version)
{
	char p[PATH_MAX_ZK];
	struct Stat st;

	if (len > INT32_MAX)
		return ZBADARGUMENTS;
	path_of(zk, p, "/placement");
	int rc = zoo_set2(zk->zh, p, buf, (int)len, expected, &st);
	if (rc == ZOK)
		*version = st.version;
	return rc;
}
