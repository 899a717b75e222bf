/*
 * Message conversion: each upstream message re-created on the mirror, with
 * every clock snapshot converted to the reference time base.
 */

#include <inttypes.h>

#include "correlate/mirror/mirror-internal.h"

/* A new output packet, the mirror of `in`, now open in `stream`. */
static bt_packet *open_output_packet(struct mirror *mirror,
		struct mirror_stream *stream, const bt_packet *in)
{
	const bt_field *in_context = bt_packet_borrow_context_field_const(in);
	bt_packet *out = bt_packet_create(stream->out);

	if (!out) {
		MIRROR_ERROR(mirror, "Cannot create an output packet (out of memory?).");
		return NULL;
	}

	if (in_context && !mirror_copy_field(mirror, in_context,
			bt_packet_borrow_context_field(out))) {
		MIRROR_ERROR(mirror, "Cannot copy a packet context.");
		bt_packet_put_ref(out);
		return NULL;
	}

	mirror_stream_close_packet(stream);
	bt_packet_get_ref(in);
	stream->in_packet = in;
	stream->out_packet = out;
	return out;
}

bt_packet *mirror_stream_packet(struct mirror *mirror, struct mirror_stream *stream,
		const bt_packet *in)
{
	return stream->in_packet == in ? stream->out_packet :
		open_output_packet(mirror, stream, in);
}

/* The mirror of `in`, the open packet of its stream (opened if needed). */
static bt_packet *output_packet(struct mirror *mirror, const bt_packet *in,
		struct mirror_stream **stream_out)
{
	struct mirror_stream *stream =
		mirror_output_stream(mirror, bt_packet_borrow_stream_const(in));

	if (!stream) {
		return NULL;
	}

	if (stream_out) {
		*stream_out = stream;
	}

	return mirror_stream_packet(mirror, stream, in);
}

/* With the plans of its event class: a field exists iff its class does. */
static bool copy_event_fields(struct mirror *mirror, const struct mirror_event_class *ec,
		const bt_event *in, bt_event *out)
{
	return (!ec->common_context || mirror_copy_field_planned(mirror,
			ec->common_context, bt_event_borrow_common_context_field_const(in),
			bt_event_borrow_common_context_field(out))) &&
		(!ec->specific_context || mirror_copy_field_planned(mirror,
			ec->specific_context, bt_event_borrow_specific_context_field_const(in),
			bt_event_borrow_specific_context_field(out))) &&
		(!ec->payload || mirror_copy_field_planned(mirror, ec->payload,
			bt_event_borrow_payload_field_const(in),
			bt_event_borrow_payload_field(out)));
}

/*
 * The one builder of output event messages (mirror_convert() and parked
 * events): in `stream`'s packet mirroring `in_packet` (when the stream has
 * packets), at `time` (when it has a clock). The stream was mirrored
 * first: its packet, if any, is in that stream.
 */
bt_message *mirror_create_event_message(struct mirror *mirror, struct mirror_stream *stream,
		struct mirror_event_class *ec, const bt_packet *in_packet, uint64_t time)
{
	bt_self_message_iterator *iter = mirror->self_msg_iter;
	bt_packet *packet;

	if (stream->has_packets) {
		packet = mirror_stream_packet(mirror, stream, in_packet);
		if (!packet) {
			return NULL;
		}

		return stream->has_clock ?
			bt_message_event_create_with_packet_and_default_clock_snapshot(
				iter, ec->out, packet, time) :
			bt_message_event_create_with_packet(iter, ec->out, packet);
	}

	return stream->has_clock ?
		bt_message_event_create_with_default_clock_snapshot(iter, ec->out, stream->out,
			time) :
		bt_message_event_create(iter, ec->out, stream->out);
}

/* An upstream event's output message, at the caller's time or its own converted. */
static bt_message *create_event_message(struct mirror *mirror, const bt_message *in,
		struct mirror_event_class *out_ec, const bt_event *in_event,
		struct mirror_stream *out_stream)
{
	uint64_t time = 0;

	if (out_stream->has_clock && !mirror_take_known(mirror, &time) &&
			!mirror_convert_snapshot(mirror,
				bt_message_event_borrow_default_clock_snapshot_const(in), true,
				&time)) {
		return NULL;
	}

	return mirror_create_event_message(mirror, out_stream, out_ec,
		out_stream->has_packets ? bt_event_borrow_packet_const(in_event) : NULL, time);
}

static bt_message *convert_event(struct mirror *mirror, const bt_message *in)
{
	const bt_event *in_event = bt_message_event_borrow_event_const(in);
	const bt_event_class *in_ec = bt_event_borrow_class_const(in_event);
	struct mirror_stream *out_stream;
	struct mirror_event_class *out_ec;
	bt_message *out;

	/* The stream first: it creates the stream class the event class needs. */
	out_stream = mirror_output_stream(mirror, bt_event_borrow_stream_const(in_event));
	if (!out_stream) {
		return NULL;
	}

	out_ec = mirror_output_event_class(mirror, in_ec);
	if (!out_ec) {
		return NULL;
	}

	out = create_event_message(mirror, in, out_ec, in_event, out_stream);
	if (!out) {
		MIRROR_ERROR(mirror, "Cannot create an output event message.");
		return NULL;
	}

	if (!copy_event_fields(mirror, out_ec, in_event, bt_message_event_borrow_event(out))) {
		MIRROR_ERROR(mirror, "Cannot copy the fields of event `%s`.",
			bt_event_class_get_name(in_ec) ? bt_event_class_get_name(in_ec) :
				"(unnamed)");
		bt_message_put_ref(out);
		return NULL;
	}

	return out;
}

/* Stream beginning or end: the default clock snapshot is only set when known. */
static bt_message *convert_stream_boundary(struct mirror *mirror,
		const bt_message *in, bool beginning)
{
	const bt_stream *in_stream = beginning ?
		bt_message_stream_beginning_borrow_stream_const(in) :
		bt_message_stream_end_borrow_stream_const(in);
	struct mirror_stream *out_stream = mirror_output_stream(mirror, in_stream);
	bool has_clock = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(in_stream));
	const bt_clock_snapshot *snapshot = NULL;
	bt_message_stream_clock_snapshot_state state =
		BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_UNKNOWN;
	uint64_t time = 0;
	bt_message *out;

	if (!out_stream) {
		return NULL;
	}

	if (has_clock) {
		state = beginning ?
			bt_message_stream_beginning_borrow_default_clock_snapshot_const(in,
				&snapshot) :
			bt_message_stream_end_borrow_default_clock_snapshot_const(in,
				&snapshot);
	}

	if (state == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN &&
			!mirror_convert_snapshot(mirror, snapshot, true, &time)) {
		return NULL;
	}

	out = beginning ?
		bt_message_stream_beginning_create(mirror->self_msg_iter,
			out_stream->out) :
		bt_message_stream_end_create(mirror->self_msg_iter, out_stream->out);
	if (out && state == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN) {
		if (beginning) {
			bt_message_stream_beginning_set_default_clock_snapshot(out, time);
		} else {
			bt_message_stream_end_set_default_clock_snapshot(out, time);
		}
	}

	return out;
}

static bt_message *convert_packet_beginning(struct mirror *mirror,
		const bt_message *in)
{
	const bt_packet *in_packet = bt_message_packet_beginning_borrow_packet_const(in);
	const bt_stream_class *in_sc = bt_stream_borrow_class_const(
		bt_packet_borrow_stream_const(in_packet));
	bt_packet *out_packet = output_packet(mirror, in_packet, NULL);
	uint64_t time;

	if (!out_packet) {
		return NULL;
	}

	if (!bt_stream_class_packets_have_beginning_default_clock_snapshot(in_sc)) {
		return bt_message_packet_beginning_create(mirror->self_msg_iter,
			out_packet);
	}

	if (!mirror_convert_snapshot(mirror,
			bt_message_packet_beginning_borrow_default_clock_snapshot_const(in),
			true, &time)) {
		return NULL;
	}

	return bt_message_packet_beginning_create_with_default_clock_snapshot(
		mirror->self_msg_iter, out_packet, time);
}

static bt_message *create_packet_end(struct mirror *mirror,
		const bt_message *in, const bt_packet *in_packet, bt_packet *out_packet)
{
	const bt_stream_class *in_sc = bt_stream_borrow_class_const(
		bt_packet_borrow_stream_const(in_packet));
	uint64_t time;

	if (!bt_stream_class_packets_have_end_default_clock_snapshot(in_sc)) {
		return bt_message_packet_end_create(mirror->self_msg_iter, out_packet);
	}

	if (!mirror_convert_snapshot(mirror,
			bt_message_packet_end_borrow_default_clock_snapshot_const(in),
			true, &time)) {
		return NULL;
	}

	return bt_message_packet_end_create_with_default_clock_snapshot(
		mirror->self_msg_iter, out_packet, time);
}

static bt_message *convert_packet_end(struct mirror *mirror, const bt_message *in)
{
	const bt_packet *in_packet = bt_message_packet_end_borrow_packet_const(in);
	struct mirror_stream *stream;
	bt_packet *out_packet = output_packet(mirror, in_packet, &stream);
	bt_message *out;

	if (!out_packet) {
		return NULL;
	}

	out = create_packet_end(mirror, in, in_packet, out_packet);
	if (out) {
		/* The message holds the output packet now; no event refers to it any more. */
		mirror_stream_close_packet(stream);
	}

	return out;
}

/* The converted beginning and end times of a discarded events/packets message. */
static bool convert_discarded_range(struct mirror *mirror,
		const bt_clock_snapshot *beginning, const bt_clock_snapshot *end,
		uint64_t *beginning_time, uint64_t *end_time)
{
	return mirror_convert_snapshot(mirror, beginning, true, beginning_time) &&
		mirror_convert_snapshot(mirror, end, true, end_time);
}

static bt_message *convert_discarded_events(struct mirror *mirror,
		const bt_message *in)
{
	const bt_stream *in_stream = bt_message_discarded_events_borrow_stream_const(in);
	struct mirror_stream *out_stream = mirror_output_stream(mirror, in_stream);
	uint64_t beginning, end, count;
	bt_message *out;

	if (!out_stream) {
		return NULL;
	}

	if (bt_stream_class_discarded_events_have_default_clock_snapshots(
			bt_stream_borrow_class_const(in_stream))) {
		if (!convert_discarded_range(mirror,
				bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(in),
				bt_message_discarded_events_borrow_end_default_clock_snapshot_const(in),
				&beginning, &end)) {
			return NULL;
		}

		out = bt_message_discarded_events_create_with_default_clock_snapshots(
			mirror->self_msg_iter, out_stream->out, beginning, end);
	} else {
		out = bt_message_discarded_events_create(mirror->self_msg_iter,
			out_stream->out);
	}

	if (out && bt_message_discarded_events_get_count(in, &count) ==
			BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		bt_message_discarded_events_set_count(out, count);
	}

	return out;
}

static bt_message *convert_discarded_packets(struct mirror *mirror,
		const bt_message *in)
{
	const bt_stream *in_stream = bt_message_discarded_packets_borrow_stream_const(in);
	struct mirror_stream *out_stream = mirror_output_stream(mirror, in_stream);
	uint64_t beginning, end, count;
	bt_message *out;

	if (!out_stream) {
		return NULL;
	}

	if (bt_stream_class_discarded_packets_have_default_clock_snapshots(
			bt_stream_borrow_class_const(in_stream))) {
		if (!convert_discarded_range(mirror,
				bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(in),
				bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(in),
				&beginning, &end)) {
			return NULL;
		}

		out = bt_message_discarded_packets_create_with_default_clock_snapshots(
			mirror->self_msg_iter, out_stream->out, beginning, end);
	} else {
		out = bt_message_discarded_packets_create(mirror->self_msg_iter,
			out_stream->out);
	}

	if (out && bt_message_discarded_packets_get_count(in, &count) ==
			BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		bt_message_discarded_packets_set_count(out, count);
	}

	return out;
}

/* Re-created on the output clock class: downstream only knows that one. */
static bt_message *convert_inactivity(struct mirror *mirror, const bt_message *in)
{
	uint64_t time;

	if (!mirror_convert_snapshot(mirror,
			bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(in),
			true, &time)) {
		return NULL;
	}

	return bt_message_message_iterator_inactivity_create(mirror->self_msg_iter,
		mirror->clock_class, time);
}

static bt_message *convert_by_type(struct mirror *mirror, const bt_message *in)
{
	switch (bt_message_get_type(in)) {
	case BT_MESSAGE_TYPE_EVENT:
		return convert_event(mirror, in);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return convert_stream_boundary(mirror, in, true);
	case BT_MESSAGE_TYPE_STREAM_END:
		return convert_stream_boundary(mirror, in, false);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return convert_packet_beginning(mirror, in);
	case BT_MESSAGE_TYPE_PACKET_END:
		return convert_packet_end(mirror, in);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return convert_discarded_events(mirror, in);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return convert_discarded_packets(mirror, in);
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return convert_inactivity(mirror, in);
	}

	MIRROR_ERROR(mirror, "Unknown message type %d.", (int) bt_message_get_type(in));
	return NULL;
}

static const char *message_type_name(bt_message_type type)
{
	switch (type) {
	case BT_MESSAGE_TYPE_EVENT:
		return "event";
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return "stream beginning";
	case BT_MESSAGE_TYPE_STREAM_END:
		return "stream end";
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return "packet beginning";
	case BT_MESSAGE_TYPE_PACKET_END:
		return "packet end";
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return "discarded events";
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return "discarded packets";
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return "message iterator inactivity";
	}

	return "unknown";
}

bt_message *mirror_convert(struct mirror *mirror, const bt_message *in)
{
	bt_message *out = convert_by_type(mirror, in);

	if (!out) {
		MIRROR_ERROR(mirror, "Cannot mirror a %s message on the reference "
			"time base.", message_type_name(bt_message_get_type(in)));
	}

	return out;
}

bt_message *mirror_convert_at(struct mirror *mirror, const bt_message *in,
		int64_t ref_ns)
{
	bt_message *out;

	mirror->known.valid = true;
	mirror->known.ref_ns = ref_ns;
	out = mirror_convert(mirror, in);
	mirror->known.valid = false;
	return out;
}

/* The default clock snapshot a message carries, or NULL. */
static const bt_clock_snapshot *message_snapshot(const bt_message *in)
{
	const bt_clock_snapshot *snapshot = NULL;

	switch (bt_message_get_type(in)) {
	case BT_MESSAGE_TYPE_EVENT:
		return bt_message_event_borrow_stream_class_default_clock_class_const(in) ?
			bt_message_event_borrow_default_clock_snapshot_const(in) : NULL;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_stream_class_default_clock_class_const(in) &&
				bt_message_stream_beginning_borrow_default_clock_snapshot_const(in,
					&snapshot) == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN ?
			snapshot : NULL;
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_stream_class_default_clock_class_const(in) &&
				bt_message_stream_end_borrow_default_clock_snapshot_const(in,
					&snapshot) == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN ?
			snapshot : NULL;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_stream_class_packets_have_beginning_default_clock_snapshot(
				bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
					bt_message_packet_beginning_borrow_packet_const(in)))) ?
			bt_message_packet_beginning_borrow_default_clock_snapshot_const(in) :
			NULL;
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_stream_class_packets_have_end_default_clock_snapshot(
				bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
					bt_message_packet_end_borrow_packet_const(in)))) ?
			bt_message_packet_end_borrow_default_clock_snapshot_const(in) :
			NULL;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		/* Ordered by their beginning, like filter.utils.muxer does. */
		return bt_stream_class_discarded_events_have_default_clock_snapshots(
				bt_stream_borrow_class_const(
					bt_message_discarded_events_borrow_stream_const(in))) ?
			bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(in) :
			NULL;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_stream_class_discarded_packets_have_default_clock_snapshots(
				bt_stream_borrow_class_const(
					bt_message_discarded_packets_borrow_stream_const(in))) ?
			bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(in) :
			NULL;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(in);
	}

	return NULL;
}

bool mirror_message_time(struct mirror *mirror, const bt_message *in,
		int64_t *ref_ns)
{
	const bt_clock_snapshot *snapshot = message_snapshot(in);
	uint64_t time;

	/*
	 * A time that cannot be converted is reported by mirror_convert() on
	 * the same message; here it only has no time.
	 */
	if (!snapshot || !mirror_convert_snapshot(mirror, snapshot, false, &time)) {
		return false;
	}

	*ref_ns = (int64_t) time;
	return true;
}
