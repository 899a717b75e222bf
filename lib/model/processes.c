#include <glib.h>

#include "model/processes.h"
#include "model/int64-key.h"

struct vm_processes {
	/* vm_int64_pair(machine, tid) -> gint64 pid */
	GHashTable *pid_of_thread;
};

struct vm_processes *vm_processes_create(void)
{
	struct vm_processes *processes = g_new0(struct vm_processes, 1);

	processes->pid_of_thread = vm_int64_table_new(g_free);
	return processes;
}

void vm_processes_destroy(struct vm_processes *processes)
{
	if (!processes) {
		return;
	}
	g_hash_table_destroy(processes->pid_of_thread);
	g_free(processes);
}

static bool set_pid(struct vm_processes *processes, unsigned int machine,
		int64_t tid, int64_t pid)
{
	int64_t key = vm_int64_pair(machine, tid);
	const gint64 *known;

	if (tid == VM_FIELD_MISSING || pid == VM_FIELD_MISSING || tid < 0 || pid < 0) {
		return false;
	}
	known = vm_int64_table_lookup(processes->pid_of_thread, key);
	if (known && *known == pid) {
		return false;
	}
	vm_int64_table_insert(processes->pid_of_thread, key, vm_int64_box(pid));
	return true;
}

bool vm_processes_learn(struct vm_processes *processes,
		const struct vm_event *event)
{
	bool changed = false;

	switch (event->kind) {
	case VM_EVENT_STATEDUMP_PROCESS:
		changed = set_pid(processes, event->machine,
			event->u.statedump.tid, event->u.statedump.pid);
		break;
	case VM_EVENT_PROCESS_FORK:
		changed = set_pid(processes, event->machine,
			event->u.fork.parent_tid, event->u.fork.parent_pid);
		changed |= set_pid(processes, event->machine,
			event->u.fork.child_tid, event->u.fork.child_pid);
		break;
	default:
		break;
	}
	return changed;
}

int64_t vm_processes_pid_of(const struct vm_processes *processes,
		unsigned int machine, int64_t tid)
{
	const gint64 *pid = vm_int64_table_lookup(processes->pid_of_thread,
		vm_int64_pair(machine, tid));

	return pid ? *pid : tid;
}
