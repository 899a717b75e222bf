/*
 * The elimination rule of the KVM model (rule 4): with every guest but one
 * identified (vmsync, vm-pids or vm_host_pid) and every QEMU process with
 * vCPU threads but one claimed, the two left belong together; a guess, so
 * another process seen in the look-ahead withdraws it.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test-vcpu-harness.h"
#include "model/kvm.h"

enum { HOST = 0, GUEST1 = 1, GUEST2 = 2, GUEST3 = 3 };

#define S_RUNNING 0

/* Which guests name their QEMU, and how. */
struct identities {
	bool vmsync[4];      /* by guest: its vm_uid on both sides */
	int64_t vm_pid[4];   /* by guest: vm-pids entry (0: none) */
	bool fourth_qemu;    /* an untraced VM's vCPU thread shows up */
};

/*
 * Three QEMU processes (100, 200, 300), one vCPU thread each (tid pid+1)
 * on host CPUs 0 to 2; guest n's vm_uid is 11 * n.
 */
static void run_three_guests(struct harness *h, const struct identities *ids)
{
	static const int64_t pids[] = { 0, 100, 200, 300 };
	struct vm_event event;

	for (unsigned int machine = HOST; machine <= GUEST3; machine++)
		vm_vcpu_tracker_add_machine(h->tracker, machine);
	for (unsigned int g = GUEST1; g <= GUEST3; g++)
		if (ids->vm_pid[g])
			h->model->cls->set_vm_pid(h->model->data, g, ids->vm_pid[g]);
	for (unsigned int g = GUEST1; g <= GUEST3; g++) {
		event = ev_statedump(HOST, 0, pids[g] + 1, pids[g]);
		harness_push(h, &event);
	}
	if (ids->fourth_qemu) {
		event = ev_statedump(HOST, 0, 401, 400);
		harness_push(h, &event);
	}
	for (unsigned int g = GUEST1; g <= GUEST3; g++) {
		event = ev_switch(HOST, g, g - 1, 1, S_RUNNING, pids[g] + 1);
		harness_push(h, &event);
	}
	for (unsigned int g = GUEST1; g <= GUEST3; g++) {
		event = ev_entry(HOST, 4 + g, g - 1, 0);
		harness_push(h, &event);
	}
	for (unsigned int g = GUEST1; g <= GUEST3; g++) {
		if (!ids->vmsync[g])
			continue;
		event = ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, g, 9 + g, 0, 1, 11 * g);
		harness_push(h, &event);
	}
	for (unsigned int g = GUEST1; g <= GUEST3; g++) {
		event = ev_exit(HOST, 19 + g, g - 1, 18);
		harness_push(h, &event);
	}
	for (unsigned int g = GUEST1; g <= GUEST3; g++) {
		if (!ids->vmsync[g])
			continue;
		event = ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 24 + g, g - 1, 1, 11 * g);
		harness_push(h, &event);
	}
	if (ids->fourth_qemu) {
		event = ev_switch(HOST, 28, 3, 4, S_RUNNING, 401);
		harness_push(h, &event);
		event = ev_entry(HOST, 29, 3, 0);
		harness_push(h, &event);
	}
	for (unsigned int g = GUEST1; g <= GUEST3; g++) {
		event = ev_entry(HOST, 29 + g, g - 1, 0);
		harness_push(h, &event);
	}
	event = ev_switch(GUEST1, 50, 0, 7, S_RUNNING, 8);
	harness_push(h, &event);
	harness_flush(h);
}

/* vCPU 0 of guest `g` (its thread's events at g + ...), as run_three_guests() runs it. */
static void check_vcpu0(const struct harness *h, unsigned int g)
{
	const struct expected_interval expected[] = {
		{ "hypervisor", g, 4 + g, -1 },
		{ "guest", 4 + g, 19 + g, -1 },
		{ "hypervisor", 19 + g, 29 + g, 18 },
		{ "guest", 29 + g, 50, -1 },
	};

	harness_check_intervals(h, g, 0, expected, G_N_ELEMENTS(expected));
}

/* Two guests named by vmsync: the third is the QEMU left. */
START_TEST(last_guest_after_vmsync)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct identities ids = { .vmsync = { false, true, true, false } };

	run_three_guests(h, &ids);
	for (unsigned int g = GUEST1; g <= GUEST3; g++)
		check_vcpu0(h, g);
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* The rules mixed: vm-pids (or vm_host_pid) for one, vmsync for another. */
START_TEST(last_guest_after_pids_and_vmsync)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct identities ids = {
		.vmsync = { false, false, false, true },
		.vm_pid = { 0, 100, 0, 0 },
	};

	run_three_guests(h, &ids);
	for (unsigned int g = GUEST1; g <= GUEST3; g++)
		check_vcpu0(h, g);
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* Two guests and two processes left: nothing tells which is which. */
START_TEST(two_left_unmapped)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct identities ids = { .vmsync = { false, true, false, false } };

	run_three_guests(h, &ids);
	check_vcpu0(h, GUEST1);
	ck_assert_uint_eq(harness_change_count(h, GUEST2, 0), 0);
	ck_assert_uint_eq(harness_change_count(h, GUEST3, 0), 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	/* The warning names the guests left, and why elimination cannot tell. */
	ck_assert_ptr_nonnull(strstr(g_ptr_array_index(h->messages, 0),
		"Not identified: guests `m2`, `m3` ("));
	ck_assert_ptr_nonnull(strstr(g_ptr_array_index(h->messages, 0),
		"2 host processes with vCPU threads are left"));
	harness_free(h);
}
END_TEST

/*
 * A fourth process with vCPU threads (a VM with no trace), seen while the
 * guess waits: two processes are left for one guest, so no guess.
 */
START_TEST(guess_withdrawn_by_another_qemu)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct identities ids = {
		.vmsync = { false, true, true, false },
		.fourth_qemu = true,
	};

	run_three_guests(h, &ids);
	check_vcpu0(h, GUEST1);
	check_vcpu0(h, GUEST2);
	ck_assert_uint_eq(harness_change_count(h, GUEST3, 0), 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	ck_assert_ptr_nonnull(strstr(g_ptr_array_index(h->messages, 0),
		"Not identified: guest `m3` ("));
	harness_free(h);
}
END_TEST

/* A vm-pids entry naming a process without vCPU threads identifies nothing. */
START_TEST(pid_without_vcpus_does_not_count)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct identities ids = {
		.vmsync = { false, false, true, false },
		.vm_pid = { 0, 999, 0, 0 },
	};

	run_three_guests(h, &ids);
	check_vcpu0(h, GUEST2);
	ck_assert_uint_eq(harness_change_count(h, GUEST1, 0), 0);
	ck_assert_uint_eq(harness_change_count(h, GUEST3, 0), 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	harness_free(h);
}
END_TEST

/*
 * The guest left named, as its own vm_host_pid, a process that vm-pids
 * gives to another guest: its evidence contradicts the guess.
 */
START_TEST(refused_guest_gets_no_guess)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct identities ids = {
		.vmsync = { false, true, false, false },
		.vm_pid = { 0, 0, 200, 0 },
	};

	h->model->cls->set_vm_pid_refused(h->model->data, GUEST3, 200);
	run_three_guests(h, &ids);
	check_vcpu0(h, GUEST1);
	check_vcpu0(h, GUEST2);
	ck_assert_uint_eq(harness_change_count(h, GUEST3, 0), 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 1);
	ck_assert_ptr_nonnull(strstr(g_ptr_array_index(h->messages, 0),
		"so the one process left is not taken for it"));
	harness_free(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu-elimination");
	TCase *tc = tcase_create("elimination");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, last_guest_after_vmsync);
	tcase_add_test(tc, last_guest_after_pids_and_vmsync);
	tcase_add_test(tc, two_left_unmapped);
	tcase_add_test(tc, guess_withdrawn_by_another_qemu);
	tcase_add_test(tc, pid_without_vcpus_does_not_count);
	tcase_add_test(tc, refused_guest_gets_no_guess);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
