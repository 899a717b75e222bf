#ifndef VM_VCPU_TRACKER_H
#define VM_VCPU_TRACKER_H

/*
 * The vCPU state machine: from the time-ordered plain events of a host and
 * its guests, the host-side mode of every vCPU (mode.h), its host thread,
 * the host CPU it runs on and its pending exit reason.
 *
 * Bounded look-ahead. Some answers come after the events they govern: which
 * VM a vCPU thread belongs to (a vmsync event, later), which thread a CPU
 * runs before its first sched_switch (that switch's prev_tid), whether a
 * thread switched in is a vCPU thread (its first kvm_entry). So the tracker
 * holds the input back, as (event, cookie) pairs, from the oldest input an
 * awaited answer governs, until those answers are known or a limit (trace
 * time, event count) is reached; then it calls back,
 * in input order, release(cookie) for each input and mode_change() for each
 * mode change right after the input that caused it. A caller that forwards
 * its messages in release() and writes a vCPU state event in mode_change()
 * produces one time-ordered output.
 *
 * Lost events (VM_EVENT_LOSS, located by lib/loss/gap-locator.h): from the
 * gap's start, the current thread of the loss's CPU is unknown until that
 * CPU's next sched_switch (whose prev_tid is trusted), its kvm events in
 * between are neither attributed nor learnt from, and the vCPU whose
 * thread was current there becomes `unknown` (an explicit change, unlike
 * the start of the trace, which has none) until its thread is seen again.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "model/model.h"
#include "vcpu/mode.h"

/* The kinds of odd input, each reported once per machine. */
enum vm_vcpu_warning {
	VM_VCPU_WARN_NO_HOST,         /* a machine, and no host found */
	VM_VCPU_WARN_MISSING_FIELDS,  /* an event lacks a field it needs */
	VM_VCPU_WARN_THREAD_EXIT,     /* a vCPU thread exits mid-trace */
	VM_VCPU_WARN_MIGRATION,       /* a thread changes vCPU, a vCPU changes thread */
	VM_VCPU_WARN_NO_VM,           /* a vCPU thread that no rule maps to a VM */
	VM_VCPU_WARN_LOOKAHEAD_LIMIT, /* the look-ahead gave up waiting */
	VM_VCPU_WARN_UNATTRIBUTED,    /* kvm events of a CPU whose thread is unknown */
	VM_VCPU_WARN_CONTRADICTION,   /* a sched_switch contradicts the thread believed current */
	VM_VCPU_WARN_ENTRY_ID,        /* kvm entries give another vCPU id than the exits */
	VM_VCPU_WARN_NUMBERED_BY_ORDER, /* no event gives a vCPU thread's number */
};

struct vm_vcpu_change {
	int64_t ts;
	unsigned int host;   /* host machine */
	unsigned int vm;     /* guest machine */
	uint64_t vcpu;
	enum vm_vcpu_mode mode;
	int64_t host_tid;    /* -1 unknown */
	int64_t pcpu;        /* -1 when the vCPU thread is not on a host CPU */
	int64_t exit_reason; /* -1 none */
};

struct vm_vcpu_callbacks {
	/* The input pushed with `cookie` leaves the look-ahead. */
	void (*release)(void *user, void *cookie);
	/* A vCPU changes mode (right after the input that caused it). */
	void (*mode_change)(void *user, const struct vm_vcpu_change *change);
	/* Odd input, once per kind and machine; `message` says what to do. */
	void (*warning)(void *user, enum vm_vcpu_warning kind,
		unsigned int machine, const char *message);
	/* The name of a machine, for messages; NULL: they show its index. */
	const char *(*machine_name)(void *user, unsigned int machine);
};

struct vm_vcpu_limits {
	int64_t window_ns;   /* hold at most this much trace time */
	uint64_t max_events; /* and at most this many inputs */
	/*
	 * How long a host thread switched in may still turn out to be a vCPU
	 * thread (its first kvm entry), making it `hypervisor` since the
	 * switch. A vCPU thread enters its guest microseconds after being
	 * switched in; other threads never do.
	 */
	int64_t switch_in_grace_ns;
	/*
	 * How long a guessed VM (a rule the model calls tentative) is checked
	 * against later input before the guess is used.
	 */
	int64_t tentative_ns;
};

/*
 * 1 s of trace time, 50,000 inputs, 1 ms after a switch-in, 10 ms for a
 * guess. A held babeltrace2 event message costs about 2 KB: the event
 * limit bounds the memory of the look-ahead to about 100 MB.
 */
#define VM_VCPU_DEFAULT_WINDOW_NS INT64_C(1000000000)
#define VM_VCPU_DEFAULT_MAX_EVENTS UINT64_C(50000)
#define VM_VCPU_DEFAULT_SWITCH_IN_GRACE_NS INT64_C(1000000)
#define VM_VCPU_DEFAULT_TENTATIVE_NS INT64_C(10000000)

struct vm_vcpu_tracker;

/*
 * `model` stays owned by the caller and must outlive the tracker; `limits`
 * NULL means the defaults.
 */
struct vm_vcpu_tracker *vm_vcpu_tracker_create(struct vm_model *model,
		const struct vm_vcpu_limits *limits,
		const struct vm_vcpu_callbacks *callbacks, void *user);

/*
 * Frees the tracker. Inputs still held are not released: `discard` (if not
 * NULL) is called with each of their cookies.
 */
void vm_vcpu_tracker_destroy(struct vm_vcpu_tracker *tracker,
		void (*discard)(void *cookie));

/* A machine exists, before (or without) any event of it. */
void vm_vcpu_tracker_add_machine(struct vm_vcpu_tracker *tracker,
		unsigned int machine);

/*
 * Pushes one input. `event` is NULL for an input that is not an event
 * (its place in the order is all that matters); the tracker copies what it
 * needs of it. Releases whatever the look-ahead no longer needs to hold.
 */
void vm_vcpu_tracker_push(struct vm_vcpu_tracker *tracker,
		const struct vm_event *event, void *cookie);

/* End of input: releases everything held, in order. */
void vm_vcpu_tracker_flush(struct vm_vcpu_tracker *tracker);

/* Number of inputs held right now. */
uint64_t vm_vcpu_tracker_held(const struct vm_vcpu_tracker *tracker);

#endif /* VM_VCPU_TRACKER_H */
