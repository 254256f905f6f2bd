/* ctl_cluster.c - `spatectl show cluster` (ctl_cluster.h). */
#include <stdio.h>
#include <stdlib.h>

#include "infra/counters.h"
#include "control/ctl_cmd.h"
#include "link/ctl_cluster.h"
#include "link/host_conf.h"

static void out_ipv4(struct ctl_out *o, const char *key, uint32_t ip)
{
	char s[16];

	snprintf(s, sizeof(s), "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff,
		 ip & 0xff);
	ctl_out_str(o, key, s);
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

int ctl_show_cluster(struct stage_link *link, struct category_dir *dir, struct ctl_out *o,
		     char *err, size_t errlen)
{
	static struct stage_link_info in; /* one request at a time, on one lcore */
	struct spated_counters sum;

	if (link == NULL) {
		snprintf(err, errlen,
			 "not a multi-host Spate (spated.role = \"both\"): no cluster");
		return -1;
	}
	stage_link_info(link, &in);
	spated_counters_sum(&sum);
	/* the front's categories per worker, then per match host */
	uint32_t n_workers = 0;
	for (uint32_t i = 0; i < in.n_peers; i++)
		n_workers += in.peer[i].lcores;
	uint32_t *cats = calloc(n_workers + 1, sizeof(*cats));
	uint64_t *subs = calloc(n_workers + 1, sizeof(*subs));
	if (cats == NULL || subs == NULL) {
		free(cats);
		free(subs);
		snprintf(err, errlen, "no memory");
		return -1;
	}
	if (dir != NULL)
		category_dir_per_worker(dir, n_workers, cats, subs);

	ctl_out_obj(o, "host");
	ctl_out_u64(o, "host", in.host);
	ctl_out_str(o, "role", host_conf_role_name(in.role));
	ctl_out_u64(o, "epoch", in.epoch);
	ctl_out_str(o, "auth", in.keys ? "hmac-sha256" : "none (unsigned frames)");
	ctl_out_u64(o, "keys", in.keys);
	if (in.role == SPATED_ROLE_MATCH)
		ctl_out_u64(o, "categories", in.local_cats);
	ctl_out_u64(o, "zk_map_version", sum.zk_map_version);
	if (in.role == SPATED_ROLE_FRONT) {
		ctl_out_u64(o, "events_lost_host", sum.events_lost_host);
		ctl_out_u64(o, "service_addresses", in.serves);
	}
	ctl_out_end(o);
	/* refusals, one counter per cause (docs/multihost.md, "Authentication") */
	ctl_out_obj(o, "refused");
	ctl_out_u64(o, "peer_bad", sum.peer_bad);
	ctl_out_u64(o, "peer_unknown_host", sum.peer_unknown_host);
	ctl_out_u64(o, "peer_auth_addr", sum.peer_auth_addr);
	ctl_out_u64(o, "peer_auth_fail", sum.peer_auth_fail);
	ctl_out_u64(o, "peer_stale", sum.peer_stale);
	ctl_out_u64(o, "peer_auth_epoch", sum.peer_auth_epoch);
	ctl_out_u64(o, "peer_dup", sum.peer_dup);
	ctl_out_u64(o, "peer_auth_old_key", sum.peer_auth_old_key);
	ctl_out_end(o);
	ctl_out_arr(o, "peers");
	for (uint32_t i = 0; i < in.n_peers; i++) {
		const struct stage_link_peer_info *p = &in.peer[i];
		ctl_out_obj(o, NULL);
		ctl_out_u64(o, "host", p->host);
		ctl_out_str(o, "role", p->lcores ? "match" : "front");
		out_ipv4(o, "ipv4", p->ipv4);
		ctl_out_str(o, "state", p->up ? "up" : "down");
		ctl_out_u64(o, "epoch", p->epoch);
		if (p->lcores == 0 && in.role == SPATED_ROLE_FRONT) {
			/* a fellow front: ready to take over from it? */
			ctl_out_str(o, "copy", p->copy ? "complete" : "incomplete");
			ctl_out_u64(o, "copy_subs", p->copy_subs);
		}
		if (p->lcores) {
			ctl_out_u64(o, "lcores", p->lcores);
			if (dir != NULL) {
				uint64_t c = 0, n = 0;
				for (uint32_t w = p->first_worker; w < p->first_worker + p->lcores;
				     w++) {
					c += cats[w];
					n += subs[w];
				}
				ctl_out_u64(o, "categories", c);
				ctl_out_u64(o, "subs", n);
			}
		}
		ctl_out_obj(o, "channel");
		ctl_out_dbl(o, "rtt_us", us(p->ch.rtt_srtt_ns));
		ctl_out_dbl(o, "rtt_min_us", us(p->ch.rtt_min_ns));
		ctl_out_dbl(o, "rtt_last_us", us(p->ch.rtt_last_ns));
		ctl_out_u64(o, "sent", p->ch.sent);
		ctl_out_u64(o, "retransmits", p->ch.retransmits);
		ctl_out_u64(o, "received", p->ch.received);
		ctl_out_u64(o, "delivered", p->ch.delivered);
		ctl_out_u64(o, "duplicates", p->ch.duplicates);
		ctl_out_u64(o, "in_flight", p->in_flight);
		ctl_out_u64(o, "waiting_bodies", p->queued_bodies);
		ctl_out_end(o);
		ctl_out_end(o);
	}
	ctl_out_end(o);
	free(cats);
	free(subs);
	return 0;
}

static int cmd_show_cluster(struct ctl_req *r, struct ctl_out *o, char *err, size_t errlen)
{
	return ctl_show_cluster(r->t->link, r->t->dir, o, err, errlen);
}

static struct ctl_cmd show_cluster_cmd = {
	.path = "show cluster",
	.usage = "show cluster",
	.help = "multi-host: this host, every peer (role, state, epoch, categories) and its "
		"channel (RTT, retransmits)",
	.fn = cmd_show_cluster,
	.on_dp = true,
	.rank = CTL_RANK_CLUSTER,
};
CTL_COMMAND(show_cluster_cmd)
