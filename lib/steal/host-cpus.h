#ifndef VM_STEAL_HOST_CPUS_H
#define VM_STEAL_HOST_CPUS_H

/*
 * Which thread each host CPU runs, from the host's sched_switch events
 * (SPEC, Lost events): known from a CPU's first sched_switch on (the
 * look-ahead that gives the thread before it is not done here: the time
 * before it is `unknown`), unknown from a loss on that CPU until its next
 * sched_switch.
 */

#include <stdint.h>

/* Linux comms are at most 15 bytes; longer names (bad input) are cut. */
#define VM_STEAL_COMM_SIZE 32

struct vm_steal_host_thread {
	int64_t tid;    /* -1: not known */
	char comm[VM_STEAL_COMM_SIZE];
};

struct vm_steal_host_cpus;

struct vm_steal_host_cpus *vm_steal_host_cpus_create(void);
void vm_steal_host_cpus_destroy(struct vm_steal_host_cpus *cpus);

/* A sched_switch on `cpu` made `tid` (named `comm`) its current thread. */
void vm_steal_host_cpus_switch(struct vm_steal_host_cpus *cpus, int64_t cpu,
		int64_t tid, const char *comm);

/* Events of `cpu` were lost: its thread is not known until its next switch. */
void vm_steal_host_cpus_lose(struct vm_steal_host_cpus *cpus, int64_t cpu);

/* Every CPU's thread is not known (a loss on a stream without cpu_id). */
void vm_steal_host_cpus_lose_all(struct vm_steal_host_cpus *cpus);

/* The current thread of `cpu`: tid -1 when not known. */
const struct vm_steal_host_thread *vm_steal_host_cpus_current(
		struct vm_steal_host_cpus *cpus, int64_t cpu);

#endif /* VM_STEAL_HOST_CPUS_H */
