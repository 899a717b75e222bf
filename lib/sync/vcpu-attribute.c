/*
 * Which guest-mode interval each guest event belongs to under a map of the
 * guest clock onto the host's, and the constraints that gives (see
 * vcpu-fit.c): the first and last events of each interval bound the map
 * from both sides (entry < f(first), f(last) < exit).
 */

#include "sync/vcpu-align-private.h"
#include "util/time-span.h"

static gint compare_constraints(gconstpointer a, gconstpointer b)
{
	int64_t x = vm_vcpu_constraint_host_time(a), y = vm_vcpu_constraint_host_time(b);

	return (x > y) - (x < y);
}

void vm_vcpu_sort_constraints(GArray *constraints)
{
	g_array_sort(constraints, compare_constraints);
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
				h + tolerance) {
		k++;
	}
	return k;
}

/* Whether `h` belongs to interval k, and to no other, within `tolerance`. */
static bool attributable(const GArray *intervals, guint k, int64_t h, int64_t tolerance)
{
	const struct vm_guest_mode *interval =
		&g_array_index(intervals, struct vm_guest_mode, k);

	if (interval->entry > h + tolerance || interval->exit < h - tolerance) {
		return false;
	}
	return k == 0 || g_array_index(intervals, struct vm_guest_mode, k - 1).exit <
		h - tolerance;
}

/* The first interval whose exit is >= `h` (where a search from `h` starts). */
static guint first_interval_from(const GArray *intervals, int64_t h)
{
	guint low = 0, high = intervals->len;

	while (low < high) {
		guint mid = low + (high - low) / 2;

		if (g_array_index(intervals, struct vm_guest_mode, mid).exit < h) {
			low = mid + 1;
		} else {
			high = mid;
		}
	}
	return low > 0 ? low - 1 : 0;
}

/*
 * Whether host time `h` is within `tolerance` of a loss of the host: an
 * interval of the vCPU there may be missing, so that the event may belong
 * to no interval known, or the one known next to it may not be its own.
 */
static bool in_host_gap(const struct vm_loss_windows *gaps, int64_t h, int64_t tolerance)
{
	return gaps && vm_loss_windows_near(gaps, h, tolerance);
}

/* Bounds interval `done` by its first and last attributed events. */
static void close_interval(const GArray *intervals, guint done, int64_t first, int64_t last,
		GArray *constraints)
{
	const struct vm_guest_mode *interval =
		&g_array_index(intervals, struct vm_guest_mode, done);

	add_constraint(constraints, true, interval->entry, first);
	add_constraint(constraints, false, last, interval->exit);
}

/*
 * The constraints of one CPU: its guest events in host window
 * [low, high] under `map`, each interval bounded by its first and last
 * attributed event.
 */
static void attribute_cpu(const GArray *events, const GArray *intervals,
		const struct vm_loss_windows *gaps, struct vm_vcpu_map *map, int64_t tolerance,
		int64_t low, int64_t high, GArray *constraints)
{
	guint i = vm_vcpu_lower_bound(events, vm_vcpu_map_invert(map, low));
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
		int64_t h = vm_vcpu_map_apply(map, g);

		if (h > high) {
			break;
		}
		if (h < vm_time_sum(recorded_from, tolerance) ||
				h > vm_time_sum(recorded_to, -tolerance)) {
			continue;
		}
		k = advance(intervals, k, h, tolerance);
		if (!attributable(intervals, k, h, tolerance) || in_host_gap(gaps, h, tolerance)) {
			continue;
		}
		if (k != current && current != G_MAXUINT) {
			close_interval(intervals, current, first, last, constraints);
		}
		if (k != current) {
			current = k;
			first = g;
		}
		last = g;
	}
	if (current != G_MAXUINT) {
		close_interval(intervals, current, first, last, constraints);
	}
}

GArray *vm_vcpu_attribute(const struct vm_vcpu_pairing *pairing, struct vm_vcpu_map *map,
		int64_t tolerance, int64_t low, int64_t high)
{
	GArray *constraints = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));

	for (guint c = 0; c < pairing->cpus->len; c++) {
		GArray *of_cpu = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_constraint));

		attribute_cpu(g_ptr_array_index(pairing->events, c),
			g_ptr_array_index(pairing->intervals, c), pairing->host_gaps, map,
			tolerance, low, high, of_cpu);
		constraints = merge_constraints(constraints, of_cpu);
	}
	return constraints;
}

void vm_vcpu_hull_add(struct vm_sync_hull *hull, const GArray *constraints)
{
	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *constraint =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);

		vm_sync_hull_add_match(hull, constraint->host_to_guest,
			constraint->send, constraint->recv);
	}
}

struct vm_sync_segments *vm_vcpu_segments_of(const GArray *constraints)
{
	struct vm_sync_segments *segments = vm_sync_segments_create();

	/* As vm_sync_add_matched() adds them with the host as the lower index. */
	for (guint i = 0; i < constraints->len; i++) {
		const struct vm_vcpu_constraint *constraint =
			&g_array_index(constraints, struct vm_vcpu_constraint, i);

		vm_sync_segments_add(segments, constraint->host_to_guest,
			vm_vcpu_constraint_host_time(constraint),
			constraint->host_to_guest ? constraint->recv : constraint->send);
	}
	return segments;
}

/*
 * An event a few ns after an entry that follows a short exit is attributed
 * to no interval, so the hulls do not hold it inside: only what falls out
 * by more than the fit can pin down counts. Only events within the host's
 * record of their vCPU are checked (a guest may trace before the host
 * starts or after it stops, and the host's trace may begin or end in the
 * middle of a guest-mode interval), and none where the host lost events
 * (its vCPU may have been in guest mode there unseen).
 */
uint64_t vm_vcpu_count_outside(const struct vm_vcpu_pairing *pairing,
		struct vm_vcpu_map *map, uint64_t *checked)
{
	uint64_t outside = pairing->unshared;

	*checked = pairing->unshared;
	for (guint c = 0; c < pairing->cpus->len; c++) {
		const GArray *events = g_ptr_array_index(pairing->events, c);
		const GArray *intervals = g_ptr_array_index(pairing->intervals, c);
		int64_t known_from = g_array_index(intervals, struct vm_guest_mode, 0).entry +
			VM_VCPU_FITTED_TOLERANCE_NS;
		int64_t known_to = g_array_index(intervals, struct vm_guest_mode,
			intervals->len - 1).exit - VM_VCPU_FITTED_TOLERANCE_NS;
		guint k = 0;

		for (guint i = 0; i < events->len; i++) {
			int64_t h = vm_vcpu_map_apply(map, g_array_index(events, int64_t, i));
			const struct vm_guest_mode *interval;

			if (h < known_from || h > known_to ||
					in_host_gap(pairing->host_gaps, h, VM_VCPU_FITTED_TOLERANCE_NS)) {
				continue;
			}
			(*checked)++;
			k = advance(intervals, k, h, VM_VCPU_FITTED_TOLERANCE_NS);
			interval = &g_array_index(intervals, struct vm_guest_mode, k);
			if (h < interval->entry - VM_VCPU_FITTED_TOLERANCE_NS ||
					h > interval->exit + VM_VCPU_FITTED_TOLERANCE_NS) {
				outside++;
			}
		}
	}
	return outside;
}
