/* test_app_tx.c - the TX stage (app/net/stage_tx.c, app/net/net_tx.c) on a
 * net_ring port: payloads queued as the other stages queue them come out
 * of the port's TX ring as frames, checked byte by byte (MACs, IPv4 and
 * UDP headers, both checksums, the receiver's sequence number stamped);
 * an unknown neighbour holds the frame and asks by ARP, its answer
 * releases it; off-link destinations go to the gateway; unreachable ones
 * are counted; a port that takes only part of a burst costs exactly the
 * frames it did not take (tx, tx_drops, tx_bursts, tx_bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "app_eal.h"
#include "app_port.h"
#include "check.h"
#include "infra/counters.h"
#include "infra/latency.h"
#include "infra/pl_msg.h"
#include "proto/spate_proto.h"
#include "net/stage_tx.h"

#define OUR_IP 0x0a000001u /* 10.0.0.1/24 */
#define PEER_IP 0x0a000002u
#define GW_IP 0x0a0000feu
#define FAR_IP 0xc0a80105u /* 192.168.1.5: off the link */
#define OUR_PORT 47100

static struct rte_mempool *pool;
static struct rte_ring *port_rx, *port_tx, *in, *port1_rx, *port1_tx;
static struct stage_tx *tx;
static const struct rte_ether_addr our_mac = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr peer_mac = { { 0x02, 0, 0, 0, 0, 0x02 } };
static const struct rte_ether_addr gw_mac = { { 0x02, 0, 0, 0, 0, 0xfe } };
static const struct rte_ether_addr our_macs[2] = { { { 0x02, 0, 0, 0, 0, 0x01 } },
						   { { 0x02, 0, 0, 0, 1, 0x01 } } };
static unsigned long polls; /* stage_tx_poll calls so far */

/* The port's burst function, wrapped: at most `take` frames a call
 * (0: as many as the ring takes), every call counted. A port that takes
 * a burst in pieces, as af_packet does when its ring is nearly full. */
static eth_tx_burst_t ring_tx_burst;
static uint16_t take;
static unsigned int tx_calls;

static uint16_t scripted_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n)
{
	tx_calls++;
	return ring_tx_burst(txq, pkts, take != 0 && n > take ? take : n);
}
static struct spated_counters before, now;

static void mark(void)
{
	spated_counters_sum(&before);
}

#define CNT(f) (now.f - before.f)

static void poll_tx(unsigned int want)
{
	polls++;
	CHECK_EQ_INT(stage_tx_poll(tx), want);
	spated_counters_sum(&now);
}

/* A datagram of `len` bytes (a valid header, seq 0) for `to`. */
static void payload(uint32_t ip, uint16_t port, size_t len, uint8_t fill)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	struct spate_writer w;

	memset(p, fill, len);
	spate_writer_init(&w, p, len, SPATE_FLAG_SERVER, 0, 0);
	spate_writer_finish(&w);
	memset(p + SPATE_HDR_LEN, fill, len - SPATE_HDR_LEN);
	pkt_meta(m)->kind = PKT_PAYLOAD;
	pkt_meta(m)->peer = (struct spate_dest){ ip, port };
	pkt_meta(m)->rx_tsc = rte_rdtsc() - 1000; /* timed: RX to TX */
	if (rte_ring_enqueue(in, m) != 0)
		abort();
}

static uint64_t timed(void)
{
	struct spate_hist h;
	struct spated_lat_summary sum;

	spated_lat_sum(SPATED_LAT_RX_TX, &h);
	spated_lat_summarize(&h, &sum);
	return sum.count;
}

static void neigh_on(uint32_t ip, const struct rte_ether_addr *mac, uint16_t port)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	pkt_meta(m)->kind = PKT_NEIGH;
	pkt_meta(m)->peer = (struct spate_dest){ ip, 0 };
	pkt_meta(m)->mac = *mac;
	m->port = port;
	if (rte_ring_enqueue(in, m) != 0)
		abort();
}

static void neigh(uint32_t ip, const struct rte_ether_addr *mac)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	pkt_meta(m)->kind = PKT_NEIGH;
	pkt_meta(m)->peer = (struct spate_dest){ ip, 0 };
	pkt_meta(m)->mac = *mac;
	m->port = 0;
	if (rte_ring_enqueue(in, m) != 0)
		abort();
}

static unsigned int sent(struct rte_mbuf **out, unsigned int max)
{
	return app_drain(port_tx, out, max);
}

#define free_all app_free_all

/* The frame must be our UDP datagram to ip:port via `mac`, its payload
 * `len` bytes of `fill` after the header; returns the stamped seq. */
static uint32_t check_frame(struct rte_mbuf *m, const struct rte_ether_addr *mac, uint32_t ip,
			    uint16_t port, size_t len, uint8_t fill)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)p;
	const struct rte_ipv4_hdr *iph = (const struct rte_ipv4_hdr *)(eth + 1);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(iph + 1);
	const uint8_t *pl = (const uint8_t *)(udp + 1);

	CHECK_EQ_INT(rte_pktmbuf_data_len(m), 42 + len);
	CHECK(rte_is_same_ether_addr(&eth->dst_addr, mac));
	CHECK(rte_is_same_ether_addr(&eth->src_addr, &our_mac));
	CHECK_EQ_INT(rte_be_to_cpu_16(eth->ether_type), RTE_ETHER_TYPE_IPV4);
	CHECK_EQ_INT(iph->version_ihl, 0x45);
	CHECK_EQ_INT(rte_be_to_cpu_16(iph->total_length), 28 + len);
	CHECK_EQ_INT(rte_be_to_cpu_16(iph->fragment_offset), RTE_IPV4_HDR_DF_FLAG);
	CHECK_EQ_INT(iph->time_to_live, 64);
	CHECK_EQ_INT(iph->next_proto_id, IPPROTO_UDP);
	CHECK_EQ_INT(rte_be_to_cpu_32(iph->src_addr), OUR_IP);
	CHECK_EQ_INT(rte_be_to_cpu_32(iph->dst_addr), ip);
	CHECK_EQ_INT(rte_raw_cksum(iph, sizeof(*iph)), 0xffff);
	CHECK_EQ_INT(rte_be_to_cpu_16(udp->src_port), OUR_PORT);
	CHECK_EQ_INT(rte_be_to_cpu_16(udp->dst_port), port);
	CHECK_EQ_INT(rte_be_to_cpu_16(udp->dgram_len), 8 + len);
	CHECK(udp->dgram_cksum != 0);
	/* pseudo-header + datagram, checksum included, sum to 0xffff */
	uint32_t sum = (uint32_t)rte_raw_cksum(udp, 8 + len) + rte_ipv4_phdr_cksum(iph, 0);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	CHECK_EQ_INT(sum, 0xffff);
	CHECK_EQ_INT(pl[0], 0x53); /* the header kept: magic "SP" */
	CHECK_EQ_INT(pl[1], 0x50);
	CHECK_EQ_INT(pl[SPATE_HDR_LEN], fill);
	CHECK_EQ_INT(pl[len - 1], fill);
	return (uint32_t)pl[12] << 24 | (uint32_t)pl[13] << 16 | (uint32_t)pl[14] << 8 | pl[15];
}

static void test_arp_and_release(void)
{
	struct rte_mbuf *got[64];

	/* unknown neighbour: held, and an ARP request asks for it */
	payload(PEER_IP, 5000, 40, 0xa1);
	payload(PEER_IP, 5000, 41, 0xa2);
	mark();
	poll_tx(2);
	CHECK_EQ_INT(CNT(arp_held), 2);
	CHECK_EQ_INT(CNT(arp_sent), 2); /* one request out of each port */
	CHECK_EQ_INT(CNT(tx), 2);
	void *arp1 = NULL;
	CHECK_EQ_INT(rte_ring_dequeue(port1_tx, &arp1), 0);
	if (arp1 != NULL) {
		const struct rte_ether_hdr *eth =
			rte_pktmbuf_mtod((struct rte_mbuf *)arp1, const struct rte_ether_hdr *);
		CHECK(rte_is_same_ether_addr(&eth->src_addr, &our_macs[1]));
		CHECK_EQ_INT(rte_be_to_cpu_16(eth->ether_type), RTE_ETHER_TYPE_ARP);
		rte_pktmbuf_free(arp1);
	}
	unsigned int n = sent(got, 64);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		const struct rte_ether_hdr *eth =
			rte_pktmbuf_mtod(got[0], const struct rte_ether_hdr *);
		const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(eth + 1);
		CHECK(rte_is_broadcast_ether_addr(&eth->dst_addr));
		CHECK_EQ_INT(rte_be_to_cpu_16(eth->ether_type), RTE_ETHER_TYPE_ARP);
		CHECK_EQ_INT(rte_be_to_cpu_16(arp->arp_opcode), RTE_ARP_OP_REQUEST);
		CHECK_EQ_INT(rte_be_to_cpu_32(arp->arp_data.arp_tip), PEER_IP);
		CHECK_EQ_INT(rte_be_to_cpu_32(arp->arp_data.arp_sip), OUR_IP);
	}
	free_all(got, n);
	/* the answer (RX tells TX): both go, in order, numbered in turn */
	neigh(PEER_IP, &peer_mac);
	mark();
	poll_tx(1);
	CHECK_EQ_INT(CNT(arp_released), 2);
	CHECK_EQ_INT(CNT(tx), 2);
	CHECK_EQ_INT(CNT(tx_bytes), 82 + 83);
	n = sent(got, 64);
	CHECK_EQ_INT(n, 2);
	if (n == 2) {
		uint32_t s0 = check_frame(got[0], &peer_mac, PEER_IP, 5000, 40, 0xa1);
		uint32_t s1 = check_frame(got[1], &peer_mac, PEER_IP, 5000, 41, 0xa2);
		CHECK_EQ_INT(s0, 1); /* a receiver's first datagram is 1 */
		CHECK_EQ_INT(s1, 2);
	}
	free_all(got, n);
	/* known now: straight out; the sequence goes on per receiver */
	payload(PEER_IP, 5000, 30, 0xb1);
	payload(PEER_IP, 5001, 30, 0xb2);
	payload(PEER_IP, 5000, 30, 0xb3);
	mark();
	poll_tx(3);
	CHECK_EQ_INT(CNT(tx), 3);
	CHECK_EQ_INT(CNT(tx_bursts), 1); /* one poll, one burst */
	CHECK_EQ_INT(CNT(arp_sent), 0);
	n = sent(got, 64);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		uint32_t a = check_frame(got[0], &peer_mac, PEER_IP, 5000, 30, 0xb1);
		uint32_t b = check_frame(got[1], &peer_mac, PEER_IP, 5001, 30, 0xb2);
		uint32_t c = check_frame(got[2], &peer_mac, PEER_IP, 5000, 30, 0xb3);
		CHECK_EQ_INT(a, 3); /* after the two released: 1, 2 */
		CHECK_EQ_INT(c, 4);
		CHECK_EQ_INT(b, 1); /* another receiver: its own sequence */
	}
	free_all(got, n);
}

static void test_routes(void)
{
	struct rte_mbuf *got[64];

	/* off the link: to the gateway's MAC, the IP destination kept */
	neigh(GW_IP, &gw_mac);
	payload(FAR_IP, 6000, 20, 0xc1);
	mark();
	poll_tx(2);
	unsigned int n = sent(got, 64);
	CHECK_EQ_INT(n, 1);
	if (n == 1)
		check_frame(got[0], &gw_mac, FAR_IP, 6000, 20, 0xc1);
	free_all(got, n);
	/* on the link, an address not known: asked for itself, not the gateway */
	payload(0x0a000003, 6000, 20, 0xc2);
	mark();
	poll_tx(1);
	CHECK_EQ_INT(CNT(arp_held), 1);
	CHECK_EQ_INT(CNT(arp_sent), 2);
	n = sent(got, 64);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		const struct rte_ether_hdr *eth =
			rte_pktmbuf_mtod(got[0], const struct rte_ether_hdr *);
		const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(eth + 1);
		CHECK_EQ_INT(rte_be_to_cpu_32(arp->arp_data.arp_tip), 0x0a000003);
	}
	free_all(got, n);
	/* unreachable: nothing sent, counted */
	static const uint32_t bad[] = { 0, OUR_IP, 0xe0000001, 0xf0000001 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		payload(bad[i], 6000, 20, 0xc3);
	mark();
	poll_tx(4);
	CHECK_EQ_INT(CNT(no_neighbour), 4);
	CHECK_EQ_INT(CNT(tx), 0);
	CHECK_EQ_INT(sent(got, 64), 0);
	/* 0xdfffffff, the last unicast address: routed (via the gateway) */
	payload(0xdfffffff, 6000, 20, 0xc4);
	mark();
	poll_tx(1);
	CHECK_EQ_INT(CNT(no_neighbour), 0);
	CHECK_EQ_INT(CNT(tx), 1);
	free_all(got, sent(got, 64));
}

/* A ready frame (PKT_FRAME: an ARP or ping answer RX built) leaves as
 * it is, on the port it names, counted, not timed as a notification. */
static void test_frame(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *got[4];
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, 60);
	uint64_t timed0 = timed();

	for (int i = 0; i < 60; i++)
		p[i] = (uint8_t)(i * 7 + 1);
	pkt_meta(m)->kind = PKT_FRAME;
	pkt_meta(m)->rx_tsc = rte_rdtsc() - 1000;
	m->port = 0;
	if (rte_ring_enqueue(in, m) != 0)
		abort();
	mark();
	poll_tx(1);
	unsigned int n = sent(got, 4);
	CHECK_EQ_INT(n, 1);
	if (n == 1) {
		CHECK_EQ_INT(rte_pktmbuf_data_len(got[0]), 60);
		p = rte_pktmbuf_mtod(got[0], uint8_t *);
		for (int i = 0; i < 60; i++)
			CHECK_EQ_INT(p[i], (uint8_t)(i * 7 + 1));
	}
	CHECK_EQ_INT(CNT(tx), 1);
	CHECK_EQ_INT(CNT(tx_bytes), 60);
	CHECK_EQ_INT(timed(), timed0);
	free_all(got, n);
}

static void test_bursts(void)
{
	struct rte_mbuf *got[128];
	unsigned int cap = rte_ring_get_capacity(port_tx);

	/* 40 frames, bursts of 32: one full burst sent as it fills, the
	 * rest at the end of the poll */
	for (int i = 0; i < 40; i++)
		payload(PEER_IP, 7000, 20, (uint8_t)i);
	mark();
	poll_tx(40);
	CHECK_EQ_INT(CNT(tx), 40);
	CHECK_EQ_INT(CNT(tx_bursts), 2);
	CHECK_EQ_INT(CNT(tx_drops), 0);
	CHECK_EQ_INT(CNT(tx_bytes), 40 * 62);
	unsigned int n = sent(got, 128);
	CHECK_EQ_INT(n, 40);
	free_all(got, n);
	/* a port that takes 3 a call: 8 frames go in 3 calls, in order,
	 * each timed once */
	take = 3;
	tx_calls = 0;
	for (int i = 0; i < 8; i++)
		payload(PEER_IP, 7001, 20, (uint8_t)(0x40 + i));
	uint64_t t0 = timed();
	mark();
	poll_tx(8);
	CHECK_EQ_INT(tx_calls, 3);
	CHECK_EQ_INT(CNT(tx_bursts), 3);
	CHECK_EQ_INT(CNT(tx), 8);
	CHECK_EQ_INT(CNT(tx_drops), 0);
	CHECK_EQ_INT(timed() - t0, 8);
	n = sent(got, 128);
	CHECK_EQ_INT(n, 8);
	for (unsigned int i = 0; i < n; i++)
		check_frame(got[i], &peer_mac, PEER_IP, 7001, 20, (uint8_t)(0x40 + i));
	free_all(got, n);
	/* 2 a call, 4 calls at most: 8 of 10 sent, 2 dropped */
	take = 2;
	tx_calls = 0;
	for (int i = 0; i < 10; i++)
		payload(PEER_IP, 7001, 20, (uint8_t)(0x50 + i));
	t0 = timed();
	mark();
	poll_tx(10);
	CHECK_EQ_INT(tx_calls, 4);
	CHECK_EQ_INT(CNT(tx), 8);
	CHECK_EQ_INT(CNT(tx_drops), 2);
	CHECK_EQ_INT(CNT(tx_bytes), 8 * 62);
	CHECK_EQ_INT(timed() - t0, 8);
	n = sent(got, 128);
	CHECK_EQ_INT(n, 8);
	for (unsigned int i = 0; i < n; i++)
		check_frame(got[i], &peer_mac, PEER_IP, 7001, 20, (uint8_t)(0x50 + i));
	free_all(got, n);
	take = 0;
	/* a port that takes fewer: 4 tries, then the rest dropped, counted,
	 * their bytes not counted as sent */
	void *fill[128];
	unsigned int k = 0;
	while (k < cap - 5 && (fill[k] = rte_pktmbuf_alloc(pool)) != NULL)
		k++;
	CHECK_EQ_INT(rte_ring_enqueue_bulk(port_tx, fill, k, NULL), k);
	for (int i = 0; i < 8; i++)
		payload(PEER_IP, 7000, 20, (uint8_t)i);
	mark();
	poll_tx(8);
	CHECK_EQ_INT(CNT(tx), 5);
	CHECK_EQ_INT(CNT(tx_drops), 3);
	CHECK_EQ_INT(CNT(tx_bursts), 4);
	CHECK_EQ_INT(CNT(tx_bytes), 5 * 62);
	n = sent(got, 128);
	CHECK_EQ_INT(n, k + 5);
	free_all(got, n);
}

/* A neighbour that never answers: its frame is dropped at the sweep
 * (every 1024 polls) after 3 s, counted arp_unresolved. */
static void test_expiry(void)
{
	struct rte_mbuf *got[64];

	payload(0x0a000063, 6000, 20, 0xd1); /* 10.0.0.99: nobody */
	mark();
	poll_tx(1);
	CHECK_EQ_INT(CNT(arp_held), 1);
	free_all(got, sent(got, 64));
	while (polls % 1024 != 1023)
		poll_tx(0);
	CHECK_EQ_INT(CNT(arp_unresolved), 0);
	usleep(3200 * 1000);
	poll_tx(0);                           /* the 1024th: the sweep */
	CHECK_EQ_INT(CNT(arp_unresolved), 2); /* and 10.0.0.3's of test_routes */
	CHECK_EQ_INT(CNT(tx), 2);             /* the ARP requests only */
	free_all(got, sent(got, 64));
	/* held at the stage's end: given back, counted the same way */
	payload(0x0a000064, 6000, 20, 0xd2);
	poll_tx(1);
	free_all(got, sent(got, 64));
}

/* A neighbour behind the second port: its frames leave there, from
 * that port's MAC. */
static void test_second_port(void)
{
	struct rte_mbuf *got[64];
	void *obj = NULL;

	while (rte_ring_dequeue(port1_tx, &obj) == 0) /* earlier ARP requests */
		rte_pktmbuf_free(obj);
	obj = NULL;
	neigh_on(0x0a000005, &peer_mac, 1);
	payload(0x0a000005, 6000, 20, 0xe1);
	mark();
	poll_tx(2);
	CHECK_EQ_INT(CNT(tx), 1);
	CHECK_EQ_INT(sent(got, 64), 0);
	CHECK_EQ_INT(rte_ring_dequeue(port1_tx, &obj), 0);
	if (obj != NULL) {
		const struct rte_ether_hdr *eth =
			rte_pktmbuf_mtod((struct rte_mbuf *)obj, const struct rte_ether_hdr *);
		CHECK(rte_is_same_ether_addr(&eth->src_addr, &our_macs[1]));
		CHECK(rte_is_same_ether_addr(&eth->dst_addr, &peer_mac));
		rte_pktmbuf_free(obj);
	}
}

int main(void)
{
	app_eal_start("app-tx");
	spated_counters_bind(rte_lcore_id());
	pool = rte_pktmbuf_pool_create("app_tx_pool", 1023, 0, PKT_META_SIZE,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	port_rx =
		rte_ring_create("app_tx_port_rx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	port_tx = rte_ring_create("app_tx_port_tx", 128, SOCKET_ID_ANY,
				  RING_F_SP_ENQ | RING_F_SC_DEQ);
	in = rte_ring_create("app_tx_in", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pool == NULL || port_rx == NULL || port_tx == NULL || in == NULL) {
		fprintf(stderr, "no pool or rings\n");
		return 2;
	}
	port1_rx = rte_ring_create("app_tx_port1_rx", 64, SOCKET_ID_ANY,
				   RING_F_SP_ENQ | RING_F_SC_DEQ);
	port1_tx = rte_ring_create("app_tx_port1_tx", 64, SOCKET_ID_ANY,
				   RING_F_SP_ENQ | RING_F_SC_DEQ);
	int p0 = app_ring_port("tx0_", pool, &port_rx, &port_tx);
	int p1 = port1_rx && port1_tx ? app_ring_port("tx1_", pool, &port1_rx, &port1_tx) : -1;
	if (p0 != 0 || p1 != 1) {
		fprintf(stderr, "net_ring ports: %d %d\n", p0, p1);
		return 2;
	}
	ring_tx_burst = rte_eth_fp_ops[0].tx_pkt_burst;
	rte_eth_fp_ops[0].tx_pkt_burst = scripted_tx_burst;
	uint16_t ports[2] = { 0, 1 };
	struct stage_tx_conf c = { .port_id = 0,
				   .queue_id = 0,
				   .n_ports = 2,
				   .ports = ports,
				   .macs = our_macs,
				   .pool = pool,
				   .mac = our_mac,
				   .ipv4 = OUR_IP,
				   .mask = 0xffffff00,
				   .gw = GW_IP,
				   .udp_port = OUR_PORT,
				   .max_payload = 1472,
				   .max_messages = 64,
				   .burst = 32,
				   .in = &in,
				   .n_in = 1 };
	tx = stage_tx_create(&c);
	if (tx == NULL) {
		fprintf(stderr, "stage_tx_create\n");
		return 2;
	}
	test_arp_and_release();
	test_frame();
	test_routes();
	test_bursts();
	test_second_port();
	test_expiry();
	mark();
	stage_tx_destroy(tx);
	spated_counters_sum(&now);
	CHECK_EQ_INT(CNT(arp_unresolved), 1);
	for (uint16_t p = 0; p < 2; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	return check_summary("app_tx");
}
