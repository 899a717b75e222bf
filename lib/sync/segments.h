#ifndef VM_SYNC_SEGMENTS_H
#define VM_SYNC_SEGMENTS_H

/*
 * The piecewise-linear clock map of one machine pair from all its matches
 * (sync-model="piecewise" after a sync pass; SPEC "Long traces").
 *
 * Matches are taken in the order of the sync pass. A window of them is fit
 * by Trace Compass's convex-hull algorithm (SyncAlgorithmFullyIncremental)
 * for as long as one line fits them all; the first match that no line of
 * the window can fit with the others starts the next window. A pair whose
 * matches all fit one line has one window: exactly the linear result.
 *
 * The map is then made continuous where two windows meet: at the crossing
 * of their lines when it lies near their border, else through a short
 * bridge segment whose slope differs from its neighbours' by at most
 * VM_SYNC_SEGMENTS_BRIDGE_SLOPE (a clock changes rate, it does not jump).
 * Only the windows' fits are kept, not the matches.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/quality.h"
#include "sync/formula.h"

/* One piece of a piecewise-linear clock map. */
struct vm_sync_segment {
	/* Other-clock time from which it applies (INT64_MIN: the first one). */
	int64_t begin;
	struct vm_sync_formula formula;   /* other clock -> ref clock */
	enum vm_sync_quality quality;
	/* Width of the slopes its matches allow (0: not bounded both ways). */
	long double accuracy;
	uint64_t matches;                 /* matches that shaped it (0: a bridge) */
};

/* How far a bridge's slope may differ from the lines it joins. */
#define VM_SYNC_SEGMENTS_BRIDGE_SLOPE 1e-4

struct vm_sync_segments;

struct vm_sync_segments *vm_sync_segments_create(void);
void vm_sync_segments_destroy(struct vm_sync_segments *segments);

/*
 * One match. `sent_by_ref`: the ref side sent at `ref_ts`, the other side
 * received at `other_ts`; else the other side sent at `other_ts`.
 */
void vm_sync_segments_add(struct vm_sync_segments *segments, bool sent_by_ref,
		int64_t ref_ts, int64_t other_ts);

/*
 * The open (last) window's fit (`begin`: its first match's other time) and
 * how many of its matches were sent by each side.
 */
void vm_sync_segments_open_fit(const struct vm_sync_segments *segments,
		struct vm_sync_segment *fit, uint64_t *sent_by_ref, uint64_t *sent_by_other);

/*
 * How far apart the open window's extreme lines are at other-clock time
 * `t` (ns): what its fit may be off by there; INFINITY while it is not
 * accurate.
 */
long double vm_sync_segments_open_width_at(const struct vm_sync_segments *segments, int64_t t);

/* Windows so far (the last one still open). */
unsigned int vm_sync_segments_window_count(const struct vm_sync_segments *segments);

/*
 * The continuous map other clock -> ref clock, by increasing `begin` (the
 * first at INT64_MIN): windows' lines and the bridges between them. Valid
 * until the next add; `*count` gets its length (at least 1).
 */
const struct vm_sync_segment *vm_sync_segments_map(struct vm_sync_segments *segments,
		unsigned int *count);

#endif /* VM_SYNC_SEGMENTS_H */
