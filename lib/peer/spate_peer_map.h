/* spate_peer_map.h - the placement map of a multi-host Spate (category ->
 * host, lcore), as the front leader stores it in ZooKeeper's /placement
 * node (docs/multihost.md). Only the bytes: the version is the znode's.
 *
 * Layout, big-endian: u32 magic "SPM1", u32 n, then n entries of
 * u32 cat, u32 host (!= 0), u16 lcore, strictly increasing by cat.
 * The decoder is strict like the wire codecs: exact length, no duplicate
 * or unsorted category, no host 0.
 */
#ifndef SPATE_PEER_MAP_H
#define SPATE_PEER_MAP_H

#include <stddef.h>
#include <stdint.h>

#define SPATE_PEER_MAP_MAGIC 0x53504d31u /* "SPM1" */
#define SPATE_PEER_MAP_HDR 8
#define SPATE_PEER_MAP_ENTRY 10

struct spate_peer_place {
	uint32_t cat;
	uint32_t host;
	uint16_t lcore;
};

/* Bytes needed for n entries. */
size_t spate_peer_map_size(uint32_t n);
/* Encode n entries (sorted by cat, distinct, hosts != 0) into buf; the
 * length, or 0 when cap is short or an entry breaks the rules. */
size_t spate_peer_map_encode(void *buf, size_t cap, const struct spate_peer_place *e, uint32_t n);
/* Decode; 0 with *n entries in e (cap entries at most), or
 * -SPATE_E_TRUNCATED, -SPATE_E_BAD_MAGIC, -SPATE_E_BAD_LENGTH (length
 * differs from n, or more than cap), -SPATE_E_BAD_ID (unsorted or
 * duplicate category, host 0). */
int spate_peer_map_decode(const void *buf, size_t len, struct spate_peer_place *e, uint32_t cap,
			  uint32_t *n);

#endif
