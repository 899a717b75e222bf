/*
 * The `vm` babeltrace2 plugin: every component class of the shared object is
 * declared here, because BT_PLUGIN() makes the plugin descriptor static to
 * this translation unit. Each component lives in its own folder and exposes
 * its methods through a header.
 */

#include <babeltrace2/babeltrace.h>

BT_PLUGIN_MODULE();

BT_PLUGIN(vm);
BT_PLUGIN_DESCRIPTION("Virtual machine trace analysis: synchronize host and guest traces, "
	"track vCPU modes and the real state of guest threads");
BT_PLUGIN_AUTHOR("The vm plugin developers");
BT_PLUGIN_LICENSE("MIT");
BT_PLUGIN_VERSION(0, 1, 0, "");
