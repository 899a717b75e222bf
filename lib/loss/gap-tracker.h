#ifndef VM_LOSS_GAP_TRACKER_H
#define VM_LOSS_GAP_TRACKER_H

/*
 * Where a stream's lost events were (SPEC "Lost events"), for a reader that
 * only needs to know it before the stream's next event, and never holds
 * anything back (gap-locator.h, which also puts the gap in its place among
 * every stream's messages, is for those that do).
 *
 * A discarded-events (or -packets) message of a stream comes before the
 * packet whose events_discarded counter grew; that packet's events are
 * good, and the gap runs from the stream's last event before the range's
 * end to that end. So after vm_gap_tracker_loss(), each event of the
 * stream is given to vm_gap_tracker_event(): the first one at or after
 * the range's end hands out the gap, before it is taken into account.
 *
 * Streams are the caller's keys; each loss carries an `owner` (such as a
 * machine) that comes back with its gap, and each event a `tag` (such as
 * its CPU): the gap gets the tag of the stream's events seen since the
 * loss (-1 when none), so that a gap at the very end, which no event
 * follows, still says whose it is.
 *
 * No babeltrace2 types.
 */

#include <stdbool.h>
#include <stdint.h>

#include "loss/gap-locator.h"

struct vm_gap_tracker;

/* A located gap. */
struct vm_tracked_gap {
	struct vm_gap gap;
	uint64_t owner;
	int64_t tag;
};

struct vm_gap_tracker *vm_gap_tracker_create(void);
void vm_gap_tracker_destroy(struct vm_gap_tracker *tracker);

/*
 * A loss of `stream` over [range_begin, range_end] (count -1: unknown).
 * True when it located a loss of the stream still pending (the stream lost
 * events again before any event came after the first range): `*located`
 * then gets that first gap.
 */
bool vm_gap_tracker_loss(struct vm_gap_tracker *tracker, uint64_t stream, uint64_t owner,
		int64_t range_begin, int64_t range_end, int64_t count, bool packets,
		struct vm_tracked_gap *located);

/*
 * An event of `stream` at `ts`, of tag `tag`. True when it is the first
 * after a pending loss's range: `*located` gets the gap, which is before
 * this event.
 */
bool vm_gap_tracker_event(struct vm_gap_tracker *tracker, uint64_t stream, int64_t ts,
		int64_t tag, struct vm_tracked_gap *located);

/* Whether a loss is pending. */
bool vm_gap_tracker_any(const struct vm_gap_tracker *tracker);

/*
 * The earliest time from which a pending loss of `owner` may have lost
 * events (INT64_MAX when none is pending): what is known of its streams is
 * complete up to there only.
 */
int64_t vm_gap_tracker_pending_since(const struct vm_gap_tracker *tracker, uint64_t owner);

typedef void (*vm_tracked_gap_sink)(const struct vm_tracked_gap *gap, void *data);

/* The end of the input: every pending loss is located where its stream stands. */
void vm_gap_tracker_flush(struct vm_gap_tracker *tracker, vm_tracked_gap_sink sink,
		void *data);

#endif /* VM_LOSS_GAP_TRACKER_H */
