/*
 * lib/threads on Trace Compass's OneQemuKvm stub: a host with one vCPU
 * thread (tid 31) and a guest whose threads 130 and 131 share vCPU 0. The
 * vm:vcpu_state events are those filter.vm.state derives from the host.
 */

#include <check.h>
#include <stdlib.h>

#include "test-threads-helpers.h"

enum { HOST = 0, GUEST = 1 };

static void host_switch(struct recorder *r, int64_t t, int64_t prev, int64_t next)
{
	feed_switch(r, HOST, t, 0, prev == 31 ? "qemucpu1" : "any", prev, 0,
		next == 31 ? "qemucpu1" : "any", next);
}

static void guest_switch(struct recorder *r, int64_t t, int64_t prev, int64_t next)
{
	feed_switch(r, GUEST, t, 0, prev == 131 ? "any2" : "any", prev, 0,
		next == 131 ? "any2" : "any", next);
}

static void vcpu(struct recorder *r, int64_t t, const char *mode, int64_t pcpu,
		int64_t reason)
{
	feed_vcpu_state(r, HOST, t, "guest", 0, mode, 31, pcpu, reason);
}

static void kvm_entry(struct recorder *r, int64_t t)
{
	feed_kvm_entry(r, HOST, t, 0, 0);
	vcpu(r, t, "guest", 0, -1);
}

static void kvm_exit(struct recorder *r, int64_t t)
{
	feed_kvm_exit(r, HOST, t, 0, 32, 1);
	vcpu(r, t, "hypervisor", 0, 32);
}

/* Both traces merged in time order, as the muxer delivers them. */
static void feed_one_qemu_kvm(struct recorder *r)
{
	vm_threads_add_machine(r->threads, HOST, "host", VM_THREADS_ROLE_UNKNOWN);
	vm_threads_add_machine(r->threads, GUEST, "guest", VM_THREADS_ROLE_UNKNOWN);
	host_switch(r, 1, 30, 31);
	vcpu(r, 1, "hypervisor", 0, -1);
	kvm_entry(r, 5);
	guest_switch(r, 10, 130, 131);
	guest_switch(r, 35, 131, 130);
	feed_other(r, GUEST, 40);
	kvm_exit(r, 45);
	feed_other(r, HOST, 50);
	feed_other(r, HOST, 55);
	kvm_entry(r, 60);
	feed_other(r, GUEST, 65);
	guest_switch(r, 75, 130, 131);
	kvm_exit(r, 95);
	host_switch(r, 100, 31, 30);
	vcpu(r, 100, "preempted", -1, -1);
	host_switch(r, 150, 30, 31);
	/* filter.vm.state keeps the reason of the open exit... */
	vcpu(r, 150, "hypervisor", 0, 32);
	kvm_entry(r, 155);
	guest_switch(r, 175, 131, 130);
	feed_other(r, GUEST, 190);
	kvm_exit(r, 195);
	feed_other(r, HOST, 200);
	feed_other(r, HOST, 205);
	kvm_entry(r, 210);
	feed_other(r, GUEST, 215);
	guest_switch(r, 225, 130, 131);
	feed_other(r, GUEST, 240);
	kvm_exit(r, 245);
	feed_other(r, HOST, 250);
	feed_other(r, HOST, 255);
	kvm_entry(r, 260);
	feed_other(r, GUEST, 265);
	guest_switch(r, 275, 131, 130);
	kvm_exit(r, 295);
	host_switch(r, 300, 31, 30);
	vcpu(r, 300, "preempted", -1, -1);
	host_switch(r, 350, 30, 31);
	/* ...and the sink finds it itself when the event has none. */
	vcpu(r, 350, "hypervisor", 0, -1);
	kvm_entry(r, 355);
	guest_switch(r, 375, 130, 131);
	vm_threads_finish(r->threads);
}

START_TEST(thread_states)
{
	static const char *const expected[] = {
		"guest,131,any2,running,10,35,0,",
		"guest,131,any2,runnable,35,75,,",
		"guest,131,any2,running,75,95,0,",
		"guest,131,any2,hypervisor,95,100,0,32",
		"guest,131,any2,preempted,100,150,0,",
		"guest,131,any2,hypervisor,150,155,0,32",
		"guest,131,any2,running,155,175,0,",
		"guest,131,any2,runnable,175,225,,",
		"guest,131,any2,running,225,245,0,",
		"guest,131,any2,hypervisor,245,260,0,32",
		"guest,131,any2,running,260,275,0,",
		"guest,131,any2,runnable,275,375,,",
		"guest,130,any,runnable,10,35,,",
		"guest,130,any,running,35,45,0,",
		"guest,130,any,hypervisor,45,60,0,32",
		"guest,130,any,running,60,75,0,",
		"guest,130,any,runnable,75,175,,",
		"guest,130,any,running,175,195,0,",
		"guest,130,any,hypervisor,195,210,0,32",
		"guest,130,any,running,210,225,0,",
		"guest,130,any,runnable,225,275,,",
		"guest,130,any,running,275,295,0,",
		"guest,130,any,hypervisor,295,300,0,32",
		"guest,130,any,preempted,300,350,0,",
		"guest,130,any,hypervisor,350,355,0,32",
		"guest,130,any,running,355,375,0,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	feed_one_qemu_kvm(&r);
	assert_rows(r.thread_rows, expected);
	ck_assert_uint_eq(r.warnings->len, 0);
	recorder_clear(&r);
}
END_TEST

START_TEST(vcpu_modes)
{
	static const char *const expected[] = {
		"guest,0,hypervisor,1,5,31,0,",
		"guest,0,guest,5,45,31,0,",
		"guest,0,hypervisor,45,60,31,0,32",
		"guest,0,guest,60,95,31,0,",
		"guest,0,hypervisor,95,100,31,0,32",
		"guest,0,preempted,100,150,31,,",
		"guest,0,hypervisor,150,155,31,0,32",
		"guest,0,guest,155,195,31,0,",
		"guest,0,hypervisor,195,210,31,0,32",
		"guest,0,guest,210,245,31,0,",
		"guest,0,hypervisor,245,260,31,0,32",
		"guest,0,guest,260,295,31,0,",
		"guest,0,hypervisor,295,300,31,0,32",
		"guest,0,preempted,300,350,31,,",
		"guest,0,hypervisor,350,355,31,0,32",
		"guest,0,guest,355,375,31,0,",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	feed_one_qemu_kvm(&r);
	assert_rows(r.vcpu_rows, expected);
	recorder_clear(&r);
}
END_TEST

START_TEST(exit_statistics)
{
	/* 45-60, 95-155 (preemption included), 195-210, 245-260, 295-355 */
	static const char *const expected[] = {
		"guest,0,32,1,5,165,15,60",
		NULL,
	};
	struct recorder r;

	recorder_init(&r);
	feed_one_qemu_kvm(&r);
	assert_rows(r.exit_rows, expected);
	recorder_clear(&r);
}
END_TEST

/*
 * What sink.vm.threads may leave undecoded: what the analysis reads of an
 * event depends on its kind and on whether its machine is the host.
 */
START_TEST(fields_needed)
{
	struct recorder r;

	recorder_init(&r);
	vm_threads_add_machine(r.threads, HOST, "host", VM_THREADS_ROLE_UNKNOWN);
	vm_threads_add_machine(r.threads, GUEST, "guest", VM_THREADS_ROLE_UNKNOWN);
	/* Before any kvm event, any machine may be a guest. */
	ck_assert(vm_threads_needs_fields(r.threads, HOST, VM_EVENT_SCHED_SWITCH));
	ck_assert(vm_threads_needs_fields(r.threads, 7, VM_EVENT_SCHED_WAKEUP));
	ck_assert(vm_threads_needs_fields(r.threads, HOST, VM_EVENT_KVM_EXIT));
	ck_assert(!vm_threads_needs_fields(r.threads, HOST, VM_EVENT_KVM_ENTRY));
	ck_assert(!vm_threads_needs_fields(r.threads, GUEST, VM_EVENT_OTHER));
	ck_assert(!vm_threads_needs_fields(r.threads, GUEST, VM_EVENT_VMSYNC_GH_GUEST));
	feed_kvm_entry(&r, HOST, 5, 0, 0);
	/* The host's own threads are not reported. */
	ck_assert(!vm_threads_needs_fields(r.threads, HOST, VM_EVENT_SCHED_SWITCH));
	ck_assert(!vm_threads_needs_fields(r.threads, HOST, VM_EVENT_PROCESS_FORK));
	ck_assert(vm_threads_needs_fields(r.threads, HOST, VM_EVENT_KVM_EXIT));
	ck_assert(vm_threads_needs_fields(r.threads, HOST, VM_EVENT_VCPU_STATE));
	ck_assert(vm_threads_needs_fields(r.threads, GUEST, VM_EVENT_SCHED_SWITCH));
	ck_assert(vm_threads_needs_fields(r.threads, GUEST, VM_EVENT_STATEDUMP_PROCESS));
	recorder_clear(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("threads-kvm");
	TCase *tc = tcase_create("one-qemu-kvm");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, thread_states);
	tcase_add_test(tc, vcpu_modes);
	tcase_add_test(tc, exit_statistics);
	tcase_add_test(tc, fields_needed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
