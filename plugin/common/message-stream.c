/*
 * The stream of a message: see message-stream.h.
 */

#include "common/message-stream.h"

const bt_stream *vm_message_stream(const bt_message *msg)
{
	return vm_message_stream_of_type(msg, bt_message_get_type(msg));
}

const bt_stream *vm_message_stream_of_type(const bt_message *msg,
		bt_message_type type)
{
	switch (type) {
	case BT_MESSAGE_TYPE_EVENT:
		return bt_event_borrow_stream_const(bt_message_event_borrow_event_const(msg));
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_packet_borrow_stream_const(
			bt_message_packet_beginning_borrow_packet_const(msg));
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_packet_borrow_stream_const(
			bt_message_packet_end_borrow_packet_const(msg));
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_message_discarded_events_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_message_discarded_packets_borrow_stream_const(msg);
	default:
		return NULL;
	}
}
