/*
 * The vCPU state machine across lost events (SPEC "Lost events"): hand-made
 * sequences with located gaps (VM_EVENT_LOSS), checked change by change,
 * `unknown` ones included, against what the SPEC says they mean.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test-vcpu-harness.h"
#include "model/kvm.h"

enum { HOST = 0, GUEST1 = 1 };

#define S_RUNNING 0
#define S_SLEEPING 1

/* QEMU process 30 runs GUEST1: its threads 31 (vCPU 0) and 41 (vCPU 1). */
static struct harness *new_harness(void)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event dumps[] = {
		ev_statedump(HOST, 0, 31, 30),
		ev_statedump(HOST, 0, 41, 30),
	};

	vm_vcpu_tracker_add_machine(h->tracker, HOST);
	vm_vcpu_tracker_add_machine(h->tracker, GUEST1);
	h->model->cls->set_vm_pid(h->model->data, GUEST1, 30);
	harness_push(h, &dumps[0]);
	harness_push(h, &dumps[1]);
	return h;
}

static void push_all(struct harness *h, const struct vm_event *events,
		size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		harness_push(h, &events[i]);
	harness_flush(h);
}

struct expected_change {
	const char *mode;
	int64_t ts;
	int64_t host_tid;
	int64_t pcpu;
	int64_t exit_reason;
};

/* Every change of (GUEST1, vcpu), unknown ones too, exactly. */
static void check_changes(const struct harness *h, uint64_t vcpu,
		const struct expected_change *expected, size_t count)
{
	size_t found = 0;
	guint i;

	for (i = 0; i < h->changes->len; i++) {
		const struct vm_vcpu_change *change =
			&g_array_index(h->changes, struct vm_vcpu_change, i);

		if (change->vm != GUEST1 || change->vcpu != vcpu)
			continue;
		ck_assert_msg(found < count, "unexpected change to %s at %ld",
			vm_vcpu_mode_name(change->mode), (long) change->ts);
		ck_assert_str_eq(vm_vcpu_mode_name(change->mode), expected[found].mode);
		ck_assert_int_eq(change->ts, expected[found].ts);
		ck_assert_int_eq(change->host_tid, expected[found].host_tid);
		ck_assert_int_eq(change->pcpu, expected[found].pcpu);
		ck_assert_int_eq(change->exit_reason, expected[found].exit_reason);
		found++;
	}
	ck_assert_uint_eq(found, count);
}

/*
 * A host CPU loses events while its current thread runs guest code: the
 * vCPU is unknown from the gap's start; the kvm events of that CPU before
 * its next sched_switch belong to no known thread; that switch's prev_tid
 * is trusted.
 */
START_TEST(loss_in_guest_mode)
{
	struct harness *h = new_harness();
	const struct vm_event events[] = {
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 20, 0, 0),
		ev_loss(HOST, 30, 0, 50, 5),
		ev_entry(HOST, 40, 0, 0),
		ev_exit(HOST, 45, 0, 12),
		ev_switch(HOST, 60, 0, 31, S_SLEEPING, 0),
		ev_switch(HOST, 70, 0, 0, S_RUNNING, 31),
		ev_entry(HOST, 80, 0, 0),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 20, 31, 0, -1 },
		{ "unknown", 30, 31, -1, -1 },
		{ "blocked", 60, 31, -1, -1 },
		{ "hypervisor", 70, 31, 0, -1 },
		{ "guest", 80, 31, 0, -1 },
	};
	static const struct expected_interval known[] = {
		{ "hypervisor", 10, 20, -1 },
		{ "guest", 20, 30, -1 },
		{ "blocked", 60, 70, -1 },
		{ "hypervisor", 70, 80, -1 },
		{ "guest", 80, 90, -1 },
	};

	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	/* Also the release order and the changes' times. */
	harness_check_intervals(h, GUEST1, 0, known, G_N_ELEMENTS(known));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_CONTRADICTION, HOST), 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_UNATTRIBUTED, HOST), 0);
	harness_free(h);
}
END_TEST

/*
 * The vCPU comes back with a kvm event of its thread on a CPU whose current
 * thread is known (it moved there during the gap), while its old CPU is
 * still unknown.
 */
START_TEST(loss_ends_on_another_cpu)
{
	struct harness *h = new_harness();
	const struct vm_event events[] = {
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 20, 0, 0),
		ev_switch(HOST, 25, 1, 2, S_RUNNING, 0),
		ev_loss(HOST, 30, 0, 50, -1),
		ev_switch(HOST, 55, 1, 0, S_RUNNING, 31),
		ev_entry(HOST, 58, 1, 0),
		ev_exit(HOST, 62, 1, 48),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 20, 31, 0, -1 },
		{ "unknown", 30, 31, -1, -1 },
		{ "hypervisor", 55, 31, 1, -1 },
		{ "guest", 58, 31, 1, -1 },
		{ "hypervisor", 62, 31, 1, 48 },
	};

	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	harness_free(h);
}
END_TEST

/*
 * kvm events on a CPU whose current thread is unknown since a loss are not
 * attributed, and do not make their (unknown) thread a vCPU thread: vCPU 1
 * appears only once a known thread enters it. A loss on another CPU leaves
 * vCPU 0 alone.
 */
START_TEST(kvm_events_of_unknown_thread_ignored)
{
	struct harness *h = new_harness();
	const struct vm_event events[] = {
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 12, 0, 0),
		ev_switch(HOST, 15, 1, 2, S_RUNNING, 0),
		ev_loss(HOST, 30, 1, 33, 100),
		ev_entry(HOST, 35, 1, 1),
		ev_exit(HOST, 38, 1, 1),
		ev_entry(HOST, 39, 1, 1),
		ev_switch(HOST, 50, 1, 41, S_RUNNING, 42),
		ev_switch(HOST, 55, 1, 42, S_SLEEPING, 41),
		ev_entry(HOST, 60, 1, 1),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 12, 31, 0, -1 },
	};
	static const struct expected_change vcpu1[] = {
		{ "hypervisor", 55, 41, 1, -1 },
		{ "guest", 60, 41, 1, -1 },
	};

	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	check_changes(h, 1, vcpu1, G_N_ELEMENTS(vcpu1));
	harness_free(h);
}
END_TEST

/*
 * A sched_switch whose prev_tid is not the thread believed current is
 * trusted, lost events or not: the thread believed current left the CPU
 * (its vCPU is unknown); one warning per machine however often it happens.
 */
START_TEST(contradicting_switch_trusted)
{
	struct harness *h = new_harness();
	const struct vm_event events[] = {
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 20, 0, 0),
		ev_switch(HOST, 50, 0, 77, S_RUNNING, 0),
		ev_switch(HOST, 60, 1, 2, S_RUNNING, 31),
		ev_entry(HOST, 65, 1, 0),
		ev_switch(HOST, 70, 0, 88, S_RUNNING, 0),
		ev_switch(HOST, 75, 1, 99, S_RUNNING, 0),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 20, 31, 0, -1 },
		{ "unknown", 50, 31, -1, -1 },
		{ "hypervisor", 60, 31, 1, -1 },
		{ "guest", 65, 31, 1, -1 },
		{ "unknown", 75, 31, -1, -1 },
	};

	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_CONTRADICTION, HOST), 1);
	harness_free(h);
}
END_TEST

/*
 * A contradicting switch that switches the thread believed current back
 * in: it is in the hypervisor from there, no unknown in between.
 */
START_TEST(contradicting_switch_back_in)
{
	struct harness *h = new_harness();
	const struct vm_event events[] = {
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 20, 0, 0),
		ev_switch(HOST, 50, 0, 77, S_RUNNING, 31),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 20, 31, 0, -1 },
		{ "hypervisor", 50, 31, 0, -1 },
	};

	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_CONTRADICTION, HOST), 1);
	harness_free(h);
}
END_TEST

/*
 * A loss before the CPU's first sched_switch (in a stream's first packet):
 * the kvm events before the gap are whole, and SPEC's trace-start rule gives
 * them that switch's prev_tid, even though the switch comes after the gap.
 * From the gap's start the vCPU is unknown until the switch names its
 * thread; the entry inside the gap (at 8, the CPU's thread unknown) is not
 * attributed.
 */
START_TEST(loss_before_any_state)
{
	struct harness *h = new_harness();
	const struct vm_event events[] = {
		ev_entry(HOST, 2, 0, 0),
		ev_loss(HOST, 5, 0, 9, 3),
		ev_entry(HOST, 8, 0, 0),
		ev_switch(HOST, 10, 0, 31, S_RUNNING, 0),
		ev_switch(HOST, 20, 0, 0, S_RUNNING, 31),
		ev_entry(HOST, 25, 0, 0),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "guest", 2, 31, 0, -1 },
		{ "unknown", 5, 31, -1, -1 },
		{ "preempted", 10, 31, -1, -1 },
		{ "hypervisor", 20, 31, 0, -1 },
		{ "guest", 25, 31, 0, -1 },
	};

	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_UNATTRIBUTED, HOST), 0);
	harness_free(h);
}
END_TEST

/*
 * Losses that concern no vCPU mode: on a guest CPU (guest threads are
 * sink.vm.threads' business), on a host CPU running another thread, and
 * without a CPU (warned as a missing field).
 */
START_TEST(losses_without_vcpu_change)
{
	struct harness *h = new_harness();
	struct vm_event no_cpu = ev_loss(HOST, 40, 0, 41, 1);
	struct vm_event events[8];
	const struct vm_event sequence[] = {
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 20, 0, 0),
		ev_switch(HOST, 25, 1, 2, S_RUNNING, 0),
		ev_loss(GUEST1, 30, 0, 35, 7),
		ev_loss(HOST, 31, 1, 35, 7),
		no_cpu,
		ev_exit(HOST, 50, 0, 1),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 20, 31, 0, -1 },
		{ "hypervisor", 50, 31, 0, 1 },
	};

	memcpy(events, sequence, sizeof(events));
	events[5].cpu = VM_FIELD_MISSING;
	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_MISSING_FIELDS, HOST), 1);
	harness_free(h);
}
END_TEST

/*
 * A loss while the look-ahead still holds the vCPU thread's first changes
 * (its VM is learnt later): the unknown change waits with them and comes
 * out in order.
 */
START_TEST(loss_while_vm_unknown)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 31, 30),
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 20, 0, 0),
		ev_loss(HOST, 30, 0, 32, 2),
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST1, 40, 0, 1, 11),
		ev_switch(HOST, 45, 0, 31, S_RUNNING, 0),
		ev_switch(HOST, 46, 0, 0, S_RUNNING, 31),
		ev_exit(HOST, 50, 0, 18),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 55, 0, 1, 11),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 20, 31, 0, -1 },
		{ "unknown", 30, 31, -1, -1 },
		{ "preempted", 45, 31, -1, -1 },
		{ "hypervisor", 46, 31, 0, -1 },
		{ "hypervisor", 50, 31, 0, 18 },
	};
	static const struct expected_interval known[] = {
		{ "hypervisor", 10, 20, -1 },
		{ "guest", 20, 30, -1 },
		{ "preempted", 45, 46, -1 },
		{ "hypervisor", 46, 50, -1 },
		{ "hypervisor", 50, 90, 18 },
	};

	vm_vcpu_tracker_add_machine(h->tracker, HOST);
	vm_vcpu_tracker_add_machine(h->tracker, GUEST1);
	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	harness_check_intervals(h, GUEST1, 0, known, G_N_ELEMENTS(known));
	harness_free(h);
}
END_TEST

/*
 * A vCPU thread blocked elsewhere is the prev_tid of the first sched_switch
 * after a loss: it ran there during the gap, unseen (its exit ended, say),
 * so its vCPU is unknown from the gap's start until that switch.
 */
START_TEST(thread_ran_during_gap)
{
	struct harness *h = new_harness();
	const struct vm_event events[] = {
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 20, 0, 0),
		ev_exit(HOST, 25, 0, 12),
		ev_switch(HOST, 30, 0, 31, S_SLEEPING, 0),
		ev_switch(HOST, 35, 1, 2, S_RUNNING, 0),
		ev_loss(HOST, 40, 1, 50, 9),
		ev_entry(HOST, 55, 1, 0),
		ev_switch(HOST, 60, 1, 31, S_RUNNING, 0),
		ev_switch(HOST, 70, 0, 0, S_RUNNING, 31),
		ev_entry(HOST, 75, 0, 0),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 20, 31, 0, -1 },
		{ "hypervisor", 25, 31, 0, 12 },
		{ "blocked", 30, 31, -1, 12 },
		{ "unknown", 40, 31, -1, -1 },
		{ "preempted", 60, 31, -1, -1 },
		{ "hypervisor", 70, 31, 0, -1 },
		{ "guest", 75, 31, 0, -1 },
	};
	static const struct expected_interval known[] = {
		{ "hypervisor", 10, 20, -1 },
		{ "guest", 20, 25, -1 },
		{ "hypervisor", 25, 30, 12 },
		{ "blocked", 30, 40, 12 },
		{ "preempted", 60, 70, -1 },
		{ "hypervisor", 70, 75, -1 },
		{ "guest", 75, 90, -1 },
	};

	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	harness_check_intervals(h, GUEST1, 0, known, G_N_ELEMENTS(known));
	harness_free(h);
}
END_TEST

/*
 * The same past the look-ahead's limits: the loss has left, the unknown
 * change comes at the switch that reveals it (an instant, but the vCPU's
 * open exit ends there, unmeasured).
 */
START_TEST(thread_ran_during_gap_past_limits)
{
	const struct vm_vcpu_limits limits = { 10, 1000, 1, 1 };
	struct harness *h = harness_new(NULL, &limits);
	const struct vm_event dumps[] = {
		ev_statedump(HOST, 0, 31, 30),
	};
	const struct vm_event events[] = {
		ev_switch(HOST, 10, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 20, 0, 0),
		ev_exit(HOST, 25, 0, 12),
		ev_switch(HOST, 30, 0, 31, S_SLEEPING, 0),
		ev_switch(HOST, 35, 1, 2, S_RUNNING, 0),
		ev_loss(HOST, 40, 1, 50, 9),
		ev_switch(HOST, 45, 0, 0, S_RUNNING, 0),
		ev_switch(HOST, 52, 0, 0, S_RUNNING, 0),
		ev_switch(HOST, 60, 1, 31, S_RUNNING, 0),
		ev_switch(GUEST1, 90, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_change vcpu0[] = {
		{ "hypervisor", 10, 31, 0, -1 },
		{ "guest", 20, 31, 0, -1 },
		{ "hypervisor", 25, 31, 0, 12 },
		{ "blocked", 30, 31, -1, 12 },
		{ "unknown", 60, 31, -1, -1 },
		{ "preempted", 60, 31, -1, -1 },
	};

	vm_vcpu_tracker_add_machine(h->tracker, HOST);
	vm_vcpu_tracker_add_machine(h->tracker, GUEST1);
	h->model->cls->set_vm_pid(h->model->data, GUEST1, 30);
	harness_push(h, &dumps[0]);
	push_all(h, events, G_N_ELEMENTS(events));
	check_changes(h, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	harness_free(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu-loss");
	TCase *loss = tcase_create("loss");
	SRunner *sr;
	int failed;

	tcase_add_test(loss, loss_in_guest_mode);
	tcase_add_test(loss, loss_ends_on_another_cpu);
	tcase_add_test(loss, kvm_events_of_unknown_thread_ignored);
	tcase_add_test(loss, contradicting_switch_trusted);
	tcase_add_test(loss, contradicting_switch_back_in);
	tcase_add_test(loss, loss_before_any_state);
	tcase_add_test(loss, losses_without_vcpu_change);
	tcase_add_test(loss, loss_while_vm_unknown);
	tcase_add_test(loss, thread_ran_during_gap);
	tcase_add_test(loss, thread_ran_during_gap_past_limits);
	suite_add_tcase(s, loss);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
