#include "sync/point.h"

int64_t vm_sync_point_clamp(int64_t t)
{
	if (t > VM_SYNC_POINT_LIMIT) {
		return VM_SYNC_POINT_LIMIT;
	}
	if (t < -VM_SYNC_POINT_LIMIT) {
		return -VM_SYNC_POINT_LIMIT;
	}
	return t;
}

vm_sync_i128 vm_sync_point_cross(const struct vm_sync_point *p,
		const struct vm_sync_point *a, const struct vm_sync_point *b)
{
	/* Differences first: they fit 63 bits, their products 126 bits. */
	vm_sync_i128 ax = (vm_sync_i128) a->x - p->x;
	vm_sync_i128 ay = (vm_sync_i128) a->y - p->y;
	vm_sync_i128 bx = (vm_sync_i128) b->x - p->x;
	vm_sync_i128 by = (vm_sync_i128) b->y - p->y;

	return ax * by - ay * bx;
}

struct vm_sync_slope vm_sync_point_slope(const struct vm_sync_point *to,
		const struct vm_sync_point *from)
{
	struct vm_sync_slope one = { 1, 1 };
	struct vm_sync_slope slope;

	if (!from || !vm_sync_point_is_set(from)) {
		return one;
	}
	slope.dy = (vm_sync_i128) to->y - from->y;
	slope.dx = (vm_sync_i128) to->x - from->x;
	if (slope.dx == 0) {
		return one;
	}
	if (slope.dx < 0) {
		slope.dx = -slope.dx;
		slope.dy = -slope.dy;
	}
	return slope;
}

int vm_sync_slope_compare(struct vm_sync_slope s, struct vm_sync_slope t)
{
	/* Both denominators are positive: cross-multiply. */
	vm_sync_i128 left = s.dy * t.dx;
	vm_sync_i128 right = t.dy * s.dx;

	return (left > right) - (left < right);
}

vm_sync_wide vm_sync_slope_value(struct vm_sync_slope s)
{
	return (vm_sync_wide) s.dy / (vm_sync_wide) s.dx;
}

vm_sync_wide vm_sync_point_intercept(const struct vm_sync_point *p,
		vm_sync_wide slope)
{
	return (vm_sync_wide) p->y - slope * (vm_sync_wide) p->x;
}
