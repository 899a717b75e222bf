#include <glib.h>

#include "model/kvm.h"
#include "model/int64-key.h"
#include "model/processes.h"
#include "model/machine-set.h"
#include "model/host-rule.h"
#include "model/vcpu-numbers.h"

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
	/* The vCPU number of each vCPU thread. */
	struct vm_vcpu_numbers *numbers;
	/*
	 * What learn() found odd about the identity of the event it learnt
	 * from, for the transition() of the same event.
	 */
	struct vm_vcpu_id_conflict conflict;
	/* Host thread id -> gint64 tid, for every thread seen entering or exiting. */
	GHashTable *vcpu_threads;
	/* Host thread id -> gint64 vm_uid of its last vmsync_gh_host. */
	GHashTable *thread_uid;
	/* vm_uid -> gint64 guest machine, from the guests' vmsync events. */
	GHashTable *uid_guest;
	/* QEMU pid -> gint64 guest machine (parameter vm-pids). */
	GHashTable *pid_guest;
	/* Guests whose own vm_host_pid vm-pids gave to another: no guess (rule 4). */
	struct vm_machine_set refused;
	/*
	 * Host thread id -> struct resolved_vm: the answer of vm_of_thread()
	 * is recomputed only after something it depends on was learnt.
	 */
	GHashTable *resolved;
	uint64_t generation;
	/* What rules 1 and 2 leave (rule 4), counted again after a change. */
	struct kvm_leftovers *leftovers;
	/*
	 * In front of vcpu_threads (every kvm event) and resolved (every mode
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

	if (slot->value && slot->tid == tid) {
		return slot->value;
	}
	value = vm_int64_table_lookup(table, tid);
	if (value) {
		*slot = (struct kvm_cache_entry) { .tid = tid, .value = value };
	}
	return value;
}

/*
 * The guests and the processes with vCPU threads that neither a vm_uid
 * (rule 1) nor a pid (rule 2) pairs, for the elimination rule (rule 4).
 */
struct kvm_leftovers {
	uint64_t generation;     /* of the model, when they were counted */
	GArray *guests;          /* int64_t machines, ascending */
	unsigned int processes;
	int64_t pid;             /* the one process left, -1 unless one */
};

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
	kvm->numbers = vm_vcpu_numbers_create();
	kvm->vcpu_threads = vm_int64_table_new(g_free);
	kvm->thread_uid = vm_int64_table_new(g_free);
	kvm->uid_guest = vm_int64_table_new(g_free);
	kvm->pid_guest = vm_int64_table_new(g_free);
	vm_machine_set_init(&kvm->refused);
	kvm->resolved = vm_int64_table_new(g_free);
	kvm->leftovers = g_new0(struct kvm_leftovers, 1);
	kvm->leftovers->guests = g_array_new(FALSE, FALSE, sizeof(int64_t));
	/* Counted at the first question. */
	kvm->leftovers->generation = UINT64_MAX;
	return kvm;
}

static void kvm_destroy(void *data)
{
	struct kvm_model *kvm = data;

	if (!kvm) {
		return;
	}
	g_array_free(kvm->evidence, TRUE);
	vm_machine_set_fini(&kvm->machines);
	vm_processes_destroy(kvm->processes);
	vm_vcpu_numbers_destroy(kvm->numbers);
	g_hash_table_destroy(kvm->vcpu_threads);
	g_hash_table_destroy(kvm->thread_uid);
	g_hash_table_destroy(kvm->uid_guest);
	g_hash_table_destroy(kvm->pid_guest);
	vm_machine_set_fini(&kvm->refused);
	g_hash_table_destroy(kvm->resolved);
	g_array_free(kvm->leftovers->guests, TRUE);
	g_free(kvm->leftovers);
	g_free(kvm);
}

static void kvm_add_machine(void *data, unsigned int machine)
{
	struct kvm_model *kvm = data;

	if (vm_machine_set_add(&kvm->machines, machine)) {
		kvm->generation++;
	}
}

static void kvm_set_vm_pid(void *data, unsigned int guest_machine, int64_t pid)
{
	struct kvm_model *kvm = data;

	kvm_add_machine(kvm, guest_machine);
	vm_int64_table_insert(kvm->pid_guest, pid, vm_int64_box(guest_machine));
	kvm->generation++;
}

static void kvm_set_vm_pid_refused(void *data, unsigned int guest_machine, int64_t pid)
{
	struct kvm_model *kvm = data;

	(void) pid;
	kvm_add_machine(kvm, guest_machine);
	if (vm_machine_set_add(&kvm->refused, guest_machine)) {
		kvm->generation++;
	}
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
			vm_int64_table_lookup(kvm->uid_guest, uid)) {
		return;
	}
	vm_int64_table_insert(kvm->uid_guest, uid, vm_int64_box(event->machine));
	kvm->generation++;
}

static void learn_thread_uid(struct kvm_model *kvm, const struct vm_event *event,
		int64_t tid)
{
	const gint64 *known;
	int64_t uid = event->u.vmsync.vm_uid;

	if (uid == VM_FIELD_MISSING || tid < 0 || !is_host_event(kvm, event)) {
		return;
	}
	known = vm_int64_table_lookup(kvm->thread_uid, tid);
	if (known && *known == uid) {
		return;
	}
	vm_int64_table_insert(kvm->thread_uid, tid, vm_int64_box(uid));
	kvm->generation++;
}

static int64_t pid_of(const struct kvm_model *kvm, int64_t tid)
{
	return vm_processes_pid_of(kvm->processes, (unsigned int) kvm->host, tid);
}

/* A kvm entry or exit of a host thread: a vCPU thread, and its number's evidence. */
static void learn_vcpu_thread(struct kvm_model *kvm,
		const struct vm_event *event, int64_t tid)
{
	if (tid < 0 || !is_host_event(kvm, event)) {
		return;
	}
	if (!cached_lookup(kvm->vcpu_thread_cache, kvm->vcpu_threads, tid)) {
		vm_int64_table_insert(kvm->vcpu_threads, tid, vm_int64_box(tid));
		kvm->generation++;
	}
	if (event->kind == VM_EVENT_KVM_ENTRY) {
		vm_vcpu_numbers_entry(kvm->numbers, event->machine, tid,
			pid_of(kvm, tid), event->u.kvm_entry.vcpu_id, event->ts,
			&kvm->conflict);
	} else {
		vm_vcpu_numbers_exit(kvm->numbers, event->machine, tid,
			event->u.kvm_exit.vcpu_id, event->ts, &kvm->conflict);
	}
}

static struct host_evidence *evidence_of(struct kvm_model *kvm,
		unsigned int machine)
{
	if (machine >= kvm->evidence->len) {
		g_array_set_size(kvm->evidence, machine + 1);
	}
	return &g_array_index(kvm->evidence, struct host_evidence, machine);
}

/* The host rule over the evidence so far, unless the host was given. */
static void choose_host(struct kvm_model *kvm)
{
	struct vm_host_candidate *candidates;
	struct vm_host_choice choice;
	unsigned int i;

	if (kvm->host_given) {
		return;
	}
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
	if (choice.host == VM_MODEL_UNKNOWN) {
		choice = vm_host_rule_choose(candidates, kvm->evidence->len,
			VM_MODEL_UNKNOWN);
	}
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

	if (event->kind == VM_EVENT_KVM_ENTRY) {
		machine->entries++;
	} else {
		machine->exits++;
	}
	/* The host's own entries only make it more the host. */
	if (kvm->host != (int64_t) event->machine) {
		choose_host(kvm);
	}
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
	if (!vm_machine_set_contains(&kvm->machines, event->machine)) {
		kvm_add_machine(kvm, event->machine);
	}
	switch (event->kind) {
	case VM_EVENT_KVM_ENTRY:
	case VM_EVENT_KVM_EXIT:
		learn_host_evidence(kvm, event);
		learn_vcpu_thread(kvm, event, tid);
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
		if (vm_processes_learn(kvm->processes, event)) {
			kvm->generation++;
		}
		/* QEMU's `CPU <n>/KVM`: a number when nothing else gives one. */
		vm_vcpu_numbers_learn_name(kvm->numbers, event);
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

/* The vCPU number of host thread `tid`, and what is odd about it. */
static void vcpu_number_of(struct kvm_model *kvm, int64_t tid,
		struct vm_model_transition *out)
{
	struct vm_vcpu_number number = vm_vcpu_numbers_of(kvm->numbers,
		(unsigned int) kvm->host, tid, pid_of(kvm, tid));

	out->vcpu_id = number.number;
	if (kvm->conflict.found && kvm->conflict.tid == tid) {
		out->note = VM_MODEL_IDENTITY_ENTRY_ID_IGNORED;
		out->note_values[0] = kvm->conflict.entry_id;
		out->note_values[1] = kvm->conflict.exit_id;
	} else if (number.source == VM_VCPU_NUMBER_FROM_ORDER) {
		out->note = VM_MODEL_IDENTITY_NUMBERED_BY_ORDER;
		out->note_values[0] = number.number;
		out->note_values[1] = number.entry_id;
	}
	kvm->conflict.found = false;
}

static void kvm_transition(void *data, const struct vm_event *event, int64_t tid,
		struct vm_model_transition *out)
{
	struct kvm_model *kvm = data;

	*out = (struct vm_model_transition) {
		.kind = VM_MODEL_TRANSITION_NONE, .vcpu_id = -1, .exit_reason = -1,
	};
	if (event->kind == VM_EVENT_KVM_ENTRY) {
		out->kind = VM_MODEL_TRANSITION_ENTER_GUEST;
	} else if (event->kind == VM_EVENT_KVM_EXIT) {
		out->kind = VM_MODEL_TRANSITION_EXIT_GUEST;
		out->fields_missing = event->u.kvm_exit.exit_reason == VM_FIELD_MISSING;
		if (!out->fields_missing) {
			out->exit_reason = event->u.kvm_exit.exit_reason;
		}
	} else {
		return;
	}
	if (tid >= 0 && is_host_event(kvm, event)) {
		vcpu_number_of(kvm, tid, out);
	}
	/* An entry with no number of its own, and none known for its thread. */
	if (out->kind == VM_MODEL_TRANSITION_ENTER_GUEST &&
			!vm_vcpu_id_valid(event->u.kvm_entry.vcpu_id) && out->vcpu_id < 0) {
		out->fields_missing = true;
	}
}

/* The guest that reported `uid`, VM_MODEL_UNKNOWN if no guest did. */
static int64_t trusted_guest_of_uid(const struct kvm_model *kvm, int64_t uid)
{
	const gint64 *guest = vm_int64_table_lookup(kvm->uid_guest, uid);

	if (!guest || *guest == kvm->host) {
		return VM_MODEL_UNKNOWN;
	}
	return *guest;
}

/* Rule 1: a trusted vm_uid reported by the thread or by its process. */
static int64_t vm_from_vmsync(const struct kvm_model *kvm, int64_t tid)
{
	const gint64 *uid = vm_int64_table_lookup(kvm->thread_uid, tid);
	int64_t pid = pid_of(kvm, tid);
	GHashTableIter iter;
	gpointer key, value;

	if (uid && trusted_guest_of_uid(kvm, *uid) != VM_MODEL_UNKNOWN) {
		return trusted_guest_of_uid(kvm, *uid);
	}
	g_hash_table_iter_init(&iter, kvm->thread_uid);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		int64_t guest = trusted_guest_of_uid(kvm, *(gint64 *) value);

		if (guest != VM_MODEL_UNKNOWN && pid_of(kvm, *(gint64 *) key) == pid) {
			return guest;
		}
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

	if (kvm->host == VM_MODEL_UNKNOWN) {
		return VM_MODEL_UNKNOWN;
	}
	g_hash_table_iter_init(&iter, kvm->machines.table);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		int64_t machine = GPOINTER_TO_UINT(key);

		if (machine == kvm->host) {
			continue;
		}
		if (guest != VM_MODEL_UNKNOWN) {
			return VM_MODEL_UNKNOWN;
		}
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

		if (pid >= 0 && thread_pid != pid) {
			return false;
		}
		pid = thread_pid;
	}
	return pid >= 0;
}

/* Rule 3: one guest, one QEMU process with vCPU threads. */
static int64_t vm_from_single_guest(const struct kvm_model *kvm, int64_t tid)
{
	if (!vm_int64_table_lookup(kvm->vcpu_threads, tid) ||
			!single_vcpu_process(kvm)) {
		return VM_MODEL_UNKNOWN;
	}
	return single_guest(kvm);
}

static gint compare_int64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/*
 * The processes of the vCPU threads seen so far, split by whether rule 1
 * or 2 names their guest (`identified` collects those guests). Asked
 * through the rules themselves, so that a guest counts as identified only
 * once a process with vCPU threads is its own.
 */
static void split_vcpu_processes(const struct kvm_model *kvm, GHashTable *claimed,
		GHashTable *unclaimed, GHashTable *identified)
{
	GHashTableIter iter;
	gpointer key;

	g_hash_table_iter_init(&iter, kvm->vcpu_threads);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		int64_t tid = *(gint64 *) key;
		int64_t pid = pid_of(kvm, tid);
		int64_t vm = vm_from_vmsync(kvm, tid);

		if (vm == VM_MODEL_UNKNOWN) {
			vm = vm_from_pids(kvm, tid);
		}
		if (vm == VM_MODEL_UNKNOWN) {
			g_hash_table_add(unclaimed, vm_int64_box(pid));
			continue;
		}
		g_hash_table_add(claimed, vm_int64_box(pid));
		g_hash_table_add(identified, GUINT_TO_POINTER((guint) vm + 1));
	}
}

/* Counts the leftovers anew (rule 4). */
static void count_leftovers(const struct kvm_model *kvm, struct kvm_leftovers *left)
{
	GHashTable *claimed = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	GHashTable *unclaimed = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
		NULL);
	GHashTable *identified = g_hash_table_new(g_direct_hash, g_direct_equal);
	GHashTableIter iter;
	gpointer key;

	split_vcpu_processes(kvm, claimed, unclaimed, identified);
	g_array_set_size(left->guests, 0);
	g_hash_table_iter_init(&iter, kvm->machines.table);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		int64_t machine = GPOINTER_TO_UINT(key);

		if (machine != kvm->host && !g_hash_table_contains(identified,
				GUINT_TO_POINTER((guint) machine + 1))) {
			g_array_append_val(left->guests, machine);
		}
	}
	g_array_sort(left->guests, compare_int64);
	left->processes = 0;
	left->pid = -1;
	g_hash_table_iter_init(&iter, unclaimed);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		/* A process some of whose threads are claimed is no leftover. */
		if (g_hash_table_contains(claimed, key)) {
			continue;
		}
		left->processes++;
		left->pid = *(gint64 *) key;
	}
	if (left->processes != 1) {
		left->pid = -1;
	}
	g_hash_table_destroy(claimed);
	g_hash_table_destroy(unclaimed);
	g_hash_table_destroy(identified);
	left->generation = kvm->generation;
}

/*
 * The leftovers as of what was learnt so far: counted again only after
 * something was learnt (a cache, behind the const of the questions).
 */
static const struct kvm_leftovers *leftovers_of(const struct kvm_model *kvm)
{
	if (kvm->leftovers->generation != kvm->generation) {
		count_leftovers(kvm, kvm->leftovers);
	}
	return kvm->leftovers;
}

/*
 * Rule 4, elimination: when every guest but one is identified (rules 1
 * and 2) and every process with vCPU threads but one is some guest's, the
 * guest and the process left belong together. Rule 3 is its case with no
 * guest identified.
 */
static int64_t vm_from_elimination(const struct kvm_model *kvm, int64_t tid)
{
	const struct kvm_leftovers *left;

	if (kvm->host == VM_MODEL_UNKNOWN ||
			!vm_int64_table_lookup(kvm->vcpu_threads, tid)) {
		return VM_MODEL_UNKNOWN;
	}
	left = leftovers_of(kvm);
	if (left->guests->len != 1 || left->pid < 0 || left->pid != pid_of(kvm, tid) ||
			vm_machine_set_contains(&kvm->refused,
				(unsigned int) g_array_index(left->guests, int64_t, 0))) {
		return VM_MODEL_UNKNOWN;
	}
	return g_array_index(left->guests, int64_t, 0);
}

/*
 * Rules 3 and 4 are guesses: another QEMU process with vCPU threads, seen
 * later, would make them wrong.
 */
static int64_t resolve_vm(const struct kvm_model *kvm, int64_t tid,
		bool *tentative)
{
	int64_t vm = vm_from_vmsync(kvm, tid);

	*tentative = false;
	if (vm == VM_MODEL_UNKNOWN) {
		vm = vm_from_pids(kvm, tid);
	}
	if (vm != VM_MODEL_UNKNOWN) {
		return vm;
	}
	vm = vm_from_single_guest(kvm, tid);
	if (vm == VM_MODEL_UNKNOWN) {
		vm = vm_from_elimination(kvm, tid);
	}
	*tentative = vm != VM_MODEL_UNKNOWN;
	return vm;
}

static int64_t kvm_vm_of_thread(void *data, int64_t tid, bool *tentative)
{
	struct kvm_model *kvm = data;
	struct resolved_vm *resolved;

	*tentative = false;
	if (kvm->host == VM_MODEL_UNKNOWN) {
		return VM_MODEL_UNKNOWN;
	}
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

static unsigned int kvm_unidentified(void *data, GArray *guests)
{
	const struct kvm_model *kvm = data;
	const struct kvm_leftovers *left;

	if (kvm->host == VM_MODEL_UNKNOWN) {
		return 0;
	}
	left = leftovers_of(kvm);
	for (guint i = 0; i < left->guests->len; i++) {
		unsigned int guest = (unsigned int) g_array_index(left->guests, int64_t, i);

		g_array_append_val(guests, guest);
	}
	return left->processes;
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

		if (count == 0 || pid != g_array_index(found, int64_t, count - 1)) {
			g_array_index(found, int64_t, count++) = pid;
		}
	}
	*pids = NULL;
	if (count == 0) {
		g_array_free(found, TRUE);
	} else {
		*pids = (int64_t *) (void *) g_array_free(found, FALSE);
	}
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
	.set_vm_pid_refused = kvm_set_vm_pid_refused,
	.needs_thread = kvm_needs_thread,
	.learn = kvm_learn,
	.host = kvm_host,
	.is_host_evidence = kvm_is_host_evidence,
	.host_evidence = kvm_host_evidence,
	.set_role = kvm_set_role,
	.transition = kvm_transition,
	.vm_of_thread = kvm_vm_of_thread,
	.unidentified = kvm_unidentified,
	.vcpu_processes = kvm_vcpu_processes,
};
