/*
 * Who took the time (lib/steal through lib/threads): the host CPU a
 * preempted vCPU waits for, the host threads current there and the guest
 * thread on the vCPU, with the vm:vcpu_state events filter.vm.state would
 * derive from the host events. Rows are
 * "machine,vcpu,tid,comm,begin,end,pcpu,kind,cmachine,cvcpu,ctid,ccomm".
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test-threads-helpers.h"

enum { HOST = 0, G1 = 1, G2 = 2 };

/* Runnable (preempted) and waiting (blocked) prev_state values. */
#define RUN 0
#define WAIT 1

/*
 * A host (CPUs 0 and 1) and guests g1, g2. QEMU of g1 is process 1000
 * (vCPU 0 thread 1001, vCPU 1 thread 1002, I/O thread 1005), QEMU of g2
 * is 2000 (vCPU 0 thread 2001). At 10, g1's vCPU 0 runs guest code on
 * host CPU 0 with g1's thread 300 (app) current on it; CPU 1 runs 600.
 */
static void setup(struct recorder *r)
{
	recorder_init_steal(r);
	vm_threads_add_machine(r->threads, HOST, "host", VM_THREADS_ROLE_HOST);
	vm_threads_add_machine(r->threads, G1, "g1", VM_THREADS_ROLE_GUEST);
	vm_threads_add_machine(r->threads, G2, "g2", VM_THREADS_ROLE_GUEST);
	feed_statedump_pid(r, HOST, 1, 1000, 1000, "qemu");
	feed_statedump_pid(r, HOST, 1, 1001, 1000, "CPU 0/KVM");
	feed_statedump_pid(r, HOST, 1, 1002, 1000, "CPU 1/KVM");
	feed_statedump_pid(r, HOST, 1, 1005, 1000, "IO");
	feed_statedump_pid(r, HOST, 1, 2000, 2000, "qemu");
	feed_statedump_pid(r, HOST, 1, 2001, 2000, "CPU 0/KVM");
	feed_statedump_pid(r, HOST, 1, 500, 500, "bash");
	feed_switch(r, HOST, 10, 0, "swapper/0", 0, RUN, "CPU 0/KVM", 1001);
	feed_vcpu_state(r, HOST, 10, "g1", 0, "hypervisor", 1001, 0, -1);
	feed_switch(r, HOST, 10, 1, "swapper/1", 0, RUN, "kworker", 600);
	feed_vcpu_state(r, HOST, 11, "g1", 0, "guest", 1001, 0, -1);
	feed_switch(r, G1, 12, 0, "swapper/0", 0, RUN, "app", 300);
}

/* Host CPU `cpu` switches `prev` out (prev_state `state`) for `next`. */
static void host_switch(struct recorder *r, int64_t t, int64_t cpu, int64_t prev,
		int64_t state, int64_t next, const char *next_comm)
{
	feed_switch(r, HOST, t, cpu, "prev", prev, state, next_comm, next);
}

/* g1's vCPU 0 preempted on host CPU 0 by `next` at `t`. */
static void preempt_g1(struct recorder *r, int64_t t, int64_t next, const char *comm)
{
	host_switch(r, t, 0, 1001, RUN, next, comm);
	feed_vcpu_state(r, HOST, t, "g1", 0, "preempted", 1001, -1, -1);
}

/* g1's vCPU 0 back on host CPU `cpu` at `t`, after `prev` (which waits). */
static void resume_g1(struct recorder *r, int64_t t, int64_t cpu, int64_t prev)
{
	host_switch(r, t, cpu, prev, WAIT, 1001, "CPU 0/KVM");
	feed_vcpu_state(r, HOST, t, "g1", 0, "hypervisor", 1001, cpu, -1);
}

static void finish(struct recorder *r, int64_t t)
{
	feed_other(r, HOST, t);
	vm_threads_finish(r->threads);
}

START_TEST(test_culprit_kinds)
{
	struct recorder r;
	static const char *const expected[] = {
		"g1,0,300,app,100,150,0,host,,,500,bash",
		"g1,0,300,app,150,170,0,vcpu,g2,0,2001,CPU 0/KVM",
		"g1,0,300,app,170,180,0,vmm,g1,,1005,IO",
		"g1,0,300,app,180,200,0,idle,,,,",
		NULL,
	};

	setup(&r);
	/* g2's vCPU runs on host CPU 1 first: known as g2's vCPU 0 from then on. */
	host_switch(&r, 20, 1, 600, WAIT, 2001, "CPU 0/KVM");
	feed_vcpu_state(&r, HOST, 20, "g2", 0, "hypervisor", 2001, 1, -1);
	preempt_g1(&r, 100, 500, "bash");
	host_switch(&r, 140, 1, 2001, WAIT, 0, "swapper/1");
	feed_vcpu_state(&r, HOST, 140, "g2", 0, "blocked", 2001, -1, -1);
	host_switch(&r, 150, 0, 500, WAIT, 2001, "CPU 0/KVM");
	feed_vcpu_state(&r, HOST, 150, "g2", 0, "hypervisor", 2001, 0, -1);
	host_switch(&r, 170, 0, 2001, WAIT, 1005, "IO");
	feed_vcpu_state(&r, HOST, 170, "g2", 0, "blocked", 2001, -1, -1);
	host_switch(&r, 180, 0, 1005, WAIT, 0, "swapper/0");
	resume_g1(&r, 200, 0, 0);
	finish(&r, 300);
	assert_rows(r.steal_rows, expected);
	recorder_clear(&r);
}
END_TEST

/* The steal of a thread is its `preempted` time (SPEC's definition). */
START_TEST(test_steal_is_preempted_time)
{
	struct recorder r;
	static const char *const preempted[] = {
		"g1,300,app,preempted,100,200,0,",
		NULL,
	};
	GPtrArray *rows;

	setup(&r);
	preempt_g1(&r, 100, 500, "bash");
	host_switch(&r, 150, 0, 500, RUN, 0, "swapper/0");
	resume_g1(&r, 200, 0, 0);
	finish(&r, 300);
	rows = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; i < r.thread_rows->len; i++) {
		const char *row = r.thread_rows->pdata[i];

		if (strstr(row, ",preempted,"))
			g_ptr_array_add(rows, g_strdup(row));
	}
	assert_rows(rows, preempted);
	ck_assert_uint_eq(r.steal_rows->len, 2);
	g_ptr_array_unref(rows);
	recorder_clear(&r);
}
END_TEST

START_TEST(test_migration_moves_waiting_cpu)
{
	struct recorder r;
	static const char *const expected[] = {
		"g1,0,300,app,100,130,0,host,,,500,bash",
		"g1,0,300,app,130,160,1,host,,,600,kworker",
		NULL,
	};

	setup(&r);
	preempt_g1(&r, 100, 500, "bash");
	/* A migration of another thread changes nothing. */
	feed_migrate(&r, HOST, 120, 0, 500, 1);
	feed_migrate(&r, HOST, 130, 0, 1001, 1);
	resume_g1(&r, 160, 1, 600);
	/* Not waiting any more: a migration does not make it wait. */
	feed_migrate(&r, HOST, 170, 1, 1001, 0);
	finish(&r, 300);
	assert_rows(r.steal_rows, expected);
	recorder_clear(&r);
}
END_TEST

/* SPEC, Lost events: the host CPU's thread is unknown until its next switch. */
START_TEST(test_loss_makes_culprit_unknown)
{
	struct recorder r;
	static const char *const expected[] = {
		"g1,0,300,app,100,120,0,host,,,500,bash",
		"g1,0,300,app,120,160,0,unknown,,,,",
		"g1,0,300,app,160,200,0,host,,,700,cron",
		NULL,
	};

	setup(&r);
	preempt_g1(&r, 100, 500, "bash");
	/* Another CPU's loss: nothing changes here. */
	feed_loss(&r, HOST, 110, 115, 1, 3, 0);
	feed_loss(&r, HOST, 120, 130, 0, 5, 0);
	host_switch(&r, 160, 0, 500, RUN, 700, "cron");
	resume_g1(&r, 200, 0, 700);
	finish(&r, 300);
	assert_rows(r.steal_rows, expected);
	recorder_clear(&r);
}
END_TEST

/* The victim is the guest's current thread: idle (0), or unknown after a loss. */
START_TEST(test_victim_idle_then_unknown)
{
	struct recorder r;
	static const char *const expected[] = {
		"g1,0,0,,100,120,0,host,,,500,bash",
		"g1,0,,,120,200,0,host,,,500,bash",
		NULL,
	};

	setup(&r);
	feed_switch(&r, G1, 50, 0, "app", 300, WAIT, "swapper/0", 0);
	preempt_g1(&r, 100, 500, "bash");
	feed_loss(&r, G1, 120, 125, 0, 2, 0);
	resume_g1(&r, 200, 0, 500);
	finish(&r, 300);
	assert_rows(r.steal_rows, expected);
	recorder_clear(&r);
}
END_TEST

/*
 * Trace start: nothing says where the vCPU waits (unknown, pcpu empty) nor
 * what the guest runs (tid empty). A vCPU thread preempted before any
 * vm:vcpu_state named it still finds its CPU.
 */
START_TEST(test_start_unknown_and_first_preemption)
{
	struct recorder r;
	static const char *const expected[] = {
		"g2,0,,,5,20,,unknown,,,,",
		"g1,1,,,30,40,1,host,,,600,kworker",
		NULL,
	};

	setup(&r);
	feed_vcpu_state(&r, HOST, 5, "g2", 0, "preempted", 2001, -1, -1);
	host_switch(&r, 20, 1, 600, RUN, 2001, "CPU 0/KVM");
	feed_vcpu_state(&r, HOST, 20, "g2", 0, "hypervisor", 2001, 1, -1);
	host_switch(&r, 25, 1, 2001, WAIT, 1002, "CPU 1/KVM");
	feed_vcpu_state(&r, HOST, 25, "g2", 0, "blocked", 2001, -1, -1);
	host_switch(&r, 30, 1, 1002, RUN, 600, "kworker");
	feed_vcpu_state(&r, HOST, 30, "g1", 1, "preempted", 1002, -1, -1);
	host_switch(&r, 40, 1, 600, WAIT, 1002, "CPU 1/KVM");
	feed_vcpu_state(&r, HOST, 40, "g1", 1, "hypervisor", 1002, 1, -1);
	finish(&r, 300);
	assert_rows(r.steal_rows, expected);
	recorder_clear(&r);
}
END_TEST

/* Switches that leave the culprit as it was do not split a row. */
START_TEST(test_rows_are_maximal)
{
	struct recorder r;
	static const char *const expected[] = {
		"g1,0,300,app,100,200,0,host,,,500,bash",
		NULL,
	};

	setup(&r);
	preempt_g1(&r, 100, 500, "bash");
	/* 500 out and back in at one time: a zero-length idle row, dropped. */
	host_switch(&r, 150, 0, 500, RUN, 0, "swapper/0");
	host_switch(&r, 150, 0, 0, RUN, 500, "bash");
	host_switch(&r, 160, 1, 600, RUN, 601, "other");
	resume_g1(&r, 200, 0, 500);
	finish(&r, 300);
	assert_rows(r.steal_rows, expected);
	recorder_clear(&r);
}
END_TEST

/* Still preempted at the end of the input: the row ends there. */
START_TEST(test_open_at_end)
{
	struct recorder r;
	static const char *const expected[] = {
		"g1,0,300,app,100,300,0,host,,,500,bash",
		NULL,
	};

	setup(&r);
	preempt_g1(&r, 100, 500, "bash");
	finish(&r, 300);
	assert_rows(r.steal_rows, expected);
	recorder_clear(&r);
}
END_TEST

/* The host's scheduler events are read only when steal is wanted. */
START_TEST(test_host_fields_needed)
{
	struct recorder r;

	setup(&r);
	ck_assert(vm_threads_needs_fields(r.threads, HOST, VM_EVENT_SCHED_SWITCH));
	ck_assert(vm_threads_needs_fields(r.threads, HOST, VM_EVENT_SCHED_MIGRATE));
	ck_assert(!vm_threads_needs_fields(r.threads, HOST, VM_EVENT_SCHED_WAKEUP));
	ck_assert(!vm_threads_needs_fields(r.threads, G1, VM_EVENT_SCHED_MIGRATE));
	recorder_clear(&r);
}
END_TEST

static Suite *steal_suite(void)
{
	Suite *s = suite_create("steal");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_culprit_kinds);
	tcase_add_test(tc, test_steal_is_preempted_time);
	tcase_add_test(tc, test_migration_moves_waiting_cpu);
	tcase_add_test(tc, test_loss_makes_culprit_unknown);
	tcase_add_test(tc, test_victim_idle_then_unknown);
	tcase_add_test(tc, test_start_unknown_and_first_preemption);
	tcase_add_test(tc, test_rows_are_maximal);
	tcase_add_test(tc, test_open_at_end);
	tcase_add_test(tc, test_host_fields_needed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(steal_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
