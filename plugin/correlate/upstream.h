#ifndef VM_CORRELATE_UPSTREAM_H
#define VM_CORRELATE_UPSTREAM_H

/*
 * One upstream message iterator of filter.vm.correlate, read one message at
 * a time, with the overlap repair that old LTTng traces need.
 *
 * lttng-modules 2.1 wrote packets whose end time is a little after the next
 * packet's beginning time (the events themselves are in order). Times that go
 * back within a stream would break the output order, so a packet end or a
 * discarded-items message is held until the next message of its stream shows
 * where it must end, and is re-created with its time (the beginning of a
 * discarded range) clamped between the stream's previous time and that next
 * time. A discarded range's end is left alone: src.ctf.fs ends it with the
 * packet that follows it, after that packet's beginning, on every loss.
 */

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

#include "common/msg-time.h"

struct upstream {
	bt_message_iterator *iterator;
	bool ended;

	/* The current batch from the iterator. */
	bt_message_array_const batch;
	uint64_t batch_count;
	uint64_t batch_pos;

	/* Messages waiting for the next message of their stream (owned). */
	GQueue held;
	const bt_stream *held_stream;

	/* Messages repaired and ready to hand out (owned). */
	GQueue ready;

	/* Stream and clock value of the last timed message handed out. */
	const bt_stream *last_stream;
	uint64_t last_value;
};

enum upstream_status {
	UPSTREAM_OK,
	UPSTREAM_END,
	UPSTREAM_AGAIN,
	UPSTREAM_ERROR,
	UPSTREAM_MEMORY_ERROR,
};

void upstream_init(struct upstream *upstream, bt_message_iterator *iterator);

/* Puts every reference it holds, the iterator's too. */
void upstream_fini(struct upstream *upstream);

/* Drops what was read ahead, for a seek to the beginning. */
void upstream_reset(struct upstream *upstream);

/*
 * The next message (a new reference) and its time. `*repaired` tells that
 * the times of a held message had to be clamped (the caller warns).
 */
enum upstream_status upstream_next(struct upstream *upstream,
		bt_self_message_iterator *self_msg_iter, const bt_message **msg,
		struct msg_time *time, bool *repaired);

#endif /* VM_CORRELATE_UPSTREAM_H */
