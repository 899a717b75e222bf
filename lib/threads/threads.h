#ifndef VM_THREADS_THREADS_H
#define VM_THREADS_THREADS_H

/*
 * The analysis behind sink.vm.threads: fed with the plain events of every
 * machine in time order, it reports the correlated state intervals of guest
 * threads, the intervals of vCPU modes and, at the end, the exit statistics.
 *
 * Machines are told apart by the index in struct vm_event; the caller names
 * them first. A machine is the host when it has kvm_entry / kvm_exit events
 * (or the caller says so); once there is a host, all others are guests.
 * Without any host (no kvm event, no vm:vcpu_state), every machine's threads
 * are reported in their own view, and a "no-host" warning says so.
 */

#include <stdbool.h>

#include "event.h"
#include "containers/containers.h"
#include "writers/writer.h"

enum vm_threads_role {
	VM_THREADS_ROLE_UNKNOWN,
	VM_THREADS_ROLE_HOST,
	VM_THREADS_ROLE_GUEST,
};

/*
 * `vcpu_interval`, `exit_stat` and `steal_interval` may be NULL when those records are not
 * wanted: the analysis then skips building them (exit statistics are a hash
 * lookup per exit).
 */
struct vm_threads_callbacks {
	void (*thread_interval)(const struct vm_thread_interval *iv, void *data);
	void (*vcpu_interval)(const struct vm_vcpu_interval *iv, void *data);
	void (*exit_stat)(const struct vm_exit_stat *stat, void *data);
	/*
	 * Who took the time of preempted vCPUs (lib/steal/steal.h); NULL: not
	 * computed (the host's scheduler events are then not read).
	 */
	void (*steal_interval)(const struct vm_steal_interval *iv, void *data);
	/*
	 * At finish, for each machine whose tracer lost events or packets
	 * (VM_EVENT_LOSS), in machine index order. May be NULL.
	 */
	void (*machine_losses)(const struct vm_machine_losses *losses, void *data);
	/* Odd input, reported once per `kind` and machine (NULL: no machine). */
	void (*warning)(const char *kind, const char *machine, const char *message,
		void *data);
	void *data;
};

struct vm_threads;

struct vm_threads *vm_threads_create(const struct vm_threads_callbacks *cb);
void vm_threads_destroy(struct vm_threads *threads);

/*
 * Names machine `index` before its first event. `role` is what the trace
 * says (filter.vm.correlate's `vm_role`), else VM_THREADS_ROLE_UNKNOWN.
 */
void vm_threads_add_machine(struct vm_threads *threads, unsigned int index,
		const char *name, enum vm_threads_role role);

/*
 * Every event of the input, in time order, VM_EVENT_OTHER ones included:
 * the last timestamp of the input ends every open interval. The `machine`
 * of a VM_EVENT_VCPU_STATE event is not used (its `vm` field names the VM).
 *
 * VM_EVENT_LOSS (a located gap, lib/loss/gap-locator.h) is no event: its
 * time does not end intervals. On a guest (or a machine whose role is not
 * known yet) the current thread of the gap's CPU becomes `unknown` from the
 * gap's start (SPEC, Lost events); on the host, an exit open on a vCPU
 * whose thread was on that host CPU is not counted. Either way it counts in
 * the machine's losses. A gap may come after later events of other streams
 * (a discarded message without times): a thread whose state changed after
 * the gap's start becomes `unknown` from that change on.
 */
void vm_threads_feed(struct vm_threads *threads, const struct vm_event *ev);

/*
 * Whether vm_threads_feed() would read more of an event of `kind` on
 * machine `machine` than its kind, time and machine: when it would not, the
 * caller may leave the other fields zero rather than decode them. The
 * answer holds until the next vm_threads_feed() or vm_threads_add_machine().
 */
bool vm_threads_needs_fields(const struct vm_threads *threads, unsigned int machine,
		enum vm_event_kind kind);

/* End of the input: ends what is open and reports what is left. */
void vm_threads_finish(struct vm_threads *threads);

/*
 * Whether a host was seen (kvm events or vm:vcpu_state): else the thread
 * intervals are each machine's own view.
 */
bool vm_threads_host_seen(const struct vm_threads *threads);

/*
 * The containers of the threads of every machine fed (lib/containers):
 * vm_containers_lookup_by_name(..., iv->machine, iv->tid, ...) gives the
 * container of an interval's thread as known when it is reported. Owned
 * by `threads`.
 */
struct vm_containers *vm_threads_containers(const struct vm_threads *threads);

#endif /* VM_THREADS_THREADS_H */
