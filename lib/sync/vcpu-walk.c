/*
 * The piecewise fit of the synchronization from stock KVM events, for a
 * guest clock that one line does not follow (NTP slews it: its rate
 * changes every few seconds).
 *
 * The fit of vcpu-fit.c grows one window around the anchor under one
 * line; here the trace is walked outward from the anchor instead, one
 * short stretch of host time after the other, each attributed under the
 * line of the run behind it (the constraints since the rate last changed,
 * as far as they tell), with a tolerance that covers how loosely that run
 * bounds its line there and a change of rate since: every attribution
 * stays right, so every constraint holds, whatever the rate does over the
 * whole trace. The constraints walked then give a piecewise map
 * (segments.c, the windowing vmsync's matches get), the whole trace is
 * attributed again under it, with a tighter tolerance each time, and the
 * constraints of the last pass make the map the caller checks.
 */

#include <math.h>

#include "sync/vcpu-align-private.h"
#include "util/time-span.h"

/* Host time attributed per step of the walk. */
#define STEP_NS INT64_C(5000000)
/* A clock's rate changes by at most 1 / RATE_CHANGE_DIVISOR (200 ppm). */
#define RATE_CHANGE_DIVISOR 5000

/*
 * The tolerances of the attributions of the whole trace after the walk,
 * each under the map of the one before: the walk's map may be off by a few
 * microseconds where the rate changed, the last one is the fitted
 * tolerance.
 */
static const int64_t refinements[] = { 4 * VM_VCPU_FITTED_TOLERANCE_NS,
	VM_VCPU_FITTED_TOLERANCE_NS };

/* The first stretch of host time walked, and the constraints found in it. */
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
		if (quality == VM_SYNC_ACCURATE && constraints->len >= VM_VCPU_MIN_CONSTRAINTS) {
			return stretch_new(low, high, constraints);
		}
		g_array_free(constraints, TRUE);
		if (quality == VM_SYNC_FAIL || (low <= record_from && high >= record_to) ||
				window > INT64_MAX / 4) {
			return NULL;
		}
		window *= 4;
	}
}

/*
 * One direction of the walk. Its run is the hull of the constraints walked
 * since the clock last changed rate as far as they tell (a rate change
 * shows when they fit no line any more): the longer the run, the better
 * its line carries the walk over the next stretch. Walking back in time,
 * the run holds the constraints mirrored (times negated, each bounding the
 * other side), so that it takes them in its time order too.
 */
struct side {
	bool forward;
	struct vm_sync_hull *run;
	int64_t last;             /* host time of the last constraint it took */
	/* The line in use: of a run that bounded one, when it was taken. */
	struct vm_sync_formula line;
	struct vm_sync_hull *guide;   /* a copy of that run */
	int64_t line_at;
	GArray *all;              /* every constraint walked, any order */
};

/* Adds `constraints` (host order) to the run, in its time order. */
static void run_add(struct side *side, const GArray *constraints)
{
	for (guint n = 0; n < constraints->len; n++) {
		const struct vm_vcpu_constraint *c = &g_array_index(constraints,
			struct vm_vcpu_constraint, side->forward ? n : constraints->len - 1 - n);
		int64_t at = vm_vcpu_constraint_host_time(c);

		/*
		 * An interval across two stretches gives the next one a
		 * constraint a little before the last one added: the hull takes
		 * points in order only.
		 */
		if (side->forward ? at < side->last : at > side->last) {
			continue;
		}
		side->last = at;
		if (side->forward) {
			vm_sync_hull_add_match(side->run, c->host_to_guest, c->send, c->recv);
		} else {
			/* Mirrored, an entry's bound holds from the other side. */
			vm_sync_hull_add_match(side->run, !c->host_to_guest, -c->recv, -c->send);
		}
	}
}

/* A run of `constraints` alone. */
static void run_start(struct side *side, const GArray *constraints)
{
	vm_sync_hull_destroy(side->run);
	side->run = vm_sync_hull_create();
	side->last = side->forward ? INT64_MIN : INT64_MAX;
	run_add(side, constraints);
}

/*
 * What a line may be off by at host time `at`: how far apart the lines its
 * run allows are there (how loosely its constraints bound it, widened by
 * its slope's freedom beyond them), and a change of rate since it was
 * taken (and over the stretch, and the one before, whose change the run
 * may not show yet).
 */
static int64_t tolerance_at(const struct side *side, const struct vm_sync_hull *guide,
		int64_t line_at, int64_t at)
{
	int64_t since = side->forward ? vm_time_span(at, line_at) : vm_time_span(line_at, at);

	return VM_VCPU_FITTED_TOLERANCE_NS +
		(int64_t) vm_sync_hull_width_at(guide, side->forward ? at : -at) +
		(since + 2 * STEP_NS) / RATE_CHANGE_DIVISOR;
}

/*
 * Takes the run's line for the stretch after `edge` when it bounds one
 * and promises a smaller tolerance there than the line in use: a run just
 * begun (after a change of rate) bounds its line loosely, and until it has
 * grown, the line of the run before, whose rate changed by little, carries
 * the walk better. A slope that far from the line in use is no change of
 * rate a clock makes: that run is not taken. False when the run fits no
 * line.
 */
static bool run_line(struct side *side, int64_t edge, bool first)
{
	enum vm_sync_quality quality = vm_sync_hull_quality(side->run);
	int64_t next = vm_time_sum(edge, side->forward ? STEP_NS : -STEP_NS);
	struct vm_sync_formula line;

	if (quality == VM_SYNC_FAIL) {
		return false;
	}
	if (quality != VM_SYNC_ACCURATE) {
		return true;
	}
	line = vm_sync_hull_formula(side->run);
	/* Mirrored back: t_ref = s t + o there is t_ref = s t - o here. */
	if (!side->forward) {
		line.offset_ns = -line.offset_ns;
	}
	if (!first && (tolerance_at(side, side->run, edge, next) >
			tolerance_at(side, side->guide, side->line_at, next) ||
			fabsl(line.slope - side->line.slope) > 1.0L / RATE_CHANGE_DIVISOR)) {
		return true;
	}
	side->line = line;
	vm_sync_hull_destroy(side->guide);
	side->guide = vm_sync_hull_copy(side->run);
	side->line_at = edge;
	return true;
}

/*
 * Walks from the seed to the end of the host's record in one direction.
 * False when a stretch contradicts itself: its attribution was wrong.
 */
static bool walk_side(const struct vm_vcpu_pairing *pairing, struct side *side,
		const struct stretch *first, int64_t record_from, int64_t record_to)
{
	int64_t edge = side->forward ? first->high : first->low;

	run_start(side, first->constraints);
	if (!run_line(side, edge, true) ||
			vm_sync_hull_quality(side->run) != VM_SYNC_ACCURATE) {
		return false;
	}
	while (side->forward ? edge < record_to : edge > record_from) {
		int64_t next = vm_time_sum(edge, side->forward ? STEP_NS : -STEP_NS);
		GArray *found = attribute_line(pairing, &side->line,
			tolerance_at(side, side->guide, side->line_at, next),
			side->forward ? edge : next, side->forward ? next : edge);

		run_add(side, found);
		/* A change of rate: a new run, from this stretch. */
		if (vm_sync_hull_quality(side->run) == VM_SYNC_FAIL) {
			run_start(side, found);
		}
		g_array_append_vals(side->all, found->data, found->len);
		g_array_free(found, TRUE);
		edge = next;
		if (!run_line(side, edge, false)) {
			return false;
		}
	}
	return true;
}

/*
 * The constraints of the whole trace under the piecewise map of
 * `constraints`, within `tolerance`.
 */
static GArray *attribute_under(const struct vm_vcpu_pairing *pairing,
		const GArray *constraints, int64_t tolerance)
{
	struct vm_sync_segments *segments = vm_vcpu_segments_of(constraints);
	unsigned int count;
	const struct vm_sync_segment *map = vm_sync_segments_map(segments, &count);
	struct vm_vcpu_map prepared;
	GArray *result;

	vm_vcpu_map_init_segments(&prepared, map, count);
	result = vm_vcpu_attribute(pairing, &prepared, tolerance, INT64_MIN / 2,
		INT64_MAX / 2);
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
	struct side ahead = { .forward = true }, behind = { .forward = false };
	bool walked_through;

	host_record(pairing, &record_from, &record_to);
	first = seed(pairing, coarse, record_from, record_to);
	if (!first) {
		return false;
	}
	ahead.all = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));
	behind.all = ahead.all;
	g_array_append_vals(ahead.all, first->constraints->data, first->constraints->len);
	walked_through = walk_side(pairing, &ahead, first, record_from, record_to) &&
		walk_side(pairing, &behind, first, record_from, record_to);
	vm_sync_hull_destroy(ahead.run);
	vm_sync_hull_destroy(behind.run);
	vm_sync_hull_destroy(ahead.guide);
	vm_sync_hull_destroy(behind.guide);
	stretch_free(first);
	if (!walked_through) {
		g_array_free(ahead.all, TRUE);
		return false;
	}
	vm_vcpu_sort_constraints(ahead.all);
	*constraints = ahead.all;
	for (guint i = 0; i < G_N_ELEMENTS(refinements); i++) {
		GArray *better = attribute_under(pairing, *constraints, refinements[i]);

		g_array_free(*constraints, TRUE);
		*constraints = better;
	}
	fit->constraints = (*constraints)->len;
	return (*constraints)->len >= VM_VCPU_MIN_CONSTRAINTS;
}
