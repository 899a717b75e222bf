/*
 * The first step of the synchronization from stock KVM events: the offset
 * between a guest's clock and the host's, found without any prior guess
 * (the clocks can be minutes apart).
 *
 * A guest records nothing while its vCPU is out of guest mode, so every
 * time a host vCPU spends out of guest mode (from a kvm_exit to the next
 * kvm_entry) must fall, once shifted by the offset, in a gap between two
 * consecutive events of the guest's CPU. A long such time (the vCPU halted,
 * blocked or preempted) fits few gaps of the guest: each gives a range of
 * possible offsets. Every other time out of guest mode nearby then rules
 * out the offsets that would put a guest event inside it. Near one anchor,
 * over a few milliseconds, the clocks drift apart by at most a few
 * microseconds (DRIFT_DIVISOR), which widens the check accordingly.
 */

#include "sync/vcpu-align-private.h"

/* Clocks drift apart by at most 1 / DRIFT_DIVISOR (200 ppm). */
#define DRIFT_DIVISOR 5000
/* What the times themselves cannot tell apart (event spacing, rounding). */
#define BASE_TOLERANCE_NS 50
/* Host time checked around an anchor first, then four times wider. */
#define FIRST_WINDOW_NS INT64_C(5000000)
#define LAST_WINDOW_NS INT64_C(1280000000)
/* Offsets closer than this are one answer (the fit refines it). */
#define SAME_OFFSET_NS INT64_C(20000)
/* The shortest time out of guest mode worth an anchor. */
#define MIN_ANCHOR_NS INT64_C(10000)
/* An anchor fitting more guest gaps than this tells nothing yet. */
#define MAX_START_RANGES 20000
/* Anchors closer than this to one already tried are skipped. */
#define ANCHOR_SPACING_NS (2 * FIRST_WINDOW_NS)

struct offset_range {
	int64_t low;
	int64_t high;
};

guint vm_vcpu_lower_bound(const GArray *times, int64_t value)
{
	guint low = 0, high = times->len;

	while (low < high) {
		guint mid = low + (high - low) / 2;

		if (g_array_index(times, int64_t, mid) < value) {
			low = mid + 1;
		} else {
			high = mid;
		}
	}
	return low;
}

void vm_vcpu_pairing_init(struct vm_vcpu_pairing *pairing,
		struct vm_vcpu_candidate *candidate, struct vm_vcpu_guest *guest)
{
	GHashTableIter iter;
	gpointer key, value;

	*pairing = (struct vm_vcpu_pairing) { .candidate = candidate, .guest = guest,
		.host_gaps = candidate->host_gaps };
	pairing->cpus = g_array_new(FALSE, FALSE, sizeof(guint64));
	pairing->events = g_ptr_array_new();
	pairing->intervals = g_ptr_array_new();
	g_hash_table_iter_init(&iter, guest->cpus);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		g_array_append_val(pairing->cpus, *(guint64 *) key);
	}
	g_array_sort(pairing->cpus, vm_vcpu_compare_u64);
	for (guint i = 0; i < pairing->cpus->len; i++) {
		guint64 cpu = g_array_index(pairing->cpus, guint64, i);
		const GArray *events = vm_vcpu_guest_events(guest, cpu);
		const GArray *intervals = vm_vcpu_candidate_intervals(candidate, cpu);

		if (!intervals || intervals->len == 0) {
			pairing->unshared += events->len;
			g_array_remove_index(pairing->cpus, i--);
			continue;
		}
		g_ptr_array_add(pairing->events, (gpointer) events);
		g_ptr_array_add(pairing->intervals, (gpointer) intervals);
		pairing->event_count += events->len;
	}
}

void vm_vcpu_pairing_fini(struct vm_vcpu_pairing *pairing)
{
	g_array_free(pairing->cpus, TRUE);
	g_ptr_array_free(pairing->events, TRUE);
	g_ptr_array_free(pairing->intervals, TRUE);
	if (pairing->outs) {
		g_array_free(pairing->outs, TRUE);
	}
	if (pairing->outs_by_length) {
		g_array_free(pairing->outs_by_length, TRUE);
	}
}

static gint compare_outs_by_exit(gconstpointer a, gconstpointer b)
{
	const struct vm_out_of_guest *x = a, *y = b;

	return (x->exit > y->exit) - (x->exit < y->exit);
}

const GArray *vm_vcpu_pairing_outs(struct vm_vcpu_pairing *pairing)
{
	if (pairing->outs) {
		return pairing->outs;
	}
	pairing->outs = g_array_new(FALSE, FALSE, sizeof(struct vm_out_of_guest));
	for (guint c = 0; c < pairing->cpus->len; c++) {
		const GArray *intervals = g_ptr_array_index(pairing->intervals, c);

		for (guint k = 0; k + 1 < intervals->len; k++) {
			struct vm_out_of_guest out = {
				.exit = g_array_index(intervals, struct vm_guest_mode, k).exit,
				.entry = g_array_index(intervals, struct vm_guest_mode, k + 1).entry,
				.cpu_index = c,
			};

			/* Across a loss, the vCPU may have been in guest mode unseen. */
			if (out.entry > out.exit && !(pairing->host_gaps &&
					vm_loss_windows_overlap(pairing->host_gaps, out.exit,
						out.entry))) {
				g_array_append_val(pairing->outs, out);
			}
		}
	}
	g_array_sort(pairing->outs, compare_outs_by_exit);
	return pairing->outs;
}

static gint compare_length_desc(gconstpointer a, gconstpointer b, gpointer data)
{
	const GArray *outs = data;
	const struct vm_out_of_guest *x =
		&g_array_index(outs, struct vm_out_of_guest, *(const guint *) a);
	const struct vm_out_of_guest *y =
		&g_array_index(outs, struct vm_out_of_guest, *(const guint *) b);
	int64_t lx = x->entry - x->exit, ly = y->entry - y->exit;

	if (lx != ly) {
		return lx > ly ? -1 : 1;
	}
	return (x->exit > y->exit) - (x->exit < y->exit);
}

static const GArray *outs_sorted_by_length(struct vm_vcpu_pairing *pairing)
{
	const GArray *outs = vm_vcpu_pairing_outs(pairing);

	if (pairing->outs_by_length) {
		return pairing->outs_by_length;
	}
	pairing->outs_by_length = g_array_new(FALSE, FALSE, sizeof(guint));
	for (guint i = 0; i < outs->len; i++) {
		const struct vm_out_of_guest *out =
			&g_array_index(outs, struct vm_out_of_guest, i);

		if (out->entry - out->exit >= MIN_ANCHOR_NS) {
			g_array_append_val(pairing->outs_by_length, i);
		}
	}
	g_array_sort_with_data(pairing->outs_by_length, compare_length_desc,
		(gpointer) outs);
	return pairing->outs_by_length;
}

static int64_t tolerance(int64_t distance)
{
	if (distance < 0) {
		distance = -distance;
	}
	return BASE_TOLERANCE_NS + distance / DRIFT_DIVISOR;
}

/*
 * The offsets that put the anchor inside one gap of the guest's CPU:
 * a gap (g0, g1) holds [exit, entry] shifted by `offset` when
 * entry - g1 <= offset <= exit - g0. False when too many gaps fit.
 */
static bool start_ranges(const struct vm_out_of_guest *anchor,
		const GArray *events, GArray *ranges)
{
	int64_t length = anchor->entry - anchor->exit - 2 * BASE_TOLERANCE_NS;

	for (guint i = 0; i + 1 < events->len; i++) {
		int64_t g0 = g_array_index(events, int64_t, i);
		int64_t g1 = g_array_index(events, int64_t, i + 1);
		struct offset_range range;

		if (g1 - g0 < length) {
			continue;
		}
		range.low = anchor->entry - g1 - BASE_TOLERANCE_NS;
		range.high = anchor->exit - g0 + BASE_TOLERANCE_NS;
		g_array_append_val(ranges, range);
		if (ranges->len > MAX_START_RANGES) {
			return false;
		}
	}
	return true;
}

/*
 * Removes from `range` the offsets that put an event of `events` strictly
 * inside (low_end, high_end) of host time, appending what is left.
 */
static void rule_out(const struct offset_range *range, const GArray *events,
		int64_t low_end, int64_t high_end, GArray *kept)
{
	/* The events that some offset of the range maps inside. */
	guint first = vm_vcpu_lower_bound(events, low_end - range->high + 1);
	guint last = vm_vcpu_lower_bound(events, high_end - range->low);
	int64_t high = range->high;

	/* Later events forbid lower offsets: from the earliest event down. */
	for (guint i = first; i < last; i++) {
		int64_t g = g_array_index(events, int64_t, i);
		/* offsets in (low_end - g, high_end - g) map g inside */
		int64_t forbidden_low = low_end - g;
		int64_t forbidden_high = high_end - g;

		if (forbidden_high <= high) {
			struct offset_range piece = { MAX(forbidden_high, range->low), high };

			if (piece.low <= piece.high) {
				g_array_append_val(kept, piece);
			}
		}
		high = MIN(high, forbidden_low);
		if (high < range->low) {
			return;
		}
	}
	if (range->low <= high) {
		struct offset_range piece = { range->low, high };

		g_array_append_val(kept, piece);
	}
}

/* Applies one time out of guest mode to every range left. */
static GArray *apply_out(GArray *ranges, const struct vm_out_of_guest *out,
		const GArray *events, int64_t slack)
{
	GArray *kept = g_array_new(FALSE, FALSE, sizeof(struct offset_range));

	for (guint r = 0; r < ranges->len; r++) {
		rule_out(&g_array_index(ranges, struct offset_range, r), events,
			out->exit + slack, out->entry - slack, kept);
	}
	g_array_free(ranges, TRUE);
	return kept;
}

/* Every time out of guest mode within `window` of the anchor. */
static GArray *check_window(struct vm_vcpu_pairing *pairing,
		const struct vm_out_of_guest *anchor, int64_t window, GArray *ranges)
{
	const GArray *outs = vm_vcpu_pairing_outs(pairing);
	guint low = 0, high = outs->len;

	/* The first out whose exit is within the window. */
	while (low < high) {
		guint mid = low + (high - low) / 2;

		if (g_array_index(outs, struct vm_out_of_guest, mid).exit <
				anchor->exit - window) {
			low = mid + 1;
		} else {
			high = mid;
		}
	}
	for (guint i = low; i < outs->len && ranges->len > 0; i++) {
		const struct vm_out_of_guest *out =
			&g_array_index(outs, struct vm_out_of_guest, i);
		int64_t slack = tolerance(out->exit - anchor->exit);

		if (out->exit > anchor->exit + window) {
			break;
		}
		if (out->entry - out->exit <= 2 * slack) {
			continue;
		}
		ranges = apply_out(ranges, out,
			g_ptr_array_index(pairing->events, out->cpu_index), slack);
	}
	return ranges;
}

/* One answer: all ranges left lie within SAME_OFFSET_NS. */
static bool one_answer(const GArray *ranges, struct offset_range *span)
{
	*span = g_array_index(ranges, struct offset_range, 0);
	for (guint r = 1; r < ranges->len; r++) {
		const struct offset_range *range =
			&g_array_index(ranges, struct offset_range, r);

		span->low = MIN(span->low, range->low);
		span->high = MAX(span->high, range->high);
	}
	return span->high - span->low <= SAME_OFFSET_NS;
}

/* The anchor of attempt `attempt`: the longest ones, spread over the trace. */
static const struct vm_out_of_guest *pick_anchor(struct vm_vcpu_pairing *pairing,
		guint attempt)
{
	const GArray *outs = vm_vcpu_pairing_outs(pairing);
	const GArray *by_length = outs_sorted_by_length(pairing);
	GArray *taken = g_array_new(FALSE, FALSE, sizeof(int64_t));
	const struct vm_out_of_guest *found = NULL;

	for (guint i = 0; i < by_length->len && !found; i++) {
		const struct vm_out_of_guest *out = &g_array_index(outs,
			struct vm_out_of_guest, g_array_index(by_length, guint, i));
		bool near = false;

		for (guint t = 0; t < taken->len && !near; t++) {
			int64_t d = out->exit - g_array_index(taken, int64_t, t);

			near = d < ANCHOR_SPACING_NS && d > -ANCHOR_SPACING_NS;
		}
		if (near) {
			continue;
		}
		if (taken->len == attempt) {
			found = out;
		}
		g_array_append_val(taken, out->exit);
	}
	g_array_free(taken, TRUE);
	return found;
}

bool vm_vcpu_coarse_offset(struct vm_vcpu_pairing *pairing, guint attempt,
		struct vm_coarse_offset *result)
{
	const struct vm_out_of_guest *anchor = pick_anchor(pairing, attempt);
	GArray *start;
	int64_t window;

	if (!anchor) {
		return false;
	}
	*result = (struct vm_coarse_offset) { .status = VM_COARSE_TOO_LITTLE,
		.anchor = anchor->exit };
	start = g_array_new(FALSE, FALSE, sizeof(struct offset_range));
	if (!start_ranges(anchor, g_ptr_array_index(pairing->events, anchor->cpu_index),
			start)) {
		g_array_free(start, TRUE);
		return true;
	}
	for (window = FIRST_WINDOW_NS; window <= LAST_WINDOW_NS; window *= 4) {
		GArray *ranges = g_array_copy(start);
		struct offset_range span;

		ranges = check_window(pairing, anchor, window, ranges);
		result->window = window;
		if (ranges->len == 0) {
			result->status = VM_COARSE_NONE;
		} else if (one_answer(ranges, &span)) {
			result->status = VM_COARSE_FOUND;
			result->offset_low = span.low;
			result->offset_high = span.high;
		} else {
			result->status = VM_COARSE_MANY;
		}
		g_array_free(ranges, TRUE);
		if (result->status != VM_COARSE_MANY) {
			break;
		}
	}
	g_array_free(start, TRUE);
	return true;
}
