#ifndef VM_SYNC_PIECEWISE_H
#define VM_SYNC_PIECEWISE_H

/*
 * A piecewise-linear clock map of one machine pair, built in one pass
 * (SPEC "Long traces", sync-model="piecewise").
 *
 * Constraints arrive as the traces are read: a message sent by the ref side
 * at ref time r and received at other time o says f(o) > r; one sent by the
 * other side at o and received at r says f(o) < r, where f maps the other
 * clock to the ref clock. The caller releases the other machine's messages
 * as it goes and says so with vm_sync_piecewise_commit(horizon): from then
 * on the map of every time up to the horizon is fixed.
 *
 * The first segment is Trace Compass's convex-hull fit
 * (SyncAlgorithmFullyIncremental) of every constraint known when it is
 * first committed: a trace read whole before its first message leaves
 * (shorter than the caller's look-ahead) gets exactly the linear result.
 * Once a segment is fixed, a constraint that its line breaks starts a new
 * segment at the commit horizon (the earliest time not yet released), from
 * the point where the previous line stands there, so the map stays
 * continuous; its slope is the middle of the slopes that the constraints
 * after that point allow, and it is refined by each new constraint until
 * it is committed in turn.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/sync.h"

struct vm_sync_segment {
	/* Other-clock time from which it applies (INT64_MIN: the first one). */
	int64_t begin;
	struct vm_sync_formula formula;   /* other clock -> ref clock */
	enum vm_sync_quality quality;
	/* Width of the slopes its constraints allow (0: not bounded both ways). */
	long double accuracy;
	uint64_t matches;                 /* constraints that shaped it */
};

struct vm_sync_piecewise;

struct vm_sync_piecewise *vm_sync_piecewise_create(void);
void vm_sync_piecewise_destroy(struct vm_sync_piecewise *pw);

/*
 * One constraint. `sent_by_ref`: ref sent at `ref_ts`, other received at
 * `other_ts`; else other sent at `other_ts`, ref received at `ref_ts`.
 */
void vm_sync_piecewise_add(struct vm_sync_piecewise *pw, bool sent_by_ref,
		int64_t ref_ts, int64_t other_ts);

/*
 * The map is fixed for every other-clock time up to `horizon` (messages up
 * to it are leaving). Horizons never go back; an earlier one is ignored.
 */
void vm_sync_piecewise_commit(struct vm_sync_piecewise *pw, int64_t horizon);

/* Segments so far, oldest first; the last one may change until committed. */
unsigned int vm_sync_piecewise_count(const struct vm_sync_piecewise *pw);
const struct vm_sync_segment *vm_sync_piecewise_segment(const struct vm_sync_piecewise *pw,
		unsigned int index);

/* The segment that applies at other-clock time `t`. */
const struct vm_sync_segment *vm_sync_piecewise_at(const struct vm_sync_piecewise *pw,
		int64_t t);

/* Constraints that a fixed map broke (they came too late to bend it). */
uint64_t vm_sync_piecewise_late_violations(const struct vm_sync_piecewise *pw);

#endif /* VM_SYNC_PIECEWISE_H */
