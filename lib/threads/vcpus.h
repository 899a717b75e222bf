#ifndef VM_THREADS_VCPUS_H
#define VM_THREADS_VCPUS_H

/*
 * The host's view of every guest vCPU, learnt from filter.vm.state's
 * vm:vcpu_state events: the current mode of each (VM, vCPU), the intervals
 * of those modes (what=vcpus) and the exits that end (what=exits).
 */

#include <stdbool.h>
#include <stdint.h>

#include "threads/exit-stats.h"
#include "vcpu/mode.h"
#include "writers/writer.h"

struct vm_threads_vcpu_status {
	enum vm_vcpu_mode mode;
	int64_t reason;     /* exit reason while in hypervisor mode, else -1 */
	int64_t host_tid;   /* -1 unknown */
	int64_t pcpu;       /* -1 when not on a host CPU */
	int isa;            /* of `reason`: 1 VMX, 2 SVM, 0 no reason */
	/*
	 * Mode unknown because filter.vm.state said so (events were lost on
	 * the host), not because nothing was reported yet: the start-of-trace
	 * rule (a thread on such a vCPU is `running`) does not apply.
	 */
	bool lost;
};

typedef void (*vm_threads_vcpu_interval_cb)(const struct vm_vcpu_interval *iv, void *data);

struct vm_threads_vcpus;

/*
 * Ended exits go to `exits` (not owned), intervals to `cb`; either may be
 * NULL when not wanted.
 */
struct vm_threads_vcpus *vm_threads_vcpus_create(vm_threads_vcpu_interval_cb cb,
		void *data, struct vm_threads_exit_stats *exits);
void vm_threads_vcpus_destroy(struct vm_threads_vcpus *vcpus);

/*
 * The vCPUs of one VM. VMs are never removed: a handle stays valid as long
 * as the struct vm_threads_vcpus, so that callers look a VM up by name once
 * rather than per event.
 */
struct vm_threads_vcpus_vm;

/* The VM named `vm`, NULL while no vm:vcpu_state event named it. */
struct vm_threads_vcpus_vm *vm_threads_vcpus_find_vm(struct vm_threads_vcpus *vcpus,
		const char *vm);

/* The VM named `vm`, added if it is new. */
struct vm_threads_vcpus_vm *vm_threads_vcpus_get_vm(struct vm_threads_vcpus *vcpus,
		const char *vm);

/*
 * What is known of a vCPU of `of_vm` now: mode unknown if it was never
 * reported (or `of_vm` is NULL).
 */
struct vm_threads_vcpu_status vm_threads_vcpus_status(struct vm_threads_vcpus_vm *of_vm,
		int64_t vcpu);

/*
 * A vm:vcpu_state event at `ts` for vCPU `vcpu` of `of_vm`. `isa` is that of the kvm_exit that caused a
 * hypervisor mode with a reason (1 when unknown). A hypervisor mode without
 * reason keeps the reason of the exit still open, if any (the vCPU thread
 * switched back in after a preemption).
 */
void vm_threads_vcpus_change(struct vm_threads_vcpus *vcpus,
		struct vm_threads_vcpus_vm *of_vm, int64_t ts, int64_t vcpu,
		const struct vm_threads_vcpu_status *status, int isa);

/*
 * The host lost events on its CPU `pcpu`: an exit still open on a vCPU
 * whose thread was on that CPU may have lost its kvm_entry, so it is not
 * counted (no duration is measured across a gap). `pcpu` VM_FIELD_MISSING
 * (a stream without cpu_id): every vCPU's open exit.
 */
void vm_threads_vcpus_host_loss(struct vm_threads_vcpus *vcpus, int64_t pcpu);

/* Ends every vCPU's last interval at `end_ts`; open exits are not counted. */
void vm_threads_vcpus_finish(struct vm_threads_vcpus *vcpus, int64_t end_ts);

#endif /* VM_THREADS_VCPUS_H */
