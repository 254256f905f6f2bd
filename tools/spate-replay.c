/* spate-replay - replays a stream file to a Spate server over an ordinary
 * UDP socket, in order: every sub/unsub waits for its ACK (retransmitting
 * on timeout) before the next line is sent, events are packed several per
 * datagram. Notifications are collected and written as
 * "event_id<TAB>sub_id" lines, events in stream order and sub ids
 * ascending, so the output compares byte for byte with spate-match. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "spate_conf.h"
#include "spate_err.h"
#include "spate_idmap.h"
#include "spate_proto.h"
#include "spate_stream.h"

struct pair {
	uint64_t order; /* index of the event in the stream, or UINT64_MAX */
	uint64_t event_id, sub_id;
};

struct replay {
	int fd;
	struct sockaddr_in server;
	uint32_t client_id, seq;
	struct spate_limits lim;
	int timeout_ms, retries, idle_ms, batch;
	double rate;
	/* datagram of events being filled */
	uint8_t ev_buf[SPATE_DGRAM_MAX];
	struct spate_writer ev_w;
	/* what came back */
	struct pair *pairs;
	size_t n_pairs, cap_pairs;
	struct spate_idmap *event_order; /* event id -> order + 1 */
	uint64_t n_events, n_dgrams, n_acks, n_nacks, n_retrans, n_notify_dgrams;
	uint64_t n_gaps, n_bad_dgrams;
	int have_rx_seq;
	uint32_t last_rx_seq;
	double last_rx;
	/* the answer being waited for */
	uint32_t wait_seq;
	uint64_t wait_id;
	int wait_done, wait_code;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spate-replay --server HOST:PORT --stream FILE --out FILE [options]\n"
		"Replays a stream in order to a Spate server and writes the notifications\n"
		"received as 'event_id<TAB>sub_id' lines to FILE ('-' = stdout).\n"
		"  --client-id N     client id in every datagram (default: the process id)\n"
		"  --conf FILE       libconfig file; its 'spate' group sets the limits\n"
		"  --timeout-ms N    wait for an ACK before retransmitting (default 200)\n"
		"  --retries N       retransmissions before giving up (default 10)\n"
		"  --idle-ms N       stop when no notification came for this long (default 500)\n"
		"  --batch N         events per datagram, at most (default 16)\n"
		"  --rate N          events per second, 0 = unpaced (default 20000)\n"
		"  --skip-bad        report NACKed and bad lines and go on (default: exit 1 at end)\n");
}

static int parse_hostport(const char *s, struct sockaddr_in *out)
{
	char host[256];
	const char *colon = strrchr(s, ':');
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, colon - s);
	host[colon - s] = '\0';
	char *end;
	long port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
		return -1;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return -1;
	memcpy(out, res->ai_addr, sizeof(*out));
	out->sin_port = htons((uint16_t)port);
	freeaddrinfo(res);
	return 0;
}

static void record_pair(struct replay *r, uint64_t ev, uint64_t sub)
{
	if (r->n_pairs == r->cap_pairs) {
		size_t ncap = r->cap_pairs ? r->cap_pairs * 2 : 4096;
		struct pair *np = realloc(r->pairs, ncap * sizeof(*np));
		if (np == NULL) {
			fprintf(stderr, "spate-replay: out of memory\n");
			exit(1);
		}
		r->pairs = np;
		r->cap_pairs = ncap;
	}
	uintptr_t o = (uintptr_t)spate_idmap_get(r->event_order, ev);
	r->pairs[r->n_pairs++] = (struct pair){ o ? o - 1 : UINT64_MAX, ev, sub };
}

/* Handle one datagram from the server. */
static void handle_dgram(struct replay *r, const uint8_t *buf, size_t len)
{
	struct spate_hdr h;
	struct spate_reader rd;
	struct spate_msg msg;
	int rc;

	if (spate_hdr_decode(buf, len, &r->lim, &h) != 0 || !(h.flags & SPATE_FLAG_SERVER)) {
		r->n_bad_dgrams++;
		return;
	}
	/* The server numbers the datagrams it sends to each receiver. */
	if (r->have_rx_seq && h.seq != r->last_rx_seq + 1 && h.seq > r->last_rx_seq)
		r->n_gaps += h.seq - r->last_rx_seq - 1;
	if (!r->have_rx_seq || h.seq > r->last_rx_seq)
		r->last_rx_seq = h.seq;
	r->have_rx_seq = 1;
	r->last_rx = now_s();
	spate_reader_init(&rd, buf, len, &h);
	bool had_notify = false;
	while ((rc = spate_reader_next(&rd, &r->lim, &msg)) != 0) {
		if (rc < 0) {
			r->n_bad_dgrams++;
			continue;
		}
		switch (msg.type) {
		case SPATE_MSG_NOTIFY:
			had_notify = true;
			for (uint16_t i = 0; i < msg.u.notify.n_subs; i++)
				record_pair(r, msg.u.notify.event_id,
					    spate_notify_id(&msg.u.notify, i));
			break;
		case SPATE_MSG_ACK:
		case SPATE_MSG_NACK:
			if (!r->wait_done && msg.u.ack.req_seq == r->wait_seq &&
			    msg.u.ack.id == r->wait_id) {
				r->wait_done = 1;
				r->wait_code = msg.type == SPATE_MSG_ACK ? 0 : msg.u.ack.code;
			}
			break;
		default:
			r->n_bad_dgrams++;
		}
	}
	if (had_notify)
		r->n_notify_dgrams++;
}

/* Receive whatever arrives within timeout_ms (0 = only what is queued). */
static void pump(struct replay *r, int timeout_ms)
{
	uint8_t buf[65536];
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

	while (poll(&pfd, 1, timeout_ms) > 0) {
		ssize_t n = recv(r->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0)
			break;
		handle_dgram(r, buf, (size_t)n);
		timeout_ms = 0;
		if (r->wait_done)
			break;
	}
}

static int send_buf(struct replay *r, const void *buf, size_t len)
{
	for (;;) {
		ssize_t n = sendto(r->fd, buf, len, 0, (const struct sockaddr *)&r->server,
				   sizeof(r->server));
		if (n == (ssize_t)len)
			return 0;
		if (n < 0 && (errno == ENOBUFS || errno == EAGAIN)) {
			pump(r, 1);
			continue;
		}
		fprintf(stderr, "spate-replay: send: %s\n", n < 0 ? strerror(errno) : "short");
		return -1;
	}
}

static void ev_begin(struct replay *r)
{
	spate_writer_init(&r->ev_w, r->ev_buf, sizeof(r->ev_buf), 0, r->client_id, ++r->seq);
}

static int ev_flush(struct replay *r)
{
	if (r->ev_w.count == 0)
		return 0;
	size_t len = spate_writer_finish(&r->ev_w);
	if (send_buf(r, r->ev_buf, len) != 0)
		return -1;
	r->n_dgrams++;
	ev_begin(r);
	return 0;
}

static int send_event(struct replay *r, const struct spate_raw_event *ev, double t0)
{
	if (spate_idmap_get(r->event_order, ev->id) == NULL &&
	    spate_idmap_put(r->event_order, ev->id, (void *)(uintptr_t)(r->n_events + 1)) != 0)
		return -1;
	if (r->ev_w.count >= r->batch && ev_flush(r) != 0)
		return -1;
	int rc = spate_put_event(&r->ev_w, ev);
	if (rc == -SPATE_E_NO_MEMORY) {
		if (ev_flush(r) != 0)
			return -1;
		rc = spate_put_event(&r->ev_w, ev);
	}
	if (rc != 0) {
		fprintf(stderr, "spate-replay: event %" PRIu64 " cannot be encoded: %s\n",
			ev->id, spate_err_reason(rc));
		return -1;
	}
	r->n_events++;
	if (r->rate > 0) {
		/* Pace: never run ahead of rate events per second. */
		double due = t0 + r->n_events / r->rate;
		double dt = due - now_s();
		if (dt > 0) {
			if (ev_flush(r) != 0)
				return -1;
			pump(r, 0);
			struct timespec ts = { (time_t)dt, (long)((dt - (time_t)dt) * 1e9) };
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

/* Send one subscription operation and wait for its ACK or NACK.
 * Returns 0 (ACK), a positive NACK code, or -1 (no answer). */
static int send_sub_op(struct replay *r, const struct spate_stream_op *op)
{
	uint8_t buf[SPATE_DGRAM_MAX];
	struct spate_writer w;
	int rc;

	if (ev_flush(r) != 0)
		return -1;
	uint32_t seq = ++r->seq;
	spate_writer_init(&w, buf, sizeof(buf), 0, r->client_id, seq);
	if (op->kind == SPATE_LINE_SUB) {
		rc = spate_put_sub_add(&w, &op->u.sub);
		r->wait_id = op->u.sub.id;
	} else {
		rc = spate_put_sub_del(&w, op->u.unsub_id);
		r->wait_id = op->u.unsub_id;
	}
	if (rc != 0) {
		fprintf(stderr, "spate-replay: cannot encode: %s\n", spate_err_reason(rc));
		return -1;
	}
	size_t len = spate_writer_finish(&w);
	r->wait_seq = seq;
	r->wait_done = 0;
	for (int attempt = 0; attempt <= r->retries; attempt++) {
		if (attempt > 0)
			r->n_retrans++;
		if (send_buf(r, buf, len) != 0)
			return -1;
		double deadline = now_s() + r->timeout_ms / 1000.0;
		while (!r->wait_done) {
			int left = (int)((deadline - now_s()) * 1000);
			if (left <= 0)
				break;
			pump(r, left);
		}
		if (r->wait_done) {
			ev_begin(r);
			return r->wait_code;
		}
	}
	ev_begin(r);
	return -1;
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
		{ "server", required_argument, NULL, 'S' },
		{ "stream", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "client-id", required_argument, NULL, 'i' },
		{ "conf", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' },
		{ "idle-ms", required_argument, NULL, 'd' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rate", required_argument, NULL, 'R' },
		{ "skip-bad", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct replay r = { .timeout_ms = 200, .retries = 10, .idle_ms = 500,
			    .batch = 16, .rate = 20000, .client_id = (uint32_t)getpid() };
	const char *server = NULL, *stream = NULL, *out = NULL, *conf_path = NULL;
	bool skip_bad = false;
	struct spate_conf conf;
	char err[512];
	int c;

	spate_conf_default(&conf);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end = NULL;
		long v = 0;
		if (c != 'S' && c != 's' && c != 'o' && c != 'c' && c != 'k' && c != 'h' &&
		    c != '?') {
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (*end != '\0' || errno || v < 0 || v > 100000000) {
				fprintf(stderr, "spate-replay: bad number '%s'\n", optarg);
				return 2;
			}
		}
		switch (c) {
		case 'S': server = optarg; break;
		case 's': stream = optarg; break;
		case 'o': out = optarg; break;
		case 'c': conf_path = optarg; break;
		case 'i': r.client_id = (uint32_t)v; break;
		case 't': r.timeout_ms = (int)(v ? v : 1); break;
		case 'r': r.retries = (int)v; break;
		case 'd': r.idle_ms = (int)v; break;
		case 'b': r.batch = (int)(v ? v : 1); break;
		case 'R': r.rate = (double)v; break;
		case 'k': skip_bad = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!server || !stream || !out || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (conf_path && spate_conf_load(&conf, conf_path, err, sizeof(err)) != 0) {
		fprintf(stderr, "spate-replay: %s\n", err);
		return 2;
	}
	r.lim = conf.limits;
	/* Replies may carry up to the protocol's own maximum of messages. */
	r.lim.max_messages = 1024;
	if (parse_hostport(server, &r.server) != 0) {
		fprintf(stderr, "spate-replay: bad --server '%s' (want HOST:PORT)\n", server);
		return 2;
	}
	r.fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (r.fd < 0) {
		fprintf(stderr, "spate-replay: socket: %s\n", strerror(errno));
		return 1;
	}
	int rcvbuf = 8 << 20;
	setsockopt(r.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	r.event_order = spate_idmap_create();

	struct spate_stream_reader rd;
	if (spate_stream_open(&rd, stream, &r.lim) != 0) {
		fprintf(stderr, "spate-replay: %s: %s\n", stream, strerror(errno));
		return 2;
	}
	FILE *of = strcmp(out, "-") == 0 ? stdout : NULL;
	struct spate_stream_op op;
	uint64_t n_bad = 0, n_ops = 0;
	int rc, status = 0;
	double t0 = now_s();

	ev_begin(&r);
	while ((rc = spate_stream_next_reported(&rd, &op, "spate-replay", skip_bad, &n_bad)) != 0) {
		if (rc < 0) {
			status = 1;
			break;
		}
		n_ops++;
		if (op.kind == SPATE_LINE_EVENT) {
			if (send_event(&r, &op.u.ev, t0) != 0) {
				status = 1;
				break;
			}
			continue;
		}
		int ans = send_sub_op(&r, &op);
		if (ans < 0) {
			fprintf(stderr, "spate-replay: %s:%lu: no answer from %s after %d tries\n",
				rd.path, rd.line_no, server, r.retries + 1);
			status = 1;
			break;
		}
		if (ans == 0) {
			r.n_acks++;
		} else {
			r.n_nacks++;
			n_bad++;
			fprintf(stderr, "spate-replay: %s:%lu: NACK %s: %s\n", rd.path, rd.line_no,
				spate_err_name(ans), spate_err_reason(ans));
			if (!skip_bad)
				status = 1;
		}
	}
	if (ev_flush(&r) != 0)
		status = 1;
	/* Drain: stop once the server has been quiet for idle_ms. */
	r.last_rx = now_s();
	while (now_s() - r.last_rx < r.idle_ms / 1000.0)
		pump(&r, r.idle_ms / 10 + 1);
	double elapsed = now_s() - t0;

	if (r.n_pairs > 1)
		qsort(r.pairs, r.n_pairs, sizeof(r.pairs[0]), cmp_pair);
	if (of == NULL)
		of = fopen(out, "w");
	if (of == NULL) {
		fprintf(stderr, "spate-replay: %s: %s\n", out, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < r.n_pairs; i++)
		fprintf(of, "%" PRIu64 "\t%" PRIu64 "\n", r.pairs[i].event_id, r.pairs[i].sub_id);
	if (fflush(of) != 0 || ferror(of) || (of != stdout && fclose(of) != 0)) {
		fprintf(stderr, "spate-replay: writing %s: %s\n", out, strerror(errno));
		status = 1;
	}
	fprintf(stderr,
		"spate-replay: ops=%" PRIu64 " events=%" PRIu64 " datagrams=%" PRIu64
		" acks=%" PRIu64 " nacks=%" PRIu64 " retransmits=%" PRIu64
		" notifications=%zu notify_datagrams=%" PRIu64 " seq_gaps=%" PRIu64
		" bad_replies=%" PRIu64 " bad=%" PRIu64 " elapsed=%.3fs\n",
		n_ops, r.n_events, r.n_dgrams, r.n_acks, r.n_nacks, r.n_retrans, r.n_pairs,
		r.n_notify_dgrams, r.n_gaps, r.n_bad_dgrams, n_bad, elapsed);
	if (r.n_gaps > 0)
		fprintf(stderr, "spate-replay: warning: %" PRIu64
			" server datagrams lost (sequence gaps)\n", r.n_gaps);
	spate_stream_close(&rd);
	spate_idmap_destroy(r.event_order);
	free(r.pairs);
	close(r.fd);
	return status;
}
