/* zk_member.c - membership in ZooKeeper (zk_member.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zk_member.h"

#ifndef SPATED_HAVE_ZK

struct zk_member *zk_member_start(const struct host_conf *h, uint32_t ipv4, uint32_t lcores,
				  struct host_view *view, uint32_t *epoch, char *err,
				  size_t errlen)
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

#else

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "spate_zk.h"

#define WATCH_EVERY_MS 20

struct zk_member {
	struct spate_zk *zk;
	const struct host_conf *h;
	struct host_view *view;
	pthread_t thread;
	int stop;    /* atomic */
	int fenced;  /* atomic */
};

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

static void *watch(void *arg)
{
	struct zk_member *z = arg;
	struct timespec nap = { 0, WATCH_EVERY_MS * 1000000L };

	int again = 0;

	while (!__atomic_load_n(&z->stop, __ATOMIC_ACQUIRE)) {
		unsigned ev = spate_zk_events(z->zk);
		if (ev & SPATE_ZK_EXPIRED) {
			fprintf(stderr, "spated: zookeeper: session expired: this host is fenced and stops\n");
			__atomic_store_n(&z->fenced, 1, __ATOMIC_RELEASE);
			break;
		}
		uint32_t present;
		if ((ev & SPATE_ZK_MEMBERS) || again) {
			int rc = publish(z, &present);
			/* disconnected for a moment: read again next round */
			if (rc != 0 && !again)
				fprintf(stderr, "spated: zookeeper: members: %s\n", spate_zk_error(rc));
			again = rc != 0;
		}
		nanosleep(&nap, NULL);
	}
	return NULL;
}

struct zk_member *zk_member_start(const struct host_conf *h, uint32_t ipv4, uint32_t lcores,
				  struct host_view *view, uint32_t *epoch, char *err,
				  size_t errlen)
{
	struct zk_member *z = calloc(1, sizeof(*z));
	char info[256];
	int rc;

	if (z == NULL) {
		snprintf(err, errlen, "spated: zookeeper: no memory");
		return NULL;
	}
	z->h = h;
	z->view = view;
	z->zk = spate_zk_open(h->zookeeper, h->zk_root, (int)h->zk_session_ms,
			      (int)(h->zk_wait_ms > 1000 ? h->zk_wait_ms : 1000), err, errlen);
	if (z->zk == NULL)
		goto fail;
	if ((rc = spate_zk_new_epoch(z->zk, h->host_id, epoch)) != 0) {
		snprintf(err, errlen, "spated: zookeeper %s: new epoch: %s", h->zookeeper,
			 spate_zk_error(rc));
		goto fail;
	}
	snprintf(info, sizeof(info), "role=%s ipv4=%u.%u.%u.%u lcores=%u epoch=%u",
		 host_conf_role_name(h->role), ipv4 >> 24, (ipv4 >> 16) & 0xff, (ipv4 >> 8) & 0xff,
		 ipv4 & 0xff, lcores, *epoch);
	/* a predecessor killed a moment ago holds the id until its session expires */
	uint64_t until = now_ms() + 3ull * h->zk_session_ms + h->zk_wait_ms;
	int said = 0;
	while ((rc = spate_zk_join(z->zk, h->host_id, info)) == SPATE_ZK_EXISTS && now_ms() < until) {
		if (!said++)
			fprintf(stderr, "spated: zookeeper: host %u is still a member (a previous run's"
				" session): waiting for it to expire\n", h->host_id);
		usleep(100000);
	}
	if (rc != 0) {
		snprintf(err, errlen, "spated: zookeeper %s: join as host %u: %s", h->zookeeper,
			 h->host_id, spate_zk_error(rc));
		goto fail;
	}
	/* the peers: wait for them, but start without the late ones (they
	 * are down until they join) */
	uint32_t present = 0;
	until = now_ms() + h->zk_wait_ms;
	while ((rc = publish(z, &present)) == 0 && present < h->n_peers && now_ms() < until)
		usleep(50000);
	if (rc != 0) {
		snprintf(err, errlen, "spated: zookeeper %s: members: %s", h->zookeeper,
			 spate_zk_error(rc));
		goto fail;
	}
	spate_zk_events(z->zk); /* what the waiting saw is published */
	publish(z, &present);
	fprintf(stderr, "spated: zookeeper: host %u epoch %u joined %s%s; %u of %u peers present\n",
		h->host_id, *epoch, h->zookeeper, h->zk_root, present, h->n_peers);
	if (pthread_create(&z->thread, NULL, watch, z) != 0) {
		snprintf(err, errlen, "spated: zookeeper: cannot start the watch thread");
		goto fail;
	}
	return z;
fail:
	if (z->zk != NULL)
		spate_zk_close(z->zk);
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
	free(z);
}

int zk_member_fenced(const struct zk_member *z)
{
	return z != NULL && __atomic_load_n(&z->fenced, __ATOMIC_ACQUIRE);
}

#endif
