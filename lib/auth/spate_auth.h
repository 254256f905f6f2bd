/* spate_auth.h - authenticated datagrams: per-client keys, HMAC-SHA256
 * (OpenSSL libcrypto) and a replay window.
 *
 * A datagram with header flag SPATE_FLAG_AUTH ends with a 40-byte trailer
 * (docs/protocol.md, "Authenticated datagrams"):
 *   u64 nonce      the client's counter, strictly new for each datagram
 *                  it signs (retransmissions are signed again)
 *   32 bytes MAC   HMAC-SHA256(client's key, every byte before the MAC:
 *                  header, messages and nonce)
 * The header's length counts the trailer; the messages end where it
 * starts. The server keeps, per client, the highest nonce accepted and a
 * 64-nonce window below it (IPsec's anti-replay scheme): a nonce seen
 * before, or older than the window, is refused, so a captured datagram
 * cannot be replayed while the server runs. The window is not persisted:
 * after a restart nonces start over, which is why clients should seed
 * theirs from the clock.
 */
#ifndef SPATE_AUTH_H
#define SPATE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/spate_proto.h"

#define SPATE_AUTH_MAC_LEN 32
#define SPATE_AUTH_KEY_MIN 16
#define SPATE_AUTH_KEY_MAX 64

struct spate_auth;

/* require: datagrams without a valid MAC are refused (AUTH_REQUIRED).
 * Otherwise unsigned datagrams pass unless they claim a client that has
 * a key, and signed ones are still checked. */
struct spate_auth *spate_auth_create(bool require);
void spate_auth_destroy(struct spate_auth *a);
/* Add or replace a client's key (16..64 bytes). 0, -SPATE_E_BAD_VALUE or
 * -SPATE_E_NO_MEMORY. */
int spate_auth_set_key(struct spate_auth *a, uint32_t client, const uint8_t *key, size_t len);
void spate_auth_set_required(struct spate_auth *a, bool require);
bool spate_auth_required(const struct spate_auth *a);
size_t spate_auth_key_count(const struct spate_auth *a);

/* Check a datagram whose header decoded. 0 = accept, else
 * -SPATE_E_AUTH_REQUIRED (unsigned, and keys required or the client has
 * one), -SPATE_E_AUTH_FAILED
 * (no key for the client, or a wrong MAC), -SPATE_E_AUTH_REPLAY (nonce
 * already used or too old). Nothing is remembered for a refused datagram. */
int spate_auth_check(struct spate_auth *a, const uint8_t *buf, size_t len,
		     const struct spate_hdr *hdr);

/* Sign a finished datagram (spate_writer_finish) in place: it must have
 * been started with SPATE_FLAG_AUTH and have SPATE_AUTH_TRAILER_LEN bytes
 * of room after its `len` bytes. Patches the length, appends the trailer;
 * returns the new length, or 0 on a bad argument. For clients. */
size_t spate_auth_sign(uint8_t *buf, size_t len, size_t cap, uint64_t nonce, const uint8_t *key,
		       size_t key_len);

#endif
