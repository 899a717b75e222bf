/*
 * Trace Compass's OneQemuKvm stub (incubator vm analysis test traces
 * host.xml and guest.xml): one host CPU, one guest with one vCPU run by host
 * thread 31. The events are transcribed here as plain events, merged in
 * time order; host = machine 0, guest = machine 1.
 */

#include <check.h>
#include <stdlib.h>

#include "test-vcpu-harness.h"

enum { HOST = 0, GUEST = 1 };

#define UID 123456

static void push_one_qemu_kvm(struct harness *h)
{
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 30, 0, 31),
		ev_entry(HOST, 5, 0, 0),
		ev_switch(GUEST, 10, 0, 130, 0, 131),
		ev_switch(GUEST, 35, 0, 131, 0, 130),
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST, 40, 0, 1, UID),
		ev_exit(HOST, 45, 0, 32),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 50, 0, 1, UID),
		ev_vmsync(VM_EVENT_VMSYNC_HG_HOST, HOST, 55, 0, 2, UID),
		ev_entry(HOST, 60, 0, 0),
		ev_vmsync(VM_EVENT_VMSYNC_HG_GUEST, GUEST, 65, 0, 2, UID),
		ev_switch(GUEST, 75, 0, 130, 0, 131),
		ev_exit(HOST, 95, 0, 32),
		ev_switch(HOST, 100, 0, 31, 0, 30),
		ev_switch(HOST, 150, 0, 30, 0, 31),
		ev_entry(HOST, 155, 0, 0),
		ev_switch(GUEST, 175, 0, 131, 0, 130),
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST, 190, 0, 3, UID),
		ev_exit(HOST, 195, 0, 32),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 200, 0, 3, UID),
		ev_vmsync(VM_EVENT_VMSYNC_HG_HOST, HOST, 205, 0, 4, UID),
		ev_entry(HOST, 210, 0, 0),
		ev_vmsync(VM_EVENT_VMSYNC_HG_GUEST, GUEST, 215, 0, 4, UID),
		ev_switch(GUEST, 225, 0, 130, 0, 131),
		ev_vmsync(VM_EVENT_VMSYNC_GH_GUEST, GUEST, 240, 0, 5, UID),
		ev_exit(HOST, 245, 0, 32),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 250, 0, 5, UID),
		ev_vmsync(VM_EVENT_VMSYNC_HG_HOST, HOST, 255, 0, 6, UID),
		ev_entry(HOST, 260, 0, 0),
		ev_vmsync(VM_EVENT_VMSYNC_HG_GUEST, GUEST, 265, 0, 6, UID),
		ev_switch(GUEST, 275, 0, 131, 0, 130),
		ev_exit(HOST, 295, 0, 32),
		ev_switch(HOST, 300, 0, 31, 0, 30),
		ev_switch(HOST, 350, 0, 30, 0, 31),
		ev_entry(HOST, 355, 0, 0),
		ev_switch(GUEST, 375, 0, 130, 0, 131),
	};
	size_t i;

	/* As the plugin does: machines are known from their streams first. */
	vm_vcpu_tracker_add_machine(h->tracker, HOST);
	vm_vcpu_tracker_add_machine(h->tracker, GUEST);
	for (i = 0; i < G_N_ELEMENTS(events); i++)
		harness_push(h, &events[i]);
	harness_flush(h);
}

/* The modes of vCPU 0 that SPEC's rules give on this stub. */
static const struct expected_interval one_qemu_kvm_vcpu0[] = {
	{ "hypervisor", 1, 5, -1 },
	{ "guest", 5, 45, -1 },
	{ "hypervisor", 45, 60, 32 },
	{ "guest", 60, 95, -1 },
	{ "hypervisor", 95, 100, 32 },
	{ "preempted", 100, 150, 32 },
	{ "hypervisor", 150, 155, 32 },
	{ "guest", 155, 195, -1 },
	{ "hypervisor", 195, 210, 32 },
	{ "guest", 210, 245, -1 },
	{ "hypervisor", 245, 260, 32 },
	{ "guest", 260, 295, -1 },
	{ "hypervisor", 295, 300, 32 },
	{ "preempted", 300, 350, 32 },
	{ "hypervisor", 350, 355, 32 },
	{ "guest", 355, 375, -1 },
};

START_TEST(one_qemu_kvm_modes)
{
	struct harness *h = harness_new(NULL, NULL);

	push_one_qemu_kvm(h);
	harness_check_intervals(h, GUEST, 0, one_qemu_kvm_vcpu0,
		G_N_ELEMENTS(one_qemu_kvm_vcpu0));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* Host thread and host CPU of each change. */
START_TEST(one_qemu_kvm_thread_and_cpu)
{
	struct harness *h = harness_new(NULL, NULL);
	guint i;

	push_one_qemu_kvm(h);
	ck_assert_uint_gt(h->changes->len, 0);
	for (i = 0; i < h->changes->len; i++) {
		const struct vm_vcpu_change *change =
			&g_array_index(h->changes, struct vm_vcpu_change, i);

		ck_assert_uint_eq(change->host, HOST);
		ck_assert_int_eq(change->host_tid, 31);
		if (change->mode == VM_VCPU_PREEMPTED)
			ck_assert_int_eq(change->pcpu, -1);
		else
			ck_assert_int_eq(change->pcpu, 0);
	}
	harness_free(h);
}
END_TEST

/*
 * With a second guest machine the single-guest rule cannot apply: only the
 * vmsync pair at t = 40/50 names the VM. The look-ahead must hold every
 * input until then (including the switch-in at t = 1, pushed before thread
 * 31 was known as a vCPU thread), and the modes must be the same.
 */
START_TEST(one_qemu_kvm_holds_until_vmsync)
{
	struct harness *h = harness_new(NULL, NULL);

	vm_vcpu_tracker_add_machine(h->tracker, 2);
	push_one_qemu_kvm(h);
	harness_check_intervals(h, GUEST, 0, one_qemu_kvm_vcpu0,
		G_N_ELEMENTS(one_qemu_kvm_vcpu0));
	/* The 6 inputs before vmsync_gh_host (t = 50) were held together. */
	ck_assert_uint_ge(h->max_held, 6);
	ck_assert_uint_eq(harness_change_count(h, 2, 0), 0);
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu-one-qemu-kvm");
	TCase *tc = tcase_create("stub");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, one_qemu_kvm_modes);
	tcase_add_test(tc, one_qemu_kvm_thread_and_cpu);
	tcase_add_test(tc, one_qemu_kvm_holds_until_vmsync);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
