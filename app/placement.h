/* placement.h - what the cluster stage asks of the clustering: which
 * category (and so which matching worker) a subscription goes to, which
 * categories an event must visit, and the merges and moves to carry out.
 *
 * The stage turns each answer into messages for the matching stages
 * (stage_cluster.c); this interface is the seam where DRt-Cluster's
 * clustering module (issue 3's split of lib/engine_drt.c) plugs in.
 * Exactness contract: an event is routed to every category holding a
 * subscription it matches.
 */
#ifndef SPATED_PLACEMENT_H
#define SPATED_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drt_params.h"
#include "spate_engine.h"

struct placement;

struct placement_route {
	uint32_t cat, worker;
};

enum placement_action_type {
	PLACE_MERGE = 1, /* category `from` merges into `cat` */
	PLACE_MOVE,      /* category `cat` moves from worker `from` to `to` */
};

struct placement_action {
	uint8_t type;
	uint32_t cat;
	uint32_t from;   /* MERGE: the category merged in; MOVE: old worker */
	uint32_t to;     /* MOVE: new worker */
	uint32_t from_worker, to_worker; /* MERGE: owners of `from` and `cat` */
};

/* p->workers matching workers. NULL on no memory or bad parameters. */
struct placement *placement_create(const struct drt_params *p);
void placement_destroy(struct placement *pl);

/* Place a new subscription: its category and worker; *fresh when the
 * category was made for it. May queue merges (placement_actions). 0 or
 * -SPATE_E_NO_MEMORY. */
int placement_sub_add(struct placement *pl, const struct spate_sub *q, uint32_t *cat,
		      uint32_t *worker, bool *fresh);
/* Remove a subscription: where it was; *dropped when its category is now
 * empty and gone. 0, or -SPATE_E_UNKNOWN_ID. */
int placement_sub_del(struct placement *pl, const struct spate_sub *q, uint32_t *cat,
		      uint32_t *worker, bool *dropped);
/* Where a subscription is now; 0, or -SPATE_E_UNKNOWN_ID. */
int placement_home(struct placement *pl, uint64_t sub_id, uint32_t *cat, uint32_t *worker);
/* The categories ev must visit, with their workers, in *out (valid until
 * the next call). Counts the event for the load period: at the end of a
 * period moves are queued. Returns the count, or -SPATE_E_NO_MEMORY. */
long placement_route(struct placement *pl, const struct spate_event *ev,
		     const struct placement_route **out);
/* Take the queued merges and moves, in the order they must happen. */
size_t placement_actions(struct placement *pl, struct placement_action *out, size_t max);
/* Size of a category (0 if unknown). */
uint32_t placement_cat_size(struct placement *pl, uint32_t cat);

#endif
