/* telemetry.h - /spate/... commands for DPDK telemetry (dpdk-telemetry.py). */
#ifndef SPATED_TELEMETRY_H
#define SPATED_TELEMETRY_H

/* After rte_eal_init. */
void telemetry_register(void);

#endif
