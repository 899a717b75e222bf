#ifndef VM_STEAL_HOST_PROCS_H
#define VM_STEAL_HOST_PROCS_H

/*
 * What a host thread is, for naming a culprit: a vCPU thread of a VM
 * (learnt from filter.vm.state's vm:vcpu_state `host_tid`), another thread
 * of a VM's QEMU process (the process of that VM's vCPU threads, known from
 * the host's statedump and forks), or any other host thread.
 */

#include <stdint.h>

#include "event.h"
#include "steal/culprit.h"

struct vm_steal_host_procs;

struct vm_steal_host_procs *vm_steal_host_procs_create(void);
void vm_steal_host_procs_destroy(struct vm_steal_host_procs *procs);

/* A host statedump or fork event: which process a thread belongs to. */
void vm_steal_host_procs_learn(struct vm_steal_host_procs *procs, const struct vm_event *ev);

/*
 * Thread `tid` runs vCPU `vcpu` of VM `vm`. `vm` is not copied: it must
 * live as long as `procs` (an interned name).
 */
void vm_steal_host_procs_set_vcpu(struct vm_steal_host_procs *procs, int64_t tid,
		const char *vm, int64_t vcpu);

/* The culprit that thread `tid` is (-1: unknown, 0: idle). */
struct vm_steal_culprit vm_steal_host_procs_classify(struct vm_steal_host_procs *procs,
		int64_t tid);

#endif /* VM_STEAL_HOST_PROCS_H */
