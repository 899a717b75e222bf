#include <glib.h>
#include <stdbool.h>
#include <string.h>

#include "event.h"
#include "util/time-span.h"
#include "threads/vcpus.h"

struct vcpu {
	char *vm;
	int64_t id;

	/* current mode, since `since` */
	struct vm_threads_vcpu_status current;
	int64_t since;

	/*
	 * The last ended interval, kept back one step so that an interval of
	 * the same status that follows a zero-length one merges with it.
	 */
	bool held_valid;
	struct vm_threads_vcpu_status held;
	int64_t held_begin;
	int64_t held_end;

	/* the exit in progress: from its kvm_exit to the next guest mode */
	bool exit_open;
	int64_t exit_reason;
	int64_t exit_begin;
	int exit_isa;
};

/* Direct-mapped, by vCPU id: most VMs have fewer vCPUs than slots. */
#define VCPU_CACHE_SIZE 32

/* The vCPUs of one VM. */
struct vm_threads_vcpus_vm {
	const char *name;   /* its key in `by_vm` */
	GHashTable *by_id;  /* vCPU id -> struct vcpu (owned) */
	struct vcpu *recent[VCPU_CACHE_SIZE];
};

/* VMs looked up by a scan of `vms` rather than by hashing their name. */
#define FEW_VMS 8

struct vm_threads_vcpus {
	vm_threads_vcpu_interval_cb cb;
	void *data;
	struct vm_threads_exit_stats *exits;
	/* VM name -> struct vm_threads_vcpus_vm (both owned) */
	GHashTable *by_vm;
	/* the first FEW_VMS VMs (not owned), with their names (the keys) */
	struct vm_threads_vcpus_vm *vms[FEW_VMS];
	const char *vm_names[FEW_VMS];
	unsigned int vm_count;
};

static void vcpu_destroy(gpointer data)
{
	struct vcpu *v = data;

	g_free(v->vm);
	g_free(v);
}

static void vcpu_vm_destroy(gpointer data)
{
	struct vm_threads_vcpus_vm *of_vm = data;

	g_hash_table_destroy(of_vm->by_id);
	g_free(of_vm);
}

struct vm_threads_vcpus *vm_threads_vcpus_create(vm_threads_vcpu_interval_cb cb,
		void *data, struct vm_threads_exit_stats *exits)
{
	struct vm_threads_vcpus *vcpus = g_new0(struct vm_threads_vcpus, 1);

	vcpus->cb = cb;
	vcpus->data = data;
	vcpus->exits = exits;
	vcpus->by_vm = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		vcpu_vm_destroy);
	return vcpus;
}

void vm_threads_vcpus_destroy(struct vm_threads_vcpus *vcpus)
{
	if (!vcpus) {
		return;
	}
	g_hash_table_destroy(vcpus->by_vm);
	g_free(vcpus);
}

static const struct vm_threads_vcpu_status unknown_status = {
	.mode = VM_VCPU_UNKNOWN, .reason = -1, .host_tid = -1, .pcpu = -1,
	.isa = 0,
};

struct vm_threads_vcpus_vm *vm_threads_vcpus_find_vm(struct vm_threads_vcpus *vcpus,
		const char *vm)
{
	for (unsigned int i = 0; i < vcpus->vm_count; i++) {
		if (strcmp(vcpus->vm_names[i], vm) == 0) {
			return vcpus->vms[i];
		}
	}
	if (vcpus->vm_count < FEW_VMS) {
		return NULL;
	}
	return g_hash_table_lookup(vcpus->by_vm, vm);
}

static struct vcpu *vcpu_find(struct vm_threads_vcpus_vm *of_vm, int64_t id)
{
	struct vcpu **cached = &of_vm->recent[(uint64_t) id % VCPU_CACHE_SIZE];

	if (!*cached || (*cached)->id != id) {
		struct vcpu *v = g_hash_table_lookup(of_vm->by_id, &id);

		if (!v) {
			return NULL;
		}
		*cached = v;
	}
	return *cached;
}

struct vm_threads_vcpus_vm *vm_threads_vcpus_get_vm(struct vm_threads_vcpus *vcpus,
		const char *vm)
{
	struct vm_threads_vcpus_vm *of_vm = vm_threads_vcpus_find_vm(vcpus, vm);
	char *name;

	if (of_vm) {
		return of_vm;
	}
	name = g_strdup(vm);
	of_vm = g_new0(struct vm_threads_vcpus_vm, 1);
	of_vm->name = name;
	of_vm->by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
		vcpu_destroy);
	g_hash_table_insert(vcpus->by_vm, name, of_vm);
	if (vcpus->vm_count < FEW_VMS) {
		vcpus->vms[vcpus->vm_count] = of_vm;
		vcpus->vm_names[vcpus->vm_count] = name;
		vcpus->vm_count++;
	}
	return of_vm;
}

static struct vcpu *vcpu_get(struct vm_threads_vcpus_vm *of_vm, int64_t id, int64_t ts)
{
	struct vcpu *v = vcpu_find(of_vm, id);

	if (v) {
		return v;
	}
	v = g_new0(struct vcpu, 1);
	v->vm = g_strdup(of_vm->name);
	v->id = id;
	v->current = unknown_status;
	v->since = ts;
	g_hash_table_insert(of_vm->by_id, &v->id, v);
	return v;
}

struct vm_threads_vcpu_status vm_threads_vcpus_status(struct vm_threads_vcpus_vm *of_vm,
		int64_t vcpu)
{
	struct vcpu *v = of_vm ? vcpu_find(of_vm, vcpu) : NULL;

	return v ? v->current : unknown_status;
}

static bool status_equal(const struct vm_threads_vcpu_status *a,
		const struct vm_threads_vcpu_status *b)
{
	return a->mode == b->mode && a->reason == b->reason &&
		a->host_tid == b->host_tid && a->pcpu == b->pcpu && a->isa == b->isa &&
		a->lost == b->lost;
}

static void emit(struct vm_threads_vcpus *vcpus, const struct vcpu *v,
		const struct vm_threads_vcpu_status *status, int64_t begin, int64_t end)
{
	struct vm_vcpu_interval iv = {
		.machine = v->vm,
		.vcpu = v->id,
		.mode = vm_vcpu_mode_name(status->mode),
		.begin_ns = begin,
		.end_ns = end,
		.host_tid = status->host_tid,
		.pcpu = status->pcpu,
		.reason = status->reason,
		.isa = status->isa,
	};

	/* SPEC: no rows for unknown periods. */
	if (status->mode != VM_VCPU_UNKNOWN && vcpus->cb) {
		vcpus->cb(&iv, vcpus->data);
	}
}

static void emit_held(struct vm_threads_vcpus *vcpus, struct vcpu *v)
{
	if (v->held_valid) {
		emit(vcpus, v, &v->held, v->held_begin, v->held_end);
	}
	v->held_valid = false;
}

static void close_current(struct vm_threads_vcpus *vcpus, struct vcpu *v, int64_t ts)
{
	if (ts <= v->since) {
		return;
	}
	emit_held(vcpus, v);
	v->held_valid = true;
	v->held = v->current;
	v->held_begin = v->since;
	v->held_end = ts;
}

static void open_current(struct vcpu *v, const struct vm_threads_vcpu_status *status,
		int64_t ts)
{
	if (v->held_valid && v->held_end == ts && status_equal(&v->held, status)) {
		/* Reopen the held interval: nothing real happened in between. */
		v->current = v->held;
		v->since = v->held_begin;
		v->held_valid = false;
		return;
	}
	v->current = *status;
	v->since = ts;
}

/*
 * Whether a `hypervisor` change with an exit reason is a kvm_exit: from
 * guest mode, or from a mode nothing is known of (filter.vm.state knows a
 * reason only from a kvm_exit), or with another reason than the exit still
 * open. From `preempted` or `blocked` it is the vCPU thread switched in
 * again in the middle of its exit: when that exit was given up (a loss),
 * the rest of it is no exit of its own.
 */
static bool opens_exit(const struct vcpu *v, const struct vm_threads_vcpu_status *status)
{
	switch (v->current.mode) {
	case VM_VCPU_GUEST:
	case VM_VCPU_UNKNOWN:
		return true;
	case VM_VCPU_HYPERVISOR:
		return !v->exit_open || v->exit_reason != status->reason;
	default:
		return v->exit_open && v->exit_reason != status->reason;
	}
}

static void track_exit(struct vm_threads_vcpus *vcpus, struct vcpu *v, int64_t ts,
		const struct vm_threads_vcpu_status *status, int isa)
{
	if (status->mode == VM_VCPU_UNKNOWN) {
		/*
		 * SPEC, Lost events: the kvm_exit's entry (or the exit itself)
		 * could not be attributed; an exit open across it is not counted.
		 */
		v->exit_open = false;
	} else if (status->mode == VM_VCPU_HYPERVISOR && status->reason >= 0 &&
			opens_exit(v, status)) {
		/* A new kvm_exit; one still open without its kvm_entry is lost. */
		v->exit_open = true;
		v->exit_reason = status->reason;
		v->exit_begin = ts;
		v->exit_isa = isa;
	} else if (status->mode == VM_VCPU_GUEST && v->exit_open) {
		if (vcpus->exits) {
			vm_threads_exit_stats_add(vcpus->exits, v->vm, v->id, v->exit_reason,
				v->exit_isa, vm_time_span(ts, v->exit_begin));
		}
		v->exit_open = false;
	}
}

void vm_threads_vcpus_change(struct vm_threads_vcpus *vcpus,
		struct vm_threads_vcpus_vm *of_vm, int64_t ts, int64_t vcpu,
		const struct vm_threads_vcpu_status *status, int isa)
{
	struct vcpu *v = vcpu_get(of_vm, vcpu, ts);
	struct vm_threads_vcpu_status next = *status;

	track_exit(vcpus, v, ts, status, isa);
	next.isa = 0;
	if (next.mode != VM_VCPU_HYPERVISOR) {
		next.reason = -1;
	} else if (next.reason < 0 && v->exit_open) {
		next.reason = v->exit_reason;
	}
	if (next.reason >= 0 && v->exit_open && next.reason == v->exit_reason) {
		next.isa = v->exit_isa;
	}
	if (status_equal(&v->current, &next)) {
		return;
	}
	close_current(vcpus, v, ts);
	open_current(v, &next, ts);
}

/* Calls `fn` on every vCPU of every VM. */
static void foreach_vcpu(struct vm_threads_vcpus *vcpus,
		void (*fn)(struct vm_threads_vcpus *vcpus, struct vcpu *v, void *data), void *data)
{
	GHashTableIter vm_iter;
	gpointer of_vm;

	g_hash_table_iter_init(&vm_iter, vcpus->by_vm);
	while (g_hash_table_iter_next(&vm_iter, NULL, &of_vm)) {
		GHashTableIter iter;
		gpointer value;

		g_hash_table_iter_init(&iter, ((struct vm_threads_vcpus_vm *) of_vm)->by_id);
		while (g_hash_table_iter_next(&iter, NULL, &value)) {
			fn(vcpus, value, data);
		}
	}
}

/* `data`: the host CPU that lost events (VM_FIELD_MISSING: none known). */
static void give_up_exit_near_loss(struct vm_threads_vcpus *vcpus, struct vcpu *v, void *data)
{
	int64_t pcpu = *(const int64_t *) data;

	(void) vcpus;
	/*
	 * On that CPU, or on none (preempted, blocked): its thread may have
	 * run there unseen, entering the guest in the middle of the exit.
	 * Only a vCPU seen running on another CPU is out of reach of the gap;
	 * a host stream without cpu_id may concern any vCPU.
	 */
	if (v->exit_open && (pcpu == VM_FIELD_MISSING || v->current.pcpu == pcpu ||
			v->current.pcpu < 0)) {
		v->exit_open = false;
	}
}

void vm_threads_vcpus_host_loss(struct vm_threads_vcpus *vcpus, int64_t pcpu)
{
	if (pcpu < 0 && pcpu != VM_FIELD_MISSING) {
		return;
	}
	/* Losses are rare: a walk over every vCPU costs nothing overall. */
	foreach_vcpu(vcpus, give_up_exit_near_loss, &pcpu);
}

static void finish_vcpu(struct vm_threads_vcpus *vcpus, struct vcpu *v, void *data)
{
	int64_t end_ts = *(const int64_t *) data;

	close_current(vcpus, v, end_ts);
	emit_held(vcpus, v);
	v->current = unknown_status;
	v->since = end_ts;
}

void vm_threads_vcpus_finish(struct vm_threads_vcpus *vcpus, int64_t end_ts)
{
	foreach_vcpu(vcpus, finish_vcpu, &end_ts);
}
