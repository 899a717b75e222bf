#include <glib.h>

#include "steal/host-procs.h"

struct vcpu_thread {
	int64_t tid;
	const char *vm;
	int64_t vcpu;
};

struct vm_steal_host_procs {
	GHashTable *pids;          /* tid -> pid (int64 pairs, owned) */
	GHashTable *vcpu_threads;  /* tid -> struct vcpu_thread (owned) */
	GHashTable *qemu_pids;     /* pid -> VM name (not owned), keys owned */
};

static int64_t *new_int64(int64_t value)
{
	int64_t *p = g_new(int64_t, 1);

	*p = value;
	return p;
}

struct vm_steal_host_procs *vm_steal_host_procs_create(void)
{
	struct vm_steal_host_procs *procs = g_new0(struct vm_steal_host_procs, 1);

	procs->pids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	procs->vcpu_threads = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
		g_free);
	procs->qemu_pids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
		NULL);
	return procs;
}

void vm_steal_host_procs_destroy(struct vm_steal_host_procs *procs)
{
	if (!procs) {
		return;
	}
	g_hash_table_destroy(procs->pids);
	g_hash_table_destroy(procs->vcpu_threads);
	g_hash_table_destroy(procs->qemu_pids);
	g_free(procs);
}

/* The process of a VM's vCPU thread is that VM's QEMU. */
static void note_qemu(struct vm_steal_host_procs *procs, int64_t pid, const char *vm)
{
	if (pid > 0) {
		g_hash_table_insert(procs->qemu_pids, new_int64(pid), (gpointer) vm);
	}
}

void vm_steal_host_procs_set_pid(struct vm_steal_host_procs *procs, int64_t tid,
		int64_t pid)
{
	struct vcpu_thread *v;

	if (tid <= 0 || pid <= 0) {
		return;
	}
	g_hash_table_insert(procs->pids, new_int64(tid), new_int64(pid));
	v = g_hash_table_lookup(procs->vcpu_threads, &tid);
	if (v) {
		note_qemu(procs, pid, v->vm);
	}
}

void vm_steal_host_procs_set_vcpu(struct vm_steal_host_procs *procs, int64_t tid,
		const char *vm, int64_t vcpu)
{
	struct vcpu_thread *v;
	int64_t *pid;

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
	pid = g_hash_table_lookup(procs->pids, &tid);
	if (pid) {
		note_qemu(procs, *pid, vm);
	}
}

/* The VM whose QEMU process thread `tid` belongs to, or NULL. */
static const char *qemu_vm_of(struct vm_steal_host_procs *procs, int64_t tid)
{
	int64_t *pid = g_hash_table_lookup(procs->pids, &tid);
	const char *vm = pid ? g_hash_table_lookup(procs->qemu_pids, pid) : NULL;

	/* Without its pid, a QEMU's main thread is still known: tid = pid. */
	return vm ? vm : g_hash_table_lookup(procs->qemu_pids, &tid);
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
