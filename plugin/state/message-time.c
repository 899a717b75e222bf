#include "state/message-time.h"

static bool snapshot_ns(const bt_clock_snapshot *snapshot, int64_t *ns)
{
	if (!snapshot)
		return false;
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, ns) !=
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		/* An error cause must not stay on the thread. */
		bt_current_thread_clear_error();
		return false;
	}
	return true;
}

static const bt_clock_snapshot *event_snapshot(const bt_message *msg)
{
	const bt_stream_class *stream_class = bt_stream_borrow_class_const(
		bt_event_borrow_stream_const(bt_message_event_borrow_event_const(msg)));

	return bt_stream_class_borrow_default_clock_class_const(stream_class) ?
		bt_message_event_borrow_default_clock_snapshot_const(msg) : NULL;
}

static const bt_clock_snapshot *packet_snapshot(const bt_message *msg, bool beginning)
{
	const bt_packet *packet = beginning ?
		bt_message_packet_beginning_borrow_packet_const(msg) :
		bt_message_packet_end_borrow_packet_const(msg);
	const bt_stream_class *stream_class =
		bt_stream_borrow_class_const(bt_packet_borrow_stream_const(packet));

	if (beginning)
		return bt_stream_class_packets_have_beginning_default_clock_snapshot(
				stream_class) ?
			bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg) :
			NULL;
	return bt_stream_class_packets_have_end_default_clock_snapshot(stream_class) ?
		bt_message_packet_end_borrow_default_clock_snapshot_const(msg) : NULL;
}

bool message_time_ns(const bt_message *msg, int64_t *ns)
{
	struct discarded_items items;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return snapshot_ns(event_snapshot(msg), ns);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return snapshot_ns(packet_snapshot(msg, true), ns);
	case BT_MESSAGE_TYPE_PACKET_END:
		return snapshot_ns(packet_snapshot(msg, false), ns);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		discarded_items_get(msg, &items);
		*ns = items.begin;
		return items.has_range;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return snapshot_ns(
			bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg),
			ns);
	default:
		/* Stream beginnings and ends: their times may be unknown. */
		return false;
	}
}

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
			snapshot_ns(bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg),
				&out->begin) &&
			snapshot_ns(bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg),
				&out->end);
		available = bt_message_discarded_packets_get_count(msg, &count);
	} else {
		out->stream = bt_message_discarded_events_borrow_stream_const(msg);
		stream_class = bt_stream_borrow_class_const(out->stream);
		out->has_range =
			bt_stream_class_discarded_events_have_default_clock_snapshots(
				stream_class) &&
			snapshot_ns(bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg),
				&out->begin) &&
			snapshot_ns(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg),
				&out->end);
		available = bt_message_discarded_events_get_count(msg, &count);
	}
	out->count = available == BT_PROPERTY_AVAILABILITY_AVAILABLE &&
		count <= INT64_MAX ? (int64_t) count : -1;
}
