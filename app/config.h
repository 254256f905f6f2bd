/* config.h - spated's configuration: the common "spate" group (limits,
 * engine, quotas; lib/spate_conf.h) plus the daemon's own "spated" group:
 *
 *   spated: {
 *     eal = [ "--no-huge", "-m", "512", "--no-pci", "--file-prefix=spated" ];
 *     port: { device = "net_af_packet0,iface=spate0"; };
 *     ipv4 = "198.18.0.1";  udp_port = 47100;
 *     mtu = 1500;  mbufs = 4095;  rx_desc = 512;  tx_desc = 512;
 *     stats_interval = 0;   # seconds, 0 = off
 *     idle_sleep_us = 0;    # sleep when a poll finds nothing, 0 = busy poll
 *   };
 *
 * Every key is optional (defaults above); unknown keys are errors so that
 * typos do not silently fall back to a default.
 */
#ifndef SPATED_CONFIG_H
#define SPATED_CONFIG_H

#include <stdint.h>

#include "spate_conf.h"

#define SPATED_EAL_ARGS_MAX 64

struct spated_conf {
	struct spate_conf common;
	int n_eal;
	char *eal[SPATED_EAL_ARGS_MAX]; /* owned (strdup) */
	char device[256];               /* vdev string, "" = none */
	uint32_t ipv4;                  /* host byte order */
	uint16_t udp_port;
	uint32_t mtu, mbufs, rx_desc, tx_desc;
	uint32_t stats_interval;        /* seconds, 0 = off */
	uint32_t idle_sleep_us;
};

void spated_conf_default(struct spated_conf *c);
/* Load `path` (NULL = defaults only). 0, or -1 with "file:line: message"
 * in err. */
int spated_conf_load(struct spated_conf *c, const char *path, char *err, size_t errlen);
void spated_conf_free(struct spated_conf *c);

#endif
