/* spate-sub - a subscriber: applies the sub/unsub lines of a stream file
 * to a Spate server (each ACKed, retransmitted on timeout), then listens
 * and writes every notification as "event_id<TAB>sub_id", as they come.
 * Losses are seen through the server's per-receiver sequence numbers, one
 * sequence per server address (a multi-host Spate answers from several),
 * and reported as they happen and in the summary. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "client_cli.h"
#include "opt.h"
#include "outfile.h"
#include "stream/spate_stream.h"

#define PROG "spate-sub"

static volatile int stop_flag;

static void usage(FILE *f)
{
	/* clang-format off */
	fprintf(f,
		"usage: " PROG " --server HOST:PORT[,HOST:PORT...] [options] STREAM.tsv\n"
		"Applies the 'sub' and 'unsub' lines of STREAM.tsv ('-' = stdin) in order,\n"
		"each ACKed by the server, then listens: every notification is written as\n"
		"'event_id<TAB>sub_id' to --out. Event lines are skipped. Stops on SIGINT or\n"
		"SIGTERM, or as --duration/--idle-ms/--count say; gaps in the server's\n"
		"sequence numbers (lost datagrams) are reported on stderr.\n"
		CLIENT_CLI_HELP_SERVER
		"  --out FILE        notifications ('-' = stdout, the default, line by line;\n"
		"                    a file appears, complete, when spate-sub ends)\n"
		"  --listen HOST:PORT  local address to bind (default: any, ephemeral port)\n"
		"  --duration S      stop S seconds after listening began (default: never)\n"
		"  --idle-ms N       stop when nothing came for N ms after a first\n"
		"                    notification (default: never)\n"
		"  --count N         stop after N notifications (sub ids)\n"
		"  --cleanup         remove the subscriptions still active before exiting\n"
		CLIENT_CLI_HELP_CONF
		CLIENT_CLI_HELP_ACK
		"  --rcvbuf BYTES    socket receive buffer (default 8 MB); the datagrams this\n"
		"                    host's kernel dropped when it was full are reported\n"
		"  --skip-bad        report bad and NACKed lines and go on (default: exit 1)\n"
		CLIENT_CLI_HELP_PROGRESS
		"  --times           a third column: when it came (ns, CLOCK_REALTIME)\n"
		"Exit status: 0 done, 1 a bad or refused line or no answer, 2 usage.\n");
	/* clang-format on */
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
		CLIENT_CLI_OPTIONS_BASE,
		CLIENT_CLI_OPTIONS_ACK,
		{ "out", required_argument, NULL, 'o' },
		{ "listen", required_argument, NULL, 'L' },
		{ "duration", required_argument, NULL, 'D' },
		{ "idle-ms", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "cleanup", no_argument, NULL, 'C' },
		{ "times", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct client cl;
	struct client_cli cli;
	struct sub_state st = { 0 };
	const char *out = "-", *listen_on = NULL;
	double duration = 0;
	int idle_ms = 0, c, rc;
	uint64_t count = 0;
	bool cleanup = false;

	client_cli_init(&cli, &cl, PROG, usage);
	cl.report_gaps = true;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'L':
			listen_on = optarg;
			break;
		case 'D':
			cli.bad |= opt_double(PROG, "duration", optarg, 0, 1e7, &duration) != 0;
			break;
		case 'd':
			cli.bad |= opt_int(PROG, "idle-ms", optarg, 0, 86400000, &idle_ms) != 0;
			break;
		case 'n':
			cli.bad |= opt_u64(PROG, "count", optarg, 0, UINT64_MAX, &count) != 0;
			break;
		case 'C':
			cleanup = true;
			break;
		case 'T':
			st.times = true;
			break;
		default:
			if ((rc = client_cli_opt(&cli, &cl, c, optarg)) >= 0)
				return rc;
		}
	}
	if ((rc = client_cli_check(&cli)) >= 0)
		return rc;
	if (argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	const char *stream = argv[optind];
	cl.on_notify = on_notify;
	cl.ctx = &st;

	struct spate_stream_reader rd;
	int start_rc = client_start(&cl, cli.conf_path, &rd, stream, cli.server, listen_on);
	if (start_rc != 0)
		return start_rc;
	struct outfile of;
	if (outfile_open(&of, PROG, out) != 0) {
		spate_stream_close(&rd);
		client_close(&cl);
		return 1;
	}
	st.out = of.f;
	client_stop_on_signals(&stop_flag);

	/* 1. Subscribe. */
	struct client_progress pg;
	client_progress_start(&pg, cli.show_progress);
	struct spate_stream_op op;
	uint64_t n_bad = 0, n_skipped = 0, n_ops = 0;
	int status = 0;
	while (!stop_flag &&
	       (rc = spate_stream_next_reported(&rd, &op, PROG, cli.skip_bad, &n_bad)) != 0) {
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
		int ans = client_sub_op_reported(&cl, &op, &rd, cli.server);
		if (ans < 0) {
			status = 1;
			break;
		}
		if (ans > 0) {
			n_bad++;
			if (!cli.skip_bad) {
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
