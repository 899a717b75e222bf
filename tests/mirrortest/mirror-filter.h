#ifndef VM_TESTS_MIRROR_FILTER_H
#define VM_TESTS_MIRROR_FILTER_H

/*
 * filter.vmtest.mirror: passes every message through the correlate
 * component's mirror with the formula t + offset-ns for every clock class,
 * so that the mirror can be tested without the correlate component.
 */

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status mirror_filter_initialize(
		bt_self_component_filter *self_comp,
		bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_data);

void mirror_filter_finalize(bt_self_component_filter *self_comp);

bt_message_iterator_class_initialize_method_status mirror_filter_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port);

void mirror_filter_iterator_finalize(bt_self_message_iterator *self_msg_iter);

bt_message_iterator_class_next_method_status mirror_filter_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);

bt_message_iterator_class_can_seek_beginning_method_status
mirror_filter_iterator_can_seek_beginning(bt_self_message_iterator *self_msg_iter,
		bt_bool *can_seek);

bt_message_iterator_class_seek_beginning_method_status
mirror_filter_iterator_seek_beginning(bt_self_message_iterator *self_msg_iter);

#endif /* VM_TESTS_MIRROR_FILTER_H */
