#ifndef VM_THREADS_ROLE_GATE_H
#define VM_THREADS_ROLE_GATE_H

/*
 * Holds back the thread intervals of a machine whose role is not known yet.
 *
 * Only guest threads are reported when there is a host, and every machine's
 * threads in their own view (no vCPU column) when there is none; without
 * filter.vm.correlate's `vm_role`, whether a machine is the host shows only
 * when its first kvm event arrives, and that there is no host only at the
 * end of the input. Until then the machine's intervals wait here.
 */

#include <stdbool.h>

#include "threads/guest-threads.h"
#include "writers/writer.h"

struct vm_threads_role_gate;

struct vm_threads_role_gate *vm_threads_role_gate_create(void);
void vm_threads_role_gate_destroy(struct vm_threads_role_gate *gate);

/* Keeps a copy of `iv` (strings included). */
void vm_threads_role_gate_hold(struct vm_threads_role_gate *gate,
		const struct vm_thread_interval *iv);

/*
 * Sends every held interval to `cb` in arrival order and empties the gate.
 * With `own_view`, the vCPU column is dropped and the intervals of a thread
 * that become identical without it are merged.
 */
void vm_threads_role_gate_release(struct vm_threads_role_gate *gate, bool own_view,
		vm_threads_interval_cb cb, void *data);

/* Forgets every held interval (the machine is the host). */
void vm_threads_role_gate_drop(struct vm_threads_role_gate *gate);

#endif /* VM_THREADS_ROLE_GATE_H */
