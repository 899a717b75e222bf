/*
 * The model registry, and the proof that a hypervisor is one file plus one
 * registry entry: a toy hypervisor, registered here, drives the unchanged
 * vCPU state machine.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/registry.h"
#include "model/kvm.h"
#include "model/host-rule.h"
#include "test-vcpu-harness.h"

enum { HOST = 0, GUEST = 1 };

/*
 * The toy hypervisor: machine 0 is the host; a thread enters vCPU `cnt`
 * with vmsync_hg_host and leaves it with vmsync_gh_host (exit reason
 * `cnt`); every vCPU belongs to machine 1.
 */
struct toy {
	int learnt;
};

static void *toy_create(void)
{
	return g_new0(struct toy, 1);
}

static void toy_destroy(void *data)
{
	g_free(data);
}

static void toy_add_machine(void *data, unsigned int machine)
{
	(void) data;
	(void) machine;
}

static void toy_set_vm_pid(void *data, unsigned int guest, int64_t pid)
{
	(void) data;
	(void) guest;
	(void) pid;
}

static bool toy_needs_thread(const struct vm_event *event)
{
	return event->kind == VM_EVENT_VMSYNC_HG_HOST ||
		event->kind == VM_EVENT_VMSYNC_GH_HOST;
}

static void toy_learn(void *data, const struct vm_event *event, int64_t tid)
{
	struct toy *toy = data;

	(void) event;
	(void) tid;
	toy->learnt++;
}

static int64_t toy_host(void *data)
{
	(void) data;
	return HOST;
}

static bool toy_is_host_evidence(const struct vm_event *event)
{
	return event->kind == VM_EVENT_VMSYNC_HG_HOST;
}

static uint64_t toy_host_evidence(void *data, unsigned int machine)
{
	(void) data;
	return machine == HOST;
}

static void toy_set_role(void *data, unsigned int machine, bool is_host)
{
	(void) data;
	(void) machine;
	(void) is_host;
}

static void toy_transition(void *data, const struct vm_event *event, int64_t tid,
		struct vm_model_transition *out)
{
	(void) data;
	(void) tid;
	memset(out, 0, sizeof(*out));
	out->vcpu_id = -1;
	out->exit_reason = -1;
	if (event->kind == VM_EVENT_VMSYNC_HG_HOST) {
		out->kind = VM_MODEL_TRANSITION_ENTER_GUEST;
		out->vcpu_id = event->u.vmsync.cnt;
	} else if (event->kind == VM_EVENT_VMSYNC_GH_HOST) {
		out->kind = VM_MODEL_TRANSITION_EXIT_GUEST;
		out->exit_reason = event->u.vmsync.cnt;
	}
}

static int64_t toy_vm_of_thread(void *data, int64_t tid, bool *tentative)
{
	(void) data;
	(void) tid;
	*tentative = false;
	return GUEST;
}

static const struct vm_model_class toy_model = {
	.name = "toy",
	.description = "a hypervisor of the tests",
	.create = toy_create,
	.destroy = toy_destroy,
	.add_machine = toy_add_machine,
	.set_vm_pid = toy_set_vm_pid,
	.needs_thread = toy_needs_thread,
	.learn = toy_learn,
	.host = toy_host,
	.is_host_evidence = toy_is_host_evidence,
	.host_evidence = toy_host_evidence,
	.set_role = toy_set_role,
	.transition = toy_transition,
	.vm_of_thread = toy_vm_of_thread,
};

START_TEST(kvm_is_built_in)
{
	char *names = vm_model_registry_names();

	ck_assert_ptr_eq(vm_model_registry_find("kvm"), &vm_model_kvm);
	ck_assert_ptr_null(vm_model_registry_find("xen"));
	ck_assert_ptr_null(vm_model_registry_find(NULL));
	ck_assert_str_eq(names, "kvm");
	g_free(names);
}
END_TEST

START_TEST(register_toy_model)
{
	char *names;

	ck_assert(vm_model_registry_add(&toy_model));
	ck_assert(!vm_model_registry_add(&toy_model));
	ck_assert(!vm_model_registry_add(&vm_model_kvm));
	ck_assert_ptr_eq(vm_model_registry_find("toy"), &toy_model);
	names = vm_model_registry_names();
	ck_assert_str_eq(names, "kvm, toy");
	g_free(names);
	vm_model_registry_reset();
	ck_assert_ptr_null(vm_model_registry_find("toy"));
}
END_TEST

START_TEST(toy_model_drives_state_machine)
{
	struct harness *h;
	const struct vm_event events[] = {
		ev_switch(HOST, 1, 0, 10, 0, 31),
		ev_vmsync(VM_EVENT_VMSYNC_HG_HOST, HOST, 5, 0, 2, 0),
		ev_vmsync(VM_EVENT_VMSYNC_GH_HOST, HOST, 9, 0, 7, 0),
		ev_switch(HOST, 12, 0, 31, 1, 10),
		ev_entry(HOST, 14, 0, 0),
		ev_switch(GUEST, 20, 0, 1, 0, 2),
	};
	static const struct expected_interval vcpu2[] = {
		{ "hypervisor", 1, 5, -1 },
		{ "guest", 5, 9, -1 },
		{ "hypervisor", 9, 12, 7 },
		{ "blocked", 12, 20, 7 },
	};
	size_t i;

	ck_assert(vm_model_registry_add(&toy_model));
	h = harness_new(vm_model_registry_find("toy"), NULL);
	vm_vcpu_tracker_add_machine(h->tracker, HOST);
	vm_vcpu_tracker_add_machine(h->tracker, GUEST);
	for (i = 0; i < G_N_ELEMENTS(events); i++)
		harness_push(h, &events[i]);
	harness_flush(h);
	harness_check_intervals(h, GUEST, 2, vcpu2, G_N_ELEMENTS(vcpu2));
	/* kvm_entry means nothing to the toy hypervisor. */
	ck_assert_uint_eq(harness_change_count(h, GUEST, 0), 0);
	ck_assert_int_eq(((struct toy *) h->model->data)->learnt, 6);
	harness_free(h);
	vm_model_registry_reset();
}
END_TEST

/* The rule: `host` wins, else the most evidence, ties to the smaller name. */
START_TEST(host_rule_choices)
{
	struct vm_host_candidate machines[] = {
		{ "guest", 3 }, { "host", 120 }, { "other", 0 },
	};
	struct vm_host_choice choice;
	char *warning;

	choice = vm_host_rule_choose(machines, 3, VM_MODEL_UNKNOWN);
	ck_assert_int_eq(choice.host, 1);
	ck_assert_int_eq(choice.reason, VM_HOST_REASON_MOST);
	ck_assert_uint_eq(choice.with_evidence, 2);
	warning = vm_host_rule_warning(&choice, machines, 3);
	ck_assert_ptr_nonnull(strstr(warning, "`guest` (3), `host` (120)"));
	ck_assert_ptr_nonnull(strstr(warning, "the host is `host`, the one with the most"));
	g_free(warning);

	choice = vm_host_rule_choose(machines, 3, 0);
	ck_assert_int_eq(choice.host, 0);
	ck_assert_int_eq(choice.reason, VM_HOST_REASON_NAMED);
	warning = vm_host_rule_warning(&choice, machines, 3);
	ck_assert_ptr_nonnull(strstr(warning, "the host is `guest`, as parameter `host` says"));
	g_free(warning);

	/* Named and the only one with events: nothing to say. */
	choice = vm_host_rule_choose(machines + 1, 2, 0);
	ck_assert_ptr_null(vm_host_rule_warning(&choice, machines + 1, 2));
	/* Named without events while another has some: said. */
	choice = vm_host_rule_choose(machines + 1, 2, 1);
	warning = vm_host_rule_warning(&choice, machines + 1, 2);
	ck_assert_ptr_nonnull(strstr(warning, "the host is `other`"));
	g_free(warning);

	machines[0].evidence = 120;
	choice = vm_host_rule_choose(machines, 3, VM_MODEL_UNKNOWN);
	ck_assert_int_eq(choice.host, 0);

	choice = vm_host_rule_choose(machines + 2, 1, VM_MODEL_UNKNOWN);
	ck_assert_int_eq(choice.host, VM_MODEL_UNKNOWN);
	ck_assert_int_eq(choice.reason, VM_HOST_REASON_NONE);
	ck_assert_ptr_null(vm_host_rule_warning(&choice, machines + 2, 1));
}
END_TEST

static void kvm_learn_all(struct vm_model *model, const struct vm_event *events,
		size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		model->cls->learn(model->data, &events[i], 10);
}

/*
 * A guest with a few kvm entries before the host's (nested virtualization,
 * stray lines): the first machine with entries was the host before.
 */
START_TEST(kvm_host_is_the_most_entries)
{
	struct vm_model *model = vm_model_create(&vm_model_kvm);
	const struct vm_event events[] = {
		ev_entry(GUEST, 1, 0, 0),
		ev_entry(GUEST, 2, 0, 0),
		ev_entry(HOST, 3, 0, 0),
		ev_entry(HOST, 4, 0, 0),
		ev_entry(HOST, 5, 0, 0),
	};

	kvm_learn_all(model, events, G_N_ELEMENTS(events));
	ck_assert_int_eq(model->cls->host(model->data), HOST);
	ck_assert_uint_eq(model->cls->host_evidence(model->data, GUEST), 2);
	ck_assert_uint_eq(model->cls->host_evidence(model->data, HOST), 3);
	vm_model_destroy(model);
}
END_TEST

/* A given role beats the evidence: correlate's vm_role, parameter host. */
START_TEST(kvm_given_roles_win)
{
	struct vm_model *model = vm_model_create(&vm_model_kvm);
	const struct vm_event events[] = {
		ev_entry(GUEST, 1, 0, 0),
		ev_entry(GUEST, 2, 0, 0),
		ev_entry(HOST, 3, 0, 0),
	};

	model->cls->set_role(model->data, GUEST, false);
	kvm_learn_all(model, events, 2);
	ck_assert_int_eq(model->cls->host(model->data), VM_MODEL_UNKNOWN);
	kvm_learn_all(model, events + 2, 1);
	ck_assert_int_eq(model->cls->host(model->data), HOST);
	vm_model_destroy(model);

	model = vm_model_create(&vm_model_kvm);
	model->cls->set_role(model->data, HOST, true);
	kvm_learn_all(model, events, 2);
	ck_assert_int_eq(model->cls->host(model->data), HOST);
	vm_model_destroy(model);
}
END_TEST

/*
 * The processes of the vCPU threads, to check vm-pids against: each once,
 * sorted; a thread without state dump is its own process; nothing while
 * no host is known, nor from a guest's kvm entries.
 */
START_TEST(kvm_vcpu_processes)
{
	struct vm_model *model = vm_model_create(&vm_model_kvm);
	const struct vm_event dumps[] = {
		ev_statedump(HOST, 1, 31, 300),
		ev_statedump(HOST, 1, 32, 300),
		ev_statedump(HOST, 1, 21, 200),
	};
	const struct vm_event entries[][1] = {
		{ ev_entry(GUEST, 2, 0, 0) },
		{ ev_entry(HOST, 3, 0, 0) },
		{ ev_entry(HOST, 4, 1, 1) },
		{ ev_entry(HOST, 5, 0, 0) },
		{ ev_entry(HOST, 6, 0, 0) },
	};
	const int64_t threads[] = { 77, 31, 32, 21, 40 };
	int64_t *pids = (int64_t *) 1;
	size_t i;

	ck_assert_uint_eq(model->cls->vcpu_processes(model->data, &pids), 0);
	ck_assert_ptr_null(pids);
	model->cls->set_role(model->data, HOST, true);
	kvm_learn_all(model, dumps, G_N_ELEMENTS(dumps));
	/* The guest's entry (nested virtualization) is no vCPU of the host. */
	model->cls->learn(model->data, entries[0], threads[0]);
	ck_assert_uint_eq(model->cls->vcpu_processes(model->data, &pids), 0);
	for (i = 1; i < G_N_ELEMENTS(threads); i++)
		model->cls->learn(model->data, entries[i], threads[i]);
	ck_assert_uint_eq(model->cls->vcpu_processes(model->data, &pids), 3);
	ck_assert_int_eq(pids[0], 40);
	ck_assert_int_eq(pids[1], 200);
	ck_assert_int_eq(pids[2], 300);
	g_free(pids);
	vm_model_destroy(model);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("registry");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, kvm_is_built_in);
	tcase_add_test(tc, register_toy_model);
	tcase_add_test(tc, toy_model_drives_state_machine);
	tcase_add_test(tc, host_rule_choices);
	tcase_add_test(tc, kvm_host_is_the_most_entries);
	tcase_add_test(tc, kvm_given_roles_win);
	tcase_add_test(tc, kvm_vcpu_processes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
