#include <glib.h>

#include "model/kvm.h"
#include "model/int64-key.h"
#include "model/processes.h"
#include "model/machine-set.h"
#include "model/host-rule.h"

/* Slots of the model's direct-mapped thread caches. */
#define KVM_CACHE_SIZE 64

/* A cached pointer to the value of a table entry never removed. */
struct kvm_cache_entry {
	int64_t tid;
	void *value;  /* NULL: empty slot */
};

/* What the host rule knows of one machine. */
struct host_evidence {
	uint64_t entries;  /* kvm entries learnt */
	uint64_t exits;    /* kvm exits learnt */
	bool never_host;   /* a guest by set_role() */
};

struct kvm_model {
	int64_t host;
	/* The host was given by set_role(): the evidence no longer counts. */
	bool host_given;
	/* struct host_evidence by machine index. */
	GArray *evidence;
	/* Known machines (learn() adds that of every event). */
	struct vm_machine_set machines;
	struct vm_processes *processes;
	/* Host thread id -> gint64 vcpu_id, for every thread seen entering. */
	GHashTable *vcpu_threads;
	/* Host thread id -> gint64 vm_uid of its last vmsync_gh_host. */
	GHashTable *thread_uid;
	/* vm_uid -> gint64 guest machine, from the guests' vmsync events. */
	GHashTable *uid_guest;
	/* QEMU pid -> gint64 guest machine (parameter vm-pids). */
	GHashTable *pid_guest;
	/*
	 * Host thread id -> struct resolved_vm: the answer of vm_of_thread()
	 * is recomputed only after something it depends on was learnt.
	 */
	GHashTable *resolved;
	uint64_t generation;
	/*
	 * In front of vcpu_threads (every kvm entry) and resolved (every mode
	 * change): their entries are never removed and their values are
	 * updated in place, so a cached value pointer stays valid.
	 */
	struct kvm_cache_entry vcpu_thread_cache[KVM_CACHE_SIZE];
	struct kvm_cache_entry resolved_cache[KVM_CACHE_SIZE];
};

static struct kvm_cache_entry *cache_slot(struct kvm_cache_entry *cache,
		int64_t tid)
{
	return &cache[(uint64_t) tid % KVM_CACHE_SIZE];
}

/* The value of `tid` in `table`, through `cache`; NULL if none. */
static void *cached_lookup(struct kvm_cache_entry *cache, GHashTable *table,
		int64_t tid)
{
	struct kvm_cache_entry *slot = cache_slot(cache, tid);
	void *value;

	if (slot->value && slot->tid == tid)
		return slot->value;
	value = vm_int64_table_lookup(table, tid);
	if (value)
		*slot = (struct kvm_cache_entry) { .tid = tid, .value = value };
	return value;
}

struct resolved_vm {
	int64_t vm;
	bool tentative;
	uint64_t generation;
};

static void *kvm_create(void)
{
	struct kvm_model *kvm = g_new0(struct kvm_model, 1);

	kvm->host = VM_MODEL_UNKNOWN;
	kvm->evidence = g_array_new(FALSE, TRUE, sizeof(struct host_evidence));
	vm_machine_set_init(&kvm->machines);
	kvm->processes = vm_processes_create();
	kvm->vcpu_threads = vm_int64_table_new(g_free);
	kvm->thread_uid = vm_int64_table_new(g_free);
	kvm->uid_guest = vm_int64_table_new(g_free);
	kvm->pid_guest = vm_int64_table_new(g_free);
	kvm->resolved = vm_int64_table_new(g_free);
	return kvm;
}

static void kvm_destroy(void *data)
{
	struct kvm_model *kvm = data;

	if (!kvm)
		return;
	g_array_free(kvm->evidence, TRUE);
	vm_machine_set_fini(&kvm->machines);
	vm_processes_destroy(kvm->processes);
	g_hash_table_destroy(kvm->vcpu_threads);
	g_hash_table_destroy(kvm->thread_uid);
	g_hash_table_destroy(kvm->uid_guest);
	g_hash_table_destroy(kvm->pid_guest);
	g_hash_table_destroy(kvm->resolved);
	g_free(kvm);
}

static void kvm_add_machine(void *data, unsigned int machine)
{
	struct kvm_model *kvm = data;

	if (vm_machine_set_add(&kvm->machines, machine))
		kvm->generation++;
}

static void kvm_set_vm_pid(void *data, unsigned int guest_machine, int64_t pid)
{
	struct kvm_model *kvm = data;

	kvm_add_machine(kvm, guest_machine);
	vm_int64_table_insert(kvm->pid_guest, pid, vm_int64_box(guest_machine));
	kvm->generation++;
}

static bool kvm_needs_thread(const struct vm_event *event)
{
	return event->kind == VM_EVENT_KVM_ENTRY ||
		event->kind == VM_EVENT_KVM_EXIT ||
		event->kind == VM_EVENT_VMSYNC_GH_HOST;
}

static bool is_host_event(const struct kvm_model *kvm,
		const struct vm_event *event)
{
	return kvm->host == (int64_t) event->machine;
}

/* A guest reports a vm_uid: from now on, host events naming it are trusted. */
static void learn_guest_uid(struct kvm_model *kvm, const struct vm_event *event)
{
	int64_t uid = event->u.vmsync.vm_uid;

	if (uid == VM_FIELD_MISSING || is_host_event(kvm, event) ||
			vm_int64_table_lookup(kvm->uid_guest, uid))
		return;
	vm_int64_table_insert(kvm->uid_guest, uid, vm_int64_box(event->machine));
	kvm->generation++;
}

static void learn_thread_uid(struct kvm_model *kvm, const struct vm_event *event,
		int64_t tid)
{
	const gint64 *known;
	int64_t uid = event->u.vmsync.vm_uid;

	if (uid == VM_FIELD_MISSING || tid < 0 || !is_host_event(kvm, event))
		return;
	known = vm_int64_table_lookup(kvm->thread_uid, tid);
	if (known && *known == uid)
		return;
	vm_int64_table_insert(kvm->thread_uid, tid, vm_int64_box(uid));
	kvm->generation++;
}

static void learn_vcpu_thread(struct kvm_model *kvm,
		const struct vm_event *event, int64_t tid)
{
	gint64 *known;
	int64_t vcpu_id = event->u.kvm_entry.vcpu_id;

	if (tid < 0 || !vm_vcpu_id_valid(vcpu_id) || !is_host_event(kvm, event))
		return;
	known = cached_lookup(kvm->vcpu_thread_cache, kvm->vcpu_threads, tid);
	if (known && *known == vcpu_id)
		return;
	if (known)
		*known = vcpu_id;
	else
		vm_int64_table_insert(kvm->vcpu_threads, tid, vm_int64_box(vcpu_id));
	kvm->generation++;
}

static struct host_evidence *evidence_of(struct kvm_model *kvm,
		unsigned int machine)
{
	if (machine >= kvm->evidence->len)
		g_array_set_size(kvm->evidence, machine + 1);
	return &g_array_index(kvm->evidence, struct host_evidence, machine);
}

/* The host rule over the evidence so far, unless the host was given. */
static void choose_host(struct kvm_model *kvm)
{
	struct vm_host_candidate *candidates;
	struct vm_host_choice choice;
	unsigned int i;

	if (kvm->host_given)
		return;
	candidates = g_new0(struct vm_host_candidate, kvm->evidence->len);
	for (i = 0; i < kvm->evidence->len; i++) {
		const struct host_evidence *machine = evidence_of(kvm, i);

		candidates[i].evidence = machine->never_host ? 0 : machine->entries;
	}
	choice = vm_host_rule_choose(candidates, kvm->evidence->len,
		VM_MODEL_UNKNOWN);
	/*
	 * A host trace that starts while its vCPUs run guest code shows exits
	 * first: until some machine has entries, exits are the evidence.
	 */
	for (i = 0; choice.host == VM_MODEL_UNKNOWN && i < kvm->evidence->len; i++) {
		const struct host_evidence *machine = evidence_of(kvm, i);

		candidates[i].evidence = machine->never_host ? 0 : machine->exits;
	}
	if (choice.host == VM_MODEL_UNKNOWN)
		choice = vm_host_rule_choose(candidates, kvm->evidence->len,
			VM_MODEL_UNKNOWN);
	g_free(candidates);
	if (choice.host != kvm->host) {
		kvm->host = choice.host;
		kvm->generation++;
	}
}

static void learn_host_evidence(struct kvm_model *kvm,
		const struct vm_event *event)
{
	struct host_evidence *machine = evidence_of(kvm, event->machine);

	if (event->kind == VM_EVENT_KVM_ENTRY)
		machine->entries++;
	else
		machine->exits++;
	/* The host's own entries only make it more the host. */
	if (kvm->host != (int64_t) event->machine)
		choose_host(kvm);
}

static bool kvm_is_host_evidence(const struct vm_event *event)
{
	return event->kind == VM_EVENT_KVM_ENTRY;
}

static uint64_t kvm_host_evidence(void *data, unsigned int machine)
{
	struct kvm_model *kvm = data;

	return machine < kvm->evidence->len ? evidence_of(kvm, machine)->entries : 0;
}

static void kvm_set_role(void *data, unsigned int machine, bool is_host)
{
	struct kvm_model *kvm = data;

	kvm_add_machine(kvm, machine);
	if (is_host) {
		kvm->host_given = true;
		if (kvm->host != (int64_t) machine) {
			kvm->host = machine;
			kvm->generation++;
		}
		return;
	}
	evidence_of(kvm, machine)->never_host = true;
	choose_host(kvm);
}

static void kvm_learn(void *data, const struct vm_event *event, int64_t tid)
{
	struct kvm_model *kvm = data;

	/* Every event: the call only for a machine not seen yet. */
	if (!vm_machine_set_contains(&kvm->machines, event->machine))
		kvm_add_machine(kvm, event->machine);
	switch (event->kind) {
	case VM_EVENT_KVM_ENTRY:
		learn_host_evidence(kvm, event);
		learn_vcpu_thread(kvm, event, tid);
		break;
	case VM_EVENT_KVM_EXIT:
		learn_host_evidence(kvm, event);
		break;
	case VM_EVENT_VMSYNC_GH_HOST:
		learn_thread_uid(kvm, event, tid);
		break;
	case VM_EVENT_VMSYNC_GH_GUEST:
	case VM_EVENT_VMSYNC_HG_GUEST:
		learn_guest_uid(kvm, event);
		break;
	case VM_EVENT_STATEDUMP_PROCESS:
	case VM_EVENT_PROCESS_FORK:
		if (vm_processes_learn(kvm->processes, event))
			kvm->generation++;
		break;
	default:
		break;
	}
}

static int64_t kvm_host(void *data)
{
	const struct kvm_model *kvm = data;

	return kvm->host;
}

static void kvm_transition(void *data, const struct vm_event *event,
		struct vm_model_transition *out)
{
	(void) data;
	out->kind = VM_MODEL_TRANSITION_NONE;
	out->vcpu_id = -1;
	out->exit_reason = -1;
	out->fields_missing = false;
	if (event->kind == VM_EVENT_KVM_ENTRY) {
		out->kind = VM_MODEL_TRANSITION_ENTER_GUEST;
		out->fields_missing = !vm_vcpu_id_valid(event->u.kvm_entry.vcpu_id);
		if (!out->fields_missing)
			out->vcpu_id = event->u.kvm_entry.vcpu_id;
	} else if (event->kind == VM_EVENT_KVM_EXIT) {
		out->kind = VM_MODEL_TRANSITION_EXIT_GUEST;
		out->fields_missing = event->u.kvm_exit.exit_reason == VM_FIELD_MISSING;
		if (!out->fields_missing)
			out->exit_reason = event->u.kvm_exit.exit_reason;
	}
}

/* The guest that reported `uid`, VM_MODEL_UNKNOWN if no guest did. */
static int64_t trusted_guest_of_uid(const struct kvm_model *kvm, int64_t uid)
{
	const gint64 *guest = vm_int64_table_lookup(kvm->uid_guest, uid);

	if (!guest || *guest == kvm->host)
		return VM_MODEL_UNKNOWN;
	return *guest;
}

static int64_t pid_of(const struct kvm_model *kvm, int64_t tid)
{
	return vm_processes_pid_of(kvm->processes, (unsigned int) kvm->host, tid);
}

/* Rule 1: a trusted vm_uid reported by the thread or by its process. */
static int64_t vm_from_vmsync(const struct kvm_model *kvm, int64_t tid)
{
	const gint64 *uid = vm_int64_table_lookup(kvm->thread_uid, tid);
	int64_t pid = pid_of(kvm, tid);
	GHashTableIter iter;
	gpointer key, value;

	if (uid && trusted_guest_of_uid(kvm, *uid) != VM_MODEL_UNKNOWN)
		return trusted_guest_of_uid(kvm, *uid);
	g_hash_table_iter_init(&iter, kvm->thread_uid);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		int64_t guest = trusted_guest_of_uid(kvm, *(gint64 *) value);

		if (guest != VM_MODEL_UNKNOWN && pid_of(kvm, *(gint64 *) key) == pid)
			return guest;
	}
	return VM_MODEL_UNKNOWN;
}

/* Rule 2: parameter vm-pids. */
static int64_t vm_from_pids(const struct kvm_model *kvm, int64_t tid)
{
	const gint64 *guest = vm_int64_table_lookup(kvm->pid_guest, pid_of(kvm, tid));

	/* The host is no guest, even if the user says so. */
	return guest && *guest != kvm->host ? *guest : VM_MODEL_UNKNOWN;
}

/* The one guest machine, VM_MODEL_UNKNOWN unless there is exactly one. */
static int64_t single_guest(const struct kvm_model *kvm)
{
	GHashTableIter iter;
	gpointer key;
	int64_t guest = VM_MODEL_UNKNOWN;

	if (kvm->host == VM_MODEL_UNKNOWN)
		return VM_MODEL_UNKNOWN;
	g_hash_table_iter_init(&iter, kvm->machines.table);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		int64_t machine = GPOINTER_TO_UINT(key);

		if (machine == kvm->host)
			continue;
		if (guest != VM_MODEL_UNKNOWN)
			return VM_MODEL_UNKNOWN;
		guest = machine;
	}
	return guest;
}

/* Whether all vCPU threads seen so far belong to one process. */
static bool single_vcpu_process(const struct kvm_model *kvm)
{
	GHashTableIter iter;
	gpointer key;
	int64_t pid = -1;

	g_hash_table_iter_init(&iter, kvm->vcpu_threads);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		int64_t thread_pid = pid_of(kvm, *(gint64 *) key);

		if (pid >= 0 && thread_pid != pid)
			return false;
		pid = thread_pid;
	}
	return pid >= 0;
}

/* Rule 3: one guest, one QEMU process with vCPU threads. */
static int64_t vm_from_single_guest(const struct kvm_model *kvm, int64_t tid)
{
	if (!vm_int64_table_lookup(kvm->vcpu_threads, tid) ||
			!single_vcpu_process(kvm))
		return VM_MODEL_UNKNOWN;
	return single_guest(kvm);
}

/*
 * Rule 3 is a guess: a second QEMU process with vCPU threads, seen later,
 * would make it wrong.
 */
static int64_t resolve_vm(const struct kvm_model *kvm, int64_t tid,
		bool *tentative)
{
	int64_t vm = vm_from_vmsync(kvm, tid);

	*tentative = false;
	if (vm == VM_MODEL_UNKNOWN)
		vm = vm_from_pids(kvm, tid);
	if (vm == VM_MODEL_UNKNOWN) {
		vm = vm_from_single_guest(kvm, tid);
		*tentative = vm != VM_MODEL_UNKNOWN;
	}
	return vm;
}

static int64_t kvm_vm_of_thread(void *data, int64_t tid, bool *tentative)
{
	struct kvm_model *kvm = data;
	struct resolved_vm *resolved;

	*tentative = false;
	if (kvm->host == VM_MODEL_UNKNOWN)
		return VM_MODEL_UNKNOWN;
	resolved = cached_lookup(kvm->resolved_cache, kvm->resolved, tid);
	if (!resolved) {
		resolved = g_new0(struct resolved_vm, 1);
		resolved->generation = kvm->generation + 1;
		vm_int64_table_insert(kvm->resolved, tid, resolved);
	}
	if (resolved->generation != kvm->generation) {
		resolved->vm = resolve_vm(kvm, tid, &resolved->tentative);
		resolved->generation = kvm->generation;
	}
	*tentative = resolved->tentative;
	return resolved->vm;
}

static gint compare_int64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* The processes of the vCPU threads: what a vm-pids entry must name. */
static size_t kvm_vcpu_processes(void *data, int64_t **pids)
{
	const struct kvm_model *kvm = data;
	GArray *found = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GHashTableIter iter;
	gpointer key;
	size_t count;
	guint i;

	if (kvm->host != VM_MODEL_UNKNOWN) {
		g_hash_table_iter_init(&iter, kvm->vcpu_threads);
		while (g_hash_table_iter_next(&iter, &key, NULL)) {
			int64_t pid = pid_of(kvm, *(gint64 *) key);

			g_array_append_val(found, pid);
		}
	}
	g_array_sort(found, compare_int64);
	/* Sorted: each process once. */
	for (i = 0, count = 0; i < found->len; i++) {
		int64_t pid = g_array_index(found, int64_t, i);

		if (count == 0 || pid != g_array_index(found, int64_t, count - 1))
			g_array_index(found, int64_t, count++) = pid;
	}
	*pids = NULL;
	if (count == 0)
		g_array_free(found, TRUE);
	else
		*pids = (int64_t *) (void *) g_array_free(found, FALSE);
	return count;
}

const struct vm_model_class vm_model_kvm = {
	.name = "kvm",
	.description = "Linux KVM with QEMU: vCPU threads emit kvm_entry/kvm_exit "
		"(or kvm_x86_entry/kvm_x86_exit)",
	.create = kvm_create,
	.destroy = kvm_destroy,
	.add_machine = kvm_add_machine,
	.set_vm_pid = kvm_set_vm_pid,
	.needs_thread = kvm_needs_thread,
	.learn = kvm_learn,
	.host = kvm_host,
	.is_host_evidence = kvm_is_host_evidence,
	.host_evidence = kvm_host_evidence,
	.set_role = kvm_set_role,
	.transition = kvm_transition,
	.vm_of_thread = kvm_vm_of_thread,
	.vcpu_processes = kvm_vcpu_processes,
};
