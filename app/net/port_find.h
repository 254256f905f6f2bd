/* port_find.h - which ethdev ports spated runs on, after rte_eal_init.
 *
 * The configured devices (spated.port.device, vdevs) by name, in order;
 * else every port the EAL probed (PCI devices allowed with -a, or the
 * EAL arguments' own --vdev). None at all is fatal, with advice on how
 * to bind a NIC, never a silent fallback to a demo device. */
#ifndef SPATED_PORT_FIND_H
#define SPATED_PORT_FIND_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

/* The ports into ports[] (at most SPATED_PORTS_MAX); their count.
 * by_name: look the configured devices up (spated added them as
 * --vdev); else take every probed port. Exits (1) with the advice when
 * there is none; eal_argv (the arguments the EAL got) is quoted in it. */
uint16_t port_find(const struct spated_conf *conf, bool by_name, const char *conf_path,
		   int eal_argc, char **eal_argv, uint16_t *ports);

#endif
