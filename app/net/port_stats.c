/* port_stats.c - port and kernel ring drops (port_stats.h). */
#include <dirent.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include "infra/counters.h"
#include "net/port_stats.h"

#define PORTS_MAX 8
#define SOCKS_MAX 64 /* af_packet sockets: one per queue pair */

static uint16_t ports[PORTS_MAX], n_ports;
static int socks[SOCKS_MAX];
static unsigned int n_socks;
static uint64_t kernel_drops, kernel_packets; /* PACKET_STATISTICS clears on read */
static int snmp_fd = -1;                      /* /proc/net/snmp, when a port is net_af_packet */

/* The AF_PACKET sockets of this process bound to interface ifindex: the
 * af_packet PMD keeps them in its private queues; /proc/self/fd and
 * getsockname find them without reaching into DPDK's internals. */
static void find_packet_sockets(int ifindex)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && n_socks < SOCKS_MAX) {
		int fd = atoi(e->d_name), dom = 0;
		socklen_t len = sizeof(dom);
		struct sockaddr_ll sll;
		socklen_t slen = sizeof(sll);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d))
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) != 0 || dom != AF_PACKET)
			continue;
		if (getsockname(fd, (struct sockaddr *)&sll, &slen) != 0 ||
		    sll.sll_ifindex != ifindex)
			continue;
		socks[n_socks++] = fd;
	}
	closedir(d);
}

/* Fragments never reach spated through net_af_packet: the PMD asks the
 * kernel to reassemble (PACKET_FANOUT_FLAG_DEFRAG), and a datagram whose
 * fragments do not all come is dropped there. The kernel counts both in
 * the "Ip:" lines of /proc/net/snmp (ReasmOKs, ReasmFails) of this
 * network namespace - all of its traffic, spated's alone in a namespace
 * of its own. Two lines: the field names, then the values. */
static void read_reasm(void)
{
	char buf[4096];
	ssize_t n;

	if (snmp_fd < 0 || (n = pread(snmp_fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return;
	buf[n] = '\0';
	char *names = strstr(buf, "Ip: "), *values = names ? strstr(names + 4, "\nIp: ") : NULL;
	if (values == NULL)
		return;
	*values = '\0';
	values += 5;
	char *ns = NULL, *vs = NULL;
	char *name = strtok_r(names + 4, " \n", &ns), *value = strtok_r(values, " \n", &vs);
	for (; name != NULL && value != NULL;
	     name = strtok_r(NULL, " \n", &ns), value = strtok_r(NULL, " \n", &vs)) {
		if (strcmp(name, "ReasmOKs") == 0)
			spated_cnt.port_kernel_reasm_ok = strtoull(value, NULL, 10);
		else if (strcmp(name, "ReasmFails") == 0)
			spated_cnt.port_kernel_reasm_fails = strtoull(value, NULL, 10);
	}
}

void port_stats_init(const uint16_t *p, uint16_t n)
{
	n_ports = n < PORTS_MAX ? n : PORTS_MAX;
	n_socks = 0;
	for (uint16_t i = 0; i < n_ports; i++) {
		struct rte_eth_dev_info info;

		ports[i] = p[i];
		if (rte_eth_dev_info_get(p[i], &info) == 0 && info.driver_name != NULL &&
		    strcmp(info.driver_name, "net_af_packet") == 0 && info.if_index > 0) {
			find_packet_sockets((int)info.if_index);
			if (snmp_fd < 0)
				snmp_fd = open("/proc/net/snmp", O_RDONLY | O_CLOEXEC);
		}
	}
}

void port_stats_refresh(void)
{
	struct rte_eth_stats sum = { 0 }, es;

	for (uint16_t i = 0; i < n_ports; i++) {
		if (rte_eth_stats_get(ports[i], &es) != 0)
			continue;
		sum.ipackets += es.ipackets;
		sum.imissed += es.imissed;
		sum.ierrors += es.ierrors;
		sum.rx_nombuf += es.rx_nombuf;
		sum.opackets += es.opackets;
		sum.oerrors += es.oerrors;
	}
	for (unsigned int i = 0; i < n_socks; i++) {
		struct tpacket_stats st;
		socklen_t len = sizeof(st);

		if (getsockopt(socks[i], SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) {
			kernel_drops += st.tp_drops;
			kernel_packets += st.tp_packets; /* drops included */
		}
	}
	spated_cnt.port_ipackets = sum.ipackets;
	spated_cnt.port_imissed = sum.imissed;
	spated_cnt.port_ierrors = sum.ierrors;
	spated_cnt.port_rx_nombuf = sum.rx_nombuf;
	spated_cnt.port_opackets = sum.opackets;
	spated_cnt.port_oerrors = sum.oerrors;
	spated_cnt.port_kernel_drops = kernel_drops;
	spated_cnt.port_kernel_packets = kernel_packets;
	read_reasm();
}

void port_stats_xstats(void (*fn)(void *ctx, const char *name, uint64_t v), void *ctx)
{
	for (uint16_t i = 0; i < n_ports; i++) {
		int n = rte_eth_xstats_get(ports[i], NULL, 0);
		if (n <= 0)
			continue;
		struct rte_eth_xstat *v = calloc((size_t)n, sizeof(*v));
		struct rte_eth_xstat_name *names = calloc((size_t)n, sizeof(*names));
		if (v != NULL && names != NULL &&
		    rte_eth_xstats_get(ports[i], v, (unsigned int)n) == n &&
		    rte_eth_xstats_get_names(ports[i], names, (unsigned int)n) == n) {
			for (int k = 0; k < n; k++) {
				char key[RTE_ETH_XSTATS_NAME_SIZE + 8];
				if (v[k].value == 0 || v[k].id >= (uint64_t)n)
					continue;
				snprintf(key, sizeof(key), "p%u_%s", ports[i], names[v[k].id].name);
				fn(ctx, key, v[k].value);
			}
		}
		free(v);
		free(names);
	}
}

void port_stats_fini(void)
{
	n_socks = 0;
	n_ports = 0;
	if (snmp_fd >= 0)
		close(snmp_fd);
	snmp_fd = -1;
}
