/* The host's scheduler: per-CPU run queues, time slices, wake-ups that may
 * preempt, and the life of ordinary host threads (bursts, sleeps). */
#ifndef VM_WORKLOAD_HOST_SCHED_H
#define VM_WORKLOAD_HOST_SCHED_H

#include "model.h"

/* Runs its idle task with nothing queued. */
bool wl_host_cpu_is_idle(const wl_host_cpu *cpu);
/* Wakes a blocked host thread (sched_waking, sched_wakeup) onto a CPU. */
void wl_host_wake(wl_sim *sim, wl_host_thread *thread);
/* Switches the CPU's current thread out with PREV_STATE, in the next. */
void wl_host_switch(wl_sim *sim, wl_host_cpu *cpu, int64_t prev_state);
/* When the current thread must give way to a queued one (NEVER: not). */
uint64_t wl_host_cpu_resched_ns(const wl_host_cpu *cpu);
uint64_t wl_host_cpu_next_ns(wl_sim *sim, wl_host_cpu *cpu);
void wl_host_cpu_step(wl_sim *sim, wl_host_cpu *cpu);

#endif
