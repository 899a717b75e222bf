#include <inttypes.h>
#include <string.h>

#include "state/vcpu-stream.h"

#define ERROR_CAUSE(stream, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR( \
		(stream)->self_msg_iter, __VA_ARGS__)

/* Payload member indexes, in the order vcpu_stream_create_ir() adds them. */
enum {
	MEMBER_VM,
	MEMBER_VCPU,
	MEMBER_MODE,
	MEMBER_HOST_TID,
	MEMBER_PCPU,
	MEMBER_EXIT_REASON,
};

/* A string's length, kept while the same string comes back. */
struct text_length {
	const char *text;
	uint64_t length;
};

/* Slots of the mode name lengths (modes are a handful of small numbers). */
#define MODE_LENGTHS 8

struct vcpu_stream {
	bt_self_message_iterator *self_msg_iter;
	/*
	 * Lengths of the strings written, by address: the VM names live as
	 * long as the iterator's machine names, the mode names are static.
	 */
	struct text_length vm_name_length;
	struct text_length mode_lengths[MODE_LENGTHS];
	/* Created with the first change (its clock class is needed). */
	bt_trace_class *trace_class;
	bt_stream_class *stream_class;
	bt_event_class *event_class;
	bt_trace *trace;
	bt_stream *stream;
	const bt_clock_class *clock_class;
	/* The open packet while the stream has begun. */
	bt_packet *packet;
	bool begun;
	/* It began since the creation or the last rewind. */
	bool began_once;
	/* Clock value of the last event of the open packet. */
	uint64_t last_value;
};

struct vcpu_stream *vcpu_stream_create(bt_self_message_iterator *self_msg_iter)
{
	struct vcpu_stream *stream = g_new0(struct vcpu_stream, 1);

	stream->self_msg_iter = self_msg_iter;
	return stream;
}

/* Drops the trace IR (none is left half made: it is made again, whole). */
static void put_ir(struct vcpu_stream *stream)
{
	BT_PACKET_PUT_REF_AND_RESET(stream->packet);
	BT_STREAM_PUT_REF_AND_RESET(stream->stream);
	BT_TRACE_PUT_REF_AND_RESET(stream->trace);
	BT_EVENT_CLASS_PUT_REF_AND_RESET(stream->event_class);
	BT_STREAM_CLASS_PUT_REF_AND_RESET(stream->stream_class);
	BT_TRACE_CLASS_PUT_REF_AND_RESET(stream->trace_class);
	BT_CLOCK_CLASS_PUT_REF_AND_RESET(stream->clock_class);
}

void vcpu_stream_destroy(struct vcpu_stream *stream)
{
	if (!stream) {
		return;
	}
	put_ir(stream);
	g_free(stream);
}

static bool add_member(bt_field_class *payload, const char *name,
		bt_field_class *member)
{
	bool ok = member && bt_field_class_structure_append_member(payload,
		name, member) == BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

	bt_field_class_put_ref(member);
	return ok;
}

static bt_field_class *create_payload_class(bt_trace_class *trace_class)
{
	bt_field_class *payload = bt_field_class_structure_create(trace_class);

	if (!payload) {
		return NULL;
	}
	if (add_member(payload, "vm", bt_field_class_string_create(trace_class)) &&
			add_member(payload, "vcpu",
				bt_field_class_integer_unsigned_create(trace_class)) &&
			add_member(payload, "mode",
				bt_field_class_string_create(trace_class)) &&
			add_member(payload, "host_tid",
				bt_field_class_integer_signed_create(trace_class)) &&
			add_member(payload, "pcpu",
				bt_field_class_integer_signed_create(trace_class)) &&
			add_member(payload, "exit_reason",
				bt_field_class_integer_signed_create(trace_class))) {
		return payload;
	}
	bt_field_class_put_ref(payload);
	return NULL;
}

static bool create_event_class(struct vcpu_stream *stream)
{
	bt_field_class *payload = create_payload_class(stream->trace_class);
	bool ok;

	stream->event_class = bt_event_class_create(stream->stream_class);
	ok = payload && stream->event_class &&
		bt_event_class_set_name(stream->event_class, "vm:vcpu_state") ==
			BT_EVENT_CLASS_SET_NAME_STATUS_OK &&
		bt_event_class_set_payload_field_class(stream->event_class,
			payload) == BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK;
	bt_field_class_put_ref(payload);
	return ok;
}

/* Copies a string entry of the host trace's environment, if it has it. */
static bool copy_env(bt_trace *trace, const bt_trace *host_trace,
		const char *name)
{
	const bt_value *value =
		bt_trace_borrow_environment_entry_value_by_name_const(host_trace,
			name);

	if (!value || !bt_value_is_string(value)) {
		return true;
	}
	return bt_trace_set_environment_entry_string(trace, name,
		bt_value_string_get(value)) ==
		BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK;
}

static bool create_ir(struct vcpu_stream *stream, const bt_trace *host_trace,
		const bt_clock_class *clock_class)
{
	bt_self_component *self_comp =
		bt_self_message_iterator_borrow_component(stream->self_msg_iter);

	stream->trace_class = bt_trace_class_create(self_comp);
	if (!stream->trace_class) {
		goto error;
	}
	stream->stream_class = bt_stream_class_create(stream->trace_class);
	if (!stream->stream_class) {
		goto error;
	}
	/* The upstream clock class itself: times need no conversion. */
	if (bt_stream_class_set_default_clock_class(stream->stream_class,
			(bt_clock_class *) clock_class) !=
			BT_STREAM_CLASS_SET_DEFAULT_CLOCK_CLASS_STATUS_OK) {
		goto error;
	}
	stream->clock_class = clock_class;
	bt_clock_class_get_ref(clock_class);
	/*
	 * Packets with times: filter.utils.trimmer refuses a stream whose
	 * packets have none, and babeltrace2's seek to a time needs every
	 * message to have one.
	 */
	bt_stream_class_set_supports_packets(stream->stream_class, BT_TRUE,
		BT_TRUE, BT_TRUE);
	if (!create_event_class(stream)) {
		goto error;
	}
	stream->trace = bt_trace_create(stream->trace_class);
	if (!stream->trace || bt_trace_set_name(stream->trace, "vm-state") !=
			BT_TRACE_SET_NAME_STATUS_OK ||
			!copy_env(stream->trace, host_trace, "hostname") ||
			!copy_env(stream->trace, host_trace, "vm_machine") ||
			!copy_env(stream->trace, host_trace, "vm_role")) {
		goto error;
	}
	stream->stream = bt_stream_create(stream->stream_class, stream->trace);
	if (!stream->stream) {
		goto error;
	}
	return true;

error:
	put_ir(stream);
	ERROR_CAUSE(stream, "Cannot create the trace IR of the vm:vcpu_state "
		"events (out of memory?).");
	return false;
}

static bool append(struct vcpu_stream *stream, struct msg_ring *out, bt_message *msg)
{
	if (!msg) {
		ERROR_CAUSE(stream, "Cannot create a message of the vm:vcpu_state "
			"stream (out of memory?).");
		return false;
	}
	msg_ring_push(out, msg);
	return true;
}

/* The stream and its packet begin at `value`, the time of its first event. */
static bool begin(struct vcpu_stream *stream, struct msg_ring *out, uint64_t value)
{
	bt_packet_put_ref(stream->packet);
	stream->packet = bt_packet_create(stream->stream);
	if (!stream->packet) {
		ERROR_CAUSE(stream, "Cannot create a packet of the vm:vcpu_state "
			"stream (out of memory?).");
		return false;
	}
	stream->begun = true;
	stream->began_once = true;
	stream->last_value = value;
	return append(stream, out, bt_message_stream_beginning_create(
			stream->self_msg_iter, stream->stream)) &&
		append(stream, out,
			bt_message_packet_beginning_create_with_default_clock_snapshot(
				stream->self_msg_iter, stream->packet, value));
}

/*
 * The value, in cycles of our clock, of `ns` from the origin: used only
 * when a change comes from an event of another clock class. False, with an
 * error cause, when our clock cannot hold it: a clamped time would put the
 * event out of order.
 */
static bool cycles_of_ns(const struct vcpu_stream *stream, int64_t ns,
		bool round_up, uint64_t *cycles)
{
	const bt_clock_class *clock_class = stream->clock_class;
	int64_t offset_s;
	uint64_t offset_cycles;
	uint64_t frequency = bt_clock_class_get_frequency(clock_class);
	__int128 origin_ns, delta, value;

	bt_clock_class_get_offset(clock_class, &offset_s, &offset_cycles);
	origin_ns = (__int128) offset_s * 1000000000 +
		(__int128) offset_cycles * 1000000000 / frequency;
	delta = (__int128) ns - origin_ns;
	value = delta * frequency / 1000000000;
	/*
	 * A time that is not a clock value of its own (a gap's start, in ns)
	 * must not fall before the message it follows, which has one.
	 */
	if (round_up && delta >= 0 && value * 1000000000 < delta * frequency) {
		value++;
	}
	if (delta >= 0 && value <= (__int128) UINT64_MAX) {
		*cycles = (uint64_t) value;
		return true;
	}

	ERROR_CAUSE(stream, "A vCPU mode change at %" PRId64 " ns from origin "
		"cannot be placed on the clock of the vm:vcpu_state stream (the "
		"host's first clock, which does not reach that time): the host's "
		"traces have clocks too far apart; put filter.vm.correlate before "
		"filter.vm.state, which gives every trace one clock.", ns);
	return false;
}

static uint64_t length_of(struct text_length *cached, const char *text)
{
	if (cached->text != text) {
		cached->text = text;
		cached->length = strlen(text);
	}
	return cached->length;
}

/*
 * What bt_field_string_set_value() does, without its strlen(): the same
 * few strings come back for every event.
 */
static bool set_string(bt_field *payload, uint64_t index, const char *value,
		uint64_t length)
{
	bt_field *field =
		bt_field_structure_borrow_member_field_by_index(payload, index);

	bt_field_string_clear(field);
	return bt_field_string_append_with_length(field, value, length) ==
		BT_FIELD_STRING_APPEND_STATUS_OK;
}

static void set_signed(bt_field *payload, uint64_t index, int64_t value)
{
	bt_field_integer_signed_set_value(
		bt_field_structure_borrow_member_field_by_index(payload, index),
		value);
}

static bt_message *create_event(struct vcpu_stream *stream,
		const struct vm_vcpu_change *change, const char *vm_name,
		uint64_t value)
{
	bt_message *msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		stream->self_msg_iter, stream->event_class, stream->packet, value);
	const char *mode = vm_vcpu_mode_name(change->mode);
	struct text_length *mode_length =
		&stream->mode_lengths[(unsigned int) change->mode % MODE_LENGTHS];
	bt_field *payload;

	if (!msg) {
		return NULL;
	}
	payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	if (!set_string(payload, MEMBER_VM, vm_name,
				length_of(&stream->vm_name_length, vm_name)) ||
			!set_string(payload, MEMBER_MODE, mode,
				length_of(mode_length, mode))) {
		bt_message_put_ref(msg);
		return NULL;
	}
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(payload, MEMBER_VCPU),
		change->vcpu);
	set_signed(payload, MEMBER_HOST_TID, change->host_tid);
	set_signed(payload, MEMBER_PCPU, change->pcpu);
	set_signed(payload, MEMBER_EXIT_REASON, change->exit_reason);
	return msg;
}

bool vcpu_stream_append_change(struct vcpu_stream *stream, struct msg_ring *out,
		const struct vm_vcpu_change *change, const char *vm_name,
		const bt_message *cause, const bt_clock_class *clock_class,
		uint64_t value)
{
	if (!stream->trace_class && !create_ir(stream, bt_stream_borrow_trace_const(
			bt_event_borrow_stream_const(
				bt_message_event_borrow_event_const(cause))),
			clock_class)) {
		return false;
	}
	if (clock_class != stream->clock_class && !cycles_of_ns(stream, change->ts, false, &value)) {
		return false;
	}
	if (!stream->begun && !begin(stream, out, value)) {
		return false;
	}
	stream->last_value = value;
	return append(stream, out, create_event(stream, change, vm_name, value));
}

bool vcpu_stream_append_change_at(struct vcpu_stream *stream, struct msg_ring *out,
		const struct vm_vcpu_change *change, const char *vm_name,
		const bt_trace *trace, const bt_clock_class *clock_class)
{
	uint64_t value;

	if (!stream->trace_class) {
		if (!clock_class) {
			ERROR_CAUSE(stream, "A vCPU mode change comes from lost "
				"events of a stream without a default clock: "
				"filter.vm.state cannot place it.");
			return false;
		}
		if (!create_ir(stream, trace, clock_class)) {
			return false;
		}
	}
	if (!cycles_of_ns(stream, change->ts, true, &value)) {
		return false;
	}
	/* Never before the stream's last event. */
	if (stream->begun && value < stream->last_value) {
		value = stream->last_value;
	}
	if (!stream->begun && !begin(stream, out, value)) {
		return false;
	}
	stream->last_value = value;
	return append(stream, out, create_event(stream, change, vm_name, value));
}

/*
 * The packet end's clock value: the input's last time (so that output
 * times do not go back), never before the stream's last event.
 */
static uint64_t end_value(const struct vcpu_stream *stream,
		const struct event_clock *input_end)
{
	uint64_t value = stream->last_value;
	int64_t ns;

	if (input_end->clock_class == stream->clock_class) {
		if (input_end->value > value) {
			value = input_end->value;
		}
	} else if (input_end->clock_class &&
			bt_clock_class_cycles_to_ns_from_origin(input_end->clock_class,
				input_end->value, &ns) ==
			BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK) {
		uint64_t converted;

		if (!cycles_of_ns(stream, ns, false, &converted)) {
			/* Optional: the packet then ends at the last event. */
			bt_current_thread_clear_error();
		} else if (converted > value) {
			value = converted;
		}
	} else if (input_end->clock_class) {
		/* No time in ns (the library said why): the last event's does. */
		bt_current_thread_clear_error();
	}
	return value;
}

/*
 * No mode change at all: the stream still begins, empty, at the input's
 * end, so that a sink tells "filter.vm.state computed no mode" from
 * "filter.vm.state is not there".
 */
static bool begin_empty(struct vcpu_stream *stream, struct msg_ring *out,
		const bt_trace *trace, const bt_clock_class *clock_class,
		const struct event_clock *input_end)
{
	if (!trace || !clock_class) {
		return true;
	}
	if (!stream->trace_class && !create_ir(stream, trace, clock_class)) {
		return false;
	}
	stream->last_value = 0;
	return begin(stream, out, end_value(stream, input_end));
}

bool vcpu_stream_append_end(struct vcpu_stream *stream, struct msg_ring *out,
		const bt_trace *host_trace, const bt_clock_class *host_clock_class,
		const struct event_clock *input_end)
{
	if (!stream->began_once && !begin_empty(stream, out, host_trace,
			host_clock_class, input_end)) {
		return false;
	}
	if (!stream->begun) {
		return true;
	}
	stream->begun = false;
	return append(stream, out,
			bt_message_packet_end_create_with_default_clock_snapshot(
				stream->self_msg_iter, stream->packet,
				end_value(stream, input_end))) &&
		append(stream, out, bt_message_stream_end_create(
			stream->self_msg_iter, stream->stream));
}

void vcpu_stream_rewind(struct vcpu_stream *stream)
{
	stream->begun = false;
	stream->began_once = false;
}
