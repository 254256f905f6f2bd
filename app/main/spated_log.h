/* spated_log.h - spated's messages go through rte_log with a log type of
 * their own, "spate", so operators filter and raise it like any DPDK
 * component (--log-level=spate:debug, or `spatectl set log_level debug`). */
#ifndef SPATED_LOG_H
#define SPATED_LOG_H

#include <rte_log.h>

extern int spated_logtype;

#define SPATED_LOG(level, ...) rte_log(RTE_LOG_##level, spated_logtype, "spate: " __VA_ARGS__)

#endif
