/*
 * Parked events: an upstream event message reduced, as soon as it is read,
 * to what its mirror needs (its stream, packet, class and field values, in
 * a compact byte record), so that the message goes back to its source's
 * pool at once.
 *
 * Why: read once, correlate holds every message for its look-ahead. A held
 * babeltrace2 message is a tree of objects (message, event, one object per
 * field) spread over memory that leaves the caches while it waits; the
 * source, whose pools are empty, allocates new ones all the while. Mirrored
 * after the wait, every held message cost a cache miss per object it
 * touched. A record is a few dozen bytes read in sequence, and the output
 * message is created, filled and handed on while it is hot.
 *
 * The record follows the field classes: a scalar is 8 bytes (booleans, bit
 * arrays and integers as 64-bit integers, reals as doubles: a float goes
 * there and back exactly), a string its 8-byte length and its bytes, an
 * array its length and its elements, an option a byte (has a field) and its
 * field, a variant its 8-byte option index and its field; a structure is
 * its members. The output field classes are copies of the upstream ones,
 * so the same walk reads the record back into the output event.
 *
 * Records are cut from the mirror's arena (util/arena.h) rather than each
 * from malloc(): they leave about in the order they came, one after the
 * other in memory.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/mirror/mirror-internal.h"
#include "correlate/mirror/mirror-parked-private.h"

void mirror_park_plans_destroy(void *data)
{
	struct mirror_park_plans *plans = data;

	mirror_copy_plan_destroy(plans->common_context);
	mirror_copy_plan_destroy(plans->specific_context);
	mirror_copy_plan_destroy(plans->payload);
	g_free(plans);
}

struct mirror_park_plans *park_plans(struct mirror *mirror, const bt_event_class *ec)
{
	struct mirror_park_plans *plans = mirror_map_lookup(&mirror->park_plans, ec);

	if (plans) {
		return plans;
	}

	plans = g_new0(struct mirror_park_plans, 1);
	plans->common_context = mirror_copy_plan_create(
		bt_stream_class_borrow_event_common_context_field_class_const(
			bt_event_class_borrow_stream_class_const(ec)));
	plans->specific_context = mirror_copy_plan_create(
		bt_event_class_borrow_specific_context_field_class_const(ec));
	plans->payload = mirror_copy_plan_create(bt_event_class_borrow_payload_field_class_const(ec));
	bt_event_class_get_ref(ec);
	mirror_map_insert(&mirror->park_plans, ec, plans);
	return plans;
}


/*
 * Writing a record: into the scratch buffer, used up to `used` and grown by
 * doubling, so that an integer costs a test and a copy (a call to
 * g_byte_array_append() per integer cost more than reading the field).
 */
struct park_writer {
	GByteArray *buffer;
	guint used;
};

static void make_room(struct park_writer *out, size_t size)
{
	guint wanted;

	if (G_UNLIKELY(size > G_MAXUINT / 2 - out->used)) {
		g_error("A parked event's fields exceed %u bytes.", G_MAXUINT / 2);
	}

	wanted = out->used + (guint) size;
	g_byte_array_set_size(out->buffer, MAX(wanted, 2 * out->buffer->len));
}

static inline void put_bytes(struct park_writer *out, const void *bytes, size_t size)
{
	if (G_UNLIKELY(size > out->buffer->len - out->used)) {
		make_room(out, size);
	}

	memcpy(out->buffer->data + out->used, bytes, size);
	out->used += (guint) size;
}

static inline void put_u64(struct park_writer *out, uint64_t value)
{
	put_bytes(out, &value, sizeof(value));
}

static inline void put_double(struct park_writer *out, double value)
{
	put_bytes(out, &value, sizeof(value));
}

static bool park_field(struct mirror *mirror, bt_field_class_type type, const bt_field *in,
		struct park_writer *out);

static bool park_elements(struct mirror *mirror, const bt_field *in, struct park_writer *out)
{
	uint64_t length = bt_field_array_get_length(in);

	put_u64(out, length);
	for (uint64_t i = 0; i < length; i++) {
		const bt_field *element = bt_field_array_borrow_element_field_by_index_const(in, i);

		if (!park_field(mirror, bt_field_get_class_type(element), element, out)) {
			return false;
		}
	}

	return true;
}

static bool park_members(struct mirror *mirror, const bt_field *in, struct park_writer *out)
{
	uint64_t count = bt_field_class_structure_get_member_count(bt_field_borrow_class_const(in));

	for (uint64_t i = 0; i < count; i++) {
		const bt_field *member = bt_field_structure_borrow_member_field_by_index_const(in, i);

		if (!park_field(mirror, bt_field_get_class_type(member), member, out)) {
			return false;
		}
	}

	return true;
}

static bool park_field(struct mirror *mirror, bt_field_class_type type, const bt_field *in,
		struct park_writer *out)
{
	const bt_field *content;

	switch (mirror_field_kind_of(type)) {
	case MIRROR_FIELD_BOOL:
		put_u64(out, bt_field_bool_get_value(in));
		return true;
	case MIRROR_FIELD_BIT_ARRAY:
		put_u64(out, bt_field_bit_array_get_value_as_integer(in));
		return true;
	case MIRROR_FIELD_UNSIGNED:
		put_u64(out, bt_field_integer_unsigned_get_value(in));
		return true;
	case MIRROR_FIELD_SIGNED:
		put_u64(out, (uint64_t) bt_field_integer_signed_get_value(in));
		return true;
	case MIRROR_FIELD_SINGLE:
		put_double(out, bt_field_real_single_precision_get_value(in));
		return true;
	case MIRROR_FIELD_DOUBLE:
		put_double(out, bt_field_real_double_precision_get_value(in));
		return true;
	case MIRROR_FIELD_STRING:
		/* By length: see copy_string() in mirror-fields.c. */
		put_u64(out, bt_field_string_get_length(in));
		put_bytes(out, bt_field_string_get_value(in), bt_field_string_get_length(in));
		return true;
	case MIRROR_FIELD_STRUCTURE:
		return park_members(mirror, in, out);
	case MIRROR_FIELD_ARRAY:
		return park_elements(mirror, in, out);
	case MIRROR_FIELD_OPTION:
		content = bt_field_option_borrow_field_const(in);
		put_bytes(out, &(guint8) { content != NULL }, 1);
		return !content || park_field(mirror, bt_field_get_class_type(content), content, out);
	case MIRROR_FIELD_VARIANT:
		content = bt_field_variant_borrow_selected_option_field_const(in);
		put_u64(out, bt_field_variant_get_selected_option_index(in));
		return park_field(mirror, bt_field_get_class_type(content), content, out);
	case MIRROR_FIELD_UNSUPPORTED:
		break;
	}

	return mirror_unsupported_field(mirror, type);
}

/* Integers, most of an event's fields, inlined in the members' loop. */
static inline bool park_integer(bt_field_class_type type, const bt_field *in,
		struct park_writer *out)
{
	if (type == BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER ||
			type == BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION) {
		put_u64(out, bt_field_integer_unsigned_get_value(in));
		return true;
	}

	if (type == BT_FIELD_CLASS_TYPE_SIGNED_INTEGER ||
			type == BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION) {
		put_u64(out, (uint64_t) bt_field_integer_signed_get_value(in));
		return true;
	}

	return false;
}

/* Along the plan: a structure's member types were asked once, for its class. */
static bool park_planned(struct mirror *mirror, const struct mirror_copy_plan *plan,
		const bt_field *in, struct park_writer *out)
{
	if (!plan) {
		return true;
	}

	if (plan->type != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return park_field(mirror, plan->type, in, out);
	}

	for (uint64_t i = 0; i < plan->member_count; i++) {
		const struct mirror_copy_plan *member = &plan->members[i];
		const bt_field *field = bt_field_structure_borrow_member_field_by_index_const(in, i);

		if (!park_integer(member->type, field, out) &&
				!park_planned(mirror, member, field, out)) {
			return false;
		}
	}

	return true;
}

struct mirror_parked *mirror_park(struct mirror *mirror, const bt_message *in, int64_t own_ns)
{
	const bt_event *event = bt_message_event_borrow_event_const(in);
	const bt_event_class *ec = bt_event_borrow_class_const(event);
	const struct mirror_park_plans *plans = park_plans(mirror, ec);
	struct park_writer out = { mirror->park_scratch, 0 };
	struct mirror_parked *parked;

	if (!park_planned(mirror, plans->common_context,
				bt_event_borrow_common_context_field_const(event), &out) ||
			!park_planned(mirror, plans->specific_context,
				bt_event_borrow_specific_context_field_const(event), &out) ||
			!park_planned(mirror, plans->payload,
				bt_event_borrow_payload_field_const(event), &out)) {
		MIRROR_ERROR(mirror, "Cannot keep the fields of event `%s` while it waits.",
			bt_event_class_get_name(ec) ? bt_event_class_get_name(ec) : "(unnamed)");
		return NULL;
	}

	parked = vm_arena_alloc(mirror->park_arena, sizeof(*parked) + out.used);
	parked->event_class = ec;
	parked->stream = bt_event_borrow_stream_const(event);
	bt_stream_get_ref(parked->stream);
	parked->packet = bt_stream_class_supports_packets(bt_stream_borrow_class_const(
		parked->stream)) ? bt_event_borrow_packet_const(event) : NULL;
	bt_packet_get_ref(parked->packet);
	parked->own_ns = own_ns;
	parked->size = out.used;
	if (out.used > 0) {
		/* An event without fields: the scratch may have no storage yet. */
		memcpy(parked->data, out.buffer->data, out.used);
	}
	return parked;
}

void mirror_parked_destroy(struct mirror_parked *parked)
{
	if (!parked) {
		return;
	}

	bt_packet_put_ref(parked->packet);
	bt_stream_put_ref(parked->stream);
	vm_arena_free(parked);
}

const bt_stream *mirror_parked_stream(const struct mirror_parked *parked)
{
	return parked->stream;
}
