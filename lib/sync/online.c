/*
 * A pair's clock map built in one pass: see online.h.
 */

#include <glib.h>

#include "sync/online.h"
#include "sync/wide.h"

struct vm_sync_online {
	struct vm_sync_segments *windows;
	uint64_t matches;
	GArray *map;          /* struct vm_sync_segment: the fixed past, then the plan */
	bool committed;
	int64_t horizon;
};

struct vm_sync_online *vm_sync_online_create(void)
{
	struct vm_sync_online *online = g_new0(struct vm_sync_online, 1);
	struct vm_sync_segment identity = {
		.begin = INT64_MIN,
		.formula = vm_sync_formula_identity(),
		.quality = VM_SYNC_ABSENT,
	};

	online->windows = vm_sync_segments_create();
	online->map = g_array_new(FALSE, FALSE, sizeof(struct vm_sync_segment));
	g_array_append_val(online->map, identity);
	return online;
}

void vm_sync_online_destroy(struct vm_sync_online *online)
{
	if (!online) {
		return;
	}
	vm_sync_segments_destroy(online->windows);
	g_array_free(online->map, TRUE);
	g_free(online);
}

void vm_sync_online_add(struct vm_sync_online *online, bool sent_by_ref,
		int64_t ref_ts, int64_t other_ts)
{
	vm_sync_segments_add(online->windows, sent_by_ref, ref_ts, other_ts);
	online->matches++;
}

uint64_t vm_sync_online_matches(const struct vm_sync_online *online)
{
	return online->matches;
}

static struct vm_sync_segment best_fit(const struct vm_sync_online *online)
{
	struct vm_sync_segment fit;
	uint64_t by_ref, by_other;

	vm_sync_segments_open_fit(online->windows, &fit, &by_ref, &by_other);
	return fit;
}

uint64_t vm_sync_online_fewest_each_way(const struct vm_sync_online *online)
{
	struct vm_sync_segment fit;
	uint64_t by_ref, by_other;

	vm_sync_segments_open_fit(online->windows, &fit, &by_ref, &by_other);
	return by_ref < by_other ? by_ref : by_other;
}

struct vm_sync_formula vm_sync_online_best(const struct vm_sync_online *online)
{
	return best_fit(online).formula;
}

bool vm_sync_online_settled(const struct vm_sync_online *online, int64_t t, long double width)
{
	return vm_sync_online_width_at(online, t) <= width;
}

long double vm_sync_online_width_at(const struct vm_sync_online *online, int64_t t)
{
	return vm_sync_segments_open_width_at(online->windows, t);
}

bool vm_sync_online_committed(const struct vm_sync_online *online)
{
	return online->committed;
}

int64_t vm_sync_online_horizon(const struct vm_sync_online *online)
{
	return online->horizon;
}

static vm_sync_wide map_wide(const struct vm_sync_formula *formula, vm_sync_wide t)
{
	return (vm_sync_wide) formula->slope * t + (vm_sync_wide) formula->offset_ns;
}

static struct vm_sync_segment *last_segment(struct vm_sync_online *online)
{
	return &g_array_index(online->map, struct vm_sync_segment, online->map->len - 1);
}

/* The plan's segments that begin after `horizon` are dropped: the past stays. */
static void truncate_plan(struct vm_sync_online *online, int64_t horizon)
{
	while (online->map->len > 1 && last_segment(online)->begin > horizon) {
		g_array_set_size(online->map, online->map->len - 1);
	}
}

/* From the plan's value at `horizon`, a bridge to `best`, then `best`. */
static void replan(struct vm_sync_online *online, int64_t horizon,
		const struct vm_sync_segment *best)
{
	const struct vm_sync_formula *at = vm_sync_online_formula_at(online, horizon);
	vm_sync_wide from = map_wide(at, (vm_sync_wide) horizon);
	vm_sync_wide gap = map_wide(&best->formula, (vm_sync_wide) horizon) - from;
	vm_sync_wide length = (gap < 0 ? -gap : gap) /
		(vm_sync_wide) VM_SYNC_SEGMENTS_BRIDGE_SLOPE;
	vm_sync_wide end = (vm_sync_wide) horizon + (length < 2 ? 2 : length);
	vm_sync_wide slope;
	struct vm_sync_segment bridge = *best;

	if (end >= (vm_sync_wide) INT64_MAX) {
		return;
	}
	truncate_plan(online, horizon);
	slope = (map_wide(&best->formula, end) - from) / (end - (vm_sync_wide) horizon);
	bridge.begin = horizon + 1;
	bridge.formula.slope = (long double) slope;
	bridge.formula.offset_ns = (long double) (from - slope * (vm_sync_wide) horizon);
	bridge.matches = 0;
	g_array_append_val(online->map, bridge);
	bridge = *best;
	bridge.begin = (int64_t) end;
	g_array_append_val(online->map, bridge);
}

void vm_sync_online_commit(struct vm_sync_online *online, int64_t horizon)
{
	struct vm_sync_segment best;
	vm_sync_wide gap;

	if (online->committed && horizon <= online->horizon) {
		return;
	}
	best = best_fit(online);
	if (!online->committed) {
		/* The first formula: the best line, everywhere. */
		best.begin = INT64_MIN;
		g_array_index(online->map, struct vm_sync_segment, 0) = best;
		online->committed = true;
		online->horizon = horizon;
		return;
	}

	/* A window that just began knows its slope too badly to follow it. */
	if (best.quality == VM_SYNC_ACCURATE && vm_sync_slope_plausible(best.formula.slope) &&
			vm_sync_online_fewest_each_way(online) >= VM_SYNC_ONLINE_MIN_EACH_WAY &&
			best.accuracy <= (long double) VM_SYNC_SEGMENTS_BRIDGE_SLOPE) {
		/* From the last horizon: what this commit fixes follows the best line. */
		int64_t from = online->horizon;

		gap = map_wide(&best.formula, (vm_sync_wide) from) -
			map_wide(vm_sync_online_formula_at(online, from), (vm_sync_wide) from);
		if (gap > VM_SYNC_ONLINE_TOLERANCE_NS || gap < -VM_SYNC_ONLINE_TOLERANCE_NS) {
			replan(online, from, &best);
		}
	}
	online->horizon = horizon;
}

void vm_sync_online_commit_windows(struct vm_sync_online *online, int64_t horizon)
{
	unsigned int count;
	const struct vm_sync_segment *segments;

	if (online->committed) {
		vm_sync_online_commit(online, horizon);
		return;
	}
	segments = vm_sync_segments_map(online->windows, &count);
	g_array_set_size(online->map, 0);
	g_array_append_vals(online->map, segments, count);
	online->committed = true;
	online->horizon = horizon;
}

void vm_sync_online_end(struct vm_sync_online *online, int64_t last)
{
	if (!online->committed) {
		vm_sync_online_commit(online, INT64_MAX);
		return;
	}
	truncate_plan(online, last);
	online->horizon = INT64_MAX;
}

const struct vm_sync_segment *vm_sync_online_map(const struct vm_sync_online *online,
		unsigned int *count)
{
	*count = online->map->len;
	return &g_array_index(online->map, struct vm_sync_segment, 0);
}

const struct vm_sync_formula *vm_sync_online_formula_at(const struct vm_sync_online *online,
		int64_t t)
{
	guint i = online->map->len - 1;

	while (i > 0 && g_array_index(online->map, struct vm_sync_segment, i).begin > t) {
		i--;
	}
	return &g_array_index(online->map, struct vm_sync_segment, i).formula;
}
