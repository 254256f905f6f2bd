/* spatectl - the operator's command line for a running spated, over its
 * control socket (app/control/control.h):
 *
 *   spatectl [-s SOCKET | -p FILE_PREFIX] [--json] COMMAND [ARGS...]
 *   spatectl [-s SOCKET | -p FILE_PREFIX] [--json]      interactive
 *
 *   spatectl show stats                 counters per lcore and reason
 *   spatectl show categories --top 10   largest categories (drt engine)
 *   spatectl show lcores | placement | config | params | version
 *   spatectl show subs --count
 *   spatectl show cluster               multi-host: peers, epochs, channels
 *   spatectl get drt.alpha
 *   spatectl set drt.alpha 0.7          validated, read back
 *   spatectl rebalance now
 *   spatectl journal compact
 *   spatectl save                       keep `set`s for the next start
 *   spatectl help                       the daemon's own command list
 *
 * Without a command: on a terminal, a prompt with line editing, history
 * (~/.spatectl_history) and completion of commands and setting names
 * (libedit), the names asked of the daemon itself; otherwise one command
 * per line of stdin. With --json every answer is one JSON object, an
 * error {"error": "..."} (on stdout: a script reads one stream).
 *
 * The socket: -s PATH, else the first that exists of /run/spate/spated.sock
 * (the packaged service; skipped with -p), /var/run/dpdk/PREFIX/spated.sock
 * (a root spated of EAL file prefix -p, default "spated"; also for the
 * members of its control.group) and, not as root, the same under
 * $XDG_RUNTIME_DIR or /tmp. Exit status: 0 done, 1 the daemon refused
 * (its message on stderr), 2 usage or connection errors; interactive or
 * from stdin, the worst of the commands'. */
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

#include <editline/readline.h>

#include "opt.h"

#define LINE_MAX_BYTES 1024 /* spated's request line limit */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spatectl [-s SOCKET | -p FILE_PREFIX] [--json] [COMMAND [ARGS...]]\n"
		"  -s, --socket PATH        spated's control socket\n"
		"  -p, --file-prefix NAME   the EAL --file-prefix of spated (default spated):\n"
		"                           the socket is <runtime dir>/NAME/spated.sock\n"
		"                           (default: /run/spate/spated.sock, the service's,\n"
		"                           else /var/run/dpdk/spated/spated.sock, ...)\n"
		"      --json               one JSON object per answer, errors as {\"error\": "
		"...}\n"
		"      --version            spatectl's version (show version: spated's)\n"
		"commands: show stats | show categories [--top N] [--worker W] [--page P] |\n"
		"  show lcores | show placement | show config | show params | show subs --count |\n"
		"  show version | show latency [--window] | show cluster |\n"
		"  get NAME | set NAME VALUE | rebalance now | journal compact | save | help\n"
		"Without a command: interactive on a terminal (line editing, history, Tab\n"
		"completion), else one command per line of stdin.\n");
}

/* Where spated's socket may be, most likely first: the packaged
 * service's (/run/spate, the production profile's control.socket) unless
 * a file prefix was asked for, then DPDK's runtime directory of that
 * prefix as root makes it (/var/run/dpdk/PREFIX: a root spated, reached
 * by the members of its control.group too), then as this user would
 * ($XDG_RUNTIME_DIR/dpdk/PREFIX, else /tmp/dpdk/PREFIX). The first that
 * exists is used; none: the list, for the error message. */
#define SERVICE_SOCKET "/run/spate/spated.sock"

static int default_socket(char *buf, size_t len, const char *prefix, int prefix_given, char *tried,
			  size_t tried_len)
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

struct ctl {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int json;
};

/* An error of spatectl's own or the daemon's refusal: a line on stderr,
 * or {"error": "..."} on stdout with --json. */
static void report_error(const struct ctl *c, const char *msg)
{
	size_t n = strlen(msg);

	while (n > 0 && msg[n - 1] == '\n')
		n--;
	if (!c->json) {
		fprintf(stderr, "%.*s\n", (int)n, msg);
		return;
	}
	fputs("{\"error\":\"", stdout);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)msg[i];
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	fputs("\"}\n", stdout);
	fflush(stdout);
}

/* One request line to spated; its whole answer ("ok\n" or "error\n",
 * then the body) into *ans (malloc'd, NUL-terminated). 0, or -1 with the
 * reason in err. */
static int exchange(const char *path, const char *line, size_t n, char **ans, char *err,
		    size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	*ans = NULL;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		snprintf(err, errlen,
			 "spatectl: cannot connect to %s: %s (is spated running? -s/-p)", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* A daemon that refuses the connection (busy) may close it before
	 * the request is sent: its answer is still there to read. */
	if (send(fd, line, n, MSG_NOSIGNAL) != (ssize_t)n && errno != EPIPE) {
		snprintf(err, errlen, "spatectl: write: %s", strerror(errno));
		close(fd);
		return -1;
	}
	shutdown(fd, SHUT_WR);
	/* spated answers within 10 s or says why not: past that, it is gone. */
	struct timeval tv = { .tv_sec = 15 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			char *p = realloc(buf, cap);
			if (p == NULL) {
				free(buf);
				close(fd);
				snprintf(err, errlen, "spatectl: out of memory");
				return -1;
			}
			buf = p;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (len == 0) {
		free(buf);
		snprintf(err, errlen, "spatectl: no answer from %s", path);
		return -1;
	}
	buf[len] = '\0';
	*ans = buf;
	return 0;
}

/* The request line for these words: "[json ]w1 w2 ...\n". Its length, or
 * 0 with the reason in err. */
static size_t request_line(const struct ctl *c, int argc, char **argv, char *line, size_t cap,
			   char *err, size_t errlen)
{
	size_t n = (size_t)snprintf(line, cap, "%s", c->json ? "json" : "");

	for (int i = 0; i < argc; i++) {
		if (strpbrk(argv[i], " \t\r\n") != NULL || n + strlen(argv[i]) + 2 >= cap) {
			snprintf(err, errlen, "spatectl: argument '%s' has blanks or is too long",
				 argv[i]);
			return 0;
		}
		n += (size_t)snprintf(line + n, cap - n, "%s%s", n ? " " : "", argv[i]);
	}
	line[n++] = '\n';
	return n;
}

/* Run one command and print its answer. The exit status: 0, 1 or 2. */
static int run_command(const struct ctl *c, int argc, char **argv)
{
	char line[LINE_MAX_BYTES], err[512];
	char *ans;
	size_t n = request_line(c, argc, argv, line, sizeof(line), err, sizeof(err));

	if (n == 0 || exchange(c->path, line, n, &ans, err, sizeof(err)) != 0) {
		report_error(c, err);
		return 2;
	}
	char *body = strchr(ans, '\n');
	body = body ? body + 1 : ans + strlen(ans);
	int ok = strncmp(ans, "ok\n", 3) == 0, rc = ok ? 0 : 1;
	if (ok) {
		fputs(body, stdout);
		fflush(stdout);
	} else if (strncmp(ans, "error\n", 6) == 0) {
		report_error(c, body);
	} else {
		report_error(c, "spatectl: unexpected answer");
		rc = 2;
	}
	free(ans);
	return rc;
}

/* One line typed or read: split into words and run. -1: quit. */
static int run_line(const struct ctl *c, char *text)
{
	char *words[64];
	int n = 0;

	for (char *save = NULL, *w = strtok_r(text, " \t\r\n", &save); w != NULL;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == (int)(sizeof(words) / sizeof(words[0]))) {
			report_error(c, "spatectl: too many words");
			return 2;
		}
		words[n++] = w;
	}
	if (n == 0 || words[0][0] == '#')
		return 0;
	if (strcmp(words[0], "quit") == 0 || strcmp(words[0], "exit") == 0)
		return -1;
	return run_command(c, n, words);
}

/* ---- interactive: completion from the daemon's own lists ---- */

static const struct ctl *cur_ctl;
static char **usages; /* "show categories", "get", ... (the daemon's help) */
static size_t n_usages;
static char **settings; /* "drt.alpha", ... (show params) */
static size_t n_settings;

/* The keys of the daemon's one-level JSON object answer to `line`
 * (help: usage strings; show params: setting names), cut at the first
 * word that is an argument ("[--top", "NAME", "--count"). */
static void fetch_keys(const char *line, char ***out, size_t *n_out)
{
	char *ans, err[256];

	*out = NULL;
	*n_out = 0;
	if (exchange(cur_ctl->path, line, strlen(line), &ans, err, sizeof(err)) != 0)
		return;
	if (strncmp(ans, "ok\n", 3) == 0) {
		/* {"key":"value","key":...}: every string before a ':' */
		for (char *p = ans + 3; (p = strchr(p, '"')) != NULL;) {
			char *end = strchr(p + 1, '"');
			if (end == NULL)
				break;
			if (end[1] == ':') {
				size_t len = (size_t)(end - p - 1);
				char *key = strndup(p + 1, len);
				/* keep the command words: lower case, not "--..." */
				for (char *w = key; *w; w++)
					if (w[0] == ' ' && (w[1] == '[' || w[1] == '-' ||
							    (w[1] >= 'A' && w[1] <= 'Z'))) {
						*w = '\0';
						break;
					}
				char **grown = realloc(*out, (*n_out + 1) * sizeof(char *));
				if (key == NULL || grown == NULL) {
					free(key);
					break;
				}
				*out = grown;
				(*out)[(*n_out)++] = key;
			}
			/* skip the value: a string, or up to the next ',' */
			p = end + 1;
			if (*p == ':') {
				p++;
				if (*p == '"') {
					char *ve = strchr(p + 1, '"');
					p = ve ? ve + 1 : p + 1;
				}
			}
		}
	}
	free(ans);
}

static char *candidates[256];
static size_t n_candidates, next_candidate;

static char *generator(const char *text, int state)
{
	if (state == 0)
		next_candidate = 0;
	while (next_candidate < n_candidates) {
		const char *c = candidates[next_candidate++];
		if (strncmp(c, text, strlen(text)) == 0)
			return strdup(c);
	}
	return NULL;
}

static void add_candidate(const char *w, size_t len)
{
	for (size_t i = 0; i < n_candidates; i++)
		if (strlen(candidates[i]) == len && strncmp(candidates[i], w, len) == 0)
			return;
	if (n_candidates < sizeof(candidates) / sizeof(candidates[0]))
		candidates[n_candidates++] = strndup(w, len);
}

/* The words before the one being completed decide what may follow: the
 * next word of a command, or a setting's name after get/set. */
static char **complete(const char *text, int start, int end)
{
	char before[LINE_MAX_BYTES], *words[32];
	int n = 0;

	(void)end;
	rl_attempted_completion_over = 1; /* no file names */
	if (usages == NULL) {
		fetch_keys("json help\n", &usages, &n_usages);
		fetch_keys("json show params\n", &settings, &n_settings);
	}
	snprintf(before, sizeof(before), "%.*s", start, rl_line_buffer);
	for (char *save = NULL, *w = strtok_r(before, " \t", &save); w && n < 32;
	     w = strtok_r(NULL, " \t", &save))
		words[n++] = w;
	for (size_t i = 0; i < n_candidates; i++)
		free(candidates[i]);
	n_candidates = 0;
	if (n == 1 && (strcmp(words[0], "get") == 0 || strcmp(words[0], "set") == 0)) {
		for (size_t i = 0; i < n_settings; i++)
			add_candidate(settings[i], strlen(settings[i]));
	} else {
		for (size_t i = 0; i < n_usages; i++) {
			const char *u = usages[i];
			int k = 0;
			/* u's first n words must be ours */
			for (; k < n; k++) {
				size_t len = strlen(words[k]);
				if (strncmp(u, words[k], len) != 0 || (u[len] != ' '))
					break;
				u += len + 1;
			}
			if (k == n && *u != '\0')
				add_candidate(u, strcspn(u, " "));
		}
		if (n == 0) {
			add_candidate("quit", 4);
		} else if (n == 2 && strcmp(words[0], "show") == 0 &&
			   strcmp(words[1], "subs") == 0) {
			add_candidate("--count", 7);
		}
	}
	return rl_completion_matches(text, generator);
}

static int interactive(const struct ctl *c)
{
	char hist[1024];
	const char *home = getenv("HOME");
	int worst = 0;

	cur_ctl = c;
	rl_readline_name = "spatectl";
	rl_attempted_completion_function = complete;
	snprintf(hist, sizeof(hist), "%s/.spatectl_history", home ? home : ".");
	using_history();
	stifle_history(1000);
	read_history(hist);
	for (;;) {
		char *line = readline("spatectl> ");
		if (line == NULL) {
			putchar('\n');
			break;
		}
		if (strspn(line, " \t") != strlen(line))
			add_history(line);
		int rc = run_line(c, line);
		free(line);
		if (rc < 0)
			break;
		if (rc > worst)
			worst = rc;
	}
	write_history(hist);
	return worst;
}

/* stdin is not a terminal: one command per line, no prompt. */
static int from_stdin(const struct ctl *c)
{
	char line[LINE_MAX_BYTES];
	int worst = 0;

	while (fgets(line, sizeof(line), stdin) != NULL) {
		int rc = run_line(c, line);
		if (rc < 0)
			break;
		if (rc > worst)
			worst = rc;
	}
	return worst;
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
	int prefix_given = 0, c;
	struct ctl ctl = { .json = 0 };

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
			ctl.json = 1;
			break;
		default:
			return opt_other("spatectl", c, usage);
		}
	}
	char tried[800], err[1024];
	if (sock) {
		snprintf(ctl.path, sizeof(ctl.path), "%s", sock);
	} else if (default_socket(ctl.path, sizeof(ctl.path), prefix, prefix_given, tried,
				  sizeof(tried)) != 0) {
		snprintf(err, sizeof(err),
			 "spatectl: no spated control socket at %s (is spated running? -s/-p)",
			 tried);
		report_error(&ctl, err);
		return 2;
	}
	if (optind < argc)
		return run_command(&ctl, argc - optind, argv + optind);
	return isatty(0) ? interactive(&ctl) : from_stdin(&ctl);
}
