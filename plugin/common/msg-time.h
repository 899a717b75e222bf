#ifndef VM_COMMON_MSG_TIME_H
#define VM_COMMON_MSG_TIME_H

/*
 * The stream and the default clock snapshot of any upstream message, in one
 * call: the one reader of message times of the three components (ordering
 * and overlap repair, the gap locator's input order, the time the vCPU
 * stream ends at).
 */

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

/* The small members last: correlate keeps one per held message (no padding). */
struct msg_time {
	const bt_stream *stream;   /* NULL for an iterator inactivity message */
	/* Of the snapshot (NULL without one). */
	const bt_clock_class *clock_class;
	uint64_t value;            /* clock cycles (for a time range: its beginning) */
	int64_t ns;                /* ns from the clock's origin */
	uint64_t end_value;        /* end of a discarded time range, else value */
	bt_message_type type;      /* asked once: callers test it again */
	bool has_time;             /* the message carries a known clock snapshot */
	bool overflows;            /* it does, but its ns from origin overflow */
};

void msg_time_get(const bt_message *msg, struct msg_time *out);

/*
 * ns from origin of `snapshot` (NULL: none); false without one or when it
 * overflows, with no error cause left on the thread.
 */
bool msg_time_snapshot_ns(const bt_clock_snapshot *snapshot, int64_t *ns);

/*
 * Whether the message of `time` closes something whose end time older LTTng
 * got wrong (packet end, discarded events or packets with times).
 */
bool msg_time_is_range_end(const struct msg_time *time);

#endif /* VM_COMMON_MSG_TIME_H */
