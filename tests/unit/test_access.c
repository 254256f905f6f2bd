/* test_access.c - authenticated datagrams (every byte of a signed datagram
 * matters, wrong keys and unknown clients fail, the replay window takes
 * reordered nonces once and refuses repeats and stale ones, unsigned
 * datagrams pass only when keys are not required and the client has
 * none) and per-client token
 * buckets (burst, refill, independence, the bounded table). The MAC itself
 * is cross-checked against Python's hmac by docs/protocol.md example 8. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "auth/spate_auth.h"
#include "proto/spate_err.h"
#include "proto/spate_proto.h"
#include "auth/spate_ratelimit.h"

static const struct spate_limits *lim(void)
{
	static struct spate_limits l;

	spate_limits_default(&l);
	return &l;
}

/* A signed SUB_DEL datagram from `client` with `nonce`; its length. */
static size_t signed_dgram(uint8_t *buf, size_t cap, uint32_t client, uint64_t nonce,
			   const uint8_t *key, size_t key_len)
{
	struct spate_writer w;

	spate_writer_init(&w, buf, cap - SPATE_AUTH_TRAILER_LEN, SPATE_FLAG_AUTH, client, 9);
	spate_put_sub_del(&w, 1001);
	spate_put_sub_del(&w, 1002);
	return spate_auth_sign(buf, spate_writer_finish(&w), cap, nonce, key, key_len);
}

static int check(struct spate_auth *a, const uint8_t *buf, size_t len)
{
	struct spate_hdr h;
	int rc = spate_hdr_decode(buf, len, lim(), &h);

	return rc != 0 ? rc : spate_auth_check(a, buf, len, &h);
}

static void test_auth(void)
{
	uint8_t key[32], other[32], buf[256];
	struct spate_auth *a = spate_auth_create(true);

	for (int i = 0; i < 32; i++) {
		key[i] = (uint8_t)(i * 7 + 1);
		other[i] = key[i];
	}
	other[31] ^= 1;
	CHECK_EQ_INT(spate_auth_set_key(a, 7, key, 32), 0);
	CHECK_EQ_INT(spate_auth_set_key(a, 8, key, 15), -SPATE_E_BAD_VALUE); /* too short */
	CHECK_EQ_INT(spate_auth_key_count(a), 1);

	size_t n = signed_dgram(buf, sizeof(buf), 7, 100, key, 32);
	CHECK_EQ_INT(n, 16 + 24 + SPATE_AUTH_TRAILER_LEN);
	/* The messages end before the trailer. */
	struct spate_hdr h;
	struct spate_reader r;
	struct spate_msg *m = calloc(1, sizeof(*m));
	CHECK_EQ_INT(spate_hdr_decode(buf, n, lim(), &h), 0);
	spate_reader_init(&r, buf, n, &h);
	CHECK_EQ_INT(spate_reader_next(&r, lim(), m), 1);
	CHECK_EQ_INT(spate_reader_next(&r, lim(), m), 1);
	CHECK_EQ_INT(m->id, 1002);
	CHECK_EQ_INT(spate_reader_next(&r, lim(), m), 0);
	free(m);

	/* Every single-bit change anywhere is refused, and refusals do not
	 * move the window (the untouched datagram still passes after). */
	int wrong = 0;
	for (size_t i = 0; i < n; i++) {
		buf[i] ^= 0x10;
		int rc = check(a, buf, n);
		/* a flipped header field may already fail decoding */
		wrong += rc == 0;
		buf[i] ^= 0x10;
	}
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(check(a, buf, n), 0);
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_REPLAY); /* the same again */

	/* Wrong key, unknown client. */
	n = signed_dgram(buf, sizeof(buf), 7, 101, other, 32);
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_FAILED);
	n = signed_dgram(buf, sizeof(buf), 9, 101, key, 32);
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_FAILED);

	/* The window: 110 then 105 (reordered, new) pass once; 46 is older
	 * than 64 below the top; 0 is never valid. */
	n = signed_dgram(buf, sizeof(buf), 7, 110, key, 32);
	CHECK_EQ_INT(check(a, buf, n), 0);
	n = signed_dgram(buf, sizeof(buf), 7, 100, key, 32); /* the old top, now 10 below */
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_REPLAY);
	n = signed_dgram(buf, sizeof(buf), 7, 105, key, 32);
	CHECK_EQ_INT(check(a, buf, n), 0);
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_REPLAY);
	n = signed_dgram(buf, sizeof(buf), 7, 47, key, 32);
	CHECK_EQ_INT(check(a, buf, n), 0); /* 110 - 47 = 63: inside */
	n = signed_dgram(buf, sizeof(buf), 7, 46, key, 32);
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_REPLAY);
	n = signed_dgram(buf, sizeof(buf), 7, 0, key, 32);
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_REPLAY);
	/* A jump far ahead clears the window; the old top is then stale. */
	n = signed_dgram(buf, sizeof(buf), 7, 1000, key, 32);
	CHECK_EQ_INT(check(a, buf, n), 0);
	n = signed_dgram(buf, sizeof(buf), 7, 110, key, 32);
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_REPLAY);
	n = signed_dgram(buf, sizeof(buf), 7, 999, key, 32);
	CHECK_EQ_INT(check(a, buf, n), 0);

	/* Unsigned: refused when required; otherwise served unless it
	 * claims a client that has a key (7), which must sign. */
	struct spate_writer w;
	for (uint32_t client = 7; client <= 8; client++) {
		spate_auth_set_required(a, true);
		spate_writer_init(&w, buf, sizeof(buf), 0, client, 1);
		spate_put_sub_del(&w, 5);
		n = spate_writer_finish(&w);
		CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_REQUIRED);
		spate_auth_set_required(a, false);
		CHECK_EQ_INT(check(a, buf, n), client == 7 ? -SPATE_E_AUTH_REQUIRED : 0);
	}
	/* Signing refuses a datagram without the flag or without room. */
	CHECK_EQ_INT(spate_auth_sign(buf, n, sizeof(buf), 1, key, 32), 0);
	spate_writer_init(&w, buf, sizeof(buf), SPATE_FLAG_AUTH, 7, 1);
	spate_put_sub_del(&w, 5);
	n = spate_writer_finish(&w);
	CHECK_EQ_INT(spate_auth_sign(buf, n, n + SPATE_AUTH_TRAILER_LEN - 1, 1, key, 32), 0);
	CHECK_EQ_INT(spate_auth_sign(buf, n, n + SPATE_AUTH_TRAILER_LEN, 1, key, 32),
		     n + SPATE_AUTH_TRAILER_LEN);
	spate_auth_destroy(a);
}

/* Key lengths at both bounds; a client's key replaced leaves its
 * neighbours' (ids one apart) alone. */
static void test_auth_keys(void)
{
	uint8_t key[SPATE_AUTH_KEY_MAX + 1], k2[32], buf[256];
	struct spate_auth *a = spate_auth_create(true);

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 13 + 5);
	for (size_t i = 0; i < sizeof(k2); i++)
		k2[i] = (uint8_t)(i * 3 + 2);
	CHECK_EQ_INT(spate_auth_set_key(a, 1, key, SPATE_AUTH_KEY_MIN - 1), -SPATE_E_BAD_VALUE);
	CHECK_EQ_INT(spate_auth_set_key(a, 1, key, SPATE_AUTH_KEY_MAX + 1), -SPATE_E_BAD_VALUE);
	CHECK_EQ_INT(spate_auth_key_count(a), 0);
	CHECK_EQ_INT(spate_auth_set_key(a, 1, key, SPATE_AUTH_KEY_MIN), 0);
	CHECK_EQ_INT(spate_auth_set_key(a, 2, key, SPATE_AUTH_KEY_MAX), 0);
	CHECK_EQ_INT(spate_auth_set_key(a, 3, k2, 32), 0);
	size_t n = signed_dgram(buf, sizeof(buf), 1, 5, key, SPATE_AUTH_KEY_MIN);
	CHECK_EQ_INT(check(a, buf, n), 0);
	n = signed_dgram(buf, sizeof(buf), 2, 5, key, SPATE_AUTH_KEY_MAX);
	CHECK_EQ_INT(check(a, buf, n), 0);
	/* client 2 gets client 3's key: 2 signs with it, 3 still does, 2's
	 * old key no longer passes, and no key was added */
	CHECK_EQ_INT(spate_auth_set_key(a, 2, k2, 32), 0);
	CHECK_EQ_INT(spate_auth_key_count(a), 3);
	n = signed_dgram(buf, sizeof(buf), 2, 6, key, SPATE_AUTH_KEY_MAX);
	CHECK_EQ_INT(check(a, buf, n), -SPATE_E_AUTH_FAILED);
	n = signed_dgram(buf, sizeof(buf), 2, 7, k2, 32);
	CHECK_EQ_INT(check(a, buf, n), 0);
	n = signed_dgram(buf, sizeof(buf), 3, 7, k2, 32);
	CHECK_EQ_INT(check(a, buf, n), 0);
	n = signed_dgram(buf, sizeof(buf), 1, 7, key, SPATE_AUTH_KEY_MIN);
	CHECK_EQ_INT(check(a, buf, n), 0);
	spate_auth_destroy(a);
}

static void test_ratelimit(void)
{
	struct spate_ratelimit *rl = spate_ratelimit_create(10, 5, 2);
	int ok = 0;

	for (int i = 0; i < 8; i++)
		ok += spate_ratelimit_take(rl, 1, 0) == 0;
	CHECK_EQ_INT(ok, 5);                                                     /* the burst */
	CHECK_EQ_INT(spate_ratelimit_take(rl, 1, 50000), -SPATE_E_RATE_LIMITED); /* 0.5 token */
	CHECK_EQ_INT(spate_ratelimit_take(rl, 1, 100000), 0); /* 1 token after 100 ms */
	CHECK_EQ_INT(spate_ratelimit_take(rl, 1, 100000), -SPATE_E_RATE_LIMITED);
	/* Another client has its own bucket. */
	CHECK_EQ_INT(spate_ratelimit_take(rl, 2, 100000), 0);
	/* Past max_clients (2), the others share one bucket of 5. */
	ok = 0;
	for (uint32_t c = 3; c < 20; c++)
		ok += spate_ratelimit_take(rl, c, 100000) == 0;
	CHECK_EQ_INT(ok, 5);
	/* A long pause refills only up to the burst. */
	ok = 0;
	for (int i = 0; i < 20; i++)
		ok += spate_ratelimit_take(rl, 1, 100000000) == 0;
	CHECK_EQ_INT(ok, 5);
	/* Rate 0: unlimited. */
	spate_ratelimit_set(rl, 0, 5);
	ok = 0;
	for (int i = 0; i < 100; i++)
		ok += spate_ratelimit_take(rl, 1, 100000000) == 0;
	CHECK_EQ_INT(ok, 100);
	CHECK(spate_ratelimit_rate(rl) == 0);
	CHECK_EQ_INT(spate_ratelimit_burst(rl), 5);
	spate_ratelimit_destroy(rl);
}

/* At spated's real bound (65536 buckets, docs/protocol.md "Limits"): the
 * 65536 clients first seen have a bucket each, the next ones share one. */
static void test_ratelimit_bound(void)
{
	const uint32_t bound = 65536;
	struct spate_ratelimit *rl = spate_ratelimit_create(1, 2, bound);
	uint32_t ok = 0;

	for (uint32_t c = 1; c <= bound; c++)
		ok += spate_ratelimit_take(rl, c, 0) == 0 && spate_ratelimit_take(rl, c, 0) == 0;
	CHECK_EQ_INT(ok, bound); /* each its own burst of 2 */
	ok = 0;
	for (uint32_t c = bound + 1; c <= bound + 100; c++)
		ok += spate_ratelimit_take(rl, c, 0) == 0;
	CHECK_EQ_INT(ok, 2); /* one shared burst for everyone past the bound */
	CHECK_EQ_INT(spate_ratelimit_take(rl, 7, 0), -SPATE_E_RATE_LIMITED);
	CHECK_EQ_INT(spate_ratelimit_take(rl, 7, 1000000), 0); /* its own bucket refilled */
	spate_ratelimit_destroy(rl);
}

int main(void)
{
	test_auth_keys();
	test_auth();
	test_ratelimit();
	test_ratelimit_bound();
	return check_summary("access");
}
