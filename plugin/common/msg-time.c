/*
 * Stream and time of an upstream message: see msg-time.h.
 */

#include "common/msg-time.h"

static void set_snapshot(struct msg_time *out, const bt_clock_snapshot *snapshot)
{
	out->clock_class = bt_clock_snapshot_borrow_clock_class_const(snapshot);
	out->value = bt_clock_snapshot_get_value(snapshot);
	out->end_value = out->value;
	out->has_time = bt_clock_snapshot_get_ns_from_origin(snapshot, &out->ns) ==
		BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK;
	out->overflows = !out->has_time;
	if (out->overflows) {
		/*
		 * Expected, and told by `overflows`: whoever needs the time
		 * reports it. The library's cause must not stay behind, or the
		 * next API call would abort.
		 */
		bt_current_thread_clear_error();
	}
}

static void stream_message_time(const bt_message *msg, struct msg_time *out,
		bool beginning)
{
	const bt_clock_snapshot *snapshot = NULL;
	bt_message_stream_clock_snapshot_state state;

	out->stream = beginning ? bt_message_stream_beginning_borrow_stream_const(msg) :
		bt_message_stream_end_borrow_stream_const(msg);
	if (!bt_stream_class_borrow_default_clock_class_const(
			bt_stream_borrow_class_const(out->stream))) {
		return;
	}

	state = beginning ?
		bt_message_stream_beginning_borrow_default_clock_snapshot_const(msg, &snapshot) :
		bt_message_stream_end_borrow_default_clock_snapshot_const(msg, &snapshot);
	if (state == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN) {
		set_snapshot(out, snapshot);
	}
}

static void packet_message_time(const bt_message *msg, struct msg_time *out,
		bool beginning)
{
	const bt_packet *packet = beginning ?
		bt_message_packet_beginning_borrow_packet_const(msg) :
		bt_message_packet_end_borrow_packet_const(msg);
	const bt_stream_class *stream_class;

	out->stream = bt_packet_borrow_stream_const(packet);
	stream_class = bt_stream_borrow_class_const(out->stream);
	if (beginning && bt_stream_class_packets_have_beginning_default_clock_snapshot(
			stream_class)) {
		set_snapshot(out,
			bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg));
	} else if (!beginning && bt_stream_class_packets_have_end_default_clock_snapshot(
			stream_class)) {
		set_snapshot(out, bt_message_packet_end_borrow_default_clock_snapshot_const(msg));
	}
}

static void discarded_message_time(const bt_message *msg, struct msg_time *out,
		bool events)
{
	const bt_stream_class *stream_class;
	bool with_times;

	out->stream = events ? bt_message_discarded_events_borrow_stream_const(msg) :
		bt_message_discarded_packets_borrow_stream_const(msg);
	stream_class = bt_stream_borrow_class_const(out->stream);
	with_times = events ?
		bt_stream_class_discarded_events_have_default_clock_snapshots(stream_class) :
		bt_stream_class_discarded_packets_have_default_clock_snapshots(stream_class);
	if (!with_times) {
		return;
	}

	set_snapshot(out, events ?
		bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg) :
		bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg));
	out->end_value = bt_clock_snapshot_get_value(events ?
		bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg) :
		bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg));
}

void msg_time_get(const bt_message *msg, struct msg_time *out)
{
	*out = (struct msg_time) { .type = bt_message_get_type(msg) };

	switch (out->type) {
	case BT_MESSAGE_TYPE_EVENT: {
		const bt_event *event = bt_message_event_borrow_event_const(msg);

		out->stream = bt_event_borrow_stream_const(event);
		if (bt_stream_class_borrow_default_clock_class_const(
				bt_stream_borrow_class_const(out->stream))) {
			set_snapshot(out,
				bt_message_event_borrow_default_clock_snapshot_const(msg));
		}

		break;
	}
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		stream_message_time(msg, out, true);
		break;
	case BT_MESSAGE_TYPE_STREAM_END:
		stream_message_time(msg, out, false);
		break;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		packet_message_time(msg, out, true);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		packet_message_time(msg, out, false);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		discarded_message_time(msg, out, true);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		discarded_message_time(msg, out, false);
		break;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		set_snapshot(out,
			bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg));
		break;
	default:
		break;
	}
}

bool msg_time_is_range_end(const struct msg_time *time)
{
	bt_message_type type = time->type;

	return time->has_time && (type == BT_MESSAGE_TYPE_PACKET_END ||
		type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
		type == BT_MESSAGE_TYPE_DISCARDED_PACKETS);
}

bool msg_time_snapshot_ns(const bt_clock_snapshot *snapshot, int64_t *ns)
{
	if (!snapshot) {
		return false;
	}
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, ns) ==
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		return true;
	}
	/* The library's cause must not stay: the time is just not known. */
	bt_current_thread_clear_error();
	return false;
}
