#ifndef VM_PREV_STATE_H
#define VM_PREV_STATE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Whether a thread that a sched_switch switches out is still runnable.
 *
 * Linux reports 0 (TASK_RUNNING) for a preempted thread; newer kernels
 * report instead a single bit at or above 0x100 (TASK_REPORT_MAX or
 * TASK_STATE_MAX, depending on the version) as a preemption marker. Any other
 * value carries S, D, T, t, X, Z, P or I bits: the thread waits.
 */
bool vm_prev_state_is_runnable(int64_t prev_state);

#endif /* VM_PREV_STATE_H */
