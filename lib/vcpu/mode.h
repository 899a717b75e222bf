#ifndef VM_VCPU_MODE_H
#define VM_VCPU_MODE_H

/* The host-side modes of a vCPU (SPEC, filter.vm.state). */

#include <stdbool.h>

enum vm_vcpu_mode {
	VM_VCPU_UNKNOWN = 0, /* nothing known yet (or no longer) */
	VM_VCPU_GUEST,       /* executing guest code (non-root) */
	VM_VCPU_HYPERVISOR,  /* in KVM / QEMU on the host (root) */
	VM_VCPU_PREEMPTED,   /* vCPU thread runnable but not running on the host */
	VM_VCPU_BLOCKED,     /* vCPU thread waiting on the host (halted vCPU) */
};

/* "unknown", "guest", "hypervisor", "preempted", "blocked". */
const char *vm_vcpu_mode_name(enum vm_vcpu_mode mode);

/* The mode named `name`; false if the name is not a mode's. */
bool vm_vcpu_mode_from_name(const char *name, enum vm_vcpu_mode *mode);

#endif /* VM_VCPU_MODE_H */
