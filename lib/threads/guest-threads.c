#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "prev-state.h"
#include "threads/guest-threads.h"
#include "threads/thread-track.h"

struct guest_thread {
	int64_t tid;
	const char *comm;  /* interned in the machine's `comms` */
	/* No interval before the first sched_switch or wakeup naming it. */
	bool appeared;
	bool on_cpu;
	int64_t cpu;
	/* when not on a CPU: could run (true) or waits (false) */
	bool runnable;
	/* sched_process_exit or _free seen: the tid may be reused */
	bool exited;
	/*
	 * Events that decide its state were lost (SPEC, Lost events): off
	 * any CPU as far as known, `unknown` until a sched_switch names it or
	 * a wakeup of it.
	 */
	bool unknown;
	struct vm_threads_thread_track track;
};

/*
 * Which thread a CPU runs: 0 is the idle thread, TID_UNKNOWN none known
 * (events of the CPU were lost since `unknown_since`, or a contradiction
 * showed that what it runs is not known).
 */
struct cpu_slot {
	int64_t cpu;
	int64_t tid;
	int64_t unknown_since;
	bool switched;          /* a sched_switch was seen on it */
};

#define TID_UNKNOWN INT64_C(-1)

#define CPU_CACHE_SIZE 64
#define THREAD_CACHE_SIZE 256

struct vm_threads_machine {
	char *name;
	struct vm_threads_vcpus *vcpus;
	/* the VM of that name in `vcpus`, once some vm:vcpu_state named it */
	struct vm_threads_vcpus_vm *vcpus_vm;
	struct vm_threads_machine_callbacks cb;
	GHashTable *threads;  /* tid -> struct guest_thread */
	/*
	 * Entries of `threads` by tid modulo the size: every scheduler event
	 * and vCPU mode change looks threads up. Cleared of a thread when it
	 * leaves the table.
	 */
	struct guest_thread *thread_cache[THREAD_CACHE_SIZE];
	GHashTable *cpus;     /* cpu -> struct cpu_slot */
	/* entries of `cpus` by cpu modulo the size (emptied with the table) */
	struct cpu_slot *cpu_cache[CPU_CACHE_SIZE];
	/*
	 * Every thread name seen, each once (owned): threads and their tracks
	 * point into it, so that a name change or a new interval copies nothing.
	 */
	GHashTable *comms;
};

/* What the emit callback of a track needs to build a full record. */
struct emit_context {
	struct vm_threads_machine *m;
	int64_t tid;
};

static void thread_destroy(gpointer data)
{
	struct guest_thread *t = data;

	g_free(t);
}

struct vm_threads_machine *vm_threads_machine_create(const char *name,
		struct vm_threads_vcpus *vcpus,
		const struct vm_threads_machine_callbacks *cb)
{
	struct vm_threads_machine *m = g_new0(struct vm_threads_machine, 1);

	m->name = g_strdup(name);
	m->vcpus = vcpus;
	m->cb = *cb;
	m->threads = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, thread_destroy);
	m->cpus = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	m->comms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return m;
}

void vm_threads_machine_destroy(struct vm_threads_machine *m)
{
	if (!m) {
		return;
	}
	g_hash_table_destroy(m->threads);
	g_hash_table_destroy(m->cpus);
	/* After the threads: their tracks point into it. */
	g_hash_table_destroy(m->comms);
	g_free(m->name);
	g_free(m);
}

const char *vm_threads_machine_name(const struct vm_threads_machine *m)
{
	return m->name;
}

struct vm_threads_vcpus_vm *vm_threads_machine_vcpus(struct vm_threads_machine *m)
{
	/* Looked up by name until found: VMs are never removed. */
	if (!m->vcpus_vm) {
		m->vcpus_vm = vm_threads_vcpus_find_vm(m->vcpus, m->name);
	}
	return m->vcpus_vm;
}

static void warn(struct vm_threads_machine *m, const char *kind, const char *format, ...)
	G_GNUC_PRINTF(3, 4);

static void warn(struct vm_threads_machine *m, const char *kind, const char *format, ...)
{
	va_list args;
	char *message;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	m->cb.warning(kind, m->name, message, m->cb.data);
	g_free(message);
}

static void emit_interval(const struct vm_threads_thread_key *key, int64_t begin,
		int64_t end, const char *comm, void *data)
{
	const struct emit_context *ctx = data;
	struct vm_thread_interval iv = {
		.machine = ctx->m->name,
		.tid = ctx->tid,
		.comm = comm,
		.state = vm_thread_state_name(key->state),
		.begin_ns = begin,
		.end_ns = end,
		.vcpu = key->vcpu,
		.reason = key->reason,
		.isa = key->isa,
	};

	ctx->m->cb.interval(&iv, ctx->m->cb.data);
}

static struct vm_threads_thread_key thread_key(struct vm_threads_machine *m,
		const struct guest_thread *t)
{
	struct vm_threads_thread_key key = { .vcpu = -1, .reason = -1 };
	struct vm_threads_vcpu_status vcpu;

	if (t->unknown) {
		key.state = VM_THREAD_UNKNOWN;
		return key;
	}
	if (!t->on_cpu) {
		key.state = t->runnable ? VM_THREAD_RUNNABLE : VM_THREAD_BLOCKED;
		return key;
	}
	key.vcpu = t->cpu;
	vcpu = vm_threads_vcpus_status(vm_threads_machine_vcpus(m), t->cpu);
	switch (vcpu.mode) {
	case VM_VCPU_UNKNOWN:
		if (vcpu.lost) {
			/* The host lost events: not the start-of-trace rule. */
			key.state = VM_THREAD_UNKNOWN;
			key.vcpu = -1;
			break;
		}
		key.state = VM_THREAD_RUNNING;
		break;
	case VM_VCPU_GUEST:
		key.state = VM_THREAD_RUNNING;
		break;
	case VM_VCPU_HYPERVISOR:
		key.state = VM_THREAD_HYPERVISOR;
		key.reason = vcpu.reason;
		key.isa = vcpu.isa;
		break;
	case VM_VCPU_PREEMPTED:
		key.state = VM_THREAD_PREEMPTED;
		break;
	case VM_VCPU_BLOCKED:
		key.state = VM_THREAD_VCPU_BLOCKED;
		break;
	}
	return key;
}

/* Brings the thread's open interval in line with what is known at `ts`. */
static void refresh(struct vm_threads_machine *m, struct guest_thread *t, int64_t ts)
{
	struct emit_context ctx = { m, t->tid };
	struct vm_threads_thread_key key;

	if (!t->appeared) {
		return;
	}
	key = thread_key(m, t);
	vm_threads_track_set(&t->track, ts, &key, t->comm, emit_interval, &ctx);
}

/* The CPU's slot, or NULL. */
static struct cpu_slot *cpu_find(struct vm_threads_machine *m, int64_t cpu)
{
	struct cpu_slot **cached = &m->cpu_cache[(uint64_t) cpu % CPU_CACHE_SIZE];

	if (!*cached || (*cached)->cpu != cpu) {
		struct cpu_slot *slot = g_hash_table_lookup(m->cpus, &cpu);

		if (!slot) {
			return NULL;
		}
		*cached = slot;
	}
	return *cached;
}

/* The thread of that tid, or NULL. */
static struct guest_thread *thread_find(struct vm_threads_machine *m, int64_t tid)
{
	struct guest_thread **cached = &m->thread_cache[(uint64_t) tid % THREAD_CACHE_SIZE];

	if (!*cached || (*cached)->tid != tid) {
		struct guest_thread *t = g_hash_table_lookup(m->threads, &tid);

		if (!t) {
			return NULL;
		}
		*cached = t;
	}
	return *cached;
}

static void thread_remove(struct vm_threads_machine *m, struct guest_thread *t)
{
	struct guest_thread **cached = &m->thread_cache[(uint64_t) t->tid % THREAD_CACHE_SIZE];

	if (*cached == t) {
		*cached = NULL;
	}
	g_hash_table_remove(m->threads, &t->tid);
}

static struct guest_thread *thread_new(struct vm_threads_machine *m, int64_t tid)
{
	struct guest_thread *t = g_new0(struct guest_thread, 1);

	t->tid = tid;
	t->comm = "";
	/* A thread first seen through a wakeup has not blocked since. */
	t->runnable = true;
	g_hash_table_insert(m->threads, &t->tid, t);
	return t;
}

static struct guest_thread *thread_get(struct vm_threads_machine *m, int64_t tid)
{
	struct guest_thread *t = thread_find(m, tid);

	return t ? t : thread_new(m, tid);
}

static void cpu_changed(struct vm_threads_machine *m, const struct cpu_slot *slot,
		int64_t ts);

/* The tid now names another thread: the old one's history ends at `ts`. */
static struct guest_thread *thread_replace(struct vm_threads_machine *m, int64_t tid,
		int64_t ts)
{
	struct guest_thread *old = thread_find(m, tid);

	if (old) {
		struct emit_context ctx = { m, tid };

		if (old->on_cpu) {
			struct cpu_slot *slot = cpu_find(m, old->cpu);

			if (slot && slot->tid == tid) {
				slot->tid = 0;
				cpu_changed(m, slot, ts);
			}
		}
		vm_threads_track_end(&old->track, ts, emit_interval, &ctx);
		thread_remove(m, old);
	}
	return thread_new(m, tid);
}

/* A thread that a sched_switch or wakeup names: a dead one's tid is reused. */
static struct guest_thread *thread_live(struct vm_threads_machine *m, int64_t tid,
		int64_t ts)
{
	struct guest_thread *t = thread_get(m, tid);

	return t->exited ? thread_replace(m, tid, ts) : t;
}

static const char *intern_comm(struct vm_threads_machine *m, const char *comm)
{
	const char *interned = g_hash_table_lookup(m->comms, comm);

	if (!interned) {
		char *copy = g_strdup(comm);

		g_hash_table_add(m->comms, copy);
		interned = copy;
	}
	return interned;
}

static void thread_set_comm(struct vm_threads_machine *m, struct guest_thread *t,
		const char *comm)
{
	if (!comm || !comm[0] || strcmp(t->comm, comm) == 0) {
		return;
	}
	t->comm = intern_comm(m, comm);
}

static struct cpu_slot *cpu_get(struct vm_threads_machine *m, int64_t cpu)
{
	struct cpu_slot *slot = cpu_find(m, cpu);

	if (!slot) {
		slot = g_new0(struct cpu_slot, 1);
		slot->cpu = cpu;
		g_hash_table_insert(m->cpus, &slot->cpu, slot);
		m->cpu_cache[(uint64_t) cpu % CPU_CACHE_SIZE] = slot;
	}
	return slot;
}

/* Says what `slot` runs now, to whoever follows the CPUs (steal's victims). */
static void cpu_changed(struct vm_threads_machine *m, const struct cpu_slot *slot,
		int64_t ts)
{
	const struct guest_thread *t;

	if (!m->cb.cpu_current) {
		return;
	}
	t = slot->tid > 0 ? thread_find(m, slot->tid) : NULL;
	m->cb.cpu_current(ts, slot->cpu, slot->tid, t ? t->comm : "", m->cb.data);
}

static void cpu_set_current(struct vm_threads_machine *m, int64_t cpu, int64_t tid,
		int64_t ts)
{
	struct cpu_slot *slot = cpu_get(m, cpu);

	slot->tid = tid;
	cpu_changed(m, slot, ts);
}

/* What `slot` runs is not known from `since` on (an earlier mark stays). */
static void cpu_set_unknown(struct vm_threads_machine *m, struct cpu_slot *slot,
		int64_t since)
{
	if (slot->tid == TID_UNKNOWN && slot->unknown_since <= since) {
		return;
	}
	slot->tid = TID_UNKNOWN;
	slot->unknown_since = since;
	cpu_changed(m, slot, since);
}

/*
 * The thread's state is not known from `since` on. A change dated before
 * the thread's open interval (a loss located after later events of the
 * thread) starts with that interval: what was already decided stays.
 */
static void make_unknown(struct vm_threads_machine *m, struct guest_thread *t,
		int64_t since)
{
	int64_t open_since = vm_threads_track_since(&t->track);

	t->on_cpu = false;
	t->unknown = true;
	refresh(m, t, since > open_since ? since : open_since);
}

static void put_off_cpu(struct vm_threads_machine *m, struct guest_thread *t,
		bool runnable, int64_t ts)
{
	t->on_cpu = false;
	t->unknown = false;
	t->runnable = runnable;
	refresh(m, t, ts);
}

/*
 * Evidence that contradicts what was believed is trusted (SPEC, Lost
 * events): said once per machine, whichever contradiction comes first.
 */
static void warn_contradiction(struct vm_threads_machine *m, int64_t cpu,
		int64_t tid, int64_t believed)
{
	warn(m, "contradiction",
		"sched_switch on CPU %" PRId64 " switches out thread %" PRId64 " but "
		"thread %" PRId64 " was believed there: events were lost or are out of "
		"order; the event is trusted and the thread believed there is `unknown` "
		"until a sched_switch names it or a wakeup of it", cpu, tid, believed);
}

/*
 * Thread `t` (named by a sched_switch on another CPU) was believed on
 * CPU t->cpu: it left that CPU unseen, so what that CPU runs is unknown.
 */
static void leave_other_cpu(struct vm_threads_machine *m, struct guest_thread *t,
		const struct vm_event *ev)
{
	struct cpu_slot *slot;

	if (!t->on_cpu || t->cpu == ev->cpu) {
		return;
	}
	slot = cpu_find(m, t->cpu);
	warn(m, "contradiction",
		"sched_switch on CPU %" PRId64 " names thread %" PRId64 ", which was "
		"believed on CPU %" PRId64 ": events were lost or are out of order; the "
		"event is trusted and what CPU %" PRId64 " runs is unknown until its "
		"next sched_switch", ev->cpu, t->tid, t->cpu, t->cpu);
	if (slot && slot->tid == t->tid) {
		cpu_set_unknown(m, slot, ev->ts);
	}
	t->on_cpu = false;
}

/*
 * The thread switched out is the CPU's current one, whatever was believed.
 * After a loss on the CPU, nothing was believed: the thread switched out
 * ran there at some point of the unknown period, so its state since then
 * (or since its own last change, if later) is unknown too.
 */
static void check_switched_out(struct vm_threads_machine *m, const struct vm_event *ev)
{
	struct cpu_slot *slot = cpu_find(m, ev->cpu);
	int64_t prev_tid = ev->u.sched_switch.prev_tid;
	struct guest_thread *t;

	if (!slot || slot->tid == prev_tid) {
		return;
	}
	if (slot->tid == TID_UNKNOWN) {
		t = prev_tid > 0 ? thread_find(m, prev_tid) : NULL;
		if (t && t->appeared && !t->unknown && !t->exited) {
			make_unknown(m, t, slot->unknown_since);
		}
		return;
	}
	warn_contradiction(m, ev->cpu, prev_tid, slot->tid);
	t = thread_find(m, slot->tid);
	if (t && t->on_cpu && t->cpu == ev->cpu) {
		make_unknown(m, t, ev->ts);
	}
}

static void switch_out(struct vm_threads_machine *m, const struct vm_event *ev)
{
	struct guest_thread *t;

	if (ev->u.sched_switch.prev_tid <= 0) {
		return;
	}
	t = thread_get(m, ev->u.sched_switch.prev_tid);
	thread_set_comm(m, t, ev->u.sched_switch.prev_comm);
	t->appeared = true;
	put_off_cpu(m, t, vm_prev_state_is_runnable(ev->u.sched_switch.prev_state), ev->ts);
}

static void switch_in(struct vm_threads_machine *m, const struct vm_event *ev)
{
	int64_t tid = ev->u.sched_switch.next_tid;
	struct guest_thread *t;

	if (tid <= 0) {
		cpu_set_current(m, ev->cpu, 0, ev->ts);
		return;
	}
	t = thread_live(m, tid, ev->ts);
	/* Switched in here while believed on another CPU: trusted. */
	leave_other_cpu(m, t, ev);
	thread_set_comm(m, t, ev->u.sched_switch.next_comm);
	cpu_set_current(m, ev->cpu, tid, ev->ts);
	t->appeared = true;
	t->unknown = false;
	t->on_cpu = true;
	t->cpu = ev->cpu;
	refresh(m, t, ev->ts);
}

/*
 * A CPU's first sched_switch: its `prev_tid` ran there since the trace
 * began (unless a loss came first, which the follower was told of). The
 * thread states keep no interval before a thread's first appearance; who
 * follows the CPUs (steal's victims) may use it.
 */
static void tell_start_thread(struct vm_threads_machine *m, const struct vm_event *ev)
{
	int64_t tid = ev->u.sched_switch.prev_tid;
	const struct guest_thread *t = tid > 0 ? thread_find(m, tid) : NULL;

	if (m->cb.cpu_current && tid >= 0) {
		m->cb.cpu_current(VM_THREADS_SINCE_START, ev->cpu, tid, t ? t->comm : "",
			m->cb.data);
	}
}

static void on_sched_switch(struct vm_threads_machine *m, const struct vm_event *ev)
{
	/* A guest CPU is a vCPU: a number KVM could not give is no CPU. */
	if (!vm_vcpu_id_valid(ev->cpu)) {
		warn(m, "no-cpu", "sched_switch without a valid cpu_id in its packet "
			"context: such events are ignored");
		return;
	}
	if (ev->u.sched_switch.prev_tid > 0) {
		struct guest_thread *prev = thread_find(m, ev->u.sched_switch.prev_tid);

		/* Switched out here while believed on another CPU: trusted. */
		if (prev) {
			leave_other_cpu(m, prev, ev);
		}
	}
	struct cpu_slot *slot = cpu_find(m, ev->cpu);
	bool first = !slot || !slot->switched;

	check_switched_out(m, ev);
	switch_out(m, ev);
	if (first) {
		tell_start_thread(m, ev);
	}
	switch_in(m, ev);
	cpu_get(m, ev->cpu)->switched = true;
}

static void on_wakeup(struct vm_threads_machine *m, const struct vm_event *ev)
{
	struct guest_thread *t;

	if (ev->u.wakeup.tid <= 0) {
		return;
	}
	t = thread_live(m, ev->u.wakeup.tid, ev->ts);
	if (!t->comm[0]) {
		thread_set_comm(m, t, ev->u.wakeup.comm);
	}
	t->appeared = true;
	if (!t->on_cpu) {
		/* A thread whose state was lost: woken, so runnable now. */
		t->unknown = false;
		t->runnable = true;
	}
	refresh(m, t, ev->ts);
}

static void on_fork(struct vm_threads_machine *m, const struct vm_event *ev)
{
	struct guest_thread *child;

	if (ev->u.fork.parent_tid > 0) {
		thread_set_comm(m, thread_get(m, ev->u.fork.parent_tid), ev->u.fork.parent_comm);
	}
	if (ev->u.fork.child_tid <= 0) {
		return;
	}
	/* A new thread, whatever the tid named before. */
	child = thread_replace(m, ev->u.fork.child_tid, ev->ts);
	thread_set_comm(m, child, ev->u.fork.child_comm);
}

static void on_exit_or_free(struct vm_threads_machine *m, const struct vm_event *ev)
{
	struct guest_thread *t = thread_find(m, ev->u.exit.tid);

	if (!t) {
		return;
	}
	thread_set_comm(m, t, ev->u.exit.comm);
	t->exited = true;
}

static void on_statedump(struct vm_threads_machine *m, const struct vm_event *ev)
{
	if (ev->u.statedump.tid <= 0) {
		return;
	}
	thread_set_comm(m, thread_get(m, ev->u.statedump.tid), ev->u.statedump.name);
}

/* Whether a field the state machine needs is absent from the event. */
static bool lacks_fields(const struct vm_event *ev)
{
	switch (ev->kind) {
	case VM_EVENT_SCHED_SWITCH:
		return ev->u.sched_switch.prev_tid == VM_FIELD_MISSING ||
			ev->u.sched_switch.prev_state == VM_FIELD_MISSING ||
			ev->u.sched_switch.next_tid == VM_FIELD_MISSING;
	case VM_EVENT_SCHED_WAKEUP:
		return ev->u.wakeup.tid == VM_FIELD_MISSING;
	case VM_EVENT_PROCESS_FORK:
		return ev->u.fork.child_tid == VM_FIELD_MISSING;
	case VM_EVENT_PROCESS_EXIT:
	case VM_EVENT_PROCESS_FREE:
		return ev->u.exit.tid == VM_FIELD_MISSING;
	case VM_EVENT_STATEDUMP_PROCESS:
		return ev->u.statedump.tid == VM_FIELD_MISSING;
	default:
		return false;
	}
}

void vm_threads_machine_feed(struct vm_threads_machine *m, const struct vm_event *ev)
{
	if (lacks_fields(ev)) {
		warn(m, "missing-field", "scheduler or process event without its tid, "
			"prev_state or child_tid field: such events are ignored");
		return;
	}
	switch (ev->kind) {
	case VM_EVENT_SCHED_SWITCH:
		on_sched_switch(m, ev);
		break;
	case VM_EVENT_SCHED_WAKEUP:
		on_wakeup(m, ev);
		break;
	case VM_EVENT_PROCESS_FORK:
		on_fork(m, ev);
		break;
	case VM_EVENT_PROCESS_EXIT:
	case VM_EVENT_PROCESS_FREE:
		on_exit_or_free(m, ev);
		break;
	case VM_EVENT_STATEDUMP_PROCESS:
		on_statedump(m, ev);
		break;
	default:
		break;
	}
}

/* Events of `slot`'s CPU were lost from `since` on. */
static void cpu_lose(struct vm_threads_machine *m, struct cpu_slot *slot, int64_t since)
{
	struct guest_thread *t = slot->tid > 0 ? thread_find(m, slot->tid) : NULL;

	if (t && t->on_cpu && t->cpu == slot->cpu) {
		make_unknown(m, t, since);
	}
	cpu_set_unknown(m, slot, since);
}

void vm_threads_machine_loss(struct vm_threads_machine *m, const struct vm_event *ev)
{
	GHashTableIter iter;
	gpointer value;

	if (vm_vcpu_id_valid(ev->cpu)) {
		cpu_lose(m, cpu_get(m, ev->cpu), ev->ts);
		return;
	}
	/* Which CPU lost them is not known: any may have. */
	warn(m, "loss-without-cpu", "events were lost on a stream without a valid "
		"cpu_id in its packet context: the current thread of every CPU of "
		"this machine is `unknown` from there until its next sched_switch");
	g_hash_table_iter_init(&iter, m->cpus);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		cpu_lose(m, value, ev->ts);
	}
}

void vm_threads_machine_vcpu_changed(struct vm_threads_machine *m, int64_t ts,
		int64_t vcpu)
{
	struct cpu_slot *slot = cpu_find(m, vcpu);
	struct guest_thread *t;

	if (!slot || slot->tid <= 0) {
		return;
	}
	t = thread_find(m, slot->tid);
	if (t) {
		refresh(m, t, ts);
	}
}

void vm_threads_machine_forget(struct vm_threads_machine *m)
{
	g_hash_table_remove_all(m->threads);
	memset(m->thread_cache, 0, sizeof(m->thread_cache));
	g_hash_table_remove_all(m->cpus);
	memset(m->cpu_cache, 0, sizeof(m->cpu_cache));
	g_hash_table_remove_all(m->comms);
}

static gint compare_tids(gconstpointer a, gconstpointer b)
{
	int64_t ta = **(int64_t *const *) a;
	int64_t tb = **(int64_t *const *) b;

	return ta < tb ? -1 : ta > tb;
}

void vm_threads_machine_finish(struct vm_threads_machine *m, int64_t end_ts)
{
	GPtrArray *tids = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key;

	/* By tid, so that the output does not depend on hash order. */
	g_hash_table_iter_init(&iter, m->threads);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		g_ptr_array_add(tids, key);
	}
	g_ptr_array_sort(tids, compare_tids);
	for (guint i = 0; i < tids->len; i++) {
		struct guest_thread *t = g_hash_table_lookup(m->threads, tids->pdata[i]);
		struct emit_context ctx = { m, t->tid };

		vm_threads_track_end(&t->track, end_ts, emit_interval, &ctx);
	}
	g_ptr_array_unref(tids);
}
