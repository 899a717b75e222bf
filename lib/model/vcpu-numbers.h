#ifndef VM_MODEL_VCPU_NUMBERS_H
#define VM_MODEL_VCPU_NUMBERS_H

/*
 * Which vCPU number each vCPU thread of a KVM host runs, from the evidence
 * the host trace gives, best first (SPEC, filter.vm.state, "vCPU thread"):
 *
 *  1. the `vcpu_id` of the thread's kvm exits (lttng-modules >= 2.13 on
 *     Linux >= 5.10 writes the real number there);
 *  2. the `vcpu_id` of its kvm entries, when it can be a vCPU number
 *     (below VM_VCPU_NUMBER_LIMIT, and no other thread of the same process
 *     uses it at the same time). From Linux 5.9 on the kernel's kvm_entry
 *     tracepoint passes a `struct kvm_vcpu *` while lttng-modules' probe
 *     still declares an `unsigned int`: the entry then holds the low half
 *     of a pointer, stable per vCPU but not its number. Once a machine's
 *     exits are seen to carry numbers, its entries are not used at all;
 *  3. QEMU's thread name, `CPU <n>/KVM`;
 *  4. the order in which the threads of one process first appear, once
 *     an exit of the thread showed that exits carry no number.
 *
 * A number, once given for a thread, may still change when better evidence
 * comes (its first exit): the caller treats that as the thread's vCPU
 * number being known from then on.
 *
 * Models (lib/model/kvm.c) and correlate's vCPU method share it, so that
 * guest CPU n is vCPU n everywhere. No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

/* Entry ids at or above this are not taken for vCPU numbers (KVM's limit). */
#define VM_VCPU_NUMBER_LIMIT 4096

enum vm_vcpu_number_source {
	VM_VCPU_NUMBER_PENDING = 0, /* not known yet (awaiting the first exit) */
	VM_VCPU_NUMBER_FROM_EXIT,
	VM_VCPU_NUMBER_FROM_ENTRY,
	VM_VCPU_NUMBER_FROM_NAME,
	VM_VCPU_NUMBER_FROM_ORDER,
};

struct vm_vcpu_number {
	int64_t number;  /* -1 while pending */
	enum vm_vcpu_number_source source;
	int64_t entry_id; /* of the thread's last entry, -1 none (for messages) */
};

/* What an exit or an entry revealed about the tracer (for one warning). */
struct vm_vcpu_id_conflict {
	bool found;
	int64_t tid;
	int64_t entry_id;
	int64_t exit_id;
};

struct vm_vcpu_numbers;

struct vm_vcpu_numbers *vm_vcpu_numbers_create(void);
void vm_vcpu_numbers_destroy(struct vm_vcpu_numbers *numbers);

/*
 * A kvm entry of thread `tid` (of process `pid`) of `machine` at `ts` with
 * field `entry_id` (negative: missing). Returns whether the entry id
 * contradicts the thread's exit id (`conflict` then says how).
 */
bool vm_vcpu_numbers_entry(struct vm_vcpu_numbers *numbers, unsigned int machine,
		int64_t tid, int64_t pid, int64_t entry_id, int64_t ts,
		struct vm_vcpu_id_conflict *conflict);

/* A kvm exit of thread `tid` at `ts`, `exit_id` as for entries. Same return. */
bool vm_vcpu_numbers_exit(struct vm_vcpu_numbers *numbers, unsigned int machine,
		int64_t tid, int64_t exit_id, int64_t ts,
		struct vm_vcpu_id_conflict *conflict);

/* A name of thread `tid` (state dump, fork): QEMU's `CPU <n>/KVM` counts. */
void vm_vcpu_numbers_name(struct vm_vcpu_numbers *numbers, unsigned int machine,
		int64_t tid, const char *name);

/*
 * The thread name a state dump or fork event gives (its machine's), other
 * events nothing: vm_vcpu_numbers_name() of it.
 */
void vm_vcpu_numbers_learn_name(struct vm_vcpu_numbers *numbers,
		const struct vm_event *event);

/* The number of `n` in a name `CPU <n>/KVM`, -1 for any other name. */
int64_t vm_vcpu_number_of_name(const char *name);

/*
 * The vCPU number of thread `tid` (one with kvm events), whose process is
 * `pid`, from what was learnt so far. The order rule numbers a thread the
 * first time it is asked for, so ask in input order.
 */
struct vm_vcpu_number vm_vcpu_numbers_of(struct vm_vcpu_numbers *numbers,
		unsigned int machine, int64_t tid, int64_t pid);

/* Whether some exit of `machine` carried a vCPU number. */
bool vm_vcpu_numbers_exits_have_ids(const struct vm_vcpu_numbers *numbers,
		unsigned int machine);

#endif /* VM_MODEL_VCPU_NUMBERS_H */
