#ifndef VM_LOSS_GAP_LOCATOR_H
#define VM_LOSS_GAP_LOCATOR_H

/*
 * Where, in a time-ordered sequence of messages, the events that a tracer
 * discarded were lost (SPEC "Lost events").
 *
 * A discarded-events (or -packets) message says that somewhere in
 * [range_begin, range_end] a stream lost events. With lttng-modules' layout
 * (src.ctf.fs emits the message before the packet whose events_discarded
 * counter grew, with the range [end of the packet before, end of that
 * packet]) the packet's own events are good and the gap is at its end: from
 * the stream's last event before range_end to range_end. That last event is
 * known only once the sequence has passed range_end, so the locator holds
 * back what comes after the stream's latest event while a loss is pending,
 * then hands out the gap (right after that last event) and the held items in
 * their order. Nothing else is held, so what is held spans at most the
 * time from one event of the stream to the next, or to range_end.
 *
 * Items are opaque cookies; the locator never looks into them. No
 * babeltrace2 types.
 */

#include <stdbool.h>
#include <stdint.h>

struct vm_gap_locator;

/* One located gap: the stream recorded nothing in [begin, end]. */
struct vm_gap {
	uint64_t stream;     /* the caller's stream key */
	int64_t begin;       /* the stream's last event before `end`, else range_begin */
	int64_t end;         /* the discarded range's end */
	int64_t count;       /* -1: unknown */
	bool packets;        /* discarded packets rather than events */
};

struct vm_gap_locator_callbacks {
	/* An item leaves the locator, in the order it came in. */
	void (*release)(void *cookie, void *data);
	/*
	 * A gap, handed out right after the stream's last event before it
	 * (and before every item later than gap->begin). The discarded
	 * message itself is an item like the others: it is released in its
	 * own place (before the packet it precedes), so each stream's
	 * messages keep their order.
	 */
	void (*gap)(const struct vm_gap *gap, void *data);
	void *data;
};

/*
 * `max_held`: the most items held at once (0: 65536). Past it, or past
 * `max_span_ns` of trace time held (0: 1 s), the pending losses are
 * located where the stream's events seen so far put them: earlier than the
 * gap may be (a vCPU preempted for 10 ms records nothing meanwhile, and a
 * gap put at its last event would leave its thread unknown for those 10 ms
 * too), so the span is long and the count, which bounds the memory, rules.
 */
struct vm_gap_locator *vm_gap_locator_create(const struct vm_gap_locator_callbacks *cb,
		uint64_t max_held, int64_t max_span_ns);

/* Releases what is still held, in order, then frees the locator. */
void vm_gap_locator_destroy(struct vm_gap_locator *locator);

/*
 * An item of `stream` at `ts` (times never go back across pushes, as in a
 * muxed sequence). `is_event`: an event of the stream, which may be the last
 * one before a pending gap; other items (packet boundaries, stream
 * messages, items of no stream: pass stream UINT64_MAX) only move time on.
 */
void vm_gap_locator_push(struct vm_gap_locator *locator, uint64_t stream, int64_t ts,
		bool is_event, void *cookie);

/* A discarded-events/packets message of `stream` (count -1: unknown). */
void vm_gap_locator_push_loss(struct vm_gap_locator *locator, uint64_t stream,
		int64_t range_begin, int64_t range_end, int64_t count, bool packets,
		void *cookie);

/* Locates every pending gap and releases everything, in order (end of input). */
void vm_gap_locator_flush(struct vm_gap_locator *locator);

/* Items held right now (for tests and benchmarks). */
uint64_t vm_gap_locator_held(const struct vm_gap_locator *locator);

#endif /* VM_LOSS_GAP_LOCATOR_H */
