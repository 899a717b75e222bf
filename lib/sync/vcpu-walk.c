/*
 * The piecewise fit of the synchronization from stock KVM events, for a
 * guest clock that one line does not follow (NTP slews it: its rate
 * changes every few seconds).
 *
 * The fit of vcpu-fit.c grows one window around the anchor under one
 * line; here the trace is walked outward from the anchor instead, one
 * short stretch of host time after the other, each attributed under the
 * line of the stretches just behind it. Over a few milliseconds a change
 * of rate moves the clock by at most about a microsecond, which the
 * attribution tolerance covers: every attribution stays right, so every
 * constraint holds, whatever the rate does over the whole trace. The
 * constraints then give the piecewise map (segments.c, the windowing
 * vmsync's matches get), the whole trace is attributed once more under
 * that map, and those constraints make the map the caller checks.
 */

#include "sync/vcpu-align-private.h"
#include "util/time-span.h"

/* Host time attributed per step of the walk. */
#define STEP_NS INT64_C(5000000)
/* Stretches behind the edge whose line carries the walk over the next one. */
#define LOCAL_STRETCHES 4
/*
 * A clock's rate changes by at most 1 / RATE_CHANGE_DIVISOR (200 ppm)
 * between the line of the stretches behind and the next stretch.
 */
#define RATE_CHANGE_DIVISOR 5000

/* One stretch of host time walked, and the constraints found in it. */
struct stretch {
	int64_t low;
	int64_t high;
	GArray *constraints;   /* struct vm_vcpu_constraint, host order */
};

static void stretch_free(gpointer data)
{
	struct stretch *stretch = data;

	g_array_free(stretch->constraints, TRUE);
	g_free(stretch);
}

static struct stretch *stretch_new(int64_t low, int64_t high, GArray *constraints)
{
	struct stretch *stretch = g_new(struct stretch, 1);

	*stretch = (struct stretch) { low, high, constraints };
	return stretch;
}

static GArray *attribute_line(const struct vm_vcpu_pairing *pairing,
		const struct vm_sync_formula *line, int64_t tolerance, int64_t low, int64_t high)
{
	struct vm_vcpu_map map;
	GArray *constraints;

	vm_vcpu_map_init_line(&map, line);
	constraints = vm_vcpu_attribute(pairing, &map, tolerance, low, high);
	vm_vcpu_map_fini(&map);
	return constraints;
}

/* Host time of the first entry and the last exit of the shared vCPUs. */
static void host_record(const struct vm_vcpu_pairing *pairing, int64_t *from, int64_t *to)
{
	*from = INT64_MAX;
	*to = INT64_MIN;
	for (guint c = 0; c < pairing->cpus->len; c++) {
		const GArray *intervals = g_ptr_array_index(pairing->intervals, c);

		*from = MIN(*from, g_array_index(intervals, struct vm_guest_mode, 0).entry);
		*to = MAX(*to, g_array_index(intervals, struct vm_guest_mode,
			intervals->len - 1).exit);
	}
}

/*
 * The first stretch, around the anchor, under the offset found there
 * (slope 1), widened until its constraints bound a line from both sides.
 */
static struct stretch *seed(const struct vm_vcpu_pairing *pairing,
		const struct vm_coarse_offset *coarse, int64_t record_from, int64_t record_to)
{
	struct vm_sync_formula line = { 1.0L,
		(long double) coarse->offset_low +
			(long double) (coarse->offset_high - coarse->offset_low) / 2 };
	int64_t window = coarse->window;

	for (;;) {
		int64_t low = vm_time_sum(coarse->anchor, -window);
		int64_t high = vm_time_sum(coarse->anchor, window);
		/* What the offset's range and a drift of up to 200 ppm allow. */
		int64_t tolerance = VM_VCPU_FITTED_TOLERANCE_NS +
			(coarse->offset_high - coarse->offset_low) / 2 + window / RATE_CHANGE_DIVISOR;
		GArray *constraints = attribute_line(pairing, &line, tolerance, low, high);
		struct vm_sync_hull *hull = vm_sync_hull_create();
		enum vm_sync_quality quality;

		vm_vcpu_hull_add(hull, constraints);
		quality = vm_sync_hull_quality(hull);
		vm_sync_hull_destroy(hull);
		if (quality == VM_SYNC_ACCURATE && constraints->len >= VM_VCPU_MIN_CONSTRAINTS)
			return stretch_new(low, high, constraints);
		g_array_free(constraints, TRUE);
		if (quality == VM_SYNC_FAIL || (low <= record_from && high >= record_to) ||
				window > INT64_MAX / 4)
			return NULL;
		window *= 4;
	}
}

/* The line of the `used` stretches at the end of `side` (time order inside). */
static enum vm_sync_quality line_of(const GPtrArray *side, guint used,
		struct vm_sync_formula *line, long double *accuracy)
{
	GArray *constraints = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));
	struct vm_sync_hull *hull = vm_sync_hull_create();
	enum vm_sync_quality quality;

	for (guint i = side->len - used; i < side->len; i++) {
		const struct stretch *stretch = g_ptr_array_index(side, i);

		g_array_append_vals(constraints, stretch->constraints->data,
			stretch->constraints->len);
	}
	/* Neighbouring stretches overlap by their tolerance. */
	vm_vcpu_sort_constraints(constraints);
	vm_vcpu_hull_add(hull, constraints);
	quality = vm_sync_hull_quality(hull);
	*line = vm_sync_hull_formula(hull);
	*accuracy = vm_sync_hull_accuracy(hull);
	vm_sync_hull_destroy(hull);
	g_array_free(constraints, TRUE);
	return quality;
}

/*
 * The line to carry the walk on with: that of the last LOCAL_STRETCHES
 * stretches, or of fewer when the rate changed among them (their
 * constraints then fit no line), or of more when they hold too few
 * constraints (an idle vCPU). `*far` gets the host time its data reaches
 * back to. False when even the last stretch alone fits no line: its
 * attribution was wrong.
 */
static bool local_line(const GPtrArray *side, bool forward, struct vm_sync_formula *line,
		long double *accuracy, int64_t *far)
{
	guint used = MIN(LOCAL_STRETCHES, side->len);
	enum vm_sync_quality quality = line_of(side, used, line, accuracy);
	const struct stretch *oldest;

	while (quality == VM_SYNC_FAIL && used > 1) {
		used /= 2;
		quality = line_of(side, used, line, accuracy);
	}
	while (quality != VM_SYNC_ACCURATE && quality != VM_SYNC_FAIL && used < side->len) {
		used = MIN(used * 2, side->len);
		quality = line_of(side, used, line, accuracy);
	}
	if (quality != VM_SYNC_ACCURATE)
		return false;
	oldest = g_ptr_array_index(side, side->len - used);
	*far = forward ? oldest->low : oldest->high;
	return true;
}

/*
 * Walks from the seed (the first stretch of `side`) to the end of the
 * host's record in one direction. False when a stretch contradicts the
 * ones behind it.
 */
static bool walk_side(const struct vm_vcpu_pairing *pairing, GPtrArray *side, bool forward,
		int64_t record_from, int64_t record_to)
{
	const struct stretch *first = g_ptr_array_index(side, 0);
	int64_t edge = forward ? first->high : first->low;

	while (forward ? edge < record_to : edge > record_from) {
		struct vm_sync_formula line;
		long double accuracy;
		int64_t far, next, distance, tolerance;

		if (!local_line(side, forward, &line, &accuracy, &far))
			return false;
		next = vm_time_sum(edge, forward ? STEP_NS : -STEP_NS);
		distance = forward ? vm_time_span(next, far) : vm_time_span(far, next);
		/* The line's own freedom and a change of rate, over that distance. */
		tolerance = VM_VCPU_FITTED_TOLERANCE_NS + distance / RATE_CHANGE_DIVISOR +
			(int64_t) (accuracy * (long double) distance);
		g_ptr_array_add(side, stretch_new(forward ? edge : next, forward ? next : edge,
			attribute_line(pairing, &line, tolerance, forward ? edge : next,
				forward ? next : edge)));
		edge = next;
	}
	return true;
}

/* Every constraint walked, in host time order. */
static GArray *walked(const GPtrArray *ahead, const GPtrArray *behind)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));

	for (guint i = 0; i < ahead->len; i++) {
		const struct stretch *stretch = g_ptr_array_index(ahead, i);

		g_array_append_vals(all, stretch->constraints->data, stretch->constraints->len);
	}
	/* The seed is the first of both sides. */
	for (guint i = 1; i < behind->len; i++) {
		const struct stretch *stretch = g_ptr_array_index(behind, i);

		g_array_append_vals(all, stretch->constraints->data, stretch->constraints->len);
	}
	vm_vcpu_sort_constraints(all);
	return all;
}

/* The constraints of the whole trace under the piecewise map of `constraints`. */
static GArray *attribute_under(const struct vm_vcpu_pairing *pairing,
		const GArray *constraints)
{
	struct vm_sync_segments *segments = vm_vcpu_segments_of(constraints);
	unsigned int count;
	const struct vm_sync_segment *map = vm_sync_segments_map(segments, &count);
	struct vm_vcpu_map prepared;
	GArray *result;

	vm_vcpu_map_init_segments(&prepared, map, count);
	result = vm_vcpu_attribute(pairing, &prepared, VM_VCPU_FITTED_TOLERANCE_NS,
		INT64_MIN / 2, INT64_MAX / 2);
	vm_vcpu_map_fini(&prepared);
	vm_sync_segments_destroy(segments);
	return result;
}

bool vm_vcpu_walk(const struct vm_vcpu_pairing *pairing,
		const struct vm_coarse_offset *coarse, struct vm_vcpu_fit *fit,
		GArray **constraints)
{
	int64_t record_from, record_to;
	struct stretch *first;
	GPtrArray *ahead, *behind;
	bool walked_through;
	GArray *all;

	host_record(pairing, &record_from, &record_to);
	first = seed(pairing, coarse, record_from, record_to);
	if (!first)
		return false;
	ahead = g_ptr_array_new_with_free_func(stretch_free);
	behind = g_ptr_array_new();
	g_ptr_array_add(ahead, first);
	g_ptr_array_add(behind, first);
	walked_through = walk_side(pairing, ahead, true, record_from, record_to) &&
		walk_side(pairing, behind, false, record_from, record_to);
	all = walked_through ? walked(ahead, behind) : NULL;
	/* `ahead` owns its stretches and the seed; `behind` holds the others. */
	for (guint i = 1; i < behind->len; i++)
		stretch_free(g_ptr_array_index(behind, i));
	g_ptr_array_free(behind, TRUE);
	g_ptr_array_free(ahead, TRUE);
	if (!all)
		return false;
	*constraints = attribute_under(pairing, all);
	g_array_free(all, TRUE);
	fit->constraints = (*constraints)->len;
	return (*constraints)->len >= VM_VCPU_MIN_CONSTRAINTS;
}
