/*
 * Field value copy, on every event and packet: no allocation besides what
 * the output fields need (strings, dynamic arrays).
 */

#include <inttypes.h>

#include "correlate/mirror/mirror-internal.h"

/*
 * By length: the length is the string. src.ctf.fs 2.0.4 decodes a string
 * by clearing a recycled field, which only sets its length to 0, then
 * appending what it reads, so an empty string keeps the bytes of an
 * earlier event in its value (babeltrace2 2.0.5 fixed the clear).
 * Appending also terminates the copy, even at length 0, so that sinks
 * that read the value, not the length, see the string and nothing more.
 */
static bool copy_string(struct mirror *mirror, const bt_field *in, bt_field *out)
{
	bt_field_string_clear(out);
	if (bt_field_string_append_with_length(out, bt_field_string_get_value(in),
			bt_field_string_get_length(in))) {
		MIRROR_ERROR(mirror, "Cannot copy a string field (out of memory?).");
		return false;
	}

	return true;
}

static bool copy_structure(struct mirror *mirror, const bt_field *in, bt_field *out)
{
	uint64_t count = bt_field_class_structure_get_member_count(
		bt_field_borrow_class_const(in));

	for (uint64_t i = 0; i < count; i++) {
		if (!mirror_copy_field(mirror,
				bt_field_structure_borrow_member_field_by_index_const(in, i),
				bt_field_structure_borrow_member_field_by_index(out, i))) {
			return false;
		}
	}

	return true;
}

static bool copy_array(struct mirror *mirror, const bt_field *in, bt_field *out)
{
	uint64_t length = bt_field_array_get_length(in);

	if (bt_field_class_get_type(bt_field_borrow_class_const(in)) !=
			BT_FIELD_CLASS_TYPE_STATIC_ARRAY &&
			bt_field_array_dynamic_set_length(out, length)) {
		MIRROR_ERROR(mirror, "Cannot set the length of a dynamic array "
			"field to %" PRIu64 " (out of memory?).", length);
		return false;
	}

	for (uint64_t i = 0; i < length; i++) {
		if (!mirror_copy_field(mirror,
				bt_field_array_borrow_element_field_by_index_const(in, i),
				bt_field_array_borrow_element_field_by_index(out, i))) {
			return false;
		}
	}

	return true;
}

static bool copy_option(struct mirror *mirror, const bt_field *in, bt_field *out)
{
	const bt_field *content = bt_field_option_borrow_field_const(in);

	bt_field_option_set_has_field(out, content != NULL);
	return !content || mirror_copy_field(mirror, content,
		bt_field_option_borrow_field(out));
}

static bool copy_variant(struct mirror *mirror, const bt_field *in, bt_field *out)
{
	uint64_t index = bt_field_variant_get_selected_option_index(in);

	if (bt_field_variant_select_option_by_index(out, index)) {
		MIRROR_ERROR(mirror, "Cannot select option %" PRIu64 " of a variant "
			"field (out of memory?).", index);
		return false;
	}

	return mirror_copy_field(mirror,
		bt_field_variant_borrow_selected_option_field_const(in),
		bt_field_variant_borrow_selected_option_field(out));
}

/*
 * Integers and enumerations, most of an event's fields: inlined where
 * structure members are copied, so that those need no call to
 * copy_field_of_type(). False for any other class type.
 */
static inline bool copy_integer(bt_field_class_type type, const bt_field *in,
		bt_field *out)
{
	switch (type) {
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
		bt_field_integer_unsigned_set_value(out,
			bt_field_integer_unsigned_get_value(in));
		return true;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		bt_field_integer_signed_set_value(out,
			bt_field_integer_signed_get_value(in));
		return true;
	default:
		return false;
	}
}

static bool copy_field_of_type(struct mirror *mirror, bt_field_class_type type,
		const bt_field *in, bt_field *out)
{
	switch (mirror_field_kind_of(type)) {
	case MIRROR_FIELD_BOOL:
		bt_field_bool_set_value(out, bt_field_bool_get_value(in));
		return true;
	case MIRROR_FIELD_BIT_ARRAY:
		bt_field_bit_array_set_value_as_integer(out,
			bt_field_bit_array_get_value_as_integer(in));
		return true;
	case MIRROR_FIELD_UNSIGNED:
	case MIRROR_FIELD_SIGNED:
		return copy_integer(type, in, out);
	case MIRROR_FIELD_SINGLE:
		bt_field_real_single_precision_set_value(out,
			bt_field_real_single_precision_get_value(in));
		return true;
	case MIRROR_FIELD_DOUBLE:
		bt_field_real_double_precision_set_value(out,
			bt_field_real_double_precision_get_value(in));
		return true;
	case MIRROR_FIELD_STRING:
		return copy_string(mirror, in, out);
	case MIRROR_FIELD_STRUCTURE:
		return copy_structure(mirror, in, out);
	case MIRROR_FIELD_ARRAY:
		return copy_array(mirror, in, out);
	case MIRROR_FIELD_OPTION:
		return copy_option(mirror, in, out);
	case MIRROR_FIELD_VARIANT:
		return copy_variant(mirror, in, out);
	case MIRROR_FIELD_UNSUPPORTED:
		break;
	}

	return mirror_unsupported_field(mirror, type);
}

bool mirror_copy_field(struct mirror *mirror, const bt_field *in, bt_field *out)
{
	return copy_field_of_type(mirror, bt_field_get_class_type(in), in, out);
}

static void fill_plan(struct mirror_copy_plan *plan, const bt_field_class *fc)
{
	plan->type = bt_field_class_get_type(fc);
	plan->member_count = 0;
	plan->members = NULL;
	if (plan->type != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return;
	}

	plan->member_count = bt_field_class_structure_get_member_count(fc);
	plan->members = g_new0(struct mirror_copy_plan, plan->member_count);
	for (uint64_t i = 0; i < plan->member_count; i++) {
		fill_plan(&plan->members[i],
			bt_field_class_structure_member_borrow_field_class_const(
				bt_field_class_structure_borrow_member_by_index_const(fc, i)));
	}
}

struct mirror_copy_plan *mirror_copy_plan_create(const bt_field_class *fc)
{
	struct mirror_copy_plan *plan;

	if (!fc) {
		return NULL;
	}

	plan = g_new(struct mirror_copy_plan, 1);
	fill_plan(plan, fc);
	return plan;
}

static void clear_plan(struct mirror_copy_plan *plan)
{
	for (uint64_t i = 0; i < plan->member_count; i++) {
		clear_plan(&plan->members[i]);
	}

	g_free(plan->members);
}

void mirror_copy_plan_destroy(struct mirror_copy_plan *plan)
{
	if (plan) {
		clear_plan(plan);
		g_free(plan);
	}
}

bool mirror_copy_field_planned(struct mirror *mirror, const struct mirror_copy_plan *plan,
		const bt_field *in, bt_field *out)
{
	if (plan->type != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		/* Arrays, options and variants look at each element's class. */
		return copy_field_of_type(mirror, plan->type, in, out);
	}

	for (uint64_t i = 0; i < plan->member_count; i++) {
		const struct mirror_copy_plan *member = &plan->members[i];
		const bt_field *in_member =
			bt_field_structure_borrow_member_field_by_index_const(in, i);
		bt_field *out_member = bt_field_structure_borrow_member_field_by_index(out, i);

		if (!copy_integer(member->type, in_member, out_member) &&
				!mirror_copy_field_planned(mirror, member, in_member,
					out_member)) {
			return false;
		}
	}

	return true;
}

bool mirror_unsupported_field(struct mirror *mirror, bt_field_class_type type)
{
	MIRROR_ERROR(mirror, "Field class type %#" PRIx64 " is not supported by "
		"filter.vm.correlate: use a trace with babeltrace2 2.0 field classes.",
		(uint64_t) type);
	return false;
}
