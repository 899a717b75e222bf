/*
 * The `vmstub` test plugin: source.vmstub.stub writes stub traces (see
 * stub-traces/README.md) as LTTng-like traces, for tests/tools/stub2ctf.
 */

#include <babeltrace2/babeltrace.h>

#include "stub-source.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(vmstub);
BT_PLUGIN_DESCRIPTION("Test traces of the vm plugin: stub files as LTTng-like kernel traces");
BT_PLUGIN_AUTHOR("The vm plugin developers");
BT_PLUGIN_LICENSE("MIT");
BT_PLUGIN_VERSION(0, 1, 0, "");

BT_PLUGIN_SOURCE_COMPONENT_CLASS(stub, stub_iterator_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION(stub,
	"Read a stub file and emit it as an LTTng-like kernel trace.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP(stub,
	"Parameter `path` (string, required): the stub file. Format: stub-traces/README.md.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD(stub, stub_source_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD(stub, stub_source_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(stub,
	stub_iterator_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(stub,
	stub_iterator_finalize);
