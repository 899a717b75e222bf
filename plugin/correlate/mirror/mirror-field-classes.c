/*
 * Field class copy. Length and selector fields are located upstream through
 * their field path, then mapped to the output copy made earlier: a length or
 * selector field always precedes the field that needs it.
 */

#include <inttypes.h>

#include "correlate/mirror/mirror-internal.h"

static const bt_field_class *scope_root(const struct mirror_fc_scope *scope,
		bt_field_path_scope root)
{
	switch (root) {
	case BT_FIELD_PATH_SCOPE_PACKET_CONTEXT:
		return bt_stream_class_borrow_packet_context_field_class_const(
			scope->stream_class);
	case BT_FIELD_PATH_SCOPE_EVENT_COMMON_CONTEXT:
		return bt_stream_class_borrow_event_common_context_field_class_const(
			scope->stream_class);
	case BT_FIELD_PATH_SCOPE_EVENT_SPECIFIC_CONTEXT:
		return scope->event_class ?
			bt_event_class_borrow_specific_context_field_class_const(
				scope->event_class) : NULL;
	case BT_FIELD_PATH_SCOPE_EVENT_PAYLOAD:
		return scope->event_class ?
			bt_event_class_borrow_payload_field_class_const(
				scope->event_class) : NULL;
	}

	return NULL;
}

/* The child of a structure or variant field class at `index`. */
static const bt_field_class *indexed_child(const bt_field_class *fc,
		uint64_t index)
{
	bt_field_class_type type = bt_field_class_get_type(fc);

	if (type == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return index < bt_field_class_structure_get_member_count(fc) ?
			bt_field_class_structure_member_borrow_field_class_const(
				bt_field_class_structure_borrow_member_by_index_const(fc,
					index)) : NULL;
	}

	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_VARIANT)) {
		return index < bt_field_class_variant_get_option_count(fc) ?
			bt_field_class_variant_option_borrow_field_class_const(
				bt_field_class_variant_borrow_option_by_index_const(fc,
					index)) : NULL;
	}

	return NULL;
}

static const bt_field_class *path_item_child(const bt_field_class *fc,
		const bt_field_path_item *item)
{
	bt_field_class_type type = bt_field_class_get_type(fc);

	switch (bt_field_path_item_get_type(item)) {
	case BT_FIELD_PATH_ITEM_TYPE_INDEX:
		return indexed_child(fc, bt_field_path_item_index_get_index(item));
	case BT_FIELD_PATH_ITEM_TYPE_CURRENT_ARRAY_ELEMENT:
		return bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY) ?
			bt_field_class_array_borrow_element_field_class_const(fc) : NULL;
	case BT_FIELD_PATH_ITEM_TYPE_CURRENT_OPTION_CONTENT:
		return bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_OPTION) ?
			bt_field_class_option_borrow_field_class_const(fc) : NULL;
	}

	return NULL;
}

/* The output copy of the upstream field class that `path` designates. */
static bt_field_class *resolve_output(struct mirror *mirror,
		const struct mirror_fc_scope *scope, const bt_field_path *path)
{
	const bt_field_class *fc = scope_root(scope, bt_field_path_get_root_scope(path));
	uint64_t count = bt_field_path_get_item_count(path);
	bt_field_class *out;

	for (uint64_t i = 0; fc && i < count; i++) {
		fc = path_item_child(fc, bt_field_path_borrow_item_by_index_const(path, i));
	}

	out = fc ? g_hash_table_lookup(mirror->field_classes, fc) : NULL;
	if (!out) {
		MIRROR_ERROR(mirror, "Cannot locate the length or selector field "
			"class of a field class (field path with %" PRIu64
			" items from scope %d): the upstream trace class is "
			"inconsistent.", count, (int) bt_field_path_get_root_scope(path));
	}

	return out;
}

static void copy_integer_properties(const bt_field_class *in, bt_field_class *out)
{
	bt_field_class_integer_set_field_value_range(out,
		bt_field_class_integer_get_field_value_range(in));
	bt_field_class_integer_set_preferred_display_base(out,
		bt_field_class_integer_get_preferred_display_base(in));
}

static bool add_unsigned_mappings(struct mirror *mirror,
		const bt_field_class *in, bt_field_class *out)
{
	uint64_t count = bt_field_class_enumeration_get_mapping_count(in);

	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_enumeration_unsigned_mapping *mapping =
			bt_field_class_enumeration_unsigned_borrow_mapping_by_index_const(
				in, i);
		const char *label = bt_field_class_enumeration_mapping_get_label(
			bt_field_class_enumeration_unsigned_mapping_as_mapping_const(
				mapping));

		if (bt_field_class_enumeration_unsigned_add_mapping(out, label,
				bt_field_class_enumeration_unsigned_mapping_borrow_ranges_const(
					mapping))) {
			MIRROR_ERROR(mirror, "Cannot copy enumeration mapping `%s` "
				"(out of memory?).", label);
			return false;
		}
	}

	return true;
}

static bool add_signed_mappings(struct mirror *mirror,
		const bt_field_class *in, bt_field_class *out)
{
	uint64_t count = bt_field_class_enumeration_get_mapping_count(in);

	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_enumeration_signed_mapping *mapping =
			bt_field_class_enumeration_signed_borrow_mapping_by_index_const(
				in, i);
		const char *label = bt_field_class_enumeration_mapping_get_label(
			bt_field_class_enumeration_signed_mapping_as_mapping_const(
				mapping));

		if (bt_field_class_enumeration_signed_add_mapping(out, label,
				bt_field_class_enumeration_signed_mapping_borrow_ranges_const(
					mapping))) {
			MIRROR_ERROR(mirror, "Cannot copy enumeration mapping `%s` "
				"(out of memory?).", label);
			return false;
		}
	}

	return true;
}

static bt_field_class *copy_integer(struct mirror *mirror, bt_trace_class *tc,
		const bt_field_class *in)
{
	bt_field_class_type type = bt_field_class_get_type(in);
	bt_field_class *out = NULL;
	bool ok = true;

	switch (type) {
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
		out = bt_field_class_integer_unsigned_create(tc);
		break;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
		out = bt_field_class_integer_signed_create(tc);
		break;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
		out = bt_field_class_enumeration_unsigned_create(tc);
		ok = out && add_unsigned_mappings(mirror, in, out);
		break;
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		out = bt_field_class_enumeration_signed_create(tc);
		ok = out && add_signed_mappings(mirror, in, out);
		break;
	default:
		break;
	}

	if (!ok) {
		bt_field_class_put_ref(out);
		return NULL;
	}

	if (out) {
		copy_integer_properties(in, out);
	}

	return out;
}

static bt_field_class *copy_structure(struct mirror *mirror, bt_trace_class *tc,
		const struct mirror_fc_scope *scope, const bt_field_class *in)
{
	bt_field_class *out = bt_field_class_structure_create(tc);
	uint64_t count = bt_field_class_structure_get_member_count(in);

	for (uint64_t i = 0; out && i < count; i++) {
		const bt_field_class_structure_member *member =
			bt_field_class_structure_borrow_member_by_index_const(in, i);
		const char *name = bt_field_class_structure_member_get_name(member);
		bt_field_class *member_fc = mirror_copy_field_class(mirror, tc, scope,
			bt_field_class_structure_member_borrow_field_class_const(member));
		bool appended = member_fc &&
			bt_field_class_structure_append_member(out, name, member_fc) ==
				BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

		bt_field_class_put_ref(member_fc);
		if (!appended) {
			MIRROR_ERROR(mirror, "Cannot copy structure member `%s`.", name);
			bt_field_class_put_ref(out);
			return NULL;
		}

		bt_field_class_structure_member_set_user_attributes(
			bt_field_class_structure_borrow_member_by_index(out, i),
			bt_field_class_structure_member_borrow_user_attributes_const(member));
	}

	return out;
}

static bt_field_class *copy_array(struct mirror *mirror, bt_trace_class *tc,
		const struct mirror_fc_scope *scope, const bt_field_class *in)
{
	bt_field_class_type type = bt_field_class_get_type(in);
	bt_field_class *element = mirror_copy_field_class(mirror, tc, scope,
		bt_field_class_array_borrow_element_field_class_const(in));
	bt_field_class *length_fc = NULL;
	bt_field_class *out = NULL;

	if (!element) {
		return NULL;
	}

	if (type == BT_FIELD_CLASS_TYPE_STATIC_ARRAY) {
		out = bt_field_class_array_static_create(tc, element,
			bt_field_class_array_static_get_length(in));
		goto end;
	}

	if (type == BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD) {
		length_fc = resolve_output(mirror, scope,
			bt_field_class_array_dynamic_with_length_field_borrow_length_field_path_const(
				in));
		if (!length_fc) {
			goto end;
		}
	}

	out = bt_field_class_array_dynamic_create(tc, element, length_fc);

end:
	bt_field_class_put_ref(element);
	return out;
}

static bt_field_class *create_option(struct mirror *mirror, bt_trace_class *tc,
		const struct mirror_fc_scope *scope, const bt_field_class *in,
		bt_field_class *content)
{
	bt_field_class_type type = bt_field_class_get_type(in);
	bt_field_class *selector;
	bt_field_class *out = NULL;

	if (type == BT_FIELD_CLASS_TYPE_OPTION_WITHOUT_SELECTOR_FIELD) {
		return bt_field_class_option_without_selector_create(tc, content);
	}

	selector = resolve_output(mirror, scope,
		bt_field_class_option_with_selector_field_borrow_selector_field_path_const(in));
	if (!selector) {
		return NULL;
	}

	switch (type) {
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_BOOL_SELECTOR_FIELD:
		out = bt_field_class_option_with_selector_field_bool_create(tc,
			content, selector);
		if (out) {
			bt_field_class_option_with_selector_field_bool_set_selector_is_reversed(
				out,
				bt_field_class_option_with_selector_field_bool_selector_is_reversed(
					in));
		}
		break;
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
		out = bt_field_class_option_with_selector_field_integer_unsigned_create(
			tc, content, selector,
			bt_field_class_option_with_selector_field_integer_unsigned_borrow_selector_ranges_const(
				in));
		break;
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_SIGNED_INTEGER_SELECTOR_FIELD:
		out = bt_field_class_option_with_selector_field_integer_signed_create(
			tc, content, selector,
			bt_field_class_option_with_selector_field_integer_signed_borrow_selector_ranges_const(
				in));
		break;
	default:
		break;
	}

	return out;
}

static bt_field_class *copy_option(struct mirror *mirror, bt_trace_class *tc,
		const struct mirror_fc_scope *scope, const bt_field_class *in)
{
	bt_field_class *content = mirror_copy_field_class(mirror, tc, scope,
		bt_field_class_option_borrow_field_class_const(in));
	bt_field_class *out;

	if (!content) {
		return NULL;
	}

	out = create_option(mirror, tc, scope, in, content);
	bt_field_class_put_ref(content);
	return out;
}

/* Appends option `index` of variant `in` to `out`. */
static bool append_variant_option(struct mirror *mirror, bt_trace_class *tc,
		const struct mirror_fc_scope *scope, const bt_field_class *in,
		bt_field_class *out, uint64_t index)
{
	bt_field_class_type type = bt_field_class_get_type(in);
	const bt_field_class_variant_option *option =
		bt_field_class_variant_borrow_option_by_index_const(in, index);
	const char *name = bt_field_class_variant_option_get_name(option);
	bt_field_class *option_fc = mirror_copy_field_class(mirror, tc, scope,
		bt_field_class_variant_option_borrow_field_class_const(option));
	int status = -1;

	if (!option_fc) {
		return false;
	}

	switch (type) {
	case BT_FIELD_CLASS_TYPE_VARIANT_WITHOUT_SELECTOR_FIELD:
		status = bt_field_class_variant_without_selector_append_option(out,
			name, option_fc);
		break;
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
		status = bt_field_class_variant_with_selector_field_integer_unsigned_append_option(
			out, name, option_fc,
			bt_field_class_variant_with_selector_field_integer_unsigned_option_borrow_ranges_const(
				bt_field_class_variant_with_selector_field_integer_unsigned_borrow_option_by_index_const(
					in, index)));
		break;
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_SIGNED_INTEGER_SELECTOR_FIELD:
		status = bt_field_class_variant_with_selector_field_integer_signed_append_option(
			out, name, option_fc,
			bt_field_class_variant_with_selector_field_integer_signed_option_borrow_ranges_const(
				bt_field_class_variant_with_selector_field_integer_signed_borrow_option_by_index_const(
					in, index)));
		break;
	default:
		break;
	}

	bt_field_class_put_ref(option_fc);
	if (status) {
		MIRROR_ERROR(mirror, "Cannot copy variant option `%s`.", name);
		return false;
	}

	bt_field_class_variant_option_set_user_attributes(
		bt_field_class_variant_borrow_option_by_index(out, index),
		bt_field_class_variant_option_borrow_user_attributes_const(option));
	return true;
}

static bt_field_class *copy_variant(struct mirror *mirror, bt_trace_class *tc,
		const struct mirror_fc_scope *scope, const bt_field_class *in)
{
	bt_field_class *selector = NULL;
	bt_field_class *out;
	uint64_t count = bt_field_class_variant_get_option_count(in);

	if (bt_field_class_get_type(in) !=
			BT_FIELD_CLASS_TYPE_VARIANT_WITHOUT_SELECTOR_FIELD) {
		selector = resolve_output(mirror, scope,
			bt_field_class_variant_with_selector_field_borrow_selector_field_path_const(
				in));
		if (!selector) {
			return NULL;
		}
	}

	out = bt_field_class_variant_create(tc, selector);
	for (uint64_t i = 0; out && i < count; i++) {
		if (!append_variant_option(mirror, tc, scope, in, out, i)) {
			bt_field_class_put_ref(out);
			return NULL;
		}
	}

	return out;
}

static bt_field_class *copy_by_type(struct mirror *mirror, bt_trace_class *tc,
		const struct mirror_fc_scope *scope, const bt_field_class *in)
{
	bt_field_class_type type = bt_field_class_get_type(in);

	switch (mirror_field_kind_of(type)) {
	case MIRROR_FIELD_BOOL:
		return bt_field_class_bool_create(tc);
	case MIRROR_FIELD_BIT_ARRAY:
		return bt_field_class_bit_array_create(tc,
			bt_field_class_bit_array_get_length(in));
	case MIRROR_FIELD_UNSIGNED:
	case MIRROR_FIELD_SIGNED:
		return copy_integer(mirror, tc, in);
	case MIRROR_FIELD_SINGLE:
		return bt_field_class_real_single_precision_create(tc);
	case MIRROR_FIELD_DOUBLE:
		return bt_field_class_real_double_precision_create(tc);
	case MIRROR_FIELD_STRING:
		return bt_field_class_string_create(tc);
	case MIRROR_FIELD_STRUCTURE:
		return copy_structure(mirror, tc, scope, in);
	case MIRROR_FIELD_ARRAY:
		return copy_array(mirror, tc, scope, in);
	case MIRROR_FIELD_OPTION:
		return copy_option(mirror, tc, scope, in);
	case MIRROR_FIELD_VARIANT:
		return copy_variant(mirror, tc, scope, in);
	case MIRROR_FIELD_UNSUPPORTED:
		break;
	}

	mirror_unsupported_field(mirror, type);
	return NULL;
}

bt_field_class *mirror_copy_field_class(struct mirror *mirror,
		bt_trace_class *trace_class, const struct mirror_fc_scope *scope,
		const bt_field_class *in)
{
	bt_field_class *out = copy_by_type(mirror, trace_class, scope, in);

	if (!out) {
		MIRROR_ERROR(mirror, "Cannot copy a field class (out of memory, or "
			"see the causes above).");
		return NULL;
	}

	bt_field_class_set_user_attributes(out,
		bt_field_class_borrow_user_attributes_const(in));
	bt_field_class_get_ref(in);
	bt_field_class_get_ref(out);
	g_hash_table_insert(mirror->field_classes, (gpointer) in, out);
	return out;
}
