/* spate_peer_map.c - encoder and strict decoder of the placement map
 * (spate_peer_map.h). */
#include "proto/spate_be.h"
#include "proto/spate_err.h"
#include "peer/spate_peer_map.h"

size_t spate_peer_map_size(uint32_t n)
{
	return SPATE_PEER_MAP_HDR + (size_t)n * SPATE_PEER_MAP_ENTRY;
}

/* Entry i may follow entry i - 1: sorted, distinct, a real host. */
static int entry_ok(const struct spate_peer_place *e, uint32_t i)
{
	return e[i].host != 0 && (i == 0 || e[i].cat > e[i - 1].cat);
}

size_t spate_peer_map_encode(void *buf, size_t cap, const struct spate_peer_place *e, uint32_t n)
{
	uint8_t *p = buf;
	size_t len = spate_peer_map_size(n);

	if (len > cap)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (!entry_ok(e, i))
			return 0;
	spate_put_be32(p, SPATE_PEER_MAP_MAGIC);
	spate_put_be32(p + 4, n);
	p += SPATE_PEER_MAP_HDR;
	for (uint32_t i = 0; i < n; i++, p += SPATE_PEER_MAP_ENTRY) {
		spate_put_be32(p, e[i].cat);
		spate_put_be32(p + 4, e[i].host);
		spate_put_be16(p + 8, e[i].lcore);
	}
	return len;
}

int spate_peer_map_decode(const void *buf, size_t len, struct spate_peer_place *e, uint32_t cap,
			  uint32_t *n)
{
	const uint8_t *p = buf;

	*n = 0;
	if (len < SPATE_PEER_MAP_HDR)
		return -SPATE_E_TRUNCATED;
	if (spate_be32(p) != SPATE_PEER_MAP_MAGIC)
		return -SPATE_E_BAD_MAGIC;
	uint32_t count = spate_be32(p + 4);
	/* compare in entries, not bytes: no overflow from a lying count */
	if ((len - SPATE_PEER_MAP_HDR) % SPATE_PEER_MAP_ENTRY != 0 ||
	    (len - SPATE_PEER_MAP_HDR) / SPATE_PEER_MAP_ENTRY != count || count > cap)
		return -SPATE_E_BAD_LENGTH;
	p += SPATE_PEER_MAP_HDR;
	for (uint32_t i = 0; i < count; i++, p += SPATE_PEER_MAP_ENTRY) {
		e[i].cat = spate_be32(p);
		e[i].host = spate_be32(p + 4);
		e[i].lcore = spate_be16(p + 8);
		if (!entry_ok(e, i))
			return -SPATE_E_BAD_ID;
	}
	*n = count;
	return 0;
}
