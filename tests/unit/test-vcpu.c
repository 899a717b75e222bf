/*
 * The vCPU state machine on small hand-made scenarios: several guests and
 * vCPUs, the VM mapping rules of the KVM model, SPEC's fixes of Trace
 * Compass's traps and odd input.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test-vcpu-harness.h"
#include "model/kvm.h"

enum { HOST = 0, GUEST1 = 1, GUEST2 = 2 };

#define S_RUNNING 0
#define S_SLEEPING 1
#define S_DEAD 0x10

static void push_all(struct harness *h, const struct vm_event *events,
		size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		harness_push(h, &events[i]);
}

static void add_machines(struct harness *h, unsigned int count)
{
	unsigned int machine;

	for (machine = 0; machine < count; machine++)
		vm_vcpu_tracker_add_machine(h->tracker, machine);
}

static bool has_mode(const struct harness *h, enum vm_vcpu_mode mode)
{
	guint i;

	for (i = 0; i < h->changes->len; i++) {
		if (g_array_index(h->changes, struct vm_vcpu_change, i).mode == mode)
			return true;
	}
	return false;
}

/* Two QEMU processes, each named by its own vm_uid. */
static void push_two_guests(struct harness *h, bool with_vmsync)
{
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 101, 100),
		ev_statedump(HOST, 0, 201, 200),
		ev_switch(HOST, 1, 0, 1, S_RUNNING, 101),
		ev_switch(HOST, 2, 1, 2, S_RUNNING, 201),
		ev_entry(HOST, 5, 0, 0),
		ev_entry(HOST, 6, 1, 0),
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST1, 10, 0, 1, 11),
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST2, 11, 0, 1, 22),
		ev_exit(HOST, 20, 0, 18),
		ev_exit(HOST, 21, 1, 18),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 25, 0, 1, 11),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 26, 1, 1, 22),
		ev_entry(HOST, 30, 0, 0),
		ev_entry(HOST, 31, 1, 0),
		ev_exit(HOST, 40, 0, 1),
		ev_switch(GUEST1, 50, 0, 7, S_RUNNING, 8),
	};
	size_t i;

	add_machines(h, 3);
	for (i = 0; i < G_N_ELEMENTS(events); i++) {
		bool is_vmsync = events[i].kind >= VM_EVENT_VMSYNC_GH_GUEST &&
			events[i].kind <= VM_EVENT_VMSYNC_HG_HOST;

		if (with_vmsync || !is_vmsync)
			harness_push(h, &events[i]);
	}
	harness_flush(h);
}

static const struct expected_interval two_guests_vm1[] = {
	{ "hypervisor", 1, 5, -1 },
	{ "guest", 5, 20, -1 },
	{ "hypervisor", 20, 30, 18 },
	{ "guest", 30, 40, -1 },
	{ "hypervisor", 40, 50, 1 },
};

static const struct expected_interval two_guests_vm2[] = {
	{ "hypervisor", 2, 6, -1 },
	{ "guest", 6, 21, -1 },
	{ "hypervisor", 21, 31, 18 },
	{ "guest", 31, 50, -1 },
};

START_TEST(two_guests_by_vmsync)
{
	struct harness *h = harness_new(NULL, NULL);

	push_two_guests(h, true);
	harness_check_intervals(h, GUEST1, 0, two_guests_vm1,
		G_N_ELEMENTS(two_guests_vm1));
	harness_check_intervals(h, GUEST2, 0, two_guests_vm2,
		G_N_ELEMENTS(two_guests_vm2));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

START_TEST(two_guests_by_vm_pids)
{
	struct harness *h = harness_new(NULL, NULL);

	h->model->cls->set_vm_pid(h->model->data, GUEST1, 100);
	h->model->cls->set_vm_pid(h->model->data, GUEST2, 200);
	push_two_guests(h, false);
	harness_check_intervals(h, GUEST1, 0, two_guests_vm1,
		G_N_ELEMENTS(two_guests_vm1));
	harness_check_intervals(h, GUEST2, 0, two_guests_vm2,
		G_N_ELEMENTS(two_guests_vm2));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* Two guests and nothing that tells which QEMU runs which: no guessing. */
START_TEST(two_guests_unmapped)
{
	struct harness *h = harness_new(NULL, NULL);

	push_two_guests(h, false);
	ck_assert_uint_eq(h->changes->len, 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	harness_free(h);
}
END_TEST

/*
 * Two vCPUs of one QEMU process; only thread 31 reports the vm_uid, thread
 * 32 belongs to the same process (state dump). A second guest rules out
 * the single-guest rule.
 */
START_TEST(two_vcpus_one_process)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 30, 30),
		ev_statedump(HOST, 0, 31, 30),
		ev_statedump(HOST, 0, 32, 30),
		ev_switch(HOST, 1, 0, 1, S_RUNNING, 31),
		ev_switch(HOST, 1, 1, 2, S_RUNNING, 32),
		ev_entry(HOST, 3, 0, 0),
		ev_entry(HOST, 4, 1, 1),
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST1, 8, 0, 1, 77),
		ev_exit(HOST, 10, 0, 18),
		ev_exit(HOST, 11, 1, 48),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 12, 0, 1, 77),
		ev_switch(HOST, 15, 1, 32, S_RUNNING, 2),
		ev_entry(HOST, 16, 0, 0),
		ev_switch(GUEST1, 30, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 3, -1 },
		{ "guest", 3, 10, -1 },
		{ "hypervisor", 10, 16, 18 },
		{ "guest", 16, 30, -1 },
	};
	static const struct expected_interval vcpu1[] = {
		{ "hypervisor", 1, 4, -1 },
		{ "guest", 4, 11, -1 },
		{ "hypervisor", 11, 15, 48 },
		{ "preempted", 15, 30, 48 },
	};

	add_machines(h, 3);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	harness_check_intervals(h, GUEST1, 1, vcpu1, G_N_ELEMENTS(vcpu1));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/*
 * A halted vCPU (exit reason 12, HLT) whose thread sleeps on the host is
 * blocked, not preempted, and a host wakeup does not change that.
 */
START_TEST(halted_vcpu_is_blocked)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_exit(HOST, 20, 0, 12),
		ev_switch(HOST, 25, 0, 31, S_SLEEPING, 10),
		ev_wakeup(HOST, 40, 0, 31),
		ev_switch(HOST, 60, 0, 10, S_SLEEPING, 31),
		ev_entry(HOST, 65, 0, 0),
		ev_switch(GUEST1, 80, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 20, -1 },
		{ "hypervisor", 20, 25, 12 },
		{ "blocked", 25, 60, 12 },
		{ "hypervisor", 60, 65, 12 },
		{ "guest", 65, 80, -1 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert(!has_mode(h, VM_VCPU_PREEMPTED));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* Newer kernels mark preemption with a single high bit: still preempted. */
START_TEST(preemption_marker_is_preempted)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_exit(HOST, 20, 0, 1),
		ev_switch(HOST, 25, 0, 31, 0x400, 10),
		ev_switch(GUEST1, 30, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 20, -1 },
		{ "hypervisor", 20, 25, 1 },
		{ "preempted", 25, 30, 1 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	harness_free(h);
}
END_TEST

/* A guest sched_switch before any host event invents no host mode. */
START_TEST(guest_events_first_invent_nothing)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(GUEST1, 1, 0, 7, S_RUNNING, 8),
		ev_switch(GUEST1, 2, 0, 8, S_SLEEPING, 7),
		ev_switch(HOST, 10, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 12, 0, 0),
		ev_switch(GUEST1, 20, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 10, 12, -1 },
		{ "guest", 12, 20, -1 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_change_count(h, GUEST1, 0), 2);
	harness_free(h);
}
END_TEST

/* The same host thread starts running another vCPU number. */
START_TEST(thread_changes_vcpu_id)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_exit(HOST, 10, 0, 32),
		ev_entry(HOST, 15, 0, 1),
		ev_exit(HOST, 20, 0, 32),
		ev_entry(HOST, 25, 0, 1),
		ev_switch(GUEST1, 40, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 10, -1 },
		{ "hypervisor", 10, 15, 32 },
	};
	static const struct expected_interval vcpu1[] = {
		{ "guest", 15, 20, -1 },
		{ "hypervisor", 20, 25, 32 },
		{ "guest", 25, 40, -1 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	harness_check_intervals(h, GUEST1, 1, vcpu1, G_N_ELEMENTS(vcpu1));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_MIGRATION, HOST), 1);
	harness_free(h);
}
END_TEST

/*
 * A thread reports the vm_uid of another guest: it now runs a vCPU of that
 * VM; the vCPU of the first VM ends (unknown), with one warning naming both.
 */
START_TEST(thread_moves_to_another_vm)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST1, 0, 0, 1, 11),
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST2, 0, 0, 1, 22),
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_exit(HOST, 10, 0, 18),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 11, 0, 1, 11),
		ev_entry(HOST, 15, 0, 0),
		ev_exit(HOST, 20, 0, 18),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 21, 0, 1, 22),
		ev_entry(HOST, 25, 0, 0),
		ev_switch(GUEST1, 30, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vm1[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 10, -1 },
		{ "hypervisor", 10, 15, 18 },
		{ "guest", 15, 20, -1 },
		{ "hypervisor", 20, 25, 18 },
	};
	static const struct expected_interval vm2[] = {
		{ "guest", 25, 30, -1 },
	};
	guint i;
	bool named = false;

	add_machines(h, 3);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vm1, G_N_ELEMENTS(vm1));
	harness_check_intervals(h, GUEST2, 0, vm2, G_N_ELEMENTS(vm2));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_MIGRATION, HOST), 1);
	for (i = 0; i < h->messages->len; i++)
		named |= strstr(g_ptr_array_index(h->messages, i), "`m1`") &&
			strstr(g_ptr_array_index(h->messages, i), "`m2`");
	ck_assert(named);
	harness_free(h);
}
END_TEST

/* The vCPU thread exits; a new thread of the same QEMU re-creates vCPU 0. */
START_TEST(thread_exits_and_vcpu_recreated)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 31, 30),
		ev_statedump(HOST, 0, 33, 30),
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_exit(HOST, 10, 0, 32),
		ev_thread_exit(HOST, 20, 0, 31),
		ev_switch(HOST, 25, 0, 31, S_DEAD, 33),
		ev_entry(HOST, 30, 0, 0),
		ev_exit(HOST, 35, 0, 32),
		ev_thread_exit(HOST, 36, 1, 31),
		ev_switch(GUEST1, 40, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 10, -1 },
		{ "hypervisor", 10, 20, 32 },
		{ "hypervisor", 25, 30, -1 },
		{ "guest", 30, 35, -1 },
		{ "hypervisor", 35, 40, 32 },
	};
	guint i;

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_THREAD_EXIT, HOST), 1);
	for (i = 0; i < h->changes->len; i++) {
		const struct vm_vcpu_change *change =
			&g_array_index(h->changes, struct vm_vcpu_change, i);

		ck_assert_int_eq(change->host_tid, change->ts < 25 ? 31 : 33);
	}
	harness_free(h);
}
END_TEST

/*
 * Another thread enters vCPU 0 while its first thread still lives: the new
 * thread owns the vCPU, the old one's scheduling no longer moves it.
 */
START_TEST(vcpu_taken_over_by_new_thread)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 31, 30),
		ev_statedump(HOST, 0, 35, 30),
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_exit(HOST, 10, 0, 12),
		ev_switch(HOST, 15, 0, 31, S_SLEEPING, 10),
		ev_switch(HOST, 20, 1, 11, S_RUNNING, 35),
		ev_entry(HOST, 25, 1, 0),
		ev_switch(HOST, 30, 0, 10, S_RUNNING, 31),
		ev_exit(HOST, 35, 1, 32),
		ev_switch(GUEST1, 40, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 10, -1 },
		{ "hypervisor", 10, 15, 12 },
		{ "blocked", 15, 25, 12 },
		{ "guest", 25, 35, -1 },
		{ "hypervisor", 35, 40, 32 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_MIGRATION, HOST), 1);
	harness_free(h);
}
END_TEST

/* One guest, one QEMU process: that guest, without vmsync nor vm-pids. */
START_TEST(single_guest_single_qemu)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 3),
		ev_switch(GUEST1, 9, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu3[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 9, -1 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 3, vcpu3, G_N_ELEMENTS(vcpu3));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* A guess (one guest, one QEMU) is used once nothing contradicted it for a while. */
START_TEST(single_guest_guess_checked_briefly)
{
	const struct vm_vcpu_limits limits = { 1000000000, 1000000, 2, 5 };
	struct harness *h = harness_new(NULL, &limits);
	struct vm_event event;
	int64_t ts;

	add_machines(h, 2);
	event = ev_switch(HOST, 1, 0, 10, S_RUNNING, 31);
	harness_push(h, &event);
	for (ts = 3; ts <= 30; ts += 3) {
		event = ts % 2 ? ev_entry(HOST, ts, 0, 0) : ev_exit(HOST, ts, 0, 1);
		harness_push(h, &event);
	}
	/* Held from t = 1 while the guess is young, released after t = 3 + 5. */
	ck_assert_uint_ge(h->max_held, 3);
	ck_assert_uint_le(vm_vcpu_tracker_held(h->tracker), 1);
	ck_assert_uint_ge(h->changes->len, 8);
	harness_flush(h);
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* One guest but two QEMU processes with vCPU threads: no guessing. */
START_TEST(single_guest_two_qemus_unmapped)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 31, 30),
		ev_statedump(HOST, 0, 41, 40),
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_switch(HOST, 1, 1, 11, S_RUNNING, 41),
		ev_entry(HOST, 5, 0, 0),
		ev_entry(HOST, 6, 1, 0),
		ev_switch(GUEST1, 9, 0, 7, S_RUNNING, 8),
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	ck_assert_uint_eq(h->changes->len, 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	harness_free(h);
}
END_TEST

/*
 * kvm events before their CPU's first sched_switch belong to that switch's
 * prev_tid, known only by looking ahead.
 */
START_TEST(events_before_first_switch)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_entry(HOST, 2, 0, 0),
		ev_exit(HOST, 8, 0, 30),
		ev_switch(HOST, 10, 0, 31, S_RUNNING, 20),
		ev_switch(GUEST1, 20, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "guest", 2, 8, -1 },
		{ "hypervisor", 8, 10, 30 },
		{ "preempted", 10, 20, 30 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(h->changes->len, 3);
	ck_assert_int_eq(g_array_index(h->changes, struct vm_vcpu_change, 0).host_tid, 31);
	harness_free(h);
}
END_TEST

/*
 * A thread whose first kvm event is an exit is a vCPU thread: its modes
 * from then on are reported once its first entry tells its number.
 */
START_TEST(exit_before_first_entry)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_exit(HOST, 2, 0, 1),
		ev_switch(HOST, 3, 0, 31, S_RUNNING, 10),
		ev_switch(HOST, 6, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 10, 0, 1),
		ev_switch(GUEST1, 20, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu1[] = {
		{ "hypervisor", 1, 2, -1 },
		{ "hypervisor", 2, 3, 1 },
		{ "preempted", 3, 6, 1 },
		{ "hypervisor", 6, 10, 1 },
		{ "guest", 10, 20, -1 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 1, vcpu1, G_N_ELEMENTS(vcpu1));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* A thread that exits a guest and never enters one has no vCPU number. */
START_TEST(exit_without_entry)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_exit(HOST, 2, 0, 1),
		ev_switch(HOST, 3, 0, 31, S_RUNNING, 10),
		ev_switch(GUEST1, 20, 0, 7, S_RUNNING, 8),
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	ck_assert_uint_eq(h->changes->len, 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	harness_free(h);
}
END_TEST

/* Inputs that are not events keep their place in the order. */
START_TEST(non_event_inputs_keep_their_place)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event first = ev_switch(HOST, 1, 0, 10, S_RUNNING, 31);
	const struct vm_event entry = ev_entry(HOST, 5, 0, 0);
	const struct vm_event end = ev_switch(GUEST1, 9, 0, 7, S_RUNNING, 8);
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 9, -1 },
	};

	add_machines(h, 2);
	harness_push_other(h);
	harness_push(h, &first);
	harness_push_other(h);
	harness_push(h, &entry);
	harness_push_other(h);
	harness_push(h, &end);
	harness_push_other(h);
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	harness_free(h);
}
END_TEST

/* Fields missing: warn once per kind and machine, read as unknown, go on. */
START_TEST(missing_fields)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_exit(HOST, 10, 0, VM_FIELD_MISSING),
		ev_entry(HOST, 15, 0, VM_FIELD_MISSING),
		ev_exit(HOST, 20, 0, VM_FIELD_MISSING),
		ev_switch(HOST, 22, 0, 31, S_RUNNING, VM_FIELD_MISSING),
		ev_entry(HOST, 25, 0, 0),
		ev_exit(HOST, 30, 0, 32),
		ev_switch(GUEST1, 40, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 10, -1 },
		{ "hypervisor", 10, 15, -1 },
		{ "guest", 15, 20, -1 },
		{ "hypervisor", 20, 25, -1 },
		{ "guest", 25, 30, -1 },
		{ "hypervisor", 30, 40, 32 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_MISSING_FIELDS, HOST), 1);
	ck_assert_uint_eq(h->warnings->len, 1);
	harness_free(h);
}
END_TEST

/*
 * A vCPU thread no rule maps: the look-ahead gives up after its time
 * window, warns once, and releases inputs without waiting for the end.
 */
START_TEST(lookahead_time_limit)
{
	const struct vm_vcpu_limits limits = { 100, 1000000, 10, 10 };
	struct harness *h = harness_new(NULL, &limits);
	struct vm_event event;
	int64_t ts;

	add_machines(h, 3);
	event = ev_switch(HOST, 1, 0, 10, S_RUNNING, 31);
	harness_push(h, &event);
	for (ts = 10; ts < 1000; ts += 10) {
		event = ts % 20 ? ev_entry(HOST, ts, 0, 0) : ev_exit(HOST, ts, 0, 1);
		harness_push(h, &event);
	}
	ck_assert_uint_le(h->max_held, 13);
	ck_assert_uint_gt(h->outputs->len, 50);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_LOOKAHEAD_LIMIT, HOST), 1);
	harness_flush(h);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	ck_assert_uint_eq(h->changes->len, 0);
	harness_free(h);
}
END_TEST

START_TEST(lookahead_event_limit)
{
	const struct vm_vcpu_limits limits = { INT64_MAX, 4, 10, 10 };
	struct harness *h = harness_new(NULL, &limits);
	struct vm_event event;
	int64_t ts;

	add_machines(h, 3);
	event = ev_switch(HOST, 1, 0, 10, S_RUNNING, 31);
	harness_push(h, &event);
	for (ts = 10; ts < 100; ts += 10) {
		event = ev_entry(HOST, ts, 0, 0);
		harness_push(h, &event);
	}
	ck_assert_uint_le(h->max_held, 5);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_LOOKAHEAD_LIMIT, HOST), 1);
	harness_flush(h);
	harness_free(h);
}
END_TEST

/*
 * The look-ahead holds only from the first input that what it waits for
 * governs: here the switch-in of a vCPU thread whose VM is unknown.
 */
START_TEST(lookahead_holds_only_what_it_needs)
{
	const struct vm_vcpu_limits limits = { 1000000000, 1000000, 2, 2 };
	struct harness *h = harness_new(NULL, &limits);
	struct vm_event event;
	int64_t ts;

	add_machines(h, 3);
	for (ts = 1; ts <= 5; ts++) {
		event = ev_switch(GUEST1, ts, 0, 7, S_RUNNING, 8);
		harness_push(h, &event);
	}
	event = ev_switch(HOST, 10, 0, 10, S_RUNNING, 31);
	harness_push(h, &event);
	event = ev_entry(HOST, 11, 0, 0);
	harness_push(h, &event);
	for (ts = 12; ts <= 20; ts++) {
		event = ev_switch(GUEST1, ts, 0, 7, S_RUNNING, 8);
		harness_push(h, &event);
	}
	/* The 5 guest events are out, the rest waits for the VM of thread 31. */
	ck_assert_uint_eq(h->outputs->len, 5);
	ck_assert_uint_eq(vm_vcpu_tracker_held(h->tracker), 11);
	harness_flush(h);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	harness_free(h);
}
END_TEST

/*
 * A second machine with kvm events is not a host: ignored, and not warned
 * here (the host rule's warning, with every machine's counts, is the
 * component's, see model/host-rule.h).
 */
START_TEST(second_machine_with_kvm_events)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, S_RUNNING, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_switch(GUEST1, 6, 0, 7, S_RUNNING, 41),
		ev_entry(GUEST1, 7, 0, 0),
		ev_exit(GUEST1, 8, 0, 1),
		ev_switch(GUEST1, 9, 0, 41, S_RUNNING, 7),
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 9, -1 },
	};

	add_machines(h, 2);
	push_all(h, events, G_N_ELEMENTS(events));
	harness_flush(h);
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(h->changes->len, 2);
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* A guest alone: one warning, every input released, no mode invented. */
START_TEST(guest_without_host)
{
	const struct vm_vcpu_limits limits = { 50, 1000000, 10, 10 };
	struct harness *h = harness_new(NULL, &limits);
	struct vm_event event;
	int64_t ts;

	add_machines(h, 2);
	for (ts = 0; ts < 200; ts += 10) {
		event = ev_switch(GUEST1, ts, 0, 7, S_RUNNING, 8);
		harness_push(h, &event);
	}
	ck_assert_uint_le(h->max_held, 7);
	harness_flush(h);
	ck_assert_uint_eq(h->changes->len, 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_HOST, GUEST1), 1);
	ck_assert_uint_eq(h->outputs->len, 20);
	harness_free(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu");
	TCase *mapping = tcase_create("mapping");
	TCase *modes = tcase_create("modes");
	TCase *odd = tcase_create("odd-input");
	SRunner *sr;
	int failed;

	tcase_add_test(mapping, two_guests_by_vmsync);
	tcase_add_test(mapping, two_guests_by_vm_pids);
	tcase_add_test(mapping, two_guests_unmapped);
	tcase_add_test(mapping, two_vcpus_one_process);
	tcase_add_test(mapping, single_guest_single_qemu);
	tcase_add_test(mapping, single_guest_two_qemus_unmapped);
	tcase_add_test(mapping, single_guest_guess_checked_briefly);
	tcase_add_test(modes, halted_vcpu_is_blocked);
	tcase_add_test(modes, preemption_marker_is_preempted);
	tcase_add_test(modes, guest_events_first_invent_nothing);
	tcase_add_test(modes, events_before_first_switch);
	tcase_add_test(modes, exit_before_first_entry);
	tcase_add_test(modes, exit_without_entry);
	tcase_add_test(modes, non_event_inputs_keep_their_place);
	tcase_add_test(odd, thread_changes_vcpu_id);
	tcase_add_test(odd, thread_moves_to_another_vm);
	tcase_add_test(odd, thread_exits_and_vcpu_recreated);
	tcase_add_test(odd, vcpu_taken_over_by_new_thread);
	tcase_add_test(odd, missing_fields);
	tcase_add_test(odd, lookahead_time_limit);
	tcase_add_test(odd, lookahead_event_limit);
	tcase_add_test(odd, lookahead_holds_only_what_it_needs);
	tcase_add_test(odd, guest_without_host);
	tcase_add_test(odd, second_machine_with_kvm_events);
	suite_add_tcase(s, mapping);
	suite_add_tcase(s, modes);
	suite_add_tcase(s, odd);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
