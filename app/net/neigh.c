/* neigh.c - the neighbour table (neigh.h). */
#include <string.h>

#include "net/neigh.h"

static struct neigh_entry *set_of(struct neigh_table *t, uint32_t ip)
{
	return &t->e[((ip * 2654435761u) >> (32 - NEIGH_SET_BITS)) * NEIGH_WAYS];
}

static void drop_held(struct neigh_table *t, struct neigh_entry *e)
{
	for (unsigned int i = 0; i < e->n_held; i++)
		if (t->drop != NULL)
			t->drop(t->drop_ctx, e->held[i]);
	t->n_held -= e->n_held;
	e->n_held = 0;
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
		if (victim == NULL || e->ip == 0 ||
		    (victim->ip != 0 && e->last_use < victim->last_use))
			victim = e;
	}
	*found = false;
	return victim;
}

/* ip's entry, taking over a victim if it has none. */
static struct neigh_entry *entry(struct neigh_table *t, uint32_t ip, bool *found)
{
	struct neigh_entry *e = find(t, ip, found);

	if (!*found) {
		drop_held(t, e);
		memset(e, 0, sizeof(*e));
		e->ip = ip;
		e->last_use = t->tick;
	}
	return e;
}

bool neigh_learn(struct neigh_table *t, uint32_t ip, const struct rte_ether_addr *mac,
		 uint16_t port)
{
	bool found;
	struct neigh_entry *e = entry(t, ip, &found);
	bool news = !found || !e->valid || !rte_is_same_ether_addr(&e->mac, mac) || e->port != port;

	e->valid = true;
	e->mac = *mac;
	e->port = port;
	e->first_request = 0;
	return news;
}

const struct rte_ether_addr *neigh_lookup(struct neigh_table *t, uint32_t ip, uint16_t *port)
{
	bool found;
	struct neigh_entry *e = find(t, ip, &found);

	if (!found || !e->valid)
		return NULL;
	*port = e->port;
	return &e->mac;
}

bool neigh_want_request(struct neigh_table *t, uint32_t ip, uint64_t now, uint64_t gap)
{
	bool found;
	struct neigh_entry *e = entry(t, ip, &found);

	if (e->last_request != 0 && now - e->last_request < gap)
		return false;
	e->last_request = now;
	if (e->first_request == 0)
		e->first_request = now;
	return true;
}

bool neigh_hold(struct neigh_table *t, uint32_t ip, void *frame)
{
	bool found;
	struct neigh_entry *e = entry(t, ip, &found);

	if (e->valid || e->n_held == NEIGH_HOLD || t->n_held >= NEIGH_HELD_MAX)
		return false;
	e->held[e->n_held++] = frame;
	t->n_held++;
	return true;
}

unsigned int neigh_take_held(struct neigh_table *t, uint32_t ip, void **out)
{
	bool found;
	struct neigh_entry *e = find(t, ip, &found);
	unsigned int n = found ? e->n_held : 0;

	if (n == 0)
		return 0;
	memcpy(out, e->held, n * sizeof(*out));
	t->n_held -= n;
	e->n_held = 0;
	return n;
}

unsigned int neigh_expire(struct neigh_table *t, uint64_t now, uint64_t max_age)
{
	unsigned int dropped = 0;

	if (t->n_held == 0)
		return 0;
	for (uint32_t i = 0; i < NEIGH_SETS * NEIGH_WAYS; i++) {
		struct neigh_entry *e = &t->e[i];
		if (e->n_held > 0 && !e->valid && e->first_request != 0 &&
		    now - e->first_request > max_age) {
			dropped += e->n_held;
			drop_held(t, e);
			e->first_request = 0; /* the next frame asks again */
			e->last_request = 0;
		}
	}
	return dropped;
}
