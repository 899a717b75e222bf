/*
 * Reporting a mode change when its input leaves the look-ahead: the VM of
 * the thread is asked for now, with everything learnt meanwhile. Outputs are
 * per (VM, vCPU number), so this is also where a thread that starts running
 * another vCPU, or a vCPU that another thread starts running, is resolved:
 * a vCPU has one owner thread at a time, the last one that entered its
 * guest code.
 */

#include <inttypes.h>

#include "vcpu/tracker-private.h"
#include "model/int64-key.h"

static void call_back(struct vm_vcpu_tracker *tracker, int64_t ts,
		unsigned int vm, int64_t vcpu_id, enum vm_vcpu_mode mode,
		int64_t tid, int64_t pcpu, int64_t exit_reason)
{
	const struct vm_model *model = tracker->model;
	struct vm_vcpu_change change = {
		.ts = ts,
		.host = (unsigned int) model->cls->host(model->data),
		.vm = vm,
		.vcpu = (uint64_t) vcpu_id,
		.mode = mode,
		.host_tid = tid,
		.pcpu = pcpu,
		.exit_reason = exit_reason,
	};

	tracker->callbacks.mode_change(tracker->user, &change);
}

static struct owner_cache_entry *owner_slot(struct vm_vcpu_tracker *tracker,
		int64_t key)
{
	/* vCPU numbers are small and dense, per VM. */
	uint64_t vm = (uint64_t) key >> 32, vcpu = (uint32_t) key;

	return &tracker->owner_cache[(vcpu + vm * 7u) % OWNER_CACHE_SIZE];
}

/* Every change asks who owns its vCPU: the cache answers first. */
static int64_t owner_of(struct vm_vcpu_tracker *tracker, unsigned int vm,
		int64_t vcpu_id)
{
	int64_t key = vm_int64_pair(vm, vcpu_id);
	struct owner_cache_entry *cached = owner_slot(tracker, key);

	if (!cached->valid || cached->key != key) {
		const gint64 *owner = vm_int64_table_lookup(tracker->owners, key);

		cached->valid = true;
		cached->key = key;
		cached->owner = owner ? *owner : -1;
	}
	return cached->owner;
}

static void set_owner(struct vm_vcpu_tracker *tracker, unsigned int vm,
		int64_t vcpu_id, int64_t tid)
{
	int64_t key = vm_int64_pair(vm, vcpu_id);

	vm_int64_table_insert(tracker->owners, key, vm_int64_box(tid));
	*owner_slot(tracker, key) = (struct owner_cache_entry) {
		.valid = true, .key = key, .owner = tid,
	};
}

static void clear_owner(struct vm_vcpu_tracker *tracker, unsigned int vm,
		int64_t vcpu_id)
{
	int64_t key = vm_int64_pair(vm, vcpu_id);

	vm_int64_table_remove(tracker->owners, key);
	*owner_slot(tracker, key) = (struct owner_cache_entry) {
		.valid = true, .key = key, .owner = -1,
	};
}

/* The thread no longer runs the vCPU it reported: that vCPU's mode ends. */
static void leave_reported_vcpu(struct vm_vcpu_tracker *tracker,
		struct vcpu_thread *thread, int64_t ts)
{
	if (owner_of(tracker, thread->reported_vm, thread->reported_vcpu_id) !=
			thread->tid) {
		return;
	}
	clear_owner(tracker, thread->reported_vm, thread->reported_vcpu_id);
	if (thread->reported_mode != VM_VCPU_UNKNOWN) {
		call_back(tracker, ts, thread->reported_vm,
			thread->reported_vcpu_id, VM_VCPU_UNKNOWN, thread->tid,
			-1, -1);
	}
}

static void warn_moved_to_vm(struct vm_vcpu_tracker *tracker,
		const struct vcpu_thread *thread, unsigned int vm)
{
	const struct vm_model *model = tracker->model;
	char *old_name = vcpu_machine_name(tracker, thread->reported_vm);
	char *new_name = vcpu_machine_name(tracker, vm);

	vcpu_warn(tracker, VM_VCPU_WARN_MIGRATION,
		(unsigned int) model->cls->host(model->data),
		"Host thread %" PRId64 " ran a vCPU of machine %s and now runs "
		"one of machine %s: both are followed, the first one's mode "
		"becomes unknown.", thread->tid, old_name, new_name);
	g_free(old_name);
	g_free(new_name);
}

/*
 * Whether `thread` may report for (vm, vcpu_id): yes if it owns it or
 * nobody does; a thread entering the vCPU's guest code takes it over.
 */
static bool claim(struct vm_vcpu_tracker *tracker, struct vcpu_thread *thread,
		unsigned int vm, const struct pending_change *change)
{
	const struct vm_model *model = tracker->model;
	int64_t owner = owner_of(tracker, vm, change->vcpu_id);
	struct vcpu_thread *previous;

	if (owner == thread->tid) {
		return true;
	}
	if (owner >= 0) {
		char *name;

		if (!change->takes_over) {
			return false;
		}
		name = vcpu_machine_name(tracker, vm);
		vcpu_warn(tracker, VM_VCPU_WARN_MIGRATION,
			(unsigned int) model->cls->host(model->data),
			"vCPU %" PRId64 " of machine %s, run by host thread %"
			PRId64 ", is now run by thread %" PRId64 " (vCPU "
			"re-created): the new thread is followed.",
			change->vcpu_id, name, owner, thread->tid);
		g_free(name);
		previous = vcpu_thread_find(tracker, owner);
		if (previous) {
			previous->reported = false;
		}
	}
	set_owner(tracker, vm, change->vcpu_id, thread->tid);
	return true;
}

/*
 * Which guests stay unknown and why, as far as the model tells (g_free
 * it): a sentence for the warning of a vCPU thread without VM.
 */
static char *unidentified_text(struct vm_vcpu_tracker *tracker)
{
	const struct vm_model *model = tracker->model;
	GArray *guests;
	GString *text;
	unsigned int processes;

	if (!model->cls->unidentified) {
		return g_strdup("");
	}
	guests = g_array_new(FALSE, FALSE, sizeof(unsigned int));
	processes = model->cls->unidentified(model->data, guests);
	if (guests->len == 0) {
		g_array_free(guests, TRUE);
		return g_strdup(" Every guest traced is identified: the thread "
			"runs a VM whose trace is not given.");
	}
	text = g_string_new(guests->len == 1 ? " Not identified: guest " :
		" Not identified: guests ");
	for (guint i = 0; i < guests->len; i++) {
		char *name = vcpu_machine_name(tracker, g_array_index(guests,
			unsigned int, i));

		g_string_append_printf(text, "%s%s", i ? ", " : "", name);
		g_free(name);
	}
	g_string_append_printf(text, " (no vmsync event names %s QEMU process, "
		"nor a `vm-pids` entry, nor a `vm_host_pid` from filter.vm.correlate; ",
		guests->len == 1 ? "its" : "their");
	if (guests->len == 1 && processes == 1) {
		/* What keeps the elimination rule from pairing the two left. */
		g_string_append(text, "its own `vm_host_pid` names a process that "
			"`vm-pids` gives to another guest, so the one process left is not "
			"taken for it).");
	} else {
		g_string_append_printf(text, "%u host process%s with vCPU threads %s "
			"left for %s, so elimination cannot tell which runs which).",
			processes, processes == 1 ? "" : "es", processes == 1 ? "is" : "are",
			guests->len == 1 ? "it" : "them");
	}
	g_array_free(guests, TRUE);
	return g_string_free(text, FALSE);
}

/* A vCPU thread whose VM nothing identifies (once per host). */
static void warn_no_vm(struct vm_vcpu_tracker *tracker, int64_t tid)
{
	const struct vm_model *model = tracker->model;
	unsigned int host = (unsigned int) model->cls->host(model->data);
	char *unidentified;

	/* Asked for each change of the thread: the text is made once. */
	if (vcpu_warned(tracker, VM_VCPU_WARN_NO_VM, host)) {
		return;
	}
	unidentified = unidentified_text(tracker);
	vcpu_warn(tracker, VM_VCPU_WARN_NO_VM, host,
		"Host thread %" PRId64 " runs a vCPU of a VM that no "
		"trace identifies: its modes are not reported.%s Give the "
		"guest's trace (with vmsync events) or map the guest to "
		"its QEMU process with parameter `vm-pids`.",
		tid, unidentified);
	g_free(unidentified);
}

/* The VM of the change's thread, VM_MODEL_UNKNOWN (warned) if none. */
static int64_t vm_of_change(struct vm_vcpu_tracker *tracker,
		const struct pending_change *change)
{
	const struct vm_model *model = tracker->model;
	bool tentative;
	int64_t vm = model->cls->vm_of_thread(model->data, change->tid,
		&tentative);

	if (vm == VM_MODEL_UNKNOWN) {
		warn_no_vm(tracker, change->tid);
	} else if (change->vcpu_id < 0) {
		vcpu_warn(tracker, VM_VCPU_WARN_NO_VM,
			(unsigned int) model->cls->host(model->data),
			"Host thread %" PRId64 " runs a vCPU whose number no "
			"kvm entry or exit of it gives: its modes are not "
			"reported.", change->tid);
	}
	return change->vcpu_id < 0 ? VM_MODEL_UNKNOWN : vm;
}

void report_change(struct vm_vcpu_tracker *tracker, int64_t ts,
		const struct pending_change *recorded)
{
	struct vcpu_thread *thread = vcpu_thread_find(tracker, recorded->tid);
	struct pending_change resolved = *recorded;
	const struct pending_change *change = &resolved;
	int64_t vm;

	/* Recorded before the thread's first entry told its vCPU number. */
	if (resolved.vcpu_id < 0) {
		resolved.vcpu_id = thread->first_vcpu_id;
	}
	vm = vm_of_change(tracker, change);
	if (vm == VM_MODEL_UNKNOWN) {
		return;
	}
	if (thread->reported && (thread->reported_vm != vm ||
			thread->reported_vcpu_id != change->vcpu_id)) {
		if (thread->reported_vm != vm) {
			warn_moved_to_vm(tracker, thread, (unsigned int) vm);
		}
		leave_reported_vcpu(tracker, thread, ts);
		thread->reported = false;
	}
	if (!claim(tracker, thread, (unsigned int) vm, change)) {
		return;
	}
	if (change->ends) {
		clear_owner(tracker, (unsigned int) vm, change->vcpu_id);
	}
	call_back(tracker, ts, (unsigned int) vm, change->vcpu_id, change->mode,
		change->tid, change->pcpu, change->exit_reason);
	thread->reported = !change->ends;
	thread->reported_vm = (unsigned int) vm;
	thread->reported_vcpu_id = change->vcpu_id;
	thread->reported_mode = change->mode;
}
