#include <glib.h>
#include <string.h>

#include "prev-state.h"
#include "steal/host-cpus.h"
#include "steal/host-procs.h"
#include "steal/segments.h"
#include "steal/start-victim.h"
#include "steal/steal.h"
#include "threads/guest-threads.h"

/* One guest vCPU, as the host and the guest see it. */
struct steal_vcpu {
	struct vm_steal_vm *vm;
	int64_t id;
	bool preempted;
	int64_t host_tid;       /* -1 unknown */
	/*
	 * The host CPU its thread waits for: set by the runnable switch-out
	 * that precedes the `preempted` mode, moved by migrations, -1 when
	 * not preempted (or not known).
	 */
	int64_t waiting_cpu;
	int64_t victim_tid;     /* -1 unknown (no guest sched_switch yet) */
	const char *victim_comm; /* the guest machine's, not owned */
	guint preempted_index;  /* in `preempted` while preempted */
	struct vm_steal_segments rows;
	/* Its ended rows, held until the guest tells who ran since the start. */
	struct vm_steal_start_victim start;
	bool start_told;        /* the guest CPU's first switch was seen */
	int64_t start_tid;      /* and the thread it says ran before it */
	const char *start_comm;
};

#define VCPU_CACHE_SIZE 32

struct vm_steal_vm {
	struct vm_steal *owner;
	const char *name;       /* interned in the owner's `strings` */
	GHashTable *by_id;      /* vCPU -> struct steal_vcpu (owned) */
	struct steal_vcpu *cache[VCPU_CACHE_SIZE];
};

/* VMs looked up by a scan of `few` rather than by hashing their name. */
#define FEW_VMS 8

struct vm_steal {
	vm_steal_interval_cb cb;
	void *data;
	GHashTable *strings;    /* every name kept, each once (owned) */
	GHashTable *vms;        /* name -> struct vm_steal_vm (owned) */
	struct vm_steal_vm *few[FEW_VMS];
	unsigned int few_count;
	GHashTable *by_host_tid; /* host tid -> struct steal_vcpu (not owned) */
	GPtrArray *preempted;   /* struct steal_vcpu now preempted (not owned) */
	struct vm_steal_host_cpus *cpus;
	struct vm_steal_host_procs *procs;
	/*
	 * The last runnable switch-out of a thread not known as a vCPU thread
	 * yet: filter.vm.state reports the `preempted` mode right after the
	 * sched_switch that caused it, so a vCPU thread's first preemption
	 * finds its CPU here.
	 */
	int64_t last_out_tid;
	int64_t last_out_cpu;
};

static const char *intern(struct vm_steal *steal, const char *s)
{
	const char *interned;

	if (!s) {
		s = "";
	}
	interned = g_hash_table_lookup(steal->strings, s);
	if (!interned) {
		char *copy = g_strdup(s);

		g_hash_table_add(steal->strings, copy);
		interned = copy;
	}
	return interned;
}

static void vcpu_destroy(gpointer data)
{
	struct steal_vcpu *v = data;

	vm_steal_start_victim_fini(&v->start);
	g_free(v);
}

static void vm_destroy(gpointer data)
{
	struct vm_steal_vm *vm = data;

	g_hash_table_destroy(vm->by_id);
	g_free(vm);
}

struct vm_steal *vm_steal_create(vm_steal_interval_cb cb, void *data)
{
	struct vm_steal *steal = g_new0(struct vm_steal, 1);

	steal->cb = cb;
	steal->data = data;
	steal->strings = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	steal->vms = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, vm_destroy);
	steal->by_host_tid = g_hash_table_new(g_int64_hash, g_int64_equal);
	steal->preempted = g_ptr_array_new();
	steal->cpus = vm_steal_host_cpus_create();
	steal->procs = vm_steal_host_procs_create();
	steal->last_out_tid = -1;
	return steal;
}

void vm_steal_destroy(struct vm_steal *steal)
{
	if (!steal) {
		return;
	}
	g_hash_table_destroy(steal->by_host_tid);
	g_ptr_array_unref(steal->preempted);
	g_hash_table_destroy(steal->vms);
	vm_steal_host_cpus_destroy(steal->cpus);
	vm_steal_host_procs_destroy(steal->procs);
	/* Last: the VMs, the procs and the rows point into it. */
	g_hash_table_destroy(steal->strings);
	g_free(steal);
}

struct vm_steal_vm *vm_steal_vm_of(struct vm_steal *steal, const char *name)
{
	struct vm_steal_vm *vm;

	for (unsigned int i = 0; i < steal->few_count; i++) {
		if (strcmp(steal->few[i]->name, name) == 0) {
			return steal->few[i];
		}
	}
	vm = g_hash_table_lookup(steal->vms, name);
	if (vm) {
		return vm;
	}
	vm = g_new0(struct vm_steal_vm, 1);
	vm->owner = steal;
	vm->name = intern(steal, name);
	vm->by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, vcpu_destroy);
	g_hash_table_insert(steal->vms, (gpointer) vm->name, vm);
	if (steal->few_count < FEW_VMS) {
		steal->few[steal->few_count++] = vm;
	}
	return vm;
}

static struct steal_vcpu *vcpu_get(struct vm_steal_vm *vm, int64_t id)
{
	struct steal_vcpu **cached = &vm->cache[(uint64_t) id % VCPU_CACHE_SIZE];
	struct steal_vcpu *v;

	if (*cached && (*cached)->id == id) {
		return *cached;
	}
	v = g_hash_table_lookup(vm->by_id, &id);
	if (!v) {
		v = g_new0(struct steal_vcpu, 1);
		v->vm = vm;
		v->id = id;
		v->host_tid = -1;
		v->waiting_cpu = -1;
		v->victim_tid = -1;
		v->victim_comm = "";
		vm_steal_start_victim_init(&v->start);
		g_hash_table_insert(vm->by_id, &v->id, v);
	}
	*cached = v;
	return v;
}

/* A row ended: its culprit is named now, when the host's threads are known. */
static void emit_row(const struct vm_steal_key *key, int64_t begin, int64_t end,
		void *data)
{
	struct steal_vcpu *v = data;
	struct vm_steal *steal = v->vm->owner;
	struct vm_steal_culprit culprit =
		vm_steal_host_procs_classify(steal->procs, key->culprit_tid);
	bool named = key->culprit_tid > 0;
	struct vm_steal_interval iv = {
		.machine = v->vm->name,
		.vcpu = v->id,
		.tid = key->victim_tid,
		.comm = key->victim_comm,
		.begin_ns = begin,
		.end_ns = end,
		.pcpu = key->pcpu,
		.culprit_kind = vm_steal_culprit_kind_name(culprit.kind),
		.culprit_machine = culprit.machine,
		.culprit_vcpu = culprit.vcpu,
		.culprit_tid = named ? key->culprit_tid : -1,
		.culprit_comm = named ? key->culprit_comm : NULL,
	};

	steal->cb(&iv, steal->data);
}

/* A row of the vCPU's segments ended: it waits for the start's victim first. */
static void row_ended(const struct vm_steal_key *key, int64_t begin, int64_t end,
		void *data)
{
	struct steal_vcpu *v = data;

	vm_steal_start_victim_row(&v->start, key, begin, end, emit_row, v);
}

/* What vCPU `v` is in from `ts` on: a row's key, or not preempted. */
static void refresh(struct vm_steal *steal, struct steal_vcpu *v, int64_t ts)
{
	struct vm_steal_key key = { .culprit_tid = -1, .culprit_comm = "" };
	const struct vm_steal_host_thread *current;

	if (!v->preempted) {
		vm_steal_segments_set(&v->rows, ts, NULL, row_ended, v);
		return;
	}
	key.victim_tid = v->victim_tid;
	key.victim_comm = v->victim_tid > 0 ? intern(steal, v->victim_comm) : "";
	key.pcpu = v->waiting_cpu;
	current = vm_steal_host_cpus_current(steal->cpus, v->waiting_cpu);
	if (current->tid >= 0) {
		key.culprit_tid = current->tid;
		key.culprit_comm = current->tid > 0 ? intern(steal, current->comm) : "";
	}
	vm_steal_segments_set(&v->rows, ts, &key, row_ended, v);
}

/* The preempted vCPUs waiting for `cpu` (every one for -1): their culprit changed. */
static void refresh_waiting_on(struct vm_steal *steal, int64_t cpu, int64_t ts)
{
	for (guint i = 0; i < steal->preempted->len; i++) {
		struct steal_vcpu *v = g_ptr_array_index(steal->preempted, i);

		if (cpu < 0 || v->waiting_cpu == cpu) {
			refresh(steal, v, ts);
		}
	}
}

static void set_preempted(struct vm_steal *steal, struct steal_vcpu *v, bool preempted)
{
	if (v->preempted == preempted) {
		return;
	}
	v->preempted = preempted;
	if (preempted) {
		v->preempted_index = steal->preempted->len;
		g_ptr_array_add(steal->preempted, v);
		return;
	}
	/* Swap-remove: the last one takes its place. */
	g_ptr_array_remove_index_fast(steal->preempted, v->preempted_index);
	if (v->preempted_index < steal->preempted->len) {
		((struct steal_vcpu *) g_ptr_array_index(steal->preempted,
			v->preempted_index))->preempted_index = v->preempted_index;
	}
}

/* The vCPU's host thread is `host_tid`: a culprit of that name is that vCPU. */
static void set_host_tid(struct vm_steal *steal, struct steal_vcpu *v, int64_t host_tid)
{
	if (host_tid < 0 || host_tid == v->host_tid) {
		return;
	}
	if (v->host_tid >= 0 && g_hash_table_lookup(steal->by_host_tid, &v->host_tid) == v) {
		g_hash_table_remove(steal->by_host_tid, &v->host_tid);
	}
	v->host_tid = host_tid;
	g_hash_table_insert(steal->by_host_tid, &v->host_tid, v);
	vm_steal_host_procs_set_vcpu(steal->procs, host_tid, v->vm->name, v->id);
}

void vm_steal_vcpu_state(struct vm_steal *steal, struct vm_steal_vm *vm, int64_t ts,
		int64_t vcpu, bool preempted, int64_t host_tid)
{
	struct steal_vcpu *v = vcpu_get(vm, vcpu);

	set_host_tid(steal, v, host_tid);
	if (preempted && !v->preempted && v->waiting_cpu < 0 &&
			v->host_tid >= 0 && v->host_tid == steal->last_out_tid) {
		v->waiting_cpu = steal->last_out_cpu;
	}
	if (!preempted) {
		v->waiting_cpu = -1;
	}
	set_preempted(steal, v, preempted);
	refresh(steal, v, ts);
}

void vm_steal_guest_current(struct vm_steal *steal, struct vm_steal_vm *vm,
		int64_t ts, int64_t cpu, int64_t tid, const char *comm)
{
	struct steal_vcpu *v = vcpu_get(vm, cpu);

	if (ts == VM_THREADS_SINCE_START) {
		/* Told right before the switch's own change, which ends the open row. */
		v->start_told = true;
		v->start_tid = tid;
		v->start_comm = tid > 0 && comm ? intern(steal, comm) : "";
		return;
	}
	v->victim_tid = tid < 0 ? -1 : tid;
	v->victim_comm = comm ? comm : "";
	if (v->preempted) {
		refresh(steal, v, ts);
	}
	/* The rows before this change are all ended (or held) now. */
	if (v->start_told) {
		vm_steal_start_victim_resolve(&v->start, v->start_tid, v->start_comm, ts,
			emit_row, v);
	} else {
		vm_steal_start_victim_give_up(&v->start, emit_row, v);
	}
	v->start_told = false;
}

void vm_steal_forget_guest(struct vm_steal *steal, struct vm_steal_vm *vm)
{
	GHashTableIter iter;
	gpointer value;

	(void) steal;
	g_hash_table_iter_init(&iter, vm->by_id);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct steal_vcpu *v = value;

		v->victim_tid = -1;
		v->victim_comm = "";
	}
}

static void on_switch(struct vm_steal *steal, const struct vm_event *ev)
{
	int64_t prev_tid = ev->u.sched_switch.prev_tid;

	if (prev_tid > 0 && vm_prev_state_is_runnable(ev->u.sched_switch.prev_state)) {
		struct steal_vcpu *v = g_hash_table_lookup(steal->by_host_tid, &prev_tid);

		if (v) {
			v->waiting_cpu = ev->cpu;
		} else {
			steal->last_out_tid = prev_tid;
			steal->last_out_cpu = ev->cpu;
		}
	}
	vm_steal_host_cpus_switch(steal->cpus, ev->cpu, ev->u.sched_switch.next_tid,
		ev->u.sched_switch.next_comm);
	refresh_waiting_on(steal, ev->cpu, ev->ts);
}

static void on_migrate(struct vm_steal *steal, const struct vm_event *ev)
{
	int64_t tid = ev->u.migrate.tid;
	struct steal_vcpu *v = g_hash_table_lookup(steal->by_host_tid, &tid);

	if (tid == steal->last_out_tid && ev->u.migrate.dest_cpu >= 0) {
		steal->last_out_cpu = ev->u.migrate.dest_cpu;
	}
	/* Only a thread that waits has a waiting CPU to move. */
	if (!v || ev->u.migrate.dest_cpu < 0 || (!v->preempted && v->waiting_cpu < 0)) {
		return;
	}
	v->waiting_cpu = ev->u.migrate.dest_cpu;
	if (v->preempted) {
		refresh(steal, v, ev->ts);
	}
}

static void on_loss(struct vm_steal *steal, const struct vm_event *ev)
{
	if (ev->cpu == VM_FIELD_MISSING) {
		vm_steal_host_cpus_lose_all(steal->cpus);
		refresh_waiting_on(steal, -1, ev->ts);
		return;
	}
	if (ev->cpu < 0) {
		return;
	}
	vm_steal_host_cpus_lose(steal->cpus, ev->cpu);
	refresh_waiting_on(steal, ev->cpu, ev->ts);
}

bool vm_steal_needs_fields(enum vm_event_kind kind)
{
	switch (kind) {
	case VM_EVENT_SCHED_SWITCH:
	case VM_EVENT_SCHED_MIGRATE:
	case VM_EVENT_PROCESS_FORK:
	case VM_EVENT_STATEDUMP_PROCESS:
	case VM_EVENT_LOSS:
		return true;
	default:
		return false;
	}
}

void vm_steal_host_event(struct vm_steal *steal, const struct vm_event *ev)
{
	switch (ev->kind) {
	case VM_EVENT_SCHED_SWITCH:
		if (ev->cpu >= 0 && ev->u.sched_switch.next_tid != VM_FIELD_MISSING) {
			on_switch(steal, ev);
		}
		break;
	case VM_EVENT_SCHED_MIGRATE:
		if (ev->u.migrate.tid != VM_FIELD_MISSING &&
				ev->u.migrate.dest_cpu != VM_FIELD_MISSING) {
			on_migrate(steal, ev);
		}
		break;
	case VM_EVENT_PROCESS_FORK:
	case VM_EVENT_STATEDUMP_PROCESS:
		vm_steal_host_procs_learn(steal->procs, ev);
		break;
	case VM_EVENT_LOSS:
		on_loss(steal, ev);
		break;
	default:
		break;
	}
}

static gint compare_vcpus(gconstpointer a, gconstpointer b)
{
	const struct steal_vcpu *x = *(const struct steal_vcpu *const *) a;
	const struct steal_vcpu *y = *(const struct steal_vcpu *const *) b;
	int by_vm = strcmp(x->vm->name, y->vm->name);

	if (by_vm) {
		return by_vm;
	}
	return (x->id > y->id) - (x->id < y->id);
}

void vm_steal_finish(struct vm_steal *steal, int64_t end_ts)
{
	GPtrArray *all = g_ptr_array_new();
	GHashTableIter vm_iter, iter;
	gpointer vm, v;

	/* By VM and vCPU, so that the output does not depend on hash order. */
	g_hash_table_iter_init(&vm_iter, steal->vms);
	while (g_hash_table_iter_next(&vm_iter, NULL, &vm)) {
		g_hash_table_iter_init(&iter, ((struct vm_steal_vm *) vm)->by_id);
		while (g_hash_table_iter_next(&iter, NULL, &v)) {
			g_ptr_array_add(all, v);
		}
	}
	g_ptr_array_sort(all, compare_vcpus);
	for (guint i = 0; i < all->len; i++) {
		struct steal_vcpu *one = g_ptr_array_index(all, i);

		vm_steal_segments_end(&one->rows, end_ts, row_ended, one);
		vm_steal_start_victim_end(&one->start, emit_row, one);
	}
	g_ptr_array_unref(all);
}
