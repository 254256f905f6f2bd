/* client.c - the UDP client side of the Spate protocol (client.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/errqueue.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "conf/spate_conf.h"
#include "proto/spate_err.h"

double client_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int client_parse_hostport(const char *s, struct sockaddr_in *out, char *err, size_t errlen)
{
	char host[256];
	const char *colon = strrchr(s, ':');
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res;
	char *end;

	if (colon == NULL || colon == s || (size_t)(colon - s) >= sizeof(host))
		goto bad;
	memcpy(host, s, colon - s);
	host[colon - s] = '\0';
	errno = 0;
	long port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno || port < 0 || port > 65535)
		goto bad;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "cannot resolve host '%s': %s", host,
			 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return -1;
	}
	memcpy(out, res->ai_addr, sizeof(*out));
	out->sin_port = htons((uint16_t)port);
	freeaddrinfo(res);
	return 0;
bad:
	snprintf(err, errlen, "bad address '%s' (want HOST:PORT)", s);
	return -1;
}

int client_server_opt(const char *prog, char *acc, size_t cap, const char *arg)
{
	size_t len = strlen(acc);

	if (len + (len > 0) + strlen(arg) + 1 > cap) {
		fprintf(stderr, "%s: --server: the list is too long\n", prog);
		return -1;
	}
	if (len > 0)
		acc[len++] = ',';
	strcpy(acc + len, arg);
	return 0;
}

/* The list "a:p,b:p" into c->servers. 0 or -1 (message printed). */
static int parse_servers(struct client *c, const char *list)
{
	const char *p = list;

	c->n_servers = 0;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char one[sizeof(c->server_name[0])], why[320];
		if (len == 0 || len >= sizeof(one)) {
			fprintf(stderr,
				"%s: --server: bad address in '%s' (want "
				"HOST:PORT[,HOST:PORT...])\n",
				c->prog, list);
			return -1;
		}
		if (c->n_servers == CLIENT_SERVERS_MAX) {
			fprintf(stderr, "%s: --server: more than %d servers\n", c->prog,
				CLIENT_SERVERS_MAX);
			return -1;
		}
		memcpy(one, p, len);
		one[len] = '\0';
		struct sockaddr_in *sa = &c->servers[c->n_servers];
		if (client_parse_hostport(one, sa, why, sizeof(why)) != 0) {
			fprintf(stderr, "%s: --server: %s\n", c->prog, why);
			return -1;
		}
		if (sa->sin_port == 0) {
			fprintf(stderr, "%s: --server: bad address '%s' (port 0)\n", c->prog, one);
			return -1;
		}
		memcpy(c->server_name[c->n_servers++], one, len + 1);
		if (end == NULL)
			break;
		p = end + 1;
	}
	c->cur = 0;
	c->server = c->servers[0];
	return 0;
}

static int is_server(const struct client *c, uint32_t ipv4, uint16_t port)
{
	return ipv4 == ntohl(c->server.sin_addr.s_addr) && port == ntohs(c->server.sin_port);
}

/* The server in use failed (why): the next one of the list. */
static void failover(struct client *c, const char *why)
{
	uint32_t from = c->cur;
	double now = client_now();

	c->cur = (c->cur + 1) % c->n_servers;
	c->server = c->servers[c->cur];
	uint64_t unconfirmed = c->cnt.events - c->confirmed;
	fprintf(stderr,
		"%s: server %s %s: now %s (%" PRIu64 " events sent after its last"
		" answer)\n",
		c->prog, c->server_name[from], why, c->server_name[c->cur], unconfirmed);
	c->failovers++;
	c->unconfirmed += unconfirmed;
	c->confirmed = c->cnt.events; /* the new server's count starts here */
	c->heard = now;               /* the new one gets a whole failover_ms to answer */
	c->ka_sent = 0;
	c->ka_first = 0;
	c->overload_since = 0;
}

/* Errors the kernel queued for our datagrams (IP_RECVERR): an ICMP
 * unreachable for the server in use moves to the next. */
static void read_errors(struct client *c)
{
	for (int k = 0; k < 64; k++) {
		uint8_t data[64];
		/* room for the error and the arrival stamp the socket also asks
		 * for (SO_TIMESTAMPNS): a control buffer too small truncates a
		 * message, whose length then says so (checked below) */
		union {
			struct cmsghdr h;
			char room[CMSG_SPACE(sizeof(struct sock_extended_err) +
					     sizeof(struct sockaddr_in)) +
				  CMSG_SPACE(sizeof(struct timespec)) + 64];
		} ctl;
		struct sockaddr_in to = { 0 };
		struct iovec iov = { data, sizeof(data) };
		struct msghdr mh = { .msg_name = &to,
				     .msg_namelen = sizeof(to),
				     .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = &ctl,
				     .msg_controllen = sizeof(ctl) };
		if (recvmsg(c->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h != NULL; h = CMSG_NXTHDR(&mh, h)) {
			if (h->cmsg_level != IPPROTO_IP || h->cmsg_type != IP_RECVERR ||
			    h->cmsg_len < CMSG_LEN(sizeof(struct sock_extended_err)))
				continue;
			const struct sock_extended_err *ee = (const void *)CMSG_DATA(h);
			if ((ee->ee_origin == SO_EE_ORIGIN_ICMP ||
			     ee->ee_origin == SO_EE_ORIGIN_LOCAL) &&
			    c->n_servers > 1 &&
			    is_server(c, ntohl(to.sin_addr.s_addr), ntohs(to.sin_port))) {
				char why[96];
				snprintf(why, sizeof(why), "unreachable (ICMP: %s)",
					 strerror((int)ee->ee_errno));
				failover(c, why);
			}
		}
	}
}

/* A keepalive probe to the server in use (a message of no known type:
 * NACKed UNKNOWN_TYPE, no effect; docs/protocol.md). */
static void keepalive(struct client *c, double now)
{
	uint8_t probe[20] = { 0x53, 0x50, 1, 0, 0, sizeof(probe), 0, 1 };
	uint32_t seq = CLIENT_KA_SEQ | (c->ka_seq++ & 0x0fffffffu);

	for (int i = 0; i < 4; i++) {
		probe[8 + i] = (uint8_t)(c->client_id >> (24 - 8 * i));
		probe[12 + i] = (uint8_t)(seq >> (24 - 8 * i));
	}
	probe[19] = 4;
	c->ka_sent = now;
	if (c->ka_first == 0)
		c->ka_first = now;
	/* its answer confirms the events sent before it, not those after */
	c->ka_mark[seq % CLIENT_KA_MARKS] = c->cnt.events - c->ev_w.count;
	sendto(c->fd, probe, sizeof(probe), 0, (const struct sockaddr *)&c->server,
	       sizeof(c->server)); /* an error comes back through read_errors */
}

/* With a list: is the server in use still there? Judged up to the
 * arrival of what was read last (`drained`: up to now): its answer may
 * wait in our receive queue behind a flood of notifications from the
 * match hosts, and nothing that arrived later than what was read is
 * known yet. */
static void watch_server(struct client *c, bool drained)
{
	if (c->n_servers < 2 || c->fd < 0)
		return;
	double now = client_now(), ka = c->failover_ms / 4000.0;
	double upto = drained || c->rx_at == 0 || c->rx_at > now ? now : c->rx_at;
	char why[96];

	if (c->heard == 0)
		c->heard = now;
	/* silence is judged only over probes sent: a client busy elsewhere
	 * (reading a flood of notifications) sent none meanwhile */
	if (upto - c->heard >= c->failover_ms / 1000.0 && c->ka_first != 0 &&
	    upto - c->ka_first >= 3 * ka) {
		snprintf(why, sizeof(why), "silent for %.0f ms", (upto - c->heard) * 1000);
		failover(c, why);
	} else if (c->overload_since != 0 &&
		   upto - c->overload_since >= 2 * c->failover_ms / 1000.0) {
		snprintf(why, sizeof(why), "shed everything (OVERLOADED) for %.0f ms",
			 (upto - c->overload_since) * 1000);
		failover(c, why);
	} else if (now - c->heard >= ka && now - c->ka_sent >= ka) {
		keepalive(c, now);
	}
}

void client_init(struct client *c, const char *prog)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->prog = prog;
	c->timeout_ms = 200;
	c->retries = 10;
	c->batch = 16;
	c->rcvbuf = CLIENT_RCVBUF_DEFAULT;
	c->failover_ms = CLIENT_FAILOVER_MS_DEFAULT;
	c->pace.adaptive = true;
	c->client_id = (uint32_t)getpid();
	spate_limits_default(&c->lim);
	/* Replies may carry up to the protocol's own maximum of messages. */
	c->lim.max_messages = 1024;
}

int client_open(struct client *c, const char *server, const char *local)
{
	char why[320];
	if (parse_servers(c, server) != 0)
		return -1;
	struct sockaddr_in me = { .sin_family = AF_INET };
	if (local != NULL && client_parse_hostport(local, &me, why, sizeof(why)) != 0) {
		fprintf(stderr, "%s: local address: %s\n", c->prog, why);
		return -1;
	}
	c->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (c->fd < 0) {
		fprintf(stderr, "%s: socket: %s\n", c->prog, strerror(errno));
		return -1;
	}
	/* Notifications come in bursts: room for a few thousand datagrams.
	 * SO_RCVBUFFORCE passes net.core.rmem_max when we may (root), else
	 * the kernel caps SO_RCVBUF there: say so, the losses would follow. */
	socklen_t ol = sizeof(c->rcvbuf_got);
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVBUFFORCE, &c->rcvbuf, sizeof(c->rcvbuf)) != 0)
		setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &c->rcvbuf, sizeof(c->rcvbuf));
	if (getsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &c->rcvbuf_got, &ol) == 0)
		c->rcvbuf_got /= 2; /* the kernel reports twice what it counts as data */
	if (c->rcvbuf_got < c->rcvbuf)
		fprintf(stderr,
			"%s: receive buffer %d bytes, not %d (net.core.rmem_max caps it: "
			"sysctl -w net.core.rmem_max=%d, or run as root)\n",
			c->prog, c->rcvbuf_got, c->rcvbuf, c->rcvbuf);
	/* The kernel's count of datagrams it dropped for this socket comes
	 * with each one received. */
	int one = 1;
	setsockopt(c->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	/* with a list: ICMP errors for the server in use are read (and move
	 * to the next) instead of being lost on an unconnected socket */
	if (c->n_servers > 1) {
		setsockopt(c->fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
		/* arrival stamps: silence is judged up to what was read */
		setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	}
	if (local != NULL && bind(c->fd, (struct sockaddr *)&me, sizeof(me)) != 0) {
		fprintf(stderr, "%s: bind %s: %s\n", c->prog, local, strerror(errno));
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	spate_writer_init(&c->ev_w, c->ev_buf, sizeof(c->ev_buf), 0, c->client_id, ++c->seq);
	return 0;
}

int client_load_limits(struct client *c, const char *conf_path)
{
	struct spate_conf conf;
	char err[512];

	spate_conf_default(&conf);
	if (conf_path && spate_conf_load(&conf, conf_path, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", c->prog, err);
		return 2;
	}
	c->lim = conf.limits;
	c->lim.max_messages = 1024;
	return 0;
}

int client_start(struct client *c, const char *conf_path, struct spate_stream_reader *rd,
		 const char *stream, const char *server, const char *local)
{
	if (client_load_limits(c, conf_path) != 0)
		return 2;
	if (spate_stream_open(rd, stream, &c->lim) != 0) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, stream, strerror(errno));
		return 2;
	}
	if (client_open(c, server, local) != 0) {
		spate_stream_close(rd);
		return 2;
	}
	return 0;
}

void client_close(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

uint64_t client_seq_see(struct client_seq_track *t, uint32_t seq)
{
	uint64_t gap = 0;

	if (!t->started) {
		/* The first datagram we see: earlier ones may predate us
		 * (another process on this port), so no gap is counted. */
		t->started = true;
		t->last = seq;
		return 0;
	}
	if (seq == t->last + 1) {
		t->last = seq;
	} else if (seq > t->last) {
		gap = seq - t->last - 1;
		t->lost += gap;
		t->last = seq;
	} else if (seq == 1) {
		t->restarts++;
		t->last = 1;
	} else {
		/* Reordered: a datagram counted as lost has come after all. */
		t->late++;
		if (t->lost > 0)
			t->lost--;
	}
	return gap;
}

static void pace_backoff(struct client *c, double now);

struct client_seq_track *client_seq_of(struct client *c, uint32_t ipv4, uint16_t port)
{
	for (uint32_t i = 0; i < c->n_src; i++)
		if (c->src[i].ipv4 == ipv4 && c->src[i].port == port)
			return &c->src[i].t;
	if (c->n_src == CLIENT_SOURCES_MAX) {
		c->sources_over++;
		return &c->src[CLIENT_SOURCES_MAX - 1].t;
	}
	struct client_seq_source *s = &c->src[c->n_src++];
	memset(s, 0, sizeof(*s));
	s->ipv4 = ipv4;
	s->port = port;
	return &s->t;
}

struct client_seq_track client_seq_total(const struct client *c)
{
	struct client_seq_track sum = { 0 };

	for (uint32_t i = 0; i < c->n_src; i++) {
		sum.lost += c->src[i].t.lost;
		sum.late += c->src[i].t.late;
		sum.restarts += c->src[i].t.restarts;
	}
	return sum;
}

/* Handle one datagram from the server at from (host byte order). */
static void handle_dgram(struct client *c, const uint8_t *buf, size_t len, uint32_t from_ip,
			 uint16_t from_port)
{
	struct spate_hdr h;
	struct spate_reader rd;
	struct spate_msg msg;
	bool had_notify = false;
	int rc;

	if (spate_hdr_decode(buf, len, &c->lim, &h) != 0 || !(h.flags & SPATE_FLAG_SERVER)) {
		c->cnt.bad_dgrams++;
		return;
	}
	struct client_seq_track *rx = client_seq_of(c, from_ip, from_port);
	uint32_t before = rx->last;
	uint64_t gap = client_seq_see(rx, h.seq);
	if (gap > 0 && c->report_gaps)
		fprintf(stderr,
			"%s: gap: datagrams %" PRIu32 "..%" PRIu32 " of server %u.%u.%u.%u:%u "
			"missing (%" PRIu64 " lost; this host's kernel dropped %" PRIu64
			" so far)\n",
			c->prog, before + 1, h.seq - 1, from_ip >> 24, (from_ip >> 16) & 0xff,
			(from_ip >> 8) & 0xff, from_ip & 0xff, from_port, gap, c->kernel_drops);
	/* last_rx is when the server last said something (client_drain's
	 * idle clock): a keepalive's answer alone is not, or a list's probes
	 * (every failover_ms / 4) would keep a drain shorter than that
	 * waiting for ever */
	double prev_rx = c->last_rx;
	bool said = false;
	c->last_rx = client_now();
	bool from_server = is_server(c, from_ip, from_port);
	if (from_server) {
		c->heard = c->rx_at != 0 ? c->rx_at : c->last_rx;
		c->ka_first = 0;
	}
	spate_reader_init(&rd, buf, len, &h);
	while ((rc = spate_reader_next(&rd, &c->lim, &msg)) != 0) {
		if (rc < 0) {
			c->cnt.bad_dgrams++;
			continue;
		}
		said |= !(msg.type == SPATE_MSG_NACK && msg.u.ack.req_seq >= CLIENT_KA_SEQ &&
			  msg.u.ack.code == SPATE_E_UNKNOWN_TYPE);
		switch (msg.type) {
		case SPATE_MSG_NOTIFY:
			had_notify = true;
			c->cnt.notifications += msg.u.notify.n_subs;
			for (uint16_t i = 0; i < msg.u.notify.n_subs && c->on_notify; i++)
				c->on_notify(c->ctx, msg.u.notify.event_id,
					     spate_notify_id(&msg.u.notify, i));
			break;
		case SPATE_MSG_ACK:
		case SPATE_MSG_NACK:
			if (msg.type == SPATE_MSG_NACK && msg.u.ack.code == SPATE_E_OVERLOADED) {
				/* our datagram was shed unread: slow down; a sub op
				 * in it is retransmitted on its timeout */
				c->cnt.overloaded++;
				pace_backoff(c, client_now());
				if (from_server && c->overload_since == 0)
					c->overload_since = c->heard;
				break;
			}
			if (from_server)
				c->overload_since = 0;
			if (msg.type == SPATE_MSG_NACK && msg.u.ack.req_seq >= CLIENT_KA_SEQ &&
			    msg.u.ack.code == SPATE_E_UNKNOWN_TYPE) {
				/* a keepalive answered: what was sent before it arrived */
				uint64_t mark = c->ka_mark[msg.u.ack.req_seq % CLIENT_KA_MARKS];
				if (from_server && mark > c->confirmed && mark <= c->cnt.events)
					c->confirmed = mark;
				break;
			}
			if (!c->wait_done && msg.u.ack.req_seq == c->wait_seq &&
			    msg.u.ack.id == c->wait_id) {
				c->wait_done = true;
				c->wait_code = msg.type == SPATE_MSG_ACK ? 0 : msg.u.ack.code;
			} else if (msg.type == SPATE_MSG_NACK && c->probe_seq != 0 &&
				   msg.u.ack.req_seq == c->probe_seq) {
				/* a slow server answered a probe sent again: not ours to count */
			} else if (msg.type == SPATE_MSG_NACK) {
				c->cnt.other_nacks++;
				if (c->on_nack)
					c->on_nack(c->ctx, &msg.u.ack);
			}
			break;
		default:
			c->cnt.bad_dgrams++;
		}
	}
	if (had_notify)
		c->cnt.notify_dgrams++;
	if (!said)
		c->last_rx = prev_rx;
}

void client_pump(struct client *c, int timeout_ms)
{
	uint8_t buf[65536];
	union {
		struct cmsghdr h;
		char room[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct timespec))];
	} ctl;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int errs = 0;
	unsigned int got = 0;
	/* the kernel's arrival stamps (CLOCK_REALTIME) on client_now()'s clock */
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	double rt_to_mono = client_now() - ((double)rt.tv_sec + rt.tv_nsec * 1e-9);

	bool drained = false;
	for (;;) {
		int ready = poll(&pfd, 1, timeout_ms);
		if (ready <= 0) {
			drained = ready == 0;
			break;
		}
		if (pfd.revents & POLLERR)
			read_errors(c);
		if (!(pfd.revents & POLLIN)) {
			if (++errs >= 64)
				break;
			timeout_ms = 0;
			continue;
		}
		struct iovec iov = { buf, sizeof(buf) };
		struct sockaddr_in from = { 0 };
		struct msghdr mh = { .msg_name = &from,
				     .msg_namelen = sizeof(from),
				     .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = &ctl,
				     .msg_controllen = sizeof(ctl) };
		ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && c->n_servers > 1 && ++errs < 64) {
			read_errors(c); /* an ICMP error reported here once */
			continue;
		}
		if (n < 0)
			break;
		c->rx_at = 0;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h != NULL; h = CMSG_NXTHDR(&mh, h))
			if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_RXQ_OVFL) {
				uint32_t drops;
				memcpy(&drops, CMSG_DATA(h), sizeof(drops));
				if (drops > c->kernel_drops)
					c->kernel_drops = drops;
			} else if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;
				memcpy(&ts, CMSG_DATA(h), sizeof(ts));
				c->rx_at = (double)ts.tv_sec + ts.tv_nsec * 1e-9 + rt_to_mono;
			}
		handle_dgram(c, buf, (size_t)n, ntohl(from.sin_addr.s_addr), ntohs(from.sin_port));
		if ((++got & 63) == 0)
			watch_server(c, false); /* probes go out during a flood too */
		timeout_ms = 0;
		if (c->wait_done)
			break;
	}
	watch_server(c, drained);
	c->rx_at = 0;
}

void client_drain(struct client *c, int idle_ms, volatile int *stop)
{
	c->last_rx = client_now();
	while (client_now() - c->last_rx < idle_ms / 1000.0 && !(stop && *stop))
		client_pump(c, idle_ms / 10 + 1);
}

int client_probe(struct client *c, const char *server)
{
	/* docs/protocol.md: the 16-byte header (magic, version 1, no flags,
	 * length, one message, client id, seq), then a message header of
	 * type 0, mflags 0, mlength 4: refused UNKNOWN_TYPE, skipped. */
	uint8_t probe[20];
	uint32_t seq = ++c->seq;
	const char *why = NULL;
	int err = 0;

	memset(probe, 0, sizeof(probe));
	probe[0] = 0x53;
	probe[1] = 0x50;
	probe[2] = 1;
	probe[5] = sizeof(probe);
	probe[7] = 1;
	for (int i = 0; i < 4; i++) {
		probe[8 + i] = (uint8_t)(c->client_id >> (24 - 8 * i));
		probe[12 + i] = (uint8_t)(seq >> (24 - 8 * i));
	}
	probe[19] = 4;
	/* Connected: the kernel reports an ICMP port unreachable as
	 * ECONNREFUSED on the next send or receive. */
	if (connect(c->fd, (const struct sockaddr *)&c->server, sizeof(c->server)) != 0) {
		err = errno;
		why = "cannot reach it";
	}
	c->wait_seq = seq;
	c->probe_seq = seq;
	c->wait_id = 0;
	c->wait_done = false;
	for (int attempt = 0; why == NULL && !c->wait_done && attempt <= c->retries; attempt++) {
		if (send(c->fd, probe, sizeof(probe), 0) != (ssize_t)sizeof(probe)) {
			err = errno;
			why = err == ECONNREFUSED ? "nothing listens there (ICMP port unreachable)"
						  : "cannot send to it";
			break;
		}
		double until = client_now() + c->timeout_ms / 1000.0;
		while (!c->wait_done && client_now() < until) {
			uint8_t buf[65536];
			struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
			int left = (int)((until - client_now()) * 1000) + 1;
			if (poll(&pfd, 1, left) <= 0)
				continue;
			ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (n < 0 && errno == ECONNREFUSED) {
				err = errno;
				why = "nothing listens there (ICMP port unreachable)";
				break;
			}
			if (n > 0) /* connected: from the server itself */
				handle_dgram(c, buf, (size_t)n, ntohl(c->server.sin_addr.s_addr),
					     ntohs(c->server.sin_port));
		}
	}
	c->wait_seq = 0;
	/* unconnected again: replies may come from other addresses */
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	connect(c->fd, &unspec, sizeof(unspec));
	if (why == NULL && c->wait_done)
		return 0;
	if (why != NULL)
		fprintf(stderr, "%s: no Spate server at %s: %s%s%s\n", c->prog, server, why,
			err && err != ECONNREFUSED ? ": " : "",
			err && err != ECONNREFUSED ? strerror(err) : "");
	else
		fprintf(stderr,
			"%s: no Spate server at %s: no answer within %d ms (%d tries); is "
			"spated running there, on that port? (a server requiring authentication "
			"drops unsigned datagrams)\n",
			c->prog, server, c->timeout_ms * (c->retries + 1), c->retries + 1);
	return -1;
}

int client_probe_list(struct client *c)
{
	for (uint32_t k = 0; k < c->n_servers; k++) {
		c->cur = k;
		c->server = c->servers[k];
		if (client_probe(c, c->server_name[k]) == 0) {
			c->heard = client_now();
			c->confirmed = c->cnt.events;
			if (k > 0)
				fprintf(stderr, "%s: using %s\n", c->prog, c->server_name[k]);
			return 0;
		}
	}
	return -1;
}

void client_progress_start(struct client_progress *p, bool on)
{
	p->on = on;
	p->t0 = client_now();
	p->next = p->t0; /* the first line at once, then twice a second */
}

void client_progress(struct client_progress *p, const struct client *c, bool final, const char *fmt,
		     ...)
{
	double now = client_now();
	va_list ap;

	if (!p->on || (!final && now < p->next))
		return;
	p->next = now + 0.5;
	fprintf(stderr, "\r%s: ", c->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* blanks: a shorter line overwrites a longer one */
	fprintf(stderr, ", %.1f s%s", now - p->t0, final ? "\n" : "    ");
}

static int send_buf(struct client *c, const void *buf, size_t len)
{
	for (int tries = 0;; tries++) {
		ssize_t n = sendto(c->fd, buf, len, 0, (const struct sockaddr *)&c->server,
				   sizeof(c->server));
		if (n == (ssize_t)len)
			return 0;
		/* A full socket buffer drains by itself: read replies and
		 * retry, for a bounded while. */
		if (n < 0 && (errno == ENOBUFS || errno == EAGAIN) && tries < 10000) {
			client_pump(c, 1);
			continue;
		}
		/* an ICMP error of an earlier datagram, reported on this one:
		 * with a list, the next server */
		if (n < 0 && c->n_servers > 1 && tries < 10000 &&
		    (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH ||
		     errno == EHOSTDOWN)) {
			uint32_t cur = c->cur;
			int e = errno;
			read_errors(c);
			if (c->cur == cur) {
				char why[96];
				snprintf(why, sizeof(why), "unreachable (%s)", strerror(e));
				failover(c, why);
			}
			continue;
		}
		fprintf(stderr, "%s: send: %s\n", c->prog,
			n < 0 ? strerror(errno) : "short datagram");
		return -1;
	}
}

int client_flush(struct client *c)
{
	if (c->ev_w.count == 0)
		return 0;
	size_t len = spate_writer_finish(&c->ev_w);
	if (send_buf(c, c->ev_buf, len) != 0)
		return -1;
	c->cnt.dgrams++;
	spate_writer_init(&c->ev_w, c->ev_buf, sizeof(c->ev_buf), 0, c->client_id, ++c->seq);
	return 0;
}

int client_send_event(struct client *c, const struct spate_raw_event *ev)
{
	if (c->ev_w.count >= c->batch && client_flush(c) != 0)
		return -1;
	int rc = spate_put_event(&c->ev_w, ev);
	if (rc == -SPATE_E_NO_MEMORY) {
		if (client_flush(c) != 0)
			return -1;
		rc = spate_put_event(&c->ev_w, ev);
	}
	if (rc != 0) {
		fprintf(stderr, "%s: event %" PRIu64 " cannot be encoded: %s\n", c->prog, ev->id,
			spate_err_reason(rc));
		return -1;
	}
	c->cnt.events++;
	return 0;
}

void client_set_rate(struct client *c, double rate, bool adaptive)
{
	struct client_pace *p = &c->pace;

	memset(p, 0, sizeof(*p));
	p->rate = p->cur = p->top = rate > 0 ? rate : 0;
	p->adaptive = adaptive;
	p->next = p->last = p->win_t0 = client_now();
}

/* The rate in force climbs back towards its top after a backoff. */
static void pace_recover(struct client_pace *p, double now)
{
	if (p->cur <= 0 || p->cur >= p->top || p->top <= 0)
		return;
	p->cur += (now - p->last) * p->top / CLIENT_PACE_RECOVER_S;
	p->last = now;
	if (p->cur >= p->top)
		p->cur = p->rate; /* unpaced again, if it was */
}

/* The server shed a datagram of ours (OVERLOADED): halve the rate. */
static void pace_backoff(struct client *c, double now)
{
	struct client_pace *p = &c->pace;

	if (!p->adaptive)
		return;
	pace_recover(p, now);
	double cur = p->cur;
	if (cur <= 0) {
		/* unpaced: the rate we were sending at, since the window began */
		double dt = now - p->win_t0;
		cur = dt > 0.001 ? (double)p->win_events / dt : CLIENT_PACE_MIN_RATE * 2;
		p->top = cur;
		p->next = now;
	}
	p->cur = cur / 2 > CLIENT_PACE_MIN_RATE ? cur / 2 : CLIENT_PACE_MIN_RATE;
	p->last = now;
	p->backoffs++;
}

int client_pace(struct client *c)
{
	struct client_pace *p = &c->pace;
	double now = client_now();

	/* unpaced: the sending rate over the last 100 ms, for a backoff */
	if (now - p->win_t0 > 0.1) {
		p->win_t0 = now;
		p->win_events = 0;
	}
	p->win_events++;
	pace_recover(p, now);
	if (p->cur <= 0)
		return 0;
	/* Time spent elsewhere (an ACK awaited, the scheduler) is not made up
	 * later in a burst: a receiver that could take `rate` can take this. */
	if (p->next < now - CLIENT_PACE_SLACK_S)
		p->next = now - CLIENT_PACE_SLACK_S;
	p->next += 1.0 / p->cur;
	double dt = p->next - now;
	/* Sleeps of half a millisecond or more: a nanosleep costs tens of
	 * microseconds and oversleeps as much, and datagrams go out fuller. */
	if (dt < 0.0005)
		return 0;
	if (client_flush(c) != 0)
		return -1;
	client_pump(c, 0);
	struct timespec ts = { (time_t)dt, (long)((dt - (time_t)dt) * 1e9) };
	nanosleep(&ts, NULL);
	return 0;
}

int client_sub_op(struct client *c, const struct spate_stream_op *op)
{
	uint8_t buf[SPATE_DGRAM_MAX];
	struct spate_writer w;
	int rc;

	/* Events queued before this op must reach the server before it. */
	if (client_flush(c) != 0)
		return -1;
	/* The op takes the seq the next events datagram would have had. */
	uint32_t seq = c->seq;
	spate_writer_init(&w, buf, sizeof(buf), 0, c->client_id, seq);
	if (op->kind == SPATE_LINE_SUB) {
		rc = spate_put_sub_add(&w, &op->u.sub);
		c->wait_id = op->u.sub.id;
	} else {
		rc = spate_put_sub_del(&w, op->u.unsub_id);
		c->wait_id = op->u.unsub_id;
	}
	spate_writer_init(&c->ev_w, c->ev_buf, sizeof(c->ev_buf), 0, c->client_id, ++c->seq);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot encode: %s\n", c->prog, spate_err_reason(rc));
		return -1;
	}
	size_t len = spate_writer_finish(&w);
	c->wait_seq = seq;
	c->wait_done = false;
	for (int attempt = 0; attempt <= c->retries; attempt++) {
		if (attempt > 0)
			c->cnt.retransmits++;
		if (send_buf(c, buf, len) != 0)
			return -1;
		double deadline = client_now() + c->timeout_ms / 1000.0;
		while (!c->wait_done) {
			int left = (int)((deadline - client_now()) * 1000);
			if (left <= 0)
				break;
			client_pump(c, left);
		}
		if (!c->wait_done)
			continue;
		if (c->wait_code == 0 || (attempt > 0 && op->kind == SPATE_LINE_UNSUB &&
					  c->wait_code == SPATE_E_UNKNOWN_ID)) {
			c->cnt.acks++;
			return 0;
		}
		c->cnt.nacks++;
		return c->wait_code;
	}
	return -1;
}

uint64_t client_kernel_drops(struct client *c)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	/* drops after the last datagram received come with none */
	if (c->fd >= 0 && getsockopt(c->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
	    len > SK_MEMINFO_DROPS * sizeof(mem[0]) && mem[SK_MEMINFO_DROPS] > c->kernel_drops)
		c->kernel_drops = mem[SK_MEMINFO_DROPS];
	return c->kernel_drops;
}

void client_print_summary(struct client *c, const char *extra)
{
	uint64_t kdrops = client_kernel_drops(c);
	struct client_seq_track rx = client_seq_total(c);

	fprintf(stderr,
		"%s: %sevents=%" PRIu64 " datagrams=%" PRIu64 " acks=%" PRIu64 " nacks=%" PRIu64
		" retransmits=%" PRIu64 " notifications=%" PRIu64 " notify_datagrams=%" PRIu64
		" seq_lost=%" PRIu64 " seq_late=%" PRIu64 " seq_restarts=%" PRIu64
		" kernel_drops=%" PRIu64 " rcvbuf=%d overloaded=%" PRIu64 " backoffs=%" PRIu64
		" bad_replies=%" PRIu64 " servers=%" PRIu32 "\n",
		c->prog, extra ? extra : "", c->cnt.events, c->cnt.dgrams, c->cnt.acks,
		c->cnt.nacks, c->cnt.retransmits, c->cnt.notifications, c->cnt.notify_dgrams,
		rx.lost, rx.late, rx.restarts, kdrops, c->rcvbuf_got, c->cnt.overloaded,
		c->pace.backoffs, c->cnt.bad_dgrams, c->n_src);
	if (c->n_servers > 1)
		fprintf(stderr,
			"%s: failovers=%" PRIu64 " unconfirmed_events=%" PRIu64 " server=%s\n",
			c->prog, c->failovers, c->unconfirmed, c->server_name[c->cur]);
	if (rx.lost > 0)
		fprintf(stderr, "%s: warning: %" PRIu64 " server datagrams lost (sequence gaps)\n",
			c->prog, rx.lost);
	if (c->sources_over > 0)
		fprintf(stderr,
			"%s: warning: %" PRIu64 " datagrams from more than %d server addresses "
			"(their gaps are not told apart)\n",
			c->prog, c->sources_over, CLIENT_SOURCES_MAX);
	if (kdrops > 0)
		fprintf(stderr,
			"%s: warning: %" PRIu64 " datagrams dropped by this host's kernel "
			"before we read them (receive buffer full: raise --rcvbuf)\n",
			c->prog, kdrops);
	if (c->cnt.overloaded > 0)
		fprintf(stderr,
			"%s: warning: the server was overloaded: %" PRIu64
			" OVERLOADED notices (datagrams of ours dropped unread)\n",
			c->prog, c->cnt.overloaded);
}
