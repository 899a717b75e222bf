#ifndef VM_CONTAINERS_TOTALS_H
#define VM_CONTAINERS_TOTALS_H

/*
 * Per-container state totals (SPEC, `what=containers`): the thread
 * intervals the threads analysis reports, summed per (machine, container)
 * and state, with the number of distinct threads seen in each.
 *
 * No babeltrace2 types here.
 */

#include <stdint.h>

#include "containers/machine-ns.h"

/* The states of SPEC's threads table, in the column order of the row. */
enum vm_container_state {
	VM_CONTAINER_RUNNING,
	VM_CONTAINER_HYPERVISOR,
	VM_CONTAINER_PREEMPTED,
	VM_CONTAINER_VCPU_BLOCKED,
	VM_CONTAINER_RUNNABLE,
	VM_CONTAINER_BLOCKED,
	VM_CONTAINER_UNKNOWN,
	VM_CONTAINER_STATES,
};

/* One row of `what=containers`. */
struct vm_container_total {
	const char *machine;
	const char *container;   /* the last name the container was known by */
	int64_t ns_inum;
	int64_t threads;         /* distinct tids with an interval in it */
	int64_t ns[VM_CONTAINER_STATES];  /* indexed by enum vm_container_state */
};

struct vm_container_totals;

struct vm_container_totals *vm_container_totals_create(void);
void vm_container_totals_destroy(struct vm_container_totals *totals);

/*
 * The state named as in the threads CSV's `state` column ("running", ...,
 * "vcpu-blocked", "unknown"); -1 for any other name.
 */
int vm_container_state_of_name(const char *state);

/*
 * An interval [begin, end) of thread `tid` of `machine`, in state `state`
 * (a name, as above; an unknown name counts nowhere but in `threads`),
 * spent in container `ref`.
 */
void vm_container_totals_add(struct vm_container_totals *totals,
		const char *machine, const struct vm_container_ref *ref, int64_t tid,
		const char *state, int64_t begin, int64_t end);

/*
 * Calls `fn` for each (machine, container) that had an interval, ordered
 * by machine name, then inode number. The row is valid during the call.
 */
void vm_container_totals_foreach(const struct vm_container_totals *totals,
		void (*fn)(const struct vm_container_total *row, void *data),
		void *data);

#endif /* VM_CONTAINERS_TOTALS_H */
