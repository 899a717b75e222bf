#ifndef VM_MODEL_PROCESSES_H
#define VM_MODEL_PROCESSES_H

/*
 * Which process each thread of each machine belongs to, from the LTTng
 * state dump (lttng_statedump_process_state) and from sched_process_fork.
 * Models use it to treat the threads of one hypervisor process as one VM.
 */

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

struct vm_processes;

struct vm_processes *vm_processes_create(void);
void vm_processes_destroy(struct vm_processes *processes);

/* Learns from a state dump or fork event; returns whether anything changed. */
bool vm_processes_learn(struct vm_processes *processes,
		const struct vm_event *event);

/* The process id of thread `tid` of `machine`; `tid` itself when unknown. */
int64_t vm_processes_pid_of(const struct vm_processes *processes,
		unsigned int machine, int64_t tid);

#endif /* VM_MODEL_PROCESSES_H */
