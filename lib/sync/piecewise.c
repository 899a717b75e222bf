/*
 * The piecewise-linear map of one machine pair: see piecewise.h.
 *
 * The last segment is open (refined by each constraint) until a commit
 * reaches it; then it is fixed, and the constraints that arrive are only
 * checked against it. The constraints later than the commit horizon are
 * kept, so that a new segment starts from all that is known after its
 * beginning; older ones are dropped: memory follows the look-ahead, not the
 * trace.
 */

#include <glib.h>

#include "sync/piecewise.h"
#include "sync/wide.h"

struct constraint {
	bool sent_by_ref;
	int64_t ref_ts;
	int64_t other_ts;
};

/* The slopes that the constraints after an anchor allow. */
struct anchored_fit {
	int64_t y0;          /* other-clock time of the anchor */
	vm_sync_wide x0;     /* where the map stands there (ref clock) */
	bool has_lo, has_hi;
	vm_sync_wide lo, hi;
	vm_sync_wide previous_slope;
};

struct vm_sync_piecewise {
	GArray *segments;          /* struct vm_sync_segment */
	/* The open segment: a free hull fit, or anchored at the end of the last. */
	struct vm_sync_hull *hull; /* NULL when anchored */
	struct anchored_fit fit;
	bool fixed;                /* the last segment is committed */

	bool has_horizon;
	int64_t horizon;
	GArray *recent;            /* struct constraint after the horizon */
	guint recent_pruned_len;
	uint64_t late;
};

/* A slope that stays a clock: positive, however odd the constraints. */
#define MIN_SLOPE ((vm_sync_wide) 1e-9)

static struct vm_sync_segment *last_segment(struct vm_sync_piecewise *pw)
{
	return &g_array_index(pw->segments, struct vm_sync_segment, pw->segments->len - 1);
}

static void start_free_segment(struct vm_sync_piecewise *pw, int64_t begin)
{
	struct vm_sync_segment segment = {
		.begin = begin,
		.formula = vm_sync_formula_identity(),
		.quality = VM_SYNC_ABSENT,
	};

	vm_sync_hull_destroy(pw->hull);
	pw->hull = vm_sync_hull_create();
	g_array_append_val(pw->segments, segment);
	pw->fixed = false;
}

struct vm_sync_piecewise *vm_sync_piecewise_create(void)
{
	struct vm_sync_piecewise *pw = g_new0(struct vm_sync_piecewise, 1);

	pw->segments = g_array_new(FALSE, FALSE, sizeof(struct vm_sync_segment));
	pw->recent = g_array_new(FALSE, FALSE, sizeof(struct constraint));
	start_free_segment(pw, INT64_MIN);
	return pw;
}

void vm_sync_piecewise_destroy(struct vm_sync_piecewise *pw)
{
	if (!pw)
		return;
	vm_sync_hull_destroy(pw->hull);
	g_array_free(pw->segments, TRUE);
	g_array_free(pw->recent, TRUE);
	g_free(pw);
}

static vm_sync_wide map_wide(const struct vm_sync_formula *formula, int64_t t)
{
	return (vm_sync_wide) formula->slope * (vm_sync_wide) t +
		(vm_sync_wide) formula->offset_ns;
}

static bool breaks(const struct vm_sync_formula *formula, const struct constraint *c)
{
	vm_sync_wide mapped = map_wide(formula, c->other_ts);

	/* Received after it was sent: a tie is not a contradiction. */
	return c->sent_by_ref ? mapped < (vm_sync_wide) c->ref_ts :
		mapped > (vm_sync_wide) c->ref_ts;
}

/* The open free segment from its hull: Trace Compass's fit. */
static void update_free(struct vm_sync_piecewise *pw, const struct constraint *c)
{
	struct vm_sync_segment *segment = last_segment(pw);

	if (c->sent_by_ref)
		vm_sync_hull_add_match(pw->hull, true, c->ref_ts, c->other_ts);
	else
		vm_sync_hull_add_match(pw->hull, false, c->other_ts, c->ref_ts);
	segment->formula = vm_sync_hull_formula(pw->hull);
	segment->quality = vm_sync_hull_quality(pw->hull);
	segment->accuracy = vm_sync_hull_accuracy(pw->hull);
	segment->matches = vm_sync_hull_matches(pw->hull);
}

/* A slope just inside the one bound there is, the previous one if it fits. */
static vm_sync_wide one_sided_slope(const struct anchored_fit *fit)
{
	vm_sync_wide bound = fit->has_lo ? fit->lo : fit->hi;
	vm_sync_wide margin = (bound < 0 ? -bound : bound) * (vm_sync_wide) 1e-9;

	if (fit->has_lo)
		return fit->previous_slope > fit->lo ? fit->previous_slope : fit->lo + margin;
	return fit->previous_slope < fit->hi ? fit->previous_slope : fit->hi - margin;
}

/* The open anchored segment from the slopes its constraints allow. */
static void update_anchored(struct vm_sync_piecewise *pw, const struct constraint *c)
{
	struct anchored_fit *fit = &pw->fit;
	struct vm_sync_segment *segment = last_segment(pw);
	vm_sync_wide slope;

	if (c) {
		vm_sync_wide ratio;

		if (c->other_ts <= fit->y0)
			return;
		ratio = ((vm_sync_wide) c->ref_ts - fit->x0) /
			(vm_sync_wide) ((uint64_t) c->other_ts - (uint64_t) fit->y0);
		if (c->sent_by_ref && (!fit->has_lo || ratio > fit->lo)) {
			fit->lo = ratio;
			fit->has_lo = true;
		} else if (!c->sent_by_ref && (!fit->has_hi || ratio < fit->hi)) {
			fit->hi = ratio;
			fit->has_hi = true;
		}
		segment->matches++;
	}

	if (fit->has_lo && fit->has_hi) {
		slope = (fit->lo + fit->hi) / 2;
		segment->quality = fit->lo < fit->hi ? VM_SYNC_ACCURATE : VM_SYNC_FAIL;
		segment->accuracy = (long double) (fit->hi > fit->lo ? fit->hi - fit->lo :
			fit->lo - fit->hi);
	} else if (fit->has_lo || fit->has_hi) {
		slope = one_sided_slope(fit);
		segment->quality = VM_SYNC_INCOMPLETE;
		segment->accuracy = 0;
	} else {
		slope = fit->previous_slope;
		segment->quality = VM_SYNC_ABSENT;
		segment->accuracy = 0;
	}
	if (slope < MIN_SLOPE)
		slope = MIN_SLOPE;
	segment->formula.slope = (long double) slope;
	segment->formula.offset_ns = (long double) (fit->x0 - slope * (vm_sync_wide) fit->y0);
}

/* The largest amount (ns) by which the anchored line of slope p breaks a constraint. */
static vm_sync_wide worst_violations(const struct vm_sync_piecewise *pw, vm_sync_wide p,
		vm_sync_wide *by_lower, vm_sync_wide *by_upper)
{
	const struct anchored_fit *fit = &pw->fit;
	vm_sync_wide lower = -1e30, upper = -1e30;
	guint i;

	for (i = 0; i < pw->recent->len; i++) {
		const struct constraint *c = &g_array_index(pw->recent, struct constraint, i);
		vm_sync_wide mapped, v;

		if (c->other_ts <= fit->y0)
			continue;
		mapped = fit->x0 + p * (vm_sync_wide) ((uint64_t) c->other_ts - (uint64_t) fit->y0);
		v = c->sent_by_ref ? (vm_sync_wide) c->ref_ts - mapped :
			mapped - (vm_sync_wide) c->ref_ts;
		if (c->sent_by_ref && v > lower)
			lower = v;
		else if (!c->sent_by_ref && v > upper)
			upper = v;
	}
	*by_lower = lower;
	*by_upper = upper;
	return lower > upper ? lower : upper;
}

/*
 * The slope of an anchored segment, fixed once: the one that keeps every
 * constraint after the anchor as far inside as possible (the most that any
 * of them is broken by, as small as can be). Where the anchor itself is a
 * little off (the last line had drifted by the time it broke), this stays
 * sensible where the middle of an empty interval of slopes would not.
 * Lines broken by the receive-side constraints rise with the slope, the
 * others fall: the best slope is where the two worst ones meet.
 */
static void refine_anchored(struct vm_sync_piecewise *pw)
{
	struct anchored_fit *fit = &pw->fit;
	struct vm_sync_segment *segment = last_segment(pw);
	vm_sync_wide low, high, worst, by_lower, by_upper;
	int i;

	if (!fit->has_lo || !fit->has_hi)
		return;
	/* Clocks do not run 1% fast or slow: search around the last slope. */
	low = fit->previous_slope * (vm_sync_wide) 0.99;
	high = fit->previous_slope * (vm_sync_wide) 1.01;
	for (i = 0; i < 80; i++) {
		vm_sync_wide mid = (low + high) / 2;

		worst_violations(pw, mid, &by_lower, &by_upper);
		if (by_lower > by_upper)
			low = mid;
		else
			high = mid;
	}
	worst = worst_violations(pw, (low + high) / 2, &by_lower, &by_upper);
	segment->quality = worst <= 0 ? VM_SYNC_ACCURATE : VM_SYNC_FAIL;
	segment->formula.slope = (long double) ((low + high) / 2);
	segment->formula.offset_ns = (long double) (fit->x0 -
		(vm_sync_wide) segment->formula.slope * (vm_sync_wide) fit->y0);
}

static void update_open(struct vm_sync_piecewise *pw, const struct constraint *c)
{
	if (pw->hull)
		update_free(pw, c);
	else
		update_anchored(pw, c);
}

/*
 * The fixed map broke: a new segment from the horizon, continuous with the
 * last one when that one had constraints (else nothing ties them: a free
 * fit), shaped by every constraint known after the horizon.
 */
static void start_segment_at_horizon(struct vm_sync_piecewise *pw)
{
	const struct vm_sync_segment *previous = last_segment(pw);
	struct vm_sync_segment segment = { .begin = pw->horizon };
	guint i;

	if (previous->matches == 0) {
		start_free_segment(pw, pw->horizon);
	} else {
		pw->fit = (struct anchored_fit) {
			.y0 = pw->horizon,
			.x0 = map_wide(&previous->formula, pw->horizon),
			.previous_slope = (vm_sync_wide) previous->formula.slope,
		};
		segment.formula = previous->formula;
		segment.quality = VM_SYNC_ABSENT;
		vm_sync_hull_destroy(pw->hull);
		pw->hull = NULL;
		g_array_append_val(pw->segments, segment);
		pw->fixed = false;
	}
	for (i = 0; i < pw->recent->len; i++) {
		const struct constraint *c = &g_array_index(pw->recent, struct constraint, i);

		if (c->other_ts > pw->horizon)
			update_open(pw, c);
	}
}

void vm_sync_piecewise_add(struct vm_sync_piecewise *pw, bool sent_by_ref,
		int64_t ref_ts, int64_t other_ts)
{
	struct constraint c = { sent_by_ref, ref_ts, other_ts };
	bool after_horizon = !pw->has_horizon || other_ts > pw->horizon;

	if (after_horizon)
		g_array_append_val(pw->recent, c);
	if (!pw->fixed) {
		update_open(pw, &c);
		return;
	}
	if (!breaks(&last_segment(pw)->formula, &c)) {
		last_segment(pw)->matches++;
		return;
	}
	if (after_horizon)
		start_segment_at_horizon(pw);
	else
		pw->late++;
}

/* Drops the constraints at or before the horizon, amortized over commits. */
static void prune_recent(struct vm_sync_piecewise *pw)
{
	guint kept = 0;
	guint i;

	if (pw->recent->len < 2 * pw->recent_pruned_len + 64)
		return;
	for (i = 0; i < pw->recent->len; i++) {
		const struct constraint c = g_array_index(pw->recent, struct constraint, i);

		if (c.other_ts > pw->horizon)
			g_array_index(pw->recent, struct constraint, kept++) = c;
	}
	g_array_set_size(pw->recent, kept);
	pw->recent_pruned_len = kept;
}

void vm_sync_piecewise_commit(struct vm_sync_piecewise *pw, int64_t horizon)
{
	if (pw->has_horizon && horizon <= pw->horizon)
		return;
	pw->has_horizon = true;
	pw->horizon = horizon;
	if (!pw->fixed && horizon >= last_segment(pw)->begin) {
		if (!pw->hull)
			refine_anchored(pw);
		pw->fixed = true;
	}
	prune_recent(pw);
}

unsigned int vm_sync_piecewise_count(const struct vm_sync_piecewise *pw)
{
	return pw->segments->len;
}

const struct vm_sync_segment *vm_sync_piecewise_segment(const struct vm_sync_piecewise *pw,
		unsigned int index)
{
	if (index >= pw->segments->len)
		return NULL;
	return &g_array_index(pw->segments, struct vm_sync_segment, index);
}

const struct vm_sync_segment *vm_sync_piecewise_at(const struct vm_sync_piecewise *pw,
		int64_t t)
{
	guint low = 0;
	guint high = pw->segments->len - 1;

	/* The last segment that begins at or before t (the first begins at INT64_MIN). */
	while (low < high) {
		guint mid = low + (high - low + 1) / 2;

		if (g_array_index(pw->segments, struct vm_sync_segment, mid).begin <= t)
			low = mid;
		else
			high = mid - 1;
	}
	return &g_array_index(pw->segments, struct vm_sync_segment, low);
}

uint64_t vm_sync_piecewise_late_violations(const struct vm_sync_piecewise *pw)
{
	return pw->late;
}
