#ifndef VM_PLUGIN_STATE_STATE_H
#define VM_PLUGIN_STATE_STATE_H

/*
 * filter.vm.state: passes every message through and adds, in a stream of
 * its own, a `vm:vcpu_state` event at every vCPU mode change. The
 * component class is declared in plugin/plugin.c with these methods.
 */

#include <babeltrace2/babeltrace.h>

#include "common/man-page.h"

#define VM_STATE_DESCRIPTION \
	"Track the host-side mode of every vCPU (guest, hypervisor, preempted, " \
	"blocked) and add vm:vcpu_state events at each change."

#define VM_STATE_HELP \
	"One input port (a time-ordered merge of the host and guest traces, " \
	"from filter.vm.correlate or filter.utils.muxer), one output port. " \
	"Every input message is passed through unchanged; in a stream of its " \
	"own the component adds a `vm:vcpu_state` event at every vCPU mode " \
	"change, with fields vm (string), vcpu (unsigned), mode (unknown, " \
	"guest, hypervisor, preempted, blocked), host_tid, pcpu and " \
	"exit_reason (signed, -1 when unknown or none).\n\n" \
	"A vCPU has no event before its first known mode; an event of mode " \
	"`unknown` says that knowledge was lost (the tracer discarded events " \
	"of its thread's host CPU, or its thread exited or left it).\n\n" \
	"Parameters:\n" \
	"  model=NAME      hypervisor model (default `kvm`).\n" \
	"  vm-pids={GUEST=PID,...}\n" \
	"                  host process id of each guest's QEMU, for traces " \
	"without vmsync events (GUEST `base-2` names `base#2`: a map key " \
	"cannot hold `#`).\n" \
	"  host=MACHINE    the host, without filter.vm.correlate's vm_role.\n\n" \
	VM_MAN_PAGE_HELP("babeltrace2-filter.vm.state")

bt_component_class_initialize_method_status state_initialize(
		bt_self_component_filter *self_comp,
		bt_self_component_filter_configuration *configuration,
		const bt_value *params, void *init_data);

void state_finalize(bt_self_component_filter *self_comp);

bt_message_iterator_class_initialize_method_status state_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *configuration,
		bt_self_component_port_output *port);

void state_iterator_finalize(bt_self_message_iterator *self_msg_iter);

bt_message_iterator_class_next_method_status state_iterator_next(
		bt_self_message_iterator *self_msg_iter,
		bt_message_array_const msgs, uint64_t capacity, uint64_t *count);

bt_message_iterator_class_can_seek_beginning_method_status
state_iterator_can_seek_beginning(bt_self_message_iterator *self_msg_iter,
		bt_bool *can_seek);

bt_message_iterator_class_seek_beginning_method_status
state_iterator_seek_beginning(bt_self_message_iterator *self_msg_iter);

#endif /* VM_PLUGIN_STATE_STATE_H */
