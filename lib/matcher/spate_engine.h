/* spate_engine.h - the interface every matching engine implements, and the
 * interned forms of events and subscriptions they work on.
 *
 * Engines never own subscription memory: the matcher (spate_matcher.h)
 * allocates each spate_sub once and hands engines a pointer that stays
 * valid until the engine's sub_del for that id has returned. An engine
 * reports matches as those pointers, in any order.
 */
#ifndef SPATE_ENGINE_H
#define SPATE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "engines/drt/drt_params.h"
#include "matcher/spate_schema.h"
#include "proto/spate_types.h"

struct spate_constraint {
	uint32_t attr; /* attribute id from the matcher's name dictionary */
	uint8_t op;    /* enum spate_op */
	double value;
};

struct spate_attr {
	uint32_t attr;
	double value;
};

struct spate_sub {
	uint64_t id;
	struct spate_rect rect;
	uint16_t n_kw, n_cons;
	uint32_t owner;                      /* for notifiers, not engines */
	const uint32_t *kw;                  /* sorted, unique */
	const struct spate_constraint *cons; /* sorted by attr */
	struct spate_dest dest;              /* for notifiers, not engines */
	/* The engine holding the sub may keep one word of its own here from
	 * sub_add to sub_del (spate_sub_engine_word): where the sub sits in
	 * its index, which then needs no map from sub id (a table of
	 * hundreds of MB and a cache miss per insert and delete at 10M
	 * subscriptions). A sub is held by one engine at a time. */
	uint64_t engine_word;
	void *user; /* for notifiers, not engines */
};

/* The engine word of s. Engines are handed subs as const (they must not
 * change what the sub asks for); this one word is theirs to write. */
static inline uint64_t *spate_sub_engine_word(const struct spate_sub *s)
{
	return (uint64_t *)(uintptr_t)&s->engine_word;
}

struct spate_event {
	uint64_t id;
	int32_t lon, lat;
	uint16_t n_kw, n_attr;
	const uint32_t *kw;            /* sorted, unique; unknown dropped */
	const struct spate_attr *attr; /* sorted by attr, unique; unknown dropped */
};

/* The match semantics, stated once: point in rect (borders inside), every
 * sub keyword in the event, every constraint holds on the event's value
 * (an event lacking a constrained attribute does not match). */
bool spate_sub_matches(const struct spate_sub *s, const struct spate_event *e);
/* Its two non-spatial halves, for engines that test the rectangle (or
 * some keywords) on their own: every sub keyword in the event; every
 * constraint holds. */
bool spate_sub_keywords_in(const struct spate_sub *s, const struct spate_event *e);
bool spate_sub_constraints_hold(const struct spate_sub *s, const struct spate_event *e);

/* Growable array of matched subscriptions. */
struct spate_matchvec {
	const struct spate_sub **v;
	size_t n, cap;
};
/* The slow path of spate_matchvec_push: grow, then push. */
int spate_matchvec_grow_push(struct spate_matchvec *mv, const struct spate_sub *s);
/* 0 or -SPATE_E_NO_MEMORY. Inline: every engine calls it once a match,
 * and the call cost a third of the push (callgrind, cities: 17
 * instructions a push out of line). */
static inline int spate_matchvec_push(struct spate_matchvec *mv, const struct spate_sub *s)
{
	if (__builtin_expect(mv->n == mv->cap, 0))
		return spate_matchvec_grow_push(mv, s);
	mv->v[mv->n++] = s;
	return 0;
}
void spate_matchvec_free(struct spate_matchvec *mv);

struct spate_engine;

/* Parameters of every engine that has some; each engine reads its own. */
struct spate_engine_params {
	struct drt_params drt;
	struct spate_schema schema; /* attribute domains, by attribute id */
	uint32_t ivx_groups;        /* ivx: value groups per attribute, 0 = default */
	int32_t mprein_workers;     /* mprein: helper threads marking beside the caller,
				     * -1 = default (1: two threads), 0 = none */
	uint32_t mprein_par_min;    /* mprein: slots from which the helpers mark, 0 = default */
	bool drt_time_workers;      /* drt: time the matching per worker (stats
				     * "worker_match_ns"; for spate-bench) */
	uint32_t drt_only_worker;   /* drt: 0 = every category; w + 1 = visit only
				     * worker w's (spate-bench: one worker's CPU
				     * time in a pass of its own, Fig. 7) */
};
void spate_engine_params_default(struct spate_engine_params *p);

/* One category of a clustering engine, as operators see it. */
struct spate_category_info {
	uint32_t id, worker, n_subs;
	struct spate_rect mbr;
	uint64_t events, inserts, deletes; /* this load period */
};
typedef void (*spate_category_fn)(void *ctx, const struct spate_category_info *ci);

struct spate_engine_ops {
	const char *name;
	const char *help;
	struct spate_engine *(*create)(const struct spate_engine_params *p);
	void (*destroy)(struct spate_engine *e);
	/* 0 or -SPATE_E_NO_MEMORY. The id is new to the engine. */
	int (*sub_add)(struct spate_engine *e, const struct spate_sub *s);
	/* The sub was added before and is removed now. */
	void (*sub_del)(struct spate_engine *e, const struct spate_sub *s);
	/* Append every matching sub to mv; 0 or -SPATE_E_NO_MEMORY. */
	int (*match)(struct spate_engine *e, const struct spate_event *ev,
		     struct spate_matchvec *mv);
	/* Optional: the engine's own figures as one JSON object, no newline. */
	void (*stats)(const struct spate_engine *e, FILE *f);
	/* Optional, for operators (spatectl): take new parameters at run
	 * time (0, or -1 with the reason in err: some cannot change without
	 * a rebuild); end the load period now (balance); list categories. */
	int (*set_params)(struct spate_engine *e, const struct spate_engine_params *p, char *err,
			  size_t errlen);
	void (*rebalance)(struct spate_engine *e);
	void (*categories)(const struct spate_engine *e, spate_category_fn fn, void *ctx);
};

/* Registry of engines, by name. NULL name = the default (best) engine. */
const struct spate_engine_ops *spate_engine_find(const char *name);
/* NULL-terminated list of all engines. */
const struct spate_engine_ops *const *spate_engine_list(void);

#endif
