/*
 * The piecewise map of a pair read whole: see segments.h.
 */

#include <glib.h>
#include <math.h>

#include "sync/hull.h"
#include "sync/prepared.h"
#include "sync/segments.h"
#include "sync/wide.h"

/* A closed (or the open) window: its fit and the times of its matches. */
struct window {
	struct vm_sync_formula formula;   /* other -> ref */
	enum vm_sync_quality quality;
	long double accuracy;
	uint64_t matches;
	uint64_t sent_by_ref;             /* of those, messages from the ref side */
	int64_t first_other;              /* other-clock span of its matches */
	int64_t last_other;
};

struct vm_sync_segments {
	GArray *windows;             /* struct window, the closed ones */
	struct vm_sync_hull *hull;   /* the open window's */
	struct window open;
	GArray *map;                 /* struct vm_sync_segment, built on demand */
	bool map_valid;
	/* The hull's fit count when `open` last took its fit (UINT64_MAX: never). */
	uint64_t open_fit_count;
	struct vm_sync_prepared open_prepared;   /* open.formula, prepared */
};

static void open_window(struct vm_sync_segments *segments)
{
	vm_sync_hull_destroy(segments->hull);
	segments->hull = vm_sync_hull_create();
	segments->open = (struct window) {
		.formula = vm_sync_formula_identity(),
		.quality = VM_SYNC_ABSENT,
	};
	segments->open_fit_count = UINT64_MAX;
	vm_sync_formula_prepare(&segments->open.formula, &segments->open_prepared);
}

struct vm_sync_segments *vm_sync_segments_create(void)
{
	struct vm_sync_segments *segments = g_new0(struct vm_sync_segments, 1);

	segments->windows = g_array_new(FALSE, FALSE, sizeof(struct window));
	segments->map = g_array_new(FALSE, FALSE, sizeof(struct vm_sync_segment));
	open_window(segments);
	return segments;
}

void vm_sync_segments_destroy(struct vm_sync_segments *segments)
{
	if (!segments) {
		return;
	}
	vm_sync_hull_destroy(segments->hull);
	g_array_free(segments->windows, TRUE);
	g_array_free(segments->map, TRUE);
	g_free(segments);
}

static void add_to_hull(struct vm_sync_hull *hull, bool sent_by_ref, int64_t ref_ts,
		int64_t other_ts)
{
	/* Trace Compass's points: (send, receive) of the sending side first. */
	if (sent_by_ref) {
		vm_sync_hull_add_match(hull, true, ref_ts, other_ts);
	} else {
		vm_sync_hull_add_match(hull, false, other_ts, ref_ts);
	}
}

static vm_sync_wide map_wide(const struct vm_sync_formula *formula, vm_sync_wide t)
{
	return (vm_sync_wide) formula->slope * t + (vm_sync_wide) formula->offset_ns;
}

/*
 * Whether the fit keeps the match on its side, decided in fixed point by
 * the open window's prepared fit when it can (almost always): the wide
 * evaluation below costs a dozen software binary128 operations.
 */
static bool surely_kept(const struct vm_sync_segments *segments, bool sent_by_ref,
		int64_t ref_ts, int64_t other_ts)
{
	int sign;

	if (!vm_sync_prepared_side(&segments->open_prepared, other_ts, ref_ts, &sign)) {
		return false;
	}

	return sent_by_ref ? sign > 0 : sign < 0;
}

/*
 * Whether the open window's lines cannot take this match: its hulls would
 * cross. The current fit lies between the window's extreme lines, so a
 * match it keeps on the right side leaves a line that fits; only the
 * others are tried, on a copy.
 */
static bool would_cross(const struct vm_sync_segments *segments, bool sent_by_ref,
		int64_t ref_ts, int64_t other_ts)
{
	vm_sync_wide mapped;
	struct vm_sync_hull *trial;
	bool crossed;

	if (segments->open.quality == VM_SYNC_FAIL ||
			surely_kept(segments, sent_by_ref, ref_ts, other_ts)) {
		return false;
	}
	mapped = map_wide(&segments->open.formula, (vm_sync_wide) other_ts);
	if ((sent_by_ref ? mapped >= (vm_sync_wide) ref_ts :
				mapped <= (vm_sync_wide) ref_ts)) {
		return false;
	}
	trial = vm_sync_hull_copy(segments->hull);
	add_to_hull(trial, sent_by_ref, ref_ts, other_ts);
	crossed = vm_sync_hull_quality(trial) == VM_SYNC_FAIL;
	vm_sync_hull_destroy(trial);
	return crossed;
}

void vm_sync_segments_add(struct vm_sync_segments *segments, bool sent_by_ref,
		int64_t ref_ts, int64_t other_ts)
{
	struct window *open = &segments->open;

	if (open->matches > 0 && would_cross(segments, sent_by_ref, ref_ts, other_ts)) {
		g_array_append_val(segments->windows, *open);
		open_window(segments);
	}
	add_to_hull(segments->hull, sent_by_ref, ref_ts, other_ts);
	/* Most matches leave the fit as it was: its wide divisions are skipped then. */
	if (vm_sync_hull_fit_count(segments->hull) != segments->open_fit_count) {
		open->formula = vm_sync_hull_formula(segments->hull);
		open->accuracy = vm_sync_hull_accuracy(segments->hull);
		segments->open_fit_count = vm_sync_hull_fit_count(segments->hull);
		vm_sync_formula_prepare(&open->formula, &segments->open_prepared);
	}
	open->quality = vm_sync_hull_quality(segments->hull);
	if (open->matches == 0 || other_ts < open->first_other) {
		open->first_other = other_ts;
	}
	if (open->matches == 0 || other_ts > open->last_other) {
		open->last_other = other_ts;
	}
	open->matches = vm_sync_hull_matches(segments->hull);
	open->sent_by_ref += sent_by_ref;
	segments->map_valid = false;
}

void vm_sync_segments_open_fit(const struct vm_sync_segments *segments,
		struct vm_sync_segment *fit, uint64_t *sent_by_ref, uint64_t *sent_by_other)
{
	const struct window *open = &segments->open;

	*fit = (struct vm_sync_segment) {
		.begin = open->first_other,
		.formula = open->formula,
		.quality = open->quality,
		.accuracy = open->accuracy,
		.matches = open->matches,
	};
	*sent_by_ref = open->sent_by_ref;
	*sent_by_other = open->matches - open->sent_by_ref;
}

long double vm_sync_segments_open_width_at(const struct vm_sync_segments *segments, int64_t t)
{
	const struct window *open = &segments->open;
	int64_t ref;

	if (open->quality != VM_SYNC_ACCURATE) {
		return INFINITY;
	}
	/* The hull's x axis is the ref clock: where the fit puts t. */
	ref = vm_sync_formula_apply(&open->formula, t);
	return vm_sync_hull_width_at(segments->hull, ref);
}

unsigned int vm_sync_segments_window_count(const struct vm_sync_segments *segments)
{
	return segments->windows->len + 1;
}

static const struct window *window_at(const struct vm_sync_segments *segments, guint i)
{
	return i < segments->windows->len ?
		&g_array_index(segments->windows, struct window, i) : &segments->open;
}

static void append_segment(GArray *map, vm_sync_wide begin, const struct vm_sync_formula *formula,
		enum vm_sync_quality quality, long double accuracy, uint64_t matches)
{
	struct vm_sync_segment segment = {
		.begin = map->len == 0 ? INT64_MIN : (int64_t) begin,
		.formula = *formula,
		.quality = quality,
		.accuracy = accuracy,
		.matches = matches,
	};

	g_array_append_val(map, segment);
}

/* The line through (x1, y1) and (x2, y2). */
static struct vm_sync_formula line_through(vm_sync_wide x1, vm_sync_wide y1, vm_sync_wide x2,
		vm_sync_wide y2)
{
	vm_sync_wide slope = (y2 - y1) / (x2 - x1);

	return (struct vm_sync_formula) {
		.slope = (long double) slope,
		.offset_ns = (long double) (y1 - slope * x1),
	};
}

static enum vm_sync_quality worse(enum vm_sync_quality a, enum vm_sync_quality b)
{
	/* Accurate is the best; anything else tells less. */
	return a == VM_SYNC_ACCURATE ? b : a;
}

/*
 * Where windows `a` and `b` (next to each other) meet: from `*from` (the
 * first time the map has not covered yet, after `a`'s start) appends `b`'s
 * line, through a bridge when their lines do not cross near their border.
 */
static void join(GArray *map, const struct window *a, const struct window *b,
		vm_sync_wide lower, vm_sync_wide upper)
{
	/* The border: between the last match of one and the first of the next. */
	vm_sync_wide border = ((vm_sync_wide) a->last_other + (vm_sync_wide) b->first_other) / 2;
	vm_sync_wide gap = map_wide(&b->formula, border) - map_wide(&a->formula, border);
	vm_sync_wide slopes = (vm_sync_wide) b->formula.slope - (vm_sync_wide) a->formula.slope;
	vm_sync_wide half = (gap < 0 ? -gap : gap) / (vm_sync_wide) VM_SYNC_SEGMENTS_BRIDGE_SLOPE / 2;
	vm_sync_wide p1, p2;

	if (border <= lower + 1 || upper <= border + 1) {
		/* Windows whose matches overlap in time: no room for a bridge. */
		border = border <= lower + 1 ? lower + 1 : border;
		append_segment(map, border, &b->formula, b->quality, b->accuracy, b->matches);
		return;
	}

	if (slopes != 0) {
		vm_sync_wide cross = ((vm_sync_wide) a->formula.offset_ns -
			(vm_sync_wide) b->formula.offset_ns) / slopes;

		if (cross > lower && cross < upper && (cross - border) * (cross - border) <=
				half * half) {
			append_segment(map, cross, &b->formula, b->quality, b->accuracy, b->matches);
			return;
		}
	}
	/* A bridge from a's line to b's, inside both windows' share of time. */
	half = half < 1 ? 1 : half;
	p1 = border - half > lower ? border - half : lower + (border - lower) / 2;
	p2 = border + half < upper ? border + half : border + (upper - border) / 2;
	if (p2 - p1 < 2) {
		append_segment(map, border, &b->formula, b->quality, b->accuracy, b->matches);
		return;
	}
	struct vm_sync_formula bridge = line_through(p1, map_wide(&a->formula, p1), p2,
		map_wide(&b->formula, p2));

	append_segment(map, p1, &bridge, worse(a->quality, b->quality),
		a->accuracy > b->accuracy ? a->accuracy : b->accuracy, 0);
	append_segment(map, p2, &b->formula, b->quality, b->accuracy, b->matches);
}

/*
 * Whether a window's line may be part of the map: its matches bound it both
 * ways (a window of a match or two, or of one direction only, has a line
 * nothing pins down, an identity placeholder at worst), tightly enough that
 * its slope is known within what a bridge may bend (a window of loose
 * bounds is off by microseconds at its ends), and its slope is one a clock
 * can have.
 */
static bool adoptable(const struct window *w)
{
	return w->quality == VM_SYNC_ACCURATE && vm_sync_slope_plausible(w->formula.slope) &&
		w->accuracy <= (long double) VM_SYNC_SEGMENTS_BRIDGE_SLOPE;
}

static bool any_adoptable(const struct vm_sync_segments *segments)
{
	for (guint i = 0; i <= segments->windows->len; i++) {
		if (adoptable(window_at(segments, i)))
			return true;
	}
	return false;
}

/*
 * The windows' lines, joined. A window that is not adoptable gets no line
 * of its own when another is: its time follows its neighbours' lines (the
 * one before it, extended, or the bridge to the next), never a line its
 * matches do not determine.
 */
static void build_map(struct vm_sync_segments *segments)
{
	guint count = segments->windows->len + 1;
	bool choosy = any_adoptable(segments);
	const struct window *a = NULL;

	g_array_set_size(segments->map, 0);
	for (guint i = 0; i < count; i++) {
		const struct window *b = window_at(segments, i);
		const struct vm_sync_segment *last;
		vm_sync_wide lower;

		if (choosy && !adoptable(b))
			continue;
		if (!a) {
			append_segment(segments->map, 0, &b->formula, b->quality, b->accuracy,
				b->matches);
			a = b;
			continue;
		}
		last = &g_array_index(segments->map, struct vm_sync_segment,
			segments->map->len - 1);
		/* A bridge stays after what the map already covers, before b's end. */
		lower = last->begin == INT64_MIN ? (vm_sync_wide) a->first_other :
			(vm_sync_wide) last->begin;
		join(segments->map, a, b, lower, (vm_sync_wide) b->last_other);
		a = b;
	}
	segments->map_valid = true;
}

const struct vm_sync_segment *vm_sync_segments_map(struct vm_sync_segments *segments,
		unsigned int *count)
{
	if (!segments->map_valid) {
		build_map(segments);
	}
	*count = segments->map->len;
	return &g_array_index(segments->map, struct vm_sync_segment, 0);
}
