/* udp_frame.c - Ethernet/IPv4/UDP framing with checksums (udp_frame.h).
 * The checksum is the Internet one (RFC 1071): the ones' complement of
 * the ones' complement sum of 16-bit big-endian words. */
#include <stdio.h>
#include <string.h>

#include "udp_frame.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* Sum of 16-bit words, an odd last byte padded with a zero. */
static uint32_t sum16(uint32_t acc, const uint8_t *p, size_t len)
{
	for (; len >= 2; p += 2, len -= 2)
		acc += get16(p);
	if (len)
		acc += (uint32_t)p[0] << 8;
	return acc;
}

static uint16_t fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* UDP over IPv4: pseudo-header (src, dst, 0, 17, UDP length) + datagram. */
static uint16_t udp_sum(const uint8_t *ip, const uint8_t *udp, size_t udp_len)
{
	uint32_t acc = sum16(0, ip + 12, 8); /* source and destination */
	acc += 17 + (uint32_t)udp_len;
	return fold(sum16(acc, udp, udp_len));
}

size_t udp_frame_build(uint8_t *out, const struct udp_endpoint *src, const struct udp_endpoint *dst,
		       uint16_t ip_id, const void *payload, size_t len)
{
	uint8_t *eth = out, *ip = out + 14, *udp = ip + 20;

	memcpy(eth, dst->mac, 6);
	memcpy(eth + 6, src->mac, 6);
	put16(eth + 12, 0x0800);

	memset(ip, 0, 20);
	ip[0] = 0x45; /* version 4, 5 words */
	put16(ip + 2, (uint16_t)(20 + 8 + len));
	put16(ip + 4, ip_id);
	put16(ip + 6, 0x4000); /* DF: Spate datagrams are never fragmented */
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, src->ipv4);
	put32(ip + 16, dst->ipv4);
	put16(ip + 10, (uint16_t)~fold(sum16(0, ip, 20)));

	put16(udp, src->port);
	put16(udp + 2, dst->port);
	put16(udp + 4, (uint16_t)(8 + len));
	put16(udp + 6, 0);
	memcpy(udp + 8, payload, len);
	uint16_t c = (uint16_t)~udp_sum(ip, udp, 8 + len);
	/* 0 would mean "no checksum" (RFC 768): send its other form. */
	put16(udp + 6, c == 0 ? 0xffff : c);
	return UDP_FRAME_HDRS + len;
}

int udp_frame_parse(const uint8_t *f, size_t caplen, struct udp_frame_info *fi)
{
	if (caplen < UDP_FRAME_HDRS || get16(f + 12) != 0x0800)
		return -1;
	const uint8_t *ip = f + 14;
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4, tot = get16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != 17 || tot > caplen - 14 || tot < ihl + 8 ||
	    (get16(ip + 6) & 0x3fff) != 0)
		return -1;
	const uint8_t *udp = ip + ihl;
	size_t ulen = get16(udp + 4);
	if (ulen < 8 || ulen > tot - ihl)
		return -1;
	memcpy(fi->dst.mac, f, 6);
	memcpy(fi->src.mac, f + 6, 6);
	fi->src.ipv4 = get32(ip + 12);
	fi->dst.ipv4 = get32(ip + 16);
	fi->src.port = get16(udp);
	fi->dst.port = get16(udp + 2);
	fi->payload = udp + 8;
	fi->len = ulen - 8;
	fi->ip_csum_ok = fold(sum16(0, ip, ihl)) == 0xffff;
	/* The pseudo-header sum must be taken over the right addresses. */
	fi->udp_csum_ok = get16(udp + 6) == 0 || udp_sum(ip, udp, ulen) == 0xffff;
	return 0;
}

int udp_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char extra;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &extra) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}
