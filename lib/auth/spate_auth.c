/* spate_auth.c - keys, HMAC-SHA256 checks and the replay window
 * (spate_auth.h). The MAC is OpenSSL's HMAC() and compared with
 * CRYPTO_memcmp (constant time); nothing cryptographic is written here. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "auth/spate_auth.h"
#include "matcher/spate_idmap.h"

struct client_key {
	uint8_t key[SPATE_AUTH_KEY_MAX];
	size_t len;
	uint64_t top;    /* highest nonce accepted; 0 = none yet */
	uint64_t window; /* bit i: nonce top - i was accepted */
};

struct spate_auth {
	struct spate_idmap *keys; /* client id + 1 -> struct client_key */
	bool require;
};

struct spate_auth *spate_auth_create(bool require)
{
	struct spate_auth *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->keys = spate_idmap_create();
	if (a->keys == NULL) {
		free(a);
		return NULL;
	}
	a->require = require;
	return a;
}

static void free_key(uint64_t id, void *val, void *ctx)
{
	(void)id;
	(void)ctx;
	/* Keys do not linger in freed memory. */
	OPENSSL_cleanse(val, sizeof(struct client_key));
	free(val);
}

void spate_auth_destroy(struct spate_auth *a)
{
	if (a == NULL)
		return;
	spate_idmap_destroy_each(a->keys, free_key, NULL);
	free(a);
}

int spate_auth_set_key(struct spate_auth *a, uint32_t client, const uint8_t *key, size_t len)
{
	struct client_key *k;

	if (len < SPATE_AUTH_KEY_MIN || len > SPATE_AUTH_KEY_MAX)
		return -SPATE_E_BAD_VALUE;
	k = spate_idmap_get(a->keys, (uint64_t)client + 1);
	if (k == NULL) {
		k = calloc(1, sizeof(*k));
		if (k == NULL)
			return -SPATE_E_NO_MEMORY;
		if (spate_idmap_put(a->keys, (uint64_t)client + 1, k) != 0) {
			free(k);
			return -SPATE_E_NO_MEMORY;
		}
	}
	memcpy(k->key, key, len);
	k->len = len;
	return 0;
}

void spate_auth_set_required(struct spate_auth *a, bool require)
{
	a->require = require;
}

bool spate_auth_required(const struct spate_auth *a)
{
	return a->require;
}

size_t spate_auth_key_count(const struct spate_auth *a)
{
	return spate_idmap_count(a->keys);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static bool mac(const uint8_t *key, size_t key_len, const uint8_t *data, size_t n,
		uint8_t out[SPATE_AUTH_MAC_LEN])
{
	unsigned int len = 0;

	return HMAC(EVP_sha256(), key, (int)key_len, data, n, out, &len) != NULL &&
	       len == SPATE_AUTH_MAC_LEN;
}

/* The replay window: is `nonce` new? (Does not record it.) */
static bool nonce_fresh(const struct client_key *k, uint64_t nonce)
{
	if (nonce == 0)
		return false; /* 0 is "none yet" */
	if (nonce > k->top)
		return true;
	uint64_t age = k->top - nonce;
	return age < 64 && !(k->window >> age & 1);
}

static void nonce_record(struct client_key *k, uint64_t nonce)
{
	if (nonce > k->top) {
		uint64_t shift = nonce - k->top;
		k->window = shift >= 64 ? 0 : k->window << shift;
		k->window |= 1;
		k->top = nonce;
	} else {
		k->window |= 1ull << (k->top - nonce);
	}
}

int spate_auth_check(struct spate_auth *a, const uint8_t *buf, size_t len,
		     const struct spate_hdr *hdr)
{
	uint8_t want[SPATE_AUTH_MAC_LEN];

	/* spate_hdr_decode guaranteed room for the trailer. */
	struct client_key *k = spate_idmap_get(a->keys, (uint64_t)hdr->client_id + 1);
	/* A client with a key signs, required or not: else anyone could
	 * speak for it, unsigned, and delete its subscriptions. */
	if (!(hdr->flags & SPATE_FLAG_AUTH))
		return a->require || k != NULL ? -SPATE_E_AUTH_REQUIRED : 0;
	if (k == NULL)
		return -SPATE_E_AUTH_FAILED;
	size_t signed_len = len - SPATE_AUTH_MAC_LEN;
	if (!mac(k->key, k->len, buf, signed_len, want) ||
	    CRYPTO_memcmp(want, buf + signed_len, SPATE_AUTH_MAC_LEN) != 0)
		return -SPATE_E_AUTH_FAILED;
	/* Only a datagram with a good MAC may move the window. */
	uint64_t nonce = get64(buf + len - SPATE_AUTH_TRAILER_LEN);
	if (!nonce_fresh(k, nonce))
		return -SPATE_E_AUTH_REPLAY;
	nonce_record(k, nonce);
	return 0;
}

size_t spate_auth_sign(uint8_t *buf, size_t len, size_t cap, uint64_t nonce, const uint8_t *key,
		       size_t key_len)
{
	size_t n = len + SPATE_AUTH_TRAILER_LEN;

	if (len < SPATE_HDR_LEN || n > cap || n > 65535 || !(buf[3] & SPATE_FLAG_AUTH))
		return 0;
	buf[4] = (uint8_t)(n >> 8);
	buf[5] = (uint8_t)n;
	for (int i = 0; i < 8; i++)
		buf[len + (size_t)i] = (uint8_t)(nonce >> (56 - 8 * i));
	if (!mac(key, key_len, buf, len + 8, buf + len + 8))
		return 0;
	return n;
}
