#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "steal/steal.h"
#include "util/time-span.h"
#include "containers/containers.h"
#include "threads/exit-stats.h"
#include "threads/guest-threads.h"
#include "threads/role-gate.h"
#include "threads/threads.h"
#include "threads/vcpus.h"
#include "util/warn-once.h"

struct machine_slot {
	struct vm_threads *owner;
	enum vm_threads_role role;
	struct vm_threads_machine *threads;
	struct vm_threads_role_gate *gate;
	/* The role came from correlate's vm_role: kvm events do not change it. */
	bool role_given;
	/* what its tracer lost (machine: the name its threads carry) */
	struct vm_machine_losses losses;
	/* its vCPUs in the steal analysis, when it runs (NULL otherwise) */
	struct vm_steal_vm *steal_vm;
};

/* ISA of the last kvm_exit of a host CPU, for the names of exit reasons. */
struct cpu_isa {
	int64_t cpu;
	int isa;
};

/* Direct-mapped caches in front of the per-event lookups. */
#define ISA_CACHE_SIZE 64
#define GUEST_CACHE_SIZE 4

struct vm_threads {
	struct vm_threads_callbacks cb;
	GPtrArray *machines;        /* index -> struct machine_slot, NULL holes */
	GHashTable *machine_by_name; /* name -> struct machine_slot (not owned) */
	struct vm_threads_exit_stats *exits;
	struct vm_threads_vcpus *vcpus;
	/* who took the time of preempted vCPUs; NULL when not wanted */
	struct vm_steal *steal;
	GHashTable *exit_isa;       /* host CPU -> struct cpu_isa */
	/* entries of `exit_isa` (never removed), by host CPU modulo the size */
	struct cpu_isa *isa_cache[ISA_CACHE_SIZE];
	/* machines lately named by vm:vcpu_state (slots are never removed) */
	struct machine_slot *guest_cache[GUEST_CACHE_SIZE];
	unsigned int guest_cache_next;
	struct vm_warn_once *warned;
	/* VM names of vm:vcpu_state events that named no machine when seen */
	GHashTable *unmatched_vms;
	/* some kvm or vm:vcpu_state event was seen */
	bool host_seen;
	bool any_event;
	int64_t last_ts;
	/* containers: the threads' PID namespaces (lib/containers) */
	struct vm_containers *containers;
};

static void slot_destroy(gpointer data)
{
	struct machine_slot *slot = data;

	if (!slot) {
		return;
	}
	vm_threads_machine_destroy(slot->threads);
	vm_threads_role_gate_destroy(slot->gate);
	g_free(slot);
}

static void forward_vcpu_interval(const struct vm_vcpu_interval *iv, void *data)
{
	struct vm_threads *threads = data;

	threads->cb.vcpu_interval(iv, threads->cb.data);
}

struct vm_threads *vm_threads_create(const struct vm_threads_callbacks *cb)
{
	struct vm_threads *threads = g_new0(struct vm_threads, 1);

	threads->cb = *cb;
	threads->machines = g_ptr_array_new_with_free_func(slot_destroy);
	threads->machine_by_name = g_hash_table_new(g_str_hash, g_str_equal);
	threads->exits = cb->exit_stat ? vm_threads_exit_stats_create() : NULL;
	threads->vcpus = vm_threads_vcpus_create(
		cb->vcpu_interval ? forward_vcpu_interval : NULL, threads, threads->exits);
	threads->exit_isa = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	threads->warned = vm_warn_once_create();
	if (cb->steal_interval) {
		threads->steal = vm_steal_create(cb->steal_interval, cb->data);
	}
	threads->unmatched_vms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	threads->containers = vm_containers_create(); /* containers */
	return threads;
}

void vm_threads_destroy(struct vm_threads *threads)
{
	if (!threads) {
		return;
	}
	g_hash_table_destroy(threads->machine_by_name);
	g_ptr_array_unref(threads->machines);
	vm_threads_vcpus_destroy(threads->vcpus);
	vm_steal_destroy(threads->steal);
	vm_threads_exit_stats_destroy(threads->exits);
	g_hash_table_destroy(threads->exit_isa);
	vm_warn_once_destroy(threads->warned);
	g_hash_table_destroy(threads->unmatched_vms);
	vm_containers_destroy(threads->containers); /* containers */
	g_free(threads);
}

static void warn_once(struct vm_threads *threads, const char *kind, const char *machine,
		const char *message)
{
	if (vm_warn_once_first(threads->warned, kind, machine)) {
		threads->cb.warning(kind, machine, message, threads->cb.data);
	}
}

static void machine_warning(const char *kind, const char *machine, const char *message,
		void *data)
{
	struct machine_slot *slot = data;

	warn_once(slot->owner, kind, machine, message);
}

static void machine_interval(const struct vm_thread_interval *iv, void *data)
{
	struct machine_slot *slot = data;

	switch (slot->role) {
	case VM_THREADS_ROLE_GUEST:
		slot->owner->cb.thread_interval(iv, slot->owner->cb.data);
		break;
	case VM_THREADS_ROLE_UNKNOWN:
		vm_threads_role_gate_hold(slot->gate, iv);
		break;
	case VM_THREADS_ROLE_HOST:
		/* Host threads are not guest threads. */
		break;
	}
}

/* A guest CPU (= vCPU) runs another thread: the victim of its steal. */
static void machine_cpu_current(int64_t ts, int64_t cpu, int64_t tid, const char *comm,
		void *data)
{
	struct machine_slot *slot = data;

	if (slot->role != VM_THREADS_ROLE_HOST) {
		vm_steal_guest_current(slot->owner->steal, slot->steal_vm, ts, cpu, tid, comm);
	}
}

static void become_guest(struct machine_slot *slot)
{
	struct vm_threads *owner = slot->owner;

	if (slot->role != VM_THREADS_ROLE_UNKNOWN) {
		return;
	}
	slot->role = VM_THREADS_ROLE_GUEST;
	vm_threads_role_gate_release(slot->gate, false, owner->cb.thread_interval,
		owner->cb.data);
}

static void become_host(struct machine_slot *slot)
{
	struct vm_threads *owner = slot->owner;
	const char *name = vm_threads_machine_name(slot->threads);

	if (slot->role == VM_THREADS_ROLE_HOST) {
		return;
	}
	if (slot->role == VM_THREADS_ROLE_GUEST) {
		warn_once(owner, "guest-turns-host", name,
			"this machine has kvm events but was taken for a guest until now: its "
			"threads are no longer reported from here on");
	}
	slot->role = VM_THREADS_ROLE_HOST;
	/* Its threads are never reported: do not keep them. */
	if (slot->steal_vm) {
		vm_steal_forget_guest(owner->steal, slot->steal_vm);
	}
	vm_threads_role_gate_drop(slot->gate);
	vm_threads_machine_forget(slot->threads);
	/* SPEC: once the host is known, all other machines are guests. */
	for (guint i = 0; i < owner->machines->len; i++) {
		struct machine_slot *other = g_ptr_array_index(owner->machines, i);

		if (other && other != slot) {
			become_guest(other);
		}
	}
}

static bool some_host_known(const struct vm_threads *threads)
{
	for (guint i = 0; i < threads->machines->len; i++) {
		const struct machine_slot *slot = g_ptr_array_index(threads->machines, i);

		if (slot && slot->role == VM_THREADS_ROLE_HOST) {
			return true;
		}
	}
	return false;
}

void vm_threads_add_machine(struct vm_threads *threads, unsigned int index,
		const char *name, enum vm_threads_role role)
{
	struct vm_threads_machine_callbacks mcb = {
		.interval = machine_interval,
		.warning = machine_warning,
	};
	struct machine_slot *slot;

	if (index < threads->machines->len && g_ptr_array_index(threads->machines, index)) {
		return;
	}
	if (index >= threads->machines->len) {
		g_ptr_array_set_size(threads->machines, (gint) index + 1);
	}
	slot = g_new0(struct machine_slot, 1);
	slot->owner = threads;
	mcb.data = slot;
	if (threads->steal) {
		slot->steal_vm = vm_steal_vm_of(threads->steal, name);
		mcb.cpu_current = machine_cpu_current;
	}
	slot->threads = vm_threads_machine_create(name, threads->vcpus, &mcb);
	slot->gate = vm_threads_role_gate_create();
	vm_containers_add_machine(threads->containers, index, name); /* containers */
	g_ptr_array_index(threads->machines, index) = slot;
	g_hash_table_insert(threads->machine_by_name,
		(gpointer) vm_threads_machine_name(slot->threads), slot);
	/* The name may now stand for this machine: forget what was cached. */
	memset(threads->guest_cache, 0, sizeof(threads->guest_cache));
	slot->role_given = role != VM_THREADS_ROLE_UNKNOWN;
	if (role == VM_THREADS_ROLE_HOST) {
		threads->host_seen = true;
		become_host(slot);
	} else if (role == VM_THREADS_ROLE_GUEST || some_host_known(threads)) {
		become_guest(slot);
	}
	/* A VM that filter.vm.state named already: a guest by its host rule. */
	if (role != VM_THREADS_ROLE_HOST &&
			g_hash_table_contains(threads->unmatched_vms, name)) {
		become_guest(slot);
		slot->role_given = true;
	}
}

static struct machine_slot *machine_slot(struct vm_threads *threads, unsigned int index)
{
	if (index >= threads->machines->len || !g_ptr_array_index(threads->machines, index)) {
		/* The caller did not name it: still analyse it under a made-up name. */
		char *name = g_strdup_printf("machine-%u", index);

		vm_threads_add_machine(threads, index, name, VM_THREADS_ROLE_UNKNOWN);
		g_free(name);
	}
	return g_ptr_array_index(threads->machines, index);
}

static struct cpu_isa *cpu_isa_find(struct vm_threads *threads, int64_t cpu)
{
	struct cpu_isa **cached = &threads->isa_cache[(uint64_t) cpu % ISA_CACHE_SIZE];

	if (!*cached || (*cached)->cpu != cpu) {
		struct cpu_isa *entry = g_hash_table_lookup(threads->exit_isa, &cpu);

		if (!entry) {
			return NULL;
		}
		*cached = entry;
	}
	return *cached;
}

static void remember_exit_isa(struct vm_threads *threads, const struct vm_event *ev)
{
	struct cpu_isa *entry;

	if (ev->cpu == VM_FIELD_MISSING) {
		return;
	}
	entry = cpu_isa_find(threads, ev->cpu);
	if (!entry) {
		entry = g_new0(struct cpu_isa, 1);
		entry->cpu = ev->cpu;
		g_hash_table_insert(threads->exit_isa, &entry->cpu, entry);
		threads->isa_cache[(uint64_t) entry->cpu % ISA_CACHE_SIZE] = entry;
	}
	/* SPEC: VMX when the isa field is absent. */
	entry->isa = ev->u.kvm_exit.isa == VM_FIELD_MISSING ? 1 : (int) ev->u.kvm_exit.isa;
}

static int exit_isa_on(struct vm_threads *threads, int64_t pcpu)
{
	struct cpu_isa *entry = cpu_isa_find(threads, pcpu);

	return entry ? entry->isa : 1;
}

/* The machine named `vm`, or NULL. */
static struct machine_slot *guest_named(struct vm_threads *threads, const char *vm)
{
	struct machine_slot *slot;

	for (unsigned int i = 0; i < GUEST_CACHE_SIZE; i++) {
		slot = threads->guest_cache[i];
		if (slot && strcmp(vm_threads_machine_name(slot->threads), vm) == 0) {
			return slot;
		}
	}
	slot = g_hash_table_lookup(threads->machine_by_name, vm);
	if (slot) {
		threads->guest_cache[threads->guest_cache_next] = slot;
		threads->guest_cache_next = (threads->guest_cache_next + 1) % GUEST_CACHE_SIZE;
	}
	return slot;
}

static void on_vcpu_state(struct vm_threads *threads, const struct vm_event *ev)
{
	const char *vm = ev->u.vcpu_state.vm;
	struct vm_threads_vcpu_status status = {
		.reason = ev->u.vcpu_state.exit_reason,
		.host_tid = ev->u.vcpu_state.host_tid,
		.pcpu = ev->u.vcpu_state.pcpu,
	};
	struct machine_slot *guest;
	struct vm_threads_vcpus_vm *of_vm = NULL;

	if (!vm || !vm[0] || !vm_vcpu_id_valid(ev->u.vcpu_state.vcpu)) {
		warn_once(threads, "bad-vcpu-state", vm, "vm:vcpu_state event without a VM "
			"name or vCPU number: such events are ignored");
		return;
	}
	if (!vm_vcpu_mode_from_name(ev->u.vcpu_state.mode, &status.mode)) {
		warn_once(threads, "bad-vcpu-mode", vm, "vm:vcpu_state event with a mode "
			"other than unknown, guest, hypervisor, preempted or blocked: such "
			"events are ignored");
		return;
	}
	/*
	 * The start of the trace has no vm:vcpu_state event: an explicit
	 * `unknown` says that filter.vm.state lost track (host losses).
	 */
	status.lost = status.mode == VM_VCPU_UNKNOWN;
	if (status.reason == VM_FIELD_MISSING) {
		status.reason = -1;
	}
	if (status.host_tid == VM_FIELD_MISSING) {
		status.host_tid = -1;
	}
	if (status.pcpu == VM_FIELD_MISSING) {
		status.pcpu = -1;
	}
	/* One lookup by name: the machine keeps its VM's handle. */
	guest = guest_named(threads, vm);
	if (guest) {
		of_vm = vm_threads_machine_vcpus(guest->threads);
	}
	if (!of_vm) {
		of_vm = vm_threads_vcpus_get_vm(threads->vcpus, vm);
	}
	vm_threads_vcpus_change(threads->vcpus, of_vm, ev->ts, ev->u.vcpu_state.vcpu,
		&status, exit_isa_on(threads, status.pcpu));
	if (threads->steal) {
		vm_steal_vcpu_state(threads->steal, guest && guest->steal_vm ? guest->steal_vm :
			vm_steal_vm_of(threads->steal, vm), ev->ts, ev->u.vcpu_state.vcpu,
			status.mode == VM_VCPU_PREEMPTED, status.host_tid);
	}
	if (guest && guest->role != VM_THREADS_ROLE_HOST) {
		/*
		 * filter.vm.state applied the host rule: the VM it names is a
		 * guest, whatever kvm events its own trace has.
		 */
		become_guest(guest);
		guest->role_given = true;
	}
	if (!guest) {
		/* Its trace may just not have had an event yet. */
		if (!g_hash_table_contains(threads->unmatched_vms, vm)) {
			g_hash_table_add(threads->unmatched_vms, g_strdup(vm));
		}
		return;
	}
	become_guest(guest);
	vm_threads_machine_vcpu_changed(guest->threads, ev->ts, ev->u.vcpu_state.vcpu);
}

static void count_loss(struct vm_machine_losses *losses, const struct vm_event *ev)
{
	bool uncounted = ev->u.loss.count < 0;
	uint64_t count = uncounted ? 0 : (uint64_t) ev->u.loss.count;

	if (ev->u.loss.packets) {
		losses->packets += count;
		losses->packets_uncounted |= uncounted;
	} else {
		losses->events += count;
		losses->events_uncounted |= uncounted;
	}
	losses->gaps++;
	if (ev->u.loss.end > ev->ts) {
		losses->affected_ns = vm_time_sum(losses->affected_ns,
			vm_time_span(ev->u.loss.end, ev->ts));
	}
}

static void on_loss(struct vm_threads *threads, const struct vm_event *ev)
{
	struct machine_slot *slot = machine_slot(threads, ev->machine);

	count_loss(&slot->losses, ev);
	if (slot->role == VM_THREADS_ROLE_HOST) {
		/*
		 * Host threads are not reported, and the vCPU modes are
		 * filter.vm.state's (its `unknown`); only the exits need care.
		 */
		vm_threads_vcpus_host_loss(threads->vcpus, ev->cpu);
		if (threads->steal) {
			vm_steal_host_event(threads->steal, ev);
		}
		return;
	}
	vm_threads_machine_loss(slot->threads, ev);
}

void vm_threads_feed(struct vm_threads *threads, const struct vm_event *ev)
{
	struct machine_slot *slot;

	vm_containers_feed(threads->containers, ev); /* containers */
	if (ev->kind == VM_EVENT_LOSS) {
		/* Not an event: its time ends nothing. */
		on_loss(threads, ev);
		return;
	}
	if (!threads->any_event || ev->ts > threads->last_ts) {
		threads->last_ts = ev->ts;
	}
	threads->any_event = true;
	switch (ev->kind) {
	case VM_EVENT_VCPU_STATE:
		/* Names its VM itself: the machine of its stream does not matter. */
		threads->host_seen = true;
		on_vcpu_state(threads, ev);
		return;
	case VM_EVENT_KVM_EXIT:
		remember_exit_isa(threads, ev);
		/* fall through */
	case VM_EVENT_KVM_ENTRY:
		slot = machine_slot(threads, ev->machine);
		/* A guest by correlate's host rule (nested, stray events). */
		if (slot->role_given && slot->role == VM_THREADS_ROLE_GUEST) {
			return;
		}
		threads->host_seen = true;
		become_host(slot);
		return;
	case VM_EVENT_OTHER:
		/* Its time only (above): the machines feed on nothing else. */
		machine_slot(threads, ev->machine);
		return;
	default:
		slot = machine_slot(threads, ev->machine);
		if (slot->role != VM_THREADS_ROLE_HOST) {
			vm_threads_machine_feed(slot->threads, ev);
		} else if (threads->steal) {
			/* Who runs on the host's CPUs: the culprits of steal. */
			vm_steal_host_event(threads->steal, ev);
		}
		return;
	}
}

bool vm_threads_needs_fields(const struct vm_threads *threads, unsigned int machine,
		enum vm_event_kind kind)
{
	const struct machine_slot *slot;

	switch (kind) {
	case VM_EVENT_VCPU_STATE:
	case VM_EVENT_KVM_EXIT:
	case VM_EVENT_LOSS:
		return true;
	case VM_EVENT_SCHED_SWITCH:
	case VM_EVENT_SCHED_WAKEUP:
	case VM_EVENT_PROCESS_FORK:
	case VM_EVENT_PROCESS_EXIT:
	case VM_EVENT_PROCESS_FREE:
	case VM_EVENT_STATEDUMP_PROCESS:
	case VM_EVENT_SCHED_MIGRATE:
	case VM_EVENT_STATEDUMP_PID_NS: /* containers */
		/*
		 * What vm_threads_machine_feed() reads, except on the host,
		 * where only the steal analysis reads some.
		 */
		slot = machine < threads->machines->len ?
			g_ptr_array_index(threads->machines, machine) : NULL;
		if (slot && slot->role == VM_THREADS_ROLE_HOST) {
			return threads->steal && vm_steal_needs_fields(kind);
		}
		return kind != VM_EVENT_SCHED_MIGRATE;
	default:
		/* kvm_entry only makes its machine the host; the machines
		 * ignore vmsync and other events. */
		return false;
	}
}

/* A VM that vm:vcpu_state names but no trace is: its threads are missing. */
static void warn_unmatched_vms(struct vm_threads *threads)
{
	GHashTableIter iter;
	gpointer vm;

	g_hash_table_iter_init(&iter, threads->unmatched_vms);
	while (g_hash_table_iter_next(&iter, &vm, NULL)) {
		if (!g_hash_table_contains(threads->machine_by_name, vm)) {
			warn_once(threads, "unknown-vm", vm, "filter.vm.state reports vCPUs of "
				"this VM, but no input trace is a machine of that name: give "
				"its trace too to see its threads");
		}
	}
}

static void report_exit_stat(const struct vm_exit_stat *stat, void *data)
{
	struct vm_threads *threads = data;

	threads->cb.exit_stat(stat, threads->cb.data);
}

static void report_losses(struct vm_threads *threads)
{
	if (!threads->cb.machine_losses) {
		return;
	}
	for (guint i = 0; i < threads->machines->len; i++) {
		struct machine_slot *slot = g_ptr_array_index(threads->machines, i);

		if (!slot || slot->losses.gaps == 0) {
			continue;
		}
		slot->losses.machine = vm_threads_machine_name(slot->threads);
		threads->cb.machine_losses(&slot->losses, threads->cb.data);
	}
}

void vm_threads_finish(struct vm_threads *threads)
{
	int64_t end = threads->last_ts;

	for (guint i = 0; i < threads->machines->len; i++) {
		struct machine_slot *slot = g_ptr_array_index(threads->machines, i);

		if (slot && slot->role != VM_THREADS_ROLE_HOST) {
			vm_threads_machine_finish(slot->threads, end);
		}
	}
	vm_threads_vcpus_finish(threads->vcpus, end);
	if (threads->steal) {
		vm_steal_finish(threads->steal, end);
	}
	for (guint i = 0; i < threads->machines->len; i++) {
		struct machine_slot *slot = g_ptr_array_index(threads->machines, i);

		if (slot) {
			vm_threads_role_gate_release(slot->gate, !threads->host_seen,
				threads->cb.thread_interval, threads->cb.data);
		}
	}
	warn_unmatched_vms(threads);
	report_losses(threads);
	if (threads->any_event && !threads->host_seen) {
		warn_once(threads, "no-host", NULL, "no host found (no kvm_entry / kvm_exit "
			"and no vm:vcpu_state event): thread states are each machine's own "
			"view (running, runnable, blocked); put filter.vm.state before this "
			"sink and give it the host's trace to see what the host did");
	}
	if (threads->exits) {
		vm_threads_exit_stats_foreach(threads->exits, report_exit_stat, threads);
	}
}

bool vm_threads_host_seen(const struct vm_threads *threads)
{
	return threads->host_seen;
}

/* containers */
struct vm_containers *vm_threads_containers(const struct vm_threads *threads)
{
	return threads->containers;
}
