/* test_zk.c - zk/spate_zk against a real ZooKeeper server (started by
 * run-zk.sh on 127.0.0.1 with a private port and data dir).
 *
 * usage: test_zk HOST:PORT
 *  - epochs grow and are never reused, even across sessions;
 *  - membership: joins are seen, a duplicate host id is refused, a
 *    closed session's node goes at once, and a host that dies without
 *    closing (a child process killed with SIGKILL) is dropped when its
 *    session expires: the failover signal, measured;
 *  - election: the first front leads, the second waits and takes over
 *    when the first goes;
 *  - placement map: versioned compare-and-set, a stale writer refused,
 *    watchers told of every write, the bytes decode;
 *  - ACLs: the nodes belong to the digest credentials: a client without
 *    them reads but cannot delete a member, make one or write the map,
 *    and spated with other credentials cannot take the layout; with them
 *    an operator can.
 *
 * Waits: every wait is for a condition (an event bit, a member gone, a
 * session up), bounded by a deadline on the monotonic clock. The
 * deadlines (and the sessions' timeouts) scale with how slow the server
 * was observed to be: `slow` is the first session's set-up time over a
 * quiet machine's, at least 1. On a loaded machine the test takes longer
 * instead of failing, and a hang still ends at a deadline with the check
 * that waited named. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREADED 1 /* the synchronous API of libzookeeper_mt */
#include <zookeeper/zookeeper.h>

#include "../unit/check.h"
#include "peer/spate_peer_map.h"
#include "spate_zk.h"

static const char *servers;
static char root[64];
static const char *digest = "spate:test-secret";
/* How many times slower than a quiet machine the server answers
 * (main(): measured on the first session's set-up, 1..SLOW_MAX). */
static double slow = 1;
#define QUIET_OPEN_S 0.025 /* a warm server: a session and its layout, quiet 2-core VM */
#define SLOW_MAX 40.0

/* A bound of base_ms on a quiet machine, in ms, scaled by slow. */
static int scaled_ms(int base_ms)
{
	return (int)(base_ms * slow);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* session_ms: the timeout on a quiet machine (scaled: a slow server
 * must not expire a session that is alive). */
static struct spate_zk *open_zk(int session_ms)
{
	char err[256];
	struct spate_zk *zk = spate_zk_open(servers, root, scaled_ms(session_ms), scaled_ms(20000),
					    digest, err, sizeof(err));
	if (!zk)
		fprintf(stderr, "test_zk: %s\n", err);
	return zk;
}

/* Wait until zk reports bit, at most ms (quiet-machine ms, scaled) by
 * the clock; the other bits are kept in *seen. 1 if it came. */
static int wait_bit(struct spate_zk *zk, unsigned *seen, unsigned bit, int ms)
{
	double until = now_s() + scaled_ms(ms) / 1000.0;

	for (;;) {
		*seen |= spate_zk_events(zk);
		if (*seen & bit) {
			*seen &= ~bit;
			return 1;
		}
		if (now_s() > until)
			return 0;
		usleep(10000);
	}
}

static int has_member(struct spate_zk *zk, uint32_t host)
{
	uint32_t ids[16], n = 0;
	if (spate_zk_members(zk, ids, 16, &n) != 0)
		return -1;
	for (uint32_t i = 0; i < n && i < 16; i++)
		if (ids[i] == host)
			return 1;
	return 0;
}

static void test_epochs(struct spate_zk *a)
{
	uint32_t e1 = 0, e2 = 0, e3 = 0;

	CHECK_EQ_INT(spate_zk_new_epoch(a, 1, &e1), 0);
	CHECK_EQ_INT(spate_zk_new_epoch(a, 1, &e2), 0);
	CHECK(e1 > 0 && e2 > e1);
	struct spate_zk *b = open_zk(4000);
	CHECK(b != NULL);
	if (b) {
		CHECK_EQ_INT(spate_zk_new_epoch(b, 1, &e3), 0);
		CHECK(e3 > e2);
		spate_zk_close(b);
	}
}

static void test_members(struct spate_zk *a)
{
	unsigned seen = 0;
	char info[64];

	CHECK_EQ_INT(spate_zk_join(a, 1, "role=front epoch=1"), 0);
	CHECK_EQ_INT(has_member(a, 1), 1); /* arms the watch */
	struct spate_zk *b = open_zk(4000);
	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_EQ_INT(spate_zk_join(b, 2, "role=match ipv4=127.0.0.2 port=47110"), 0);
	CHECK(wait_bit(a, &seen, SPATE_ZK_MEMBERS, 5000));
	CHECK_EQ_INT(has_member(a, 2), 1);
	CHECK_EQ_INT(spate_zk_member_info(a, 2, info, sizeof(info)), 0);
	CHECK(strcmp(info, "role=match ipv4=127.0.0.2 port=47110") == 0);
	CHECK_EQ_INT(spate_zk_join(a, 2, "again"), SPATE_ZK_EXISTS);
	spate_zk_close(b);
	CHECK(wait_bit(a, &seen, SPATE_ZK_MEMBERS, 5000));
	CHECK_EQ_INT(has_member(a, 2), 0);

	/* a host that dies without a word: its session must expire. The
	 * member is a fresh process (fork, then exec of this test in
	 * "member" mode): a forked copy of a process with ZooKeeper's
	 * threads could inherit a lock one of them held (getaddrinfo's,
	 * seen hanging the child forever). */
	int pipefd[2];
	CHECK_EQ_INT(pipe(pipefd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char fd[16], slow_s[32];
		snprintf(fd, sizeof(fd), "%d", pipefd[1]);
		snprintf(slow_s, sizeof(slow_s), "%.3f", slow);
		close(pipefd[0]);
		execl("/proc/self/exe", "test_zk", "--member", servers, root, slow_s, fd,
		      (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	char ok = 0;
	struct pollfd pf = { pipefd[0], POLLIN, 0 };
	CHECK(pid > 0 && poll(&pf, 1, scaled_ms(30000)) == 1 && read(pipefd[0], &ok, 1) == 1 &&
	      ok == 1);
	close(pipefd[0]);
	CHECK_EQ_INT(has_member(a, 3), 1);
	double t0 = now_s();
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	int gone = 0;
	while (!gone && now_s() - t0 < scaled_ms(15000) / 1000.0) {
		if (wait_bit(a, &seen, SPATE_ZK_MEMBERS, 1000))
			gone = has_member(a, 3) == 0;
	}
	CHECK(gone);
	printf("test_zk: a killed member (session timeout %d ms) left the membership after %.2f "
	       "s\n",
	       scaled_ms(1000), now_s() - t0);
}

static void test_election(void)
{
	struct spate_zk *f1 = open_zk(4000), *f2 = open_zk(4000);
	unsigned seen = 0;
	int l1 = -1, l2 = -1;

	CHECK(f1 && f2);
	if (!f1 || !f2)
		goto out;
	CHECK_EQ_INT(spate_zk_elect(f1, 10, &l1), 0);
	CHECK_EQ_INT(spate_zk_elect(f2, 11, &l2), 0);
	CHECK(l1 == 1 && l2 == 0);
	/* asking again changes nothing */
	CHECK_EQ_INT(spate_zk_elect(f2, 11, &l2), 0);
	CHECK_EQ_INT(l2, 0);
	spate_zk_close(f1);
	f1 = NULL;
	CHECK(wait_bit(f2, &seen, SPATE_ZK_LEADER, 5000));
	CHECK_EQ_INT(spate_zk_elect(f2, 11, &l2), 0);
	CHECK_EQ_INT(l2, 1);
out:
	spate_zk_close(f1);
	spate_zk_close(f2);
}

static void test_map(struct spate_zk *a)
{
	struct spate_zk *b = open_zk(4000);
	struct spate_peer_place e[3] = { { 1, 2, 0 }, { 5, 3, 1 }, { 9, 2, 3 } }, d[3];
	uint8_t buf[256], got[256];
	size_t len, glen = 0;
	int32_t v0 = -1, v1 = -1, v2 = -1, vb = -1;
	unsigned seen = 0;
	uint32_t n = 0;

	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_EQ_INT(spate_zk_map_get(b, got, sizeof(got), &glen, &v0), 0);
	CHECK_EQ_INT(glen, 0); /* made empty by open */
	len = spate_peer_map_encode(buf, sizeof(buf), e, 3);
	CHECK_EQ_INT(spate_zk_map_set(a, buf, len, v0, &v1), 0);
	CHECK_EQ_INT(v1, v0 + 1);
	CHECK(wait_bit(b, &seen, SPATE_ZK_MAP, 5000));
	CHECK_EQ_INT(spate_zk_map_get(b, got, sizeof(got), &glen, &vb), 0);
	CHECK_EQ_INT(vb, v1);
	CHECK(glen == len && memcmp(got, buf, len) == 0);
	CHECK_EQ_INT(spate_peer_map_decode(got, glen, d, 3, &n), 0);
	CHECK(n == 3 && d[1].cat == 5 && d[1].host == 3 && d[1].lcore == 1);
	/* a writer that still believes in v0 (a deposed leader) is refused */
	CHECK_EQ_INT(spate_zk_map_set(b, buf, 8, v0, &v2), SPATE_ZK_CONFLICT);
	/* the next write of the leader is seen too (the watch was re-armed) */
	e[1].host = 4;
	len = spate_peer_map_encode(buf, sizeof(buf), e, 3);
	CHECK_EQ_INT(spate_zk_map_set(a, buf, len, v1, &v2), 0);
	CHECK_EQ_INT(v2, v1 + 1);
	CHECK(wait_bit(b, &seen, SPATE_ZK_MAP, 5000));
	CHECK_EQ_INT(spate_zk_map_get(b, got, sizeof(got), &glen, &vb), 0);
	CHECK_EQ_INT(spate_peer_map_decode(got, glen, d, 3, &n), 0);
	CHECK(vb == v2 && d[1].host == 4);
	/* too small a buffer is an error, not a cut map */
	CHECK(spate_zk_map_get(b, got, 4, &glen, &vb) != 0);
	spate_zk_close(b);
}

static volatile int raw_auth_rc; /* 1: no answer yet */

static void on_raw_auth(int rc, const void *data)
{
	(void)data;
	__atomic_store_n(&raw_auth_rc, rc, __ATOMIC_RELEASE);
}

/* A plain client of the C library, with credentials or without (what
 * zkCli is to an operator): connected, and with cred authenticated (its
 * answer awaited), or NULL after the scaled deadline. */
static zhandle_t *raw_client(const char *cred)
{
	zhandle_t *zh = zookeeper_init(servers, NULL, scaled_ms(4000), NULL, NULL, 0);
	double until = now_s() + scaled_ms(4000) / 1000.0;

	while (zh && zoo_state(zh) != ZOO_CONNECTED_STATE && now_s() < until)
		usleep(10000);
	if (zh && zoo_state(zh) != ZOO_CONNECTED_STATE) {
		fprintf(stderr, "test_zk: raw client: no session within %d ms\n", scaled_ms(4000));
		zookeeper_close(zh);
		return NULL;
	}
	if (zh && cred) {
		raw_auth_rc = 1;
		if (zoo_add_auth(zh, "digest", cred, (int)strlen(cred), on_raw_auth, NULL) != ZOK)
			raw_auth_rc = -1;
		while (__atomic_load_n(&raw_auth_rc, __ATOMIC_ACQUIRE) == 1 && now_s() < until)
			usleep(10000);
		if (raw_auth_rc != ZOK) {
			fprintf(stderr, "test_zk: raw client: auth answered %d\n", raw_auth_rc);
			zookeeper_close(zh);
			return NULL;
		}
	}
	return zh;
}

static void test_acl(struct spate_zk *a)
{
	char p[256], info[64], err[256];
	int len = sizeof(info);
	unsigned seen = 0;

	CHECK_EQ_INT(spate_zk_join(a, 5, "role=match epoch=3"), 0);
	zhandle_t *anon = raw_client(NULL);
	CHECK(anon != NULL);
	if (!anon)
		return;
	snprintf(p, sizeof(p), "%s/hosts/5", root);
	CHECK_EQ_INT(zoo_get(anon, p, 0, info, &len, NULL), ZOK); /* anyone reads */
	CHECK_EQ_INT(zoo_delete(anon, p, -1), ZNOAUTH);
	snprintf(p, sizeof(p), "%s/hosts/6", root);
	CHECK_EQ_INT(zoo_create(anon, p, "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0),
		     ZNOAUTH);
	snprintf(p, sizeof(p), "%s/placement", root);
	CHECK_EQ_INT(zoo_set(anon, p, "x", 1, -1), ZNOAUTH);
	snprintf(p, sizeof(p), "%s/hosts", root);
	CHECK_EQ_INT(zoo_set_acl(anon, p, -1, &ZOO_OPEN_ACL_UNSAFE), ZNOAUTH);
	zookeeper_close(anon);
	/* other credentials: not this cluster's layout */
	CHECK(spate_zk_open(servers, root, scaled_ms(4000), scaled_ms(5000), "spate:wrong", err,
			    sizeof(err)) == NULL);
	CHECK(strstr(err, "other ZooKeeper credentials") != NULL);
	CHECK_EQ_INT(has_member(a, 5), 1);
	/* with the credentials an operator can delete it */
	zhandle_t *op = raw_client(digest);
	CHECK(op != NULL);
	if (!op)
		return;
	snprintf(p, sizeof(p), "%s/hosts/5", root);
	CHECK_EQ_INT(zoo_delete(op, p, -1), ZOK);
	int gone = 0;
	double until = now_s() + scaled_ms(5000) / 1000.0;
	while (!gone && now_s() < until)
		gone = wait_bit(a, &seen, SPATE_ZK_MEMBERS, 100) && has_member(a, 5) == 0;
	CHECK(gone);
	zookeeper_close(op);
}

int main(int argc, char **argv)
{
	char err[256];

	/* the killed member of test_members (exec'ed by it) */
	if (argc == 6 && strcmp(argv[1], "--member") == 0) {
		servers = argv[2];
		snprintf(root, sizeof(root), "%s", argv[3]);
		slow = atof(argv[4]);
		int fd = atoi(argv[5]);
		struct spate_zk *c = open_zk(1000);
		char ok = c && spate_zk_join(c, 3, "role=match") == 0;
		if (write(fd, &ok, 1) != 1)
			return 1;
		for (int i = 0; i < 600; i++) /* bounded: 60 s (the test kills it first) */
			usleep(100000);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: test_zk HOST:PORT\n");
		return 2;
	}
	servers = argv[1];
	snprintf(root, sizeof(root), "/spate/test-%d", (int)getpid());
	CHECK(spate_zk_open(servers, "relative", 1000, 100, NULL, err, sizeof(err)) == NULL);
	/* The first session, with the longest bounds (SLOW_MAX x quiet);
	 * then the time of a second session's set-up (the server warmed up)
	 * sets `slow` for every later wait. */
	slow = SLOW_MAX;
	double t0 = now_s();
	struct spate_zk *a = open_zk(4000);
	double t1 = now_s();
	struct spate_zk *probe = open_zk(4000);
	double open_s = now_s() - t1;
	spate_zk_close(probe);
	slow = open_s / QUIET_OPEN_S;
	slow = slow < 1 ? 1 : slow > SLOW_MAX ? SLOW_MAX : slow;
	printf("test_zk: sessions set up in %.3f s (first) and %.3f s: bounds x %.1f\n", t1 - t0,
	       open_s, slow);
	CHECK(a != NULL && probe != NULL);
	if (a) {
		/* each part's time goes to the log: a slow one names itself */
		double t = now_s();
		test_epochs(a);
		printf("test_zk: epochs %.2f s\n", now_s() - t), t = now_s();
		test_members(a);
		printf("test_zk: members %.2f s\n", now_s() - t), t = now_s();
		test_election();
		printf("test_zk: election %.2f s\n", now_s() - t), t = now_s();
		test_map(a);
		printf("test_zk: map %.2f s\n", now_s() - t), t = now_s();
		test_acl(a);
		printf("test_zk: acl %.2f s\n", now_s() - t);
		CHECK_EQ_INT(spate_zk_events(a) & SPATE_ZK_EXPIRED, 0);
		spate_zk_close(a);
	}
	printf("test_zk: %.1f s in all\n", now_s() - t0);
	return check_summary("test_zk");
}
