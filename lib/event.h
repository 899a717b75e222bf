#ifndef VM_EVENT_H
#define VM_EVENT_H

/*
 * The plain events the analysis consumes. The plugin translates babeltrace2
 * event messages into these (plugin/common/event-decode.h); unit tests build
 * them by hand. Strings point into memory owned by the caller and are valid
 * only during the call that receives the event.
 *
 * No babeltrace2 types here.
 */

#include <stdint.h>

enum vm_event_kind {
	VM_EVENT_OTHER = 0,         /* any event the analysis does not use */
	VM_EVENT_SCHED_SWITCH,
	VM_EVENT_SCHED_WAKEUP,      /* sched_wakeup, sched_waking, sched_wakeup_new */
	VM_EVENT_PROCESS_FORK,
	VM_EVENT_PROCESS_EXIT,
	VM_EVENT_PROCESS_FREE,
	VM_EVENT_STATEDUMP_PROCESS, /* lttng_statedump_process_state */
	VM_EVENT_STATEDUMP_PID_NS,  /* lttng_statedump_process_pid_ns (LTTng >= 2.12) */
	VM_EVENT_KVM_ENTRY,         /* kvm_entry, kvm_x86_entry */
	VM_EVENT_KVM_EXIT,          /* kvm_exit, kvm_x86_exit */
	VM_EVENT_VMSYNC_GH_GUEST,
	VM_EVENT_VMSYNC_HG_GUEST,
	VM_EVENT_VMSYNC_GH_HOST,
	VM_EVENT_VMSYNC_HG_HOST,
	VM_EVENT_VCPU_STATE,        /* vm:vcpu_state, written by filter.vm.state */
	VM_EVENT_LOSS,              /* events lost on the stream of `cpu` (see u.loss) */
	VM_EVENT_SCHED_MIGRATE,     /* sched_migrate_task */
};

/* An integer field the trace did not have reads as this. */
#define VM_FIELD_MISSING INT64_MIN

/*
 * A vCPU number is KVM's vcpu_id, a 32-bit unsigned integer: anything else
 * comes from a corrupted trace and is treated as a missing field.
 */
#define VM_VCPU_ID_MAX INT64_C(0xffffffff)

static inline int vm_vcpu_id_valid(int64_t vcpu_id)
{
	return vcpu_id >= 0 && vcpu_id <= VM_VCPU_ID_MAX;
}

struct vm_event {
	enum vm_event_kind kind;
	int64_t ts;          /* ns since the Unix epoch, reference time base */
	unsigned int machine; /* index of the machine (see the plugin's machine table) */
	int64_t cpu;         /* cpu_id of the packet context, VM_FIELD_MISSING if none */
	/*
	 * The `pid_ns` context field (`lttng add-context -k -t pid_ns`): the
	 * inode number of the PID namespace of the thread that was current
	 * when the event was recorded (for sched_switch, the one switched
	 * out). 0 when the event has none: no namespace has inode 0, and
	 * events built with designated initializers get it for free.
	 */
	int64_t pid_ns;

	union {
		struct {
			const char *prev_comm;
			int64_t prev_tid;
			int64_t prev_state;
			const char *next_comm;
			int64_t next_tid;
		} sched_switch;

		struct {
			const char *comm;
			int64_t tid;
			int64_t target_cpu;
		} wakeup;

		struct {
			const char *parent_comm;
			int64_t parent_tid;
			int64_t parent_pid;
			const char *child_comm;
			int64_t child_tid;
			int64_t child_pid;
			/* The child's innermost PID namespace, missing before LTTng 2.8. */
			int64_t child_ns_inum;
			/*
			 * From the `vtids` sequence (one id per nesting level, the
			 * machine's first): its last element, the child's id in
			 * its innermost namespace, and its length minus one, the
			 * child's nesting level. Both missing without `vtids`.
			 */
			int64_t child_vtid;
			int64_t child_ns_level;
		} fork;

		/* sched_migrate_task: thread `tid` now belongs to CPU `dest_cpu` */
		struct {
			int64_t tid;
			int64_t dest_cpu;
		} migrate;

		/* sched_process_exit and sched_process_free */
		struct {
			const char *comm;
			int64_t tid;
		} exit;

		/*
		 * LTTng 2.8 .. 2.11 write one such event per PID namespace level
		 * of the thread, with that level's `vtid`, `vpid`, `ns_level` and
		 * `ns_inum`; later versions leave those out (they read missing)
		 * and write lttng_statedump_process_pid_ns events instead.
		 */
		struct {
			int64_t tid;
			int64_t pid;
			int64_t ppid;
			const char *name;
			int64_t vtid;
			int64_t vpid;
			int64_t ns_level;
			int64_t ns_inum;
		} statedump;

		/* lttng_statedump_process_pid_ns: one per nesting level of `tid` */
		struct {
			int64_t tid;
			int64_t vtid;
			int64_t vpid;
			int64_t vppid;
			int64_t ns_level;
			int64_t ns_inum;
		} pid_ns;

		/*
		 * lttng-modules >= 2.13 on Linux >= 5.10 writes the low half of
		 * a pointer here: model/vcpu-numbers.h says which id to trust.
		 */
		struct {
			int64_t vcpu_id;
		} kvm_entry;

		struct {
			int64_t exit_reason;
			int64_t isa;         /* 1 VMX, 2 SVM, VM_FIELD_MISSING if absent */
			/* the vCPU number (lttng-modules >= 2.13, Linux >= 5.10), else missing */
			int64_t vcpu_id;
		} kvm_exit;

		/* the four vmsync events */
		struct {
			int64_t cnt;
			int64_t vm_uid;      /* u64 on the wire, kept as its bit pattern */
		} vmsync;

		/* vm:vcpu_state */
		struct {
			const char *vm;
			int64_t vcpu;
			const char *mode;
			int64_t host_tid;
			int64_t pcpu;
			int64_t exit_reason;
		} vcpu_state;

		/*
		 * A gap in the recording of one stream (CPU `cpu` of `machine`),
		 * located by lib/loss/gap-locator.h: from `ts` (the stream's last
		 * event before the loss, or the discarded range's beginning when
		 * the stream recorded nothing in it) to `end` the stream recorded
		 * nothing, and `count` events (or packets) were lost in between.
		 * It arrives in time order, before anything later than `ts`.
		 */
		struct {
			int64_t end;
			int64_t count;       /* -1: unknown */
			int packets;         /* 1: discarded packets, 0: discarded events */
		} loss;
	} u;
};

#endif /* VM_EVENT_H */
