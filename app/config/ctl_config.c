/* ctl_config.c - `spatectl show config`: the configuration in force,
 * settings included (ctl_cmd.h). */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "control/ctl_cmd.h"
#include "control/ctl_params.h"
#include "link/host_conf.h"
#include "matcher/spate_matcher.h"

/* The ports in use, whether configured by name or probed by the EAL:
 * DPDK's name (PCI address or vdev), driver and MAC. */
static void out_ports(const struct control_target *t, struct ctl_out *o)
{
	ctl_out_arr(o, "ports");
	for (uint16_t i = 0; i < t->n_ports; i++) {
		char name[RTE_ETH_NAME_MAX_LEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
		struct rte_eth_dev_info info;
		struct rte_ether_addr ea;
		ctl_out_obj(o, NULL);
		ctl_out_u64(o, "port", t->ports[i]);
		if (rte_eth_dev_get_name_by_port(t->ports[i], name) == 0)
			ctl_out_str(o, "name", name);
		if (rte_eth_dev_info_get(t->ports[i], &info) == 0 && info.driver_name != NULL)
			ctl_out_str(o, "driver", info.driver_name);
		if (rte_eth_macaddr_get(t->ports[i], &ea) == 0) {
			rte_ether_format_addr(mac, sizeof(mac), &ea);
			ctl_out_str(o, "mac", mac);
		}
		ctl_out_end(o);
	}
	ctl_out_end(o);
}

static int cmd_show_config(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	const struct control_target *t = r->t;
	const struct spated_conf *c = t->conf;
	char buf[256], ip[24], name[96];

	(void)r;
	(void)err;
	(void)errlen;
	ctl_out_str(o, "file", t->conf_path ? t->conf_path : "(defaults)");
	ctl_out_str(o, "role", host_conf_role_name(c->hosts.role));
	if (t->matcher != NULL)
		ctl_out_str(o, "engine", spate_matcher_engine_name(t->matcher));
	ctl_out_obj(o, "spated");
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", c->ipv4 >> 24, (c->ipv4 >> 16) & 255,
		 (c->ipv4 >> 8) & 255, c->ipv4 & 255);
	if (c->prefix_len >= 0)
		snprintf(ip + strlen(ip), sizeof(ip) - strlen(ip), "/%d", c->prefix_len);
	ctl_out_str(o, "ipv4", ip);
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", c->gateway >> 24, (c->gateway >> 16) & 255,
		 (c->gateway >> 8) & 255, c->gateway & 255);
	ctl_out_str(o, "gateway", c->gateway ? ip : "none");
	ctl_out_u64(o, "udp_port", c->udp_port);
	ctl_out_u64(o, "mtu", c->mtu);
	ctl_out_u64(o, "mbufs", c->mbufs);
	ctl_out_u64(o, "rx_desc", c->rx_desc);
	ctl_out_u64(o, "tx_desc", c->tx_desc);
	ctl_out_arr(o, "devices");
	for (uint32_t d = 0; d < c->n_devices; d++)
		ctl_out_str(o, NULL, c->devices[d]);
	ctl_out_end(o);
	out_ports(t, o);
	ctl_out_end(o);
	ctl_out_obj(o, "settings");
	/* every name spatectl knows, each once */
	for (size_t i = 0; ctl_param_name(i, true, name, sizeof(name)) != NULL; i++)
		if (ctl_param_get(t, name, buf, sizeof(buf)) == 0)
			ctl_param_out(o, name, buf);
	ctl_out_u64(o, "access.keys", c->ops.n_keys); /* how many, never the keys */
	ctl_out_end(o);
	return 0;
}

static struct ctl_cmd show_config_cmd = {
	.path = "show config",
	.usage = "show config",
	.help = "the configuration in force, settings included",
	.fn = cmd_show_config,
	.on_dp = true,
	.rank = CTL_RANK_CONFIG,
};
CTL_COMMAND(show_config_cmd)
