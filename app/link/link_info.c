/* link_info.c - the link stage seen from outside (stage_link_info):
 * what `spatectl show cluster` prints about the peers and channels. */
#include <string.h>

#include "link/link_int.h"
#include "matcher/spate_idmap.h"

void stage_link_info(struct stage_link *s, struct stage_link_info *out)
{
	uint32_t w = 0;

	memset(out, 0, sizeof(*out));
	out->role = s->role;
	out->host = s->host_id;
	out->epoch = s->epoch;
	out->keys = spate_peer_auth_keys(s->auth);
	if (s->role == SPATED_ROLE_MATCH && s->lcore_of != NULL)
		out->local_cats = (uint32_t)spate_idmap_count(s->lcore_of);
	out->serves = s->n_served;
	for (uint32_t i = 0; i < s->n_peers && i < SPATED_PEERS_MAX; i++) {
		const struct link_peer *p = &s->peers[i];
		struct stage_link_peer_info *pi = &out->peer[out->n_peers++];
		pi->host = p->host;
		pi->ipv4 = p->ipv4;
		pi->lcores = p->lcores;
		pi->first_worker = w;
		w += p->lcores;
		pi->epoch = p->epoch;
		pi->up = !p->down;
		pi->in_flight = spate_peer_chan_in_flight(p->ch);
		for (const struct pend_body *b = p->ov_head; b != NULL; b = b->next)
			pi->queued_bodies++;
		pi->ch = *spate_peer_chan_stats(p->ch);
		if (s->role == SPATED_ROLE_FRONT && p->lcores == 0)
			pi->copy = link_repl_copy_state(p, &pi->copy_subs);
	}
}
