/* service.c - readiness, status and watchdog for systemd (service.h). */
#include <inttypes.h>
#include <stdio.h>

#include <rte_cycles.h>

#include "infra/counters.h"
#include "main/info.h"
#include "main/service.h"
#include "main/spated_log.h"

#ifdef SPATED_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#else
static int sd_notify(int unset, const char *state)
{
	(void)unset;
	(void)state;
	return 0;
}
static int sd_watchdog_enabled(int unset, uint64_t *usec)
{
	(void)unset;
	(void)usec;
	return 0;
}
#endif

#define STATUS_EVERY_S 5 /* seconds between STATUS= lines */

static uint64_t next_status, status_every;
static uint64_t next_feed, feed_every; /* 0: no watchdog */
static bool starved;                   /* an lcore stopped: not fed since */

/* "up 12 s; 5 subscriptions of 2 clients; 1234 events, 88 matches;
 * 3 dropped": what `systemctl status spated` shows. */
static void send_status(void)
{
	struct spated_info in;
	struct spated_counters c;
	char line[256];

	spated_info_get(&in);
	spated_counters_sum(&c);
	uint64_t dropped =
		c.ring_full_rx + c.ring_full_tx + c.tx_drops + c.no_mbuf + c.msg_no_memory;
	snprintf(line, sizeof(line),
		 "STATUS=up %.0f s; %" PRIu64 " subscriptions of %" PRIu64 " clients; %" PRIu64
		 " events, %" PRIu64 " matches, %" PRIu64 " notifications; %" PRIu64 " dropped",
		 in.uptime_s, in.subscriptions, in.clients, c.events, c.matches, c.notifications,
		 dropped);
	sd_notify(0, line);
}

void service_ready(void)
{
	uint64_t usec = 0, hz = rte_get_timer_hz(), now = rte_get_timer_cycles();

	status_every = STATUS_EVERY_S * hz;
	next_status = now + status_every;
	/* Fed four times a period: a late housekeeping pass still lands in
	 * time, a stuck lcore is noticed within half of it. */
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		feed_every = (uint64_t)((double)usec / 4e6 * (double)hz);
		next_feed = now + feed_every;
		SPATED_LOG(INFO, "watchdog: %" PRIu64 " ms, fed while the lcores progress\n",
			   usec / 1000);
	}
	send_status();
	sd_notify(0, "READY=1");
}

void service_poll(uint64_t now, bool (*progress)(void *ctx), void *ctx)
{
	if (now >= next_status && status_every != 0) {
		next_status = now + status_every;
		send_status();
	}
	if (feed_every == 0 || now < next_feed)
		return;
	next_feed = now + feed_every;
	if (progress(ctx)) {
		if (starved)
			SPATED_LOG(NOTICE, "watchdog: every lcore progresses again, fed\n");
		starved = false;
		sd_notify(0, "WATCHDOG=1");
	} else if (!starved) {
		starved = true;
		SPATED_LOG(ERR, "watchdog: an lcore made no progress; not fed\n");
	}
}

void service_stopping(const char *why)
{
	char line[160];

	snprintf(line, sizeof(line), "STOPPING=1\nSTATUS=stopping: %s", why);
	sd_notify(0, line);
}
