/*
 * Whether filter.vm.state is upstream, and what it computed: see
 * state-presence.h.
 */

#include <glib.h>
#include <string.h>

#include "state-presence.h"

/* Its event class, the one of filter.vm.state's stream. */
#define VCPU_STATE_EVENT "vm:vcpu_state"

/* How to record traces and map guests: doc/tracing.md, installed there. */
#define VM_TRACING_DOC "see doc/tracing.md, installed in " VM_DOC_DIR

struct state_presence {
	bool state_stream_seen;
	bool vcpu_states_seen;
	/* Indexes of the machines with kvm events (hosts), as pointers. */
	GHashTable *hosts;
	/* Names of the VMs of the vm:vcpu_state events (owned). */
	GHashTable *vms;
};

struct state_presence *state_presence_create(void)
{
	struct state_presence *presence = g_new0(struct state_presence, 1);

	presence->hosts = g_hash_table_new(g_direct_hash, g_direct_equal);
	presence->vms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return presence;
}

void state_presence_destroy(struct state_presence *presence)
{
	if (!presence) {
		return;
	}
	g_hash_table_destroy(presence->hosts);
	g_hash_table_destroy(presence->vms);
	g_free(presence);
}

void state_presence_note_stream(struct state_presence *presence,
		const bt_stream *stream)
{
	const bt_stream_class *stream_class = bt_stream_borrow_class_const(stream);
	uint64_t count = bt_stream_class_get_event_class_count(stream_class);

	for (uint64_t i = 0; i < count && !presence->state_stream_seen; i++) {
		const char *name = bt_event_class_get_name(
			bt_stream_class_borrow_event_class_by_index_const(stream_class, i));

		if (name && strcmp(name, VCPU_STATE_EVENT) == 0) {
			presence->state_stream_seen = true;
		}
	}
}

void state_presence_note_kvm(struct state_presence *presence, unsigned int machine)
{
	g_hash_table_add(presence->hosts, GUINT_TO_POINTER(machine));
}

void state_presence_note_vcpu_state(struct state_presence *presence, const char *vm)
{
	presence->vcpu_states_seen = true;
	if (vm && !g_hash_table_contains(presence->vms, vm)) {
		g_hash_table_add(presence->vms, g_strdup(vm));
	}
}

static bool state_present(const struct state_presence *presence)
{
	return presence->state_stream_seen || presence->vcpu_states_seen;
}

bool state_presence_host_without_state(const struct state_presence *presence)
{
	return g_hash_table_size(presence->hosts) > 0 && !state_present(presence);
}

/* A machine of the input that is a guest: no kvm events, no `host` role. */
static bool is_guest(const struct state_presence *presence,
		const struct machine *machine)
{
	return machine->role != MACHINE_ROLE_HOST &&
		!g_hash_table_contains(presence->hosts, GUINT_TO_POINTER(machine->index));
}

/* The guests that got no vCPU mode; false when there is no guest at all. */
static bool warn_guests_without_modes(const struct state_presence *presence,
		const struct machine_table *machines,
		void (*warn)(const char *machine, const char *message, void *data),
		void *data)
{
	bool any_guest = false;

	for (unsigned int i = 0; i < machine_table_count(machines); i++) {
		const struct machine *machine = machine_table_at(machines, i);
		const char *name = machine_display_name(machine);

		if (!is_guest(presence, machine)) {
			continue;
		}
		any_guest = true;
		if (g_hash_table_contains(presence->vms, name)) {
			continue;
		}
		warn(name, "filter.vm.state computed no vCPU mode for this guest: "
			"no vCPU thread of the host was mapped to it (no vmsync "
			"event of it on the host, no `vm_host_pid` from "
			"filter.vm.correlate, and no entry of filter.vm.state's "
			"`vm-pids` naming a process that runs its vCPUs), so time "
			"on its vCPUs is reported as `running`. Map the guest to "
			"its QEMU process with `vm-pids` (" VM_TRACING_DOC ").", data);
	}
	return any_guest;
}

void state_presence_warn(const struct state_presence *presence,
		const struct machine_table *machines,
		void (*warn)(const char *machine, const char *message, void *data),
		void *data)
{
	if (g_hash_table_size(presence->hosts) == 0) {
		return;
	}
	if (!state_present(presence)) {
		warn(NULL, "The input has a host (kvm events) but no vm:vcpu_state "
			"events: the vCPU modes need filter.vm.state before "
			"sink.vm.threads, so time on a vCPU is reported as `running` "
			"even when the vCPU was in the hypervisor, preempted or "
			"blocked. Add `-c filter.vm.state` before the sink.", data);
		return;
	}
	if (warn_guests_without_modes(presence, machines, warn, data) ||
			presence->vcpu_states_seen) {
		return;
	}
	warn(NULL, "filter.vm.state computed no vCPU mode: the host's vCPU "
		"threads run VMs whose traces are not given, and its `vm-pids` "
		"maps none of them. Give the guests' traces too, or map each "
		"guest to its QEMU process with `vm-pids` (" VM_TRACING_DOC ").",
		data);
}
