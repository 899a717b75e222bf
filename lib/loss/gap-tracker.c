/*
 * The gap tracker: see gap-tracker.h.
 *
 * Pending losses are few at a time (one per stream at most, and a stream
 * has one only for the span of one packet), so they are kept in an array;
 * while there is none, an event costs one comparison.
 */

#include <glib.h>

#include "loss/gap-tracker.h"

struct pending {
	struct vm_tracked_gap found;   /* gap.begin: the stream's last event so far */
};

struct vm_gap_tracker {
	GArray *pending;   /* struct pending */
};

struct vm_gap_tracker *vm_gap_tracker_create(void)
{
	struct vm_gap_tracker *tracker = g_new0(struct vm_gap_tracker, 1);

	tracker->pending = g_array_new(FALSE, FALSE, sizeof(struct pending));
	return tracker;
}

void vm_gap_tracker_destroy(struct vm_gap_tracker *tracker)
{
	if (!tracker) {
		return;
	}
	g_array_free(tracker->pending, TRUE);
	g_free(tracker);
}

bool vm_gap_tracker_any(const struct vm_gap_tracker *tracker)
{
	return tracker->pending->len > 0;
}

static int find(const struct vm_gap_tracker *tracker, uint64_t stream)
{
	for (guint i = 0; i < tracker->pending->len; i++) {
		if (g_array_index(tracker->pending, struct pending, i).found.gap.stream == stream) {
			return (int) i;
		}
	}
	return -1;
}

/* Hands out pending loss `index` as it stands, and forgets it. */
static void take(struct vm_gap_tracker *tracker, int index, struct vm_tracked_gap *located)
{
	*located = g_array_index(tracker->pending, struct pending, (guint) index).found;
	g_array_remove_index_fast(tracker->pending, (guint) index);
}

bool vm_gap_tracker_loss(struct vm_gap_tracker *tracker, uint64_t stream, uint64_t owner,
		int64_t range_begin, int64_t range_end, int64_t count, bool packets,
		struct vm_tracked_gap *located)
{
	int index = find(tracker, stream);
	struct pending loss = { 0 };
	bool second = index >= 0;

	/* A second loss before the stream's next event: the first ends where it stands. */
	if (second) {
		take(tracker, index, located);
	}
	loss.found.gap.stream = stream;
	loss.found.gap.begin = range_begin;
	/* A range that ends before it begins comes from a broken trace. */
	loss.found.gap.end = range_end < range_begin ? range_begin : range_end;
	loss.found.gap.count = count < 0 ? -1 : count;
	loss.found.gap.packets = packets;
	loss.found.owner = owner;
	loss.found.tag = -1;
	g_array_append_val(tracker->pending, loss);
	return second;
}

bool vm_gap_tracker_event(struct vm_gap_tracker *tracker, uint64_t stream, int64_t ts,
		int64_t tag, struct vm_tracked_gap *located)
{
	struct pending *loss;
	int index;

	if (tracker->pending->len == 0) {
		return false;
	}
	index = find(tracker, stream);
	if (index < 0) {
		return false;
	}
	loss = &g_array_index(tracker->pending, struct pending, (guint) index);
	if (tag >= 0) {
		loss->found.tag = tag;
	}
	if (ts < loss->found.gap.end) {
		/* An event of the packet before the gap: perhaps its last. */
		if (ts > loss->found.gap.begin) {
			loss->found.gap.begin = ts;
		}
		return false;
	}
	take(tracker, index, located);
	return true;
}

int64_t vm_gap_tracker_pending_since(const struct vm_gap_tracker *tracker, uint64_t owner)
{
	int64_t since = INT64_MAX;

	for (guint i = 0; i < tracker->pending->len; i++) {
		const struct vm_tracked_gap *found =
			&g_array_index(tracker->pending, struct pending, i).found;

		if (found->owner == owner) {
			since = MIN(since, found->gap.begin);
		}
	}
	return since;
}

void vm_gap_tracker_flush(struct vm_gap_tracker *tracker, vm_tracked_gap_sink sink,
		void *data)
{
	while (tracker->pending->len > 0) {
		struct vm_tracked_gap located;

		take(tracker, 0, &located);
		sink(&located, data);
	}
}
