#include <glib.h>

#include "model/processes.h"
#include "steal/host-procs.h"

struct vcpu_thread {
	int64_t tid;
	const char *vm;
	int64_t vcpu;
};

struct vm_steal_host_procs {
	/* Which process each host thread belongs to (statedump, forks). */
	struct vm_processes *processes;
	unsigned int machine;      /* the host's, as its events give it */
	GHashTable *vcpu_threads;  /* tid -> struct vcpu_thread (owned) */
};

struct vm_steal_host_procs *vm_steal_host_procs_create(void)
{
	struct vm_steal_host_procs *procs = g_new0(struct vm_steal_host_procs, 1);

	procs->processes = vm_processes_create();
	procs->vcpu_threads = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
		g_free);
	return procs;
}

void vm_steal_host_procs_destroy(struct vm_steal_host_procs *procs)
{
	if (!procs) {
		return;
	}
	vm_processes_destroy(procs->processes);
	g_hash_table_destroy(procs->vcpu_threads);
	g_free(procs);
}

void vm_steal_host_procs_learn(struct vm_steal_host_procs *procs, const struct vm_event *ev)
{
	procs->machine = ev->machine;
	vm_processes_learn(procs->processes, ev);
}

void vm_steal_host_procs_set_vcpu(struct vm_steal_host_procs *procs, int64_t tid,
		const char *vm, int64_t vcpu)
{
	struct vcpu_thread *v;

	if (tid <= 0) {
		return;
	}
	v = g_hash_table_lookup(procs->vcpu_threads, &tid);
	if (!v) {
		v = g_new0(struct vcpu_thread, 1);
		v->tid = tid;
		g_hash_table_insert(procs->vcpu_threads, &v->tid, v);
	}
	v->vm = vm;
	v->vcpu = vcpu;
}

static int64_t pid_of(const struct vm_steal_host_procs *procs, int64_t tid)
{
	return vm_processes_pid_of(procs->processes, procs->machine, tid);
}

/*
 * The VM whose QEMU process thread `tid` belongs to, or NULL: the process
 * of one of that VM's vCPU threads. Without its pid, a QEMU's main thread
 * is still known (tid = pid). A few vCPU threads per VM: a scan, once per
 * steal row.
 */
static const char *qemu_vm_of(const struct vm_steal_host_procs *procs, int64_t tid)
{
	int64_t pid = pid_of(procs, tid);
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, procs->vcpu_threads);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct vcpu_thread *v = value;
		int64_t qemu = pid_of(procs, v->tid);

		/* A vCPU thread is never its process's main thread: tid = pid is no pid. */
		if (qemu != v->tid && qemu == pid) {
			return v->vm;
		}
	}
	return NULL;
}

struct vm_steal_culprit vm_steal_host_procs_classify(struct vm_steal_host_procs *procs,
		int64_t tid)
{
	struct vm_steal_culprit c = { .kind = VM_STEAL_CULPRIT_UNKNOWN, .vcpu = -1 };
	struct vcpu_thread *v;

	if (tid < 0) {
		return c;
	}
	if (tid == 0) {
		c.kind = VM_STEAL_CULPRIT_IDLE;
		return c;
	}
	v = g_hash_table_lookup(procs->vcpu_threads, &tid);
	if (v) {
		c.kind = VM_STEAL_CULPRIT_VCPU;
		c.machine = v->vm;
		c.vcpu = v->vcpu;
		return c;
	}
	c.machine = qemu_vm_of(procs, tid);
	c.kind = c.machine ? VM_STEAL_CULPRIT_VMM : VM_STEAL_CULPRIT_HOST;
	return c;
}
