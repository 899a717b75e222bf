#include "threads/thread-state.h"

const char *vm_thread_state_name(enum vm_thread_state state)
{
	switch (state) {
	case VM_THREAD_RUNNING:
		return "running";
	case VM_THREAD_HYPERVISOR:
		return "hypervisor";
	case VM_THREAD_PREEMPTED:
		return "preempted";
	case VM_THREAD_VCPU_BLOCKED:
		return "vcpu-blocked";
	case VM_THREAD_RUNNABLE:
		return "runnable";
	case VM_THREAD_BLOCKED:
		return "blocked";
	case VM_THREAD_UNKNOWN:
		return "unknown";
	}
	return "unknown";
}
