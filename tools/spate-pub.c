/* spate-pub - a publisher: streams the event lines of a stream file (or
 * stdin) to a Spate server over UDP, at a given rate or as fast as it
 * can, several events per datagram when asked. A progress line (sent,
 * rate, elapsed) is redrawn on a terminal; a summary closes the run.
 * Refused events come back as NACKs, which are reported and counted. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "client_cli.h"
#include "opt.h"
#include "proto/spate_err.h"
#include "stream/spate_stream.h"

#define PROG "spate-pub"

static volatile int stop_flag;

static void usage(FILE *f)
{
	/* clang-format off */
	fprintf(f,
		"usage: " PROG " --server HOST:PORT[,HOST:PORT...] [options] [STREAM.tsv]\n"
		"Sends the 'event' lines of STREAM.tsv (default or '-': stdin) to a Spate\n"
		"server; sub/unsub lines are skipped (spate-sub and spate-replay send them).\n"
		CLIENT_CLI_HELP_SERVER
		"  --rate N          events per second, 0 = as fast as possible (default 0)\n"
		CLIENT_CLI_HELP_ADAPTIVE
		"  --batch N         events per datagram, at most (default 1)\n"
		"  --count N         stop after N events (default: all)\n"
		CLIENT_CLI_HELP_CONF
		"  --linger-ms N     after the last event, wait this long for NACKs (default 200)\n"
		CLIENT_CLI_HELP_PROGRESS
		"  --skip-bad        report bad lines and go on (default: stop, exit 1)\n"
		"  --stamps FILE     write 'event_id<TAB>ns' per event sent (CLOCK_REALTIME,\n"
		"                    the time it was handed to the socket): failover tests\n"
		"Exit status: 0 all sent and none refused, 1 a bad line, a send error or a\n"
		"NACK (OVERLOADED included), 2 usage.\n");
	/* clang-format on */
}

struct pub {
	uint64_t nacks;
};

static void on_nack(void *ctx, const struct spate_ack *n)
{
	struct pub *p = ctx;

	p->nacks++;
	if (p->nacks <= 10)
		fprintf(stderr, PROG ": NACK for %s %" PRIu64 ": %s (%s)\n",
			spate_msg_type_name(n->req_type), n->id, spate_err_name(n->code),
			spate_err_reason(n->code));
}

static void progress(struct client_progress *pg, const struct client *c, bool final)
{
	double el = client_now() - pg->t0;

	client_progress(pg, c, final,
			"sent %" PRIu64 " events in %" PRIu64 " datagrams, %.0f events/s",
			c->cnt.events, c->cnt.dgrams, el > 0 ? c->cnt.events / el : 0.0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		CLIENT_CLI_OPTIONS_BASE,
		CLIENT_CLI_OPTIONS_SEND,
		{ "count", required_argument, NULL, 'n' },
		{ "linger-ms", required_argument, NULL, 'l' },
		{ "stamps", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct client cl;
	struct client_cli cli;
	struct pub p = { 0 };
	const char *stream = "-", *stamps_path = NULL;
	FILE *stamps = NULL;
	uint64_t count = UINT64_MAX;
	int linger_ms = 200, c, rc;

	client_cli_init(&cli, &cl, PROG, usage);
	cl.batch = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			cli.bad |= opt_u64(PROG, "count", optarg, 0, UINT64_MAX, &count) != 0;
			break;
		case 'l':
			cli.bad |= opt_int(PROG, "linger-ms", optarg, 0, 600000, &linger_ms) != 0;
			break;
		case 's':
			stamps_path = optarg;
			break;
		default:
			if ((rc = client_cli_opt(&cli, &cl, c, optarg)) >= 0)
				return rc;
		}
	}
	if ((rc = client_cli_check(&cli)) >= 0)
		return rc;
	if (argc - optind > 1) {
		usage(stderr);
		return 2;
	}
	if (optind < argc)
		stream = argv[optind];
	cl.on_nack = on_nack;
	cl.ctx = &p;
	if (stamps_path != NULL && (stamps = fopen(stamps_path, "w")) == NULL) {
		perror(stamps_path);
		return 2;
	}

	struct spate_stream_reader rd;
	int start_rc = client_start(&cl, cli.conf_path, &rd, stream, cli.server, NULL);
	if (start_rc != 0)
		return start_rc;
	/* events get no answer: without this, a wrong address or a stopped
	 * server would look like success */
	if (client_probe_list(&cl) != 0) {
		spate_stream_close(&rd);
		client_close(&cl);
		return 1;
	}
	client_stop_on_signals(&stop_flag);

	struct spate_stream_op op;
	uint64_t n_bad = 0, n_skipped = 0;
	int status = 0;
	double t0 = client_now();
	struct client_progress pg;
	client_progress_start(&pg, cli.show_progress);
	client_set_rate(&cl, cli.rate, cli.adaptive);

	while (!stop_flag && cl.cnt.events < count &&
	       (rc = spate_stream_next_reported(&rd, &op, PROG, cli.skip_bad, &n_bad)) != 0) {
		if (rc < 0) {
			status = 1;
			break;
		}
		if (op.kind != SPATE_LINE_EVENT) {
			n_skipped++;
			continue;
		}
		if (client_send_event(&cl, &op.u.ev) != 0 || client_pace(&cl) != 0) {
			status = 1;
			break;
		}
		if (stamps != NULL) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			fprintf(stamps, "%" PRIu64 "\t%" PRIu64 "\n", op.u.ev.id,
				(uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
		}
		/* Refusals come back while we send: read them now and then. */
		if ((cl.cnt.events & 255) == 0)
			client_pump(&cl, 0);
		progress(&pg, &cl, false);
	}
	if (client_flush(&cl) != 0)
		status = 1;
	double sent_at = client_now();
	client_drain(&cl, linger_ms, &stop_flag);
	progress(&pg, &cl, true);
	if (p.nacks > 0 || cl.cnt.overloaded > 0)
		status = 1; /* refused, or shed by an overloaded server */
	char extra[160];
	double el = sent_at - t0;
	snprintf(extra, sizeof(extra),
		 "elapsed=%.3fs rate=%.0f/s refused=%" PRIu64 " bad_lines=%" PRIu64
		 " skipped_sub_lines=%" PRIu64 "%s ",
		 el, el > 0 ? cl.cnt.events / el : 0.0, p.nacks, n_bad, n_skipped,
		 stop_flag ? " interrupted" : "");
	client_print_summary(&cl, extra);
	if (stamps != NULL && fclose(stamps) != 0)
		status = 1;
	spate_stream_close(&rd);
	client_close(&cl);
	return stop_flag ? 130 : status;
}
