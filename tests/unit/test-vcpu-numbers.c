/*
 * The vCPU number of a vCPU thread (lib/model/vcpu-numbers.h), from each
 * kind of evidence LTTng traces give, in both kvm event layouts.
 */

#include <check.h>
#include <stdlib.h>

#include "event.h"
#include "model/vcpu-numbers.h"

enum { HOST = 0 };

/* Low halves of kvm_vcpu pointers, as lttng-modules >= 2.13 records them. */
#define FRAGMENT_A INT64_C(3149925504)
#define FRAGMENT_B INT64_C(3149929600)

static struct vm_vcpu_number number_of(struct vm_vcpu_numbers *n, int64_t tid,
		int64_t pid)
{
	return vm_vcpu_numbers_of(n, HOST, tid, pid);
}

START_TEST(names_of_qemu_vcpu_threads)
{
	ck_assert_int_eq(vm_vcpu_number_of_name("CPU 0/KVM"), 0);
	ck_assert_int_eq(vm_vcpu_number_of_name("CPU 13/KVM"), 13);
	ck_assert_int_eq(vm_vcpu_number_of_name("CPU 13/KVMx"), -1);
	ck_assert_int_eq(vm_vcpu_number_of_name("CPU /KVM"), -1);
	ck_assert_int_eq(vm_vcpu_number_of_name("CPU -1/KVM"), -1);
	ck_assert_int_eq(vm_vcpu_number_of_name("CPU 4096/KVM"), -1);
	ck_assert_int_eq(vm_vcpu_number_of_name("qemu-system-x86"), -1);
	ck_assert_int_eq(vm_vcpu_number_of_name(""), -1);
	ck_assert_int_eq(vm_vcpu_number_of_name(NULL), -1);
}
END_TEST

/* lttng-modules >= 2.13, Linux >= 5.10: the exit's id, the entry's ignored. */
START_TEST(modern_layout_takes_the_exit_id)
{
	struct vm_vcpu_numbers *n = vm_vcpu_numbers_create();
	struct vm_vcpu_id_conflict conflict = { 0 };
	struct vm_vcpu_number got;

	ck_assert(!vm_vcpu_numbers_entry(n, HOST, 31, 30, FRAGMENT_A, 10, &conflict));
	/* An entry id that is no number: wait for the exit. */
	got = number_of(n, 31, 30);
	ck_assert_int_eq(got.number, -1);
	ck_assert_int_eq(got.source, VM_VCPU_NUMBER_PENDING);
	ck_assert(vm_vcpu_numbers_exit(n, HOST, 31, 1, 20, &conflict));
	ck_assert(conflict.found);
	ck_assert_int_eq(conflict.tid, 31);
	ck_assert_int_eq(conflict.entry_id, FRAGMENT_A);
	ck_assert_int_eq(conflict.exit_id, 1);
	got = number_of(n, 31, 30);
	ck_assert_int_eq(got.number, 1);
	ck_assert_int_eq(got.source, VM_VCPU_NUMBER_FROM_EXIT);
	ck_assert(vm_vcpu_numbers_exits_have_ids(n, HOST));
	/* Later entries still contradict: the caller warns once. */
	ck_assert(vm_vcpu_numbers_entry(n, HOST, 31, 30, FRAGMENT_A, 30, &conflict));
	/* Another thread, once exits are known to carry ids: pending until its exit. */
	vm_vcpu_numbers_entry(n, HOST, 32, 30, 0, 40, NULL);
	ck_assert_int_eq(number_of(n, 32, 30).number, -1);
	vm_vcpu_numbers_exit(n, HOST, 32, 0, 50, NULL);
	ck_assert_int_eq(number_of(n, 32, 30).number, 0);
	vm_vcpu_numbers_destroy(n);
}
END_TEST

/* Older kernels: the entry's id is the number, exits have none. */
START_TEST(classic_layout_takes_the_entry_id)
{
	struct vm_vcpu_numbers *n = vm_vcpu_numbers_create();
	struct vm_vcpu_id_conflict conflict = { 0 };

	ck_assert(!vm_vcpu_numbers_entry(n, HOST, 31, 30, 0, 10, &conflict));
	ck_assert(!vm_vcpu_numbers_entry(n, HOST, 32, 30, 1, 11, &conflict));
	ck_assert(!vm_vcpu_numbers_exit(n, HOST, 31, VM_FIELD_MISSING, 20, &conflict));
	ck_assert(!conflict.found);
	ck_assert_int_eq(number_of(n, 31, 30).number, 0);
	ck_assert_int_eq(number_of(n, 31, 30).source, VM_VCPU_NUMBER_FROM_ENTRY);
	ck_assert_int_eq(number_of(n, 32, 30).number, 1);
	/* Another VM's vCPU 0 is no duplicate of this one's. */
	vm_vcpu_numbers_entry(n, HOST, 41, 40, 0, 12, NULL);
	vm_vcpu_numbers_entry(n, HOST, 31, 30, 0, 13, NULL);
	ck_assert_int_eq(number_of(n, 41, 40).number, 0);
	ck_assert_int_eq(number_of(n, 31, 30).number, 0);
	ck_assert(!vm_vcpu_numbers_exits_have_ids(n, HOST));
	vm_vcpu_numbers_destroy(n);
}
END_TEST

/* Pointer fragments in entries, no exit ids (Linux 5.9): QEMU's names. */
START_TEST(fragments_without_exit_ids_take_names)
{
	struct vm_vcpu_numbers *n = vm_vcpu_numbers_create();

	vm_vcpu_numbers_name(n, HOST, 31, "CPU 1/KVM");
	vm_vcpu_numbers_name(n, HOST, 32, "CPU 0/KVM");
	vm_vcpu_numbers_name(n, HOST, 33, "qemu-system-x86");
	vm_vcpu_numbers_entry(n, HOST, 31, 30, FRAGMENT_A, 10, NULL);
	vm_vcpu_numbers_entry(n, HOST, 32, 30, FRAGMENT_B, 11, NULL);
	ck_assert_int_eq(number_of(n, 31, 30).number, 1);
	ck_assert_int_eq(number_of(n, 31, 30).source, VM_VCPU_NUMBER_FROM_NAME);
	ck_assert_int_eq(number_of(n, 32, 30).number, 0);
	vm_vcpu_numbers_destroy(n);
}
END_TEST

/* Nothing else: the threads of each process in order of appearance. */
START_TEST(fragments_without_names_take_the_order)
{
	struct vm_vcpu_numbers *n = vm_vcpu_numbers_create();
	struct vm_vcpu_number got;

	vm_vcpu_numbers_entry(n, HOST, 52, 30, FRAGMENT_B, 10, NULL);
	/* Until an exit shows that exits carry no id, no number is given. */
	ck_assert_int_eq(number_of(n, 52, 30).source, VM_VCPU_NUMBER_PENDING);
	vm_vcpu_numbers_exit(n, HOST, 52, VM_FIELD_MISSING, 15, NULL);
	got = number_of(n, 52, 30);
	ck_assert_int_eq(got.number, 0);
	ck_assert_int_eq(got.source, VM_VCPU_NUMBER_FROM_ORDER);
	ck_assert_int_eq(got.entry_id, FRAGMENT_B);
	vm_vcpu_numbers_entry(n, HOST, 51, 30, FRAGMENT_A, 20, NULL);
	vm_vcpu_numbers_exit(n, HOST, 51, VM_FIELD_MISSING, 25, NULL);
	ck_assert_int_eq(number_of(n, 51, 30).number, 1);
	/* Another process counts from 0, and a number once given stays. */
	vm_vcpu_numbers_entry(n, HOST, 61, 60, FRAGMENT_A + 64, 30, NULL);
	vm_vcpu_numbers_exit(n, HOST, 61, VM_FIELD_MISSING, 35, NULL);
	ck_assert_int_eq(number_of(n, 61, 60).number, 0);
	ck_assert_int_eq(number_of(n, 52, 30).number, 0);
	ck_assert_int_eq(number_of(n, 51, 30).number, 1);
	vm_vcpu_numbers_destroy(n);
}
END_TEST

/* Two threads of one process entering with one id at once: no numbers. */
START_TEST(shared_entry_ids_are_no_numbers)
{
	struct vm_vcpu_numbers *n = vm_vcpu_numbers_create();

	vm_vcpu_numbers_name(n, HOST, 31, "CPU 0/KVM");
	vm_vcpu_numbers_name(n, HOST, 32, "CPU 1/KVM");
	vm_vcpu_numbers_entry(n, HOST, 31, 30, 7, 10, NULL);
	vm_vcpu_numbers_entry(n, HOST, 32, 30, 7, 11, NULL);
	vm_vcpu_numbers_entry(n, HOST, 31, 30, 7, 12, NULL);
	ck_assert_int_eq(number_of(n, 31, 30).number, 0);
	ck_assert_int_eq(number_of(n, 31, 30).source, VM_VCPU_NUMBER_FROM_NAME);
	ck_assert_int_eq(number_of(n, 32, 30).number, 1);
	vm_vcpu_numbers_destroy(n);
}
END_TEST

/* A vCPU re-created on a new thread reuses the id after the old one is done. */
START_TEST(recreated_vcpu_keeps_its_entry_id)
{
	struct vm_vcpu_numbers *n = vm_vcpu_numbers_create();

	vm_vcpu_numbers_entry(n, HOST, 31, 30, 2, 10, NULL);
	vm_vcpu_numbers_exit(n, HOST, 31, VM_FIELD_MISSING, 20, NULL);
	vm_vcpu_numbers_entry(n, HOST, 35, 30, 2, 30, NULL);
	vm_vcpu_numbers_exit(n, HOST, 35, VM_FIELD_MISSING, 40, NULL);
	vm_vcpu_numbers_entry(n, HOST, 35, 30, 2, 50, NULL);
	ck_assert_int_eq(number_of(n, 31, 30).number, 2);
	ck_assert_int_eq(number_of(n, 35, 30).number, 2);
	ck_assert_int_eq(number_of(n, 35, 30).source, VM_VCPU_NUMBER_FROM_ENTRY);
	vm_vcpu_numbers_destroy(n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu-numbers");
	TCase *tc = tcase_create("numbers");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, names_of_qemu_vcpu_threads);
	tcase_add_test(tc, modern_layout_takes_the_exit_id);
	tcase_add_test(tc, classic_layout_takes_the_entry_id);
	tcase_add_test(tc, fragments_without_exit_ids_take_names);
	tcase_add_test(tc, fragments_without_names_take_the_order);
	tcase_add_test(tc, shared_entry_ids_are_no_numbers);
	tcase_add_test(tc, recreated_vcpu_keeps_its_entry_id);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
