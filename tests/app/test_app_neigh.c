/* test_app_neigh.c - the neighbour table (app/net/neigh.c), without DPDK's
 * EAL: what is news, lookups and their port, ARP request pacing, frames
 * held per host and in all, released oldest first, expired strictly
 * after max_age, and the LRU victim of a full set giving its frames
 * back through the drop function. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "net/neigh.h"

static struct neigh_table *t;
static unsigned int dropped;
static void *last_dropped;

static void drop(void *ctx, void *frame)
{
	(void)ctx;
	dropped++;
	last_dropped = frame;
}

static struct rte_ether_addr mac_of(uint8_t b)
{
	return (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0, b } };
}

static void fresh(void)
{
	free(t);
	t = calloc(1, sizeof(*t));
	t->drop = drop;
	dropped = 0;
}

/* The set an address falls in: the table's hash (neigh.c's set_of). */
static uint32_t set_no(uint32_t ip)
{
	return (ip * 2654435761u) >> (32 - NEIGH_SET_BITS);
}

static void test_learn_lookup(void)
{
	struct rte_ether_addr a = mac_of(1), b = mac_of(2);
	uint16_t port = 99;

	fresh();
	CHECK(neigh_lookup(t, 0x0a000001, &port) == NULL);
	CHECK_EQ_INT(port, 99);
	CHECK(neigh_learn(t, 0x0a000001, &a, 0));  /* new */
	CHECK(!neigh_learn(t, 0x0a000001, &a, 0)); /* the same again */
	CHECK(neigh_learn(t, 0x0a000001, &b, 0));  /* another MAC */
	CHECK(neigh_learn(t, 0x0a000001, &b, 2));  /* another port */
	CHECK(!neigh_learn(t, 0x0a000001, &b, 2));
	const struct rte_ether_addr *m = neigh_lookup(t, 0x0a000001, &port);
	CHECK(m != NULL && rte_is_same_ether_addr(m, &b));
	CHECK_EQ_INT(port, 2);
	CHECK(neigh_lookup(t, 0x0a000002, &port) == NULL);
	/* asked for but not answered: known, not valid; its answer is news */
	CHECK(neigh_want_request(t, 0x0a000003, 100, 10));
	CHECK(neigh_lookup(t, 0x0a000003, &port) == NULL);
	CHECK(neigh_learn(t, 0x0a000003, &a, 1));
	CHECK(neigh_lookup(t, 0x0a000003, &port) != NULL);
	CHECK_EQ_INT(port, 1);
	/* an all-zero MAC learned (RX forgetting what TX did not hear) is
	 * a MAC like another: the next real one is news */
	struct rte_ether_addr zero = { { 0 } };
	CHECK(neigh_learn(t, 0x0a000003, &zero, 1));
	CHECK(neigh_learn(t, 0x0a000003, &a, 1));
}

static void test_requests(void)
{
	fresh();
	CHECK(neigh_want_request(t, 7, 1000, 100));
	CHECK(!neigh_want_request(t, 7, 1000, 100));
	CHECK(!neigh_want_request(t, 7, 1099, 100));
	CHECK(neigh_want_request(t, 7, 1100, 100)); /* a gap later exactly */
	CHECK(!neigh_want_request(t, 7, 1199, 100));
	CHECK(neigh_want_request(t, 8, 1199, 100)); /* per address */
	/* the first request is what expiry counts from, not the last */
	int f1 = 1;
	CHECK(neigh_hold(t, 7, &f1));
	CHECK_EQ_INT(neigh_expire(t, 1000 + 500, 500), 0); /* exactly max_age: kept */
	CHECK_EQ_INT(dropped, 0);
	CHECK_EQ_INT(neigh_expire(t, 1000 + 501, 500), 1);
	CHECK_EQ_INT(dropped, 1);
	CHECK(last_dropped == &f1);
	CHECK_EQ_INT(t->n_held, 0);
	/* after expiry the next frame asks again at once */
	CHECK(neigh_want_request(t, 7, 1502, 100));
	CHECK_EQ_INT(neigh_expire(t, 1502 + 1000, 500), 0); /* nothing held: nothing */
	/* asked for, nothing held: the sweep leaves its pacing alone (a
	 * frame held for another host makes the sweep run) */
	CHECK(neigh_want_request(t, 20, 5000, 100));
	int f4 = 4;
	CHECK(neigh_hold(t, 21, &f4));
	CHECK_EQ_INT(neigh_expire(t, 9000, 500), 0);
	CHECK(!neigh_want_request(t, 20, 5050, 100));
	void *o4[NEIGH_HOLD];
	CHECK_EQ_INT(neigh_take_held(t, 21, o4), 1);
	/* a host never asked for is never expired */
	int f2 = 2;
	CHECK(neigh_hold(t, 9, &f2));
	CHECK_EQ_INT(neigh_expire(t, UINT64_MAX - 1, 10), 0);
	CHECK_EQ_INT(t->n_held, 1);
	/* learned: not expired either, its frames are taken */
	int f3 = 3;
	CHECK(neigh_want_request(t, 10, 5, 1));
	CHECK(neigh_hold(t, 10, &f3));
	struct rte_ether_addr a = mac_of(1);
	neigh_learn(t, 10, &a, 0);
	CHECK_EQ_INT(neigh_expire(t, 1000000, 10), 0);
	void *out[NEIGH_HOLD];
	CHECK_EQ_INT(neigh_take_held(t, 10, out), 1);
	CHECK(out[0] == &f3);
	CHECK_EQ_INT(t->n_held, 1);
}

static void test_hold(void)
{
	int frames[NEIGH_HELD_MAX + 8];
	void *out[NEIGH_HOLD];

	fresh();
	/* four per host, in order */
	for (int i = 0; i < NEIGH_HOLD; i++)
		CHECK(neigh_hold(t, 0x0b000001, &frames[i]));
	CHECK(!neigh_hold(t, 0x0b000001, &frames[NEIGH_HOLD]));
	CHECK_EQ_INT(t->n_held, NEIGH_HOLD);
	CHECK_EQ_INT(neigh_take_held(t, 0x0b000002, out), 0);
	CHECK_EQ_INT(neigh_take_held(t, 0x0b000001, out), NEIGH_HOLD);
	for (int i = 0; i < NEIGH_HOLD; i++)
		CHECK(out[i] == &frames[i]);
	CHECK_EQ_INT(t->n_held, 0);
	CHECK_EQ_INT(neigh_take_held(t, 0x0b000001, out), 0);
	CHECK(neigh_hold(t, 0x0b000001, &frames[0])); /* room again */
	/* a host whose MAC is known is sent to, not held for */
	struct rte_ether_addr a = mac_of(1);
	neigh_learn(t, 0x0b000009, &a, 0);
	CHECK(!neigh_hold(t, 0x0b000009, &frames[1]));
	/* NEIGH_HELD_MAX in all */
	fresh();
	uint32_t ip = 0x0c000000;
	int held = 0;
	while (held < NEIGH_HELD_MAX) {
		ip++;
		for (int k = 0; k < 2 && held < NEIGH_HELD_MAX; k++)
			CHECK(neigh_hold(t, ip, &frames[held++]));
	}
	CHECK_EQ_INT(t->n_held, NEIGH_HELD_MAX);
	CHECK(!neigh_hold(t, ip + 1, &frames[held]));
	CHECK_EQ_INT(t->n_held, NEIGH_HELD_MAX);
	CHECK_EQ_INT(neigh_take_held(t, ip, out), 2);
	CHECK(neigh_hold(t, ip + 1, &frames[held]));
}

/* Five addresses of one set: the least recently used is the victim,
 * and its held frames go through the drop function. */
static void test_evict(void)
{
	uint32_t same[NEIGH_WAYS + 1];
	int n = 0;
	int frames[8];
	uint16_t port;

	for (uint32_t ip = 1; n < NEIGH_WAYS + 1; ip++)
		if (set_no(ip) == set_no(1))
			same[n++] = ip;
	fresh();
	struct rte_ether_addr a = mac_of(1);
	neigh_learn(t, same[0], &a, 0);
	CHECK(neigh_hold(t, same[1], &frames[0]));
	CHECK(neigh_hold(t, same[1], &frames[1]));
	neigh_learn(t, same[2], &a, 0);
	neigh_learn(t, same[3], &a, 0);
	/* same[0] used again: same[1] is now the oldest */
	CHECK(neigh_lookup(t, same[0], &port) != NULL);
	CHECK(neigh_learn(t, same[4], &a, 0));
	CHECK_EQ_INT(dropped, 2);
	CHECK_EQ_INT(t->n_held, 0);
	void *out[NEIGH_HOLD];
	CHECK_EQ_INT(neigh_take_held(t, same[1], out), 0);
	CHECK(neigh_lookup(t, same[0], &port) != NULL);
	CHECK(neigh_lookup(t, same[2], &port) != NULL);
	CHECK(neigh_lookup(t, same[3], &port) != NULL);
	CHECK(neigh_lookup(t, same[4], &port) != NULL);
	/* once more: looked up in the order 0, 2, 3, 4, same[0] is the oldest */
	CHECK(neigh_learn(t, same[1], &a, 0));
	CHECK(neigh_lookup(t, same[0], &port) == NULL);
	CHECK(neigh_lookup(t, same[2], &port) != NULL);
	/* a reused entry starts blank: same[0] back through a held frame
	 * takes the oldest (same[3], learned): not known, nothing of its
	 * MAC or port, its frame held; and its ARP request is not
	 * refused for the one the old owner got just now */
	CHECK(neigh_want_request(t, same[3], 1000, 500));
	CHECK(neigh_lookup(t, same[4], &port) != NULL);
	CHECK(neigh_lookup(t, same[1], &port) != NULL);
	CHECK(neigh_lookup(t, same[2], &port) != NULL);
	CHECK(neigh_hold(t, same[0], &frames[2]));
	CHECK(neigh_lookup(t, same[0], &port) == NULL);
	CHECK(neigh_lookup(t, same[3], &port) == NULL); /* the victim */
	CHECK(neigh_want_request(t, same[0], 1100, 500));
	CHECK_EQ_INT(neigh_take_held(t, same[0], out), 1);
	/* every set in range: the highest addresses too */
	CHECK(neigh_learn(t, 0xffffffff, &a, 3));
	CHECK(neigh_lookup(t, 0xffffffff, &port) != NULL);
	CHECK_EQ_INT(port, 3);
}

int main(void)
{
	test_learn_lookup();
	test_requests();
	test_hold();
	test_evict();
	free(t);
	return check_summary("app_neigh");
}
