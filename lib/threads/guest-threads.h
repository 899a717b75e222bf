#ifndef VM_THREADS_GUEST_THREADS_H
#define VM_THREADS_GUEST_THREADS_H

/*
 * The threads of one machine and their correlated states. The machine's
 * scheduler events say which thread is on which of its CPUs (= vCPU id) and
 * whether a thread that is not on a CPU waits or could run; the vCPU modes
 * (struct vm_threads_vcpus) say what the host does with the vCPU under a
 * thread that believes it runs.
 *
 * Each thread holds its open interval and the interval before it, nothing
 * more: intervals leave through the callback as they end.
 */

#include <stdint.h>

#include "event.h"
#include "threads/vcpus.h"
#include "writers/writer.h"

typedef void (*vm_threads_interval_cb)(const struct vm_thread_interval *iv, void *data);

/* An odd input: `kind` is a short stable word, `message` says what happened. */
typedef void (*vm_threads_warning_cb)(const char *kind, const char *machine,
		const char *message, void *data);

/*
 * What CPU `cpu` of the machine runs changed at `ts`: thread `tid` (0 idle,
 * -1 not known), named `comm` (interned: valid until the machine forgets
 * its threads or is destroyed). `ts` may be before what was reported last
 * (a loss located late).
 */
typedef void (*vm_threads_cpu_current_cb)(int64_t ts, int64_t cpu, int64_t tid,
		const char *comm, void *data);

/*
 * The `ts` of a cpu_current call made at a CPU's first sched_switch, before
 * the one for its `next_tid`: `tid` (its `prev_tid`) ran there since the
 * trace began, as far as the trace tells (a loss before it has been told).
 */
#define VM_THREADS_SINCE_START INT64_MIN

struct vm_threads_machine_callbacks {
	vm_threads_interval_cb interval;
	vm_threads_warning_cb warning;
	/* May be NULL. */
	vm_threads_cpu_current_cb cpu_current;
	void *data;
};

struct vm_threads_machine;

/* `vcpus` is not owned; it is looked up with this machine's name. */
struct vm_threads_machine *vm_threads_machine_create(const char *name,
		struct vm_threads_vcpus *vcpus,
		const struct vm_threads_machine_callbacks *cb);
void vm_threads_machine_destroy(struct vm_threads_machine *m);

const char *vm_threads_machine_name(const struct vm_threads_machine *m);

/* The host's view of the vCPUs of the VM of this name; NULL while unknown. */
struct vm_threads_vcpus_vm *vm_threads_machine_vcpus(struct vm_threads_machine *m);

/* A scheduler or process event of this machine; others are ignored. */
void vm_threads_machine_feed(struct vm_threads_machine *m, const struct vm_event *ev);

/*
 * A VM_EVENT_LOSS of this machine (SPEC, Lost events): the current thread
 * of the CPU is `unknown` from the gap's start until a sched_switch names
 * it or a wakeup of it, and the CPU's current thread is unknown until its
 * next sched_switch, whose prev_tid is then trusted. Without a valid CPU,
 * every CPU of the machine is affected.
 */
void vm_threads_machine_loss(struct vm_threads_machine *m, const struct vm_event *ev);

/* The host changed the mode of this machine's vCPU `vcpu` at `ts`. */
void vm_threads_machine_vcpu_changed(struct vm_threads_machine *m, int64_t ts,
		int64_t vcpu);

/* Drops every thread without reporting it (the machine is the host). */
void vm_threads_machine_forget(struct vm_threads_machine *m);

/* Ends every thread's last interval at `end_ts` (the end of the input). */
void vm_threads_machine_finish(struct vm_threads_machine *m, int64_t end_ts);

#endif /* VM_THREADS_GUEST_THREADS_H */
