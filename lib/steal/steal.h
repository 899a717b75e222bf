#ifndef VM_STEAL_STEAL_H
#define VM_STEAL_STEAL_H

/*
 * Who took the time of preempted vCPUs (SPEC, Who took the time): for each
 * guest vCPU that filter.vm.state reports `preempted`, the host CPU it waits
 * for (the CPU whose sched_switch switched its thread out while runnable,
 * moved by sched_migrate_task), the host threads current there (the
 * culprits) and the guest thread that believes it runs (the victim). Rows
 * leave through the callback as they end: one per maximal interval with
 * the same victim, waiting CPU and culprit.
 *
 * Fed by lib/threads in time order; no babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "writers/writer.h"

typedef void (*vm_steal_interval_cb)(const struct vm_steal_interval *iv, void *data);

struct vm_steal;

struct vm_steal *vm_steal_create(vm_steal_interval_cb cb, void *data);
void vm_steal_destroy(struct vm_steal *steal);

/*
 * The vCPUs of one VM (a guest machine, named like filter.vm.state names
 * it). A handle stays valid as long as the struct vm_steal: callers look a
 * VM up by name once rather than per event.
 */
struct vm_steal_vm;

struct vm_steal_vm *vm_steal_vm_of(struct vm_steal *steal, const char *name);

/*
 * An event of the host: sched_switch, sched_migrate_task, the statedump's
 * and forks' process membership, and VM_EVENT_LOSS (the host CPU's thread
 * is unknown from the gap on, until its next sched_switch). Others are
 * ignored.
 */
void vm_steal_host_event(struct vm_steal *steal, const struct vm_event *ev);

/* Whether vm_steal_host_event() reads the fields of events of `kind`. */
bool vm_steal_needs_fields(enum vm_event_kind kind);

/*
 * filter.vm.state's mode of vCPU `vcpu` of `vm` changed at `ts`:
 * `preempted` or not, its thread on the host `host_tid` (-1 unknown).
 */
void vm_steal_vcpu_state(struct vm_steal *steal, struct vm_steal_vm *vm, int64_t ts,
		int64_t vcpu, bool preempted, int64_t host_tid);

/*
 * From the guest's view, its CPU `cpu` (= vCPU) runs thread `tid` from
 * `ts` on (0: idle, -1: not known), named `comm`. `comm` is not copied:
 * it must stay valid until vm_steal_forget_guest() or the end (a machine's
 * interned name). A `ts` earlier than what was decided (a loss located
 * late) counts from the vCPU's open row.
 */
void vm_steal_guest_current(struct vm_steal *steal, struct vm_steal_vm *vm,
		int64_t ts, int64_t cpu, int64_t tid, const char *comm);

/* The machine of that name turned out to be the host: what it said of its CPUs goes. */
void vm_steal_forget_guest(struct vm_steal *steal, struct vm_steal_vm *vm);

/* The end of the input at `end_ts`: every open row ends there. */
void vm_steal_finish(struct vm_steal *steal, int64_t end_ts);

#endif /* VM_STEAL_STEAL_H */
