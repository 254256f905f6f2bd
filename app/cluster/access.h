/* access.h - who may do what: authenticated datagrams (per-client keys,
 * lib/auth/spate_auth.h) and per-client rate limits on subscription operations
 * (lib/auth/spate_ratelimit.h), as configured in the "access" group.
 * Ownership and quotas stay in the matcher (lib/matcher/spate_matcher.h).
 *
 * A NULL `struct access *` allows everything. */
#ifndef SPATED_ACCESS_H
#define SPATED_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "config/ops_conf.h"
#include "auth/spate_auth.h"
#include "proto/spate_proto.h"
#include "auth/spate_ratelimit.h"

struct access;

/* The daemon's instance; set by main. */
extern struct access *spated_access;

/* NULL on no memory. */
struct access *access_create(const struct ops_conf *oc);
void access_destroy(struct access *a);

/* A datagram whose header decoded: 0, or -SPATE_E_AUTH_*: drop it (no
 * reply, counted by the caller). */
int access_datagram(struct access *a, const uint8_t *buf, size_t len, const struct spate_hdr *hdr);
/* A SUB_ADD or SUB_DEL from `client`: 0, or -SPATE_E_RATE_LIMITED. */
int access_sub_op(struct access *a, uint32_t client);

/* Run-time settings (spatectl, on the data-plane thread). */
struct spate_ratelimit *access_ratelimit(struct access *a);
struct spate_auth *access_auth(struct access *a);

#endif
