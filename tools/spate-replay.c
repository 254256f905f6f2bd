/* spate-replay - replays a stream file to a Spate server over an ordinary
 * UDP socket, in order: every sub/unsub waits for its ACK (retransmitting
 * on timeout) before the next line is sent, events are packed several per
 * datagram. Notifications are collected and written as
 * "event_id<TAB>sub_id" lines, events in stream order and sub ids
 * ascending, so the output compares byte for byte with spate-match.
 * The protocol side is client.h, shared with spate-pub and spate-sub. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_cli.h"
#include "opt.h"
#include "outfile.h"
#include "matcher/spate_idmap.h"
#include "proto/spate_proto.h"
#include "stream/spate_stream.h"

#define PROG "spate-replay"

struct pair {
	uint64_t order; /* index of the event in the stream, or UINT64_MAX */
	uint64_t event_id, sub_id;
};

struct replay {
	struct pair *pairs;
	size_t n_pairs, cap_pairs;
	struct spate_idmap *event_order; /* event id -> order + 1 */
	uint64_t n_events;
};

static void usage(FILE *f)
{
	/* clang-format off */
	fprintf(f,
		"usage: " PROG " --server HOST:PORT[,HOST:PORT...] --stream FILE --out FILE [options]\n"
		"Replays a stream in order to a Spate server and writes the notifications\n"
		"received as 'event_id<TAB>sub_id' lines to FILE ('-' = stdout).\n"
		CLIENT_CLI_HELP_SERVER
		"  --local ADDR:PORT bind here (a later run gets the notifications of the\n"
		"                    subscriptions an earlier one made, with --client-id)\n"
		CLIENT_CLI_HELP_CONF
		CLIENT_CLI_HELP_ACK
		"  --idle-ms N       stop when no notification came for this long (default 500)\n"
		"  --batch N         events per datagram, at most (default 16)\n"
		"  --rate N          events per second, 0 = unpaced (default 20000); time spent\n"
		"                    waiting for ACKs is not made up later in a burst\n"
		CLIENT_CLI_HELP_ADAPTIVE
		"  --rcvbuf BYTES    socket receive buffer for the notifications (default 8 MB;\n"
		"                    the kernel's drops beyond it are reported)\n"
		"  --skip-bad        report NACKed and bad lines and go on (default: exit 1 at end)\n"
		CLIENT_CLI_HELP_PROGRESS);
	/* clang-format on */
}

static void record_pair(void *ctx, uint64_t ev, uint64_t sub)
{
	struct replay *r = ctx;

	if (r->n_pairs == r->cap_pairs) {
		size_t ncap = r->cap_pairs ? r->cap_pairs * 2 : 4096;
		struct pair *np = realloc(r->pairs, ncap * sizeof(*np));
		if (np == NULL) {
			fprintf(stderr, PROG ": out of memory\n");
			exit(1);
		}
		r->pairs = np;
		r->cap_pairs = ncap;
	}
	uintptr_t o = (uintptr_t)spate_idmap_get(r->event_order, ev);
	r->pairs[r->n_pairs++] = (struct pair){ o ? o - 1 : UINT64_MAX, ev, sub };
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (x->event_id != y->event_id)
		return x->event_id < y->event_id ? -1 : 1;
	return (x->sub_id > y->sub_id) - (x->sub_id < y->sub_id);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		CLIENT_CLI_OPTIONS_BASE,
		CLIENT_CLI_OPTIONS_SEND,
		CLIENT_CLI_OPTIONS_ACK,
		{ "stream", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "local", required_argument, NULL, 'l' },
		{ "idle-ms", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct replay r = { 0 };
	struct client cl;
	struct client_cli cli;
	const char *stream = NULL, *out = NULL, *local = NULL;
	int idle_ms = 500;
	int c, rc;

	client_cli_init(&cli, &cl, PROG, usage);
	cli.rate = 20000;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			stream = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'l':
			local = optarg;
			break;
		case 'd':
			cli.bad |= opt_int(PROG, "idle-ms", optarg, 1, 3600000, &idle_ms) != 0;
			break;
		default:
			if ((rc = client_cli_opt(&cli, &cl, c, optarg)) >= 0)
				return rc;
		}
	}
	if ((rc = client_cli_check(&cli)) >= 0)
		return rc;
	if (!stream || !out || optind != argc) {
		usage(stderr);
		return 2;
	}
	cl.on_notify = record_pair;
	cl.ctx = &r;

	struct spate_stream_reader rd;
	int start_rc = client_start(&cl, cli.conf_path, &rd, stream, cli.server, local);
	if (start_rc != 0)
		return start_rc;
	r.event_order = spate_idmap_create();

	struct spate_stream_op op;
	uint64_t n_bad = 0, n_ops = 0;
	int status = 0;
	bool stopped = false; /* the stream was not replayed to its end */
	double t0 = client_now();
	struct client_progress pg;
	client_progress_start(&pg, cli.show_progress);
	client_set_rate(&cl, cli.rate, cli.adaptive);

	while ((rc = spate_stream_next_reported(&rd, &op, PROG, cli.skip_bad, &n_bad)) != 0) {
		if (rc < 0) {
			status = 1;
			stopped = true;
			break;
		}
		n_ops++;
		client_progress(&pg, &cl, false,
				"%" PRIu64 " lines sent, %" PRIu64 " notifications", n_ops,
				cl.cnt.notifications);
		if (op.kind == SPATE_LINE_EVENT) {
			if (spate_idmap_get(r.event_order, op.u.ev.id) == NULL &&
			    spate_idmap_put(r.event_order, op.u.ev.id,
					    (void *)(uintptr_t)(++r.n_events)) != 0) {
				fprintf(stderr, PROG ": out of memory\n");
				status = 1;
				stopped = true;
				break;
			}
			if (client_send_event(&cl, &op.u.ev) != 0 || client_pace(&cl) != 0) {
				status = 1;
				stopped = true;
				break;
			}
			continue;
		}
		int ans = client_sub_op_reported(&cl, &op, &rd, cli.server);
		if (ans < 0) {
			status = 1;
			stopped = true;
			break;
		}
		if (ans > 0) {
			n_bad++;
			if (!cli.skip_bad)
				status = 1;
		}
	}
	if (client_flush(&cl) != 0) {
		status = 1;
		stopped = true;
	}
	/* Drain: stop once the server has been quiet for idle_ms. */
	client_drain(&cl, idle_ms, NULL);
	double elapsed = client_now() - t0;
	client_progress(&pg, &cl, true, "%" PRIu64 " lines sent, %" PRIu64 " notifications", n_ops,
			cl.cnt.notifications);

	if (r.n_pairs > 1)
		qsort(r.pairs, r.n_pairs, sizeof(r.pairs[0]), cmp_pair);
	/* A replay cut short leaves no output: half a result compares
	 * wrongly with spate-match without saying so. */
	struct outfile of;
	if (stopped) {
		fprintf(stderr, PROG ": stopped early: %s not written\n", out);
	} else if (outfile_open(&of, PROG, out) != 0) {
		status = 1;
	} else {
		for (size_t i = 0; i < r.n_pairs; i++)
			fprintf(of.f, "%" PRIu64 "\t%" PRIu64 "\n", r.pairs[i].event_id,
				r.pairs[i].sub_id);
		if (outfile_commit(&of) != 0)
			status = 1;
	}
	char extra[128];
	snprintf(extra, sizeof(extra), "ops=%" PRIu64 " bad=%" PRIu64 " elapsed=%.3fs ", n_ops,
		 n_bad, elapsed);
	client_print_summary(&cl, extra);
	spate_stream_close(&rd);
	spate_idmap_destroy(r.event_order);
	free(r.pairs);
	client_close(&cl);
	return status;
}
