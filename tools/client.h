/* client.h - the UDP client side of the Spate protocol, shared by
 * spate-replay, spate-pub and spate-sub: one socket to a server, events
 * packed several per datagram, sub/unsub sent one per datagram and
 * retransmitted until their ACK/NACK arrives, and every server datagram
 * checked against the per-receiver sequence number so that losses are
 * seen (docs/protocol.md, "Reliability"). A multi-host Spate answers from
 * several hosts, each numbering its own datagrams to this receiver: the
 * sequence is tracked per server address (docs/protocol.md, "Between
 * Spate hosts").
 *
 * A client may be given several servers (a list: "a:p,b:p"): it uses the
 * first that answers and moves to the next when the one in use falls
 * silent (a keepalive probe every failover_ms / 4 of silence, unanswered
 * for failover_ms), reports ICMP unreachable (IP_RECVERR), or sheds
 * everything (nothing but OVERLOADED for 2 x failover_ms). Subscriptions
 * are not sent again: the front that took the dead one's service over
 * holds them (docs/operations.md, "Clients with a list of servers").
 *
 * Everything is single-threaded: replies are read by client_pump(),
 * which the sending calls also run while they wait. */
#ifndef SPATE_TOOLS_CLIENT_H
#define SPATE_TOOLS_CLIENT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "proto/spate_proto.h"
#include "stream/spate_stream.h"

/* Called for every sub id of every NOTIFY received. */
typedef void (*client_notify_fn)(void *ctx, uint64_t event_id, uint64_t sub_id);
/* Called for every NACK that answers no pending sub/unsub (a refused
 * event, typically). */
typedef void (*client_nack_fn)(void *ctx, const struct spate_ack *nack);

/* Losses seen through the server's per-receiver sequence numbers. */
struct client_seq_track {
	bool started;
	uint32_t last;     /* highest seq seen */
	uint64_t lost;     /* datagrams skipped over (gaps), not yet filled */
	uint64_t late;     /* datagrams older than the highest seen */
	uint64_t restarts; /* seq back to 1: the server forgot this receiver */
};

/* One tracker per server address that sent us datagrams; past the table
 * the others share its last slot (a gap may then be misread: counted in
 * sources_over). */
#define CLIENT_SOURCES_MAX 64
struct client_seq_source {
	uint32_t ipv4;
	uint16_t port;
	struct client_seq_track t;
};

struct client_counters {
	uint64_t events, dgrams, acks, nacks, retransmits;
	uint64_t notify_dgrams, notifications, bad_dgrams, other_nacks;
	uint64_t overloaded; /* NACKs OVERLOADED: the server shed our datagrams */
};

/* Pacing of events (client_pace): at most `rate` a second, never made up
 * later in a burst beyond CLIENT_PACE_SLACK_S. Adaptive: each OVERLOADED
 * NACK halves the rate in force, which then climbs back to `rate` over
 * CLIENT_PACE_RECOVER_S (unpaced: back to unpaced). */
#define CLIENT_PACE_SLACK_S 0.001
#define CLIENT_PACE_RECOVER_S 2.0
#define CLIENT_PACE_MIN_RATE 100.0
struct client_pace {
	double rate; /* asked for, events/s; 0 = as fast as possible */
	double cur;  /* in force (0 = unpaced) */
	double top;  /* what cur climbs back to after a backoff */
	bool adaptive;
	double next;         /* client_now() when the next event is due */
	double last;         /* when cur last changed */
	double win_t0;       /* unpaced: the events sent since win_t0 */
	uint64_t win_events; /*   give the rate to halve on a backoff */
	uint64_t backoffs;
};

#define CLIENT_SERVERS_MAX 8
#define CLIENT_FAILOVER_MS_DEFAULT 1000
#define CLIENT_KA_SEQ 0xf0000000u /* keepalive probes' seqs: this and up */
#define CLIENT_KA_MARKS 16

struct client {
	int fd;
	struct sockaddr_in server; /* the one in use: servers[cur] */
	struct sockaddr_in servers[CLIENT_SERVERS_MAX];
	char server_name[CLIENT_SERVERS_MAX][64];
	uint32_t n_servers, cur;
	int failover_ms; /* silence that moves to the next server */
	double heard;    /* client_now() of the last datagram from it */
	double ka_sent;  /* of the last keepalive probe to it */
	double ka_first; /* of the first one since it was heard (0: none) */
	double rx_at;    /* arrival of the datagram being read (0: unknown) */
	uint32_t ka_seq;
	double overload_since;             /* it sheds everything since (0: it does not) */
	uint64_t failovers;                /* moves to the next server */
	uint64_t confirmed;                /* events sent before its last answered probe */
	uint64_t ka_mark[CLIENT_KA_MARKS]; /* events sent before each recent probe */
	uint64_t unconfirmed;              /* events sent to servers after their last
				     * answer (lost, or not: counted at each move) */
	uint32_t client_id, seq;
	struct spate_limits lim; /* for decoding replies */
	int timeout_ms, retries, batch;
	int rcvbuf;            /* SO_RCVBUF asked for, bytes (client_open) */
	int rcvbuf_got;        /* what the kernel gave */
	uint64_t kernel_drops; /* datagrams this host's kernel dropped for
				    * us (SO_RXQ_OVFL, then SO_MEMINFO) */
	struct client_pace pace;
	bool report_gaps; /* print each gap to stderr as it is seen */
	const char *prog; /* for messages */
	client_notify_fn on_notify;
	client_nack_fn on_nack;
	void *ctx;
	struct client_seq_source src[CLIENT_SOURCES_MAX];
	uint32_t n_src;
	uint64_t sources_over; /* datagrams from addresses beyond the table */
	struct client_counters cnt;
	double last_rx; /* client_now() of the last server datagram */
	/* the events datagram being filled */
	uint8_t ev_buf[SPATE_DGRAM_MAX];
	struct spate_writer ev_w;
	/* the answer being waited for */
	uint32_t wait_seq;
	uint32_t probe_seq; /* client_probe's: late answers to a resent probe are not refusals */
	uint64_t wait_id;
	bool wait_done;
	int wait_code;
};

/* Seconds on the monotonic clock. */
double client_now(void);

/* --server given once more: `arg` ("HOST:PORT" or a comma list) added to
 * the list in acc (cap bytes). 0, or -1 (too long: a message). */
int client_server_opt(const char *prog, char *acc, size_t cap, const char *arg);

/* "HOST:PORT" (name or dotted quad) to an IPv4 socket address. 0, or
 * -1 with the reason in err: "bad address 'x' (want HOST:PORT)", or
 * "cannot resolve host 'name': <resolver's reason>". */
int client_parse_hostport(const char *s, struct sockaddr_in *out, char *err, size_t errlen);

/* Is a Spate server there? A message of no known type (a type-0 header,
 * no body: no effect on the server) is sent on the socket connected to
 * the server, up to `retries` times `timeout_ms`, until the server's
 * NACK (UNKNOWN_TYPE) for it comes back. 0 when it did; -1 with a
 * message on stderr when the kernel reports the port unreachable (ICMP:
 * nothing listens there), the network says no, or nothing answered. The
 * socket is unconnected again afterwards (match hosts answer from other
 * addresses). */
int client_probe(struct client *c, const char *server);
/* client_probe of each server of the list in turn, from the first: the
 * first that answers is used. 0, or -1 when none did. */
int client_probe_list(struct client *c);

/* A progress line on stderr for long runs, redrawn in place twice a
 * second when on (stderr a terminal, or --progress): "PROG: <text>,
 * 12.5 s". client_progress() prints only when due, or always with
 * final (which ends the line). */
struct client_progress {
	bool on;
	double t0, next;
};
void client_progress_start(struct client_progress *p, bool on);
void client_progress(struct client_progress *p, const struct client *c, bool final, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));

/* Defaults: timeout 200 ms, 10 retries, batch 16, client id = pid,
 * receive buffer CLIENT_RCVBUF_DEFAULT, unpaced, adaptive. */
#define CLIENT_RCVBUF_DEFAULT (8 << 20)
void client_init(struct client *c, const char *prog);
/* Open the socket towards `server` ("HOST:PORT", or a comma list of up to
 * CLIENT_SERVERS_MAX), bound to `local` ("HOST:PORT", NULL = any). 0, or
 * -1 with a message on stderr. */
int client_open(struct client *c, const char *server, const char *local);
void client_close(struct client *c);

/* The limits from the config file's 'spate' group (conf_path NULL =
 * defaults), messages per datagram lifted to 1024 so any server reply
 * decodes. 0, or 2 (the usage exit status) after a message on stderr. */
int client_load_limits(struct client *c, const char *conf_path);
/* The start every client tool shares: the limits from the config file's
 * 'spate' group (conf_path NULL = defaults; messages per datagram lifted
 * to 1024 so any server reply decodes), the stream file opened with them
 * ("-" = stdin), and the socket towards `server` bound to `local`.
 * 0, or the tool's exit status (2) after a message on stderr, with
 * nothing left open. Set c->on_notify/on_nack/ctx before or after. */
int client_start(struct client *c, const char *conf_path, struct spate_stream_reader *rd,
		 const char *stream, const char *server, const char *local);

/* Read whatever the server sends within timeout_ms (0 = only what is
 * queued); stops early when the awaited ACK/NACK came. */
void client_pump(struct client *c, int timeout_ms);
/* Pump until the server has been quiet for idle_ms, or `stop` (may be
 * NULL) becomes non-zero. */
void client_drain(struct client *c, int idle_ms, volatile int *stop);

/* Queue an event; full datagrams (batch events, or no room) go out.
 * 0 or -1 (message printed). */
int client_send_event(struct client *c, const struct spate_raw_event *ev);
/* Send the events queued so far. 0 or -1. */
int client_flush(struct client *c);
/* Events a second for client_pace (0 = as fast as possible), adaptive or
 * not (see struct client_pace). */
void client_set_rate(struct client *c, double rate, bool adaptive);
/* After each event: never run ahead of the rate in force; when ahead by
 * half a millisecond or more, send what is queued, read replies and
 * sleep. 0 or -1. */
int client_pace(struct client *c);

/* Send one sub or unsub op and wait for its answer, retransmitting.
 * Returns 0 (ACK), a positive NACK code, or -1 (no answer, or a send
 * error). An unsub that is NACKed UNKNOWN_ID after a retransmission
 * counts as done (the first copy removed it). */
int client_sub_op(struct client *c, const struct spate_stream_op *op);

/* Datagrams this host's kernel dropped for our socket so far (its
 * receive buffer was full): the last SO_RXQ_OVFL figure, or SO_MEMINFO's
 * if higher. */
uint64_t client_kernel_drops(struct client *c);

/* One summary line of the counters and losses, on stderr. */
void client_print_summary(struct client *c, const char *extra);

/* Feed one server seq to a tracker; returns how many datagrams the gap
 * before it spans (0 = in order). Exposed for the tests. */
uint64_t client_seq_see(struct client_seq_track *t, uint32_t seq);
/* The tracker of server address ipv4:port (host byte order), made on
 * first sight. */
struct client_seq_track *client_seq_of(struct client *c, uint32_t ipv4, uint16_t port);
/* Every source's tracker summed. */
struct client_seq_track client_seq_total(const struct client *c);

#endif
