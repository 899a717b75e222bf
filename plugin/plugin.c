/*
 * The `vm` babeltrace2 plugin: every component class of the shared object is
 * declared here, because BT_PLUGIN() makes the plugin descriptor static to
 * this translation unit. Each component lives in its own folder and exposes
 * its methods through a header.
 */

#include <babeltrace2/babeltrace.h>

#include "threads/threads-sink.h"
#include "state/state.h"
#include "correlate/correlate.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(vm);
BT_PLUGIN_DESCRIPTION("Virtual machine trace analysis: synchronize host and guest traces, "
	"track vCPU modes and the real state of guest threads");
BT_PLUGIN_AUTHOR("The vm plugin developers");
BT_PLUGIN_LICENSE("MIT");
BT_PLUGIN_VERSION(0, 1, 0, "");

/* sink.vm.threads */
BT_PLUGIN_SINK_COMPONENT_CLASS(threads, threads_sink_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(threads, VM_THREADS_SINK_DESCRIPTION);
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(threads, VM_THREADS_SINK_HELP);
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(threads, threads_sink_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(threads, threads_sink_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(threads,
	threads_sink_graph_is_configured);
/* filter.vm.state */
BT_PLUGIN_FILTER_COMPONENT_CLASS(state, state_iterator_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(state, VM_STATE_DESCRIPTION);
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP(state, VM_STATE_HELP);
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(state, state_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(state, state_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(state,
	state_iterator_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(state,
	state_iterator_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHODS(state,
	state_iterator_seek_beginning, state_iterator_can_seek_beginning);
BT_PLUGIN_FILTER_COMPONENT_CLASS(correlate, correlate_msg_iter_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(correlate, CORRELATE_DESCRIPTION);
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP(correlate, correlate_help);
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(correlate, correlate_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(correlate, correlate_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_INPUT_PORT_CONNECTED_METHOD(correlate,
	correlate_input_port_connected);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(correlate,
	correlate_msg_iter_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(correlate,
	correlate_msg_iter_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHODS(correlate,
	correlate_msg_iter_seek_beginning, correlate_msg_iter_can_seek_beginning);
