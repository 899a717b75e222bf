/*
 * Parked events read back (mirror-parked.c writes them): the record's
 * values go into the output event's fields, and the output message is
 * created with the time the merge converted.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/mirror/mirror-parked-private.h"

struct park_reader {
	const unsigned char *at;
	const unsigned char *end;
};

static uint64_t get_u64(struct park_reader *reader)
{
	uint64_t value;

	memcpy(&value, reader->at, sizeof(value));
	reader->at += sizeof(value);
	return value;
}

static double get_double(struct park_reader *reader)
{
	double value;

	memcpy(&value, reader->at, sizeof(value));
	reader->at += sizeof(value);
	return value;
}

static bool unpark_field(struct mirror *mirror, bt_field_class_type type,
		struct park_reader *reader, bt_field *out);

static bool unpark_string(struct mirror *mirror, struct park_reader *reader, bt_field *out)
{
	uint64_t length = get_u64(reader);
	const char *bytes = (const char *) reader->at;

	reader->at += length;
	bt_field_string_clear(out);
	if (bt_field_string_append_with_length(out, bytes, length)) {
		MIRROR_ERROR(mirror, "Cannot copy a string field (out of memory?).");
		return false;
	}

	return true;
}

static bool unpark_elements(struct mirror *mirror, struct park_reader *reader, bt_field *out)
{
	uint64_t length = get_u64(reader);

	if (bt_field_get_class_type(out) != BT_FIELD_CLASS_TYPE_STATIC_ARRAY &&
			bt_field_array_dynamic_set_length(out, length)) {
		MIRROR_ERROR(mirror, "Cannot set the length of a dynamic array "
			"field to %" PRIu64 " (out of memory?).", length);
		return false;
	}

	for (uint64_t i = 0; i < length; i++) {
		bt_field *element = bt_field_array_borrow_element_field_by_index(out, i);

		if (!unpark_field(mirror, bt_field_get_class_type(element), reader, element)) {
			return false;
		}
	}

	return true;
}

static bool unpark_members(struct mirror *mirror, struct park_reader *reader, bt_field *out)
{
	uint64_t count = bt_field_class_structure_get_member_count(bt_field_borrow_class_const(out));

	for (uint64_t i = 0; i < count; i++) {
		bt_field *member = bt_field_structure_borrow_member_field_by_index(out, i);

		if (!unpark_field(mirror, bt_field_get_class_type(member), reader, member)) {
			return false;
		}
	}

	return true;
}

static bool unpark_variant(struct mirror *mirror, struct park_reader *reader, bt_field *out)
{
	uint64_t index = get_u64(reader);
	bt_field *content;

	if (bt_field_variant_select_option_by_index(out, index)) {
		MIRROR_ERROR(mirror, "Cannot select option %" PRIu64 " of a variant "
			"field (out of memory?).", index);
		return false;
	}

	content = bt_field_variant_borrow_selected_option_field(out);
	return unpark_field(mirror, bt_field_get_class_type(content), reader, content);
}

static bool unpark_field(struct mirror *mirror, bt_field_class_type type,
		struct park_reader *reader, bt_field *out)
{
	bool has_field;

	switch (mirror_field_kind_of(type)) {
	case MIRROR_FIELD_BOOL:
		bt_field_bool_set_value(out, get_u64(reader) ? BT_TRUE : BT_FALSE);
		return true;
	case MIRROR_FIELD_BIT_ARRAY:
		bt_field_bit_array_set_value_as_integer(out, get_u64(reader));
		return true;
	case MIRROR_FIELD_UNSIGNED:
		bt_field_integer_unsigned_set_value(out, get_u64(reader));
		return true;
	case MIRROR_FIELD_SIGNED:
		bt_field_integer_signed_set_value(out, (int64_t) get_u64(reader));
		return true;
	case MIRROR_FIELD_SINGLE:
		bt_field_real_single_precision_set_value(out, (float) get_double(reader));
		return true;
	case MIRROR_FIELD_DOUBLE:
		bt_field_real_double_precision_set_value(out, get_double(reader));
		return true;
	case MIRROR_FIELD_STRING:
		return unpark_string(mirror, reader, out);
	case MIRROR_FIELD_STRUCTURE:
		return unpark_members(mirror, reader, out);
	case MIRROR_FIELD_ARRAY:
		return unpark_elements(mirror, reader, out);
	case MIRROR_FIELD_OPTION:
		has_field = *reader->at++ != 0;
		bt_field_option_set_has_field(out, has_field);
		return !has_field || unpark_field(mirror,
			bt_field_get_class_type(bt_field_option_borrow_field(out)), reader,
			bt_field_option_borrow_field(out));
	case MIRROR_FIELD_VARIANT:
		return unpark_variant(mirror, reader, out);
	case MIRROR_FIELD_UNSUPPORTED:
		break;
	}

	return mirror_unsupported_field(mirror, type);
}

static inline bool unpark_integer(bt_field_class_type type, struct park_reader *reader,
		bt_field *out)
{
	if (type == BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER ||
			type == BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION) {
		bt_field_integer_unsigned_set_value(out, get_u64(reader));
		return true;
	}

	if (type == BT_FIELD_CLASS_TYPE_SIGNED_INTEGER ||
			type == BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION) {
		bt_field_integer_signed_set_value(out, (int64_t) get_u64(reader));
		return true;
	}

	return false;
}

/* The output event class's plans are the upstream one's: same classes. */
static bool unpark_planned(struct mirror *mirror, const struct mirror_copy_plan *plan,
		struct park_reader *reader, bt_field *out)
{
	if (!plan) {
		return true;
	}

	if (plan->type != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return unpark_field(mirror, plan->type, reader, out);
	}

	for (uint64_t i = 0; i < plan->member_count; i++) {
		const struct mirror_copy_plan *member = &plan->members[i];
		bt_field *field = bt_field_structure_borrow_member_field_by_index(out, i);

		if (!unpark_integer(member->type, reader, field) &&
				!unpark_planned(mirror, member, reader, field)) {
			return false;
		}
	}

	return true;
}

static bool unpark_fields(struct mirror *mirror, const struct mirror_event_class *ec,
		const struct mirror_parked *parked, bt_event *out)
{
	struct park_reader reader = { parked->data, parked->data + parked->size };
	bool done = unpark_planned(mirror, ec->common_context, &reader,
			bt_event_borrow_common_context_field(out)) &&
		unpark_planned(mirror, ec->specific_context, &reader,
			bt_event_borrow_specific_context_field(out)) &&
		unpark_planned(mirror, ec->payload, &reader, bt_event_borrow_payload_field(out));

	/* The walk that wrote it read it: anything else is a bug here. */
	g_assert(!done || reader.at == reader.end);
	return done;
}

static bt_message *create_unparked_message(struct mirror *mirror,
		const struct mirror_parked *parked, struct mirror_event_class *ec,
		struct mirror_stream *stream, bool has_time, int64_t ref_ns)
{
	/* The merge converted its time, and checked the output clock's range. */
	if (stream->has_clock && (!has_time || ref_ns < 0)) {
		MIRROR_ERROR(mirror, "An event of stream `%s` (own time %" PRId64 " ns) "
			"has no time on the output clock.",
			bt_stream_get_name(parked->stream) ?
				bt_stream_get_name(parked->stream) : "(unnamed)", parked->own_ns);
		return NULL;
	}

	return mirror_create_event_message(mirror, stream, ec, parked->packet,
		(uint64_t) ref_ns);
}

bt_message *mirror_convert_parked(struct mirror *mirror, const struct mirror_parked *parked,
		bool has_time, int64_t ref_ns)
{
	/* The stream first: it creates the stream class the event class needs. */
	struct mirror_stream *stream = mirror_output_stream(mirror, parked->stream);
	struct mirror_event_class *ec = stream ?
		mirror_output_event_class(mirror, parked->event_class) : NULL;
	bt_message *out = ec ?
		create_unparked_message(mirror, parked, ec, stream, has_time, ref_ns) : NULL;

	if (!out) {
		MIRROR_ERROR(mirror, "Cannot create an output event message.");
		return NULL;
	}

	if (!unpark_fields(mirror, ec, parked, bt_message_event_borrow_event(out))) {
		MIRROR_ERROR(mirror, "Cannot copy the fields of event `%s`.",
			bt_event_class_get_name(parked->event_class) ?
				bt_event_class_get_name(parked->event_class) : "(unnamed)");
		bt_message_put_ref(out);
		return NULL;
	}

	return out;
}
