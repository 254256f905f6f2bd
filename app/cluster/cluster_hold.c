/* cluster_hold.c - the cluster stage's hold-back (cluster_int.h).
 *
 * With a journal (durable.h), every applied SUB_ADD/SUB_DEL from the
 * network is recorded, and from then until the record is durable all
 * output of this stage is held in its rings' backlogs (hold()), in
 * order: the matching stages ACK a change only once they have it, so no
 * ACK leaves before its record is safe, and events queue behind the
 * changes they must see. With several fronts and standbys, the same
 * holds until the other fronts have the copy. Replayed and preloaded
 * operations have no one to answer and are not recorded again.
 */
#include "cluster/cluster_int.h"
#include "store/durable.h"

/* Hold (or let go) everything this stage sends. */
static void hold(struct stage_cluster *s, int on)
{
	if (s->holding == on)
		return;
	s->holding = on;
	for (uint32_t w = 0; w < s->n_workers; w++)
		s->to_match[w].hold = on;
	s->to_tx.ring.hold = on;
}

/* Commit the journal; once nothing is pending, release what was held.
 * `force`: sync now (a backlog is full), whatever the interval policy. */
void cluster_settle(struct stage_cluster *s, bool force)
{
	if (s->holding && durable_commit(s->dur, force) == 1 &&
	    (s->repl_done == NULL || s->repl_done(s->repl_ctx)))
		hold(s, 0);
}

/* A subscription change applied: journaled and copied to the other
 * fronts, and everything this stage sends held until both are safe. */
void cluster_record_add(struct stage_cluster *s, const struct spate_raw_sub *rs, uint32_t owner)
{
	durable_sub_add(s->dur, rs, owner);
	if (s->repl_add != NULL)
		s->repl_add(s->repl_ctx, rs, owner);
	hold(s, s->dur != NULL || s->repl_add != NULL);
}

void cluster_record_del(struct stage_cluster *s, uint64_t id, uint32_t owner)
{
	durable_sub_del(s->dur, id, owner);
	if (s->repl_del != NULL)
		s->repl_del(s->repl_ctx, id, owner);
	hold(s, s->dur != NULL || s->repl_del != NULL);
}

void stage_cluster_set_durable(struct stage_cluster *s, struct durable *d)
{
	s->dur = d;
}

void stage_cluster_set_repl(struct stage_cluster *s,
			    void (*add)(void *ctx, const struct spate_raw_sub *rs, uint32_t owner),
			    void (*del)(void *ctx, uint64_t id, uint32_t owner),
			    int (*done)(void *ctx), void *ctx)
{
	s->repl_add = add;
	s->repl_del = del;
	s->repl_done = done;
	s->repl_ctx = ctx;
}
