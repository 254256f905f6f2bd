/* udp_frame.h - Ethernet II / IPv4 / UDP framing for spate-pcap: build a
 * frame around a UDP payload with correct IPv4 header and UDP checksums,
 * and take a captured frame apart again (checking both checksums). */
#ifndef SPATE_TOOLS_UDP_FRAME_H
#define SPATE_TOOLS_UDP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define UDP_FRAME_HDRS (14 + 20 + 8) /* Ethernet, IPv4 without options, UDP */

struct udp_endpoint {
	uint8_t mac[6];
	uint32_t ipv4; /* host order */
	uint16_t port;
};

/* Write the frame into out (room for UDP_FRAME_HDRS + len bytes); returns
 * its length. ip_id is the IPv4 identification field. */
size_t udp_frame_build(uint8_t *out, const struct udp_endpoint *src, const struct udp_endpoint *dst,
		       uint16_t ip_id, const void *payload, size_t len);

struct udp_frame_info {
	struct udp_endpoint src, dst;
	const uint8_t *payload;
	size_t len;
	int ip_csum_ok, udp_csum_ok; /* udp: 1 also when the sender put 0 */
};

/* 0 with *fi filled for an IPv4/UDP frame (no fragments), -1 otherwise. */
int udp_frame_parse(const uint8_t *frame, size_t caplen, struct udp_frame_info *fi);

/* "02:00:00:00:00:01" -> 6 bytes; 0 or -1. */
int udp_parse_mac(const char *s, uint8_t mac[6]);

#endif
