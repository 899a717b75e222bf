#ifndef VM_TESTS_FIELDS_SINK_H
#define VM_TESTS_FIELDS_SINK_H

/*
 * sink.vmtest.fields: writes one line per message to `path`, every field
 * and field class as field-dump.h writes them, so that a test can compare
 * two graphs' outputs stream by stream. Any number of input ports (one is
 * always free, like filter.utils.muxer's): a source's ports connect to it
 * directly, so no muxer has to order what it cannot.
 */

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status fields_sink_initialize(
		bt_self_component_sink *self_comp,
		bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_data);

void fields_sink_finalize(bt_self_component_sink *self_comp);

bt_component_class_port_connected_method_status fields_sink_port_connected(
		bt_self_component_sink *self_comp,
		bt_self_component_port_input *self_port,
		const bt_port_output *other_port);

bt_component_class_sink_graph_is_configured_method_status fields_sink_graph_is_configured(
		bt_self_component_sink *self_comp);

bt_component_class_sink_consume_method_status fields_sink_consume(
		bt_self_component_sink *self_comp);

#endif /* VM_TESTS_FIELDS_SINK_H */
