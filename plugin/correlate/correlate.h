#ifndef VM_CORRELATE_CORRELATE_H
#define VM_CORRELATE_CORRELATE_H

/*
 * filter.vm.correlate: synchronizes the clocks of a KVM host and its guests
 * to one reference time base and merges their traces into one timeline.
 *
 * The methods below are declared in plugin/plugin.c.
 */

#include <babeltrace2/babeltrace.h>

#define CORRELATE_DESCRIPTION \
	"Synchronize the traces of a KVM host and its guests to one time base and merge them."

extern const char correlate_help[];

bt_component_class_initialize_method_status correlate_init(
		bt_self_component_filter *self_comp,
		bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_data);

void correlate_finalize(bt_self_component_filter *self_comp);

bt_component_class_port_connected_method_status correlate_input_port_connected(
		bt_self_component_filter *self_comp,
		bt_self_component_port_input *self_port,
		const bt_port_output *other_port);

bt_message_iterator_class_initialize_method_status correlate_msg_iter_init(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *self_port);

void correlate_msg_iter_finalize(bt_self_message_iterator *self_msg_iter);

bt_message_iterator_class_next_method_status correlate_msg_iter_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);

bt_message_iterator_class_seek_beginning_method_status correlate_msg_iter_seek_beginning(
		bt_self_message_iterator *self_msg_iter);

bt_message_iterator_class_can_seek_beginning_method_status
correlate_msg_iter_can_seek_beginning(bt_self_message_iterator *self_msg_iter,
		bt_bool *can_seek);

#endif /* VM_CORRELATE_CORRELATE_H */
