/*
 * The synchronization from stock KVM events, once the data is in: for each
 * guest and each host process with vCPU threads (a candidate QEMU), the
 * offset near one anchor (vcpu-coarse.c), then the fit: each guest event
 * is attributed to the guest-mode interval of its vCPU that holds it under
 * the current map, the first and last events of each interval bound the
 * map from both sides (entry < f(first), f(last) < exit), and the convex
 * hulls of those constraints give a better map, over a window of host time
 * that grows until it covers the whole guest trace. The map is adopted only
 * when almost no guest event falls outside guest mode under it, and only
 * when one process, with one offset, fits: otherwise the guest is reported
 * as ambiguous or unmatched, never synchronized wrongly.
 */

#include <inttypes.h>

#include "sync/vcpu-align-private.h"
#include "util/time-span.h"

/* A guest with fewer events on the CPUs a process shares cannot be told. */
#define MIN_EVENTS 100
/* Constraints a fit needs before it is trusted. */
#define MIN_CONSTRAINTS 16
/* Anchors tried per pairing before giving up. */
#define MAX_ATTEMPTS 6
/* Attribution tolerance once the map is fitted (what the hull cannot pin). */
#define FITTED_TOLERANCE_NS 1000
/* Guest events outside guest mode allowed: 1 per OUTSIDE_DIVISOR, plus 2. */
#define OUTSIDE_DIVISOR 1000

/* What trying one process for one guest gave. */
struct candidate_result {
	enum vm_coarse_status status;   /* FOUND: `fit` is adopted for it */
	struct vm_vcpu_fit fit;
	GArray *constraints;            /* struct vm_vcpu_constraint, FOUND only */
};

/* The host time of a constraint, which orders the hull's points. */
static int64_t host_time(const struct vm_vcpu_constraint *constraint)
{
	return constraint->host_to_guest ? constraint->send : constraint->recv;
}

static gint compare_constraints(gconstpointer a, gconstpointer b)
{
	int64_t x = host_time(a), y = host_time(b);

	return (x > y) - (x < y);
}

/*
 * The constraints of one more CPU merged into the others in host time
 * order (the hulls take points in that order); each CPU's come in order,
 * since a vCPU's intervals do not overlap (else they are sorted first).
 * Frees both arrays.
 */
static GArray *merge_constraints(GArray *all, GArray *of_cpu)
{
	GArray *merged = g_array_sized_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint),
		all->len + of_cpu->len);
	guint i = 0, j = 0;

	/* Overlapping intervals (a trace that lost events) would break the order. */
	for (guint k = 1; k < of_cpu->len; k++) {
		if (compare_constraints(&g_array_index(of_cpu, struct vm_vcpu_constraint, k - 1),
				&g_array_index(of_cpu, struct vm_vcpu_constraint, k)) > 0) {
			g_array_sort(of_cpu, compare_constraints);
			break;
		}
	}

	while (i < all->len || j < of_cpu->len) {
		const struct vm_vcpu_constraint *a = i < all->len ?
			&g_array_index(all, struct vm_vcpu_constraint, i) : NULL;
		const struct vm_vcpu_constraint *b = j < of_cpu->len ?
			&g_array_index(of_cpu, struct vm_vcpu_constraint, j) : NULL;

		if (a && (!b || compare_constraints(a, b) <= 0)) {
			g_array_append_val(merged, *a);
			i++;
		} else {
			g_array_append_val(merged, *b);
			j++;
		}
	}
	g_array_free(all, TRUE);
	g_array_free(of_cpu, TRUE);
	return merged;
}

static void add_constraint(GArray *constraints, bool host_to_guest, int64_t send,
		int64_t recv)
{
	struct vm_vcpu_constraint constraint = { host_to_guest, send, recv };

	g_array_append_val(constraints, constraint);
}

/*
 * The interval of `intervals` from `k` on that may hold host time `h`
 * within `tolerance`: the last one whose entry is <= h + tolerance.
 * Events come in time order, so `k` only moves forward.
 */
static guint advance(const GArray *intervals, guint k, int64_t h, int64_t tolerance)
{
	while (k + 1 < intervals->len &&
			g_array_index(intervals, struct vm_guest_mode, k + 1).entry <=
				h + tolerance)
		k++;
	return k;
}

/* Whether `h` belongs to interval k, and to no other, within `tolerance`. */
static bool attributable(const GArray *intervals, guint k, int64_t h, int64_t tolerance)
{
	const struct vm_guest_mode *interval =
		&g_array_index(intervals, struct vm_guest_mode, k);

	if (interval->entry > h + tolerance || interval->exit < h - tolerance)
		return false;
	return k == 0 || g_array_index(intervals, struct vm_guest_mode, k - 1).exit <
		h - tolerance;
}

/* The first interval whose exit is >= `h` (where a search from `h` starts). */
static guint first_interval_from(const GArray *intervals, int64_t h)
{
	guint low = 0, high = intervals->len;

	while (low < high) {
		guint mid = low + (high - low) / 2;

		if (g_array_index(intervals, struct vm_guest_mode, mid).exit < h)
			low = mid + 1;
		else
			high = mid;
	}
	return low > 0 ? low - 1 : 0;
}

/*
 * The constraints of one CPU: its guest events in host window
 * [low, high] under `formula`, each interval bounded by its first and last
 * attributed event.
 */
static void attribute_cpu(const GArray *events, const GArray *intervals,
		const struct vm_sync_prepared *formula, const struct vm_sync_formula *inverse,
		int64_t tolerance, int64_t low, int64_t high, GArray *constraints)
{
	guint i = vm_vcpu_lower_bound(events, vm_sync_formula_apply(inverse, low));
	guint k = first_interval_from(intervals, low);
	guint current = G_MAXUINT;
	int64_t first = 0, last = 0;
	/*
	 * Before the host's first entry of this vCPU and after its last exit,
	 * the vCPU may have been in guest mode unrecorded (the host's trace
	 * began or ended in the middle of a guest-mode interval): no event
	 * there is attributed, even within the tolerance.
	 */
	int64_t recorded_from = g_array_index(intervals, struct vm_guest_mode, 0).entry;
	int64_t recorded_to = g_array_index(intervals, struct vm_guest_mode,
		intervals->len - 1).exit;

	for (; i < events->len; i++) {
		int64_t g = g_array_index(events, int64_t, i);
		int64_t h = vm_sync_prepared_apply(formula, g);

		if (h > high)
			break;
		if (h < vm_time_sum(recorded_from, tolerance) ||
				h > vm_time_sum(recorded_to, -tolerance))
			continue;
		k = advance(intervals, k, h, tolerance);
		if (!attributable(intervals, k, h, tolerance))
			continue;
		if (k != current && current != G_MAXUINT) {
			const struct vm_guest_mode *done =
				&g_array_index(intervals, struct vm_guest_mode, current);

			add_constraint(constraints, true, done->entry, first);
			add_constraint(constraints, false, last, done->exit);
		}
		if (k != current) {
			current = k;
			first = g;
		}
		last = g;
	}
	if (current != G_MAXUINT) {
		const struct vm_guest_mode *done =
			&g_array_index(intervals, struct vm_guest_mode, current);

		add_constraint(constraints, true, done->entry, first);
		add_constraint(constraints, false, last, done->exit);
	}
}

static GArray *attribute(const struct vm_vcpu_pairing *pairing,
		const struct vm_sync_formula *formula, int64_t tolerance, int64_t low,
		int64_t high)
{
	GArray *constraints = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));
	struct vm_sync_formula inverse = vm_sync_formula_invert(formula);
	/* Applied to every event of the window: the fast, exact integer path. */
	struct vm_sync_prepared prepared;

	vm_sync_formula_prepare(formula, &prepared);
	for (guint c = 0; c < pairing->cpus->len; c++) {
		GArray *of_cpu = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));

		attribute_cpu(g_ptr_array_index(pairing->events, c),
			g_ptr_array_index(pairing->intervals, c), &prepared, &inverse,
			tolerance, vm_time_sum(low, -tolerance),
			vm_time_sum(high, tolerance), of_cpu);
		constraints = merge_constraints(constraints, of_cpu);
	}
	return constraints;
}

/* The hull of `constraints`: host is its ref side, the guest the other. */
static struct vm_sync_hull *hull_of(const GArray *constraints)
{
	struct vm_sync_hull *hull = vm_sync_hull_create();

	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *constraint =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);

		vm_sync_hull_add_match(hull, constraint->host_to_guest,
			constraint->send, constraint->recv);
	}
	return hull;
}

/*
 * Guest events of the pairing outside every guest-mode interval under
 * `formula`, by more than what the fit cannot pin down (an event a few ns
 * after an entry that follows a short exit is attributed to no interval,
 * so the hulls do not hold it inside), among those `checked`: the events
 * within the host's record of their vCPU (a guest may trace before the
 * host starts or after it stops, and the host's trace may begin or end in
 * the middle of a guest-mode interval).
 */
static uint64_t count_outside(const struct vm_vcpu_pairing *pairing,
		const struct vm_sync_formula *formula, uint64_t *checked)
{
	uint64_t outside = pairing->unshared;
	struct vm_sync_prepared prepared;

	vm_sync_formula_prepare(formula, &prepared);
	*checked = pairing->unshared;
	for (guint c = 0; c < pairing->cpus->len; c++) {
		const GArray *events = g_ptr_array_index(pairing->events, c);
		const GArray *intervals = g_ptr_array_index(pairing->intervals, c);
		int64_t known_from = g_array_index(intervals, struct vm_guest_mode, 0).entry +
			FITTED_TOLERANCE_NS;
		int64_t known_to = g_array_index(intervals, struct vm_guest_mode,
			intervals->len - 1).exit - FITTED_TOLERANCE_NS;
		guint k = 0;

		for (guint i = 0; i < events->len; i++) {
			int64_t h = vm_sync_prepared_apply(&prepared,
				g_array_index(events, int64_t, i));
			const struct vm_guest_mode *interval;

			if (h < known_from || h > known_to)
				continue;
			(*checked)++;
			k = advance(intervals, k, h, FITTED_TOLERANCE_NS);
			interval = &g_array_index(intervals, struct vm_guest_mode, k);
			if (h < interval->entry - FITTED_TOLERANCE_NS ||
					h > interval->exit + FITTED_TOLERANCE_NS)
				outside++;
		}
	}
	return outside;
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
		constraints->len < MIN_CONSTRAINTS ? WINDOW_TOO_FEW : WINDOW_FITTED;

	if (result == WINDOW_FITTED &&
			(quality == VM_SYNC_ACCURATE || quality == VM_SYNC_APPROXIMATE)) {
		long double slope_range = vm_sync_hull_accuracy(hull);

		*formula = vm_sync_hull_formula(hull);
		fit->quality = quality;
		fit->accuracy = slope_range;
		/* What the slope's freedom allows at the next window's edges. */
		*tolerance = FITTED_TOLERANCE_NS +
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
	int64_t tolerance = FITTED_TOLERANCE_NS +
		(coarse->offset_high - coarse->offset_low) / 2;
	int64_t window = coarse->window;
	int64_t first, last;

	fit->quality = VM_SYNC_INCOMPLETE;
	for (;;) {
		int64_t low = vm_time_sum(coarse->anchor, -window);
		int64_t high = vm_time_sum(coarse->anchor, window);

		if (fit_window(pairing, &formula, &tolerance, low, high, NULL, fit) ==
				WINDOW_CONTRADICTED)
			return false;
		guest_span(pairing, &formula, &first, &last);
		if (low <= first && high >= last)
			break;
		window = window > INT64_MAX / 4 ? INT64_MAX : window * 4;
	}
	/* The whole trace, under the map of the whole trace. */
	tolerance = FITTED_TOLERANCE_NS;
	if (fit_window(pairing, &formula, &tolerance, INT64_MIN / 2, INT64_MAX / 2,
			constraints, fit) != WINDOW_FITTED)
		return false;
	fit->formula = formula;
	return true;
}

/* Whether the map leaves almost every guest event in guest mode. */
static bool verified(const struct vm_vcpu_pairing *pairing, struct vm_vcpu_fit *fit)
{
	fit->outside = count_outside(pairing, &fit->formula, &fit->events);
	return fit->quality != VM_SYNC_INCOMPLETE && fit->events >= MIN_EVENTS &&
		fit->outside <= fit->events / OUTSIDE_DIVISOR + 2;
}

/* Tries one process for one guest. */
static void try_candidate(struct vm_vcpu_candidate *candidate,
		struct vm_vcpu_guest *guest, struct candidate_result *result)
{
	struct vm_vcpu_pairing pairing;
	bool many = false, none = false;

	*result = (struct candidate_result) { .status = VM_COARSE_TOO_LITTLE };
	result->fit.host = candidate->host;
	result->fit.host_pid = candidate->pid;
	vm_vcpu_pairing_init(&pairing, candidate, guest);
	if (pairing.event_count < MIN_EVENTS) {
		result->status = pairing.cpus->len == 0 ? VM_COARSE_NONE :
			VM_COARSE_TOO_LITTLE;
		vm_vcpu_pairing_fini(&pairing);
		return;
	}
	for (guint attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		struct vm_coarse_offset coarse;
		GArray *constraints = NULL;

		if (!vm_vcpu_coarse_offset(&pairing, attempt, &coarse))
			break;
		many |= coarse.status == VM_COARSE_MANY;
		none |= coarse.status == VM_COARSE_NONE;
		if (coarse.status != VM_COARSE_FOUND)
			continue;
		if (refine(&pairing, &coarse, &result->fit, &constraints) &&
				verified(&pairing, &result->fit)) {
			result->status = VM_COARSE_FOUND;
			result->constraints = constraints;
			break;
		}
		none = true;
		if (constraints)
			g_array_free(constraints, TRUE);
	}
	if (result->status != VM_COARSE_FOUND)
		result->status = many ? VM_COARSE_MANY : none ? VM_COARSE_NONE :
			VM_COARSE_TOO_LITTLE;
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
		if (result->status != VM_COARSE_FOUND)
			continue;
		if (!best || outside_share(&result->fit) < outside_share(&best->fit)) {
			rival = best;
			best = result;
		} else if (!rival) {
			rival = result;
		}
	}
	if (best && !rival) {
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
	if (data)
		g_array_free(data, TRUE);
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
					x->host != y->host || x->host_pid != y->host_pid)
				continue;
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
		for (guint c = 0; c < count; c++)
			try_candidate(g_ptr_array_index(align->candidates, c), guest,
				&results[c]);
		judge_guest(results, count, &fits[g], &kept);
		for (guint c = 0; c < count; c++)
			free_constraints(results[c].constraints);
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

	if (!constraints || fit->status != VM_VCPU_FIT_OK)
		return;
	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *constraint =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);
		/* Each constraint is one message, matched already. */
		unsigned int sender = constraint->host_to_guest ? sync_host : sync_guest;
		unsigned int receiver = constraint->host_to_guest ? sync_guest : sync_host;

		vm_sync_add_matched(sync, sender, constraint->send, receiver, constraint->recv);
	}
}
