/*
 * The CPU of a packet: see packet-cpu.h.
 */

#include "common/packet-cpu.h"
#include "event.h"

int64_t vm_packet_cpu_id(const bt_packet *packet)
{
	const bt_field *context = packet ? bt_packet_borrow_context_field_const(packet) : NULL;
	const bt_field *field;
	bt_field_class_type type;

	if (!context || !bt_field_class_type_is(bt_field_get_class_type(context),
			BT_FIELD_CLASS_TYPE_STRUCTURE)) {
		return VM_FIELD_MISSING;
	}
	field = bt_field_structure_borrow_member_field_by_name_const(context, "cpu_id");
	if (!field) {
		return VM_FIELD_MISSING;
	}
	type = bt_field_get_class_type(field);
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		uint64_t value = bt_field_integer_unsigned_get_value(field);

		/* A CPU number past INT64_MAX comes from a corrupted trace. */
		return value > INT64_MAX ? VM_FIELD_MISSING : (int64_t) value;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		return bt_field_integer_signed_get_value(field);
	}
	return VM_FIELD_MISSING;
}
