/*
 * filter.vm.correlate, the component: parameters and dynamic input ports.
 * Like filter.utils.muxer, it starts with `in0` and adds a port each time
 * one gets connected, so one input port is always free.
 */

#include <inttypes.h>
#include <stdio.h>
#include <glib.h>

#include "common/man-page.h"
#include "correlate/component.h"
#include "correlate/correlate.h"

static bt_self_component_add_port_status add_input_port(struct correlate_comp *comp,
		bt_self_component_filter *self_comp)
{
	char name[32];

	snprintf(name, sizeof(name), "in%" PRIu64, comp->next_port_index);
	comp->next_port_index++;
	return bt_self_component_filter_add_input_port(self_comp, name, NULL, NULL);
}

bt_component_class_initialize_method_status correlate_init(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_data)
{
	bt_self_component *self_comp =
		bt_self_component_filter_as_self_component(self_comp_filter);
	struct correlate_comp *comp = g_new0(struct correlate_comp, 1);

	(void) config;
	(void) init_data;
	comp->self_comp = self_comp;
	comp->log_level = bt_component_get_logging_level(
		bt_self_component_as_component(self_comp));
	comp->name = bt_component_get_name(bt_self_component_as_component(self_comp));
	bt_self_component_set_data(self_comp, comp);
	if (!correlate_params_parse(&comp->params, params, self_comp)) {
		goto error;
	}

	if (add_input_port(comp, self_comp_filter) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK ||
			bt_self_component_filter_add_output_port(self_comp_filter, "out",
				NULL, NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"Cannot add the ports of filter.vm.correlate.");
		goto error;
	}

	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	correlate_params_fini(&comp->params);
	g_free(comp);
	bt_self_component_set_data(self_comp, NULL);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void correlate_finalize(bt_self_component_filter *self_comp_filter)
{
	struct correlate_comp *comp = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self_comp_filter));

	if (!comp) {
		return;
	}

	correlate_params_fini(&comp->params);
	g_free(comp);
}

bt_component_class_port_connected_method_status correlate_input_port_connected(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_port_input *self_port,
		const bt_port_output *other_port)
{
	struct correlate_comp *comp = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self_comp_filter));
	uint64_t free_ports = 0;
	uint64_t i;

	(void) self_port;
	(void) other_port;
	for (i = 0; i < bt_component_filter_get_input_port_count(
			bt_self_component_filter_as_component_filter(self_comp_filter)); i++) {
		const bt_port_input *port = bt_component_filter_borrow_input_port_by_index_const(
			bt_self_component_filter_as_component_filter(self_comp_filter), i);

		if (!bt_port_is_connected(bt_port_input_as_port_const(port))) {
			free_ports++;
		}
	}

	if (free_ports > 0) {
		return BT_COMPONENT_CLASS_PORT_CONNECTED_METHOD_STATUS_OK;
	}

	if (add_input_port(comp, self_comp_filter) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(comp->self_comp,
			"Cannot add a free input port to filter.vm.correlate.");
		return BT_COMPONENT_CLASS_PORT_CONNECTED_METHOD_STATUS_ERROR;
	}

	return BT_COMPONENT_CLASS_PORT_CONNECTED_METHOD_STATUS_OK;
}

const char correlate_help[] =
	"Synchronizes the clocks of a KVM host and its guests, traced with LTTng, "
	"to one reference time base, and merges their messages into one timeline "
	"in non-decreasing time.\n"
	"\n"
	"A machine is one trace environment `vm_machine` (a previous output), "
	"else one distinct (trace environment `hostname`, clock UUID). "
	"The host is the machine with kvm_entry / kvm_x86_entry events. Clocks "
	"are synchronized with matched one-way messages (vmsync hypercalls, else "
	"the guest's events inside the host's vCPU guest-mode intervals, else TCP "
	"packets) and Trace Compass's convex-hull algorithm; every output "
	"trace's environment gains vm_machine, vm_role, vm_sync_quality, "
	"vm_sync_method, vm_sync_slope, vm_sync_offset_ns, vm_sync_accuracy and "
	"vm_sync_matches (of the first segment of a piecewise map), and a guest's "
	"vm_host_pid (its QEMU process) when found.\n"
	"\n"
	"Parameters (all optional):\n"
	"  sync=\"auto\"|\"vmsync\"|\"vcpu\"|\"tcp\"|\"none\"  (default \"auto\")\n"
	"  sync-model=\"piecewise\"|\"linear\"  (default \"piecewise\") piecewise: a new\n"
	"                       line where one stops fitting the matches (NTP-slewed\n"
	"                       clocks), joined continuously, each change a vm:sync\n"
	"                       event; linear: one line per machine (Trace Compass)\n"
	"  look-ahead-ns=N       read once (piecewise, the default): how far past a\n"
	"                       message each machine is read before its map there\n"
	"                       is fixed (default 50000000, 50 ms; shorter while\n"
	"                       more than 4096 messages wait); linear, paths\n"
	"                       through other machines and guests whose vCPUs do\n"
	"                       not fit their trace's beginning read the inputs\n"
	"                       twice (they must seek)\n"
	"  reference=\"MACHINE\"  time base (default: the host, else the smallest name)\n"
	"  host=\"MACHINE\"       the host, when it has no KVM entry events\n"
	"  transforms={MACHINE={slope=REAL,offset-ns=INTEGER},...}\n"
	"                       given formulas t_ref = slope * t + offset-ns; with one\n"
	"                       for every machine but the reference, the inputs are\n"
	"                       read once\n"
	"  MACHINE: a machine's name; `base-2` names `base#2` (a map key cannot\n"
	"                       hold `#`)\n"
	"\n"
	VM_MAN_PAGE_HELP("babeltrace2-filter.vm.correlate");
