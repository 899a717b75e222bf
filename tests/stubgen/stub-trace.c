/*
 * Trace IR of a stub: classes, trace environment and per-CPU streams.
 */

#include "stub-trace.h"

#include <inttypes.h>
#include <string.h>

#include "stub-net-layout.h"

static bt_field_class *create_integer_class(bt_trace_class *trace_class,
		enum stub_field_type type)
{
	bt_field_class *fc = stub_field_type_is_signed(type) ?
		bt_field_class_integer_signed_create(trace_class) :
		bt_field_class_integer_unsigned_create(trace_class);

	if (!fc) {
		return NULL;
	}
	bt_field_class_integer_set_field_value_range(fc, stub_field_type_bits(type));
	bt_field_class_integer_set_preferred_display_base(fc, stub_field_type_is_hex(type) ?
		BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL :
		BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_DECIMAL);
	return fc;
}

/*
 * A sequence of `element`s whose length is the u8 member `NAME_length`
 * appended just before it (lttng-modules' `_NAME_length`): sink.ctf.fs
 * writes a length field of its own for a sequence without one, which
 * src.ctf.fs then shows, so the trace read back would differ from the
 * source's. NULL on error.
 */
static bt_field_class *sequence_class(bt_trace_class *trace_class, bt_field_class *payload,
		const struct stub_field_def *field, bt_field_class *element)
{
	bt_field_class *length = create_integer_class(trace_class, STUB_FIELD_U8);
	char *length_name = g_strdup_printf("%s_length", field->name);
	bt_field_class *sequence = NULL;

	if (length && bt_field_class_structure_append_member(payload, length_name, length) ==
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK) {
		sequence = bt_field_class_array_dynamic_create(trace_class, element, length);
	}
	bt_field_class_put_ref(length);
	bt_field_class_put_ref(element);
	g_free(length_name);
	return sequence;
}

static bt_field_class *create_payload_class(bt_trace_class *trace_class,
		const struct stub_event_def *def)
{
	bt_field_class *payload = bt_field_class_structure_create(trace_class);

	if (!payload) {
		return NULL;
	}
	for (guint i = 0; i < def->fields->len; i++) {
		const struct stub_field_def *field =
			&g_array_index(def->fields, struct stub_field_def, i);
		bt_field_class *member = field->type == STUB_FIELD_STRING ?
			bt_field_class_string_create(trace_class) :
			create_integer_class(trace_class, field->type);

		if (member && field->is_sequence) {
			member = sequence_class(trace_class, payload, field, member);
		}
		bool appended = member && bt_field_class_structure_append_member(payload,
			field->name, member) == BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

		bt_field_class_put_ref(member);
		if (!appended) {
			bt_field_class_put_ref(payload);
			return NULL;
		}
	}
	return payload;
}

static bool create_event_classes(struct stub_trace_classes *classes,
		const struct stub_header *header)
{
	classes->event_classes = g_ptr_array_new_with_free_func(
		(GDestroyNotify) bt_event_class_put_ref);
	for (guint i = 0; i < header->events->defs->len; i++) {
		const struct stub_event_def *def = g_ptr_array_index(header->events->defs, i);
		bt_event_class *event_class = bt_event_class_create(classes->stream_class);
		bt_field_class *payload;

		if (!event_class) {
			return false;
		}
		g_ptr_array_add(classes->event_classes, event_class);
		payload = def->layout == STUB_EVENT_LAYOUT_NET_HEADERS ?
			stub_net_payload_class_create(classes->trace_class) :
			create_payload_class(classes->trace_class, def);
		if (!payload || bt_event_class_set_name(event_class, def->name) !=
				BT_EVENT_CLASS_SET_NAME_STATUS_OK ||
				bt_event_class_set_payload_field_class(event_class, payload) !=
				BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK) {
			bt_field_class_put_ref(payload);
			return false;
		}
		bt_field_class_put_ref(payload);
	}
	return true;
}

static bt_clock_class *create_clock_class(bt_self_component *self_comp,
		const struct stub_header *header)
{
	bt_clock_class *clock_class = bt_clock_class_create(self_comp);
	uint8_t uuid[16];

	if (!clock_class) {
		return NULL;
	}
	if (bt_clock_class_set_name(clock_class, "monotonic") != BT_CLOCK_CLASS_SET_NAME_STATUS_OK) {
		bt_clock_class_put_ref(clock_class);
		return NULL;
	}
	bt_clock_class_set_frequency(clock_class, UINT64_C(1000000000));
	bt_clock_class_set_precision(clock_class, 0);
	bt_clock_class_set_offset(clock_class, header->clock_offset_s,
		(uint64_t) header->clock_offset_ns);
	/*
	 * LTTng's metadata does not say `absolute`: src.ctf.fs decides that an
	 * LTTng `monotonic` clock is Unix-epoch based from the trace's
	 * environment. Leave that decision to it, as with real traces.
	 */
	bt_clock_class_set_origin_is_unix_epoch(clock_class, BT_FALSE);
	if (bt_clock_class_set_description(clock_class, "Monotonic Clock") !=
			BT_CLOCK_CLASS_SET_DESCRIPTION_STATUS_OK) {
		bt_clock_class_put_ref(clock_class);
		return NULL;
	}
	stub_header_clock_uuid(header, uuid);
	bt_clock_class_set_uuid(clock_class, uuid);
	return clock_class;
}

static bool set_cpu_id_packet_context(struct stub_trace_classes *classes)
{
	bt_field_class *context = bt_field_class_structure_create(classes->trace_class);
	bt_field_class *cpu_id = create_integer_class(classes->trace_class, STUB_FIELD_U32);
	bool ok = context && cpu_id &&
		bt_field_class_structure_append_member(context, "cpu_id", cpu_id) ==
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK &&
		bt_stream_class_set_packet_context_field_class(classes->stream_class, context) ==
			BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK;

	bt_field_class_put_ref(cpu_id);
	bt_field_class_put_ref(context);
	return ok;
}

/*
 * `event-context`: the stream class's event common context, as `lttng
 * add-context` adds one (LTTng names the CTF field `_pid_ns`, which
 * src.ctf.fs shows as `pid_ns`: the name here is the one readers see).
 */
static bool set_event_context(struct stub_trace_classes *classes,
		const struct stub_header *header)
{
	const struct stub_event_def *def = header->events->context;
	bt_field_class *context;
	bool ok;

	if (!def) {
		return true;
	}
	context = create_payload_class(classes->trace_class, def);
	ok = context && bt_stream_class_set_event_common_context_field_class(
		classes->stream_class, context) == BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK;
	bt_field_class_put_ref(context);
	return ok;
}

static bool create_stream_class(bt_self_component *self_comp, const struct stub_header *header,
		struct stub_trace_classes *classes)
{
	bt_bool with_clock = header->has_clock ? BT_TRUE : BT_FALSE;

	classes->stream_class = bt_stream_class_create(classes->trace_class);
	if (!classes->stream_class) {
		return false;
	}
	if (header->has_clock) {
		classes->clock_class = create_clock_class(self_comp, header);
		if (!classes->clock_class || bt_stream_class_set_default_clock_class(
				classes->stream_class, classes->clock_class) !=
				BT_STREAM_CLASS_SET_DEFAULT_CLOCK_CLASS_STATUS_OK) {
			return false;
		}
	}
	bt_stream_class_set_supports_packets(classes->stream_class, BT_TRUE, with_clock,
		with_clock);
	/* For the `events_discarded` packet counter of LTTng (always 0 here). */
	bt_stream_class_set_supports_discarded_events(classes->stream_class, BT_TRUE, with_clock);
	return set_cpu_id_packet_context(classes) && set_event_context(classes, header);
}

bool stub_trace_classes_create(bt_self_component *self_comp, const struct stub_header *header,
		struct stub_trace_classes *classes)
{
	memset(classes, 0, sizeof(*classes));
	classes->trace_class = bt_trace_class_create(self_comp);
	return classes->trace_class && create_stream_class(self_comp, header, classes) &&
		create_event_classes(classes, header);
}

void stub_trace_classes_fini(struct stub_trace_classes *classes)
{
	if (classes->event_classes) {
		g_ptr_array_free(classes->event_classes, TRUE);
	}
	bt_stream_class_put_ref(classes->stream_class);
	bt_clock_class_put_ref(classes->clock_class);
	bt_trace_class_put_ref(classes->trace_class);
	memset(classes, 0, sizeof(*classes));
}

static bool set_environment(bt_trace *trace, const struct stub_header *header)
{
	return bt_trace_set_environment_entry_string(trace, "hostname", header->hostname) ==
			BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_string(trace, "domain", "kernel") ==
			BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_string(trace, "sysname", "Linux") ==
			BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_string(trace, "tracer_name",
			header->tracer_name) ==
			BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_integer(trace, "tracer_major",
			header->tracer_major) == BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_integer(trace, "tracer_minor",
			header->tracer_minor) == BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_integer(trace, "tracer_patchlevel", 0) ==
			BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK &&
		bt_trace_set_environment_entry_string(trace, "trace_buffering_scheme", "global") ==
			BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK;
}

bt_trace *stub_trace_create(const struct stub_trace_classes *classes,
		const struct stub_header *header)
{
	/* No trace UUID: sink.ctf.fs writes a random one anyway. */
	bt_trace *trace = bt_trace_create(classes->trace_class);

	if (!trace) {
		return NULL;
	}
	if (bt_trace_set_name(trace, header->hostname) != BT_TRACE_SET_NAME_STATUS_OK ||
			!set_environment(trace, header)) {
		bt_trace_put_ref(trace);
		return NULL;
	}
	return trace;
}

bt_stream *stub_cpu_stream_create(const struct stub_trace_classes *classes, bt_trace *trace,
		uint64_t cpu)
{
	bt_stream *stream = bt_stream_create(classes->stream_class, trace);
	char name[32];

	if (!stream) {
		return NULL;
	}
	g_snprintf(name, sizeof(name), "channel0_%" PRIu64, cpu);
	if (bt_stream_set_name(stream, name) != BT_STREAM_SET_NAME_STATUS_OK) {
		bt_stream_put_ref(stream);
		return NULL;
	}
	return stream;
}
