#ifndef VM_MODEL_MODEL_H
#define VM_MODEL_MODEL_H

/*
 * A hypervisor model: what the vCPU state machine (lib/vcpu/) needs to know
 * from a hypervisor, and nothing else. The state machine knows threads, CPUs
 * and scheduling; the model says which machine is the host, which host
 * events move a vCPU thread into or out of guest mode, and which VM a vCPU
 * thread belongs to. Adding a hypervisor is one file defining a
 * `struct vm_model_class` plus its entry in the registry (registry.c).
 *
 * Machines are the indexes of struct vm_event. No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "event.h"

/* Returned by host() and vm_of_thread() while the answer is not known. */
#define VM_MODEL_UNKNOWN (-1)

enum vm_model_transition_kind {
	VM_MODEL_TRANSITION_NONE = 0,
	VM_MODEL_TRANSITION_ENTER_GUEST, /* the vCPU starts running guest code */
	VM_MODEL_TRANSITION_EXIT_GUEST,  /* the vCPU is back in the hypervisor */
};

/* Something odd the model saw in the vCPU identities (the caller warns). */
enum vm_model_identity_note {
	VM_MODEL_IDENTITY_OK = 0,
	/*
	 * The thread's entries give another vCPU id than its exits: the entry
	 * id is ignored (values: the entry id, the exit id).
	 */
	VM_MODEL_IDENTITY_ENTRY_ID_IGNORED,
	/*
	 * Nothing in the trace gives the thread's vCPU number: it is numbered
	 * in the order its VM's vCPU threads appear (values: the number, the
	 * entry id).
	 */
	VM_MODEL_IDENTITY_NUMBERED_BY_ORDER,
};

struct vm_model_transition {
	enum vm_model_transition_kind kind;
	/*
	 * The vCPU number of the emitting thread, -1 while not known (a later
	 * event of the thread may tell it).
	 */
	int64_t vcpu_id;
	int64_t exit_reason;  /* EXIT_GUEST: the exit reason, -1 if unknown */
	/* The event lacks a field the model needs (the caller warns). */
	bool fields_missing;
	enum vm_model_identity_note note;
	int64_t note_values[2];
};

struct vm_model_class {
	const char *name;
	const char *description;

	/* Returns the model's private state; destroy() frees it. */
	void *(*create)(void);
	void (*destroy)(void *model);

	/* A machine exists (the host or a guest), even before its first event. */
	void (*add_machine)(void *model, unsigned int machine);

	/*
	 * The user says that the VM `guest_machine` is the host process `pid`
	 * (parameter `vm-pids`).
	 */
	void (*set_vm_pid)(void *model, unsigned int guest_machine, int64_t pid);

	/*
	 * Optional: something named process `pid` as the VM `guest_machine`
	 * (correlate's `vm_host_pid`) but the user gives that process to
	 * another guest. The guest's own evidence then contradicts any guess:
	 * the model must not guess its process.
	 */
	void (*set_vm_pid_refused)(void *model, unsigned int guest_machine, int64_t pid);

	/*
	 * Whether learn() and transition() need the thread that emitted the
	 * event (the current thread of its CPU). The state machine holds such
	 * events back until it knows that thread.
	 */
	bool (*needs_thread)(const struct vm_event *event);

	/*
	 * Learns from an event, in input order, ahead of the state machine's
	 * use of the answers (look-ahead). `tid` is the emitting thread, -1
	 * when unknown or not needed.
	 */
	void (*learn)(void *model, const struct vm_event *event, int64_t tid);

	/*
	 * The host machine, VM_MODEL_UNKNOWN while not known: the one given
	 * by set_role(), else the rule of model/host-rule.h over the host
	 * evidence learnt so far (it can change while the input is read).
	 */
	int64_t (*host)(void *model);

	/*
	 * Whether the event tells that its machine is the host (for KVM: a
	 * vCPU entry), for the host rule of model/host-rule.h.
	 */
	bool (*is_host_evidence)(const struct vm_event *event);

	/* How many such events of `machine` learn() has seen. */
	uint64_t (*host_evidence)(void *model, unsigned int machine);

	/*
	 * The role of `machine` is known (filter.vm.correlate's `vm_role`,
	 * or parameter `host`): the host, or a guest that is never taken for
	 * the host whatever its events. A given host overrides the evidence.
	 */
	void (*set_role)(void *model, unsigned int machine, bool is_host);

	/*
	 * What a host event means for the vCPU run by the emitting thread
	 * `tid`, called right after learn() of the same event.
	 */
	void (*transition)(void *model, const struct vm_event *event, int64_t tid,
		struct vm_model_transition *out);

	/*
	 * The guest machine whose vCPU the host thread `tid` runs, from what
	 * was learnt so far; VM_MODEL_UNKNOWN while not known. `*tentative`
	 * is set when the answer is a guess that later input could change
	 * (the state machine then keeps looking ahead before relying on it).
	 */
	int64_t (*vm_of_thread)(void *model, int64_t tid, bool *tentative);

	/*
	 * Optional (NULL: the model cannot tell), for warnings: appends to
	 * `guests` (a GArray of unsigned int) the guest machines that nothing
	 * learnt so far maps to a host process, and returns how many host
	 * processes with vCPU threads no guest is mapped to.
	 */
	unsigned int (*unidentified)(void *model, GArray *guests);

	/*
	 * The host processes that have a thread seen running a vCPU so far,
	 * each once, in increasing order, so that a `vm-pids` entry can be
	 * checked against them. Returns their number; `*pids` is then an
	 * array to g_free(), NULL when there is none. Optional (NULL): the
	 * model cannot tell.
	 */
	size_t (*vcpu_processes)(void *model, int64_t **pids);
};

/* A model instance: its class and its state. */
struct vm_model {
	const struct vm_model_class *cls;
	void *data;
};

/* NULL-safe creation from a class; vm_model_destroy(NULL) does nothing. */
struct vm_model *vm_model_create(const struct vm_model_class *cls);
void vm_model_destroy(struct vm_model *model);

#endif /* VM_MODEL_MODEL_H */
