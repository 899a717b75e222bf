#ifndef VM_PLUGIN_THREADS_SINK_H
#define VM_PLUGIN_THREADS_SINK_H

/*
 * sink.vm.threads: writes the correlated states of guest threads, the modes
 * of their vCPUs or the exit statistics (SPEC, sink.vm.threads). The
 * analysis is lib/threads; this is the babeltrace2 side of it.
 */

#include <babeltrace2/babeltrace.h>

#include "common/man-page.h"

#define VM_THREADS_SINK_DESCRIPTION \
	"Write the real states of guest threads (running, hypervisor, preempted, " \
	"vcpu-blocked, runnable, blocked), the modes of vCPUs or KVM exit statistics."

#define VM_THREADS_SINK_HELP \
	"Writes, for each guest thread, the intervals of its real state: running,\n" \
	"hypervisor (its vCPU handles a VM exit), preempted (its vCPU does not run\n" \
	"on the host), vcpu-blocked, runnable, blocked, or unknown (the events\n" \
	"that decide it were lost). Put filter.vm.state (and filter.vm.correlate)\n" \
	"before this sink.\n" \
	"\n" \
	"Parameters:\n" \
	"  format=\"text\"|\"csv\"|\"json\"|\"chrome\"  output format (default text:\n" \
	"      summary tables of threads, vCPU modes and top exits, or the one of\n" \
	"      `what` when given; json: one object a line with the CSV keys;\n" \
	"      chrome: trace-event JSON for Perfetto UI and chrome://tracing)\n" \
	"  path=\"FILE\"   output file, replaced only once the run succeeds\n" \
	"      (default: standard output)\n" \
	"  what=\"threads\"|\"vcpus\"|\"exits\"  guest thread intervals (default), vCPU\n" \
	"      mode intervals or per exit reason statistics\n" \
	"\n" \
	"Without a host trace (no kvm events, no vm:vcpu_state), every machine's\n" \
	"threads are reported in their own view (running, runnable, blocked).\n" \
	"\n" \
	"Events the tracer discarded make the states they decide unknown; the text\n" \
	"summary then counts each machine's losses (see \"Lost events\" in the manual\n" \
	"page).\n" \
	"\n" \
	VM_MAN_PAGE_HELP("babeltrace2-sink.vm.threads")

bt_component_class_initialize_method_status threads_sink_initialize(
		bt_self_component_sink *self_comp,
		bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_method_data);

void threads_sink_finalize(bt_self_component_sink *self_comp);

bt_component_class_sink_graph_is_configured_method_status
threads_sink_graph_is_configured(bt_self_component_sink *self_comp);

bt_component_class_sink_consume_method_status threads_sink_consume(
		bt_self_component_sink *self_comp);

#endif /* VM_PLUGIN_THREADS_SINK_H */
