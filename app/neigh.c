/* neigh.c - the neighbour table (neigh.h). */
#include <string.h>

#include "neigh.h"

static struct neigh_entry *set_of(struct neigh_table *t, uint32_t ip)
{
	return &t->e[((ip * 2654435761u) >> 28) * NEIGH_WAYS]; /* 4 bits: 16 sets */
}

/* The entry for ip, or a victim (free or least recently used) to reuse. */
static struct neigh_entry *find(struct neigh_table *t, uint32_t ip, bool *found)
{
	struct neigh_entry *set = set_of(t, ip), *victim = NULL;

	t->tick++;
	for (int i = 0; i < NEIGH_WAYS; i++) {
		struct neigh_entry *e = &set[i];
		if (e->ip == ip) {
			*found = true;
			e->last_use = t->tick;
			return e;
		}
		if (victim == NULL || e->ip == 0 || (victim->ip != 0 && e->last_use < victim->last_use))
			victim = e;
	}
	*found = false;
	return victim;
}

bool neigh_learn(struct neigh_table *t, uint32_t ip, const struct rte_ether_addr *mac)
{
	bool found;
	struct neigh_entry *e = find(t, ip, &found);
	bool news = !found || !e->valid || !rte_is_same_ether_addr(&e->mac, mac);

	if (!found) {
		memset(e, 0, sizeof(*e));
		e->ip = ip;
	}
	e->valid = true;
	e->mac = *mac;
	e->last_use = t->tick;
	return news;
}

const struct rte_ether_addr *neigh_lookup(struct neigh_table *t, uint32_t ip)
{
	bool found;
	struct neigh_entry *e = find(t, ip, &found);

	return found && e->valid ? &e->mac : NULL;
}

bool neigh_want_request(struct neigh_table *t, uint32_t ip, uint64_t now, uint64_t gap)
{
	bool found;
	struct neigh_entry *e = find(t, ip, &found);

	if (!found) {
		memset(e, 0, sizeof(*e));
		e->ip = ip;
		e->last_use = t->tick;
	} else if (e->last_request != 0 && now - e->last_request < gap) {
		return false;
	}
	e->last_request = now;
	return true;
}
