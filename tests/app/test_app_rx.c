/* test_app_rx.c - the RX stage (app/net/stage_rx.c, app/net/net_rx.c) on a
 * net_ring port, without a NIC: frames built here go into the port's RX
 * ring, one stage_rx_poll steers them, and the rings to the cluster and
 * TX stages are read back. Every frame ends in exactly one counter: each
 * case compares the whole counter block before and after, so a frame
 * counted twice, or under another reason, fails. Overload: a full ring
 * to the cluster drops (ring_full_rx, shed_events, exact) and answers
 * OVERLOADED once per client, the NACK checked field by field. Every
 * mbuf is accounted for (the pool's in-use count after each case), and
 * the stage's own allocations are tracked (alloc_track.h): creating one
 * that fails part way, or destroying one, leaves nothing behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "alloc_track.h"
#include "app_eal.h"
#include "app_port.h"
#include "check.h"
#include "infra/counters.h"
#include "infra/pl_msg.h"
#include "proto/spate_proto.h"
#include "net/net.h"
#include "net/stage_rx.h"
#include "net/tx_out.h"

#define OUR_IP 0x0a000001u  /* 10.0.0.1 */
#define PEER_IP 0x0a000002u /* 10.0.0.2 */
#define OUR_PORT 47100
#define SRC_PORT 40000

static struct rte_mempool *pool;
static struct rte_ring *port_rx, *port_tx, *to_cluster, *to_tx;
static uint16_t port_id;
static struct stage_rx *rx;
static struct spate_limits lim;
static const struct rte_ether_addr our_mac = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr peer_mac = { { 0x02, 0, 0, 0, 0, 0x02 } };

/* ---- frames ---- */

struct frame_opts {
	const struct rte_ether_addr *dst_mac;
	uint16_t ether_type;
	uint8_t version_ihl, proto;
	uint32_t src_ip, dst_ip;
	uint16_t dport;
	bool udp_cksum, bad_ip_cksum, bad_udp_cksum;
	int tot_delta, udp_len_delta; /* lengths that lie */
	uint16_t frag;
};

static struct frame_opts defaults(void)
{
	return (struct frame_opts){ .dst_mac = &our_mac,
				    .ether_type = RTE_ETHER_TYPE_IPV4,
				    .version_ihl = 0x45,
				    .proto = IPPROTO_UDP,
				    .src_ip = PEER_IP,
				    .dst_ip = OUR_IP,
				    .dport = OUR_PORT };
}

/* An Ethernet/IPv4/UDP frame carrying payload, as the port would hand it. */
static struct rte_mbuf *frame(const struct frame_opts *o, const void *payload, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	size_t ip_len = sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr) + len;
	uint8_t *p =
		(uint8_t *)rte_pktmbuf_append(m, (uint16_t)(sizeof(struct rte_ether_hdr) + ip_len));
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	eth->dst_addr = *o->dst_mac;
	eth->src_addr = peer_mac;
	eth->ether_type = rte_cpu_to_be_16(o->ether_type);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = o->version_ihl;
	ip->total_length = rte_cpu_to_be_16((uint16_t)((int)ip_len + o->tot_delta));
	ip->fragment_offset = rte_cpu_to_be_16(o->frag);
	ip->time_to_live = 64;
	ip->next_proto_id = o->proto;
	ip->src_addr = rte_cpu_to_be_32(o->src_ip);
	ip->dst_addr = rte_cpu_to_be_32(o->dst_ip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (o->bad_ip_cksum)
		ip->hdr_checksum ^= 0x0100;
	udp->src_port = rte_cpu_to_be_16(SRC_PORT);
	udp->dst_port = rte_cpu_to_be_16(o->dport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)((int)(sizeof(*udp) + len) + o->udp_len_delta));
	udp->dgram_cksum = 0;
	memcpy(udp + 1, payload, len);
	if (o->udp_cksum || o->bad_udp_cksum) {
		udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
		if (o->bad_udp_cksum)
			udp->dgram_cksum ^= 0x0001;
	}
	return m;
}

/* A client datagram of n_events EVENTs (ids first_id, first_id + 1, ...). */
static size_t dgram(uint8_t *buf, size_t cap, uint8_t flags, uint32_t client, uint32_t seq,
		    unsigned int n_events, uint64_t first_id)
{
	struct spate_writer w;

	spate_writer_init(&w, buf, cap, flags, client, seq);
	for (unsigned int i = 0; i < n_events; i++) {
		struct spate_raw_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.id = first_id + i;
		ev.lon = 10;
		ev.lat = 20;
		ev.n_kw = 1;
		ev.kw[0] = (struct spate_str){ "k", 1 };
		if (spate_put_event(&w, &ev) != 0)
			abort();
	}
	return spate_writer_finish(&w);
}

static void put(struct rte_mbuf *m)
{
	if (rte_ring_enqueue(port_rx, m) != 0)
		abort();
}

/* The stage on our port: a front's (to_cluster) or a match host's (no
 * cluster stage; inter-host frames on peer_port to to_link). */
static struct stage_rx_conf rx_conf(struct rte_ring *to_cl, struct rte_ring *to_link,
				    uint16_t peer_port)
{
	return (struct stage_rx_conf){ .port_id = port_id,
				       .queue_id = 0,
				       .pool = pool,
				       .mac = our_mac,
				       .ipv4 = OUR_IP,
				       .udp_port = OUR_PORT,
				       .mtu = 1500,
				       .lim = &lim,
				       .to_cluster = to_cl,
				       .to_tx = to_tx,
				       .to_link = to_link,
				       .peer_port = peer_port };
}

/* ---- counters: the whole block, before and after ---- */

static struct spated_counters before;

static void mark(void)
{
	spated_counters_sum(&before);
}

/* Is name one of the comma-separated names in list? */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)) != NULL; p++)
		if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

/* After one poll: each of `field` (names, comma-separated) moved by `by`, rx by n_frames, every other
 * counter (scalar or per code) not at all; hdr/msg code `code` of
 * `which` (0 none, 1 hdr_err) by `by` too. */
static void moved(const char *field, uint64_t by, unsigned int n_frames, int which, int code,
		  int line)
{
	struct spated_counters now;

	spated_counters_sum(&now);
	check_count++;
/* clang-format off */
#define DIFF(name)                                                                            \
	{                                                                                     \
		uint64_t d = now.name - before.name, want = 0;                                \
		if (listed(field, #name))                                                     \
			want = by;                                                            \
		else if (strcmp(#name, "rx") == 0)                                            \
			want = n_frames;                                                      \
		if (strcmp(#name, "rx_bytes") != 0 && strcmp(#name, "busy_cycles") != 0 &&    \
		    strcmp(#name, "cycles_rx") != 0 && d != want) {                           \
			fprintf(stderr, "line %d: %s moved by %llu, want %llu\n", line, #name, \
				(unsigned long long)d, (unsigned long long)want);             \
			check_failed();                                                       \
		}                                                                             \
	}
	/* clang-format on */
	SPATED_FOREACH_COUNTER(DIFF)
#undef DIFF
	for (int i = 0; i < SPATE_E__COUNT; i++) {
		uint64_t dh = now.hdr_err[i] - before.hdr_err[i];
		uint64_t dm = now.msg_err[i] - before.msg_err[i];
		if (dh != (which == 1 && i == code ? by : 0) || dm != 0) {
			fprintf(stderr, "line %d: code %d moved by hdr %llu msg %llu\n", line, i,
				(unsigned long long)dh, (unsigned long long)dm);
			check_failed();
		}
	}
}
#define MOVED(field, by, frames) moved(field, by, frames, 0, 0, __LINE__)

/* The counters now, summed over the lcores. */
static struct spated_counters counters_now(void)
{
	struct spated_counters now;

	spated_counters_sum(&now);
	return now;
}
/* How far counter `name` moved since mark(). */
#define SINCE(name) (counters_now().name - before.name)

/* One frame into the port, the counters marked, one poll that takes it
 * (a macro: a failure names the caller's line). */
#define POLL_ONE(m)                                 \
	do {                                        \
		put(m);                             \
		mark();                             \
		CHECK_EQ_INT(stage_rx_poll(rx), 1); \
	} while (0)

#define drain app_drain
#define free_all app_free_all

/* ---- cases ---- */

static void test_deliver(void)
{
	uint8_t buf[512];
	struct rte_mbuf *got[8];
	size_t len = dgram(buf, sizeof(buf), 0, 5, 77, 2, 1000);

	/* without a checksum, and with a correct one */
	struct frame_opts o = defaults();
	put(frame(&o, buf, len));
	o.udp_cksum = true;
	put(frame(&o, buf, len));
	mark();
	CHECK_EQ_INT(stage_rx_poll(rx), 2);
	MOVED("dgrams", 2, 2);
	unsigned int n = drain(to_cluster, got, 8);
	CHECK_EQ_INT(n, 2);
	for (unsigned int i = 0; i < n; i++) {
		/* trimmed to the payload exactly, its source in the meta */
		CHECK_EQ_INT(rte_pktmbuf_data_len(got[i]), len);
		CHECK(memcmp(rte_pktmbuf_mtod(got[i], void *), buf, len) == 0);
		CHECK_EQ_INT(pkt_meta(got[i])->kind, PKT_DGRAM);
		CHECK_EQ_INT(pkt_meta(got[i])->peer.ipv4, PEER_IP);
		CHECK_EQ_INT(pkt_meta(got[i])->peer.port, SRC_PORT);
		CHECK(pkt_meta(got[i])->rx_tsc != 0);
	}
	free_all(got, n);
	/* the sender is news: TX hears of its MAC once (PKT_NEIGH) */
	n = drain(to_tx, got, 8);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_INT(pkt_meta(got[0])->kind, PKT_NEIGH);
	CHECK_EQ_INT(pkt_meta(got[0])->peer.ipv4, PEER_IP);
	CHECK(rte_is_same_ether_addr(&pkt_meta(got[0])->mac, &peer_mac));
	free_all(got, n);
	CHECK_EQ_INT(stage_rx_poll(rx), 0);
}

/* One frame that must end in `field` and nowhere else. */
static void one(const struct frame_opts *o, const void *payload, size_t len, const char *field,
		int line)
{
	struct rte_mbuf *got[8];

	POLL_ONE(frame(o, payload, len));
	moved(field, 1, 1, 0, 0, line);
	CHECK_EQ_INT(rte_ring_count(to_cluster), 0);
	free_all(got, drain(to_tx, got, 8));
	if (rte_mempool_in_use_count(pool) != 0) { /* the dropped frame was freed */
		fprintf(stderr, "line %d: %u mbufs in use\n", line, rte_mempool_in_use_count(pool));
		check_failed();
	}
}

/* A frame of the defaults but for `set` ends in `field` alone. */
#define DROP(set, field)                            \
	do {                                        \
		o = defaults();                     \
		set;                                \
		one(&o, buf, len, field, __LINE__); \
	} while (0)

static void test_drops(void)
{
	uint8_t buf[512];
	size_t len = dgram(buf, sizeof(buf), 0, 5, 1, 1, 1);
	struct frame_opts o;
	struct rte_mbuf *got[8];

	DROP(o.dst_mac = &peer_mac, "rx_other_mac");
	DROP(o.ether_type = RTE_ETHER_TYPE_IPV6, "rx_other_ethertype");
	DROP(o.version_ihl = 0x65, "ip_bad_header");
	DROP(o.version_ihl = 0x44, "ip_bad_header"); /* IHL 16 bytes: shorter than a header */
	DROP(o.bad_ip_cksum = true, "ip_bad_csum");
	DROP(o.tot_delta = 1, "ip_truncated");
	DROP(o.frag = RTE_IPV4_HDR_MF_FLAG, "ip_fragment");
	DROP(o.frag = 1, "ip_fragment"); /* an offset, MF clear: the last fragment */
	DROP(o.dst_ip = OUR_IP + 1, "ip_not_ours");
	DROP(o.proto = IPPROTO_TCP, "ip_other_proto");
	DROP(o.udp_len_delta = -1, "udp_bad_len");
	DROP(o.udp_len_delta = 1, "udp_bad_len");
	DROP(o.bad_udp_cksum = true, "udp_bad_csum");
	DROP(o.dport = OUR_PORT + 1, "udp_other_port");
	/* an IP packet shorter than the frame is fine (Ethernet padding) */
	o = defaults();
	o.tot_delta = -2;
	o.udp_len_delta = -2;
	POLL_ONE(frame(&o, buf, len + 2));
	MOVED("dgrams", 1, 1);
	CHECK_EQ_INT(drain(to_cluster, got, 8), 1);
	CHECK_EQ_INT(rte_pktmbuf_data_len(got[0]), len);
	free_all(got, 1);
	/* the MTU (1500): an IP packet of 1500 bytes passes, 1501 does not */
	static uint8_t big[1600];
	size_t n1500 = 1500 - 28;
	memcpy(big, buf, len);
	o = defaults();
	POLL_ONE(frame(&o, big, n1500 + 1));
	MOVED("ip_over_mtu", 1, 1);
	POLL_ONE(frame(&o, big, n1500));
	/* 1500 passes the IP checks; the Spate header then refuses its
	 * length (the datagram is shorter than the UDP payload) */
	CHECK_EQ_INT(SINCE(ip_over_mtu), 0);
	CHECK_EQ_INT(SINCE(dgrams), 1);
	free_all(got, drain(to_cluster, got, 8));
	/* a runt */
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	memset(rte_pktmbuf_append(m, 13), 0xff, 13);
	POLL_ONE(m);
	MOVED("rx_runt", 1, 1);
}

static void test_header(void)
{
	uint8_t buf[512];
	struct frame_opts o = defaults();
	size_t len = dgram(buf, sizeof(buf), 0, 5, 1, 1, 1);

	/* a bad magic: bad_header and its code */
	buf[0] ^= 0xff;
	POLL_ONE(frame(&o, buf, len));
	moved("dgrams,bad_header", 1, 1, 1, SPATE_E_BAD_MAGIC, __LINE__);
	buf[0] ^= 0xff;
	/* shorter than a header */
	POLL_ONE(frame(&o, buf, SPATE_HDR_LEN - 1));
	moved("dgrams,bad_header", 1, 1, 1, SPATE_E_TRUNCATED, __LINE__);
	/* a UDP datagram with nothing in it */
	POLL_ONE(frame(&o, buf, 0));
	moved("dgrams,bad_header", 1, 1, 1, SPATE_E_TRUNCATED, __LINE__);
	/* another server's datagram: ignored, never answered */
	len = dgram(buf, sizeof(buf), SPATE_FLAG_SERVER, 5, 1, 1, 1);
	POLL_ONE(frame(&o, buf, len));
	CHECK_EQ_INT(SINCE(from_server), 1);
	CHECK_EQ_INT(SINCE(dgrams), 1);
	CHECK_EQ_INT(SINCE(bad_header), 0);
	CHECK_EQ_INT(rte_ring_count(to_cluster), 0);
}

/* Read back an OVERLOADED NACK the stage queued for TX. */
static void check_nack(struct rte_mbuf *m, uint32_t client, uint32_t seq, uint64_t id)
{
	struct spate_hdr h;
	struct spate_reader r;
	struct spate_msg msg;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	size_t len = rte_pktmbuf_data_len(m);

	CHECK_EQ_INT(pkt_meta(m)->kind, PKT_PAYLOAD);
	CHECK_EQ_INT(pkt_meta(m)->peer.ipv4, PEER_IP);
	CHECK_EQ_INT(pkt_meta(m)->peer.port, SRC_PORT);
	CHECK_EQ_INT(spate_hdr_decode(p, len, &lim, &h), 0);
	CHECK_EQ_INT(h.flags, SPATE_FLAG_SERVER);
	CHECK_EQ_INT(h.count, 1);
	CHECK_EQ_INT(h.client_id, 0);
	(void)client;
	spate_reader_init(&r, p, len, &h);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 1);
	CHECK_EQ_INT(msg.type, SPATE_MSG_NACK);
	CHECK_EQ_INT(msg.u.ack.code, SPATE_E_OVERLOADED);
	CHECK_EQ_INT(msg.u.ack.code, 33); /* the number on the wire (docs/protocol.md) */
	CHECK_EQ_INT(msg.u.ack.req_type, SPATE_MSG_EVENT);
	CHECK_EQ_INT(msg.u.ack.req_seq, seq);
	CHECK_EQ_INT(msg.u.ack.id, id);
	CHECK_EQ_INT(spate_reader_next(&r, &lim, &msg), 0);
}

static void test_overload(void)
{
	uint8_t buf[512];
	struct rte_mbuf *got[64];
	struct frame_opts o = defaults();
	unsigned int cap = rte_ring_get_capacity(to_cluster);

	/* cap + 3 datagrams of 2 events from client 5: cap taken, 3 shed,
	 * one OVERLOADED for the first of them */
	CHECK_EQ_INT(cap, 3);
	for (unsigned int i = 0; i < cap + 3; i++) {
		size_t len = dgram(buf, sizeof(buf), 0, 5, 100 + i, 2, 10 * i + 1);
		put(frame(&o, buf, len));
	}
	mark();
	CHECK_EQ_INT(stage_rx_poll(rx), cap + 3);
	CHECK_EQ_INT(SINCE(rx), cap + 3);
	CHECK_EQ_INT(SINCE(dgrams), cap);
	CHECK_EQ_INT(SINCE(ring_full_rx), 3);
	CHECK_EQ_INT(SINCE(shed_events), 6);
	CHECK_EQ_INT(SINCE(overload_nacks), 1);
	CHECK_EQ_INT(SINCE(udp_bad_csum), 0);
	CHECK_EQ_INT(rte_ring_count(to_cluster), cap);
	unsigned int n = drain(to_tx, got, 64);
	CHECK_EQ_INT(n, 1);
	if (n == 1)
		check_nack(got[0], 5, 100 + cap, 10 * cap + 1);
	free_all(got, n);

	/* the ring still full: everything shed at once, one notice per
	 * client (6 and 7 are new; 5 had its notice this 100 ms) */
	static const uint32_t clients[] = { 6, 6, 7, 6, 7 };
	for (unsigned int i = 0; i < 5; i++) {
		size_t len = dgram(buf, sizeof(buf), 0, clients[i], 200 + i, 1 + i, 100 * i + 5);
		put(frame(&o, buf, len));
	}
	/* a server's datagram is shed too, but neither counted as events nor answered */
	size_t len = dgram(buf, sizeof(buf), SPATE_FLAG_SERVER, 9, 1, 4, 1);
	put(frame(&o, buf, len));
	/* nor is a datagram whose UDP checksum is wrong (a forged source) */
	len = dgram(buf, sizeof(buf), 0, 8, 1, 2, 1);
	o.bad_udp_cksum = true;
	put(frame(&o, buf, len));
	o.bad_udp_cksum = false;
	/* one whose checksum is right is */
	len = dgram(buf, sizeof(buf), 0, 11, 77, 1, 900);
	o.udp_cksum = true;
	put(frame(&o, buf, len));
	o.udp_cksum = false;
	mark();
	CHECK_EQ_INT(stage_rx_poll(rx), 8);
	CHECK_EQ_INT(SINCE(dgrams), 0);
	CHECK_EQ_INT(SINCE(ring_full_rx), 8);
	CHECK_EQ_INT(SINCE(shed_events), 1 + 2 + 3 + 4 + 5 + 2 + 1);
	CHECK_EQ_INT(SINCE(overload_nacks), 3);
	CHECK_EQ_INT(SINCE(udp_bad_csum), 0);
	n = drain(to_tx, got, 64);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		check_nack(got[0], 6, 200, 5);
		check_nack(got[1], 7, 202, 205);
		check_nack(got[2], 11, 77, 900);
	}
	free_all(got, n);
	free_all(got, drain(to_cluster, got, 64));

	/* room for one: the first goes, the rest shed */
	void *filler[2];
	for (int i = 0; i < 2; i++)
		filler[i] = rte_pktmbuf_alloc(pool);
	CHECK_EQ_INT(rte_ring_enqueue_bulk(to_cluster, filler, 2, NULL), 2);
	for (unsigned int i = 0; i < 3; i++) {
		len = dgram(buf, sizeof(buf), 0, 20 + i, 300 + i, 3, 1);
		put(frame(&o, buf, len));
	}
	mark();
	CHECK_EQ_INT(stage_rx_poll(rx), 3);
	CHECK_EQ_INT(SINCE(dgrams), 1);
	CHECK_EQ_INT(SINCE(ring_full_rx), 2);
	CHECK_EQ_INT(SINCE(shed_events), 6);
	CHECK_EQ_INT(SINCE(overload_nacks), 2);
	n = drain(to_tx, got, 64);
	CHECK_EQ_INT(n, 2);
	free_all(got, n);
	n = drain(to_cluster, got, 64);
	CHECK_EQ_INT(n, 3);
	free_all(got, n);
}

/* The ring to TX full: a frame for it is dropped, counted; a lost
 * neighbour notice is forgotten by RX too, so the next frame from that
 * host tells TX again. An empty pool: the OVERLOADED notice is counted
 * as no_mbuf. */
static void test_tx_full(void)
{
	uint8_t buf[512];
	struct rte_mbuf *got[64];
	struct frame_opts o = defaults();
	void *fill[64];
	unsigned int k = 0;

	o.src_ip = 0x0a000077; /* a host RX has not seen */
	size_t len = dgram(buf, sizeof(buf), 0, 40, 1, 1, 1);
	while (rte_ring_free_count(to_tx) > 0 && (fill[k] = rte_pktmbuf_alloc(pool)) != NULL)
		CHECK_EQ_INT(rte_ring_enqueue(to_tx, fill[k++]), 0);
	POLL_ONE(frame(&o, buf, len));
	CHECK_EQ_INT(SINCE(ring_full_tx), 1);
	CHECK_EQ_INT(SINCE(dgrams), 1);
	free_all(got, drain(to_cluster, got, 64));
	free_all(got, drain(to_tx, got, 64));
	/* the same host again: news again */
	POLL_ONE(frame(&o, buf, len));
	unsigned int n = drain(to_tx, got, 64);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		CHECK_EQ_INT(pkt_meta(got[0])->kind, PKT_NEIGH);
		CHECK_EQ_INT(pkt_meta(got[0])->peer.ipv4, 0x0a000077);
	}
	free_all(got, n);
	/* and then not (known, and TX heard of it) */
	put(frame(&o, buf, len));
	CHECK_EQ_INT(stage_rx_poll(rx), 1);
	CHECK_EQ_INT(drain(to_tx, got, 64), 0);
	free_all(got, drain(to_cluster, got, 64));

	/* no mbuf for the notice: the cluster ring full, the pool empty */
	for (unsigned int i = 0; i < 3; i++)
		fill[i] = rte_pktmbuf_alloc(pool);
	CHECK_EQ_INT(rte_ring_enqueue_bulk(to_cluster, fill, 3, NULL), 3);
	len = dgram(buf, sizeof(buf), 0, 41, 9, 2, 1);
	o.src_ip = 0x0a000078; /* new: its neighbour notice needs an mbuf too */
	put(frame(&o, buf, len));
	static struct rte_mbuf *hoard[2048];
	unsigned int h = 0;
	while (h < 2048 && (hoard[h] = rte_pktmbuf_alloc(pool)) != NULL)
		h++;
	mark();
	CHECK_EQ_INT(stage_rx_poll(rx), 1);
	CHECK_EQ_INT(SINCE(ring_full_rx), 1);
	CHECK_EQ_INT(SINCE(overload_nacks), 1);
	CHECK_EQ_INT(SINCE(no_mbuf), 2);
	CHECK_EQ_INT(drain(to_tx, got, 64), 0);
	free_all(hoard, h);
	/* the notice was lost: RX forgot the host, its next frame tells TX */
	put(frame(&o, buf, len));
	CHECK_EQ_INT(stage_rx_poll(rx), 1);
	unsigned int nn = drain(to_tx, got, 64);
	CHECK(nn >= 1 && pkt_meta(got[0])->kind == PKT_NEIGH);
	free_all(got, nn);
	free_all(got, drain(to_cluster, got, 64));
}

/* Sources: a unicast one is learned (TX hears of it), 0.0.0.0 and
 * multicast ones are not. 112.0.0.1 (first octet 0x70) is unicast. */
static void test_sources(void)
{
	uint8_t buf[512];
	struct rte_mbuf *got[16];
	struct frame_opts o = defaults();
	size_t len = dgram(buf, sizeof(buf), 0, 5, 1, 1, 1);
	/* the datagram is served only from a unicast address: nobody can be
	 * answered at 0.0.0.0 or a group address, and a source of 0 would
	 * pass for a journal replay inside spated (no rate limit, no record) */
	static const struct {
		uint32_t ip;
		unsigned int told;
	} src[] = {
		{ 0x70000001, 1 }, { 0xdf000001, 1 }, { 0xe0000001, 0 },
		{ 0xffffffff, 0 }, { 0, 0 },
	};

	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		o.src_ip = src[i].ip;
		put(frame(&o, buf, len));
		mark();
		CHECK_EQ_INT(stage_rx_poll(rx), 1);
		CHECK_EQ_INT(SINCE(dgrams), src[i].told);
		CHECK_EQ_INT(SINCE(udp_bad_src), 1 - src[i].told);
		unsigned int n = drain(to_tx, got, 16);
		CHECK_EQ_INT(n, src[i].told);
		free_all(got, n);
		n = drain(to_cluster, got, 16);
		CHECK_EQ_INT(n, src[i].told);
		free_all(got, n);
	}
	/* exactly an Ethernet header: not a runt, an IPv4 packet too short */
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, 14);
	eth->dst_addr = our_mac;
	eth->src_addr = peer_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	POLL_ONE(m);
	MOVED("ip_bad_header", 1, 1);
}

/* The one frame the stage answered with, out of the port the question
 * came in on (the caller frees it), or NULL. */
static struct rte_mbuf *answer(void)
{
	struct rte_mbuf *got[8];
	unsigned int n = drain(to_tx, got, 8);

	CHECK_EQ_INT(n, 1);
	if (n != 1) {
		free_all(got, n);
		return NULL;
	}
	CHECK_EQ_INT(pkt_meta(got[0])->kind, PKT_FRAME);
	CHECK_EQ_INT(got[0]->port, port_id);
	return got[0];
}

/* Frames the stage answers or refuses beyond the UDP path: a chained
 * mbuf, a ping and an ARP request (answered in place, out on the RX
 * port), an IP packet with no room for a UDP header, and a datagram
 * whose correct UDP checksum must not cover the frame's padding. */
static void test_more_frames(void)
{
	uint8_t buf[512];
	struct rte_mbuf *got[8];
	struct frame_opts o = defaults();
	size_t len = dgram(buf, sizeof(buf), 0, 5, 1, 1, 1);

	/* two segments */
	struct rte_mbuf *m = frame(&o, buf, len), *tail = rte_pktmbuf_alloc(pool);
	memset(rte_pktmbuf_append(tail, 10), 0, 10);
	CHECK_EQ_INT(rte_pktmbuf_chain(m, tail), 0);
	POLL_ONE(m);
	MOVED("rx_multiseg", 1, 1);
	CHECK_EQ_INT(rte_mempool_in_use_count(pool), 0); /* both segments freed */

	/* a ping: ICMP echo request of 8 + 20 bytes over the UDP header's place */
	o.proto = IPPROTO_ICMP;
	m = frame(&o, buf, 20);
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	icmp->icmp_code = 0;
	icmp->icmp_cksum = 0;
	icmp->icmp_ident = rte_cpu_to_be_16(77);
	icmp->icmp_seq_nb = rte_cpu_to_be_16(3);
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, 28);
	POLL_ONE(m);
	MOVED("icmp_echo", 1, 1);
	struct rte_mbuf *ans = answer();
	if (ans != NULL) {
		ip = rte_pktmbuf_mtod_offset(ans, struct rte_ipv4_hdr *,
					     sizeof(struct rte_ether_hdr));
		CHECK_EQ_INT(rte_be_to_cpu_32(ip->dst_addr), PEER_IP);
		CHECK_EQ_INT(((struct rte_icmp_hdr *)(ip + 1))->icmp_type, RTE_IP_ICMP_ECHO_REPLY);
		rte_pktmbuf_free(ans);
	}

	/* who has 10.0.0.1? (a request as spated's own ARP would ask it) */
	POLL_ONE(net_arp_frame(pool, port_id, &peer_mac, PEER_IP, OUR_IP));
	MOVED("arp_requests,arp_replies", 1, 1);
	ans = answer();
	if (ans != NULL) {
		struct rte_arp_hdr *a = rte_pktmbuf_mtod_offset(ans, struct rte_arp_hdr *,
								sizeof(struct rte_ether_hdr));
		CHECK_EQ_INT(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REPLY);
		CHECK_EQ_INT(rte_be_to_cpu_32(a->arp_data.arp_tip), PEER_IP);
		rte_pktmbuf_free(ans);
	}

	/* an IP header and nothing after it: no room for UDP */
	o = defaults();
	o.tot_delta = -8;
	m = frame(&o, buf, 0);
	/* what lies past the frame must not be read as a UDP header: zeros
	 * there would even claim a length of 0 */
	memset(rte_pktmbuf_mtod_offset(m, uint8_t *, 34), 0, 8);
	rte_pktmbuf_trim(m, 8);
	POLL_ONE(m);
	MOVED("udp_bad_len", 1, 1);

	/* a correct checksum, then 4 bytes of padding that are not zeros */
	o = defaults();
	o.udp_cksum = true;
	o.tot_delta = -4;
	o.udp_len_delta = -4;
	memset(buf + len, 0xee, 4);
	POLL_ONE(frame(&o, buf, len + 4));
	MOVED("dgrams", 1, 1);
	unsigned int n = drain(to_cluster, got, 8);
	CHECK_EQ_INT(n, 1);
	if (n == 1)
		CHECK_EQ_INT(rte_pktmbuf_data_len(got[0]), len);
	free_all(got, n);
	CHECK_EQ_INT(rte_mempool_in_use_count(pool), 0);

	/* checksums of many datagrams (sums with and without carries):
	 * every correct one taken, every wrong one refused */
	o = defaults();
	for (int bad = 0; bad < 2; bad++) {
		o.udp_cksum = !bad;
		o.bad_udp_cksum = bad;
		mark();
		for (uint32_t i = 0; i < 48; i++) {
			len = dgram(buf, sizeof(buf), 0, 1000 + i * 7919, i * 104729, 1 + i % 3,
				    (uint64_t)i << (i % 40));
			put(frame(&o, buf, len));
			CHECK_EQ_INT(stage_rx_poll(rx), 1);
			free_all(got, drain(to_cluster, got, 8));
		}
		CHECK_EQ_INT(SINCE(dgrams), bad ? 0 : 48);
		CHECK_EQ_INT(SINCE(udp_bad_csum), bad ? 48 : 0);
	}
	/* the end-around carry: a source whose pseudo-header sums to
	 * 0xffff, so the datagram's own sum is 0xffff too and the two add
	 * up to 0x1fffe (RFC 1071: folds to 0xffff, correct) */
	o = defaults();
	o.udp_cksum = true;
	len = dgram(buf, sizeof(buf), 0, 5, 1, 1, 1);
	m = frame(&o, buf, len);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	uint32_t lo = 1;
	for (; lo < 0xffff; lo++) {
		ip->src_addr = rte_cpu_to_be_32(0x0a010000u | lo);
		if (rte_ipv4_phdr_cksum(ip, 0) == 0xffff)
			break;
	}
	rte_pktmbuf_free(m);
	CHECK(lo < 0xffff);
	o.src_ip = 0x0a010000u | lo;
	POLL_ONE(frame(&o, buf, len));
	CHECK_EQ_INT(SINCE(dgrams), 1);
	CHECK_EQ_INT(SINCE(udp_bad_csum), 0);
	free_all(got, drain(to_cluster, got, 8));
	free_all(got, drain(to_tx, got, 8));
}

/* tx_out on its own: datagrams copied into mbufs with their kind, their
 * destination and the stamp of now; a burst reaches the ring at the
 * flush; what the ring does not take is freed and counted, a lost
 * neighbour notice reported; a payload no mbuf holds, or no mbuf at
 * all: no_mbuf; what is still pending at the end is freed. */
static int lost_calls;
static uint32_t lost_ip;

static void on_lost(void *ctx, uint32_t ip)
{
	CHECK(ctx == &lost_calls);
	lost_calls++;
	lost_ip = ip;
}

static void test_tx_out(void)
{
	struct rte_ring *r =
		rte_ring_create("app_txo", 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct tx_out t;
	struct rte_mbuf *got[8];
	static uint8_t big[70000];
	const struct spate_dest to = { PEER_IP, 4321 };

	/* a fresh one: no stamp, no neighbour callback, whatever was there */
	memset(&t, 0xa5, sizeof(t));
	CHECK_EQ_INT(tx_out_init(&t, r, pool), 0);
	for (int i = 0; i < 3; i++)
		tx_out_payload(&t, to, "abc", 3);
	struct rte_mbuf *nm = rte_pktmbuf_alloc(pool);
	pkt_meta(nm)->kind = PKT_NEIGH;
	tx_out_packet(&t, nm); /* the ring takes 3: nm is dropped */
	tx_out_flush(&t);
	unsigned int n = drain(r, got, 8);
	CHECK_EQ_INT(n, 3);
	if (n == 3)
		CHECK_EQ_INT(pkt_meta(got[0])->rx_tsc, 0);
	free_all(got, n);
	CHECK_EQ_INT(rte_mempool_in_use_count(pool), 0);
	t.neigh_lost = on_lost;
	t.ctx = &lost_calls;
	t.stamp = 123456789;
	mark();
	tx_out_payload(&t, to, "abc", 3);
	t.stamp = 0;
	tx_out_peer(&t, (struct spate_dest){ PEER_IP + 1, 99 }, "hello", 5);
	CHECK_EQ_INT(rte_ring_count(r), 0); /* a burst, not yet flushed */
	tx_out_flush(&t);
	n = drain(r, got, 8);
	CHECK_EQ_INT(n, 2);
	if (n == 2) {
		CHECK_EQ_INT(pkt_meta(got[0])->kind, PKT_PAYLOAD);
		CHECK_EQ_INT(pkt_meta(got[0])->peer.ipv4, PEER_IP);
		CHECK_EQ_INT(pkt_meta(got[0])->peer.port, 4321);
		CHECK_EQ_INT(pkt_meta(got[0])->rx_tsc, 123456789);
		CHECK_EQ_INT(rte_pktmbuf_data_len(got[0]), 3);
		CHECK(memcmp(rte_pktmbuf_mtod(got[0], void *), "abc", 3) == 0);
		CHECK_EQ_INT(pkt_meta(got[1])->kind, PKT_PEER);
		CHECK_EQ_INT(pkt_meta(got[1])->peer.ipv4, PEER_IP + 1);
		CHECK_EQ_INT(pkt_meta(got[1])->peer.port, 99);
		CHECK_EQ_INT(pkt_meta(got[1])->rx_tsc, 0);
		CHECK_EQ_INT(rte_pktmbuf_data_len(got[1]), 5);
		CHECK(memcmp(rte_pktmbuf_mtod(got[1], void *), "hello", 5) == 0);
		/* the headers TX adds fit in front */
		CHECK(rte_pktmbuf_headroom(got[0]) >= 42);
	}
	free_all(got, n);
	/* 5 into a ring of 3: 2 freed and counted; the lost one is a
	 * neighbour notice */
	for (int i = 0; i < 4; i++)
		tx_out_payload(&t, to, "x", 1);
	nm = rte_pktmbuf_alloc(pool);
	pkt_meta(nm)->kind = PKT_NEIGH;
	pkt_meta(nm)->peer.ipv4 = 0x0a0000aa;
	tx_out_packet(&t, nm);
	lost_calls = 0;
	tx_out_flush(&t);
	CHECK_EQ_INT(SINCE(ring_full_tx), 2);
	CHECK_EQ_INT(lost_calls, 1);
	CHECK_EQ_INT(lost_ip, 0x0a0000aa);
	CHECK_EQ_INT(rte_mempool_in_use_count(pool), 3);
	free_all(got, drain(r, got, 8));
	/* without a neigh_lost: just freed */
	t.neigh_lost = NULL;
	for (int i = 0; i < 3; i++)
		tx_out_payload(&t, to, "x", 1);
	nm = rte_pktmbuf_alloc(pool);
	pkt_meta(nm)->kind = PKT_NEIGH;
	tx_out_packet(&t, nm);
	tx_out_flush(&t);
	CHECK_EQ_INT(lost_calls, 1);
	free_all(got, drain(r, got, 8));
	CHECK_EQ_INT(rte_mempool_in_use_count(pool), 0);
	/* too large for an mbuf, too large for a frame: counted, nothing kept */
	mark();
	tx_out_payload(&t, to, big, 3000);
	tx_out_payload(&t, to, big, sizeof(big));
	CHECK_EQ_INT(SINCE(no_mbuf), 2);
	CHECK_EQ_INT(rte_mempool_in_use_count(pool), 0);
	/* no mbuf at all */
	static struct rte_mbuf *hoard[2048];
	unsigned int h = 0;
	while (h < 2048 && (hoard[h] = rte_pktmbuf_alloc(pool)) != NULL)
		h++;
	tx_out_payload(&t, to, "x", 1);
	CHECK_EQ_INT(SINCE(no_mbuf), 3);
	free_all(hoard, h);
	/* pending at the end: freed */
	tx_out_payload(&t, to, "x", 1);
	tx_out_payload(&t, to, "y", 1);
	CHECK_EQ_INT(rte_mempool_in_use_count(pool), 2);
	tx_out_fini(&t);
	CHECK_EQ_INT(rte_mempool_in_use_count(pool), 0);
	CHECK_EQ_INT(rte_ring_count(r), 0);
	rte_ring_free(r);
}

/* Creating a stage whose allocations fail one after the other: NULL
 * each time, nothing left allocated; one that is made and destroyed
 * leaves nothing either. */
static void test_create_fails(void)
{
	struct rte_ring *to_link =
		rte_ring_create("app_to_link2", 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct stage_rx_conf c = rx_conf(to_cluster, to_link, 47110);
	long live0 = n_live, k;
	struct stage_rx *s = NULL;

	for (k = 1; k < 20 && s == NULL; k++) {
		allocs = 0;
		fail_at = k;
		s = stage_rx_create(&c);
		fail_at = 0;
		if (s == NULL)
			CHECK_EQ_INT(n_live, live0);
	}
	CHECK(k > 5); /* the stage, its rate limiter and three rings' buffers */
	stage_rx_destroy(s);
	CHECK_EQ_INT(n_live, live0);
	CHECK_EQ_INT(bad_frees, 0);
	rte_ring_free(to_link);
}

/* net_init on a struct that held anything before: the port, its MAC
 * and address, the port list of one, and every other field zero (no
 * callbacks, no MTU, no peer port, not shedding, an empty neighbour
 * table); a frame through it reaches its on_udp. */
static int net_udp_calls;

static void net_udp(void *ctx, struct rte_mbuf *m, const uint8_t *buf, size_t len,
		    struct spate_dest src)
{
	(void)buf;
	(void)len;
	CHECK(ctx == &net_udp_calls);
	CHECK_EQ_INT(src.ipv4, PEER_IP);
	CHECK_EQ_INT(src.port, SRC_PORT);
	net_udp_calls++;
	rte_pktmbuf_free(m);
}

static void test_net_init(void)
{
	static struct net n, clean;
	const struct rte_ether_addr mac = { { 0x02, 0, 0, 0, 3, 0x01 } };
	uint8_t buf[512];
	struct frame_opts o = defaults();

	memset(&n, 0xa5, sizeof(n));
	net_init(&n, 3, pool, &mac, OUR_IP, OUR_PORT);
	CHECK_EQ_INT(n.port_id, 3);
	CHECK(n.mp == pool);
	CHECK(rte_is_same_ether_addr(&n.mac, &mac));
	CHECK_EQ_INT(n.ip, OUR_IP);
	CHECK_EQ_INT(n.udp_port, OUR_PORT);
	CHECK_EQ_INT(n.n_ports, 1);
	CHECK_EQ_INT(n.ports[0], 3);
	CHECK(rte_is_same_ether_addr(&n.macs[0], &mac));
	CHECK_EQ_INT(n.arp_gap, rte_get_tsc_hz()); /* one request a second */
	/* every other byte as on memory that was zero */
	net_init(&clean, 3, pool, &mac, OUR_IP, OUR_PORT);
	CHECK(memcmp(&n, &clean, sizeof(n)) == 0);
	CHECK_EQ_INT(clean.mtu, 0);
	CHECK_EQ_INT(clean.peer_port, 0);
	CHECK(clean.on_learn == NULL && !clean.shed_udp);
	n.on_udp = net_udp;
	n.ctx = &net_udp_calls;
	o.dst_mac = &mac;
	net_rx(&n, frame(&o, buf, dgram(buf, sizeof(buf), 0, 5, 1, 1, 1)));
	CHECK_EQ_INT(net_udp_calls, 1);
}

/* A match host's RX (multihost): no cluster stage, so client datagrams
 * are udp_other_port; inter-host frames (peer_port) go to the link
 * stage's ring, trimmed, with their source; a full link ring drops and
 * counts them (the channel resends). */
static void test_match_host(void)
{
	struct rte_ring *to_link =
		rte_ring_create("app_to_link", 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct stage_rx_conf c = rx_conf(NULL, to_link, 47110);
	long live0 = n_live;
	struct stage_rx *mh = stage_rx_create(&c);
	uint8_t buf[512];
	struct rte_mbuf *got[16];
	struct frame_opts o = defaults();
	size_t len = dgram(buf, sizeof(buf), 0, 5, 1, 1, 1);

	CHECK(mh != NULL && to_link != NULL);
	put(frame(&o, buf, len));
	mark();
	CHECK_EQ_INT(stage_rx_poll(mh), 1);
	MOVED("udp_other_port", 1, 1);
	o.dport = 47110;
	for (int i = 0; i < 5; i++) {
		buf[20] = (uint8_t)i;
		put(frame(&o, buf, len));
	}
	mark();
	CHECK_EQ_INT(stage_rx_poll(mh), 5);
	MOVED("ring_full_rx", 2, 5);
	unsigned int n = drain(to_link, got, 16);
	CHECK_EQ_INT(n, 3);
	for (unsigned int i = 0; i < n; i++) {
		CHECK_EQ_INT(pkt_meta(got[i])->kind, PKT_PEER);
		CHECK_EQ_INT(pkt_meta(got[i])->peer.ipv4, PEER_IP);
		CHECK_EQ_INT(pkt_meta(got[i])->peer.port, SRC_PORT);
		CHECK_EQ_INT(rte_pktmbuf_data_len(got[i]), len);
		CHECK_EQ_INT(rte_pktmbuf_mtod(got[i], uint8_t *)[20], i);
	}
	free_all(got, n);
	free_all(got, drain(to_tx, got, 16));
	stage_rx_destroy(mh);
	/* any port number, 1 too */
	c = rx_conf(NULL, to_link, 1);
	mh = stage_rx_create(&c);
	o.dport = 1;
	put(frame(&o, buf, len));
	CHECK_EQ_INT(stage_rx_poll(mh), 1);
	n = drain(to_link, got, 16);
	CHECK_EQ_INT(n, 1);
	free_all(got, n);
	free_all(got, drain(to_tx, got, 16));
	stage_rx_destroy(mh);
	CHECK_EQ_INT(n_live, live0); /* everything the stage had, freed */
	rte_ring_free(to_link);
}

int main(void)
{
	app_eal_start("app-rx");
	spated_counters_bind(rte_lcore_id());
	spate_limits_default(&lim);
	pool = rte_pktmbuf_pool_create("app_rx_pool", 1023, 0, PKT_META_SIZE,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	port_rx = rte_ring_create("app_port_rx", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	port_tx = rte_ring_create("app_port_tx", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	to_cluster = rte_ring_create("app_to_cl", 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	to_tx = rte_ring_create("app_to_tx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pool == NULL || port_rx == NULL || port_tx == NULL || to_cluster == NULL ||
	    to_tx == NULL) {
		fprintf(stderr, "no pool or rings\n");
		return 2;
	}
	int p = app_ring_port("rx", pool, &port_rx, &port_tx);
	if (p < 0) {
		fprintf(stderr, "net_ring port\n");
		return 2;
	}
	port_id = (uint16_t)p;
	struct stage_rx_conf c = rx_conf(to_cluster, NULL, 0);
	rx = stage_rx_create(&c);
	if (rx == NULL) {
		fprintf(stderr, "stage_rx_create\n");
		return 2;
	}
	/* each case leaves every mbuf back in the pool */
	void (*const cases[])(void) = { test_deliver,     test_drops,     test_header,
					test_overload,    test_tx_full,   test_sources,
					test_more_frames, test_tx_out,    test_create_fails,
					test_net_init,    test_match_host };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cases[i]();
		if (rte_mempool_in_use_count(pool) != 0) {
			fprintf(stderr, "case %zu: %u mbufs in use\n", i,
				rte_mempool_in_use_count(pool));
			check_failed();
		}
	}
	stage_rx_destroy(rx);
	rte_eth_dev_stop(port_id);
	rte_eth_dev_close(port_id);
	return check_summary("app_rx");
}
