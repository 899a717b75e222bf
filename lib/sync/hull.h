#ifndef VM_SYNC_HULL_H
#define VM_SYNC_HULL_H

/*
 * Trace Compass's fully incremental convex-hull algorithm
 * (SyncAlgorithmFullyIncremental) for one pair of machines. All hull
 * arithmetic is exact on ns timestamps (128-bit products).
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/formula.h"
#include "sync/quality.h"

/*
 * The convex hulls of one pair of machines. "ref" is the pair's reference
 * side (in Trace Compass: the lexicographically smaller host id), "other"
 * the other side. Trace Compass fits t_other = a * t_ref + b.
 */
struct vm_sync_hull;

struct vm_sync_hull *vm_sync_hull_create(void);
void vm_sync_hull_destroy(struct vm_sync_hull *hull);

/* An independent copy (to try a match without keeping it). */
struct vm_sync_hull *vm_sync_hull_copy(const struct vm_sync_hull *hull);

/*
 * One matched message. `sent_by_ref`: the sender is the ref side (then
 * send_ts is a ref time and recv_ts an other time), else the other side
 * sent it.
 */
void vm_sync_hull_add_match(struct vm_sync_hull *hull, bool sent_by_ref,
		int64_t send_ts, int64_t recv_ts);

enum vm_sync_quality vm_sync_hull_quality(const struct vm_sync_hull *hull);

/* Number of matches added so far. */
uint64_t vm_sync_hull_matches(const struct vm_sync_hull *hull);

/*
 * The current fit t_other = a * t_ref + b (a = 1, b = 0 while nothing can be
 * fitted; after a fail, the last good fit).
 */
void vm_sync_hull_fit(const struct vm_sync_hull *hull, long double *a, long double *b);

/*
 * How many fits the hull adopted so far: while it stays the same, so do
 * vm_sync_hull_fit(), vm_sync_hull_accuracy() and vm_sync_hull_formula().
 */
uint64_t vm_sync_hull_fit_count(const struct vm_sync_hull *hull);

/* a_max - a_min of the current fit, 0 when not bounded on both sides. */
long double vm_sync_hull_accuracy(const struct vm_sync_hull *hull);

/*
 * How far apart, at ref time x, the lines of largest and smallest slope
 * that the hulls allow are, in ns of the other side: what the fit may be
 * off by there (0 unless accurate). Beyond the matches, their slopes'
 * freedom widens it.
 */
long double vm_sync_hull_width_at(const struct vm_sync_hull *hull, int64_t x);

/* The map other -> ref of the current fit: t_ref = t / a - b / a. */
struct vm_sync_formula vm_sync_hull_formula(const struct vm_sync_hull *hull);

#endif /* VM_SYNC_HULL_H */
