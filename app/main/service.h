/* service.h - spated under a service manager (systemd, Type=notify):
 * READY=1 once the ports are up and the pipeline built, a STATUS= line
 * with a few figures every few seconds, STOPPING=1 on the way out, and
 * the watchdog fed from housekeeping only while every polling lcore
 * makes progress (a stuck lcore starves it, and systemd restarts the
 * service). Without NOTIFY_SOCKET (not started by systemd), or built
 * without libsystemd, every call does nothing. */
#ifndef SPATED_SERVICE_H
#define SPATED_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

/* After the pipeline is built: READY=1, the first STATUS= line. */
void service_ready(void);
/* From housekeeping, with the timer cycles and whether every polling
 * lcore made progress (progress() is called at most once per watchdog
 * period). Updates STATUS= and feeds the watchdog. */
void service_poll(uint64_t now, bool (*progress)(void *ctx), void *ctx);
/* STOPPING=1 (and the reason in STATUS=). */
void service_stopping(const char *why);

#endif
