#ifndef VM_PLUGIN_STATE_MESSAGE_TIME_H
#define VM_PLUGIN_STATE_MESSAGE_TIME_H

/*
 * The times filter.vm.state gives the gap locator (lib/loss/gap-locator.h):
 * those by which the input is ordered, in ns from origin, and what a
 * discarded-events or -packets message says.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The time of `msg` in the input's order (an event's, a packet boundary's,
 * a discarded range's beginning, an inactivity's); false if it has none,
 * or one that 64-bit ns from origin cannot hold.
 */
bool message_time_ns(const bt_message *msg, int64_t *ns);

/* What a discarded-events or -packets message says. */
struct discarded_items {
	const bt_stream *stream;  /* borrowed */
	bool packets;             /* discarded packets rather than events */
	bool has_range;           /* the stream class gives it clock snapshots */
	int64_t begin, end;       /* ns from origin, when has_range */
	int64_t count;            /* -1: not known */
};

/* `msg` must be a discarded-events or -packets message. */
void discarded_items_get(const bt_message *msg, struct discarded_items *out);

#endif /* VM_PLUGIN_STATE_MESSAGE_TIME_H */
