#include <check.h>
#include <inttypes.h>
#include <string.h>

#include "test-vcpu-harness.h"
#include "model/kvm.h"

static void on_release(void *user, void *cookie)
{
	struct harness *h = user;
	struct output_item item = { false, GPOINTER_TO_UINT(cookie) - 1 };

	g_array_append_val(h->outputs, item);
}

static void on_change(void *user, const struct vm_vcpu_change *change)
{
	struct harness *h = user;
	struct output_item item = { true, h->changes->len };

	g_array_append_val(h->changes, *change);
	g_array_append_val(h->outputs, item);
}

static void on_warning(void *user, enum vm_vcpu_warning kind,
		unsigned int machine, const char *message)
{
	struct harness *h = user;
	struct warning_item item = { kind, machine };

	ck_assert_ptr_nonnull(message);
	ck_assert(strlen(message) > 20);
	g_array_append_val(h->warnings, item);
	g_ptr_array_add(h->messages, g_strdup(message));
}

static const char *on_machine_name(void *user, unsigned int machine)
{
	static const char *const names[] = { "m0", "m1", "m2", "m3" };

	(void) user;
	return machine < G_N_ELEMENTS(names) ? names[machine] : "m?";
}

struct harness *harness_new(const struct vm_model_class *cls,
		const struct vm_vcpu_limits *limits)
{
	static const struct vm_vcpu_callbacks callbacks = {
		.release = on_release,
		.mode_change = on_change,
		.warning = on_warning,
		.machine_name = on_machine_name,
	};
	struct harness *h = g_new0(struct harness, 1);

	h->model = vm_model_create(cls ? cls : &vm_model_kvm);
	h->tracker = vm_vcpu_tracker_create(h->model, limits, &callbacks, h);
	ck_assert_ptr_nonnull(h->tracker);
	h->outputs = g_array_new(FALSE, FALSE, sizeof(struct output_item));
	h->changes = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_change));
	h->warnings = g_array_new(FALSE, FALSE, sizeof(struct warning_item));
	h->messages = g_ptr_array_new_with_free_func(g_free);
	h->input_ts = g_array_new(FALSE, FALSE, sizeof(int64_t));
	h->last_ts = INT64_MIN;
	return h;
}

void harness_free(struct harness *h)
{
	vm_vcpu_tracker_destroy(h->tracker, NULL);
	vm_model_destroy(h->model);
	g_array_free(h->outputs, TRUE);
	g_array_free(h->changes, TRUE);
	g_array_free(h->warnings, TRUE);
	g_ptr_array_free(h->messages, TRUE);
	g_array_free(h->input_ts, TRUE);
	g_free(h);
}

static void push(struct harness *h, const struct vm_event *event)
{
	uint64_t held;

	g_array_append_val(h->input_ts, h->last_ts);
	vm_vcpu_tracker_push(h->tracker, event,
		GUINT_TO_POINTER(h->input_ts->len));
	held = vm_vcpu_tracker_held(h->tracker);
	if (held > h->max_held)
		h->max_held = held;
}

void harness_push(struct harness *h, const struct vm_event *event)
{
	/* The tracker copies the event: a scratch copy must be enough. */
	struct vm_event scratch = *event;

	ck_assert_int_ge(event->ts, h->last_ts == INT64_MIN ? event->ts : h->last_ts);
	h->last_ts = event->ts;
	push(h, &scratch);
	memset(&scratch, 0x5a, sizeof(scratch));
}

void harness_push_other(struct harness *h)
{
	push(h, NULL);
}

void harness_flush(struct harness *h)
{
	vm_vcpu_tracker_flush(h->tracker);
	ck_assert_uint_eq(vm_vcpu_tracker_held(h->tracker), 0);
}

unsigned int harness_warnings(const struct harness *h,
		enum vm_vcpu_warning kind, unsigned int machine)
{
	unsigned int count = 0;
	guint i;

	for (i = 0; i < h->warnings->len; i++) {
		const struct warning_item *item =
			&g_array_index(h->warnings, struct warning_item, i);

		if (item->kind == kind && item->machine == machine)
			count++;
	}
	return count;
}

/* Every input released once, in push order; changes in time order after it. */
static void check_order(const struct harness *h)
{
	guint i, next_input = 0;
	int64_t last_release_ts = INT64_MIN;

	for (i = 0; i < h->outputs->len; i++) {
		const struct output_item *item =
			&g_array_index(h->outputs, struct output_item, i);

		if (!item->is_change) {
			ck_assert_uint_eq(item->index, next_input);
			last_release_ts = g_array_index(h->input_ts, int64_t,
				item->index);
			next_input++;
		} else {
			const struct vm_vcpu_change *change = &g_array_index(
				h->changes, struct vm_vcpu_change, item->index);

			/* A change follows the input that caused it, at its time. */
			ck_assert_uint_gt(next_input, 0);
			ck_assert_int_eq(change->ts, last_release_ts);
		}
	}
	ck_assert_uint_eq(next_input, h->input_ts->len);
}

static bool same_vcpu(const struct vm_vcpu_change *change, unsigned int vm,
		uint64_t vcpu)
{
	return change->vm == vm && change->vcpu == vcpu;
}

void harness_check_intervals(const struct harness *h, unsigned int vm,
		uint64_t vcpu, const struct expected_interval *expected,
		size_t count)
{
	GArray *selected = g_array_new(FALSE, FALSE, sizeof(struct vm_vcpu_change));
	size_t found = 0;
	guint i;

	check_order(h);
	for (i = 0; i < h->changes->len; i++) {
		const struct vm_vcpu_change *change =
			&g_array_index(h->changes, struct vm_vcpu_change, i);

		if (same_vcpu(change, vm, vcpu))
			g_array_append_val(selected, *change);
	}
	for (i = 0; i < selected->len; i++) {
		const struct vm_vcpu_change *change =
			&g_array_index(selected, struct vm_vcpu_change, i);
		int64_t end = i + 1 < selected->len ? g_array_index(selected,
			struct vm_vcpu_change, i + 1).ts : h->last_ts;

		if (change->mode == VM_VCPU_UNKNOWN || end == change->ts)
			continue;
		ck_assert_msg(found < count, "unexpected interval %s [%" PRId64
			", %" PRId64 ")", vm_vcpu_mode_name(change->mode),
			change->ts, end);
		ck_assert_str_eq(vm_vcpu_mode_name(change->mode),
			expected[found].mode);
		ck_assert_int_eq(change->ts, expected[found].begin);
		ck_assert_int_eq(end, expected[found].end);
		ck_assert_int_eq(change->exit_reason, expected[found].exit_reason);
		found++;
	}
	ck_assert_uint_eq(found, count);
	g_array_free(selected, TRUE);
}

unsigned int harness_change_count(const struct harness *h, unsigned int vm,
		uint64_t vcpu)
{
	unsigned int count = 0;
	guint i;

	for (i = 0; i < h->changes->len; i++) {
		if (same_vcpu(&g_array_index(h->changes, struct vm_vcpu_change, i),
				vm, vcpu))
			count++;
	}
	return count;
}

static struct vm_event base(enum vm_event_kind kind, unsigned int machine,
		int64_t ts, int64_t cpu)
{
	struct vm_event event;

	memset(&event, 0, sizeof(event));
	event.kind = kind;
	event.machine = machine;
	event.ts = ts;
	event.cpu = cpu;
	return event;
}

struct vm_event ev_switch(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t prev_tid, int64_t prev_state, int64_t next_tid)
{
	struct vm_event event = base(VM_EVENT_SCHED_SWITCH, machine, ts, cpu);

	event.u.sched_switch.prev_comm = "prev";
	event.u.sched_switch.prev_tid = prev_tid;
	event.u.sched_switch.prev_state = prev_state;
	event.u.sched_switch.next_comm = "next";
	event.u.sched_switch.next_tid = next_tid;
	return event;
}

struct vm_event ev_entry(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t vcpu_id)
{
	struct vm_event event = base(VM_EVENT_KVM_ENTRY, machine, ts, cpu);

	event.u.kvm_entry.vcpu_id = vcpu_id;
	return event;
}

struct vm_event ev_exit(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t exit_reason)
{
	struct vm_event event = base(VM_EVENT_KVM_EXIT, machine, ts, cpu);

	event.u.kvm_exit.exit_reason = exit_reason;
	event.u.kvm_exit.isa = 1;
	event.u.kvm_exit.vcpu_id = VM_FIELD_MISSING;
	return event;
}

struct vm_event ev_exit_id(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t exit_reason, int64_t vcpu_id)
{
	struct vm_event event = ev_exit(machine, ts, cpu, exit_reason);

	event.u.kvm_exit.vcpu_id = vcpu_id;
	return event;
}

struct vm_event ev_vmsync(enum vm_event_kind kind, unsigned int machine,
		int64_t ts, int64_t cpu, int64_t cnt, int64_t vm_uid)
{
	struct vm_event event = base(kind, machine, ts, cpu);

	event.u.vmsync.cnt = cnt;
	event.u.vmsync.vm_uid = vm_uid;
	return event;
}

struct vm_event ev_statedump(unsigned int machine, int64_t ts, int64_t tid,
		int64_t pid)
{
	struct vm_event event = base(VM_EVENT_STATEDUMP_PROCESS, machine, ts, 0);

	event.u.statedump.tid = tid;
	event.u.statedump.pid = pid;
	event.u.statedump.ppid = 1;
	event.u.statedump.name = "qemu-system-x86";
	return event;
}

struct vm_event ev_statedump_named(unsigned int machine, int64_t ts, int64_t tid,
		int64_t pid, const char *name)
{
	struct vm_event event = ev_statedump(machine, ts, tid, pid);

	event.u.statedump.name = name;
	return event;
}

struct vm_event ev_wakeup(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t tid)
{
	struct vm_event event = base(VM_EVENT_SCHED_WAKEUP, machine, ts, cpu);

	event.u.wakeup.comm = "woken";
	event.u.wakeup.tid = tid;
	event.u.wakeup.target_cpu = cpu;
	return event;
}

struct vm_event ev_thread_exit(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t tid)
{
	struct vm_event event = base(VM_EVENT_PROCESS_EXIT, machine, ts, cpu);

	event.u.exit.comm = "gone";
	event.u.exit.tid = tid;
	return event;
}

struct vm_event ev_loss(unsigned int machine, int64_t ts, int64_t cpu,
		int64_t end, int64_t count)
{
	struct vm_event event = base(VM_EVENT_LOSS, machine, ts, cpu);

	event.u.loss.end = end;
	event.u.loss.count = count;
	event.u.loss.packets = 0;
	return event;
}
