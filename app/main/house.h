/* house.h - the main lcore's housekeeping while spated runs: signals,
 * the counters line, the service manager, the ZooKeeper map. */
#ifndef SPATED_HOUSE_H
#define SPATED_HOUSE_H

#include "infra/module.h"

/* SIGINT/SIGTERM stop, SIGUSR1 prints the counters, SIGPIPE ignored. */
void house_signals(void);
/* Say ready, run the pipeline with the housekeeping on the main lcore
 * until a signal or a fence stops it (d->exit_code says which). */
void house_run(struct spated *d);

#endif
