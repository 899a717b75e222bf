#include "field-dump.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

static const char *type_name(bt_field_class_type type)
{
	switch (type) {
	case BT_FIELD_CLASS_TYPE_BOOL: return "bool";
	case BT_FIELD_CLASS_TYPE_BIT_ARRAY: return "bits";
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER: return "u";
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER: return "s";
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION: return "ue";
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION: return "se";
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL: return "f";
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL: return "d";
	case BT_FIELD_CLASS_TYPE_STRING: return "str";
	case BT_FIELD_CLASS_TYPE_STRUCTURE: return "struct";
	case BT_FIELD_CLASS_TYPE_STATIC_ARRAY: return "sarray";
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD: return "darray";
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD: return "darray-len";
	case BT_FIELD_CLASS_TYPE_OPTION_WITHOUT_SELECTOR_FIELD: return "opt";
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_BOOL_SELECTOR_FIELD: return "opt-bool";
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD: return "opt-u";
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_SIGNED_INTEGER_SELECTOR_FIELD: return "opt-s";
	case BT_FIELD_CLASS_TYPE_VARIANT_WITHOUT_SELECTOR_FIELD: return "var";
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD: return "var-u";
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_SIGNED_INTEGER_SELECTOR_FIELD: return "var-s";
	default: return "?";
	}
}

/* Bytes as C-like text: printable ASCII but `"` and `\`, else \xHH. */
static void append_bytes(GString *out, const char *bytes, uint64_t length)
{
	g_string_append_c(out, '"');
	for (uint64_t i = 0; i < length; i++) {
		unsigned char c = (unsigned char) bytes[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			g_string_append_c(out, (char) c);
		} else {
			g_string_append_printf(out, "\\x%02x", c);
		}
	}
	g_string_append_c(out, '"');
}

/* The length is the string; the value may show more (a recycled field). */
static void dump_string(GString *out, const bt_field *field)
{
	uint64_t length = bt_field_string_get_length(field);
	const char *value = bt_field_string_get_value(field);
	size_t shown = strlen(value);

	append_bytes(out, value, length);
	if (shown != length) {
		g_string_append_printf(out, "!value-shows-%zu-bytes", shown);
	}
}

static void dump_labels(GString *out, bt_field_class_enumeration_mapping_label_array labels,
		uint64_t count)
{
	g_string_append_c(out, '[');
	for (uint64_t i = 0; i < count; i++) {
		g_string_append_printf(out, "%s%s", i ? "," : "", labels[i]);
	}
	g_string_append_c(out, ']');
}

static void dump_enum_labels(GString *out, const bt_field *field, bool is_signed)
{
	bt_field_class_enumeration_mapping_label_array labels = NULL;
	uint64_t count = 0;

	if ((is_signed ? bt_field_enumeration_signed_get_mapping_labels(field, &labels, &count) :
			bt_field_enumeration_unsigned_get_mapping_labels(field, &labels,
				&count)) != BT_FIELD_ENUMERATION_GET_MAPPING_LABELS_STATUS_OK) {
		g_string_append(out, "[!labels]");
		return;
	}

	dump_labels(out, labels, count);
}

static void dump_members(GString *out, const bt_field *field)
{
	const bt_field_class *fc = bt_field_borrow_class_const(field);
	uint64_t count = bt_field_class_structure_get_member_count(fc);

	g_string_append_c(out, '{');
	for (uint64_t i = 0; i < count; i++) {
		g_string_append_printf(out, "%s%s=", i ? "," : "",
			bt_field_class_structure_member_get_name(
				bt_field_class_structure_borrow_member_by_index_const(fc, i)));
		field_dump(out, bt_field_structure_borrow_member_field_by_index_const(field, i));
	}
	g_string_append_c(out, '}');
}

static void dump_elements(GString *out, const bt_field *field)
{
	uint64_t length = bt_field_array_get_length(field);

	g_string_append_printf(out, "[%" PRIu64 "](", length);
	for (uint64_t i = 0; i < length; i++) {
		if (i) {
			g_string_append_c(out, ',');
		}
		field_dump(out, bt_field_array_borrow_element_field_by_index_const(field, i));
	}
	g_string_append_c(out, ')');
}

static void dump_variant(GString *out, const bt_field *field)
{
	uint64_t index = bt_field_variant_get_selected_option_index(field);
	const bt_field_class_variant_option *option =
		bt_field_class_variant_borrow_option_by_index_const(
			bt_field_borrow_class_const(field), index);

	g_string_append_printf(out, "#%" PRIu64 ":%s=", index,
		bt_field_class_variant_option_get_name(option));
	field_dump(out, bt_field_variant_borrow_selected_option_field_const(field));
}

void field_dump(GString *out, const bt_field *field)
{
	bt_field_class_type type;

	if (!field) {
		g_string_append_c(out, '-');
		return;
	}

	type = bt_field_get_class_type(field);
	g_string_append_printf(out, "%s:", type_name(type));
	switch (type) {
	case BT_FIELD_CLASS_TYPE_BOOL:
		g_string_append_printf(out, "%d", (int) bt_field_bool_get_value(field));
		break;
	case BT_FIELD_CLASS_TYPE_BIT_ARRAY:
		g_string_append_printf(out, "%#" PRIx64,
			bt_field_bit_array_get_value_as_integer(field));
		break;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
		g_string_append_printf(out, "%" PRIu64, bt_field_integer_unsigned_get_value(field));
		if (type == BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION) {
			dump_enum_labels(out, field, false);
		}
		break;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		g_string_append_printf(out, "%" PRId64, bt_field_integer_signed_get_value(field));
		if (type == BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION) {
			dump_enum_labels(out, field, true);
		}
		break;
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
		g_string_append_printf(out, "%a",
			(double) bt_field_real_single_precision_get_value(field));
		break;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
		g_string_append_printf(out, "%a", bt_field_real_double_precision_get_value(field));
		break;
	case BT_FIELD_CLASS_TYPE_STRING:
		dump_string(out, field);
		break;
	case BT_FIELD_CLASS_TYPE_STRUCTURE:
		dump_members(out, field);
		break;
	case BT_FIELD_CLASS_TYPE_STATIC_ARRAY:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD:
		dump_elements(out, field);
		break;
	case BT_FIELD_CLASS_TYPE_OPTION_WITHOUT_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_BOOL_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_OPTION_WITH_SIGNED_INTEGER_SELECTOR_FIELD:
		field_dump(out, bt_field_option_borrow_field_const(field));
		break;
	case BT_FIELD_CLASS_TYPE_VARIANT_WITHOUT_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_UNSIGNED_INTEGER_SELECTOR_FIELD:
	case BT_FIELD_CLASS_TYPE_VARIANT_WITH_SIGNED_INTEGER_SELECTOR_FIELD:
		dump_variant(out, field);
		break;
	default:
		g_string_append(out, "?");
		break;
	}
}

static void dump_unsigned_mappings(GString *out, const bt_field_class *fc)
{
	uint64_t count = bt_field_class_enumeration_get_mapping_count(fc);

	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_enumeration_unsigned_mapping *mapping =
			bt_field_class_enumeration_unsigned_borrow_mapping_by_index_const(fc, i);
		const bt_integer_range_set_unsigned *ranges =
			bt_field_class_enumeration_unsigned_mapping_borrow_ranges_const(mapping);

		g_string_append_printf(out, "%s=", bt_field_class_enumeration_mapping_get_label(
			bt_field_class_enumeration_unsigned_mapping_as_mapping_const(mapping)));
		for (uint64_t r = 0; r < bt_integer_range_set_get_range_count(
				bt_integer_range_set_unsigned_as_range_set_const(ranges)); r++) {
			const bt_integer_range_unsigned *range =
				bt_integer_range_set_unsigned_borrow_range_by_index_const(ranges, r);

			g_string_append_printf(out, "%" PRIu64 "..%" PRIu64 ";",
				bt_integer_range_unsigned_get_lower(range),
				bt_integer_range_unsigned_get_upper(range));
		}
	}
}

static void dump_signed_mappings(GString *out, const bt_field_class *fc)
{
	uint64_t count = bt_field_class_enumeration_get_mapping_count(fc);

	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_enumeration_signed_mapping *mapping =
			bt_field_class_enumeration_signed_borrow_mapping_by_index_const(fc, i);
		const bt_integer_range_set_signed *ranges =
			bt_field_class_enumeration_signed_mapping_borrow_ranges_const(mapping);

		g_string_append_printf(out, "%s=", bt_field_class_enumeration_mapping_get_label(
			bt_field_class_enumeration_signed_mapping_as_mapping_const(mapping)));
		for (uint64_t r = 0; r < bt_integer_range_set_get_range_count(
				bt_integer_range_set_signed_as_range_set_const(ranges)); r++) {
			const bt_integer_range_signed *range =
				bt_integer_range_set_signed_borrow_range_by_index_const(ranges, r);

			g_string_append_printf(out, "%" PRId64 "..%" PRId64 ";",
				bt_integer_range_signed_get_lower(range),
				bt_integer_range_signed_get_upper(range));
		}
	}
}

static void dump_integer_class(GString *out, const bt_field_class *fc,
		bt_field_class_type type)
{
	g_string_append_printf(out, "%" PRIu64 "/b%d",
		bt_field_class_integer_get_field_value_range(fc),
		(int) bt_field_class_integer_get_preferred_display_base(fc));
	if (type == BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION) {
		g_string_append_c(out, '{');
		dump_unsigned_mappings(out, fc);
		g_string_append_c(out, '}');
	} else if (type == BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION) {
		g_string_append_c(out, '{');
		dump_signed_mappings(out, fc);
		g_string_append_c(out, '}');
	}
}

static void dump_member_classes(GString *out, const bt_field_class *fc)
{
	uint64_t count = bt_field_class_structure_get_member_count(fc);

	g_string_append_c(out, '{');
	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_structure_member *member =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);

		g_string_append_printf(out, "%s%s=", i ? "," : "",
			bt_field_class_structure_member_get_name(member));
		field_class_dump(out,
			bt_field_class_structure_member_borrow_field_class_const(member));
	}
	g_string_append_c(out, '}');
}

static void dump_option_classes(GString *out, const bt_field_class *fc)
{
	uint64_t count = bt_field_class_variant_get_option_count(fc);

	g_string_append_c(out, '{');
	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_variant_option *option =
			bt_field_class_variant_borrow_option_by_index_const(fc, i);

		g_string_append_printf(out, "%s%s=", i ? "," : "",
			bt_field_class_variant_option_get_name(option));
		field_class_dump(out, bt_field_class_variant_option_borrow_field_class_const(option));
	}
	g_string_append_c(out, '}');
}

void field_class_dump(GString *out, const bt_field_class *fc)
{
	bt_field_class_type type;

	if (!fc) {
		g_string_append_c(out, '-');
		return;
	}

	type = bt_field_class_get_type(fc);
	g_string_append(out, type_name(type));
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER)) {
		dump_integer_class(out, fc, type);
	} else if (type == BT_FIELD_CLASS_TYPE_BIT_ARRAY) {
		g_string_append_printf(out, "%" PRIu64, bt_field_class_bit_array_get_length(fc));
	} else if (type == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		dump_member_classes(out, fc);
	} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY)) {
		if (type == BT_FIELD_CLASS_TYPE_STATIC_ARRAY) {
			g_string_append_printf(out, "%" PRIu64,
				bt_field_class_array_static_get_length(fc));
		}
		g_string_append_c(out, '(');
		field_class_dump(out, bt_field_class_array_borrow_element_field_class_const(fc));
		g_string_append_c(out, ')');
	} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_OPTION)) {
		g_string_append_c(out, '(');
		field_class_dump(out, bt_field_class_option_borrow_field_class_const(fc));
		g_string_append_c(out, ')');
	} else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_VARIANT)) {
		dump_option_classes(out, fc);
	}
}
