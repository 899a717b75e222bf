#ifndef VM_SYNC_POINT_H
#define VM_SYNC_POINT_H

/*
 * A synchronization point of one pair of machines: x is the time on the
 * pair's ref side, y the time on its other side, both in ns (internal to
 * lib/sync/).
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/wide.h"

/* Timestamps are clamped to +-2^62 ns (about 146 years around 1970) so that
 * every orientation test stays exact in 128 bits (see wide.h). */
#define VM_SYNC_POINT_LIMIT (INT64_C(1) << 62)

struct vm_sync_point {
	int64_t x;
	int64_t y;
	/* Identity of the point within its hull (0: no point), because the
	 * algorithm asks "is this very point still on that hull". */
	uint64_t id;
};

/* A timestamp clamped into the range where the arithmetic is exact. */
int64_t vm_sync_point_clamp(int64_t t);

static inline bool vm_sync_point_is_set(const struct vm_sync_point *p)
{
	return p->id != 0;
}

/*
 * Orientation of (p, a, b): > 0 counter-clockwise, < 0 clockwise, 0 aligned.
 * (a - p) x (b - p), exact.
 */
vm_sync_i128 vm_sync_point_cross(const struct vm_sync_point *p,
		const struct vm_sync_point *a, const struct vm_sync_point *b);

/*
 * The slope of the line through `from` and `to` as an exact fraction dy / dx
 * with dx > 0. Like Trace Compass, a missing `from` or a vertical pair gives
 * the slope 1.
 */
struct vm_sync_slope {
	vm_sync_i128 dy;
	vm_sync_i128 dx;
};

struct vm_sync_slope vm_sync_point_slope(const struct vm_sync_point *to,
		const struct vm_sync_point *from);

/* < 0, 0, > 0 as s < t, s == t, s > t (exact). */
int vm_sync_slope_compare(struct vm_sync_slope s, struct vm_sync_slope t);

vm_sync_wide vm_sync_slope_value(struct vm_sync_slope s);

/* y - slope * x at this point: the intercept of the line of that slope
 * through the point. */
vm_sync_wide vm_sync_point_intercept(const struct vm_sync_point *p,
		vm_sync_wide slope);

#endif /* VM_SYNC_POINT_H */
