/*
 * The synchronization from stock KVM events, once the data is in: for each
 * guest and each host process with vCPU threads (a candidate QEMU), the
 * offset near one anchor (vcpu-coarse.c), then the fit: each guest event
 * is attributed to the guest-mode interval of its vCPU that holds it under
 * the current map, the first and last events of each interval bound the
 * map from both sides (entry < f(first), f(last) < exit), and the convex
 * hulls of those constraints give a better map, over a window of host time
 * that grows until it covers the whole guest trace (vcpu-attribute.c
 * attributes). With the piecewise model, a guest that no anchor fits with
 * one line is walked from each anchor instead (vcpu-walk.c), and its map is
 * the piecewise one its constraints give. The map is adopted only when
 * almost no guest event falls outside guest mode under it (the piecewise
 * map as a whole), and only when one process, with one offset, fits:
 * otherwise the guest is reported as ambiguous or unmatched, never
 * synchronized wrongly.
 */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "sync/vcpu-align-private.h"
#include "util/time-span.h"

/* A guest with fewer events on the CPUs a process shares cannot be told. */
#define MIN_EVENTS 100
/* Anchors tried per pairing before giving up. */
#define MAX_ATTEMPTS 6
/*
 * A window of a piecewise map whose clock runs further than this off the
 * host's comes from wrong attributions (the offset search assumes 200 ppm
 * at most, NTP slews by up to 500).
 */
#define MAX_WINDOW_DRIFT 1e-3L
/* Rounds over the whole trace, each within what the last one's map allows. */
#define MAX_FINAL_ROUNDS 4
/* Guest events outside guest mode allowed: 1 per OUTSIDE_DIVISOR, plus 2. */
#define OUTSIDE_DIVISOR 1000

/* What trying one process for one guest gave. */
struct candidate_result {
	enum vm_coarse_status status;   /* FOUND: `fit` is adopted for it */
	bool loose;                     /* FOUND: but its bound exceeds the promise */
	struct vm_vcpu_fit fit;
	GArray *constraints;            /* struct vm_vcpu_constraint, FOUND only */
};

/* The hull of `constraints`: host is its ref side, the guest the other. */
static struct vm_sync_hull *hull_of(const GArray *constraints)
{
	struct vm_sync_hull *hull = vm_sync_hull_create();

	vm_vcpu_hull_add(hull, constraints);
	return hull;
}

/* The constraints of host window [low, high], widened by the tolerance. */
static GArray *attribute(const struct vm_vcpu_pairing *pairing,
		const struct vm_sync_formula *formula, int64_t tolerance, int64_t low,
		int64_t high)
{
	struct vm_vcpu_map map;
	GArray *constraints;

	vm_vcpu_map_init_line(&map, formula);
	constraints = vm_vcpu_attribute(pairing, &map, tolerance,
		vm_time_sum(low, -tolerance), vm_time_sum(high, tolerance));
	vm_vcpu_map_fini(&map);
	return constraints;
}

/* Host time of the guest's first and last event under `formula`. */
static void guest_span(const struct vm_vcpu_pairing *pairing,
		const struct vm_sync_formula *formula, int64_t *first, int64_t *last)
{
	*first = INT64_MAX;
	*last = INT64_MIN;
	for (guint c = 0; c < pairing->cpus->len; c++) {
		const GArray *events = g_ptr_array_index(pairing->events, c);

		*first = MIN(*first, vm_sync_formula_apply(formula,
			g_array_index(events, int64_t, 0)));
		*last = MAX(*last, vm_sync_formula_apply(formula,
			g_array_index(events, int64_t, events->len - 1)));
	}
}

enum window_fit {
	WINDOW_FITTED,
	WINDOW_TOO_FEW,         /* too few constraints yet: look wider */
	WINDOW_CONTRADICTED,    /* hulls crossed: the alignment was wrong */
};

/*
 * One round of the fit over a window: the constraints under `formula`, and
 * the map their hulls give (kept when they bound it from both sides).
 */
static enum window_fit fit_window(const struct vm_vcpu_pairing *pairing,
		struct vm_sync_formula *formula, int64_t *tolerance, int64_t low,
		int64_t high, GArray **constraints_out, struct vm_vcpu_fit *fit)
{
	GArray *constraints = attribute(pairing, formula, *tolerance, low, high);
	struct vm_sync_hull *hull = hull_of(constraints);
	enum vm_sync_quality quality = vm_sync_hull_quality(hull);
	enum window_fit result = quality == VM_SYNC_FAIL ? WINDOW_CONTRADICTED :
		constraints->len < VM_VCPU_MIN_CONSTRAINTS ? WINDOW_TOO_FEW : WINDOW_FITTED;

	if (result == WINDOW_FITTED &&
			(quality == VM_SYNC_ACCURATE || quality == VM_SYNC_APPROXIMATE)) {
		long double slope_range = vm_sync_hull_accuracy(hull);

		*formula = vm_sync_hull_formula(hull);
		fit->quality = quality;
		fit->accuracy = slope_range;
		/* What the slope's freedom allows at the next window's edges. */
		*tolerance = VM_VCPU_FITTED_TOLERANCE_NS +
			(int64_t) (slope_range * 4.0L * (long double) (high - low));
	}
	fit->constraints = constraints->len;
	vm_sync_hull_destroy(hull);
	if (result == WINDOW_FITTED && constraints_out) {
		*constraints_out = constraints;
	} else {
		g_array_free(constraints, TRUE);
	}
	return result;
}

static void free_array(GArray **array)
{
	if (*array) {
		g_array_free(*array, TRUE);
	}
	*array = NULL;
}

/*
 * From the offset found near the anchor to a map of the whole trace. False
 * when a window's constraints contradict each other, or the whole trace
 * gives too few.
 */
static bool refine(const struct vm_vcpu_pairing *pairing,
		const struct vm_coarse_offset *coarse, struct vm_vcpu_fit *fit,
		GArray **constraints)
{
	struct vm_sync_formula formula = { 1.0L,
		(long double) coarse->offset_low +
			(long double) (coarse->offset_high - coarse->offset_low) / 2 };
	int64_t tolerance = VM_VCPU_FITTED_TOLERANCE_NS +
		(coarse->offset_high - coarse->offset_low) / 2;
	int64_t window = coarse->window;
	int64_t first, last, previous = INT64_MAX;
	GArray *kept = NULL;

	fit->quality = VM_SYNC_INCOMPLETE;
	for (;;) {
		int64_t low = vm_time_sum(coarse->anchor, -window);
		int64_t high = vm_time_sum(coarse->anchor, window);
		GArray *round = NULL;

		if (fit_window(pairing, &formula, &tolerance, low, high, &round, fit) ==
				WINDOW_CONTRADICTED) {
			free_array(&kept);
			return false;
		}
		if (round) {
			free_array(&kept);
			kept = round;
		}
		guest_span(pairing, &formula, &first, &last);
		if (low <= first && high >= last) {
			break;
		}
		window = window > INT64_MAX / 4 ? INT64_MAX : window * 4;
	}
	/*
	 * The whole trace, under the map of the whole trace: each round
	 * attributes within what the last one's map may be off by, from its
	 * constraints alone (at least 1 us), while that narrows. Within 1 us
	 * of a line its constraints left a few us loose, events went to wrong
	 * intervals, and their constraints then held the map there.
	 */
	for (int round = 0; round < MAX_FINAL_ROUNDS; round++) {
		int64_t median = 0, largest = 0, scratch;
		GArray *next = NULL;

		if (kept) {
			vm_vcpu_error_bound(kept, &formula, first, last, &median, &largest);
		}
		tolerance = MAX(VM_VCPU_FITTED_TOLERANCE_NS, largest);
		if (round > 0 && tolerance >= previous) {
			break;
		}
		previous = tolerance;
		scratch = tolerance;
		if (fit_window(pairing, &formula, &scratch, INT64_MIN / 2, INT64_MAX / 2,
				&next, fit) != WINDOW_FITTED) {
			free_array(&kept);
			return false;
		}
		free_array(&kept);
		kept = next;
		guest_span(pairing, &formula, &first, &last);
	}
	*constraints = kept;
	fit->formula = formula;
	return true;
}

/*
 * The constraints that line `formula` keeps. A window of a piecewise map
 * lets through a few that its line breaks by tens of ns (the clock's rate
 * changed within it): no line keeps them all, and its bound is taken from
 * those its line keeps.
 */
static GArray *kept_by(const GArray *constraints, const struct vm_sync_formula *formula)
{
	struct vm_sync_formula inverse = vm_sync_formula_invert(formula);
	GArray *kept = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));

	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *c =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);
		int64_t y = vm_sync_formula_apply(&inverse, vm_vcpu_constraint_host_time(c));

		if (c->host_to_guest ? c->recv >= y : c->send <= y) {
			g_array_append_val(kept, *c);
		}
	}
	return kept;
}

/*
 * Where each window of the piecewise map of `constraints` begins: indexes
 * into them, fed in order as vm_vcpu_segments_of() feeds them, plus their
 * count at the end.
 */
static GArray *window_starts(const GArray *constraints)
{
	struct vm_sync_segments *segments = vm_sync_segments_create();
	GArray *starts = g_array_new(FALSE, FALSE, sizeof(guint));
	unsigned int windows = 0;

	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *c =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);

		vm_sync_segments_add(segments, c->host_to_guest, vm_vcpu_constraint_host_time(c),
			c->host_to_guest ? c->recv : c->send);
		if (vm_sync_segments_window_count(segments) != windows) {
			windows = vm_sync_segments_window_count(segments);
			g_array_append_val(starts, i);
		}
	}
	g_array_append_val(starts, constraints->len);
	vm_sync_segments_destroy(segments);
	return starts;
}

/*
 * What the line of `segment`, over guest times [begin, end), may be off by
 * from its window's own constraints `own`: at least what `fit` holds.
 */
static void bound_window(const struct vm_vcpu_pairing *pairing, const GArray *window,
		const struct vm_sync_segment *segment, int64_t end, struct vm_vcpu_fit *fit)
{
	GArray *own = kept_by(window, &segment->formula);
	int64_t first, last, median, largest;

	guest_span(pairing, &segment->formula, &first, &last);
	if (segment->begin != INT64_MIN) {
		first = MAX(first, vm_sync_formula_apply(&segment->formula, segment->begin));
	}
	if (end != INT64_MAX) {
		last = MIN(last, vm_sync_formula_apply(&segment->formula, end));
	}
	if (first < last) {
		vm_vcpu_error_bound(own, &segment->formula, first, last, &median, &largest);
		fit->bound_median_ns = MAX(fit->bound_median_ns, median);
		fit->bound_largest_ns = MAX(fit->bound_largest_ns, largest);
	}
	g_array_free(own, TRUE);
}

/*
 * What each window of a piecewise map may be off by, from its own
 * constraints (the bridges between them join lines so bounded). A window
 * that gave the map no line (vm_sync_segments_map()) is skipped: its
 * segment is the one with its match count.
 */
static void bound_windows(const struct vm_vcpu_pairing *pairing, const GArray *constraints,
		const struct vm_sync_segment *map, unsigned int count, struct vm_vcpu_fit *fit)
{
	GArray *starts = window_starts(constraints);
	guint w = 0;

	for (unsigned int i = 0; i < count; i++) {
		if (map[i].matches == 0) {
			continue;
		}
		while (w + 1 < starts->len && g_array_index(starts, guint, w + 1) -
				g_array_index(starts, guint, w) != map[i].matches) {
			w++;
		}
		if (w + 1 >= starts->len) {
			break;
		}
		{
			guint from = g_array_index(starts, guint, w);
			GArray *own = g_array_sized_new(FALSE, FALSE,
				sizeof(struct vm_vcpu_constraint), (guint) map[i].matches);

			g_array_append_vals(own, &g_array_index(constraints,
				struct vm_vcpu_constraint, from), (guint) map[i].matches);
			bound_window(pairing, own, &map[i],
				i + 1 < count ? map[i + 1].begin : INT64_MAX, fit);
			g_array_free(own, TRUE);
		}
		w++;
	}
	g_array_free(starts, TRUE);
}

/* Whether `map` leaves almost every guest event in guest mode. */
static bool few_outside(const struct vm_vcpu_pairing *pairing, struct vm_vcpu_map *map,
		struct vm_vcpu_fit *fit)
{
	fit->outside = vm_vcpu_count_outside(pairing, map, &fit->events);
	return fit->quality != VM_SYNC_INCOMPLETE && fit->events >= MIN_EVENTS &&
		fit->outside <= fit->events / OUTSIDE_DIVISOR + 2;
}

/* Whether the one line of `fit` leaves almost every guest event in guest mode. */
static bool verified(const struct vm_vcpu_pairing *pairing, struct vm_vcpu_fit *fit)
{
	fit->bound_median_ns = 0;
	fit->bound_largest_ns = 0;
	struct vm_vcpu_map map;
	bool ok;

	vm_vcpu_map_init_line(&map, &fit->formula);
	ok = few_outside(pairing, &map, fit);
	vm_vcpu_map_fini(&map);
	fit->segments = 1;
	return ok;
}

/*
 * Whether a piecewise map can be trusted at all: each window's line bound
 * from both sides by enough constraints (a window of a few is what a wrong
 * attribution makes), and the whole map continuous and increasing.
 */
static bool sound(const struct vm_sync_segment *map, unsigned int count,
		struct vm_vcpu_fit *fit)
{
	fit->quality = map[0].quality;
	fit->accuracy = 0;
	for (unsigned int i = 0; i < count; i++) {
		const struct vm_sync_segment *segment = &map[i];

		if (segment->formula.slope <= 0) {
			return false;
		}
		if (i > 0 && llabs(vm_time_span(
				vm_sync_formula_apply(&segment->formula, segment->begin),
				vm_sync_formula_apply(&map[i - 1].formula, segment->begin))) > 1) {
			return false;
		}
		/* Bridges (no match of their own) join two windows. */
		if (segment->matches == 0) {
			continue;
		}
		/* One window is judged as one line is. */
		if (segment->matches < VM_VCPU_MIN_CONSTRAINTS || (count > 1 &&
				(segment->quality != VM_SYNC_ACCURATE ||
					segment->accuracy > VM_SYNC_SEGMENTS_BRIDGE_SLOPE ||
					fabsl(segment->formula.slope - 1) > MAX_WINDOW_DRIFT))) {
			return false;
		}
		fit->accuracy = MAX(fit->accuracy, segment->accuracy);
	}
	return true;
}

/*
 * Whether the piecewise map that `constraints` give (what the sync
 * library builds when they are fed to it) is sound and leaves almost
 * every guest event in guest mode. `fit` then describes it: the formula
 * of its first segment, the largest accuracy of its windows.
 */
static bool verified_piecewise(const struct vm_vcpu_pairing *pairing,
		const GArray *constraints, struct vm_vcpu_fit *fit)
{
	struct vm_sync_segments *segments = vm_vcpu_segments_of(constraints);
	unsigned int count;
	const struct vm_sync_segment *map = vm_sync_segments_map(segments, &count);
	bool ok = sound(map, count, fit);


	fit->formula = map[0].formula;
	fit->segments = count;
	fit->constraints = constraints->len;
	fit->bound_median_ns = 0;
	fit->bound_largest_ns = 0;
	if (ok && count > 1) {
		bound_windows(pairing, constraints, map, count, fit);
	}
	if (ok) {
		struct vm_vcpu_map prepared;

		vm_vcpu_map_init_segments(&prepared, map, count);
		ok = few_outside(pairing, &prepared, fit);
		vm_vcpu_map_fini(&prepared);
	}
	vm_sync_segments_destroy(segments);
	return ok;
}

/*
 * One anchor's fit with one line. With the piecewise model too, the map
 * verified is the one its constraints give (what is fed to the sync
 * library): one window, that same line, when one line fits them all.
 * `*constraints` gets what the fit rests on, even when it is not adopted
 * (NULL when none).
 */
static bool fit_line(const struct vm_vcpu_pairing *pairing,
		const struct vm_coarse_offset *coarse, bool piecewise, struct vm_vcpu_fit *fit,
		GArray **constraints)
{
	if (!refine(pairing, coarse, fit, constraints)) {
		return false;
	}
	return piecewise ? verified_piecewise(pairing, *constraints, fit) :
		verified(pairing, fit);
}

/* One anchor's piecewise fit, as fit_line(). */
static bool fit_piecewise(const struct vm_vcpu_pairing *pairing,
		const struct vm_coarse_offset *coarse, struct vm_vcpu_fit *fit,
		GArray **constraints)
{
	return vm_vcpu_walk(pairing, coarse, fit, constraints) &&
		verified_piecewise(pairing, *constraints, fit);
}

/*
 * Whether what the map of a fit may be off by, from its constraints alone,
 * exceeds what the method promises. A line is bounded here; a piecewise
 * map window by window, when it was verified.
 */
static bool loose(const struct vm_vcpu_pairing *pairing, const GArray *constraints,
		struct vm_vcpu_fit *fit)
{
	int64_t first, last;

	if (fit->segments == 1) {
		guest_span(pairing, &fit->formula, &first, &last);
		vm_vcpu_error_bound(constraints, &fit->formula, first, last,
			&fit->bound_median_ns, &fit->bound_largest_ns);
	}
	return fit->bound_median_ns > VM_VCPU_BOUND_MEDIAN_NS ||
		fit->bound_largest_ns > VM_VCPU_BOUND_LARGEST_NS;
}

static void drop(GArray **constraints)
{
	if (*constraints) {
		g_array_free(*constraints, TRUE);
	}
	*constraints = NULL;
}

/*
 * Keeps the fit `trial` and its constraints: a fit within the promise
 * replaces anything, a loose one is kept only while there is nothing else
 * (another anchor, or the piecewise walk, may bound the clock tightly).
 */
static void adopt(const struct vm_vcpu_pairing *pairing, struct candidate_result *result,
		struct vm_vcpu_fit *trial, GArray **constraints)
{
	bool is_loose = loose(pairing, *constraints, trial);

	if (result->status == VM_COARSE_FOUND && (is_loose || !result->loose)) {
		drop(constraints);
		return;
	}
	drop(&result->constraints);
	result->fit = *trial;
	result->loose = is_loose;
	result->status = VM_COARSE_FOUND;
	result->constraints = *constraints;
	*constraints = NULL;
}

/* Whether `result` holds a fit within the promise: no other need be tried. */
static bool settled(const struct candidate_result *result)
{
	return result->status == VM_COARSE_FOUND && !result->loose;
}

/*
 * Tries one process for one guest: each anchor with one line, then, when
 * `piecewise` and no anchor gave one within the promise, each anchor whose
 * offset was found with a piecewise map (so that a guest one line fits
 * gets exactly the linear result).
 */
static void try_candidate(struct vm_vcpu_candidate *candidate,
		struct vm_vcpu_guest *guest, bool piecewise, struct candidate_result *result)
{
	struct vm_vcpu_pairing pairing;
	bool many = false, none = false;
	GArray *found = g_array_new(FALSE, FALSE, sizeof(struct vm_coarse_offset));
	GArray *constraints = NULL;
	struct vm_vcpu_fit base = { .host = candidate->host, .host_pid = candidate->pid };
	struct vm_vcpu_fit trial;

	*result = (struct candidate_result) { .status = VM_COARSE_TOO_LITTLE, .fit = base };
	vm_vcpu_pairing_init(&pairing, candidate, guest);
	if (pairing.event_count < MIN_EVENTS) {
		result->status = pairing.cpus->len == 0 ? VM_COARSE_NONE :
			VM_COARSE_TOO_LITTLE;
		vm_vcpu_pairing_fini(&pairing);
		g_array_free(found, TRUE);
		return;
	}
	for (guint attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		struct vm_coarse_offset coarse;

		if (!vm_vcpu_coarse_offset(&pairing, attempt, &coarse)) {
			break;
		}
		many |= coarse.status == VM_COARSE_MANY;
		none |= coarse.status == VM_COARSE_NONE;
		if (coarse.status != VM_COARSE_FOUND) {
			continue;
		}
		g_array_append_val(found, coarse);
		trial = base;
		if (fit_line(&pairing, &coarse, piecewise, &trial, &constraints)) {
			adopt(&pairing, result, &trial, &constraints);
			if (settled(result)) {
				break;
			}
		} else {
			none = true;
		}
		drop(&constraints);
	}
	for (guint i = 0; piecewise && !settled(result) && i < found->len; i++) {
		trial = base;
		if (fit_piecewise(&pairing, &g_array_index(found, struct vm_coarse_offset, i),
				&trial, &constraints)) {
			adopt(&pairing, result, &trial, &constraints);
		}
		drop(&constraints);
	}
	if (result->status != VM_COARSE_FOUND) {
		result->status = many ? VM_COARSE_MANY : none ? VM_COARSE_NONE :
			VM_COARSE_TOO_LITTLE;
	}
	g_array_free(found, TRUE);
	vm_vcpu_pairing_fini(&pairing);
}

/* The share of a fit's events outside guest mode, for comparisons. */
static long double outside_share(const struct vm_vcpu_fit *fit)
{
	return fit->events ? (long double) fit->outside / (long double) fit->events : 1.0L;
}

/* The verdict for one guest from the results of every process. */
static void judge_guest(struct candidate_result *results, guint count,
		struct vm_vcpu_fit *fit, GArray **constraints)
{
	struct candidate_result *best = NULL, *rival = NULL;
	bool many = false, none = false;

	*fit = (struct vm_vcpu_fit) { .status = count ? VM_VCPU_FIT_TOO_LITTLE :
		VM_VCPU_FIT_NO_HOST, .host_pid = -1, .other_pid = -1 };
	for (guint i = 0; i < count; i++) {
		struct candidate_result *result = &results[i];

		many |= result->status == VM_COARSE_MANY;
		none |= result->status == VM_COARSE_NONE;
		if (result->status != VM_COARSE_FOUND) {
			continue;
		}
		if (!best || outside_share(&result->fit) < outside_share(&best->fit)) {
			rival = best;
			best = result;
		} else if (!rival) {
			rival = result;
		}
	}
	if (best && !rival && best->loose) {
		/* One process fits, but its map may be further off than promised. */
		*fit = best->fit;
		fit->status = VM_VCPU_FIT_LOOSE;
		fit->other_pid = -1;
	} else if (best && !rival) {
		*fit = best->fit;
		fit->status = VM_VCPU_FIT_OK;
		fit->other_pid = -1;
		*constraints = best->constraints;
		best->constraints = NULL;
	} else if (best) {
		*fit = best->fit;
		fit->status = VM_VCPU_FIT_AMBIGUOUS;
		fit->other_pid = rival->fit.host_pid;
	} else if (many) {
		fit->status = VM_VCPU_FIT_AMBIGUOUS;
	} else if (none) {
		fit->status = VM_VCPU_FIT_NO_MATCH;
	}
}

static void free_constraints(gpointer data)
{
	if (data) {
		g_array_free(data, TRUE);
	}
}

/*
 * One process serves one guest: when two guests fit the same process, the
 * one with fewer events outside guest mode keeps it.
 */
static void share_processes(struct vm_vcpu_fit *fits, unsigned int guest_count,
		GPtrArray *constraints)
{
	for (unsigned int a = 0; a < guest_count; a++) {
		for (unsigned int b = a + 1; b < guest_count; b++) {
			struct vm_vcpu_fit *x = &fits[a], *y = &fits[b];
			struct vm_vcpu_fit *loser;
			unsigned int lost;

			if (x->status != VM_VCPU_FIT_OK || y->status != VM_VCPU_FIT_OK ||
					x->host != y->host || x->host_pid != y->host_pid) {
				continue;
			}
			lost = outside_share(y) < outside_share(x) ? a : b;
			loser = &fits[lost];
			loser->status = VM_VCPU_FIT_TAKEN;
			free_constraints(g_ptr_array_index(constraints, lost));
			g_ptr_array_index(constraints, lost) = NULL;
		}
	}
}

void vm_vcpu_align_solve(struct vm_vcpu_align *align, unsigned int guest_count,
		struct vm_vcpu_fit *fits)
{
	guint count = align->candidates->len;
	struct candidate_result *results = g_new0(struct candidate_result, count ? count : 1);
	GPtrArray *constraints = g_ptr_array_new_with_free_func(free_constraints);

	g_hash_table_remove_all(align->constraints);
	for (unsigned int g = 0; g < guest_count; g++) {
		struct vm_vcpu_guest *guest = vm_vcpu_align_guest(align, g);
		GArray *kept = NULL;

		if (!guest) {
			fits[g] = (struct vm_vcpu_fit) { .status = VM_VCPU_FIT_TOO_LITTLE,
				.host_pid = -1, .other_pid = -1 };
			g_ptr_array_add(constraints, NULL);
			continue;
		}
		for (guint c = 0; c < count; c++) {
			try_candidate(g_ptr_array_index(align->candidates, c), guest,
				align->piecewise, &results[c]);
		}
		judge_guest(results, count, &fits[g], &kept);
		for (guint c = 0; c < count; c++) {
			free_constraints(results[c].constraints);
		}
		g_ptr_array_add(constraints, kept);
	}
	share_processes(fits, guest_count, constraints);
	for (unsigned int g = 0; g < guest_count; g++) {
		GArray *kept = g_ptr_array_index(constraints, g);

		if (kept) {
			g_hash_table_insert(align->constraints, GUINT_TO_POINTER(g + 1), kept);
			g_ptr_array_index(constraints, g) = NULL;
		}
	}
	g_ptr_array_free(constraints, TRUE);
	g_free(results);
}

void vm_vcpu_align_feed(const struct vm_vcpu_align *align, unsigned int guest,
		const struct vm_vcpu_fit *fit, struct vm_sync *sync,
		unsigned int sync_host, unsigned int sync_guest)
{
	const GArray *constraints =
		g_hash_table_lookup(align->constraints, GUINT_TO_POINTER(guest + 1));

	if (!constraints || fit->status != VM_VCPU_FIT_OK) {
		return;
	}
	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *constraint =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);
		/* Each constraint is one message, matched already. */
		unsigned int sender = constraint->host_to_guest ? sync_host : sync_guest;
		unsigned int receiver = constraint->host_to_guest ? sync_guest : sync_host;

		vm_sync_add_matched(sync, sender, constraint->send, receiver, constraint->recv);
	}
}
