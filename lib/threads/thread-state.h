#ifndef VM_THREADS_THREAD_STATE_H
#define VM_THREADS_THREAD_STATE_H

/*
 * The correlated state of a guest thread (SPEC, sink.vm.threads): the first
 * four put the thread on a vCPU and depend on what the host does with that
 * vCPU; the next two are the guest's own view of a thread that waits;
 * `unknown` is a thread whose deciding events were lost (SPEC, Lost events).
 */

#include <stdbool.h>

enum vm_thread_state {
	VM_THREAD_RUNNING,
	VM_THREAD_HYPERVISOR,
	VM_THREAD_PREEMPTED,
	VM_THREAD_VCPU_BLOCKED,
	VM_THREAD_RUNNABLE,
	VM_THREAD_BLOCKED,
	VM_THREAD_UNKNOWN,
};

/* The name written in the `state` column. */
const char *vm_thread_state_name(enum vm_thread_state state);

#endif /* VM_THREADS_THREAD_STATE_H */
