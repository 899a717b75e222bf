#ifndef VM_THREADS_EXIT_STATS_H
#define VM_THREADS_EXIT_STATS_H

/*
 * Exit statistics per (VM, vCPU, exit reason), like `perf kvm stat`: count
 * and total / min / max time from a kvm_exit to the next kvm_entry of the
 * vCPU. Closed exits only: the caller adds an exit once it has ended.
 */

#include <stdint.h>

#include "writers/writer.h"

struct vm_threads_exit_stats;

struct vm_threads_exit_stats *vm_threads_exit_stats_create(void);
void vm_threads_exit_stats_destroy(struct vm_threads_exit_stats *stats);

/* One ended exit of `duration_ns`; `isa` as in kvm_exit (1 VMX, 2 SVM). */
void vm_threads_exit_stats_add(struct vm_threads_exit_stats *stats,
		const char *vm, int64_t vcpu, int64_t reason, int isa,
		int64_t duration_ns);

typedef void (*vm_threads_exit_stat_cb)(const struct vm_exit_stat *stat, void *data);

/* Calls `cb` once per (VM, vCPU, reason), sorted by VM name, vCPU, reason,
 * so that the output does not depend on hash order. */
void vm_threads_exit_stats_foreach(struct vm_threads_exit_stats *stats,
		vm_threads_exit_stat_cb cb, void *data);

#endif /* VM_THREADS_EXIT_STATS_H */
