/*
 * The vCPU number of each vCPU thread: see vcpu-numbers.h.
 */

#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "event.h"
#include "model/int64-key.h"
#include "model/vcpu-numbers.h"

/* What is known of one host thread with kvm events (or a vCPU name). */
struct numbered_thread {
	int64_t entry_id;     /* of its last entry, -1 none */
	int64_t exit_id;      /* of its last exit with one, -1 none */
	int64_t name_number;  /* n of its name `CPU <n>/KVM`, -1 none */
	int64_t order_number; /* given by the order rule, -1 not yet */
	int64_t first_ts;     /* its first kvm event, INT64_MIN none */
	int64_t last_ts;      /* its last kvm event */
	bool saw_exit;        /* it exited a guest (with or without an id) */
	/* The answer of vm_vcpu_numbers_of(), valid for this generation and pid. */
	struct vm_vcpu_number answer;
	uint64_t answer_generation;
	int64_t answer_pid;
};

/* An entry id as used by the threads of one process of one machine. */
struct entry_key {
	unsigned int machine;
	int64_t pid;
	int64_t entry_id;
};

struct vm_vcpu_numbers {
	/* vm_int64_pair(machine, tid) -> struct numbered_thread */
	GHashTable *threads;
	/* struct entry_key -> gint64 tid of the last thread entering with it */
	GHashTable *entry_users;
	/* vm_int64_pair(machine, pid) -> gint64: the next order number */
	GHashTable *next_order;
	/* Sets of vm_int64_pair(machine, pid) whose entry ids are no numbers. */
	GHashTable *shared_entry_ids;
	/* Machines (GUINT_TO_POINTER(machine + 1)) whose exits carry ids. */
	GHashTable *exits_with_ids;
	/* Bumped whenever an answer may change. */
	uint64_t generation;
};

static guint entry_key_hash(gconstpointer data)
{
	const struct entry_key *key = data;

	return g_int64_hash(&key->entry_id) ^ g_int64_hash(&key->pid) ^
		(key->machine * 2654435761u);
}

static gboolean entry_key_equal(gconstpointer a, gconstpointer b)
{
	const struct entry_key *x = a, *y = b;

	return x->machine == y->machine && x->pid == y->pid &&
		x->entry_id == y->entry_id;
}

struct vm_vcpu_numbers *vm_vcpu_numbers_create(void)
{
	struct vm_vcpu_numbers *numbers = g_new0(struct vm_vcpu_numbers, 1);

	numbers->threads = vm_int64_table_new(g_free);
	numbers->entry_users = g_hash_table_new_full(entry_key_hash,
		entry_key_equal, g_free, g_free);
	numbers->next_order = vm_int64_table_new(g_free);
	numbers->shared_entry_ids = vm_int64_table_new(NULL);
	numbers->exits_with_ids = g_hash_table_new(g_direct_hash, g_direct_equal);
	numbers->generation = 1;
	return numbers;
}

void vm_vcpu_numbers_destroy(struct vm_vcpu_numbers *numbers)
{
	if (!numbers) {
		return;
	}
	g_hash_table_destroy(numbers->threads);
	g_hash_table_destroy(numbers->entry_users);
	g_hash_table_destroy(numbers->next_order);
	g_hash_table_destroy(numbers->shared_entry_ids);
	g_hash_table_destroy(numbers->exits_with_ids);
	g_free(numbers);
}

static struct numbered_thread *thread_of(struct vm_vcpu_numbers *numbers,
		unsigned int machine, int64_t tid)
{
	int64_t key = vm_int64_pair(machine, tid);
	struct numbered_thread *thread = vm_int64_table_lookup(numbers->threads, key);

	if (!thread) {
		thread = g_new0(struct numbered_thread, 1);
		thread->entry_id = -1;
		thread->exit_id = -1;
		thread->name_number = -1;
		thread->order_number = -1;
		thread->first_ts = INT64_MIN;
		vm_int64_table_insert(numbers->threads, key, thread);
	}
	return thread;
}

static void note_kvm_event(struct numbered_thread *thread, int64_t ts)
{
	if (thread->first_ts == INT64_MIN) {
		thread->first_ts = ts;
	}
	thread->last_ts = ts;
}

static bool conflicts(const struct numbered_thread *thread, int64_t tid,
		struct vm_vcpu_id_conflict *conflict)
{
	bool found = thread->entry_id >= 0 && thread->exit_id >= 0 &&
		thread->entry_id != thread->exit_id;

	if (found && conflict) {
		*conflict = (struct vm_vcpu_id_conflict) {
			.found = true, .tid = tid,
			.entry_id = thread->entry_id, .exit_id = thread->exit_id,
		};
	}
	return found;
}

/*
 * Two threads of one process entering with the same id at the same time
 * (each had kvm events after the other's first): the ids are no vCPU
 * numbers. One after the other is a vCPU re-created on a new thread.
 */
static void check_shared_entry_id(struct vm_vcpu_numbers *numbers,
		unsigned int machine, int64_t tid, int64_t pid,
		const struct numbered_thread *thread)
{
	struct entry_key lookup = { machine, pid, thread->entry_id };
	gint64 *user = g_hash_table_lookup(numbers->entry_users, &lookup);
	int64_t group = vm_int64_pair(machine, pid);

	if (user && *user == tid) {
		return;
	}
	if (user) {
		const struct numbered_thread *other = vm_int64_table_lookup(
			numbers->threads, vm_int64_pair(machine, *user));

		if (other && other->last_ts > thread->first_ts &&
				!vm_int64_table_lookup(numbers->shared_entry_ids, group)) {
			vm_int64_table_insert(numbers->shared_entry_ids, group,
				GINT_TO_POINTER(1));
			numbers->generation++;
		}
		*user = tid;
		return;
	}
	g_hash_table_insert(numbers->entry_users,
		g_memdup2(&lookup, sizeof(lookup)), vm_int64_box(tid));
}

bool vm_vcpu_numbers_entry(struct vm_vcpu_numbers *numbers, unsigned int machine,
		int64_t tid, int64_t pid, int64_t entry_id, int64_t ts,
		struct vm_vcpu_id_conflict *conflict)
{
	struct numbered_thread *thread = thread_of(numbers, machine, tid);

	note_kvm_event(thread, ts);
	if (!vm_vcpu_id_valid(entry_id)) {
		return false;
	}
	if (thread->entry_id != entry_id) {
		thread->entry_id = entry_id;
		numbers->generation++;
	}
	if (entry_id < VM_VCPU_NUMBER_LIMIT) {
		check_shared_entry_id(numbers, machine, tid, pid, thread);
	}
	return conflicts(thread, tid, conflict);
}

bool vm_vcpu_numbers_exit(struct vm_vcpu_numbers *numbers, unsigned int machine,
		int64_t tid, int64_t exit_id, int64_t ts,
		struct vm_vcpu_id_conflict *conflict)
{
	struct numbered_thread *thread = thread_of(numbers, machine, tid);
	gpointer machine_key = GUINT_TO_POINTER(machine + 1);

	note_kvm_event(thread, ts);
	if (!thread->saw_exit) {
		thread->saw_exit = true;
		numbers->generation++;
	}
	if (!vm_vcpu_id_valid(exit_id) || thread->exit_id == exit_id) {
		return false;
	}
	thread->exit_id = exit_id;
	if (!g_hash_table_contains(numbers->exits_with_ids, machine_key)) {
		g_hash_table_add(numbers->exits_with_ids, machine_key);
	}
	numbers->generation++;
	return conflicts(thread, tid, conflict);
}

int64_t vm_vcpu_number_of_name(const char *name)
{
	unsigned int n;
	int end = 0;

	if (!name || strncmp(name, "CPU ", 4) != 0) {
		return -1;
	}
	if (sscanf(name, "CPU %u/KVM%n", &n, &end) != 1 || end == 0 ||
			name[end] != '\0' || n >= VM_VCPU_NUMBER_LIMIT) {
		return -1;
	}
	return n;
}

void vm_vcpu_numbers_name(struct vm_vcpu_numbers *numbers, unsigned int machine,
		int64_t tid, const char *name)
{
	int64_t number = vm_vcpu_number_of_name(name);
	struct numbered_thread *thread;

	/* Most names are no vCPU's: no thread is made for them. */
	if (number < 0 && !vm_int64_table_lookup(numbers->threads,
			vm_int64_pair(machine, tid))) {
		return;
	}
	thread = thread_of(numbers, machine, tid);
	if (thread->name_number == number) {
		return;
	}
	thread->name_number = number;
	numbers->generation++;
}

void vm_vcpu_numbers_learn_name(struct vm_vcpu_numbers *numbers,
		const struct vm_event *event)
{
	if (event->kind == VM_EVENT_STATEDUMP_PROCESS) {
		vm_vcpu_numbers_name(numbers, event->machine, event->u.statedump.tid,
			event->u.statedump.name);
	} else if (event->kind == VM_EVENT_PROCESS_FORK) {
		vm_vcpu_numbers_name(numbers, event->machine, event->u.fork.child_tid,
			event->u.fork.child_comm);
	}
}

bool vm_vcpu_numbers_exits_have_ids(const struct vm_vcpu_numbers *numbers,
		unsigned int machine)
{
	return g_hash_table_contains(numbers->exits_with_ids,
		GUINT_TO_POINTER(machine + 1));
}

/* The order rule: the threads of a process numbered as they first appear. */
static int64_t order_number(struct vm_vcpu_numbers *numbers, unsigned int machine,
		int64_t pid, struct numbered_thread *thread)
{
	int64_t group = vm_int64_pair(machine, pid);
	gint64 *next;

	if (thread->order_number >= 0) {
		return thread->order_number;
	}
	next = vm_int64_table_lookup(numbers->next_order, group);
	if (!next) {
		next = vm_int64_box(0);
		vm_int64_table_insert(numbers->next_order, group, next);
	}
	thread->order_number = (*next)++;
	return thread->order_number;
}

static struct vm_vcpu_number answer(int64_t number,
		enum vm_vcpu_number_source source)
{
	return (struct vm_vcpu_number) { .number = number, .source = source };
}

static struct vm_vcpu_number resolve(struct vm_vcpu_numbers *numbers,
		unsigned int machine, int64_t pid, struct numbered_thread *thread)
{
	bool entry_ids_shared = vm_int64_table_lookup(numbers->shared_entry_ids,
		vm_int64_pair(machine, pid)) != NULL;

	if (thread->exit_id >= 0) {
		return answer(thread->exit_id, VM_VCPU_NUMBER_FROM_EXIT);
	}
	/* Exits carry the numbers: entries are not trusted, wait for one. */
	if (vm_vcpu_numbers_exits_have_ids(numbers, machine)) {
		if (thread->name_number >= 0) {
			return answer(thread->name_number, VM_VCPU_NUMBER_FROM_NAME);
		}
		return answer(-1, VM_VCPU_NUMBER_PENDING);
	}
	if (thread->entry_id >= 0 && thread->entry_id < VM_VCPU_NUMBER_LIMIT &&
			!entry_ids_shared) {
		return answer(thread->entry_id, VM_VCPU_NUMBER_FROM_ENTRY);
	}
	if (thread->name_number >= 0) {
		return answer(thread->name_number, VM_VCPU_NUMBER_FROM_NAME);
	}
	/*
	 * Until its first exit tells whether exits carry numbers, a thread
	 * whose entries carry none waits: numbering it in order now would
	 * give it a number that its first exit contradicts.
	 */
	if (thread->entry_id < 0 || !thread->saw_exit) {
		return answer(-1, VM_VCPU_NUMBER_PENDING);
	}
	return answer(order_number(numbers, machine, pid, thread),
		VM_VCPU_NUMBER_FROM_ORDER);
}

struct vm_vcpu_number vm_vcpu_numbers_of(struct vm_vcpu_numbers *numbers,
		unsigned int machine, int64_t tid, int64_t pid)
{
	struct numbered_thread *thread = thread_of(numbers, machine, tid);

	if (thread->answer_generation != numbers->generation ||
			thread->answer_pid != pid) {
		thread->answer = resolve(numbers, machine, pid, thread);
		thread->answer.entry_id = thread->entry_id;
		thread->answer_generation = numbers->generation;
		thread->answer_pid = pid;
	}
	return thread->answer;
}
