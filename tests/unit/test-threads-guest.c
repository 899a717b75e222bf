/*
 * lib/threads: the guest thread state machine on hand-built scheduler
 * events: wakeups, blocking, first appearance, merging, names, fork / exit,
 * the own view without host, which machines are reported, odd input.
 */

#include <check.h>
#include <stdlib.h>

#include "test-threads-helpers.h"

enum { HOST = 0, GUEST = 1 };

/* A host that the analysis recognizes as such from its first kvm event. */
static void with_host(struct recorder *r)
{
	vm_threads_add_machine(r->threads, HOST, "host", VM_THREADS_ROLE_UNKNOWN);
	vm_threads_add_machine(r->threads, GUEST, "guest", VM_THREADS_ROLE_UNKNOWN);
	feed_kvm_entry(r, HOST, 0, 0, 0);
}

START_TEST(own_view_without_host)
{
	/* Running on CPU 1, then on CPU 0 from the same instant: one interval. */
	static const char *const expected[] = {
		"solo,100,a,running,10,20,,",
		"solo,100,a,blocked,20,30,,",
		"solo,100,a,runnable,30,40,,",
		"solo,100,a,running,40,70,,",
		"solo,200,b,running,50,70,,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	vm_threads_add_machine(r.threads, 0, "solo", VM_THREADS_ROLE_UNKNOWN);
	feed_switch(&r, 0, 10, 0, "swapper", 0, 0, "a", 100);
	feed_switch(&r, 0, 20, 0, "a", 100, 1, "swapper", 0);
	feed_wakeup(&r, 0, 30, 1, "a", 100);
	feed_switch(&r, 0, 40, 1, "swapper", 0, 0, "a", 100);
	feed_switch(&r, 0, 50, 1, "a", 100, 0, "b", 200);
	feed_switch(&r, 0, 50, 0, "swapper", 0, 0, "a", 100);
	feed_other(&r, 0, 70);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	ck_assert_uint_eq(r.warnings->len, 1);
	ck_assert_str_eq(r.warnings->pdata[0], "no-host:");
	ck_assert_uint_eq(r.vcpu_rows->len, 0);
	ck_assert_uint_eq(r.exit_rows->len, 0);
	recorder_clear(&r);
}
END_TEST

START_TEST(guest_view_keeps_vcpus_apart)
{
	/* The same events with a host: the vCPU column tells them apart. */
	static const char *const expected[] = {
		"guest,100,a,running,10,20,0,",
		"guest,100,a,blocked,20,30,,",
		"guest,100,a,runnable,30,40,,",
		"guest,100,a,running,40,50,1,",
		"guest,100,a,running,50,70,0,",
		"guest,200,b,running,50,70,1,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	with_host(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_switch(&r, GUEST, 20, 0, "a", 100, 1, "swapper", 0);
	feed_wakeup(&r, GUEST, 30, 1, "a", 100);
	feed_switch(&r, GUEST, 40, 1, "swapper", 0, 0, "a", 100);
	feed_switch(&r, GUEST, 50, 1, "a", 100, 0, "b", 200);
	feed_switch(&r, GUEST, 50, 0, "swapper", 0, 0, "a", 100);
	feed_other(&r, GUEST, 70);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	ck_assert_uint_eq(r.warnings->len, 0);
	recorder_clear(&r);
}
END_TEST

START_TEST(first_appearance_and_names)
{
	static const char *const expected[] = {
		"guest,400,kid,runnable,5,8,,",
		"guest,400,kid,running,8,20,0,",
		"guest,100,parent,blocked,8,20,,",
		"guest,301,worker,runnable,3,20,,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	with_host(&r);
	/* Names alone: no interval for 300, 301 starts at its wakeup. */
	feed_statedump(&r, GUEST, 1, 300, "daemon");
	feed_statedump(&r, GUEST, 1, 301, "worker");
	feed_fork(&r, GUEST, 2, 0, 100, "kid", 400);
	feed_wakeup(&r, GUEST, 3, 0, "", 301);
	feed_wakeup(&r, GUEST, 5, 0, "kid", 400);
	feed_switch(&r, GUEST, 8, 0, "parent", 100, 1, "kid", 400);
	feed_other(&r, GUEST, 20);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	recorder_clear(&r);
}
END_TEST

START_TEST(comm_at_interval_begin)
{
	/* exec renames the thread while it runs; a wakeup of a runnable
	 * thread changes nothing. */
	static const char *const expected[] = {
		"guest,100,old,running,10,20,0,",
		"guest,100,new,runnable,20,30,,",
		"guest,100,new,running,30,40,0,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	with_host(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "old", 100);
	feed_switch(&r, GUEST, 20, 0, "new", 100, 0, "swapper", 0);
	feed_wakeup(&r, GUEST, 25, 0, "new", 100);
	feed_switch(&r, GUEST, 30, 0, "swapper", 0, 0, "new", 100);
	feed_other(&r, GUEST, 40);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	recorder_clear(&r);
}
END_TEST

START_TEST(fork_exit_and_tid_reuse)
{
	static const char *const expected[] = {
		"guest,100,p,running,10,13,0,",
		"guest,100,p,runnable,13,15,,",
		"guest,100,p,running,15,30,0,",
		"guest,101,child,runnable,12,13,,",
		"guest,101,child,running,13,15,0,",
		"guest,101,child,blocked,15,20,,",
		"guest,101,again,runnable,21,30,,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	with_host(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "p", 100);
	feed_fork(&r, GUEST, 11, 0, 100, "child", 101);
	feed_wakeup(&r, GUEST, 12, 0, "child", 101);
	feed_switch(&r, GUEST, 13, 0, "p", 100, 0, "child", 101);
	feed_exit(&r, GUEST, 14, 0, VM_EVENT_PROCESS_EXIT, "child", 101);
	/* EXIT_DEAD */
	feed_switch(&r, GUEST, 15, 0, "child", 101, 0x10, "p", 100);
	feed_exit(&r, GUEST, 16, 0, VM_EVENT_PROCESS_FREE, "child", 101);
	feed_fork(&r, GUEST, 20, 0, 100, "again", 101);
	feed_wakeup(&r, GUEST, 21, 0, "again", 101);
	feed_other(&r, GUEST, 30);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	recorder_clear(&r);
}
END_TEST

START_TEST(host_threads_are_not_reported)
{
	/* Guest intervals that end before the host shows wait for it. */
	static const char *const expected[] = {
		"guest,100,x,running,1,20,0,",
		"guest,100,x,runnable,20,60,,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	vm_threads_add_machine(r.threads, HOST, "host", VM_THREADS_ROLE_UNKNOWN);
	vm_threads_add_machine(r.threads, GUEST, "guest", VM_THREADS_ROLE_UNKNOWN);
	feed_switch(&r, HOST, 0, 0, "swapper", 0, 0, "qemu", 31);
	feed_switch(&r, GUEST, 1, 0, "swapper", 0, 0, "x", 100);
	feed_switch(&r, GUEST, 20, 0, "x", 100, 0, "swapper", 0);
	ck_assert_uint_eq(r.thread_rows->len, 0);
	feed_kvm_entry(&r, HOST, 50, 0, 0);
	feed_other(&r, GUEST, 60);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	ck_assert_uint_eq(r.warnings->len, 0);
	recorder_clear(&r);
}
END_TEST

START_TEST(roles_from_the_trace)
{
	/* filter.vm.correlate's vm_role: nothing waits for kvm events. */
	struct recorder r;

	recorder_init(&r);
	vm_threads_add_machine(r.threads, HOST, "h", VM_THREADS_ROLE_HOST);
	vm_threads_add_machine(r.threads, GUEST, "g", VM_THREADS_ROLE_GUEST);
	feed_switch(&r, HOST, 0, 0, "swapper", 0, 0, "qemu", 31);
	feed_switch(&r, GUEST, 1, 0, "swapper", 0, 0, "x", 100);
	feed_switch(&r, GUEST, 20, 0, "x", 100, 0, "swapper", 0);
	/* An ended interval leaves once the next one has ended too. */
	feed_switch(&r, GUEST, 30, 0, "swapper", 0, 0, "x", 100);
	ck_assert_uint_eq(r.thread_rows->len, 1);
	ck_assert_str_eq(r.thread_rows->pdata[0], "g,100,x,running,1,20,0,");
	vm_threads_finish(r.threads);
	/* the last switch-in is at the very end: nothing after it */
	ck_assert_uint_eq(r.thread_rows->len, 2);
	ck_assert_str_eq(r.thread_rows->pdata[1], "g,100,x,runnable,20,30,,");
	ck_assert_uint_eq(r.warnings->len, 0);
	recorder_clear(&r);
}
END_TEST

START_TEST(vcpu_blocked_and_svm_exits)
{
	static const char *const expected[] = {
		"guest,500,w,running,5,20,1,",
		"guest,500,w,hypervisor,20,30,1,120",
		"guest,500,w,vcpu-blocked,30,40,1,",
		"guest,500,w,hypervisor,40,45,1,120",
		"guest,500,w,running,45,50,1,",
		"guest,500,w,hypervisor,50,60,1,1",
		NULL,
	};
	/* The exit still open at the end (reason 1) is not counted. */
	static const char *const exits[] = {
		"guest,1,120,2,1,25,25,25",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	with_host(&r);
	feed_switch(&r, GUEST, 5, 1, "swapper", 0, 0, "w", 500);
	feed_vcpu_state(&r, HOST, 10, "guest", 1, "guest", 41, 3, -1);
	feed_kvm_exit(&r, HOST, 20, 3, 120, 2);
	feed_vcpu_state(&r, HOST, 20, "guest", 1, "hypervisor", 41, 3, 120);
	feed_vcpu_state(&r, HOST, 30, "guest", 1, "blocked", 41, -1, -1);
	feed_vcpu_state(&r, HOST, 40, "guest", 1, "hypervisor", 41, 2, -1);
	feed_vcpu_state(&r, HOST, 45, "guest", 1, "guest", 41, 2, -1);
	feed_kvm_exit(&r, HOST, 50, 2, 1, 2);
	feed_vcpu_state(&r, HOST, 50, "guest", 1, "hypervisor", 41, 2, 1);
	feed_other(&r, GUEST, 60);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	assert_rows(r.exit_rows, exits);
	recorder_clear(&r);
}
END_TEST

START_TEST(odd_input_warns_once)
{
	struct recorder r;
	GPtrArray *of_100, *of_300;

	recorder_init(&r);
	vm_threads_add_machine(r.threads, 0, "solo", VM_THREADS_ROLE_UNKNOWN);
	feed_switch(&r, 0, 10, 0, "swapper", 0, 0, "a", 100);
	/* 200 switched out where 100 ran: lost events, twice. */
	feed_switch(&r, 0, 20, 0, "b", 200, 1, "c", 300);
	feed_switch(&r, 0, 30, 0, "d", 400, 1, "swapper", 0);
	/* no cpu_id, no tid: ignored, reported */
	feed_switch(&r, 0, 35, VM_FIELD_MISSING, "c", 300, 1, "a", 100);
	feed_switch(&r, 0, 36, 0, "c", 300, VM_FIELD_MISSING, "a", 100);
	feed_wakeup(&r, 0, 37, 0, "a", VM_FIELD_MISSING);
	feed_other(&r, 0, 40);
	vm_threads_finish(r.threads);
	ck_assert_uint_eq(r.warnings->len, 4);
	ck_assert_str_eq(r.warnings->pdata[0], "contradiction:solo");
	ck_assert_str_eq(r.warnings->pdata[1], "no-cpu:solo");
	ck_assert_str_eq(r.warnings->pdata[2], "missing-field:solo");
	ck_assert_str_eq(r.warnings->pdata[3], "no-host:");
	/*
	 * SPEC, Lost events: the switch is trusted; 100, then 300, believed
	 * on the CPU, leave it as unknown (nothing decides their state after).
	 */
	of_100 = rows_of(r.thread_rows, "solo,100,");
	ck_assert_uint_eq(of_100->len, 2);
	ck_assert_str_eq(of_100->pdata[0], "solo,100,a,running,10,20,,");
	ck_assert_str_eq(of_100->pdata[1], "solo,100,a,unknown,20,40,,");
	g_ptr_array_unref(of_100);
	of_300 = rows_of(r.thread_rows, "solo,300,");
	ck_assert_uint_eq(of_300->len, 2);
	ck_assert_str_eq(of_300->pdata[0], "solo,300,c,running,20,30,,");
	ck_assert_str_eq(of_300->pdata[1], "solo,300,c,unknown,30,40,,");
	g_ptr_array_unref(of_300);
	recorder_clear(&r);
}
END_TEST

START_TEST(vcpus_of_an_unknown_vm)
{
	/* vCPU states of "other", whose trace is not in the input. */
	struct recorder r;
	GPtrArray *of_other;

	recorder_init(&r);
	with_host(&r);
	feed_vcpu_state(&r, HOST, 5, "guest", 0, "guest", 40, 0, -1);
	feed_vcpu_state(&r, HOST, 6, "other", 0, "guest", 41, 1, -1);
	feed_vcpu_state(&r, HOST, 7, "other", 0, "hypervisor", 41, 1, 12);
	feed_switch(&r, GUEST, 8, 0, "swapper", 0, 0, "x", 100);
	feed_other(&r, GUEST, 10);
	vm_threads_finish(r.threads);
	ck_assert_uint_eq(r.warnings->len, 1);
	ck_assert_str_eq(r.warnings->pdata[0], "unknown-vm:other");
	/* Its vCPU intervals are still written. */
	of_other = rows_of(r.vcpu_rows, "other,0,");
	ck_assert_uint_eq(of_other->len, 2);
	g_ptr_array_unref(of_other);
	recorder_clear(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("threads-guest");
	TCase *tc = tcase_create("state-machine");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, own_view_without_host);
	tcase_add_test(tc, guest_view_keeps_vcpus_apart);
	tcase_add_test(tc, first_appearance_and_names);
	tcase_add_test(tc, comm_at_interval_begin);
	tcase_add_test(tc, fork_exit_and_tid_reuse);
	tcase_add_test(tc, host_threads_are_not_reported);
	tcase_add_test(tc, roles_from_the_trace);
	tcase_add_test(tc, vcpu_blocked_and_svm_exits);
	tcase_add_test(tc, odd_input_warns_once);
	tcase_add_test(tc, vcpus_of_an_unknown_vm);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
