/* spate_matcher.h - subscriptions and events in, matches out.
 *
 * The one place that turns raw (string) subscriptions and events into the
 * interned form, owns subscription memory, enforces ids, ownership and
 * quotas, and drives an engine. spate-match and spated both use it, so
 * offline and on-line results come from the same code.
 */
#ifndef SPATE_MATCHER_H
#define SPATE_MATCHER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "matcher/spate_engine.h"
#include "proto/spate_types.h"

struct spate_matcher;

struct spate_matcher_conf {
	const char *engine;           /* NULL = default */
	uint32_t max_subs;            /* 0 = unlimited */
	uint32_t max_subs_per_client; /* 0 = unlimited */
	struct spate_engine_params params;
	/* Intern an event's unknown keywords and attribute names instead of
	 * dropping them. For a matcher whose events may wait while new
	 * subscriptions arrive (a match host's link: an event parked for a
	 * category in transit runs after the handoff, whose subscriptions may
	 * bring the first use of one of its keywords). The strings come from
	 * a front, which sends only those its own subscriptions use, so the
	 * dictionaries stay bounded by the front's. */
	bool intern_event_strings;
};
/* Defaults: default engine, no quotas, default engine parameters. */
void spate_matcher_conf_default(struct spate_matcher_conf *conf);

/* NULL when the engine name is unknown or memory runs out. */
struct spate_matcher *spate_matcher_create(const struct spate_matcher_conf *conf);
/* A matcher in front of an engine the caller made and keeps (not
 * destroyed with the matcher): spated's pipeline puts its dispatcher to
 * the matching lcores there. conf->engine is ignored. */
struct spate_matcher *spate_matcher_create_engine(const struct spate_matcher_conf *conf,
						  const struct spate_engine_ops *ops,
						  struct spate_engine *engine);
void spate_matcher_destroy(struct spate_matcher *m);
/* Sort keyword ids ascending, drop repeats and UINT32_MAX (SPATE_DICT_NONE,
 * an event's keyword no subscription uses): what interning does to a
 * subscription's or an event's keywords; returns the new count. */
uint16_t spate_matcher_sort_unique(uint32_t *v, uint16_t n);
const char *spate_matcher_engine_name(const struct spate_matcher *m);
/* The engine's own figures as one JSON object ("{}" if it has none). */
void spate_matcher_engine_stats(const struct spate_matcher *m, FILE *f);

/* Add a subscription owned by `owner` (a client id). An add whose id exists
 * with the same owner and content is an idempotent retransmission and
 * returns 0. Errors: -SPATE_E_{DUPLICATE_ID,OVER_QUOTA,NO_MEMORY,OUT_OF_DOMAIN}
 * (a constraint outside its declared domain, spate_schema.h). The raw
 * sub must already be valid (decoded or parsed). */
int spate_matcher_sub_add(struct spate_matcher *m, const struct spate_raw_sub *rs, uint32_t owner);
/* Errors: -SPATE_E_{UNKNOWN_ID,NOT_OWNER}. With a delete memory
 * (spate_matcher_remember_deletes), a delete of an id this owner deleted
 * recently is a retransmission (its first copy applied, its ACK lost):
 * nothing happens and SPATE_MATCHER_DEL_REPEAT is returned, to be ACKed
 * again. An id nobody deleted lately stays -SPATE_E_UNKNOWN_ID. */
#define SPATE_MATCHER_DEL_REPEAT 1
int spate_matcher_sub_del(struct spate_matcher *m, uint64_t id, uint32_t owner);
/* Remember the last `n` deletes (id and owner; 0 = none, the default:
 * a repeated delete is then UNKNOWN_ID, as offline tools want). Older
 * ones are forgotten first, so memory stays bounded. 0 or
 * -SPATE_E_NO_MEMORY. */
int spate_matcher_remember_deletes(struct spate_matcher *m, uint32_t n);
/* The caller's own word about a remembered delete of `id` (where its
 * first copy went, say), 0 until set; NULL if `id` is not remembered.
 * Valid until the next add or delete. */
uint64_t *spate_matcher_del_tag(struct spate_matcher *m, uint64_t id);
/* The stored sub with this id, or NULL. */
const struct spate_sub *spate_matcher_sub_find(const struct spate_matcher *m, uint64_t id);
uint64_t spate_matcher_sub_count(const struct spate_matcher *m);
/* Clients (owners) with at least one stored subscription. */
uint64_t spate_matcher_client_count(const struct spate_matcher *m);
/* Visit every stored subscription in raw form (strings from the matcher's
 * dictionaries, keywords unique, constraints sorted) with its owner, in
 * no particular order. Adding that raw form back gives the same stored
 * subscription: the journal's snapshot is built from it. The raw form
 * lives for the call only. -SPATE_E_NO_MEMORY or 0. */
typedef void (*spate_matcher_visit_fn)(void *ctx, const struct spate_raw_sub *rs, uint32_t owner);
int spate_matcher_foreach_sub(const struct spate_matcher *m, spate_matcher_visit_fn fn, void *ctx);

/* The raw form of a subscription or event this matcher interned (its
 * engine saw it: the multi-host link re-encodes what the cluster stage
 * routes). Strings point into the dictionaries: valid until the next
 * add. Unknown event keywords were dropped at interning and stay so. */
void spate_matcher_raw_sub(const struct spate_matcher *m, const struct spate_sub *s,
			   struct spate_raw_sub *rs);
void spate_matcher_raw_event(const struct spate_matcher *m, const struct spate_event *ev,
			     struct spate_raw_event *re);

/* Run-time changes (spatectl). The current configuration (engine name,
 * quotas, parameters). */
const struct spate_matcher_conf *spate_matcher_get_conf(const struct spate_matcher *m);
/* New quotas; existing subscriptions stay even above them. */
void spate_matcher_set_quotas(struct spate_matcher *m, uint32_t max_subs,
			      uint32_t max_subs_per_client);
/* New engine parameters: 0, or -1 with the reason in err (an engine that
 * cannot take them now keeps the old ones). Engines without parameters
 * just store them. */
int spate_matcher_set_params(struct spate_matcher *m, const struct spate_engine_params *p,
			     char *err, size_t errlen);
/* Balance now; -1 if the engine has no load balancing. */
int spate_matcher_rebalance(struct spate_matcher *m);
/* Visit the engine's categories; -1 if it has none. */
int spate_matcher_categories(const struct spate_matcher *m, spate_category_fn fn, void *ctx);

/* Match one event. The vector is reset, then filled with the matching subs
 * sorted by id. 0 or -SPATE_E_NO_MEMORY. */
int spate_matcher_event(struct spate_matcher *m, const struct spate_raw_event *re,
			struct spate_matchvec *out);

#endif
