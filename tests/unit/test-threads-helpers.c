#include <check.h>
#include <inttypes.h>
#include <string.h>

#include "test-threads-helpers.h"

static char *optional(int64_t value)
{
	return value < 0 ? g_strdup("") : g_strdup_printf("%" PRId64, value);
}

static void on_thread(const struct vm_thread_interval *iv, void *data)
{
	struct recorder *r = data;
	char *vcpu = optional(iv->vcpu);
	char *reason = optional(iv->reason);

	g_ptr_array_add(r->thread_rows, g_strdup_printf("%s,%" PRId64 ",%s,%s,%" PRId64
		",%" PRId64 ",%s,%s", iv->machine, iv->tid, iv->comm, iv->state,
		iv->begin_ns - T0, iv->end_ns - T0, vcpu, reason));
	g_free(vcpu);
	g_free(reason);
}

static void on_vcpu(const struct vm_vcpu_interval *iv, void *data)
{
	struct recorder *r = data;
	char *pcpu = optional(iv->pcpu);
	char *reason = optional(iv->reason);

	g_ptr_array_add(r->vcpu_rows, g_strdup_printf("%s,%" PRId64 ",%s,%" PRId64 ",%"
		PRId64 ",%" PRId64 ",%s,%s", iv->machine, iv->vcpu, iv->mode,
		iv->begin_ns - T0, iv->end_ns - T0, iv->host_tid, pcpu, reason));
	g_free(pcpu);
	g_free(reason);
}

static void on_exit_stat(const struct vm_exit_stat *st, void *data)
{
	struct recorder *r = data;

	g_ptr_array_add(r->exit_rows, g_strdup_printf("%s,%" PRId64 ",%" PRId64 ",%d,%"
		PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64, st->machine, st->vcpu,
		st->reason, st->isa, st->count, st->total_ns, st->min_ns, st->max_ns));
}

static void on_steal(const struct vm_steal_interval *iv, void *data)
{
	struct recorder *r = data;
	char *tid = optional(iv->tid);
	char *pcpu = optional(iv->pcpu);
	char *cvcpu = optional(iv->culprit_vcpu);
	char *ctid = optional(iv->culprit_tid);

	g_ptr_array_add(r->steal_rows, g_strdup_printf("%s,%" PRId64 ",%s,%s,%" PRId64
		",%" PRId64 ",%s,%s,%s,%s,%s,%s", iv->machine, iv->vcpu, tid, iv->comm,
		iv->begin_ns - T0, iv->end_ns - T0, pcpu, iv->culprit_kind,
		iv->culprit_machine ? iv->culprit_machine : "", cvcpu, ctid,
		iv->culprit_comm ? iv->culprit_comm : ""));
	g_free(tid);
	g_free(pcpu);
	g_free(cvcpu);
	g_free(ctid);
}

static void on_warning(const char *kind, const char *machine, const char *message,
		void *data)
{
	struct recorder *r = data;

	ck_assert_ptr_nonnull(message);
	g_ptr_array_add(r->warnings, g_strdup_printf("%s:%s", kind, machine ? machine : ""));
}

static void on_losses(const struct vm_machine_losses *l, void *data)
{
	struct recorder *r = data;

	g_ptr_array_add(r->loss_rows, g_strdup_printf("%s,%" PRIu64 ",%d,%" PRIu64
		",%d,%" PRIu64 ",%" PRId64, l->machine, l->events, l->events_uncounted,
		l->packets, l->packets_uncounted, l->gaps, l->affected_ns));
}

static void init(struct recorder *r, bool steal)
{
	struct vm_threads_callbacks cb = {
		.thread_interval = on_thread,
		.vcpu_interval = on_vcpu,
		.exit_stat = on_exit_stat,
		.machine_losses = on_losses,
		.steal_interval = steal ? on_steal : NULL,
		.warning = on_warning,
		.data = r,
	};

	r->thread_rows = g_ptr_array_new_with_free_func(g_free);
	r->vcpu_rows = g_ptr_array_new_with_free_func(g_free);
	r->exit_rows = g_ptr_array_new_with_free_func(g_free);
	r->warnings = g_ptr_array_new_with_free_func(g_free);
	r->loss_rows = g_ptr_array_new_with_free_func(g_free);
	r->steal_rows = g_ptr_array_new_with_free_func(g_free);
	r->threads = vm_threads_create(&cb);
}

void recorder_init(struct recorder *r)
{
	init(r, false);
}

void recorder_init_steal(struct recorder *r)
{
	init(r, true);
}

void recorder_clear(struct recorder *r)
{
	vm_threads_destroy(r->threads);
	g_ptr_array_unref(r->thread_rows);
	g_ptr_array_unref(r->vcpu_rows);
	g_ptr_array_unref(r->exit_rows);
	g_ptr_array_unref(r->warnings);
	g_ptr_array_unref(r->loss_rows);
	g_ptr_array_unref(r->steal_rows);
}

static struct vm_event event(enum vm_event_kind kind, unsigned int machine, int64_t t,
		int64_t cpu)
{
	struct vm_event ev = { .kind = kind, .ts = T0 + t, .machine = machine, .cpu = cpu };

	return ev;
}

void feed_switch(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		const char *prev_comm, int64_t prev_tid, int64_t prev_state,
		const char *next_comm, int64_t next_tid)
{
	struct vm_event ev = event(VM_EVENT_SCHED_SWITCH, machine, t, cpu);

	ev.u.sched_switch.prev_comm = prev_comm;
	ev.u.sched_switch.prev_tid = prev_tid;
	ev.u.sched_switch.prev_state = prev_state;
	ev.u.sched_switch.next_comm = next_comm;
	ev.u.sched_switch.next_tid = next_tid;
	vm_threads_feed(r->threads, &ev);
}

void feed_wakeup(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		const char *comm, int64_t tid)
{
	struct vm_event ev = event(VM_EVENT_SCHED_WAKEUP, machine, t, cpu);

	ev.u.wakeup.comm = comm;
	ev.u.wakeup.tid = tid;
	ev.u.wakeup.target_cpu = cpu;
	vm_threads_feed(r->threads, &ev);
}

void feed_fork(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		int64_t parent_tid, const char *child_comm, int64_t child_tid)
{
	struct vm_event ev = event(VM_EVENT_PROCESS_FORK, machine, t, cpu);

	ev.u.fork.parent_comm = "";
	ev.u.fork.parent_tid = parent_tid;
	ev.u.fork.parent_pid = parent_tid;
	ev.u.fork.child_comm = child_comm;
	ev.u.fork.child_tid = child_tid;
	ev.u.fork.child_pid = child_tid;
	vm_threads_feed(r->threads, &ev);
}

void feed_exit(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		enum vm_event_kind kind, const char *comm, int64_t tid)
{
	struct vm_event ev = event(kind, machine, t, cpu);

	ev.u.exit.comm = comm;
	ev.u.exit.tid = tid;
	vm_threads_feed(r->threads, &ev);
}

void feed_statedump(struct recorder *r, unsigned int machine, int64_t t,
		int64_t tid, const char *name)
{
	struct vm_event ev = event(VM_EVENT_STATEDUMP_PROCESS, machine, t, 0);

	ev.u.statedump.tid = tid;
	ev.u.statedump.pid = tid;
	ev.u.statedump.ppid = 1;
	ev.u.statedump.name = name;
	vm_threads_feed(r->threads, &ev);
}

void feed_statedump_pid(struct recorder *r, unsigned int machine, int64_t t,
		int64_t tid, int64_t pid, const char *name)
{
	struct vm_event ev = event(VM_EVENT_STATEDUMP_PROCESS, machine, t, 0);

	ev.u.statedump.tid = tid;
	ev.u.statedump.pid = pid;
	ev.u.statedump.ppid = 1;
	ev.u.statedump.name = name;
	vm_threads_feed(r->threads, &ev);
}

void feed_migrate(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		int64_t tid, int64_t dest_cpu)
{
	struct vm_event ev = event(VM_EVENT_SCHED_MIGRATE, machine, t, cpu);

	ev.u.migrate.tid = tid;
	ev.u.migrate.dest_cpu = dest_cpu;
	vm_threads_feed(r->threads, &ev);
}

void feed_kvm_entry(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		int64_t vcpu)
{
	struct vm_event ev = event(VM_EVENT_KVM_ENTRY, machine, t, cpu);

	ev.u.kvm_entry.vcpu_id = vcpu;
	vm_threads_feed(r->threads, &ev);
}

void feed_kvm_exit(struct recorder *r, unsigned int machine, int64_t t, int64_t cpu,
		int64_t reason, int64_t isa)
{
	struct vm_event ev = event(VM_EVENT_KVM_EXIT, machine, t, cpu);

	ev.u.kvm_exit.exit_reason = reason;
	ev.u.kvm_exit.isa = isa;
	ev.u.kvm_exit.vcpu_id = VM_FIELD_MISSING;
	vm_threads_feed(r->threads, &ev);
}

void feed_vcpu_state(struct recorder *r, unsigned int machine, int64_t t,
		const char *vm, int64_t vcpu, const char *mode, int64_t host_tid,
		int64_t pcpu, int64_t reason)
{
	struct vm_event ev = event(VM_EVENT_VCPU_STATE, machine, t, VM_FIELD_MISSING);

	ev.u.vcpu_state.vm = vm;
	ev.u.vcpu_state.vcpu = vcpu;
	ev.u.vcpu_state.mode = mode;
	ev.u.vcpu_state.host_tid = host_tid;
	ev.u.vcpu_state.pcpu = pcpu;
	ev.u.vcpu_state.exit_reason = reason;
	vm_threads_feed(r->threads, &ev);
}

void feed_other(struct recorder *r, unsigned int machine, int64_t t)
{
	struct vm_event ev = event(VM_EVENT_OTHER, machine, t, 0);

	vm_threads_feed(r->threads, &ev);
}

void feed_loss(struct recorder *r, unsigned int machine, int64_t t, int64_t end,
		int64_t cpu, int64_t count, int packets)
{
	struct vm_event ev = event(VM_EVENT_LOSS, machine, t, cpu);

	ev.u.loss.end = T0 + end;
	ev.u.loss.count = count;
	ev.u.loss.packets = packets;
	vm_threads_feed(r->threads, &ev);
}

static char *join(GPtrArray *rows)
{
	GString *s = g_string_new("");

	for (guint i = 0; i < rows->len; i++)
		g_string_append_printf(s, "  %s\n", (const char *) rows->pdata[i]);
	return g_string_free(s, FALSE);
}

void assert_rows(GPtrArray *rows, const char *const *expected)
{
	guint count = 0;
	char *got = join(rows);

	for (; expected[count]; count++) {
		gboolean found = FALSE;

		for (guint i = 0; i < rows->len && !found; i++)
			found = strcmp(rows->pdata[i], expected[count]) == 0;
		ck_assert_msg(found, "missing row %s; got:\n%s", expected[count], got);
	}
	ck_assert_msg(rows->len == count, "%u rows instead of %u; got:\n%s", rows->len,
		count, got);
	g_free(got);
}

GPtrArray *rows_of(GPtrArray *rows, const char *prefix)
{
	GPtrArray *out = g_ptr_array_new();

	for (guint i = 0; i < rows->len; i++) {
		if (g_str_has_prefix(rows->pdata[i], prefix))
			g_ptr_array_add(out, rows->pdata[i]);
	}
	return out;
}
