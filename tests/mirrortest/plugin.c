/*
 * The `vmtest` plugin: components that only the tests use. Not installed.
 */

#include <babeltrace2/babeltrace.h>

#include "fields-sink.h"
#include "mirror-filter.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(vmtest);
BT_PLUGIN_DESCRIPTION("Test-only components of the vm plugin");
BT_PLUGIN_AUTHOR("The vm plugin developers");
BT_PLUGIN_LICENSE("MIT");

BT_PLUGIN_FILTER_COMPONENT_CLASS(mirror, mirror_filter_iterator_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(mirror,
	"Re-create every message on filter.vm.correlate's mirror trace IR, "
	"shifting all times by `offset-ns`");
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP(mirror,
	"Parameters: offset-ns (signed or unsigned integer, default 0): added "
	"to every time; no-formula-for (string): name of a clock class that "
	"gets no formula, as if it belonged to no known machine.");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(mirror,
	mirror_filter_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(mirror, mirror_filter_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(mirror,
	mirror_filter_iterator_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(mirror,
	mirror_filter_iterator_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHODS(mirror,
	mirror_filter_iterator_seek_beginning,
	mirror_filter_iterator_can_seek_beginning);

BT_PLUGIN_SINK_COMPONENT_CLASS(fields, fields_sink_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(fields,
	"Write every message, field by field, one line each, strings by their "
	"length, for comparing two graphs' outputs");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(fields,
	"Parameter: path (string): the output file. Line: stream key, message "
	"kind, time in ns from origin (or -), content. Any number of input ports.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(fields, fields_sink_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(fields, fields_sink_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_INPUT_PORT_CONNECTED_METHOD(fields,
	fields_sink_port_connected);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(fields,
	fields_sink_graph_is_configured);
