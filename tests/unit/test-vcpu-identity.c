/*
 * The vCPU state machine in each layout of the kvm events: which vCPU a
 * host thread runs, from the exits' vcpu_id (lttng-modules >= 2.13 on
 * Linux >= 5.10, whose entries hold pointer fragments), QEMU's thread names
 * or the order of appearance, with the warnings SPEC asks for.
 */

#include <check.h>
#include <stdlib.h>

#include "test-vcpu-harness.h"

enum { HOST = 0, GUEST1 = 1 };

#define S_RUNNING 0
#define FRAGMENT_A INT64_C(3149925504)
#define FRAGMENT_B INT64_C(3149929600)

static void run(struct harness *h, const struct vm_event *events, size_t count)
{
	vm_vcpu_tracker_add_machine(h->tracker, HOST);
	vm_vcpu_tracker_add_machine(h->tracker, GUEST1);
	for (size_t i = 0; i < count; i++)
		harness_push(h, &events[i]);
	harness_flush(h);
}

/*
 * One QEMU (pid 30) with two vCPU threads, each entering before any exit:
 * its number is that of its exits from its first entry on.
 */
START_TEST(modern_layout)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 31, 30),
		ev_statedump(HOST, 0, 32, 30),
		ev_switch(HOST, 1, 0, 1, S_RUNNING, 31),
		ev_switch(HOST, 1, 1, 2, S_RUNNING, 32),
		ev_entry(HOST, 3, 0, FRAGMENT_A),
		ev_entry(HOST, 4, 1, FRAGMENT_B),
		ev_exit_id(HOST, 10, 0, 12, 1),
		ev_exit_id(HOST, 11, 1, 48, 0),
		ev_entry(HOST, 16, 0, FRAGMENT_A),
		ev_switch(GUEST1, 30, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu1[] = {
		{ "hypervisor", 1, 3, -1 },
		{ "guest", 3, 10, -1 },
		{ "hypervisor", 10, 16, 12 },
		{ "guest", 16, 30, -1 },
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 4, -1 },
		{ "guest", 4, 11, -1 },
		{ "hypervisor", 11, 30, 48 },
	};

	run(h, events, G_N_ELEMENTS(events));
	harness_check_intervals(h, GUEST1, 1, vcpu1, G_N_ELEMENTS(vcpu1));
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_ENTRY_ID, HOST), 1);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_MIGRATION, HOST), 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NO_VM, HOST), 0);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NUMBERED_BY_ORDER, HOST), 0);
	harness_free(h);
}
END_TEST

/* Classic layout: entries name the vCPU, exits are silent; no warning. */
START_TEST(classic_layout)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 31, 30),
		ev_switch(HOST, 1, 0, 1, S_RUNNING, 31),
		ev_entry(HOST, 3, 0, 2),
		ev_exit(HOST, 10, 0, 12),
		ev_entry(HOST, 16, 0, 2),
		ev_switch(GUEST1, 30, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu2[] = {
		{ "hypervisor", 1, 3, -1 },
		{ "guest", 3, 10, -1 },
		{ "hypervisor", 10, 16, 12 },
		{ "guest", 16, 30, -1 },
	};

	run(h, events, G_N_ELEMENTS(events));
	harness_check_intervals(h, GUEST1, 2, vcpu2, G_N_ELEMENTS(vcpu2));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* Pointer fragments and exits without vcpu_id: QEMU's `CPU <n>/KVM` names. */
START_TEST(fragments_and_names)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump_named(HOST, 0, 31, 30, "CPU 1/KVM"),
		ev_statedump_named(HOST, 0, 32, 30, "CPU 0/KVM"),
		ev_switch(HOST, 1, 0, 1, S_RUNNING, 31),
		ev_switch(HOST, 1, 1, 2, S_RUNNING, 32),
		ev_entry(HOST, 3, 0, FRAGMENT_A),
		ev_entry(HOST, 4, 1, FRAGMENT_B),
		ev_exit(HOST, 10, 0, 12),
		ev_switch(GUEST1, 30, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval vcpu1[] = {
		{ "hypervisor", 1, 3, -1 },
		{ "guest", 3, 10, -1 },
		{ "hypervisor", 10, 30, 12 },
	};
	static const struct expected_interval vcpu0[] = {
		{ "hypervisor", 1, 4, -1 },
		{ "guest", 4, 30, -1 },
	};

	run(h, events, G_N_ELEMENTS(events));
	harness_check_intervals(h, GUEST1, 1, vcpu1, G_N_ELEMENTS(vcpu1));
	harness_check_intervals(h, GUEST1, 0, vcpu0, G_N_ELEMENTS(vcpu0));
	ck_assert_uint_eq(h->warnings->len, 0);
	harness_free(h);
}
END_TEST

/* Nothing gives the numbers: order of appearance, with one warning. */
START_TEST(fragments_numbered_in_order)
{
	struct harness *h = harness_new(NULL, NULL);
	const struct vm_event events[] = {
		ev_statedump(HOST, 0, 31, 30),
		ev_statedump(HOST, 0, 32, 30),
		ev_switch(HOST, 1, 0, 1, S_RUNNING, 32),
		ev_switch(HOST, 1, 1, 2, S_RUNNING, 31),
		ev_entry(HOST, 3, 0, FRAGMENT_B),
		ev_exit(HOST, 5, 0, 12),
		ev_entry(HOST, 6, 1, FRAGMENT_A),
		ev_exit(HOST, 8, 1, 48),
		ev_switch(GUEST1, 30, 0, 7, S_RUNNING, 8),
	};
	static const struct expected_interval first[] = {
		{ "hypervisor", 1, 3, -1 },
		{ "guest", 3, 5, -1 },
		{ "hypervisor", 5, 30, 12 },
	};
	static const struct expected_interval second[] = {
		{ "hypervisor", 1, 6, -1 },
		{ "guest", 6, 8, -1 },
		{ "hypervisor", 8, 30, 48 },
	};

	run(h, events, G_N_ELEMENTS(events));
	harness_check_intervals(h, GUEST1, 0, first, G_N_ELEMENTS(first));
	harness_check_intervals(h, GUEST1, 1, second, G_N_ELEMENTS(second));
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_NUMBERED_BY_ORDER, HOST), 1);
	ck_assert_uint_eq(harness_warnings(h, VM_VCPU_WARN_MIGRATION, HOST), 0);
	harness_free(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu-identity");
	TCase *tc = tcase_create("identity");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, modern_layout);
	tcase_add_test(tc, classic_layout);
	tcase_add_test(tc, fragments_and_names);
	tcase_add_test(tc, fragments_numbered_in_order);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
