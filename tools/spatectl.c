/* spatectl - the operator's command line for a running spated, over its
 * control socket (app/control.h). One command per run:
 *
 *   spatectl [-s SOCKET | -p FILE_PREFIX] [--json] COMMAND [ARGS...]
 *
 *   spatectl show stats                 counters per lcore and reason
 *   spatectl show categories --top 10   largest categories (drt engine)
 *   spatectl show lcores | placement | config | params
 *   spatectl show subs --count
 *   spatectl show latency [--window]    RX to matched, RX to transmit
 *   spatectl get drt.alpha
 *   spatectl set drt.alpha 0.7          validated, read back
 *   spatectl rebalance now
 *   spatectl journal compact
 *   spatectl save                       keep `set`s for the next start
 *   spatectl help                       the daemon's own command list
 *
 * The socket: -s PATH, else the first that exists of /run/spate/spated.sock
 * (the packaged service; skipped with -p), /var/run/dpdk/PREFIX/spated.sock
 * (a root spated of EAL file prefix -p, default "spated"; also for the
 * members of its control.group) and, not as root, the same under
 * $XDG_RUNTIME_DIR or /tmp. Exit status: 0 done, 1 the daemon refused
 * (its message on stderr), 2 usage or connection errors. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "spate_release.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: spatectl [-s SOCKET | -p FILE_PREFIX] [--json] COMMAND [ARGS...]\n"
		   "  -s, --socket PATH        spated's control socket\n"
		   "  -p, --file-prefix NAME   the EAL --file-prefix of spated (default spated):\n"
		   "                           the socket is <runtime dir>/NAME/spated.sock\n"
		   "                           (default: /run/spate/spated.sock, the service's,\n"
		   "                           else /var/run/dpdk/spated/spated.sock, ...)\n"
		   "      --json               one JSON object instead of text\n"
		   "commands: show stats | show categories [--top N] [--worker W] [--page P] |\n"
		   "  show lcores | show placement | show config | show params | show subs --count |\n"
		   "  show latency [--window] |\n"
		   "  get NAME | set NAME VALUE | rebalance now | journal compact | save | help\n");
}

/* Where spated's socket may be, most likely first: the packaged
 * service's (/run/spate, the production profile's control.socket) unless
 * a file prefix was asked for, then DPDK's runtime directory of that
 * prefix as root makes it (/var/run/dpdk/PREFIX: a root spated, reached
 * by the members of its control.group too), then as this user would
 * ($XDG_RUNTIME_DIR/dpdk/PREFIX, else /tmp/dpdk/PREFIX). The first that
 * exists is used; none: the list, for the error message. */
#define SERVICE_SOCKET "/run/spate/spated.sock"

static int default_socket(char *buf, size_t len, const char *prefix, int prefix_given,
			  char *tried, size_t tried_len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char cand[3][256];
	int n = 0;

	if (!prefix_given)
		snprintf(cand[n++], sizeof(cand[0]), "%s", SERVICE_SOCKET);
	snprintf(cand[n++], sizeof(cand[0]), "/var/run/dpdk/%s/spated.sock", prefix);
	if (getuid() != 0)
		snprintf(cand[n++], sizeof(cand[0]), "%s/dpdk/%s/spated.sock", xdg ? xdg : "/tmp",
			 prefix);
	tried[0] = '\0';
	for (int i = 0; i < n; i++) {
		struct stat st;
		/* a socket we may not reach still counts: its error says why */
		if (lstat(cand[i], &st) == 0 && S_ISSOCK(st.st_mode)) {
			snprintf(buf, len, "%s", cand[i]);
			return 0;
		}
		if (errno == EACCES) {
			snprintf(buf, len, "%s", cand[i]);
			return 0;
		}
		size_t k = strlen(tried);
		snprintf(tried + k, tried_len - k, "%s%s", k ? ", " : "", cand[i]);
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "file-prefix", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *prefix = "spated";
	int json = 0, prefix_given = 0, c;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];

	/* '+': options end at the command, whose own flags (--top) follow. */
	while ((c = getopt_long(argc, argv, "+s:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 'p':
			prefix = optarg;
			prefix_given = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'V':
			return spate_release_print("spatectl");
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	char tried[800];
	if (sock)
		snprintf(path, sizeof(path), "%s", sock);
	else if (default_socket(path, sizeof(path), prefix, prefix_given, tried, sizeof(tried)) != 0) {
		fprintf(stderr, "spatectl: no spated control socket at %s (is spated running? -s/-p)\n",
			tried);
		return 2;
	}

	/* The request: one line. */
	char line[1024];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s", json ? "json" : "");
	for (int i = optind; i < argc; i++) {
		if (strpbrk(argv[i], " \t\r\n") != NULL || n + strlen(argv[i]) + 2 >= sizeof(line)) {
			fprintf(stderr, "spatectl: argument '%s' has blanks or is too long\n", argv[i]);
			return 2;
		}
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", n ? " " : "", argv[i]);
	}
	line[n++] = '\n';

	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "spatectl: cannot connect to %s: %s (is spated running? -s/-p)\n",
			path, strerror(errno));
		return 2;
	}
	/* A daemon that refuses the connection (busy) may close it before
	 * the request is sent: its answer is still there to read. */
	if (send(fd, line, n, MSG_NOSIGNAL) != (ssize_t)n && errno != EPIPE) {
		fprintf(stderr, "spatectl: write: %s\n", strerror(errno));
		return 2;
	}
	shutdown(fd, SHUT_WR);
	/* spated answers within 10 s or says why not: past that, it is gone. */
	struct timeval tv = { .tv_sec = 15 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/* The answer: "ok" or "error", then the body. */
	char *ans = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			char *p = realloc(ans, cap);
			if (p == NULL) {
				fprintf(stderr, "spatectl: out of memory\n");
				return 2;
			}
			ans = p;
		}
		ssize_t r = read(fd, ans + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (ans == NULL || len == 0) {
		fprintf(stderr, "spatectl: no answer from %s\n", path);
		return 2;
	}
	ans[len] = '\0';
	char *body = strchr(ans, '\n');
	body = body ? body + 1 : ans + len;
	int ok = strncmp(ans, "ok\n", 3) == 0;
	fputs(body, ok ? stdout : stderr);
	if (!ok && strncmp(ans, "error\n", 6) != 0)
		fprintf(stderr, "spatectl: unexpected answer\n");
	free(ans);
	return ok ? 0 : 1;
}
