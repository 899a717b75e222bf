#ifndef VM_SYNC_GUEST_MODE_H
#define VM_SYNC_GUEST_MODE_H

/*
 * The guest-mode intervals of a KVM host, from its stock events: on each
 * host CPU, a kvm_entry opens an interval of the CPU's current thread (from
 * sched_switch) and the next kvm_exit on that CPU closes it. These are the
 * intervals that "Synchronization from stock KVM events" (SPEC) fits the
 * guests' activity into.
 *
 * Intervals are kept per host thread until vm_guest_modes_drain(), so that
 * the caller can tell each thread's process once the whole trace has been
 * read (a state dump may come after a thread's first intervals).
 *
 * Before a CPU's first sched_switch, its current thread is that switch's
 * prev_tid: intervals closed before it get that thread when it comes.
 *
 * No babeltrace2 types here.
 */

#include <stdint.h>

struct vm_guest_modes;

struct vm_guest_mode_interval {
	int64_t tid;        /* host thread, -1 when never known */
	/*
	 * `vcpu_id` of the exit when it has one (lttng-modules >= 2.13 on
	 * Linux >= 5.10, whose entry holds a pointer fragment instead), else
	 * that of the entry (model/vcpu-numbers.h)
	 */
	uint64_t vcpu;
	int64_t entry_ns;
	int64_t exit_ns;
};

struct vm_guest_mode_counts {
	uint64_t intervals;      /* closed intervals */
	uint64_t lost_exits;     /* open intervals dropped: an entry or a switch came first */
	uint64_t lone_exits;     /* exits with no open interval on their CPU */
	uint64_t bad_entries;    /* entries without a usable vcpu_id or CPU */
	uint64_t unknown_thread; /* intervals of a CPU that never switched threads */
};

struct vm_guest_modes *vm_guest_modes_create(void);
void vm_guest_modes_destroy(struct vm_guest_modes *modes);

/* sched_switch on host CPU `cpu` (a negative tid: unknown). */
void vm_guest_modes_switch(struct vm_guest_modes *modes, int64_t cpu,
		int64_t prev_tid, int64_t next_tid);

/* kvm_entry on `cpu` of vCPU `vcpu_id` (negative: missing) at `ts`. */
void vm_guest_modes_entry(struct vm_guest_modes *modes, int64_t cpu,
		int64_t vcpu_id, int64_t ts);

/* kvm_exit on `cpu` at `ts`, with its `vcpu_id` field (negative: missing). */
void vm_guest_modes_exit(struct vm_guest_modes *modes, int64_t cpu,
		int64_t vcpu_id, int64_t ts);

/* The thread current on `cpu` since its last sched_switch, -1 if none was seen. */
int64_t vm_guest_modes_current_thread(const struct vm_guest_modes *modes, int64_t cpu);

/* The entry id of the interval open on `cpu`, -1 when none is open. */
int64_t vm_guest_modes_open_vcpu(const struct vm_guest_modes *modes, int64_t cpu);

/*
 * Host CPU `cpu` lost events (SPEC "Lost events"): the exit of its open
 * interval, if any, may be among them, so that interval is dropped (as a
 * lost exit). Returns its entry (INT64_MAX when none was open): the vCPU
 * was in guest mode from there to some time unknown. Until the CPU's next
 * sched_switch its thread is unknown: the caller gives none of its entries
 * and exits meanwhile.
 */
int64_t vm_guest_modes_forget_open(struct vm_guest_modes *modes, int64_t cpu);

/* What was seen so far (complete once drained). */
struct vm_guest_mode_counts vm_guest_modes_counts(const struct vm_guest_modes *modes);

typedef void (*vm_guest_mode_sink)(void *data,
		const struct vm_guest_mode_interval *interval);

/*
 * Gives every closed interval to `sink`, thread by thread in increasing tid
 * (-1 first), each thread's in the order they closed, and forgets them.
 * Intervals still open are dropped.
 */
void vm_guest_modes_drain(struct vm_guest_modes *modes, vm_guest_mode_sink sink,
		void *data);

/*
 * Read once (correlate without a sync pass): gives `sink` the intervals
 * closed since the last call on CPUs whose thread is known (as
 * vm_guest_modes_drain() does, by increasing tid; its cost grows with the
 * threads that have such intervals, not with all the host's threads), and
 * keeps everything else: open intervals,
 * and the intervals of a CPU whose first sched_switch has not come yet,
 * unless they closed before `unnamed_before`: those go as the unknown
 * thread's (-1).
 */
void vm_guest_modes_take_closed(struct vm_guest_modes *modes, int64_t unnamed_before,
		vm_guest_mode_sink sink, void *data);

/*
 * The earliest entry of an interval that a later vm_guest_modes_take_closed()
 * may still give (open, or waiting for its CPU's first switch); INT64_MAX
 * when none: every interval to come begins after the last event given.
 */
int64_t vm_guest_modes_pending_since(const struct vm_guest_modes *modes);

#endif /* VM_SYNC_GUEST_MODE_H */
