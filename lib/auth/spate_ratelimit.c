/* spate_ratelimit.c - token buckets per client (spate_ratelimit.h). */
#include <stdlib.h>

#include "proto/spate_err.h"
#include "matcher/spate_idmap.h"
#include "auth/spate_ratelimit.h"

struct bucket {
	double tokens;
	uint64_t last_us;
};

struct spate_ratelimit {
	double rate;
	uint32_t burst, max_clients;
	struct spate_idmap *buckets; /* client + 1 -> struct bucket */
	struct bucket overflow;
};

struct spate_ratelimit *spate_ratelimit_create(double rate, uint32_t burst, uint32_t max_clients)
{
	struct spate_ratelimit *rl = calloc(1, sizeof(*rl));

	if (rl == NULL)
		return NULL;
	rl->buckets = spate_idmap_create();
	if (rl->buckets == NULL) {
		free(rl);
		return NULL;
	}
	rl->max_clients = max_clients;
	spate_ratelimit_set(rl, rate, burst);
	rl->overflow.tokens = burst;
	return rl;
}

static void free_bucket(uint64_t id, void *val, void *ctx)
{
	(void)id;
	(void)ctx;
	free(val);
}

void spate_ratelimit_destroy(struct spate_ratelimit *rl)
{
	if (rl == NULL)
		return;
	spate_idmap_foreach(rl->buckets, free_bucket, NULL);
	spate_idmap_destroy(rl->buckets);
	free(rl);
}

void spate_ratelimit_set(struct spate_ratelimit *rl, double rate, uint32_t burst)
{
	rl->rate = rate;
	rl->burst = burst ? burst : 1;
}

double spate_ratelimit_rate(const struct spate_ratelimit *rl)
{
	return rl->rate;
}

uint32_t spate_ratelimit_burst(const struct spate_ratelimit *rl)
{
	return rl->burst;
}

static struct bucket *bucket_of(struct spate_ratelimit *rl, uint32_t client, uint64_t now_us)
{
	struct bucket *b = spate_idmap_get(rl->buckets, (uint64_t)client + 1);

	if (b != NULL)
		return b;
	if (spate_idmap_count(rl->buckets) >= rl->max_clients)
		return &rl->overflow;
	b = malloc(sizeof(*b));
	if (b == NULL || spate_idmap_put(rl->buckets, (uint64_t)client + 1, b) != 0) {
		free(b);
		return &rl->overflow;
	}
	/* A new client starts with a full bucket. */
	*b = (struct bucket){ (double)rl->burst, now_us };
	return b;
}

int spate_ratelimit_take(struct spate_ratelimit *rl, uint32_t client, uint64_t now_us)
{
	if (rl->rate <= 0)
		return 0;
	struct bucket *b = bucket_of(rl, client, now_us);
	if (now_us > b->last_us) {
		b->tokens += (double)(now_us - b->last_us) * rl->rate / 1e6;
		b->last_us = now_us;
	}
	if (b->tokens > rl->burst)
		b->tokens = rl->burst;
	if (b->tokens < 1.0)
		return -SPATE_E_RATE_LIMITED;
	b->tokens -= 1.0;
	return 0;
}
