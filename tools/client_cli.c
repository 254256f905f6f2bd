/* client_cli.c - the client tools' shared command line (client_cli.h). */
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "client_cli.h"
#include "opt.h"
#include "proto/spate_err.h"

void client_cli_init(struct client_cli *o, struct client *cl, const char *prog,
		     void (*usage)(FILE *f))
{
	*o = (struct client_cli){
		.prog = prog, .usage = usage, .adaptive = true, .show_progress = isatty(2)
	};
	client_init(cl, prog);
}

int client_cli_opt(struct client_cli *o, struct client *cl, int c, const char *arg)
{
	const char *p = o->prog;
	uint64_t id;
	int bad = 0;

	switch (c) {
	case CLIENT_CLI_SERVER:
		bad = client_server_opt(p, o->server, sizeof(o->server), arg) != 0;
		break;
	case CLIENT_CLI_FAILOVER_MS:
		bad = opt_int(p, "failover-ms", arg, 50, 600000, &cl->failover_ms);
		break;
	case CLIENT_CLI_CLIENT_ID:
		bad = opt_u64(p, "client-id", arg, 1, UINT32_MAX, &id);
		cl->client_id = (uint32_t)id;
		break;
	case CLIENT_CLI_CONF:
		o->conf_path = arg;
		break;
	case CLIENT_CLI_PROGRESS:
		o->show_progress = true;
		break;
	case CLIENT_CLI_QUIET:
		o->show_progress = false;
		break;
	case CLIENT_CLI_SKIP_BAD:
		o->skip_bad = true;
		break;
	case CLIENT_CLI_RATE:
		bad = opt_double(p, "rate", arg, 0, 1e9, &o->rate);
		break;
	case CLIENT_CLI_ADAPTIVE:
		bad = opt_onoff(p, "adaptive", arg, &o->adaptive);
		break;
	case CLIENT_CLI_BATCH:
		bad = opt_int(p, "batch", arg, 1, 1024, &cl->batch);
		break;
	case CLIENT_CLI_TIMEOUT_MS:
		bad = opt_int(p, "timeout-ms", arg, 1, 600000, &cl->timeout_ms);
		break;
	case CLIENT_CLI_RETRIES:
		bad = opt_int(p, "retries", arg, 0, 1000, &cl->retries);
		break;
	case CLIENT_CLI_RCVBUF:
		bad = opt_int(p, "rcvbuf", arg, 4096, 1 << 30, &cl->rcvbuf);
		break;
	default:
		return opt_other(p, c, o->usage);
	}
	o->bad |= bad != 0;
	return -1;
}

int client_cli_check(const struct client_cli *o)
{
	if (o->bad)
		return 2;
	if (o->server[0] == '\0') {
		o->usage(stderr);
		return 2;
	}
	return -1;
}

static volatile int *stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	*stop_flag = 1;
}

void client_stop_on_signals(volatile int *flag)
{
	struct sigaction sa = { .sa_handler = on_signal };

	stop_flag = flag;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int client_sub_op_reported(struct client *c, const struct spate_stream_op *op,
			   const struct spate_stream_reader *rd, const char *server)
{
	int ans = client_sub_op(c, op);

	if (ans < 0)
		fprintf(stderr, "%s: %s:%lu: no answer from %s after %d tries\n", c->prog, rd->path,
			rd->line_no, server, c->retries + 1);
	else if (ans > 0)
		fprintf(stderr, "%s: %s:%lu: NACK %s: %s\n", c->prog, rd->path, rd->line_no,
			spate_err_name(ans), spate_err_reason(ans));
	return ans;
}
