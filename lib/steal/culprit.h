#ifndef VM_STEAL_CULPRIT_H
#define VM_STEAL_CULPRIT_H

/*
 * Who ran on the host CPU that a preempted vCPU waited for (SPEC, Who took
 * the time): a vCPU thread of some VM, another thread of a VM's QEMU
 * process, any other host thread, the idle thread, or nothing known.
 */

#include <stdint.h>

enum vm_steal_culprit_kind {
	VM_STEAL_CULPRIT_UNKNOWN,
	VM_STEAL_CULPRIT_IDLE,
	VM_STEAL_CULPRIT_HOST,
	VM_STEAL_CULPRIT_VMM,
	VM_STEAL_CULPRIT_VCPU,
};

struct vm_steal_culprit {
	enum vm_steal_culprit_kind kind;
	const char *machine;  /* vcpu, vmm: the VM; else NULL */
	int64_t vcpu;         /* vcpu: its number; else -1 */
};

/* "vcpu", "vmm", "host", "idle" or "unknown": the CSV's culprit_kind. */
const char *vm_steal_culprit_kind_name(enum vm_steal_culprit_kind kind);

#endif /* VM_STEAL_CULPRIT_H */
