/*
 * Metadata copy: the output trace class, trace, stream class, stream and
 * event class that mirror an upstream one, each created the first time a
 * message needs it and kept as long as the mirror lives.
 */

#include <inttypes.h>

#include "correlate/mirror/mirror-internal.h"

static const char *or_unnamed(const char *name)
{
	return name ? name : "(unnamed)";
}

static bt_stream_class *output_stream_class(struct mirror *mirror,
		const bt_stream_class *in, bt_trace_class *out_tc);

/*
 * The stream classes the upstream trace class already has, so that the
 * output trace class shows the same ones from the start; stream classes
 * added later are copied when their first stream comes.
 */
static bool copy_known_stream_classes(struct mirror *mirror,
		const bt_trace_class *in, bt_trace_class *out)
{
	uint64_t count = bt_trace_class_get_stream_class_count(in);

	for (uint64_t i = 0; i < count; i++) {
		if (!output_stream_class(mirror,
				bt_trace_class_borrow_stream_class_by_index_const(in, i),
				out)) {
			return false;
		}
	}

	return true;
}

static bt_trace_class *output_trace_class(struct mirror *mirror,
		const bt_trace_class *in)
{
	bt_trace_class *out = mirror_map_lookup(&mirror->trace_classes, in);

	if (out) {
		return out;
	}

	out = bt_trace_class_create(mirror->self_comp);
	if (!out) {
		MIRROR_ERROR(mirror, "Cannot create an output trace class (out of memory?).");
		return NULL;
	}

	/* Stream classes keep their upstream ids. */
	bt_trace_class_set_assigns_automatic_stream_class_id(out, BT_FALSE);
	bt_trace_class_set_user_attributes(out,
		bt_trace_class_borrow_user_attributes_const(in));
	bt_trace_class_get_ref(in);
	mirror_map_insert(&mirror->trace_classes, in, out);
	return copy_known_stream_classes(mirror, in, out) ? out : NULL;
}

static bool copy_environment(struct mirror *mirror, const bt_trace *in,
		bt_trace *out)
{
	uint64_t count = bt_trace_get_environment_entry_count(in);

	for (uint64_t i = 0; i < count; i++) {
		const char *name;
		const bt_value *value;
		int status;

		bt_trace_borrow_environment_entry_by_index_const(in, i, &name, &value);
		switch (bt_value_get_type(value)) {
		case BT_VALUE_TYPE_SIGNED_INTEGER:
			status = bt_trace_set_environment_entry_integer(out, name,
				bt_value_integer_signed_get(value));
			break;
		case BT_VALUE_TYPE_STRING:
			status = bt_trace_set_environment_entry_string(out, name,
				bt_value_string_get(value));
			break;
		default:
			MIRROR_ERROR(mirror,
				"Trace environment entry `%s` is neither a signed integer "
				"nor a string, which babeltrace2 does not allow.", name);
			return false;
		}

		if (status) {
			MIRROR_ERROR(mirror, "Cannot copy trace environment entry `%s` "
				"(out of memory?).", name);
			return false;
		}
	}

	return true;
}

static bool copy_trace_attributes(struct mirror *mirror, const bt_trace *in,
		bt_trace *out)
{
	const char *name = bt_trace_get_name(in);
	bt_uuid uuid = bt_trace_get_uuid(in);

	if (name && bt_trace_set_name(out, name)) {
		MIRROR_ERROR(mirror, "Cannot copy trace name `%s` (out of memory?).", name);
		return false;
	}

	if (uuid) {
		bt_trace_set_uuid(out, uuid);
	}

	bt_trace_set_user_attributes(out, bt_trace_borrow_user_attributes_const(in));
	return copy_environment(mirror, in, out);
}

static bool add_known_streams(struct mirror *mirror, const bt_trace *in,
		bt_trace *out);

static bt_trace *output_trace(struct mirror *mirror, const bt_trace *in)
{
	bt_trace *out = mirror_map_lookup(&mirror->traces, in);
	bt_trace_class *out_tc;

	if (out) {
		return out;
	}

	out_tc = output_trace_class(mirror, bt_trace_borrow_class_const(in));
	if (!out_tc) {
		return NULL;
	}

	out = bt_trace_create(out_tc);
	if (!out) {
		MIRROR_ERROR(mirror, "Cannot create an output trace (out of memory?).");
		return NULL;
	}

	if (!copy_trace_attributes(mirror, in, out)) {
		goto error;
	}

	if (mirror->created_fn && !mirror->created_fn(mirror->data, in, out)) {
		MIRROR_ERROR(mirror, "Cannot complete the output trace that mirrors "
			"trace `%s`.", or_unnamed(bt_trace_get_name(in)));
		goto error;
	}

	bt_trace_get_ref(in);
	mirror_map_insert(&mirror->traces, in, out);
	MIRROR_DEBUG(mirror, "Mirroring trace `%s` with %" PRIu64 " streams.",
		or_unnamed(bt_trace_get_name(in)), bt_trace_get_stream_count(in));
	return add_known_streams(mirror, in, out) ? out : NULL;

error:
	bt_trace_put_ref(out);
	return NULL;
}

/*
 * Field class of a stream class scope; `*out` stays NULL when upstream has
 * none.
 */
static bool copy_scope_field_class(struct mirror *mirror,
		bt_trace_class *out_tc, const struct mirror_fc_scope *scope,
		const bt_field_class *in, bt_field_class **out)
{
	*out = NULL;
	if (!in) {
		return true;
	}

	*out = mirror_copy_field_class(mirror, out_tc, scope, in);
	return *out != NULL;
}

static void copy_stream_class_features(struct mirror *mirror,
		const bt_stream_class *in, bt_stream_class *out)
{
	bool has_clock = bt_stream_class_borrow_default_clock_class_const(in) != NULL;

	/* Every output stream counts time in the reference time base. */
	if (has_clock) {
		bt_stream_class_set_default_clock_class(out, mirror->clock_class);
	}

	bt_stream_class_set_assigns_automatic_event_class_id(out, BT_FALSE);
	bt_stream_class_set_assigns_automatic_stream_id(out, BT_FALSE);
	bt_stream_class_set_supports_packets(out,
		bt_stream_class_supports_packets(in),
		bt_stream_class_packets_have_beginning_default_clock_snapshot(in),
		bt_stream_class_packets_have_end_default_clock_snapshot(in));
	bt_stream_class_set_supports_discarded_events(out,
		bt_stream_class_supports_discarded_events(in),
		bt_stream_class_discarded_events_have_default_clock_snapshots(in));
	bt_stream_class_set_supports_discarded_packets(out,
		bt_stream_class_supports_discarded_packets(in),
		bt_stream_class_discarded_packets_have_default_clock_snapshots(in));
	bt_stream_class_set_user_attributes(out,
		bt_stream_class_borrow_user_attributes_const(in));
}

static bool copy_stream_class_field_classes(struct mirror *mirror,
		bt_trace_class *out_tc, const bt_stream_class *in,
		bt_stream_class *out)
{
	const struct mirror_fc_scope scope = { .stream_class = in };
	bt_field_class *packet_context = NULL;
	bt_field_class *common_context = NULL;
	bool ok = false;

	if (!copy_scope_field_class(mirror, out_tc, &scope,
			bt_stream_class_borrow_packet_context_field_class_const(in),
			&packet_context) ||
			!copy_scope_field_class(mirror, out_tc, &scope,
				bt_stream_class_borrow_event_common_context_field_class_const(in),
				&common_context)) {
		goto end;
	}

	if (packet_context &&
			bt_stream_class_set_packet_context_field_class(out, packet_context)) {
		MIRROR_ERROR(mirror, "Cannot set the packet context field class of "
			"an output stream class (out of memory?).");
		goto end;
	}

	if (common_context &&
			bt_stream_class_set_event_common_context_field_class(out,
				common_context)) {
		MIRROR_ERROR(mirror, "Cannot set the event common context field "
			"class of an output stream class (out of memory?).");
		goto end;
	}

	ok = true;

end:
	bt_field_class_put_ref(packet_context);
	bt_field_class_put_ref(common_context);
	return ok;
}

/*
 * The event classes the upstream stream class already has, so that the
 * output trace class shows the same ones from the start; event classes added
 * later (LTTng live) are copied when their first event comes.
 */
static bool copy_known_event_classes(struct mirror *mirror,
		const bt_stream_class *in)
{
	uint64_t count = bt_stream_class_get_event_class_count(in);

	for (uint64_t i = 0; i < count; i++) {
		if (!mirror_output_event_class(mirror,
				bt_stream_class_borrow_event_class_by_index_const(in, i))) {
			return false;
		}
	}

	return true;
}

static bt_stream_class *output_stream_class(struct mirror *mirror,
		const bt_stream_class *in, bt_trace_class *out_tc)
{
	bt_stream_class *out = mirror_map_lookup(&mirror->stream_classes, in);
	const char *name = bt_stream_class_get_name(in);

	if (out) {
		return out;
	}

	out = bt_stream_class_create_with_id(out_tc, bt_stream_class_get_id(in));
	if (!out) {
		MIRROR_ERROR(mirror, "Cannot create an output stream class "
			"(out of memory?).");
		return NULL;
	}

	if (name && bt_stream_class_set_name(out, name)) {
		MIRROR_ERROR(mirror, "Cannot copy stream class name `%s` "
			"(out of memory?).", name);
		goto error;
	}

	copy_stream_class_features(mirror, in, out);
	if (!copy_stream_class_field_classes(mirror, out_tc, in, out)) {
		MIRROR_ERROR(mirror, "Cannot mirror stream class %" PRIu64 " (`%s`).",
			bt_stream_class_get_id(in), or_unnamed(name));
		goto error;
	}

	bt_stream_class_get_ref(in);
	mirror_map_insert(&mirror->stream_classes, in, out);
	if (!copy_known_event_classes(mirror, in)) {
		return NULL;
	}

	return out;

error:
	bt_stream_class_put_ref(out);
	return NULL;
}

/* A new output stream that mirrors `in`, in `out_trace`, and its mapping. */
static struct mirror_stream *add_output_stream(struct mirror *mirror,
		const bt_stream *in, bt_trace *out_trace)
{
	const char *name = bt_stream_get_name(in);
	bt_stream_class *out_sc = output_stream_class(mirror,
		bt_stream_borrow_class_const(in), bt_trace_borrow_class(out_trace));
	struct mirror_stream *stream;
	bt_stream *out;

	if (!out_sc) {
		goto error;
	}

	out = bt_stream_create_with_id(out_sc, out_trace, bt_stream_get_id(in));
	if (!out) {
		MIRROR_ERROR(mirror, "Cannot create an output stream (out of memory?).");
		goto error;
	}

	if (name && bt_stream_set_name(out, name)) {
		MIRROR_ERROR(mirror, "Cannot copy stream name `%s` (out of memory?).",
			name);
		bt_stream_put_ref(out);
		goto error;
	}

	bt_stream_set_user_attributes(out, bt_stream_borrow_user_attributes_const(in));
	stream = g_new0(struct mirror_stream, 1);
	stream->out = out;
	stream->has_clock = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(in));
	stream->has_packets = bt_stream_class_supports_packets(
		bt_stream_borrow_class_const(in));
	bt_stream_get_ref(in);
	mirror_map_insert(&mirror->streams, in, stream);
	return stream;

error:
	MIRROR_ERROR(mirror, "Cannot mirror stream %" PRIu64 " (`%s`).",
		bt_stream_get_id(in), or_unnamed(name));
	return NULL;
}

/*
 * The streams the upstream trace already has, so that the output trace lists
 * the same ones from the start.
 */
static bool add_known_streams(struct mirror *mirror, const bt_trace *in,
		bt_trace *out)
{
	uint64_t count = bt_trace_get_stream_count(in);

	for (uint64_t i = 0; i < count; i++) {
		if (!add_output_stream(mirror,
				bt_trace_borrow_stream_by_index_const(in, i), out)) {
			return false;
		}
	}

	return true;
}

struct mirror_stream *mirror_output_stream(struct mirror *mirror,
		const bt_stream *in)
{
	struct mirror_stream *out = mirror_map_lookup(&mirror->streams, in);
	bt_trace *out_trace;

	if (out) {
		return out;
	}

	/* A new output trace also mirrors the streams its upstream trace has. */
	out_trace = output_trace(mirror, bt_stream_borrow_trace_const(in));
	if (!out_trace) {
		return NULL;
	}

	out = mirror_map_lookup(&mirror->streams, in);
	return out ? out : add_output_stream(mirror, in, out_trace);
}

static bool copy_event_class_attributes(struct mirror *mirror,
		const bt_event_class *in, bt_event_class *out)
{
	const char *name = bt_event_class_get_name(in);
	const char *emf_uri = bt_event_class_get_emf_uri(in);
	bt_event_class_log_level log_level;

	if (name && bt_event_class_set_name(out, name)) {
		MIRROR_ERROR(mirror, "Cannot copy event class name `%s` "
			"(out of memory?).", name);
		return false;
	}

	if (emf_uri && bt_event_class_set_emf_uri(out, emf_uri)) {
		MIRROR_ERROR(mirror, "Cannot copy the EMF URI of event class `%s` "
			"(out of memory?).", or_unnamed(name));
		return false;
	}

	if (bt_event_class_get_log_level(in, &log_level) ==
			BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		bt_event_class_set_log_level(out, log_level);
	}

	bt_event_class_set_user_attributes(out,
		bt_event_class_borrow_user_attributes_const(in));
	return true;
}

static bool copy_event_class_field_classes(struct mirror *mirror,
		const bt_event_class *in, bt_event_class *out)
{
	const struct mirror_fc_scope scope = {
		.stream_class = bt_event_class_borrow_stream_class_const(in),
		.event_class = in,
	};
	bt_trace_class *out_tc = bt_stream_class_borrow_trace_class(
		bt_event_class_borrow_stream_class(out));
	bt_field_class *specific_context = NULL;
	bt_field_class *payload = NULL;
	bool ok = false;

	if (!copy_scope_field_class(mirror, out_tc, &scope,
			bt_event_class_borrow_specific_context_field_class_const(in),
			&specific_context) ||
			!copy_scope_field_class(mirror, out_tc, &scope,
				bt_event_class_borrow_payload_field_class_const(in),
				&payload)) {
		goto end;
	}

	if (specific_context &&
			bt_event_class_set_specific_context_field_class(out,
				specific_context)) {
		MIRROR_ERROR(mirror, "Cannot set the specific context field class "
			"of an output event class (out of memory?).");
		goto end;
	}

	if (payload && bt_event_class_set_payload_field_class(out, payload)) {
		MIRROR_ERROR(mirror, "Cannot set the payload field class of an "
			"output event class (out of memory?).");
		goto end;
	}

	ok = true;

end:
	bt_field_class_put_ref(specific_context);
	bt_field_class_put_ref(payload);
	return ok;
}

static bt_event_class *create_output_event_class(struct mirror *mirror,
		const bt_event_class *in)
{
	const bt_stream_class *in_sc = bt_event_class_borrow_stream_class_const(in);
	bt_stream_class *out_sc = mirror_map_lookup(&mirror->stream_classes, in_sc);
	bt_event_class *out;

	if (!out_sc) {
		MIRROR_ERROR(mirror, "Event class's stream class %" PRIu64
			" was never seen in a stream message.", bt_stream_class_get_id(in_sc));
		return NULL;
	}

	out = bt_event_class_create_with_id(out_sc, bt_event_class_get_id(in));
	if (!out) {
		MIRROR_ERROR(mirror, "Cannot create an output event class "
			"(out of memory?).");
		return NULL;
	}

	if (!copy_event_class_attributes(mirror, in, out) ||
			!copy_event_class_field_classes(mirror, in, out)) {
		bt_event_class_put_ref(out);
		return NULL;
	}

	return out;
}

struct mirror_event_class *mirror_output_event_class(struct mirror *mirror,
		const bt_event_class *in)
{
	struct mirror_event_class *mapped = mirror_map_lookup(&mirror->event_classes, in);
	bt_event_class *out;

	if (mapped) {
		return mapped;
	}

	out = create_output_event_class(mirror, in);
	if (!out) {
		MIRROR_ERROR(mirror, "Cannot mirror event class %" PRIu64 " (`%s`).",
			bt_event_class_get_id(in), or_unnamed(bt_event_class_get_name(in)));
		return NULL;
	}

	mapped = g_new0(struct mirror_event_class, 1);
	mapped->out = out;
	mapped->common_context = mirror_copy_plan_create(
		bt_stream_class_borrow_event_common_context_field_class_const(
			bt_event_class_borrow_stream_class_const(in)));
	mapped->specific_context = mirror_copy_plan_create(
		bt_event_class_borrow_specific_context_field_class_const(in));
	mapped->payload = mirror_copy_plan_create(
		bt_event_class_borrow_payload_field_class_const(in));
	bt_event_class_get_ref(in);
	mirror_map_insert(&mirror->event_classes, in, mapped);
	return mapped;
}
