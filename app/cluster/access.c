/* access.c - authenticated datagrams and rate limits (access.h). */
#include <stdlib.h>
#include <time.h>

#include "cluster/access.h"

/* Clients with a bucket of their own; the rest share one (see
 * spate_ratelimit.h). */
#define RATE_CLIENTS_MAX 65536

struct access {
	struct spate_auth *auth;
	struct spate_ratelimit *rl;
};

struct access *spated_access;

struct access *access_create(const struct ops_conf *oc)
{
	struct access *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->auth = spate_auth_create(oc->require_auth);
	a->rl = spate_ratelimit_create(oc->rate, oc->burst, RATE_CLIENTS_MAX);
	if (a->auth == NULL || a->rl == NULL) {
		access_destroy(a);
		return NULL;
	}
	for (uint32_t i = 0; i < oc->n_keys; i++)
		if (spate_auth_set_key(a->auth, oc->keys[i].client, oc->keys[i].key,
				       oc->keys[i].len) != 0) {
			access_destroy(a);
			return NULL;
		}
	return a;
}

void access_destroy(struct access *a)
{
	if (a == NULL)
		return;
	spate_auth_destroy(a->auth);
	spate_ratelimit_destroy(a->rl);
	free(a);
}

int access_datagram(struct access *a, const uint8_t *buf, size_t len, const struct spate_hdr *hdr)
{
	return a ? spate_auth_check(a->auth, buf, len, hdr) : 0;
}

int access_sub_op(struct access *a, uint32_t client)
{
	struct timespec ts;

	if (a == NULL || spate_ratelimit_rate(a->rl) <= 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return spate_ratelimit_take(a->rl, client,
				    (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u);
}

struct spate_ratelimit *access_ratelimit(struct access *a)
{
	return a ? a->rl : NULL;
}

struct spate_auth *access_auth(struct access *a)
{
	return a ? a->auth : NULL;
}
