#ifndef VM_SYNC_ONLINE_H
#define VM_SYNC_ONLINE_H

/*
 * A pair's piecewise-linear clock map built while the traces are read once
 * (sync-model="piecewise" without a sync pass; SPEC "Long traces").
 *
 * Matches go to windows as in sync/segments.h: the open window's
 * convex-hull fit is the best line known. The caller holds the other
 * machine's messages back and fixes the map as it releases them:
 * vm_sync_online_commit(horizon) says that every other-clock time up to the
 * horizon is mapped from now on as the map stands.
 *
 * - First commit: the map becomes the best line, everywhere before and
 *   after (a pair read whole before it, e.g. Trace Compass's pair, gets
 *   exactly the linear result).
 * - Later commits: the map beyond the last horizon follows the plan (the
 *   last line, or a bridge then a line); when the best line, accurate,
 *   stands more than VM_SYNC_ONLINE_TOLERANCE_NS away from the plan at the
 *   last horizon, the plan is replaced from there (so that what the commit
 *   fixes follows what is known now) by a bridge (slope within
 *   VM_SYNC_SEGMENTS_BRIDGE_SLOPE of its ends) to the best line, frozen.
 *   The map stays continuous and increasing; the past never changes.
 *
 * Memory: the windows' fits and the plan's segments, not the matches.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/segments.h"

/*
 * The best line replaces the plan only once its window has this many
 * matches each way and its slope is known within the bridges' slack.
 */
#define VM_SYNC_ONLINE_MIN_EACH_WAY 8

/* How far the plan may stray from the best line before it is replaced. */
#define VM_SYNC_ONLINE_TOLERANCE_NS 50

struct vm_sync_online;

struct vm_sync_online *vm_sync_online_create(void);
void vm_sync_online_destroy(struct vm_sync_online *online);

/* One match, as vm_sync_segments_add(). */
void vm_sync_online_add(struct vm_sync_online *online, bool sent_by_ref,
		int64_t ref_ts, int64_t other_ts);

/* Matches so far, and the least of the two directions' counts in the open window. */
uint64_t vm_sync_online_matches(const struct vm_sync_online *online);
uint64_t vm_sync_online_fewest_each_way(const struct vm_sync_online *online);

/* The best line now (the open window's fit), for estimates. */
struct vm_sync_formula vm_sync_online_best(const struct vm_sync_online *online);

/*
 * Whether the best line is known within `width` ns at other-clock time
 * `t` (the spread of the lines its window allows there).
 */
bool vm_sync_online_settled(const struct vm_sync_online *online, int64_t t, long double width);

/* That spread itself, in ns (infinite while no line is known). */
long double vm_sync_online_width_at(const struct vm_sync_online *online, int64_t t);

/* Whether a commit happened, and the horizon. */
bool vm_sync_online_committed(const struct vm_sync_online *online);
int64_t vm_sync_online_horizon(const struct vm_sync_online *online);

/* Fixes the map up to `horizon` (other clock); a horizon that goes back is ignored. */
void vm_sync_online_commit(struct vm_sync_online *online, int64_t horizon);

/*
 * A first commit that takes the windows' whole map (sync/segments.h) rather
 * than the best line everywhere: for matches of a long stretch of the past
 * given at once (the vCPU method's first fit), whose clock may have changed
 * rate within them. One window gives the same as vm_sync_online_commit().
 */
void vm_sync_online_commit_windows(struct vm_sync_online *online, int64_t horizon);

/*
 * The end of the input: the map is fixed everywhere, without the planned
 * segments that would begin after `last` (the last time it maps).
 */
void vm_sync_online_end(struct vm_sync_online *online, int64_t last);

/*
 * The map (fixed up to the horizon, the plan beyond it): `*count` segments
 * by increasing begin, the first at INT64_MIN. Valid until the next call.
 */
const struct vm_sync_segment *vm_sync_online_map(const struct vm_sync_online *online,
		unsigned int *count);

/* The map's formula at `t`, looking from the end (times mostly near it). */
const struct vm_sync_formula *vm_sync_online_formula_at(const struct vm_sync_online *online,
		int64_t t);

#endif /* VM_SYNC_ONLINE_H */
