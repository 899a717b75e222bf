/*
 * The gap locator: see gap-locator.h.
 *
 * While no loss is pending, items go straight through. A pending loss holds
 * every item that came after its stream's latest event (the gap is placed
 * right after that event), until the sequence passes the discarded range's
 * end: then the gap is inserted at its place and the items that no other
 * pending loss holds leave, in order.
 */

#include <glib.h>

#include "loss/gap-locator.h"
#include "util/time-span.h"

#define DEFAULT_MAX_HELD 65536
#define DEFAULT_MAX_SPAN_NS INT64_C(1000000000)

struct held_entry {
	uint64_t seq;
	int64_t ts;
	bool is_gap;
	void *cookie;        /* an item's cookie */
	struct vm_gap gap;   /* when is_gap */
};

struct pending_loss {
	struct vm_gap gap;   /* begin: the stream's latest event so far */
	/* Items from this sequence number on are held for this loss. */
	uint64_t hold_from;
};

struct vm_gap_locator {
	struct vm_gap_locator_callbacks cb;
	uint64_t max_held;
	int64_t max_span_ns;

	/* Held entries, in order (struct held_entry *). */
	GQueue held;
	/* Pending losses (struct pending_loss *), at most one per stream. */
	GPtrArray *pending;
	uint64_t next_seq;
};

struct vm_gap_locator *vm_gap_locator_create(const struct vm_gap_locator_callbacks *cb,
		uint64_t max_held, int64_t max_span_ns)
{
	struct vm_gap_locator *locator = g_new0(struct vm_gap_locator, 1);

	locator->cb = *cb;
	locator->max_held = max_held ? max_held : DEFAULT_MAX_HELD;
	locator->max_span_ns = max_span_ns > 0 ? max_span_ns : DEFAULT_MAX_SPAN_NS;
	g_queue_init(&locator->held);
	locator->pending = g_ptr_array_new_with_free_func(g_free);
	return locator;
}

void vm_gap_locator_destroy(struct vm_gap_locator *locator)
{
	if (!locator) {
		return;
	}
	vm_gap_locator_flush(locator);
	g_ptr_array_free(locator->pending, TRUE);
	g_free(locator);
}

uint64_t vm_gap_locator_held(const struct vm_gap_locator *locator)
{
	return locator->held.length;
}

static void release_entry(struct vm_gap_locator *locator, struct held_entry *entry)
{
	if (entry->is_gap) {
		locator->cb.gap(&entry->gap, locator->cb.data);
	} else {
		locator->cb.release(entry->cookie, locator->cb.data);
	}
	g_free(entry);
}

/* The first sequence number that a pending loss still holds. */
static uint64_t hold_barrier(const struct vm_gap_locator *locator)
{
	uint64_t barrier = UINT64_MAX;
	guint i;

	for (i = 0; i < locator->pending->len; i++) {
		const struct pending_loss *loss = g_ptr_array_index(locator->pending, i);

		if (loss->hold_from < barrier) {
			barrier = loss->hold_from;
		}
	}
	return barrier;
}

/* Releases the held entries that no pending loss holds any more. */
static void release_unheld(struct vm_gap_locator *locator)
{
	uint64_t barrier = hold_barrier(locator);
	struct held_entry *head;

	while ((head = g_queue_peek_head(&locator->held)) && head->seq < barrier) {
		release_entry(locator, g_queue_pop_head(&locator->held));
	}
}

/*
 * Puts the gap of pending loss `index` at its place: before the first held
 * entry it holds (the one right after its stream's latest event).
 */
static void locate(struct vm_gap_locator *locator, guint index)
{
	struct pending_loss *loss = g_ptr_array_index(locator->pending, index);
	struct held_entry *entry = g_new0(struct held_entry, 1);
	GList *link;

	entry->is_gap = true;
	entry->gap = loss->gap;
	entry->ts = loss->gap.begin;
	/* Held only as long as the entries around it. */
	entry->seq = loss->hold_from;
	for (link = locator->held.head; link; link = link->next) {
		const struct held_entry *at = link->data;

		if (at->seq >= loss->hold_from) {
			break;
		}
	}
	if (link) {
		g_queue_insert_before(&locator->held, link, entry);
	} else {
		g_queue_push_tail(&locator->held, entry);
	}
	g_ptr_array_remove_index(locator->pending, index);
}

static int find_pending(const struct vm_gap_locator *locator, uint64_t stream)
{
	guint i;

	for (i = 0; i < locator->pending->len; i++) {
		const struct pending_loss *loss = g_ptr_array_index(locator->pending, i);

		if (loss->gap.stream == stream) {
			return (int) i;
		}
	}
	return -1;
}

/*
 * Locates the losses that an item of `stream` at `ts` ends: the sequence
 * has passed their range's end (strictly, or on their own stream, whose
 * next packet begins at that end).
 */
static void locate_passed(struct vm_gap_locator *locator, uint64_t stream, int64_t ts)
{
	guint i = 0;

	while (i < locator->pending->len) {
		const struct pending_loss *loss = g_ptr_array_index(locator->pending, i);

		if (ts > loss->gap.end || (stream == loss->gap.stream && ts >= loss->gap.end)) {
			locate(locator, i);
		} else {
			i++;
		}
	}
}

/* Past the limits, the pending losses are placed where their streams stand. */
static void enforce_limits(struct vm_gap_locator *locator, int64_t ts)
{
	const struct held_entry *head = g_queue_peek_head(&locator->held);

	if (!head) {
		return;
	}
	if (locator->held.length <= locator->max_held &&
			!vm_time_span_exceeds(ts, head->ts, locator->max_span_ns)) {
		return;
	}
	while (locator->pending->len) {
		locate(locator, 0);
	}
}

static void hold(struct vm_gap_locator *locator, int64_t ts, void *cookie)
{
	struct held_entry *entry = g_new0(struct held_entry, 1);

	entry->seq = locator->next_seq++;
	entry->ts = ts;
	entry->cookie = cookie;
	g_queue_push_tail(&locator->held, entry);
}

void vm_gap_locator_push(struct vm_gap_locator *locator, uint64_t stream, int64_t ts,
		bool is_event, void *cookie)
{
	int index;

	if (locator->pending->len == 0 && locator->held.length == 0) {
		/* The common case: no loss pending, nothing to keep in order. */
		locator->cb.release(cookie, locator->cb.data);
		return;
	}

	locate_passed(locator, stream, ts);
	index = find_pending(locator, stream);
	hold(locator, ts, cookie);
	if (index >= 0 && is_event) {
		struct pending_loss *loss = g_ptr_array_index(locator->pending, index);

		/* Perhaps the last event before the gap: what follows waits. */
		if (ts > loss->gap.begin) {
			loss->gap.begin = ts;
		}
		loss->hold_from = locator->next_seq;
	}
	enforce_limits(locator, ts);
	release_unheld(locator);
}

void vm_gap_locator_push_loss(struct vm_gap_locator *locator, uint64_t stream,
		int64_t range_begin, int64_t range_end, int64_t count, bool packets,
		void *cookie)
{
	struct pending_loss *loss;
	int index;

	locate_passed(locator, stream, range_begin);
	/* A second loss of a stream places the first where the stream stands. */
	index = find_pending(locator, stream);
	if (index >= 0) {
		locate(locator, (guint) index);
	}

	hold(locator, range_begin, cookie);
	loss = g_new0(struct pending_loss, 1);
	loss->gap.stream = stream;
	loss->gap.begin = range_begin;
	/* A range that ends before it begins comes from a broken trace. */
	loss->gap.end = range_end < range_begin ? range_begin : range_end;
	loss->gap.count = count < 0 ? -1 : count;
	loss->gap.packets = packets;
	loss->hold_from = locator->next_seq;
	g_ptr_array_add(locator->pending, loss);
	enforce_limits(locator, range_begin);
	release_unheld(locator);
}

void vm_gap_locator_flush(struct vm_gap_locator *locator)
{
	while (locator->pending->len) {
		locate(locator, 0);
	}
	release_unheld(locator);
}
