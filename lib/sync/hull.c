/*
 * The convex hulls of one pair of machines: Trace Compass's fully
 * incremental algorithm (SyncAlgorithmFullyIncremental.ConvexHull, after
 * Jabbarifar, Dagenais and Shameli-Sendi, "Streaming Mode Incremental Clock
 * Synchronization"), reproduced step for step because its results (and its
 * quality after each match) are what users compare against.
 *
 * Points are (x = ref time, y = other time). A message sent by the ref side
 * is received after it was sent, so its point lies above the true line
 * y = a x + b: those points form the lower hull of the "above" cloud, which
 * bounds the line with maximum slope (lmax). Messages sent by the other side
 * lie below the line and bound lmin through the upper hull of their cloud.
 */
#include <glib.h>

#include "sync/quality.h"
#include "sync/formula.h"
#include "sync/hull.h"
#include "sync/point.h"

/* A line through two hull points; p[0] may be missing (id 0). */
struct vm_sync_line {
	struct vm_sync_point p[2];
};

struct vm_sync_hull {
	/* Points sent by the other side (below the line), oldest first. */
	GArray *upper;
	/* Points sent by the ref side (above the line), oldest first. */
	GArray *lower;
	struct vm_sync_line lmax;
	struct vm_sync_line lmin;

	enum vm_sync_quality quality;
	/* The current (last good) fit t_other = a * t_ref + b. */
	vm_sync_wide a;
	vm_sync_wide b;
	vm_sync_wide a_max;
	vm_sync_wide a_min;
	/* Whether the current fit is bounded by both lines. */
	bool bounded;

	uint64_t matches;
	uint64_t next_point_id;
	/* Fits adopted so far: a, b, a_max, a_min and bounded change only then. */
	uint64_t fit_count;
};

/*
 * The side of a match: which hull the point joins, which line it bounds, and
 * the sign that turns "on the right side" into "cross product > 0".
 */
struct vm_sync_side {
	GArray *hull;
	GArray *other_hull;
	struct vm_sync_line *line;
	struct vm_sync_line *other_line;
	int sign;
};

struct vm_sync_hull *vm_sync_hull_create(void)
{
	struct vm_sync_hull *hull = g_new0(struct vm_sync_hull, 1);

	hull->upper = g_array_new(FALSE, FALSE, sizeof(struct vm_sync_point));
	hull->lower = g_array_new(FALSE, FALSE, sizeof(struct vm_sync_point));
	hull->quality = VM_SYNC_ABSENT;
	hull->a = 1;
	hull->b = 0;
	hull->a_max = 1;
	hull->a_min = 1;
	hull->next_point_id = 1;
	return hull;
}

void vm_sync_hull_destroy(struct vm_sync_hull *hull)
{
	if (!hull) {
		return;
	}
	g_array_free(hull->upper, TRUE);
	g_array_free(hull->lower, TRUE);
	g_free(hull);
}

static GArray *copy_points(const GArray *points)
{
	GArray *copy = g_array_sized_new(FALSE, FALSE, sizeof(struct vm_sync_point), points->len);

	g_array_append_vals(copy, points->data, points->len);
	return copy;
}

struct vm_sync_hull *vm_sync_hull_copy(const struct vm_sync_hull *hull)
{
	struct vm_sync_hull *copy = g_new(struct vm_sync_hull, 1);

	*copy = *hull;
	copy->upper = copy_points(hull->upper);
	copy->lower = copy_points(hull->lower);
	return copy;
}

static struct vm_sync_point *point_at(GArray *points, guint i)
{
	return &g_array_index(points, struct vm_sync_point, i);
}

/* Position of the point with this identity in `points`, -1 if absent. */
static gint index_of(GArray *points, const struct vm_sync_point *p)
{
	if (!vm_sync_point_is_set(p)) {
		return -1;
	}
	for (guint i = 0; i < points->len; i++) {
		if (point_at(points, i)->id == p->id) {
			return (gint) i;
		}
	}
	return -1;
}

static bool cross_is_positive(vm_sync_i128 cross, int sign)
{
	return sign > 0 ? cross > 0 : cross < 0;
}

/*
 * A new point of a hull: drop the last points it makes useless (those that
 * are no longer on the hull), then append it.
 */
static void push_on_hull(GArray *points, const struct vm_sync_point *p, int sign)
{
	while (points->len >= 2) {
		const struct vm_sync_point *before_last = point_at(points, points->len - 2);
		const struct vm_sync_point *last = point_at(points, points->len - 1);

		if (!cross_is_positive(vm_sync_point_cross(p, before_last, last), sign)) {
			break;
		}
		g_array_set_size(points, points->len - 1);
	}
	g_array_append_val(points, *p);
}

/*
 * Rotates `line` around its point p[1] as far as the other hull allows: its
 * origin p[0] becomes the point of `other_hull`, searched from the current
 * origin onwards, after which the hull turns away from the line.
 */
static void adjust_bound(struct vm_sync_line *line, GArray *other_hull, int sign)
{
	const struct vm_sync_point *end = &line->p[1];
	struct vm_sync_point none = { 0, 0, 0 };
	struct vm_sync_point candidate = none;
	gint i = MAX(0, index_of(other_hull, &line->p[0]));
	bool found = false;

	while (i + 1 < (gint) other_hull->len && !found) {
		const struct vm_sync_point *next = point_at(other_hull, (guint) i + 1);

		candidate = *point_at(other_hull, (guint) i);
		if (!cross_is_positive(vm_sync_point_cross(&candidate, next, end), sign)) {
			line->p[0] = candidate;
			found = true;
		} else if (next->x < end->x) {
			i++;
		} else {
			line->p[0] = none;
			found = true;
		}
	}
	if (!vm_sync_point_is_set(&line->p[0])) {
		line->p[0] = candidate;
	}
	/* The origin must not come after the end point. */
	if (vm_sync_point_is_set(&line->p[0]) && line->p[0].x > end->x) {
		line->p[0] = none;
	}
}

/*
 * The bisector of lmax and lmin becomes the fit, unless its slope is not
 * positive: a handful of pathological points can give that, and such a map
 * would run time backwards. Trace Compass would adopt it; here the previous
 * fit stays until the hull gives a sensible one.
 */
static void adopt_fit(struct vm_sync_hull *hull, struct vm_sync_slope slope_max,
		struct vm_sync_slope slope_min, bool bounded)
{
	vm_sync_wide a_max = vm_sync_slope_value(slope_max);
	vm_sync_wide a_min = vm_sync_slope_value(slope_min);
	vm_sync_wide a = (a_max + a_min) / 2;
	vm_sync_wide b_min, b_max;

	if (!(a > 0)) {
		return;
	}
	b_min = vm_sync_point_intercept(&hull->lmax.p[1], a_max);
	b_max = vm_sync_point_intercept(&hull->lmin.p[1], a_min);
	hull->a_max = a_max;
	hull->a_min = a_min;
	hull->a = a;
	hull->b = (b_min + b_max) / 2;
	hull->bounded = bounded;
	hull->fit_count++;
}

/* The fit when both lines can have a slope (at least one has an origin). */
static void fit_lines(struct vm_sync_hull *hull)
{
	struct vm_sync_slope slope_max = vm_sync_point_slope(&hull->lmax.p[1], &hull->lmax.p[0]);
	struct vm_sync_slope slope_min = vm_sync_point_slope(&hull->lmin.p[1], &hull->lmin.p[0]);
	bool bounded = vm_sync_point_is_set(&hull->lmax.p[0]) &&
		vm_sync_point_is_set(&hull->lmin.p[0]);
	enum vm_sync_quality quality;

	/* After a fail, the last good fit stays. */
	if (hull->quality == VM_SYNC_FAIL) {
		return;
	}
	if (!bounded) {
		quality = VM_SYNC_APPROXIMATE;
	} else if (vm_sync_slope_compare(slope_max, slope_min) > 0) {
		quality = VM_SYNC_ACCURATE;
	} else {
		quality = VM_SYNC_FAIL;	/* the lines cross */
	}

	if (quality != VM_SYNC_FAIL) {
		adopt_fit(hull, slope_max, slope_min, bounded);
	}
	hull->quality = quality;
}

static void update_fit(struct vm_sync_hull *hull)
{
	if (vm_sync_point_is_set(&hull->lmax.p[0]) || vm_sync_point_is_set(&hull->lmin.p[0])) {
		fit_lines(hull);
	} else if (!vm_sync_point_is_set(&hull->lmax.p[1]) || !vm_sync_point_is_set(&hull->lmin.p[1])) {
		hull->quality = VM_SYNC_INCOMPLETE;	/* one direction only */
	}
}

static struct vm_sync_side side_of(struct vm_sync_hull *hull, bool sent_by_ref)
{
	struct vm_sync_side side;

	if (sent_by_ref) {
		side.hull = hull->lower;
		side.other_hull = hull->upper;
		side.line = &hull->lmax;
		side.other_line = &hull->lmin;
		side.sign = -1;
	} else {
		side.hull = hull->upper;
		side.other_hull = hull->lower;
		side.line = &hull->lmin;
		side.other_line = &hull->lmax;
		side.sign = 1;
	}
	return side;
}

void vm_sync_hull_add_match(struct vm_sync_hull *hull, bool sent_by_ref,
		int64_t send_ts, int64_t recv_ts)
{
	struct vm_sync_side side = side_of(hull, sent_by_ref);
	struct vm_sync_point p;
	struct vm_sync_line *line = side.line;
	bool qualifies;

	p.x = vm_sync_point_clamp(sent_by_ref ? send_ts : recv_ts);
	p.y = vm_sync_point_clamp(sent_by_ref ? recv_ts : send_ts);
	p.id = hull->next_point_id++;
	hull->matches++;

	/* Only a point beyond the current line can tighten it. */
	qualifies = !vm_sync_point_is_set(&line->p[0]) ||
		cross_is_positive(vm_sync_point_cross(&p, &line->p[0], &line->p[1]), side.sign);
	if (qualifies) {
		push_on_hull(side.hull, &p, side.sign);
		line->p[1] = p;
	}

	adjust_bound(line, side.other_hull, side.sign);
	/* The other line lost its origin from this hull: find it again. */
	if (vm_sync_point_is_set(&side.other_line->p[1]) &&
			index_of(side.hull, &side.other_line->p[0]) < 0) {
		adjust_bound(side.other_line, side.hull, -side.sign);
	}

	if (qualifies) {
		update_fit(hull);
	}
}

enum vm_sync_quality vm_sync_hull_quality(const struct vm_sync_hull *hull)
{
	return hull->quality;
}

uint64_t vm_sync_hull_matches(const struct vm_sync_hull *hull)
{
	return hull->matches;
}

void vm_sync_hull_fit(const struct vm_sync_hull *hull, long double *a, long double *b)
{
	*a = (long double) hull->a;
	*b = (long double) hull->b;
}

uint64_t vm_sync_hull_fit_count(const struct vm_sync_hull *hull)
{
	return hull->fit_count;
}

long double vm_sync_hull_accuracy(const struct vm_sync_hull *hull)
{
	return hull->bounded ? (long double) (hull->a_max - hull->a_min) : 0.0L;
}

/* The other-side time of `line` at ref time x. */
static vm_sync_wide line_at(const struct vm_sync_line *line, int64_t x)
{
	vm_sync_wide slope = vm_sync_slope_value(vm_sync_point_slope(&line->p[1], &line->p[0]));

	return slope * (vm_sync_wide) ((vm_sync_i128) x - line->p[1].x) +
		(vm_sync_wide) line->p[1].y;
}

long double vm_sync_hull_width_at(const struct vm_sync_hull *hull, int64_t x)
{
	vm_sync_wide width;

	if (hull->quality != VM_SYNC_ACCURATE) {
		return 0.0L;
	}
	width = line_at(&hull->lmax, x) - line_at(&hull->lmin, x);
	return (long double) (width < 0 ? -width : width);
}

struct vm_sync_formula vm_sync_hull_formula(const struct vm_sync_hull *hull)
{
	struct vm_sync_formula formula;

	/* t_ref = t / a - b / a, computed wide before rounding. */
	formula.slope = (long double) (1 / hull->a);
	formula.offset_ns = (long double) (-hull->b / hull->a);
	return formula;
}
