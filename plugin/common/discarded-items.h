#ifndef VM_COMMON_DISCARDED_ITEMS_H
#define VM_COMMON_DISCARDED_ITEMS_H

/*
 * What a discarded-events or -packets message says, read once for the two
 * components that locate lost events (filter.vm.state, sink.vm.threads).
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

struct discarded_items {
	const bt_stream *stream;  /* borrowed */
	bool packets;             /* discarded packets rather than events */
	bool has_range;           /* the stream class gives it clock snapshots */
	int64_t begin, end;       /* ns from origin, when has_range */
	int64_t count;            /* -1: not known */
};

/* `msg` must be a discarded-events or -packets message. */
void discarded_items_get(const bt_message *msg, struct discarded_items *out);

#endif /* VM_COMMON_DISCARDED_ITEMS_H */
