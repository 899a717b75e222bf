/*
 * filter.vm.correlate's vm:sync stream: see sync-stream.h.
 */

#include <glib.h>
#include <string.h>

#include "correlate/sync-stream.h"

#define ERROR_CAUSE(stream, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR( \
		(stream)->self_msg_iter, __VA_ARGS__)

/* Payload member indexes, in the order create_payload_class() adds them. */
enum {
	MEMBER_MACHINE,
	MEMBER_METHOD,
	MEMBER_QUALITY,
	MEMBER_SLOPE,
	MEMBER_OFFSET,
	MEMBER_ACCURACY,
	MEMBER_MATCHES,
};

struct sync_stream {
	bt_self_message_iterator *self_msg_iter;
	bt_clock_class *clock_class;   /* the output clock, borrowed */
	bt_trace_class *trace_class;
	bt_stream_class *stream_class;
	bt_event_class *event_class;
	bt_trace *trace;
	bt_stream *stream;
	bt_packet *packet;
	bool open;
};

struct sync_stream *sync_stream_create(bt_self_message_iterator *self_msg_iter,
		bt_clock_class *output_clock_class)
{
	struct sync_stream *stream = g_new0(struct sync_stream, 1);

	stream->self_msg_iter = self_msg_iter;
	stream->clock_class = output_clock_class;
	return stream;
}

static void put_ir(struct sync_stream *stream)
{
	BT_PACKET_PUT_REF_AND_RESET(stream->packet);
	BT_STREAM_PUT_REF_AND_RESET(stream->stream);
	BT_TRACE_PUT_REF_AND_RESET(stream->trace);
	BT_EVENT_CLASS_PUT_REF_AND_RESET(stream->event_class);
	BT_STREAM_CLASS_PUT_REF_AND_RESET(stream->stream_class);
	BT_TRACE_CLASS_PUT_REF_AND_RESET(stream->trace_class);
}

void sync_stream_destroy(struct sync_stream *stream)
{
	if (!stream) {
		return;
	}

	put_ir(stream);
	g_free(stream);
}

static bool add_member(bt_field_class *payload, const char *name, bt_field_class *member)
{
	bool ok = member && bt_field_class_structure_append_member(payload, name, member) ==
		BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

	bt_field_class_put_ref(member);
	return ok;
}

static bt_field_class *create_payload_class(bt_trace_class *trace_class)
{
	bt_field_class *payload = bt_field_class_structure_create(trace_class);

	if (!payload) {
		return NULL;
	}

	if (add_member(payload, "machine", bt_field_class_string_create(trace_class)) &&
			add_member(payload, "method", bt_field_class_string_create(trace_class)) &&
			add_member(payload, "quality", bt_field_class_string_create(trace_class)) &&
			add_member(payload, "slope", bt_field_class_real_double_precision_create(trace_class)) &&
			add_member(payload, "offset_ns", bt_field_class_real_double_precision_create(trace_class)) &&
			add_member(payload, "accuracy", bt_field_class_real_double_precision_create(trace_class)) &&
			add_member(payload, "matches",
				bt_field_class_integer_unsigned_create(trace_class))) {
		return payload;
	}

	bt_field_class_put_ref(payload);
	return NULL;
}

static bool set_env(bt_trace *trace, const char *name, const char *value)
{
	return !value || bt_trace_set_environment_entry_string(trace, name, value) ==
		BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK;
}

static bool create_ir(struct sync_stream *stream, const struct sync_stream_reference *reference)
{
	bt_self_component *self_comp =
		bt_self_message_iterator_borrow_component(stream->self_msg_iter);
	bt_field_class *payload = NULL;

	stream->trace_class = bt_trace_class_create(self_comp);
	if (!stream->trace_class) {
		goto error;
	}

	stream->stream_class = bt_stream_class_create(stream->trace_class);
	if (!stream->stream_class || bt_stream_class_set_default_clock_class(
			stream->stream_class, stream->clock_class) !=
			BT_STREAM_CLASS_SET_DEFAULT_CLOCK_CLASS_STATUS_OK) {
		goto error;
	}

	/* Packets with times: filter.utils.trimmer and seeking to a time need them. */
	bt_stream_class_set_supports_packets(stream->stream_class, BT_TRUE, BT_TRUE, BT_TRUE);
	payload = create_payload_class(stream->trace_class);
	stream->event_class = bt_event_class_create(stream->stream_class);
	if (!payload || !stream->event_class ||
			bt_event_class_set_name(stream->event_class, "vm:sync") !=
				BT_EVENT_CLASS_SET_NAME_STATUS_OK ||
			bt_event_class_set_payload_field_class(stream->event_class, payload) !=
				BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK) {
		goto error;
	}

	BT_FIELD_CLASS_PUT_REF_AND_RESET(payload);
	stream->trace = bt_trace_create(stream->trace_class);
	if (!stream->trace || bt_trace_set_name(stream->trace, "vm-sync") !=
			BT_TRACE_SET_NAME_STATUS_OK ||
			!set_env(stream->trace, "hostname", reference->hostname) ||
			!set_env(stream->trace, "vm_machine", reference->machine) ||
			!set_env(stream->trace, "vm_role", reference->role)) {
		goto error;
	}

	stream->stream = bt_stream_create(stream->stream_class, stream->trace);
	if (!stream->stream) {
		goto error;
	}

	return true;

error:
	bt_field_class_put_ref(payload);
	put_ir(stream);
	ERROR_CAUSE(stream, "Cannot create the trace IR of the vm:sync events (out of memory?).");
	return false;
}

/* A reference time as a value of the output clock (1 GHz, Unix epoch). */
static uint64_t clock_value(int64_t ns)
{
	return ns < 0 ? 0 : (uint64_t) ns;
}

bool sync_stream_begin(struct sync_stream *stream,
		const struct sync_stream_reference *reference, int64_t ns,
		bt_message **stream_beginning, bt_message **packet_beginning)
{
	*stream_beginning = NULL;
	*packet_beginning = NULL;
	if (!stream->trace_class && !create_ir(stream, reference)) {
		return false;
	}

	BT_PACKET_PUT_REF_AND_RESET(stream->packet);
	stream->packet = bt_packet_create(stream->stream);
	*stream_beginning = bt_message_stream_beginning_create(stream->self_msg_iter,
		stream->stream);
	*packet_beginning = stream->packet ?
		bt_message_packet_beginning_create_with_default_clock_snapshot(
			stream->self_msg_iter, stream->packet, clock_value(ns)) : NULL;
	if (!*stream_beginning || !*packet_beginning) {
		BT_MESSAGE_PUT_REF_AND_RESET(*stream_beginning);
		BT_MESSAGE_PUT_REF_AND_RESET(*packet_beginning);
		ERROR_CAUSE(stream, "Cannot begin the vm:sync stream (out of memory?).");
		return false;
	}

	stream->open = true;
	return true;
}

static bool set_string(bt_field *payload, uint64_t index, const char *value)
{
	return bt_field_string_set_value(bt_field_structure_borrow_member_field_by_index(
		payload, index), value) == BT_FIELD_STRING_SET_VALUE_STATUS_OK;
}

static void set_real(bt_field *payload, uint64_t index, long double value)
{
	bt_field_real_double_precision_set_value(
		bt_field_structure_borrow_member_field_by_index(payload, index), (double) value);
}

bt_message *sync_stream_event(struct sync_stream *stream, const char *machine,
		const char *method, const struct vm_sync_segment *segment, int64_t ns)
{
	bt_message *msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		stream->self_msg_iter, stream->event_class, stream->packet, clock_value(ns));
	bt_field *payload;

	if (!msg) {
		ERROR_CAUSE(stream, "Cannot create a vm:sync event (out of memory?).");
		return NULL;
	}

	payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	if (!set_string(payload, MEMBER_MACHINE, machine) ||
			!set_string(payload, MEMBER_METHOD, method) ||
			!set_string(payload, MEMBER_QUALITY, vm_sync_quality_name(segment->quality))) {
		bt_message_put_ref(msg);
		ERROR_CAUSE(stream, "Cannot fill a vm:sync event (out of memory?).");
		return NULL;
	}

	set_real(payload, MEMBER_SLOPE, segment->formula.slope);
	set_real(payload, MEMBER_OFFSET, segment->formula.offset_ns);
	set_real(payload, MEMBER_ACCURACY, segment->accuracy);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(payload, MEMBER_MATCHES),
		segment->matches);
	return msg;
}

void sync_stream_rewind(struct sync_stream *stream)
{
	stream->open = false;
}

bool sync_stream_is_open(const struct sync_stream *stream)
{
	return stream->open;
}

bool sync_stream_end(struct sync_stream *stream, int64_t ns, bt_message **packet_end,
		bt_message **stream_end)
{
	stream->open = false;
	*packet_end = bt_message_packet_end_create_with_default_clock_snapshot(
		stream->self_msg_iter, stream->packet, clock_value(ns));
	*stream_end = bt_message_stream_end_create(stream->self_msg_iter, stream->stream);
	if (!*packet_end || !*stream_end) {
		BT_MESSAGE_PUT_REF_AND_RESET(*packet_end);
		BT_MESSAGE_PUT_REF_AND_RESET(*stream_end);
		ERROR_CAUSE(stream, "Cannot end the vm:sync stream (out of memory?).");
		return false;
	}

	return true;
}
