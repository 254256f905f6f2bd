/* metrics_http.c - the metrics endpoint (metrics.h): libmicrohttpd without
 * threads of its own, run by one DPDK control thread, so the serving
 * stays on the control CPUs, off every data-plane lcore. At most 16
 * connections, each cut after 10 s idle: a slow or stuck scraper costs
 * this thread a socket, never the data plane anything. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>
#include <rte_lcore.h>

#include <urcu/urcu-qsbr.h>

#include "control/metrics.h"
#include "config/ops_conf.h"
#include "main/spated_log.h"

#define METRICS_CONNECTIONS 16
#define METRICS_TIMEOUT_S 10

static struct metrics_source source;
static struct MHD_Daemon *daemon_;
static pthread_t thread;
static atomic_bool stop;
static bool running;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);

	if (r == NULL) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	static char not_found[] = "not found: the metrics are at /metrics\n";
	static char not_allowed[] = "GET only\n";

	(void)cls;
	(void)version;
	(void)upload;
	(void)con_cls;
	if (*upload_size != 0)
		return MHD_NO; /* no request bodies here */
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
			     strlen(not_allowed), MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, strlen(not_found),
			     MHD_RESPMEM_PERSISTENT);
	/* Prometheus asks for OpenMetrics first; curl and promtool get the
	 * text format */
	const char *accept =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	bool om = accept != NULL && strstr(accept, "application/openmetrics-text") != NULL;
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	if (f == NULL)
		return MHD_NO;
	metrics_render(f, om, &source);
	if (fclose(f) != 0) {
		free(body);
		return MHD_NO;
	}
	return reply(c, MHD_HTTP_OK,
		     om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			: "text/plain; version=0.0.4; charset=utf-8",
		     body, len, MHD_RESPMEM_MUST_FREE);
}

static void *metrics_main(void *arg)
{
	(void)arg;
	/* a reader of the RCU directory, online only while it reads */
	urcu_qsbr_register_thread();
	urcu_qsbr_thread_offline();
	while (!atomic_load(&stop))
		MHD_run_wait(daemon_, 200);
	urcu_qsbr_thread_online();
	urcu_qsbr_unregister_thread();
	return NULL;
}

int metrics_start(const char *listen, const struct metrics_source *src, char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	uint32_t ip;
	uint16_t port;

	if (listen[0] == '\0')
		return 0;
	if (ops_conf_parse_listen(listen, &ip, &port) != 0) {
		snprintf(err, errlen, "metrics.listen = \"%s\": want \"A.B.C.D:PORT\"", listen);
		return -1;
	}
	sa.sin_addr.s_addr = htonl(ip);
	sa.sin_port = htons(port);
	source = *src;
	daemon_ = MHD_start_daemon(MHD_USE_ERROR_LOG, port, NULL, NULL, on_request, NULL,
				   MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				   MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_CONNECTIONS,
				   MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT_S,
				   MHD_OPTION_END);
	if (daemon_ == NULL) {
		snprintf(err, errlen, "metrics.listen = \"%s\": cannot listen there (%s)", listen,
			 strerror(errno));
		return -1;
	}
	atomic_store(&stop, false);
	int rc = rte_ctrl_thread_create(&thread, "spate-metrics", NULL, metrics_main, NULL);
	if (rc != 0) {
		snprintf(err, errlen, "metrics thread: %s", strerror(rc));
		MHD_stop_daemon(daemon_);
		daemon_ = NULL;
		return -1;
	}
	running = true;
	SPATED_LOG(INFO, "metrics on http://%s/metrics\n", listen);
	return 0;
}

void metrics_stop(void)
{
	if (running) {
		atomic_store(&stop, true);
		pthread_join(thread, NULL);
		running = false;
	}
	if (daemon_ != NULL) {
		MHD_stop_daemon(daemon_);
		daemon_ = NULL;
	}
}
