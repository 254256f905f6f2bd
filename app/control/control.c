/* control.c - the control socket, its thread, the request ring to the data
 * plane, and `help`. The commands are registered by the modules that own
 * them (ctl_cmd.h): a request is parsed against that registry and runs
 * where its command says (the data-plane lcore for anything touching its
 * state, the control thread for `save`, `help` and the read-only figures). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "control/control.h"
#include "control/control_perm.h"
#include "control/ctl_cmd.h"
#include "control/ctl_out.h"
#include "control/ctl_params.h"
#include "infra/counters.h"
#include "main/spated_log.h"

#define REQ_LINE_MAX CTL_REQ_LINE_MAX
#define ARGS_MAX CTL_ARGS_MAX

static struct control_target tgt;
static struct rte_ring *req_ring, *rsp_ring;
static pthread_t ctl_thread;
static atomic_bool ctl_stop;
static bool ctl_running;
static int listen_fd = -1;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

/* ---------------------------------------------------------------- */
/* Settings by name, for telemetry (ctl_params.h).                    */

int control_param_get(const char *name, char *buf, size_t len)
{
	return tgt.conf != NULL ? ctl_param_get(&tgt, name, buf, len) : -1;
}

/* The list of commands, from the registry (ctl_cmd.h). */
static int cmd_help(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	(void)r;
	(void)err;
	(void)errlen;
	for (const struct ctl_cmd *c = ctl_cmd_first(); c != NULL; c = c->next)
		ctl_out_str(o, c->usage, c->help);
	return 0;
}

static struct ctl_cmd help_cmd = {
	.path = "help",
	.usage = "help",
	.help = "this list",
	.fn = cmd_help,
	.rank = CTL_RANK_HELP,
};
CTL_COMMAND(help_cmd)

/* Run a parsed request into r->out / r->status (either thread). */
static void run(struct ctl_req *r)
{
	char err[512] = "";
	struct ctl_out o;
	size_t len = 0;
	FILE *f = open_memstream(&r->out, &len);

	if (f == NULL) {
		r->status = -1;
		r->out = NULL;
		return;
	}
	ctl_out_init(&o, f, r->json);
	r->status = r->cmd->fn(r, &o, err, sizeof(err));
	if (r->status != 0) {
		/* The error replaces whatever was half printed. */
		fclose(f);
		free(r->out);
		f = open_memstream(&r->out, &len);
		if (f == NULL) {
			r->out = NULL;
			return;
		}
		fprintf(f, "%s\n", err);
	} else {
		ctl_out_finish(&o);
	}
	fclose(f);
	r->out_len = len;
}

void control_poll(void)
{
	struct ctl_req *r;

	if (req_ring == NULL || rte_ring_sc_dequeue(req_ring, (void **)&r) != 0)
		return;
	run(r);
	/* The ring has room: one request is in flight at a time. */
	rte_ring_sp_enqueue(rsp_ring, r);
}

/* ---------------------------------------------------------------- */
/* The control thread: socket, parsing, hand-off.                     */

/* Split the line, find the command. 0, or -1 with the reason in err. */
static int parse(struct ctl_req *r, char *err, size_t errlen)
{
	char *words[ARGS_MAX + 4];
	int n = 0;

	for (char *save = NULL, *w = strtok_r(r->line, " \t\r\n", &save);
	     w != NULL && n < ARGS_MAX + 4; w = strtok_r(NULL, " \t\r\n", &save))
		words[n++] = w;
	int first = 0;
	if (n > 0 && strcmp(words[0], "json") == 0) {
		r->json = true;
		first = 1;
	}
	int k;
	const struct ctl_cmd *c = ctl_cmd_match(words + first, n - first, &k);
	if (c != NULL) {
		r->cmd = c;
		r->t = &tgt;
		r->argc = n - first - k;
		for (int i = 0; i < r->argc && i < ARGS_MAX; i++)
			r->argv[i] = words[first + k + i];
		if (r->argc < c->min_args || r->argc > c->max_args) {
			snprintf(err, errlen, "usage: %s", c->usage);
			return -1;
		}
		if (c->clustering && tgt.matcher == NULL) {
			snprintf(err, errlen,
				 "'%s': not on a match host (no clustering here: ask a front)",
				 c->path);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown command (spatectl help lists them)");
	return -1;
}

/* Connections. Each client gets CTL_READ_MS from its connect to send its
 * line and CTL_WRITE_MS to take the answer; at most CTL_CLIENTS_MAX are
 * served at once and one more is told "busy" at once. Sockets are
 * non-blocking and every send is MSG_NOSIGNAL, so a slow, idle or vanished
 * client costs the thread nothing but a slot until its deadline, and
 * never a signal. The data plane sees one request at a time, in arrival
 * order. */
#define CTL_CLIENTS_MAX 16
#define CTL_READ_MS 5000
#define CTL_WRITE_MS 5000
#define CTL_DP_MS 10000 /* a data plane that answers later is stuck */

enum conn_state { CONN_FREE, CONN_READ, CONN_QUEUED, CONN_DP, CONN_WRITE };

struct conn {
	enum conn_state state;
	int fd;
	uint64_t deadline; /* ms (monotonic) when the current state ends */
	uint64_t seq;      /* arrival order, for the data plane's queue */
	size_t got;        /* request bytes read */
	struct ctl_req *r;
	char *ans; /* "ok\n" or "error\n", then the body */
	size_t ans_len, ans_off;
};

static struct conn conns[CTL_CLIENTS_MAX];
static struct ctl_req *dp_req; /* on the data plane now, or NULL */
static struct conn *dp_conn;   /* whose it is; NULL once given up on */
static uint64_t conn_seq;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void req_free(struct ctl_req *r)
{
	if (r != NULL)
		free(r->out);
	free(r);
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	if (c->r != NULL && c->r == dp_req)
		dp_conn = NULL; /* the data plane still holds it: freed on return */
	else
		req_free(c->r);
	free(c->ans);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Send what the socket takes now. 1 done, 0 more to send, -1 gone. */
static int conn_flush(struct conn *c)
{
	while (c->ans_off < c->ans_len) {
		ssize_t w = send(c->fd, c->ans + c->ans_off, c->ans_len - c->ans_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0)
			return -1;
		c->ans_off += (size_t)w;
	}
	return 1;
}

/* Send what can be sent now; close when done or gone. */
static void conn_write(struct conn *c)
{
	int rc = conn_flush(c);

	if (rc < 0)
		spated_cnt.ctl_hangups++; /* EPIPE, ECONNRESET: it left first */
	if (rc != 0)
		conn_close(c);
}

/* The answer: the status line, then the body; sending starts at once. */
static void conn_answer(struct conn *c, bool ok, const char *body, size_t len)
{
	const char *status = ok ? "ok\n" : "error\n";
	size_t sl = strlen(status);

	c->ans = malloc(sl + len);
	if (c->ans == NULL) {
		conn_close(c);
		return;
	}
	memcpy(c->ans, status, sl);
	if (len > 0)
		memcpy(c->ans + sl, body, len);
	c->ans_len = sl + len;
	c->ans_off = 0;
	c->state = CONN_WRITE;
	c->deadline = now_ms() + CTL_WRITE_MS;
	conn_write(c);
}

static void conn_error(struct conn *c, const char *msg)
{
	char line[300];
	int n = snprintf(line, sizeof(line), "%s\n", msg);

	conn_answer(c, false, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* A request has run (here or on the data plane): answer it. */
static void conn_done(struct conn *c)
{
	struct ctl_req *r = c->r;

	c->r = NULL; /* answering may close c */
	if (r->status == 0 && r->cmd->after != NULL)
		r->cmd->after(r);
	if (r->out == NULL)
		conn_error(c, "out of memory");
	else
		conn_answer(c, r->status == 0, r->out, r->out_len);
	req_free(r);
}

/* The line is in: parse it, run it here or queue it for the data plane. */
static void conn_request(struct conn *c)
{
	struct ctl_req *r = c->r;
	char err[256];

	if (parse(r, err, sizeof(err)) != 0) {
		conn_error(c, err);
		return;
	}
	if (!r->cmd->on_dp) {
		run(r);
		conn_done(c);
		return;
	}
	c->state = CONN_QUEUED;
	c->seq = conn_seq++;
	c->deadline = now_ms() + CTL_DP_MS;
}

static void conn_read(struct conn *c)
{
	char *line = c->r->line;
	ssize_t n = recv(c->fd, line + c->got, REQ_LINE_MAX - 1 - c->got, MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		/* The peer ended its side: what came is the request, if any. */
		if (c->got > 0)
			conn_request(c);
		else
			conn_close(c);
		return;
	}
	c->got += (size_t)n;
	line[c->got] = '\0';
	if (memchr(line, '\n', c->got) != NULL)
		conn_request(c);
	else if (c->got == REQ_LINE_MAX - 1)
		conn_error(c, "request line too long (at most 1023 bytes)");
}

static void conn_accept(void)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		struct conn *c = NULL;
		for (int i = 0; i < CTL_CLIENTS_MAX && c == NULL; i++)
			if (conns[i].state == CONN_FREE)
				c = &conns[i];
		struct ctl_req *r = c ? calloc(1, sizeof(*r)) : NULL;
		if (r == NULL) {
			char busy[100];
			int n = snprintf(
				busy, sizeof(busy),
				"error\nbusy: %d control clients are connected; try again\n",
				CTL_CLIENTS_MAX);
			spated_cnt.ctl_busy++;
			(void)send(fd, busy, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
			/* A request already queued, closed unread, turns the
			 * client's next read into ECONNRESET (AF_UNIX): its
			 * read after "busy" should be the end, not an error. */
			char sink[512];
			for (int k = 0; k < 8 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0;
			     k++)
				;
			close(fd);
			continue;
		}
		spated_cnt.ctl_clients++;
		*c = (struct conn){
			.state = CONN_READ, .fd = fd, .r = r, .deadline = now_ms() + CTL_READ_MS
		};
	}
}

/* The data plane's side: collect its answer, hand it the next request. */
static void conn_data_plane(uint64_t now)
{
	struct ctl_req *back;

	while (rte_ring_sc_dequeue(rsp_ring, (void **)&back) == 0) {
		if (back != dp_req) { /* cannot happen: one in flight at a time */
			req_free(back);
			continue;
		}
		dp_req = NULL;
		if (dp_conn == NULL) { /* given up on, or its client left */
			req_free(back);
			continue;
		}
		conn_done(dp_conn);
		dp_conn = NULL;
	}
	if (dp_req != NULL && dp_conn != NULL && now >= dp_conn->deadline) {
		/* Left to the data plane, which frees nothing: freed when it
		 * answers. */
		struct conn *c = dp_conn;
		dp_conn = NULL;
		c->r = NULL;
		spated_cnt.ctl_timeouts++;
		conn_error(c, "the data plane did not answer within 10 s");
	}
	if (dp_req != NULL)
		return;
	struct conn *next = NULL;
	for (int i = 0; i < CTL_CLIENTS_MAX; i++)
		if (conns[i].state == CONN_QUEUED && (next == NULL || conns[i].seq < next->seq))
			next = &conns[i];
	if (next == NULL)
		return;
	if (rte_ring_sp_enqueue(req_ring, next->r) != 0) {
		conn_error(next, "busy");
		return;
	}
	next->state = CONN_DP;
	dp_req = next->r;
	dp_conn = next;
}

/* Deadlines of clients still reading, queued or being written to. */
static void conn_deadlines(uint64_t now)
{
	for (int i = 0; i < CTL_CLIENTS_MAX; i++) {
		struct conn *c = &conns[i];
		if (c->state == CONN_FREE || c->state == CONN_DP || now < c->deadline)
			continue;
		spated_cnt.ctl_timeouts++;
		if (c->state == CONN_READ)
			conn_error(c, "timed out: no whole request line within 5 s");
		else if (c->state == CONN_QUEUED)
			conn_error(c, "the data plane did not answer within 10 s");
		else
			conn_close(c); /* it does not take its answer */
	}
}

static void *control_main(void *arg)
{
	struct pollfd p[1 + CTL_CLIENTS_MAX];
	struct conn *pc[1 + CTL_CLIENTS_MAX];

	(void)arg;
	for (int i = 0; i < CTL_CLIENTS_MAX; i++)
		conns[i].fd = -1;
	/* accept until EAGAIN: a client gone between poll and accept must not
	 * block the thread */
	fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK);
	while (!atomic_load(&ctl_stop)) {
		int n = 0;
		uint64_t now = now_ms(), wake = now + 200;
		p[n] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
		pc[n++] = NULL;
		for (int i = 0; i < CTL_CLIENTS_MAX; i++) {
			struct conn *c = &conns[i];
			if (c->state == CONN_FREE)
				continue;
			if (c->deadline < wake)
				wake = c->deadline;
			if (c->state != CONN_READ && c->state != CONN_WRITE)
				continue;
			p[n] = (struct pollfd){ .fd = c->fd,
						.events =
							c->state == CONN_READ ? POLLIN : POLLOUT };
			pc[n++] = c;
		}
		/* The data plane answers within a loop iteration: look often
		 * while it has a request. */
		struct timespec ts = { 0, dp_req != NULL
						  ? 100000
						  : (long)(wake > now ? wake - now : 0) * 1000000 };
		if (ppoll(p, (nfds_t)n, &ts, NULL) > 0) {
			for (int i = 1; i < n; i++) {
				if (p[i].revents == 0)
					continue;
				if (pc[i]->state == CONN_READ)
					conn_read(pc[i]);
				else if (pc[i]->state == CONN_WRITE)
					conn_write(pc[i]);
			}
			if (p[0].revents & POLLIN)
				conn_accept();
		}
		now = now_ms();
		conn_data_plane(now);
		conn_deadlines(now);
	}
	for (int i = 0; i < CTL_CLIENTS_MAX; i++)
		if (conns[i].state != CONN_FREE)
			conn_close(&conns[i]);
	return NULL;
}

void control_apply_log_level(const struct spated_conf *conf)
{
	if (conf->ops.log_level)
		rte_log_set_level(spated_logtype, conf->ops.log_level);
}

int control_start(struct control_target *t, char *err, size_t errlen)
{
	const struct ops_conf *oc = &t->conf->ops;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	tgt = *t;
	if (strcmp(oc->control_socket, "none") == 0)
		return 0;
	if (oc->control_socket[0] != '\0')
		snprintf(sock_path, sizeof(sock_path), "%s", oc->control_socket);
	else if ((size_t)snprintf(sock_path, sizeof(sock_path), "%s/spated.sock",
				  rte_eal_get_runtime_dir()) >= sizeof(sock_path)) {
		snprintf(err, errlen, "control socket path too long");
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	req_ring =
		rte_ring_create("spate_ctl_req", 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	rsp_ring =
		rte_ring_create("spate_ctl_rsp", 4, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (req_ring == NULL || rsp_ring == NULL) {
		snprintf(err, errlen, "control rings: %s", rte_strerror(rte_errno));
		return -1;
	}
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0) {
		snprintf(err, errlen, "control socket: %s", strerror(errno));
		return -1;
	}
	/* A socket left by a previous run (a crash) would make bind fail. */
	struct stat sb;
	if (lstat(sock_path, &sb) == 0 && S_ISSOCK(sb.st_mode))
		unlink(sock_path);
	/* Never, even for a moment, more open than configured. */
	mode_t old = umask(0177);
	int rc = bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	/* A deep backlog: a burst of clients (a monitoring fleet, scripts in a
	 * loop) must wait in it, to be served or told "busy", not have their
	 * connect() refused with EAGAIN while the control thread is busy. */
	if (rc != 0 || listen(listen_fd, SOMAXCONN) != 0) {
		snprintf(err, errlen, "control socket %s: %s", sock_path, strerror(errno));
		close(listen_fd);
		listen_fd = -1;
		return -1;
	}
	if (control_perm_apply(sock_path, oc->control_group, oc->control_mode,
			       rte_eal_get_runtime_dir(), err, errlen) != 0) {
		control_stop();
		return -1;
	}
	atomic_store(&ctl_stop, false);
	rc = rte_ctrl_thread_create(&ctl_thread, "spate-ctl", NULL, control_main, NULL);
	if (rc != 0) {
		snprintf(err, errlen, "control thread: %s", strerror(rc));
		control_stop();
		return -1;
	}
	ctl_running = true;
	SPATED_LOG(INFO, "control socket %s (mode 0%o)\n", sock_path, oc->control_mode);
	return 0;
}

void control_stop(void)
{
	if (ctl_running) {
		atomic_store(&ctl_stop, true);
		pthread_join(ctl_thread, NULL);
		ctl_running = false;
	}
	if (listen_fd >= 0) {
		close(listen_fd);
		listen_fd = -1;
		unlink(sock_path);
	}
	/* A request the data plane never answered (it has stopped). */
	void *left;
	while (req_ring != NULL && rte_ring_sc_dequeue(req_ring, &left) == 0)
		req_free(left);
	while (rsp_ring != NULL && rte_ring_sc_dequeue(rsp_ring, &left) == 0)
		req_free(left);
	dp_req = NULL;
	dp_conn = NULL;
	rte_ring_free(req_ring);
	rte_ring_free(rsp_ring);
	req_ring = rsp_ring = NULL;
}
