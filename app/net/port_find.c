/* port_find.c - the ports spated runs on, or how to get one (port_find.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "net/port_find.h"

/* The PCI devices the EAL arguments allow (-a X, -aX, --allow=X,
 * --allow X), space-separated into out. */
static void allowed_pci(int argc, char **argv, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		if (strcmp(argv[i], "-a") == 0 || strcmp(argv[i], "--allow") == 0)
			v = i + 1 < argc ? argv[i + 1] : NULL;
		else if (strncmp(argv[i], "--allow=", 8) == 0)
			v = argv[i] + 8;
		else if (strncmp(argv[i], "-a", 2) == 0)
			v = argv[i] + 2;
		if (v != NULL && n < len)
			n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", v);
	}
}

/* What the EAL was given and how to bind a NIC. */
static void advice(FILE *f, const char *conf_path, int eal_argc, char **eal_argv)
{
	char allowed[512];
	bool no_pci = false;

	fprintf(f, "spated: no Ethernet port: the EAL probed none with the arguments\n ");
	for (int i = 1; i < eal_argc; i++) {
		fprintf(f, " %s", eal_argv[i]);
		no_pci |= strcmp(eal_argv[i], "--no-pci") == 0;
	}
	fprintf(f, "\nand spated.port.device in %s names none.\n",
		conf_path ? conf_path : "the configuration");
	allowed_pci(eal_argc, eal_argv, allowed, sizeof(allowed));
	if (no_pci)
		fprintf(f, "--no-pci is among them: the EAL looks at no PCI device.\n");
	else if (allowed[0] != '\0')
		fprintf(f,
			"They allow %s, but no DPDK driver took it: is it bound to vfio-pci\n"
			"(dpdk-devbind.py --status), and is the address right?\n",
			allowed);
	fprintf(f,
		"To use a NIC, bind it to vfio-pci and allow it in spated.eal:\n"
		"  modprobe vfio-pci\n"
		"  dpdk-devbind.py --status             # the NIC's PCI address, e.g. "
		"0000:01:00.0\n"
		"  ip link set <its interface> down\n"
		"  dpdk-devbind.py --bind=vfio-pci 0000:01:00.0\n"
		"  eal = [ \"-a\", \"0000:01:00.0\", ... ];  # in spated.conf, without --no-pci\n"
		"(Mellanox ConnectX needs no binding: it stays on mlx5_core.) Without a NIC, a\n"
		"kernel interface through a vdev: port: { device = \"net_af_packet0,iface=eth1\"; "
		"};\n"
		"More in docs/operations.md, \"Binding a NIC\".\n");
}

uint16_t port_find(const struct spated_conf *conf, bool by_name, const char *conf_path,
		   int eal_argc, char **eal_argv, uint16_t *ports)
{
	uint16_t n = 0, p;

	if (by_name && conf->n_devices > 0) {
		for (uint32_t d = 0; d < conf->n_devices; d++) {
			char name[256];
			snprintf(name, sizeof(name), "%s", conf->devices[d]);
			name[strcspn(name, ",")] = '\0';
			int rc = rte_eth_dev_get_port_by_name(name, &ports[n]);
			if (rc != 0)
				rte_exit(EXIT_FAILURE, "no port named '%s': err=%d, port=%u\n",
					 name, rc, 0u);
			n++;
		}
		return n;
	}
	RTE_ETH_FOREACH_DEV (p) {
		if (n == SPATED_PORTS_MAX)
			rte_exit(EXIT_FAILURE, "more than %d Ethernet ports: err=%d, port=%u\n",
				 SPATED_PORTS_MAX, -E2BIG, p);
		ports[n++] = p;
	}
	if (n == 0) {
		advice(stderr, conf_path, eal_argc, eal_argv);
		rte_eal_cleanup();
		exit(EXIT_FAILURE);
	}
	return n;
}
