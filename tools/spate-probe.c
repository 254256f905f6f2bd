/* spate-probe - round-trip latency as a user sees it: one subscription
 * (a small rectangle around a point, one keyword, this socket as its
 * destination), then one matching event at a time, each sent when the
 * NOTIFY of the one before came back, timed with CLOCK_MONOTONIC. The
 * same datagrams, sent to a plain UDP echo server (--echo; --echo-server
 * is one), give the kernel's own round trip on the same path: the
 * baseline spated is compared with (tools/latency-bench.sh).
 *
 * Prints p50, p90, p99, p99.9 and max in microseconds (one JSON line with
 * --json), and with --samples every round trip, sorted, one a line. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client_cli.h"
#include "opt.h"
#include "outfile.h"
#include "proto/spate_err.h"

#define PROG "spate-probe"

static volatile int stop_flag;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --server HOST:PORT [options]   probe spated\n"
		"       " PROG " --echo HOST:PORT [options]     probe a UDP echo server\n"
		"       " PROG " --echo-server HOST:PORT        be a plain UDP echo server\n"
		"Subscribes one small rectangle around --point with --keyword (notifications\n"
		"to this socket), then sends one matching event at a time and waits for its\n"
		"NOTIFY before the next; --echo sends the same datagrams and waits for them\n"
		"to come back. Prints the round trips' percentiles in microseconds.\n"
		"  --count N         timed round trips (default 20000)\n"
		"  --warmup N        untimed round trips first (default 1000)\n"
		"  --timeout-ms N    a round trip not back by then is lost (default 1000)\n"
		"  --point LON,LAT   where the events are (default -100,38)\n"
		"  --keyword W       the subscription's and the events' keyword (default probe)\n"
		"  --sub-id N        the subscription's id (default 4000000001)\n"
		"  --label TEXT      names the run in the output (default: spated or echo)\n"
		"  --samples FILE    every timed round trip in us, sorted, one a line\n"
		"  --json            one JSON line instead of the text line\n"
		"  --conf FILE       libconfig file; its 'spate' group sets the limits\n"
		"Exit status: 0 done (losses are reported, not fatal), 1 no subscription or\n"
		"every round trip lost or an I/O error, 2 usage.\n");
}

/* The echo server: every datagram straight back to its sender. */
static int echo_server(const char *addr)
{
	struct sockaddr_in me;
	uint8_t buf[65536];

	char why[320];
	if (client_parse_hostport(addr, &me, why, sizeof(why)) != 0) {
		fprintf(stderr, PROG ": %s\n", why);
		return 2;
	}
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0) {
		fprintf(stderr, PROG ": echo server %s: %s\n", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	fprintf(stderr, PROG ": echo server on %s\n", addr);
	while (!stop_flag) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": recvfrom: %s\n", strerror(errno));
			break;
		}
		sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
	}
	close(fd);
	return 0;
}

struct probe {
	uint64_t want; /* the event whose NOTIFY is awaited */
	uint64_t sub_id;
	double got_at; /* client_now() when it came; 0 = not yet */
};

static void on_notify(void *ctx, uint64_t event_id, uint64_t sub_id)
{
	struct probe *p = ctx;

	if (event_id == p->want && sub_id == p->sub_id && p->got_at == 0)
		p->got_at = client_now();
}

/* One round trip through spated: seconds, or -1 when lost. */
static double rt_spated(struct client *c, struct probe *p, struct spate_raw_event *ev,
			int timeout_ms)
{
	p->want = ev->id;
	p->got_at = 0;
	double t0 = client_now(), deadline = t0 + timeout_ms / 1000.0;
	if (client_send_event(c, ev) != 0 || client_flush(c) != 0)
		return -2;
	while (p->got_at == 0 && !stop_flag) {
		int left = (int)ceil((deadline - client_now()) * 1000);
		if (left <= 0)
			return -1;
		client_pump(c, left);
	}
	return p->got_at != 0 ? p->got_at - t0 : -1;
}

/* The same through an echo server: the datagram an event would travel
 * in, back byte for byte. */
static double rt_echo(struct client *c, struct spate_raw_event *ev, int timeout_ms)
{
	uint8_t out[SPATE_DGRAM_MAX], in[65536];
	struct spate_writer w;

	spate_writer_init(&w, out, sizeof(out), 0, c->client_id, ++c->seq);
	if (spate_put_event(&w, ev) != 0)
		return -2;
	size_t len = spate_writer_finish(&w);
	double t0 = client_now(), deadline = t0 + timeout_ms / 1000.0;
	if (sendto(c->fd, out, len, 0, (struct sockaddr *)&c->server, sizeof(c->server)) !=
	    (ssize_t)len)
		return -2;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	while (!stop_flag) {
		int left = (int)ceil((deadline - client_now()) * 1000);
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			return -1;
		ssize_t n = recv(c->fd, in, sizeof(in), MSG_DONTWAIT);
		if (n == (ssize_t)len && memcmp(in, out, len) == 0)
			return client_now() - t0;
	}
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least q of them at or below. */
static double pct(const double *v, size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);

	return v[k > 0 ? k - 1 : 0];
}

static int parse_point(const char *s, double *lon, double *lat)
{
	char buf[64], *comma;

	snprintf(buf, sizeof(buf), "%s", s);
	comma = strchr(buf, ',');
	if (comma == NULL) {
		fprintf(stderr, PROG ": --point: bad value '%s' (want LON,LAT)\n", s);
		return -1;
	}
	*comma = '\0';
	return opt_double(PROG, "point", buf, -179.9, 179.9, lon) |
	       opt_double(PROG, "point", comma + 1, -89.9, 89.9, lat);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 'S' },
		{ "echo", required_argument, NULL, 'E' },
		{ "echo-server", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "point", required_argument, NULL, 'p' },
		{ "keyword", required_argument, NULL, 'k' },
		{ "sub-id", required_argument, NULL, 'i' },
		{ "label", required_argument, NULL, 'L' },
		{ "samples", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "conf", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *server = NULL, *echo = NULL, *serve = NULL, *label = NULL;
	const char *samples_path = NULL, *conf_path = NULL, *keyword = "probe";
	uint64_t count = 20000, warmup = 1000, sub_id = 4000000001ull;
	double lon = -100, lat = 38;
	int timeout_ms = 1000, json = 0, bad = 0, c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			server = optarg;
			break;
		case 'E':
			echo = optarg;
			break;
		case 'e':
			serve = optarg;
			break;
		case 'n':
			bad |= opt_u64(PROG, "count", optarg, 1, 100000000, &count);
			break;
		case 'w':
			bad |= opt_u64(PROG, "warmup", optarg, 0, 100000000, &warmup);
			break;
		case 't':
			bad |= opt_int(PROG, "timeout-ms", optarg, 1, 600000, &timeout_ms);
			break;
		case 'p':
			bad |= parse_point(optarg, &lon, &lat);
			break;
		case 'k':
			keyword = optarg;
			break;
		case 'i':
			bad |= opt_u64(PROG, "sub-id", optarg, 1, UINT64_MAX, &sub_id);
			break;
		case 'L':
			label = optarg;
			break;
		case 's':
			samples_path = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'c':
			conf_path = optarg;
			break;
		default:
			return opt_other(PROG, c, usage);
		}
	}
	if (bad)
		return 2;
	if (optind != argc || (server != NULL) + (echo != NULL) + (serve != NULL) != 1) {
		usage(stderr);
		return 2;
	}
	client_stop_on_signals(&stop_flag);
	if (serve != NULL)
		return echo_server(serve);

	struct client cl;
	client_init(&cl, PROG);
	cl.batch = 1;
	if (client_load_limits(&cl, conf_path) != 0)
		return 2;
	if (spate_check_keyword(&cl.lim, keyword, strlen(keyword)) != 0) {
		fprintf(stderr, PROG ": --keyword: '%s' is not a keyword\n", keyword);
		return 2;
	}
	if (client_open(&cl, server ? server : echo, NULL) != 0)
		return 2;
	struct probe p = { .sub_id = sub_id };
	cl.on_notify = on_notify;
	cl.ctx = &p;
	int32_t x = (int32_t)lround(lon * SPATE_COORD_SCALE),
		y = (int32_t)lround(lat * SPATE_COORD_SCALE);
	struct spate_str kw = spate_str_of(keyword);
	struct spate_stream_op sub = { .kind = SPATE_LINE_SUB };
	if (server != NULL) {
		/* a 0.002 degree square: the events are at its centre */
		sub.u.sub = (struct spate_raw_sub){
			.id = sub_id,
			.n_kw = 1,
			.rect = { x - SPATE_COORD_SCALE / 1000, y - SPATE_COORD_SCALE / 1000,
				  x + SPATE_COORD_SCALE / 1000, y + SPATE_COORD_SCALE / 1000 }
		};
		sub.u.sub.kw[0] = kw;
		int rc = client_sub_op(&cl, &sub);
		if (rc != 0) {
			fprintf(stderr, PROG ": subscription %" PRIu64 " %s\n", sub_id,
				rc < 0 ? "not answered" : spate_err_reason(rc));
			client_close(&cl);
			return 1;
		}
	}

	double *v = malloc(count * sizeof(*v));
	if (v == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		client_close(&cl);
		return 1;
	}
	struct spate_raw_event ev = { .lon = x, .lat = y, .n_kw = 1 };
	ev.kw[0] = kw;
	/* event ids of this run only: a late NOTIFY of another run is not ours */
	uint64_t base = (uint64_t)getpid() << 32, lost = 0, n = 0;
	int status = 0;
	for (uint64_t i = 0; i < warmup + count && !stop_flag; i++) {
		ev.id = base + i;
		double rt = server ? rt_spated(&cl, &p, &ev, timeout_ms)
				   : rt_echo(&cl, &ev, timeout_ms);
		if (rt == -2) {
			fprintf(stderr, PROG ": send: %s\n", strerror(errno));
			status = 1;
			break;
		}
		if (i < warmup)
			continue;
		if (rt < 0)
			lost++;
		else
			v[n++] = rt * 1e6;
	}
	if (server != NULL) {
		struct spate_stream_op del = { .kind = SPATE_LINE_UNSUB, .u.unsub_id = sub_id };
		client_sub_op(&cl, &del); /* best effort: spated keeps running */
	}
	client_close(&cl);
	if (n == 0) {
		fprintf(stderr, PROG ": no round trip came back (%" PRIu64 " lost)\n", lost);
		free(v);
		return 1;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	if (label == NULL)
		label = server ? "spated" : "echo";
	if (json)
		printf("{\"probe\":\"%s\",\"target\":\"%s\",\"n\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,\"p99.9_us\":%.1f,"
		       "\"max_us\":%.1f}\n",
		       label, server ? server : echo, n, lost, pct(v, n, 0.5), pct(v, n, 0.9),
		       pct(v, n, 0.99), pct(v, n, 0.999), v[n - 1]);
	else
		printf("%s: n=%" PRIu64 " lost=%" PRIu64 " p50=%.1f p90=%.1f p99=%.1f p99.9=%.1f "
		       "max=%.1f us\n",
		       label, n, lost, pct(v, n, 0.5), pct(v, n, 0.9), pct(v, n, 0.99),
		       pct(v, n, 0.999), v[n - 1]);
	if (samples_path != NULL) {
		struct outfile o;
		if (outfile_open(&o, PROG, samples_path) != 0) {
			status = 1;
		} else {
			for (uint64_t i = 0; i < n; i++)
				fprintf(o.f, "%.2f\n", v[i]);
			if (outfile_commit(&o) != 0)
				status = 1;
		}
	}
	free(v);
	return stop_flag ? 130 : status;
}
