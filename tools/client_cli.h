/* client_cli.h - the command line the client tools (spate-pub, spate-sub,
 * spate-replay) share: the options they take the same way, their help
 * lines and their parsing, in one place. A tool lists the groups it takes
 * in its getopt_long table (CLIENT_CLI_OPTIONS_*), prints the help lines
 * (CLIENT_CLI_HELP_*) in its usage, and hands every option it does not
 * handle itself to client_cli_opt(). */
#ifndef SPATE_TOOLS_CLIENT_CLI_H
#define SPATE_TOOLS_CLIENT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "client.h"

/* getopt_long codes of the shared options: above every short option. */
enum client_cli_code {
	CLIENT_CLI_SERVER = 0x100,
	CLIENT_CLI_FAILOVER_MS,
	CLIENT_CLI_CLIENT_ID,
	CLIENT_CLI_CONF,
	CLIENT_CLI_PROGRESS,
	CLIENT_CLI_QUIET,
	CLIENT_CLI_SKIP_BAD,
	CLIENT_CLI_RATE,
	CLIENT_CLI_ADAPTIVE,
	CLIENT_CLI_BATCH,
	CLIENT_CLI_TIMEOUT_MS,
	CLIENT_CLI_RETRIES,
	CLIENT_CLI_RCVBUF,
};

/* clang-format off */
/* Every client tool: where to send, who we are, the limits, the progress
 * line, what a bad line does, --help and --version. */
#define CLIENT_CLI_OPTIONS_BASE						\
	{ "server", required_argument, NULL, CLIENT_CLI_SERVER },	\
	{ "failover-ms", required_argument, NULL, CLIENT_CLI_FAILOVER_MS }, \
	{ "client-id", required_argument, NULL, CLIENT_CLI_CLIENT_ID },	\
	{ "conf", required_argument, NULL, CLIENT_CLI_CONF },		\
	{ "progress", no_argument, NULL, CLIENT_CLI_PROGRESS },		\
	{ "quiet", no_argument, NULL, CLIENT_CLI_QUIET },		\
	{ "skip-bad", no_argument, NULL, CLIENT_CLI_SKIP_BAD },		\
	{ "help", no_argument, NULL, 'h' },				\
	{ "version", no_argument, NULL, 'V' }
/* The tools that send events: pacing and packing. */
#define CLIENT_CLI_OPTIONS_SEND						\
	{ "rate", required_argument, NULL, CLIENT_CLI_RATE },		\
	{ "adaptive", required_argument, NULL, CLIENT_CLI_ADAPTIVE },	\
	{ "batch", required_argument, NULL, CLIENT_CLI_BATCH }
/* The tools that wait for answers: retransmission and receive buffer. */
#define CLIENT_CLI_OPTIONS_ACK						\
	{ "timeout-ms", required_argument, NULL, CLIENT_CLI_TIMEOUT_MS }, \
	{ "retries", required_argument, NULL, CLIENT_CLI_RETRIES },	\
	{ "rcvbuf", required_argument, NULL, CLIENT_CLI_RCVBUF }

/* Help lines of the options whose meaning and default are the same in
 * every tool (the others say their tool's default themselves). */
#define CLIENT_CLI_HELP_SERVER \
	"  --server LIST     HOST:PORT, or several (a comma list, or --server again):\n" \
	"                    the first that answers; the next when it falls silent,\n" \
	"                    is unreachable (ICMP) or sheds everything (OVERLOADED)\n" \
	"  --failover-ms N   silence that moves to the next server (default 1000)\n" \
	"  --client-id N     client id in every datagram (default: the process id)\n"
#define CLIENT_CLI_HELP_CONF \
	"  --conf FILE       libconfig file; its 'spate' group sets the limits\n"
#define CLIENT_CLI_HELP_ADAPTIVE \
	"  --adaptive on|off halve the rate on each OVERLOADED NACK (the server shed\n" \
	"                    our datagrams), climb back over 2 s (default on)\n"
#define CLIENT_CLI_HELP_ACK \
	"  --timeout-ms N    wait for an ACK before retransmitting (default 200)\n" \
	"  --retries N       retransmissions before giving up (default 10)\n"
#define CLIENT_CLI_HELP_PROGRESS \
	"  --progress        progress line even when stderr is not a terminal\n" \
	"  --quiet           no progress line\n"
/* clang-format on */

/* What the shared options set beyond struct client's own fields. */
struct client_cli {
	const char *prog;
	void (*usage)(FILE *f);
	char server[1024]; /* the --server list, comma-joined */
	const char *conf_path;
	double rate; /* events/s, 0 = unpaced (the tool sets its default) */
	bool adaptive, skip_bad, show_progress;
	bool bad; /* a value was refused (message printed): exit 2 */
};

/* client_init(cl, prog) and the shared options' defaults: adaptive pacing,
 * the progress line when stderr is a terminal. */
void client_cli_init(struct client_cli *o, struct client *cl, const char *prog,
		     void (*usage)(FILE *f));
/* An option getopt_long returned that the tool does not take itself: a
 * shared one is applied (a bad value sets o->bad) and -1 returned, go on;
 * anything else ends the parse with opt_other()'s exit status. */
int client_cli_opt(struct client_cli *o, struct client *cl, int c, const char *arg);
/* After the parse: 2 when a value was refused or --server is missing
 * (usage printed for the latter), else -1, go on. */
int client_cli_check(const struct client_cli *o);

/* SIGINT and SIGTERM set *flag (and do nothing else). */
void client_stop_on_signals(volatile int *flag);

/* client_sub_op for the line just read from rd, its failure reported
 * with the line's place: "no answer from SERVER after N tries", or the
 * NACK's name and reason. Returns what client_sub_op returned. */
int client_sub_op_reported(struct client *c, const struct spate_stream_op *op,
			   const struct spate_stream_reader *rd, const char *server);

#endif
