/* control.h - spated's control socket, what spatectl talks to.
 *
 * A UNIX stream socket (control.socket in the config; by default
 * spated.sock in the EAL runtime directory, e.g.
 * /var/run/dpdk/spated/spated.sock; mode and group from the config,
 * root-only by default). One request per connection: a line
 * "[json ]WORDS...\n"; the answer is "ok\n" or "error\n", then the body.
 *
 * The socket is served by a control thread off the data-plane lcores.
 * Commands that read or change data-plane state are not run there: the
 * thread posts them on a request ring, the data-plane lcore runs them
 * between two bursts (control_poll, one ring check per loop iteration, no
 * lock) and posts the answer back. So a `set` takes effect between two
 * bursts, and traffic never waits on a lock.
 */
#ifndef SPATED_CONTROL_H
#define SPATED_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "cluster/category_dir.h"
#include "config/config.h"
#include "matcher/spate_matcher.h"
#include "link/stage_link.h"

/* What the commands act on; owned by main, used on the data-plane lcore. */
struct control_target {
	struct spated_conf *conf;      /* live: the frame handler reads its limits */
	const char *conf_path;         /* NULL = defaults */
	struct spate_matcher *matcher; /* NULL on a match host (no clustering) */
	unsigned int dp_lcore;         /* the lcore that runs control_poll */
	struct stage_link *link;       /* multi-host: the link stage (show cluster), else NULL */
	struct category_dir *dir;      /* the front's category directory, else NULL */
	uint16_t n_ports;              /* the ethdev ports in use (show config) */
	const uint16_t *ports;
};

/* Open the socket and start the control thread. 0, or -1 with err.
 * A socket of "none" in the config: nothing is started, 0. */
int control_start(struct control_target *t, char *err, size_t errlen);
/* The data plane: run the pending request, if any. */
void control_poll(void);
/* Stop the thread, remove the socket. */
void control_stop(void);

/* A setting's value in force, by spatectl name (ctl_params.h), from any
 * thread (telemetry): 0, or -1 for an unknown name or before
 * control_start. */
int control_param_get(const char *name, char *buf, size_t len);

/* Apply the log level of the config (after the EAL is up). */
void control_apply_log_level(const struct spated_conf *conf);

#endif
