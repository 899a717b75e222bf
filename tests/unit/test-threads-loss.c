/*
 * lib/threads on lost events (SPEC, Lost events), with the located gaps
 * fed as VM_EVENT_LOSS by hand: the current thread of the gap's CPU is
 * unknown until an event names it, the next sched_switch of that CPU is
 * trusted, an explicit `unknown` vCPU mode makes its thread unknown, exits
 * are not counted across unknown modes or host gaps, contradictions are
 * trusted and said once, and each machine's losses are reported.
 */

#include <check.h>
#include <stdlib.h>

#include "test-threads-helpers.h"

enum { HOST = 0, GUEST = 1 };

static void host_and_guest(struct recorder *r)
{
	vm_threads_add_machine(r->threads, HOST, "host", VM_THREADS_ROLE_HOST);
	vm_threads_add_machine(r->threads, GUEST, "guest", VM_THREADS_ROLE_GUEST);
}

START_TEST(guest_gap_makes_current_thread_unknown)
{
	static const char *const expected[] = {
		"guest,100,a,running,10,20,0,",
		/* unknown from the gap's start to the switch that names it */
		"guest,100,a,unknown,20,35,,",
		"guest,100,a,blocked,35,50,,",
		"guest,100,a,runnable,50,60,,",
		"guest,300,c,running,35,60,0,",
		/* another CPU: not touched by CPU 0's gap */
		"guest,200,b,running,12,60,1,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_switch(&r, GUEST, 12, 1, "swapper", 0, 0, "b", 200);
	feed_loss(&r, GUEST, 20, 30, 0, 7, 0);
	feed_switch(&r, GUEST, 35, 0, "a", 100, 1, "c", 300);
	feed_wakeup(&r, GUEST, 50, 1, "a", 100);
	feed_other(&r, GUEST, 60);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	/* A loss is no contradiction. */
	ck_assert_uint_eq(r.warnings->len, 0);
	recorder_clear(&r);
}
END_TEST

START_TEST(wakeup_ends_unknown_as_runnable)
{
	static const char *const expected[] = {
		"guest,100,a,running,10,20,0,",
		"guest,100,a,unknown,20,40,,",
		"guest,100,a,runnable,40,50,,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_loss(&r, GUEST, 20, 30, 0, -1, 0);
	feed_wakeup(&r, GUEST, 40, 1, "a", 100);
	feed_other(&r, GUEST, 50);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	recorder_clear(&r);
}
END_TEST

START_TEST(switch_after_gap_is_trusted)
{
	/*
	 * 300 was blocked, yet the first switch after CPU 0's gap switches it
	 * out: it ran there during the gap, so from the gap's start it is
	 * unknown too; 100, current before the gap, comes back in.
	 */
	static const char *const expected[] = {
		"guest,300,c,blocked,5,20,,",
		"guest,300,c,unknown,20,40,,",
		"guest,300,c,runnable,40,60,,",
		"guest,100,a,running,10,20,0,",
		"guest,100,a,unknown,20,40,,",
		"guest,100,a,running,40,60,0,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_switch(&r, GUEST, 5, 1, "c", 300, 1, "swapper", 0);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_loss(&r, GUEST, 20, 30, 0, 3, 0);
	feed_switch(&r, GUEST, 40, 0, "c", 300, 0, "a", 100);
	feed_other(&r, GUEST, 60);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	ck_assert_uint_eq(r.warnings->len, 0);
	recorder_clear(&r);
}
END_TEST

START_TEST(late_gap_starts_at_the_threads_last_change)
{
	/*
	 * A gap located after later events (a discarded message without
	 * times): the interval already ended stays; the open one, from 30,
	 * is unknown (the guest lost its events there too).
	 */
	static const char *const expected[] = {
		"guest,100,a,running,10,30,0,",
		"guest,100,a,unknown,30,50,,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_vcpu_state(&r, HOST, 5, "guest", 0, "guest", 41, 1, -1);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_vcpu_state(&r, HOST, 30, "guest", 0, "hypervisor", 41, 1, 12);
	feed_other(&r, GUEST, 40);
	feed_loss(&r, GUEST, 20, 40, 0, 1, 0);
	feed_other(&r, GUEST, 50);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	recorder_clear(&r);
}
END_TEST

START_TEST(gap_without_cpu_affects_every_cpu)
{
	static const char *const expected[] = {
		"guest,100,a,running,10,20,0,",
		"guest,100,a,unknown,20,30,,",
		"guest,200,b,running,12,20,1,",
		"guest,200,b,unknown,20,30,,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_switch(&r, GUEST, 12, 1, "swapper", 0, 0, "b", 200);
	feed_loss(&r, GUEST, 20, 25, VM_FIELD_MISSING, 2, 0);
	feed_other(&r, GUEST, 30);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	ck_assert_uint_eq(r.warnings->len, 1);
	ck_assert_str_eq(r.warnings->pdata[0], "loss-without-cpu:guest");
	recorder_clear(&r);
}
END_TEST

START_TEST(explicit_unknown_mode_makes_thread_unknown)
{
	/*
	 * Before any vm:vcpu_state, the start rule: running. An explicit
	 * `unknown` (filter.vm.state lost track): unknown, vcpu empty.
	 */
	static const char *const expected[] = {
		"guest,100,a,running,10,30,0,",
		"guest,100,a,unknown,30,40,,",
		"guest,100,a,running,40,50,0,",
		NULL,
	};
	static const char *const vcpus[] = {
		"guest,0,guest,20,30,41,1,",
		"guest,0,guest,40,50,41,1,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_vcpu_state(&r, HOST, 20, "guest", 0, "guest", 41, 1, -1);
	feed_vcpu_state(&r, HOST, 30, "guest", 0, "unknown", -1, -1, -1);
	feed_vcpu_state(&r, HOST, 40, "guest", 0, "guest", 41, 1, -1);
	feed_other(&r, GUEST, 50);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	/* No row for the unknown period. */
	assert_rows(r.vcpu_rows, vcpus);
	recorder_clear(&r);
}
END_TEST

START_TEST(exits_not_counted_across_unknown)
{
	/* Only the exit of [30, 35] has both ends known and nothing between. */
	static const char *const exits[] = {
		"guest,0,12,1,1,5,5,5",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_vcpu_state(&r, HOST, 5, "guest", 0, "guest", 41, 2, -1);
	/* exit, then filter.vm.state lost track, then an entry */
	feed_kvm_exit(&r, HOST, 10, 2, 12, 1);
	feed_vcpu_state(&r, HOST, 10, "guest", 0, "hypervisor", 41, 2, 12);
	feed_vcpu_state(&r, HOST, 15, "guest", 0, "unknown", -1, -1, -1);
	feed_vcpu_state(&r, HOST, 20, "guest", 0, "guest", 41, 2, -1);
	/* a clean exit */
	feed_vcpu_state(&r, HOST, 30, "guest", 0, "hypervisor", 41, 2, 12);
	feed_vcpu_state(&r, HOST, 35, "guest", 0, "guest", 41, 2, -1);
	/* an exit whose host CPU loses events before its entry */
	feed_vcpu_state(&r, HOST, 40, "guest", 0, "hypervisor", 41, 2, 30);
	feed_loss(&r, HOST, 42, 44, 2, 5, 0);
	feed_vcpu_state(&r, HOST, 45, "guest", 0, "guest", 41, 2, -1);
	/* a hypervisor mode without reason after a lost exit has none */
	feed_vcpu_state(&r, HOST, 50, "guest", 0, "hypervisor", 41, 2, 48);
	feed_vcpu_state(&r, HOST, 52, "guest", 0, "unknown", -1, -1, -1);
	feed_vcpu_state(&r, HOST, 54, "guest", 0, "hypervisor", 41, 2, -1);
	feed_vcpu_state(&r, HOST, 56, "guest", 0, "guest", 41, 2, -1);
	feed_other(&r, HOST, 60);
	vm_threads_finish(r.threads);
	assert_rows(r.exit_rows, exits);
	recorder_clear(&r);
}
END_TEST

START_TEST(host_gap_elsewhere_keeps_exit)
{
	/* The vCPU thread is on host CPU 3: a gap on CPU 2 does not touch it. */
	static const char *const exits[] = {
		"guest,0,30,1,1,5,5,5",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_vcpu_state(&r, HOST, 40, "guest", 0, "hypervisor", 41, 3, 30);
	feed_loss(&r, HOST, 42, 44, 2, 5, 0);
	feed_vcpu_state(&r, HOST, 45, "guest", 0, "guest", 41, 3, -1);
	feed_other(&r, HOST, 60);
	vm_threads_finish(r.threads);
	assert_rows(r.exit_rows, exits);
	recorder_clear(&r);
}
END_TEST

/*
 * A host gap on another CPU gives up the exit of a vCPU that is off every
 * CPU (preempted): its thread may have run there unseen. When the thread is
 * switched in again, the rest of that exit is no exit of its own; an exit
 * preempted without a loss is counted whole.
 */
START_TEST(host_gap_gives_up_exits_off_cpu)
{
	static const char *const exits[] = {
		"guest,0,1,1,1,10,10,10",
		"guest,0,12,1,1,5,5,5",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_vcpu_state(&r, HOST, 40, "guest", 0, "hypervisor", 41, 2, 30);
	feed_vcpu_state(&r, HOST, 41, "guest", 0, "preempted", 41, -1, 30);
	feed_loss(&r, HOST, 42, 44, 3, 5, 0);
	feed_vcpu_state(&r, HOST, 46, "guest", 0, "hypervisor", 41, 3, 30);
	feed_vcpu_state(&r, HOST, 48, "guest", 0, "guest", 41, 3, -1);
	feed_vcpu_state(&r, HOST, 50, "guest", 0, "hypervisor", 41, 3, 12);
	feed_vcpu_state(&r, HOST, 55, "guest", 0, "guest", 41, 3, -1);
	feed_vcpu_state(&r, HOST, 60, "guest", 0, "hypervisor", 41, 3, 1);
	feed_vcpu_state(&r, HOST, 61, "guest", 0, "preempted", 41, -1, 1);
	feed_vcpu_state(&r, HOST, 63, "guest", 0, "hypervisor", 41, 2, 1);
	feed_vcpu_state(&r, HOST, 70, "guest", 0, "guest", 41, 2, -1);
	feed_other(&r, HOST, 80);
	vm_threads_finish(r.threads);
	assert_rows(r.exit_rows, exits);
	recorder_clear(&r);
}
END_TEST

START_TEST(contradictions_trusted_and_said_once)
{
	static const char *const expected[] = {
		"guest,100,a,running,10,20,0,",
		/* 200 switched out where 100 was believed: 100 leaves unknown */
		"guest,100,a,unknown,20,50,,",
		"guest,200,b,runnable,20,50,,",
		/* switched in on CPU 1 while believed on CPU 0 */
		"guest,300,c,running,20,30,0,",
		"guest,300,c,running,30,50,1,",
		"guest,400,d,running,40,50,0,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_switch(&r, GUEST, 20, 0, "b", 200, 0, "c", 300);
	feed_switch(&r, GUEST, 30, 1, "swapper", 0, 0, "c", 300);
	/* CPU 0's current is unknown since 30: its next prev_tid is trusted */
	feed_switch(&r, GUEST, 40, 0, "swapper", 0, 0, "d", 400);
	feed_other(&r, GUEST, 50);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	ck_assert_uint_eq(r.warnings->len, 1);
	ck_assert_str_eq(r.warnings->pdata[0], "contradiction:guest");
	recorder_clear(&r);
}
END_TEST

START_TEST(losses_reported_per_machine)
{
	static const char *const losses[] = {
		/* 7 + 3 events, one message without count, 2 packets; 10+5+20+4 ns */
		"guest,10,1,2,0,4,39",
		"host,5,0,0,1,2,6",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	vm_threads_add_machine(r.threads, 2, "quiet", VM_THREADS_ROLE_GUEST);
	feed_switch(&r, GUEST, 1, 0, "swapper", 0, 0, "a", 100);
	feed_loss(&r, GUEST, 10, 20, 0, 7, 0);
	feed_loss(&r, GUEST, 20, 25, 1, 3, 0);
	feed_loss(&r, GUEST, 30, 50, 0, -1, 0);
	feed_loss(&r, GUEST, 50, 54, 1, 2, 1);
	feed_loss(&r, HOST, 40, 42, 2, 5, 0);
	feed_loss(&r, HOST, 44, 48, 3, -1, 1);
	feed_other(&r, 2, 60);
	vm_threads_finish(r.threads);
	assert_rows(r.loss_rows, losses);
	recorder_clear(&r);
}
END_TEST

START_TEST(loss_time_ends_nothing)
{
	/* The input ends at its last event, not at a gap's end. */
	static const char *const expected[] = {
		"guest,100,a,running,10,20,0,",
		"guest,100,a,unknown,20,25,,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	host_and_guest(&r);
	feed_switch(&r, GUEST, 10, 0, "swapper", 0, 0, "a", 100);
	feed_loss(&r, GUEST, 20, 90, 0, 1, 0);
	feed_other(&r, GUEST, 25);
	vm_threads_finish(r.threads);
	assert_rows(r.thread_rows, expected);
	recorder_clear(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("threads-loss");
	TCase *tc = tcase_create("losses");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, guest_gap_makes_current_thread_unknown);
	tcase_add_test(tc, wakeup_ends_unknown_as_runnable);
	tcase_add_test(tc, switch_after_gap_is_trusted);
	tcase_add_test(tc, late_gap_starts_at_the_threads_last_change);
	tcase_add_test(tc, gap_without_cpu_affects_every_cpu);
	tcase_add_test(tc, explicit_unknown_mode_makes_thread_unknown);
	tcase_add_test(tc, exits_not_counted_across_unknown);
	tcase_add_test(tc, host_gap_elsewhere_keeps_exit);
	tcase_add_test(tc, host_gap_gives_up_exits_off_cpu);
	tcase_add_test(tc, contradictions_trusted_and_said_once);
	tcase_add_test(tc, losses_reported_per_machine);
	tcase_add_test(tc, loss_time_ends_nothing);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
