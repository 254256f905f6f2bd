/* port_stats.h - what the ports, and the kernel under a net_af_packet
 * port, dropped before spated saw a frame or after it handed one over.
 *
 * rte_eth_stats summed over the ports (ipackets, imissed, ierrors,
 * rx_nombuf, opackets, oerrors) and, for net_af_packet, the drops of the
 * kernel's receive ring: DPDK 22.11's af_packet PMD reports no imissed,
 * so spated reads PACKET_STATISTICS on the PMD's own sockets (found by
 * their interface index). The housekeeping callback copies them into the
 * main lcore's counter block (the port_* counters of counters.h), so the
 * counters line, telemetry and `spatectl show stats` show them like any
 * other counter. For net_af_packet also the kernel's IPv4 reassembly
 * (port_kernel_reasm_ok, _fails from /proc/net/snmp): the PMD has the
 * kernel reassemble fragments before spated sees them, and the fragments
 * of a datagram that never completes are dropped there (the figures are
 * the network namespace's). Only the main lcore calls port_stats_refresh():
 * PACKET_STATISTICS clears the kernel's figures as it reads them.
 */
#ifndef SPATED_PORT_STATS_H
#define SPATED_PORT_STATS_H

#include <stdint.h>

/* The started ports; finds each af_packet port's sockets. */
void port_stats_init(const uint16_t *ports, uint16_t n_ports);
/* Read the ports (and the kernel rings) into spated_cnt's port_*. */
void port_stats_refresh(void);
/* Every non-zero extended statistic of every port, as "pN_name". */
void port_stats_xstats(void (*fn)(void *ctx, const char *name, uint64_t v), void *ctx);
/* Close nothing, forget the sockets (before the ports close). */
void port_stats_fini(void);

#endif
