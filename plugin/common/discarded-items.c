/*
 * What a discarded-events or -packets message says: see discarded-items.h.
 */

#include "common/discarded-items.h"
#include "common/msg-time.h"

void discarded_items_get(const bt_message *msg, struct discarded_items *out)
{
	const bt_stream_class *stream_class;
	uint64_t count;
	bt_property_availability available;

	out->packets = bt_message_get_type(msg) == BT_MESSAGE_TYPE_DISCARDED_PACKETS;
	if (out->packets) {
		out->stream = bt_message_discarded_packets_borrow_stream_const(msg);
		stream_class = bt_stream_borrow_class_const(out->stream);
		out->has_range =
			bt_stream_class_discarded_packets_have_default_clock_snapshots(
				stream_class) &&
			msg_time_snapshot_ns(bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg),
				&out->begin) &&
			msg_time_snapshot_ns(bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg),
				&out->end);
		available = bt_message_discarded_packets_get_count(msg, &count);
	} else {
		out->stream = bt_message_discarded_events_borrow_stream_const(msg);
		stream_class = bt_stream_borrow_class_const(out->stream);
		out->has_range =
			bt_stream_class_discarded_events_have_default_clock_snapshots(
				stream_class) &&
			msg_time_snapshot_ns(bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg),
				&out->begin) &&
			msg_time_snapshot_ns(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg),
				&out->end);
		available = bt_message_discarded_events_get_count(msg, &count);
	}
	out->count = available == BT_PROPERTY_AVAILABILITY_AVAILABLE &&
		count <= INT64_MAX ? (int64_t) count : -1;
}
