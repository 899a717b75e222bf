#ifndef VM_PLUGIN_THREADS_STATE_PRESENCE_H
#define VM_PLUGIN_THREADS_STATE_PRESENCE_H

/*
 * What sink.vm.threads knows of filter.vm.state upstream, for the warnings
 * that blame it: its vm:vcpu_state stream (which it always begins when it
 * found a host, even without a mode change) tells that it is there; its
 * events tell which VMs got vCPU modes. So "add filter.vm.state" is said
 * only when it is absent, and a present one that computed no mode for a
 * guest is blamed on the real cause: no host vCPU thread mapped to it.
 */

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>

#include "common/machine.h"

struct state_presence;

struct state_presence *state_presence_create(void);
void state_presence_destroy(struct state_presence *presence);

/* A stream beginning: is it filter.vm.state's (vm:vcpu_state) stream? */
void state_presence_note_stream(struct state_presence *presence,
		const bt_stream *stream);

/* A kvm_entry / kvm_exit of machine `machine` (it is a host). */
void state_presence_note_kvm(struct state_presence *presence, unsigned int machine);

/* A vm:vcpu_state event of VM `vm` (NULL when the event has none). */
void state_presence_note_vcpu_state(struct state_presence *presence, const char *vm);

/*
 * Whether the input has a host and nothing of filter.vm.state: then the
 * sink, not filter.vm.state, says what comes of it.
 */
bool state_presence_host_without_state(const struct state_presence *presence);

/*
 * Calls `warn` with each warning the whole input showed (NULL machine:
 * about the input), given `machines`, the sink's machines.
 */
void state_presence_warn(const struct state_presence *presence,
		const struct machine_table *machines,
		void (*warn)(const char *machine, const char *message, void *data),
		void *data);

#endif /* VM_PLUGIN_THREADS_STATE_PRESENCE_H */
