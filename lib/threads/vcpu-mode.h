#ifndef VM_THREADS_VCPU_MODE_H
#define VM_THREADS_VCPU_MODE_H

/*
 * vCPU modes as filter.vm.state writes them in the `mode` field of its
 * vm:vcpu_state events (SPEC, filter.vm.state).
 */

#include <stdbool.h>

enum vm_threads_vcpu_mode {
	VM_THREADS_VCPU_UNKNOWN,
	VM_THREADS_VCPU_GUEST,
	VM_THREADS_VCPU_HYPERVISOR,
	VM_THREADS_VCPU_PREEMPTED,
	VM_THREADS_VCPU_BLOCKED,
};

/* False when `name` is none of unknown, guest, hypervisor, preempted, blocked. */
bool vm_threads_vcpu_mode_from_string(const char *name, enum vm_threads_vcpu_mode *mode);

const char *vm_threads_vcpu_mode_name(enum vm_threads_vcpu_mode mode);

#endif /* VM_THREADS_VCPU_MODE_H */
