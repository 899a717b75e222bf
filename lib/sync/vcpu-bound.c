/*
 * How far a vCPU fit's line may be from the guest's true clock, from its
 * constraints alone. Every line that keeps each entry before the first
 * event of its interval and each exit after the last one may be the
 * clock; at a host time x their values form an interval, and the line
 * fitted may be off by as much as the distance to its far end. The lines
 * of largest and smallest slope do not bound that interval (between the
 * constraints other lines reach further: guests 1.2 us off were within
 * 0.3 us of both), so each end is found by a search on the value, with an
 * exact test of whether some slope goes through it.
 */

#include "sync/vcpu-align-private.h"
#include "sync/wide.h"
#include "util/time-span.h"

/* Samples of the guest's span the bound is taken at. */
#define SAMPLES 33
/* No bound is sought beyond this: such a fit is refused anyway. */
#define FAR_NS INT64_C(1000000000)
/* How far from a fit that breaks its constraints a value keeping them is sought. */
#define NEAR_NS INT64_C(1000000)

/* A constraint as a point: host time, guest time. */
static void point_of(const struct vm_vcpu_constraint *c, int64_t *x, int64_t *y)
{
	*x = vm_vcpu_constraint_host_time(c);
	*y = c->host_to_guest ? c->recv : c->send;
}

static gint compare_points(gconstpointer a, gconstpointer b)
{
	int64_t ax, ay, bx, by;

	point_of(a, &ax, &ay);
	point_of(b, &bx, &by);
	return ax != bx ? (ax > bx) - (ax < bx) : (ay > by) - (ay < by);
}

/* Twice the signed area of (o, a, b), exact: > 0 when they turn left. */
static vm_sync_i128 turn(const struct vm_vcpu_constraint *o,
		const struct vm_vcpu_constraint *a, const struct vm_vcpu_constraint *b)
{
	int64_t ox, oy, ax, ay, bx, by;

	point_of(o, &ox, &oy);
	point_of(a, &ax, &ay);
	point_of(b, &bx, &by);
	return (vm_sync_i128) (ax - ox) * (by - oy) - (vm_sync_i128) (ay - oy) * (bx - ox);
}

/*
 * Of one side's constraints (`above`: entries, which the line passes
 * below), the corners that decide: a line below the lower convex hull's
 * corners is below every point, and likewise above the upper one's.
 */
static void add_hull(const GArray *constraints, bool above, GArray *out)
{
	GArray *side = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));
	guint base = out->len;

	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *c =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);

		if (c->host_to_guest == above) {
			g_array_append_val(side, *c);
		}
	}
	g_array_sort(side, compare_points);
	for (guint i = 0; i < side->len; i++) {
		const struct vm_vcpu_constraint *c =
			&g_array_index(side, struct vm_vcpu_constraint, i);

		while (out->len >= base + 2) {
			vm_sync_i128 t = turn(&g_array_index(out, struct vm_vcpu_constraint,
				out->len - 2), &g_array_index(out, struct vm_vcpu_constraint,
				out->len - 1), c);

			if (above ? t > 0 : t < 0) {
				break;
			}
			g_array_set_size(out, out->len - 1);
		}
		g_array_append_val(out, *c);
	}
	g_array_free(side, TRUE);
}

/*
 * Whether a line goes through (x, y) (host time, guest time) and keeps
 * every constraint: entry -> first event above it, last event -> exit
 * below it (the hull's sides, vcpu-attribute.c).
 */
static bool passes(const GArray *constraints, int64_t x, int64_t y)
{
	long double low = -1e30L, high = 1e30L;

	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *c =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);
		int64_t px = vm_vcpu_constraint_host_time(c);
		int64_t py = c->host_to_guest ? c->recv : c->send;
		long double dx = (long double) vm_time_span(px, x);
		long double dy = (long double) vm_time_span(py, y);

		/* Above the line for an entry (dy >= a dx), below for an exit. */
		bool above = c->host_to_guest;

		if (dx == 0) {
			if (above ? dy < 0 : dy > 0) {
				return false;
			}
			continue;
		}
		if ((dx > 0) == above) {
			high = MIN(high, dy / dx);
		} else {
			low = MAX(low, dy / dx);
		}
		if (low > high) {
			return false;
		}
	}
	return true;
}

/*
 * How far from `y` (a value some line of `constraints` takes at x) the
 * values of such lines reach in direction `sign`, up to FAR_NS.
 */
static int64_t reach(const GArray *constraints, int64_t x, int64_t y, int sign)
{
	int64_t good = 0, bad = 1;

	while (bad < FAR_NS && passes(constraints, x, y + sign * bad)) {
		good = bad;
		bad *= 2;
	}
	if (bad >= FAR_NS) {
		return FAR_NS;
	}
	while (bad - good > 1) {
		int64_t mid = good + (bad - good) / 2;

		if (passes(constraints, x, y + sign * mid)) {
			good = mid;
		} else {
			bad = mid;
		}
	}
	return good;
}

/*
 * A value near `y` that some line keeping every constraint takes at x (the
 * fit's own value, unless it leaves the constraints there: the bisector
 * of the hull's extreme lines need not keep them all), INT64_MIN when none
 * is within NEAR_NS (what each sample costs stays small).
 */
static int64_t feasible_near(const GArray *constraints, int64_t x, int64_t y)
{
	if (passes(constraints, x, y)) {
		return y;
	}
	for (int64_t d = 1; d < NEAR_NS; d *= 2) {
		/* Between y - d and y + d, on a grid fine enough for the band. */
		for (int64_t k = -d; k <= d; k += MAX(d / 16, 1)) {
			if (passes(constraints, x, y + k)) {
				return y + k;
			}
		}
	}
	return INT64_MIN;
}

void vm_vcpu_error_bound(const GArray *all, const struct vm_sync_formula *formula,
		int64_t first, int64_t last, int64_t *median, int64_t *largest)
{
	struct vm_sync_formula inverse = vm_sync_formula_invert(formula);
	int64_t bounds[SAMPLES];
	GArray *corners = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));

	/* Thousands of constraints, a few dozen corners: each test reads these. */
	add_hull(all, true, corners);
	add_hull(all, false, corners);

	for (int i = 0; i < SAMPLES; i++) {
		int64_t x = vm_time_sum(first, (int64_t) ((long double) vm_time_span(last, first) *
			i / (SAMPLES - 1)));
		int64_t y = vm_sync_formula_apply(&inverse, x);
		int64_t inside = feasible_near(corners, x, y);
		int j;

		/* The values the constraints allow at x, against the fit's there. */
		bounds[i] = inside == INT64_MIN ? FAR_NS : MAX(
			vm_time_span(vm_time_sum(inside, reach(corners, x, inside, 1)), y),
			vm_time_span(y, vm_time_sum(inside, -reach(corners, x, inside, -1))));
		bounds[i] = MIN(MAX(bounds[i], -bounds[i]), FAR_NS);
		/* Insertion: the samples are few. */
		for (j = i; j > 0 && bounds[j - 1] > bounds[j]; j--) {
			int64_t swap = bounds[j];

			bounds[j] = bounds[j - 1];
			bounds[j - 1] = swap;
		}
	}
	*median = bounds[SAMPLES / 2];
	*largest = bounds[SAMPLES - 1];
	g_array_free(corners, TRUE);
}
