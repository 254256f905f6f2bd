/* spate_peer_auth.h - who may speak between the hosts of a multi-host
 * Spate: the cluster keys (a key file) and the tag that ends every
 * inter-host frame (docs/multihost.md, "Authentication").
 *
 * Every frame (spate_peer.h) ends with a 16-byte tag: HMAC-SHA256 under a
 * cluster key of every byte before it (the header, so hosts, epochs,
 * sequence and acks, the key id and the messages), truncated to its first
 * 128 bits (RFC 2104 section 5, as IPsec's HMAC-SHA-256-128 of RFC 4868:
 * a forger's chance is 2^-128 a try, and one wrong try teaches nothing
 * about the next). Header byte 3 names the key that signed it, so two
 * keys can be in force at once while a new one is rolled out: a host
 * signs with the first key of its file and accepts every key in it.
 *
 * No nonce and no state: a replayed frame carries a good tag, so the
 * replay defence is the channel's (spate_peer_chan.h): the epochs and the
 * sequence number are inside the tagged bytes, a channel accepts only
 * the current incarnation of a member and each sequence number once.
 *
 * OpenSSL's EVP_MAC does the HMAC (one context per key, keyed once and
 * re-initialised per frame). Not thread-safe: one owner per instance
 * (the link stage's lcore).
 *
 * The key file (mode 0600 or stricter; checked):
 *   # comments and blank lines are ignored
 *   key 2 5c0e...            # id 1..255, then 16..64 bytes as hex: signs
 *   key 1 9f3a...            # still accepted: a rotation in progress
 *   zk_digest spate:s3cret   # ZooKeeper's digest credentials (user:password)
 * At most two keys, ids different.
 */
#ifndef SPATE_PEER_AUTH_H
#define SPATE_PEER_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define SPATE_PEER_KEYS_MAX 2
#define SPATE_PEER_KEY_MIN 16
#define SPATE_PEER_KEY_MAX 64
#define SPATE_PEER_DIGEST_MAX 256

struct spate_peer_key {
	uint8_t id;  /* 1..255: header byte 3 of the frames it signs */
	uint8_t len; /* bytes of key */
	uint8_t bytes[SPATE_PEER_KEY_MAX];
};

/* What a cluster key file holds. */
struct spate_peer_keyfile {
	struct spate_peer_key key[SPATE_PEER_KEYS_MAX];
	uint32_t n_keys;                       /* >= 1; key[0] signs */
	char zk_digest[SPATE_PEER_DIGEST_MAX]; /* "user:password", "" = none */
};

/* Parse a key file's text (NUL-terminated); path names it in messages.
 * 0, or -1 with "path:line: what is wrong" in err. */
int spate_peer_keyfile_parse(const char *text, const char *path, struct spate_peer_keyfile *kf,
			     char *err, size_t errlen);
/* Read and parse the file at path; refused (-1, err filled) when group
 * or others may read or write it. */
int spate_peer_keyfile_load(const char *path, struct spate_peer_keyfile *kf, char *err,
			    size_t errlen);
/* Overwrite the secrets (OPENSSL_cleanse). */
void spate_peer_keyfile_wipe(struct spate_peer_keyfile *kf);

struct spate_peer_auth;

/* A signer and checker for keys[0..n) (keys[0] signs). n == 0: frames
 * go unsigned (key 0, a zero tag) and only unsigned ones are accepted -
 * peer_auth = "none", for tests and benchmarks. NULL on a bad key or no
 * memory. */
struct spate_peer_auth *spate_peer_auth_create(const struct spate_peer_key *keys, uint32_t n);
void spate_peer_auth_destroy(struct spate_peer_auth *a);

/* Sign a frame of len bytes (its length field already counts the tag):
 * header byte 3 = the signing key's id, the last 16 bytes = the tag. */
void spate_peer_auth_sign(struct spate_peer_auth *a, uint8_t *frame, size_t len);

/* 0 when the frame's tag is right under the key its byte 3 names (*slot:
 * that key's place, 0 = the signing key), else -SPATE_E_AUTH_FAILED (an
 * unknown key, a wrong tag, a frame shorter than a header and a tag).
 * Constant time in the tag's bytes. */
int spate_peer_auth_verify(struct spate_peer_auth *a, const uint8_t *frame, size_t len,
			   uint32_t *slot);

/* How many keys it checks with (0: unsigned mode). */
uint32_t spate_peer_auth_keys(const struct spate_peer_auth *a);

#endif
