/* spate-pcap - Spate frames in pcap files.
 *
 * Write: a stream file's operations as Ethernet/IPv4/UDP frames carrying
 * Spate datagrams (correct IPv4 and UDP checksums), for the daemon's
 * net_pcap port (rx_pcap=...), tcpreplay and Wireshark.
 * Read: what a capture (say, spated's tx_pcap) carries: notifications as
 * "event_id<TAB>sub_id" lines, every message with --messages, and a count
 * of messages by type, of bad checksums and undecodable datagrams. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "client.h"
#include "opt.h"
#include "outfile.h"
#include "conf/spate_conf.h"
#include "proto/spate_err.h"
#include "proto/spate_proto.h"
#include "stream/spate_stream.h"
#include "udp_frame.h"

#define PROG "spate-pcap"

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [options] --out FILE.pcap STREAM.tsv   (write)\n"
		   "       " PROG " --read FILE.pcap [--messages] [--out FILE]   (read)\n"
		   "Write: the stream's operations ('-' = stdin) as Ethernet/IPv4/UDP frames\n"
		   "carrying Spate datagrams, in stream order: SUB_ADD, SUB_DEL, EVENT.\n"
		   "  --only all|events|subs  which lines (subs = sub and unsub; default all)\n"
		   "  --batch N         messages per datagram, at most (default 1)\n"
		   "  --src IP:PORT     sender (default 198.18.0.2:47101; notifications for\n"
		   "                    subscriptions go back there)\n"
		   "  --dst IP:PORT     the server (default 198.18.0.1:47100)\n"
		   "  --src-mac MAC     default 02:00:00:00:00:02\n"
		   "  --dst-mac MAC     default ff:ff:ff:ff:ff:ff (spated takes broadcast frames\n"
		   "                    whatever its own MAC; give the server's for tcpreplay)\n"
		   "  --client-id N     client id in the headers (default 1)\n"
		   "  --rate N          frames per second, for the timestamps (default 10000)\n"
		   "  --conf FILE       libconfig file; its 'spate' group sets the limits\n"
		   "  --skip-bad        report bad lines and go on (default: stop, exit 1)\n"
		   "Read: every IPv4/UDP frame whose payload is a Spate datagram; NOTIFY pairs\n"
		   "are written as 'event_id<TAB>sub_id' to --out (default '-': stdout), in\n"
		   "capture order; a summary goes to stderr.\n"
		   "  --messages        write every message instead, one line each\n"
		   "  --port N          only frames to or from this UDP port (default: all)\n"
		   "Exit status: 0 ok, 1 bad input or write error, 2 usage.\n");
}

/* ---- write ------------------------------------------------------------- */

struct writer {
	pcap_dumper_t *d;
	struct udp_endpoint src, dst;
	uint32_t client_id, seq;
	int batch;
	double rate;
	uint64_t frames;
	uint16_t ip_id;
	uint8_t dgram[SPATE_DGRAM_MAX];
	struct spate_writer w;
};

static void put_frame(struct writer *wr)
{
	uint8_t frame[UDP_FRAME_HDRS + SPATE_DGRAM_MAX];
	size_t len = spate_writer_finish(&wr->w);
	size_t flen = udp_frame_build(frame, &wr->src, &wr->dst, wr->ip_id++, wr->dgram, len);
	/* Timestamps at the given rate from t = 0: the file is the same
	 * bytes for the same input. */
	double t = wr->frames / wr->rate;
	struct pcap_pkthdr h = { .caplen = (bpf_u_int32)flen, .len = (bpf_u_int32)flen };
	h.ts.tv_sec = (time_t)t;
	h.ts.tv_usec = (suseconds_t)((t - (double)h.ts.tv_sec) * 1e6);
	pcap_dump((u_char *)wr->d, &h, frame);
	wr->frames++;
	spate_writer_init(&wr->w, wr->dgram, sizeof(wr->dgram), 0, wr->client_id, ++wr->seq);
}

/* Add one op's message; full datagrams go out first. 0 or -SPATE_E_*. */
static int put_op(struct writer *wr, const struct spate_stream_op *op)
{
	for (int pass = 0; pass < 2; pass++) {
		int rc;
		if (wr->w.count >= wr->batch)
			put_frame(wr);
		if (op->kind == SPATE_LINE_EVENT)
			rc = spate_put_event(&wr->w, &op->u.ev);
		else if (op->kind == SPATE_LINE_SUB)
			rc = spate_put_sub_add(&wr->w, &op->u.sub);
		else
			rc = spate_put_sub_del(&wr->w, op->u.unsub_id);
		if (rc != -SPATE_E_NO_MEMORY || wr->w.count == 0)
			return rc;
		put_frame(wr);
	}
	return -SPATE_E_NO_MEMORY;
}

static int parse_ep(const char *name, const char *s, struct udp_endpoint *ep)
{
	struct sockaddr_in a;

	char why[320];
	if (client_parse_hostport(s, &a, why, sizeof(why)) != 0) {
		fprintf(stderr, PROG ": --%s: %s\n", name, why);
		return -1;
	}
	ep->ipv4 = ntohl(a.sin_addr.s_addr);
	ep->port = ntohs(a.sin_port);
	return 0;
}

static int do_write(struct writer *wr, const char *only, const struct spate_limits *lim,
		    bool skip_bad, const char *stream, const char *out)
{
	struct spate_stream_reader rd;
	struct spate_stream_op op;
	struct outfile of;
	uint64_t n_bad = 0, n_ops = 0;
	bool want_ev = strcmp(only, "subs") != 0, want_sub = strcmp(only, "events") != 0;
	int rc, status = 0;

	if (spate_stream_open(&rd, stream, lim) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", stream, strerror(errno));
		return 1;
	}
	if (outfile_open(&of, PROG, out) != 0) {
		spate_stream_close(&rd);
		return 1;
	}
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	wr->d = p ? pcap_dump_fopen(p, of.f) : NULL;
	if (wr->d == NULL) {
		fprintf(stderr, PROG ": %s: cannot start a pcap file: %s\n", out,
			p ? pcap_geterr(p) : "pcap_open_dead failed");
		outfile_abort(&of);
		spate_stream_close(&rd);
		if (p)
			pcap_close(p);
		return 1;
	}
	spate_writer_init(&wr->w, wr->dgram, sizeof(wr->dgram), 0, wr->client_id, ++wr->seq);
	while ((rc = spate_stream_next_reported(&rd, &op, PROG, skip_bad, &n_bad)) != 0) {
		if (rc < 0) {
			status = 1;
			break;
		}
		if (op.kind == SPATE_LINE_EVENT ? !want_ev : !want_sub)
			continue;
		rc = put_op(wr, &op);
		if (rc != 0) {
			fprintf(stderr, PROG ": %s:%lu: cannot encode: %s\n", rd.path, rd.line_no,
				spate_err_reason(rc));
			status = 1;
			break;
		}
		n_ops++;
	}
	if (status == 0 && wr->w.count > 0)
		put_frame(wr);
	spate_stream_close(&rd);
	if (pcap_dump_flush(wr->d) != 0) {
		fprintf(stderr, PROG ": writing %s: %s\n", out, strerror(errno));
		status = 1;
	}
	if (of.f == stdout) {
		pcap_dump_flush(wr->d); /* stdout stays open: not ours to close */
	} else {
		pcap_dump_close(wr->d); /* closes of.f */
		of.f = NULL;
	}
	pcap_close(p);
	if (status != 0) {
		outfile_abort(&of);
		return status;
	}
	if (outfile_commit(&of) != 0)
		return 1;
	fprintf(stderr, PROG ": %s: %" PRIu64 " messages in %" PRIu64 " frames\n", out, n_ops,
		wr->frames);
	return 0;
}

/* ---- read -------------------------------------------------------------- */

struct reader {
	FILE *out;
	bool messages;
	int port; /* -1 = any */
	struct spate_limits lim;
	uint64_t frames, other, dgrams, bad_dgrams, bad_ip_csum, bad_udp_csum, pairs;
	uint64_t by_type[SPATE_MSG_TYPE_MAX + 1];
};

static void print_message(struct reader *r, const struct spate_hdr *h, const struct spate_msg *m)
{
	FILE *f = r->out;

	fprintf(f, "%s client_id=%" PRIu32 " seq=%" PRIu32 " ", spate_msg_type_name(m->type),
		h->client_id, h->seq);
	switch (m->type) {
	case SPATE_MSG_EVENT:
		fprintf(f, "id=%" PRIu64 " lon=%" PRId32 " lat=%" PRId32 " n_kw=%u n_attr=%u\n",
			m->u.ev.id, m->u.ev.lon, m->u.ev.lat, m->u.ev.n_kw, m->u.ev.n_attr);
		break;
	case SPATE_MSG_SUB_ADD:
		fprintf(f,
			"id=%" PRIu64 " rect=%" PRId32 ",%" PRId32 ",%" PRId32 ",%" PRId32
			" n_kw=%u n_cons=%u\n",
			m->u.sub.id, m->u.sub.rect.min_lon, m->u.sub.rect.min_lat,
			m->u.sub.rect.max_lon, m->u.sub.rect.max_lat, m->u.sub.n_kw,
			m->u.sub.n_cons);
		break;
	case SPATE_MSG_SUB_DEL:
		fprintf(f, "id=%" PRIu64 "\n", m->id);
		break;
	case SPATE_MSG_ACK:
	case SPATE_MSG_NACK:
		fprintf(f, "req_type=%s code=%s req_seq=%" PRIu32 " id=%" PRIu64 "\n",
			spate_msg_type_name(m->u.ack.req_type),
			m->type == SPATE_MSG_ACK ? "OK" : spate_err_name(m->u.ack.code),
			m->u.ack.req_seq, m->u.ack.id);
		break;
	case SPATE_MSG_NOTIFY:
		fprintf(f, "event_id=%" PRIu64 " subs=", m->u.notify.event_id);
		for (uint16_t i = 0; i < m->u.notify.n_subs; i++)
			fprintf(f, "%s%" PRIu64, i ? "," : "", spate_notify_id(&m->u.notify, i));
		fputc('\n', f);
		break;
	}
}

static void read_frame(struct reader *r, const uint8_t *frame, size_t caplen)
{
	struct udp_frame_info fi;
	struct spate_hdr h;
	struct spate_reader rd;
	struct spate_msg m;
	int rc;

	r->frames++;
	if (udp_frame_parse(frame, caplen, &fi) != 0 ||
	    (r->port >= 0 && fi.src.port != r->port && fi.dst.port != r->port)) {
		r->other++;
		return;
	}
	r->bad_ip_csum += !fi.ip_csum_ok;
	r->bad_udp_csum += !fi.udp_csum_ok;
	if (spate_hdr_decode(fi.payload, fi.len, &r->lim, &h) != 0) {
		r->bad_dgrams++;
		return;
	}
	r->dgrams++;
	spate_reader_init(&rd, fi.payload, fi.len, &h);
	while ((rc = spate_reader_next(&rd, &r->lim, &m)) != 0) {
		if (rc < 0) {
			r->bad_dgrams++;
			continue;
		}
		r->by_type[m.type]++;
		if (r->messages) {
			print_message(r, &h, &m);
		} else if (m.type == SPATE_MSG_NOTIFY) {
			for (uint16_t i = 0; i < m.u.notify.n_subs; i++)
				fprintf(r->out, "%" PRIu64 "\t%" PRIu64 "\n", m.u.notify.event_id,
					spate_notify_id(&m.u.notify, i));
			r->pairs += m.u.notify.n_subs;
		}
	}
}

static int do_read(struct reader *r, const char *path, const char *out)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct outfile of;
	int rc;

	pcap_t *p = pcap_open_offline(path, errbuf);
	if (p == NULL) {
		fprintf(stderr, PROG ": %s: %s\n", path, errbuf);
		return 1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, PROG ": %s: not an Ethernet capture (link type %d)\n", path,
			pcap_datalink(p));
		pcap_close(p);
		return 1;
	}
	if (outfile_open(&of, PROG, out) != 0) {
		pcap_close(p);
		return 1;
	}
	r->out = of.f;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1)
		read_frame(r, data, h->caplen);
	if (rc == PCAP_ERROR) {
		fprintf(stderr, PROG ": %s: %s\n", path, pcap_geterr(p));
		pcap_close(p);
		outfile_abort(&of);
		return 1;
	}
	pcap_close(p);
	if (outfile_commit(&of) != 0)
		return 1;
	fprintf(stderr,
		PROG ": %s: frames=%" PRIu64 " other=%" PRIu64 " datagrams=%" PRIu64
		     " bad_datagrams=%" PRIu64 " bad_ip_csum=%" PRIu64 " bad_udp_csum=%" PRIu64,
		path, r->frames, r->other, r->dgrams, r->bad_dgrams, r->bad_ip_csum,
		r->bad_udp_csum);
	for (int t = 1; t <= SPATE_MSG_TYPE_MAX; t++)
		fprintf(stderr, " %s=%" PRIu64, spate_msg_type_name(t), r->by_type[t]);
	fprintf(stderr, " notifications=%" PRIu64 "\n", r->pairs);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "only", required_argument, NULL, 'O' },
		{ "batch", required_argument, NULL, 'b' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "src-mac", required_argument, NULL, 'S' },
		{ "dst-mac", required_argument, NULL, 'D' },
		{ "client-id", required_argument, NULL, 'i' },
		{ "rate", required_argument, NULL, 'R' },
		{ "conf", required_argument, NULL, 'c' },
		{ "skip-bad", no_argument, NULL, 'k' },
		{ "read", required_argument, NULL, 'r' },
		{ "messages", no_argument, NULL, 'm' },
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct writer wr = {
		.src = { { 0x02, 0, 0, 0, 0, 0x02 }, 0xc6120002, 47101 },
		.dst = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 0xc6120001, 47100 },
		.client_id = 1,
		.batch = 1,
		.rate = 10000,
	};
	struct reader rdr = { .port = -1 };
	const char *out = NULL, *only = "all", *conf_path = NULL, *read_path = NULL;
	bool skip_bad = false;
	struct spate_conf conf;
	uint64_t v;
	char err[512];
	int c, bad = 0;

	spate_conf_default(&conf);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'O':
			if (strcmp(optarg, "all") && strcmp(optarg, "events") &&
			    strcmp(optarg, "subs")) {
				fprintf(stderr, PROG ": --only: unknown '%s' (all, events, subs)\n",
					optarg);
				bad = 1;
			}
			only = optarg;
			break;
		case 'b':
			bad |= opt_int(PROG, "batch", optarg, 1, 1024, &wr.batch);
			break;
		case 's':
			bad |= parse_ep("src", optarg, &wr.src);
			break;
		case 'd':
			bad |= parse_ep("dst", optarg, &wr.dst);
			break;
		case 'S':
		case 'D':
			if (udp_parse_mac(optarg, c == 'S' ? wr.src.mac : wr.dst.mac) != 0) {
				fprintf(stderr,
					PROG ": --%s: bad MAC '%s' (want xx:xx:xx:xx:xx:xx)\n",
					c == 'S' ? "src-mac" : "dst-mac", optarg);
				bad = 1;
			}
			break;
		case 'i':
			bad |= opt_u64(PROG, "client-id", optarg, 0, UINT32_MAX, &v);
			wr.client_id = (uint32_t)v;
			break;
		case 'R':
			bad |= opt_double(PROG, "rate", optarg, 1e-3, 1e9, &wr.rate);
			break;
		case 'c':
			conf_path = optarg;
			break;
		case 'k':
			skip_bad = true;
			break;
		case 'r':
			read_path = optarg;
			break;
		case 'm':
			rdr.messages = true;
			break;
		case 'p':
			bad |= opt_int(PROG, "port", optarg, 0, 65535, &rdr.port);
			break;
		default:
			return opt_other(PROG, c, usage);
		}
	}
	if (bad)
		return 2;
	if (conf_path && spate_conf_load(&conf, conf_path, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if (read_path != NULL) {
		if (optind != argc) {
			fprintf(stderr, PROG ": --read takes no stream argument\n");
			return 2;
		}
		rdr.lim = conf.limits;
		rdr.lim.max_messages = 1024; /* the protocol's own ceiling */
		return do_read(&rdr, read_path, out ? out : "-");
	}
	if (out == NULL || argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	if (strcmp(out, "-") == 0 && isatty(1)) {
		fprintf(stderr, PROG ": not writing a pcap to a terminal\n");
		return 2;
	}
	return do_write(&wr, only, &conf.limits, skip_bad, argv[optind], out);
}
