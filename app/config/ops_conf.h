/* ops_conf.h - the operator's groups of spated.conf, beside "spate" and
 * "spated": where subscriptions are journaled, where the control socket
 * lives, and who may do what.
 *
 *   journal: {
 *     path = "/var/lib/spate/subs.journal";  # "" or absent = no journal
 *     sync = "always";          # "always", "interval" or "none"
 *     sync_interval_us = 10000; # "interval": at most this long unsynced
 *     compact_min = 4096;       # compact when the file holds more records
 *     compact_factor = 2;       #   than both this and factor x live subs
 *   };
 *   control: {
 *     socket = "";              # "" = <EAL runtime dir>/spated.sock, e.g.
 *                               # /var/run/dpdk/spated/spated.sock;
 *                               # "none" = no control socket
 *     mode = "0600";            # file mode of the socket (octal, a string)
 *     group = "";               # group owning the socket ("" = root's)
 *     overrides = "";           # file `spatectl save` writes and the next
 *                               # start reads after this one ("" = none)
 *     log_level = "info";       # of the "spate" log type: emerg ... debug
 *   };
 *   metrics: {
 *     listen = "127.0.0.1:9180"; # the OpenMetrics endpoint (metrics.h), "" = off
 *   };
 *   access: {
 *     rate = 0.0;               # sub operations per second per client, 0 = off
 *     burst = 100;              # token bucket depth
 *     require_auth = false;     # drop datagrams without a valid HMAC
 *     keys = ( { client = 7; key = "<64 hex digits>"; } );
 *   };
 */
#ifndef SPATED_OPS_CONF_H
#define SPATED_OPS_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libconfig.h>

#include "conf/spate_conf.h"
#include "conf/spate_param.h"
#include "store/spate_journal.h"

#define OPS_KEYS_MAX 4096
#define OPS_KEY_MAX 64 /* bytes of key material */

struct ops_key {
	uint32_t client;
	uint8_t len;
	uint8_t key[OPS_KEY_MAX];
};

struct ops_conf {
	char journal_path[256];
	struct spate_journal_conf journal;
	char control_socket[108]; /* sun_path */
	uint32_t control_mode;
	char control_group[64];
	char overrides_path[256];
	uint32_t log_level; /* rte_log level of the "spate" type, 0 = default */
	double rate;        /* sub ops per second per client; 0 = unlimited */
	uint32_t burst;
	bool require_auth;
	char metrics_listen[64]; /* "A.B.C.D:PORT" of the metrics endpoint, "" = off */
	uint32_t n_keys;
	struct ops_key *keys; /* owned */
};

void ops_conf_default(struct ops_conf *c);
/* "A.B.C.D:PORT" (port 1..65535) to host-order address and port: 0 or -1. */
int ops_conf_parse_listen(const char *s, uint32_t *ip, uint16_t *port);
/* The rows of the journal, control, access and metrics groups
 * (spate_param.h), each ended by a NULL key. */
extern const struct spate_param ops_journal_rows[], ops_control_rows[], ops_access_rows[],
	ops_metrics_rows[];
/* After the rows are read: what holds between keys (a listen address's
 * shape, keys for require_auth). 0, or -1 with "file:line: message". */
int ops_conf_check(const struct ops_conf *c, const config_t *cfg, const char *path, char *err,
		   size_t errlen);
void ops_conf_free(struct ops_conf *c);
/* By "group.key" name, values as text with the same checks as the file
 * (errors name the allowed range): set takes the run-time keys only.
 * 0, or -1 with err. */
int ops_conf_set(struct ops_conf *c, const char *name, const char *value, char *err, size_t errlen);
/* Any key of the three groups; -1 if unknown. */
int ops_conf_get(const struct ops_conf *c, const char *name, char *buf, size_t len);
/* Whether the value of "group.key" is text (a path, a name, a mode, a
 * choice), not a number or a boolean: spatectl --json types it so. */
bool ops_conf_is_text(const char *name);

#endif
