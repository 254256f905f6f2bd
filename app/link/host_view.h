/* host_view.h - which incarnation of each peer host is alive, as
 * ZooKeeper says (zk_member.h writes it, the link stage reads it).
 *
 * The writer is the ZooKeeper thread, the reader the link stage's lcore:
 * a generation number, read without a lock on every poll, says whether
 * anything changed; only then does the reader take the mutex for the
 * copy (a few hundred bytes, rare), so the data plane never waits on the
 * ZooKeeper client. Epoch 0 means "not a member now".
 */
#ifndef SPATED_HOST_VIEW_H
#define SPATED_HOST_VIEW_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "link/host_conf.h"

struct host_view {
	uint32_t gen; /* bumped by each publish (atomic) */
	pthread_mutex_t mu;
	uint32_t n;
	uint32_t host[SPATED_PEERS_MAX], epoch[SPATED_PEERS_MAX];
	/* fence requests: (host, epoch) pairs, bumped fence_gen (atomic) */
	uint32_t fence_gen;
	uint32_t n_fence;
	uint32_t fence_host[SPATED_PEERS_MAX], fence_epoch[SPATED_PEERS_MAX];
	/* fronts: the service map (a service is named by its front's host
	 * id; its owner serves it now), written by the ZooKeeper thread */
	uint32_t svc_gen;
	uint32_t n_svc;
	uint32_t svc_id[SPATED_PEERS_MAX + 1], svc_owner[SPATED_PEERS_MAX + 1];
	/* fronts: the fellow fronts the link holds a complete copy of
	 * (host, epoch): only those may be taken over */
	uint32_t n_copy;
	uint32_t copy_host[SPATED_PEERS_MAX], copy_epoch[SPATED_PEERS_MAX];
};

static inline void host_view_init(struct host_view *v)
{
	memset(v, 0, sizeof(*v));
	pthread_mutex_init(&v->mu, NULL);
}

static inline void host_view_publish(struct host_view *v, const uint32_t *host,
				     const uint32_t *epoch, uint32_t n)
{
	pthread_mutex_lock(&v->mu);
	v->n = n;
	memcpy(v->host, host, n * sizeof(*host));
	memcpy(v->epoch, epoch, n * sizeof(*epoch));
	__atomic_add_fetch(&v->gen, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&v->mu);
}

/* The epoch of each of the n hosts asked (0: not a member) when the view
 * changed since *seen (then *seen is updated and 1 returned), else 0. */
static inline int host_view_take(struct host_view *v, uint32_t *seen, const uint32_t *host,
				 uint32_t *epoch, uint32_t n)
{
	if (__atomic_load_n(&v->gen, __ATOMIC_ACQUIRE) == *seen)
		return 0;
	pthread_mutex_lock(&v->mu);
	*seen = v->gen;
	for (uint32_t i = 0; i < n; i++) {
		epoch[i] = 0;
		for (uint32_t k = 0; k < v->n; k++)
			if (v->host[k] == host[i])
				epoch[i] = v->epoch[k];
	}
	pthread_mutex_unlock(&v->mu);
	return 1;
}

/* Ask for incarnation `epoch` of `host` to be fenced (its member node
 * deleted if it still names that epoch); a later request for the same
 * host replaces the earlier one. */
static inline void host_view_fence(struct host_view *v, uint32_t host, uint32_t epoch)
{
	pthread_mutex_lock(&v->mu);
	uint32_t i = 0;
	while (i < v->n_fence && v->fence_host[i] != host)
		i++;
	if (i < SPATED_PEERS_MAX) {
		v->fence_host[i] = host;
		v->fence_epoch[i] = epoch;
		if (i == v->n_fence)
			v->n_fence++;
	}
	__atomic_add_fetch(&v->fence_gen, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&v->mu);
}

static inline void host_view_publish_svc(struct host_view *v, const uint32_t *id,
					 const uint32_t *owner, uint32_t n)
{
	pthread_mutex_lock(&v->mu);
	v->n_svc = n;
	memcpy(v->svc_id, id, n * sizeof(*id));
	memcpy(v->svc_owner, owner, n * sizeof(*owner));
	__atomic_add_fetch(&v->svc_gen, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&v->mu);
}

/* The service map when it changed since *seen: its size, else 0 (and
 * *changed 0). */
static inline uint32_t host_view_take_svc(struct host_view *v, uint32_t *seen, uint32_t *id,
					  uint32_t *owner, int *changed)
{
	*changed = 0;
	if (__atomic_load_n(&v->svc_gen, __ATOMIC_ACQUIRE) == *seen)
		return 0;
	pthread_mutex_lock(&v->mu);
	*seen = v->svc_gen;
	uint32_t n = v->n_svc;
	memcpy(id, v->svc_id, n * sizeof(*id));
	memcpy(owner, v->svc_owner, n * sizeof(*owner));
	pthread_mutex_unlock(&v->mu);
	*changed = 1;
	return n;
}

/* The link holds a complete copy of incarnation `epoch` of front `host`
 * (0: none). */
static inline void host_view_set_copy(struct host_view *v, uint32_t host, uint32_t epoch)
{
	pthread_mutex_lock(&v->mu);
	uint32_t i = 0;
	while (i < v->n_copy && v->copy_host[i] != host)
		i++;
	if (i < SPATED_PEERS_MAX) {
		v->copy_host[i] = host;
		v->copy_epoch[i] = epoch;
		if (i == v->n_copy)
			v->n_copy++;
	}
	pthread_mutex_unlock(&v->mu);
}

static inline uint32_t host_view_copy_epoch(struct host_view *v, uint32_t host)
{
	uint32_t e = 0;

	pthread_mutex_lock(&v->mu);
	for (uint32_t i = 0; i < v->n_copy; i++)
		if (v->copy_host[i] == host)
			e = v->copy_epoch[i];
	pthread_mutex_unlock(&v->mu);
	return e;
}

/* The ZooKeeper side: take the pending requests (at most SPATED_PEERS_MAX)
 * when any came since *seen; their count. */
static inline uint32_t host_view_take_fences(struct host_view *v, uint32_t *seen, uint32_t *host,
					     uint32_t *epoch)
{
	if (__atomic_load_n(&v->fence_gen, __ATOMIC_ACQUIRE) == *seen)
		return 0;
	pthread_mutex_lock(&v->mu);
	*seen = v->fence_gen;
	uint32_t n = v->n_fence;
	memcpy(host, v->fence_host, n * sizeof(*host));
	memcpy(epoch, v->fence_epoch, n * sizeof(*epoch));
	v->n_fence = 0;
	pthread_mutex_unlock(&v->mu);
	return n;
}

#endif
