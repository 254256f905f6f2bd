/* spate-sub - a subscriber: applies the sub/unsub lines of a stream file
 * to a Spate server (each ACKed, retransmitted on timeout), then listens
 * and writes every notification as "event_id<TAB>sub_id", as they come.
 * Losses are seen through the server's per-receiver sequence numbers, one
 * sequence per server address (a multi-host Spate answers from several),
 * and reported as they happen and in the summary. */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <time.h>

#include "client.h"
#include "opt.h"
#include "outfile.h"
#include "proto/spate_err.h"
#include "stream/spate_stream.h"
#include "util/spate_release.h"

#define PROG "spate-sub"

static volatile int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " --server HOST:PORT[,HOST:PORT...] [options] STREAM.tsv\n"
		   "Applies the 'sub' and 'unsub' lines of STREAM.tsv ('-' = stdin) in order,\n"
		   "each ACKed by the server, then listens: every notification is written as\n"
		   "'event_id<TAB>sub_id' to --out. Event lines are skipped. Stops on SIGINT or\n"
		   "SIGTERM, or as --duration/--idle-ms/--count say; gaps in the server's\n"
		   "sequence numbers (lost datagrams) are reported on stderr.\n"
		   "  --server LIST     HOST:PORT, or several (a comma list, or --server again):\n"
		   "                    the first that answers; the next when it falls silent,\n"
		   "                    is unreachable (ICMP) or sheds everything (OVERLOADED)\n"
		   "  --failover-ms N   silence that moves to the next server (default 1000)\n"
		   "  --out FILE        notifications ('-' = stdout, the default, line by line;\n"
		   "                    a file appears, complete, when spate-sub ends)\n"
		   "  --listen HOST:PORT  local address to bind (default: any, ephemeral port)\n"
		   "  --duration S      stop S seconds after listening began (default: never)\n"
		   "  --idle-ms N       stop when nothing came for N ms after a first\n"
		   "                    notification (default: never)\n"
		   "  --count N         stop after N notifications (sub ids)\n"
		   "  --cleanup         remove the subscriptions still active before exiting\n"
		   "  --client-id N     client id (default: the process id)\n"
		   "  --conf FILE       libconfig file; its 'spate' group sets the limits\n"
		   "  --timeout-ms N    wait for an ACK before retransmitting (default 200)\n"
		   "  --retries N       retransmissions before giving up (default 10)\n"
		   "  --rcvbuf BYTES    socket receive buffer (default 8 MB); the datagrams this\n"
		   "                    host's kernel dropped when it was full are reported\n"
		   "  --skip-bad        report bad and NACKed lines and go on (default: exit 1)\n"
		   "  --progress        progress line even when stderr is not a terminal\n"
		   "  --quiet           no progress line\n"
		   "  --times           a third column: when it came (ns, CLOCK_REALTIME)\n"
		   "Exit status: 0 done, 1 a bad or refused line or no answer, 2 usage.\n");
}

struct sub_state {
	FILE *out;
	bool line_flush, times;
	uint64_t *active;
	size_t n_active, cap_active;
};

static void on_notify(void *ctx, uint64_t ev, uint64_t sub)
{
	struct sub_state *s = ctx;

	if (s->times) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		fprintf(s->out, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", ev, sub,
			(uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
		return;
	}
	fprintf(s->out, "%" PRIu64 "\t%" PRIu64 "\n", ev, sub);
}

static int track(struct sub_state *s, const struct spate_stream_op *op)
{
	if (op->kind == SPATE_LINE_UNSUB) {
		for (size_t i = 0; i < s->n_active; i++)
			if (s->active[i] == op->u.unsub_id) {
				s->active[i] = s->active[--s->n_active];
				break;
			}
		return 0;
	}
	if (s->n_active == s->cap_active) {
		size_t ncap = s->cap_active ? 2 * s->cap_active : 256;
		uint64_t *na = realloc(s->active, ncap * sizeof(*na));
		if (na == NULL)
			return -1;
		s->active = na;
		s->cap_active = ncap;
	}
	s->active[s->n_active++] = op->u.sub.id;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 'S' },
		{ "failover-ms", required_argument, NULL, 'F' },
		{ "out", required_argument, NULL, 'o' },
		{ "listen", required_argument, NULL, 'L' },
		{ "duration", required_argument, NULL, 'D' },
		{ "idle-ms", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "cleanup", no_argument, NULL, 'C' },
		{ "client-id", required_argument, NULL, 'i' },
		{ "conf", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' },
		{ "rcvbuf", required_argument, NULL, 'B' },
		{ "skip-bad", no_argument, NULL, 'k' },
		{ "progress", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "times", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct client cl;
	struct sub_state st = { 0 };
	static char server[1024];
	const char *conf_path = NULL, *out = "-", *listen_on = NULL;
	double duration = 0;
	int idle_ms = 0, c, bad = 0, show = isatty(2);
	uint64_t count = 0, v;
	bool skip_bad = false, cleanup = false;

	client_init(&cl, PROG);
	cl.report_gaps = true;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			bad |= client_server_opt(PROG, server, sizeof(server), optarg) != 0;
			break;
		case 'F':
			bad |= opt_int(PROG, "failover-ms", optarg, 50, 600000, &cl.failover_ms);
			break;
		case 'o':
			out = optarg;
			break;
		case 'L':
			listen_on = optarg;
			break;
		case 'c':
			conf_path = optarg;
			break;
		case 'D':
			bad |= opt_double(PROG, "duration", optarg, 0, 1e7, &duration);
			break;
		case 'd':
			bad |= opt_int(PROG, "idle-ms", optarg, 0, 86400000, &idle_ms);
			break;
		case 'n':
			bad |= opt_u64(PROG, "count", optarg, 0, UINT64_MAX, &count);
			break;
		case 'C':
			cleanup = true;
			break;
		case 'i':
			bad |= opt_u64(PROG, "client-id", optarg, 1, UINT32_MAX, &v);
			cl.client_id = (uint32_t)v;
			break;
		case 't':
			bad |= opt_int(PROG, "timeout-ms", optarg, 1, 600000, &cl.timeout_ms);
			break;
		case 'r':
			bad |= opt_int(PROG, "retries", optarg, 0, 1000, &cl.retries);
			break;
		case 'B':
			bad |= opt_int(PROG, "rcvbuf", optarg, 4096, 1 << 30, &cl.rcvbuf);
			break;
		case 'k':
			skip_bad = true;
			break;
		case 'P':
			show = 1;
			break;
		case 'q':
			show = 0;
			break;
		case 'V':
			return spate_release_print(PROG);
		case 'T':
			st.times = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (bad)
		return 2;
	if (server[0] == '\0' || argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	const char *stream = argv[optind];
	cl.on_notify = on_notify;
	cl.ctx = &st;

	struct spate_stream_reader rd;
	int start_rc = client_start(&cl, conf_path, &rd, stream, server, listen_on);
	if (start_rc != 0)
		return start_rc;
	struct outfile of;
	if (outfile_open(&of, PROG, out) != 0) {
		spate_stream_close(&rd);
		client_close(&cl);
		return 1;
	}
	st.out = of.f;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* 1. Subscribe. */
	struct client_progress pg;
	client_progress_start(&pg, show);
	struct spate_stream_op op;
	uint64_t n_bad = 0, n_skipped = 0, n_ops = 0;
	int rc, status = 0;
	while (!stop_flag &&
	       (rc = spate_stream_next_reported(&rd, &op, PROG, skip_bad, &n_bad)) != 0) {
		if (rc < 0) {
			status = 1;
			break;
		}
		if (op.kind == SPATE_LINE_EVENT) {
			n_skipped++;
			continue;
		}
		n_ops++;
		client_progress(&pg, &cl, false, "subscribing: %" PRIu64 " changes applied", n_ops);
		int ans = client_sub_op(&cl, &op);
		if (ans < 0) {
			fprintf(stderr, PROG ": %s:%lu: no answer from %s after %d tries\n",
				rd.path, rd.line_no, server, cl.retries + 1);
			status = 1;
			break;
		}
		if (ans > 0) {
			n_bad++;
			fprintf(stderr, PROG ": %s:%lu: NACK %s: %s\n", rd.path, rd.line_no,
				spate_err_name(ans), spate_err_reason(ans));
			if (!skip_bad) {
				status = 1;
				break;
			}
			continue;
		}
		if (track(&st, &op) != 0) {
			fprintf(stderr, PROG ": out of memory\n");
			status = 1;
			break;
		}
	}
	spate_stream_close(&rd);

	/* Nothing to listen for when subscribing failed: no output file. */
	if (status != 0) {
		outfile_abort(&of);
		client_print_summary(&cl, NULL);
		free(st.active);
		client_close(&cl);
		return status;
	}
	/* 2. Listen. */
	if (!stop_flag) {
		fprintf(stderr, PROG ": %zu subscriptions active; listening\n", st.n_active);
		double t0 = client_now();
		while (!stop_flag) {
			client_pump(&cl, 100);
			client_progress(&pg, &cl, false,
					"%zu subscriptions; %" PRIu64 " notifications in %" PRIu64
					" datagrams, %" PRIu64 " lost",
					st.n_active, cl.cnt.notifications, cl.cnt.notify_dgrams,
					client_seq_total(&cl).lost);
			if (st.out == stdout)
				fflush(stdout);
			double now = client_now();
			if (duration > 0 && now - t0 >= duration)
				break;
			if (count > 0 && cl.cnt.notifications >= count)
				break;
			if (idle_ms > 0 && cl.cnt.notifications > 0 &&
			    now - cl.last_rx >= idle_ms / 1000.0)
				break;
		}
	}

	client_progress(&pg, &cl, true,
			"%zu subscriptions; %" PRIu64 " notifications in %" PRIu64
			" datagrams, %" PRIu64 " lost",
			st.n_active, cl.cnt.notifications, cl.cnt.notify_dgrams,
			client_seq_total(&cl).lost);
	/* 3. Clean up: remove what we added, if asked (best effort). */
	if (cleanup) {
		for (size_t i = 0; i < st.n_active; i++) {
			struct spate_stream_op del = { .kind = SPATE_LINE_UNSUB,
						       .u.unsub_id = st.active[i] };
			if (client_sub_op(&cl, &del) != 0) {
				fprintf(stderr, PROG ": cleanup: unsub %" PRIu64 " failed\n",
					st.active[i]);
				status = 1;
			}
		}
	}
	if (outfile_commit(&of) != 0)
		status = 1;
	char extra[160];
	snprintf(extra, sizeof(extra),
		 "sub_ops=%" PRIu64 " active=%zu bad=%" PRIu64 " skipped_event_lines=%" PRIu64 " ",
		 n_ops, cleanup ? (size_t)0 : st.n_active, n_bad, n_skipped);
	client_print_summary(&cl, extra);
	free(st.active);
	client_close(&cl);
	return status;
}
