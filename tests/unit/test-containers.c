/*
 * lib/containers: the four sources of a thread's container (SPEC,
 * Containers), their precedence, the names of containers, and the
 * per-container totals.
 */

#include <check.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "containers/containers.h"
#include "containers/totals.h"

#define M 0
#define ROOT INT64_C(4026531836)

static struct vm_event base(enum vm_event_kind kind, int64_t ts, int64_t cpu)
{
	struct vm_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.ts = ts;
	ev.machine = M;
	ev.cpu = cpu;
	return ev;
}

/* lttng_statedump_process_state, LTTng 2.8 .. 2.11: one per level. */
static void dump_state(struct vm_containers *c, int64_t tid, const char *name,
		int64_t level, int64_t inum, int64_t vtid, int64_t vpid)
{
	struct vm_event ev = base(VM_EVENT_STATEDUMP_PROCESS, 1, 0);

	ev.u.statedump.tid = tid;
	ev.u.statedump.pid = tid;
	ev.u.statedump.name = name;
	ev.u.statedump.ns_level = level;
	ev.u.statedump.ns_inum = inum;
	ev.u.statedump.vtid = vtid;
	ev.u.statedump.vpid = vpid;
	vm_containers_feed(c, &ev);
}

/* LTTng >= 2.12: the process_state without ns fields, then pid_ns events. */
static void dump_212(struct vm_containers *c, int64_t tid, const char *name)
{
	struct vm_event ev = base(VM_EVENT_STATEDUMP_PROCESS, 1, 0);

	ev.u.statedump.tid = tid;
	ev.u.statedump.name = name;
	ev.u.statedump.ns_level = VM_FIELD_MISSING;
	ev.u.statedump.ns_inum = VM_FIELD_MISSING;
	ev.u.statedump.vtid = VM_FIELD_MISSING;
	ev.u.statedump.vpid = VM_FIELD_MISSING;
	vm_containers_feed(c, &ev);
}

static void dump_pid_ns(struct vm_containers *c, int64_t tid, int64_t level,
		int64_t inum, int64_t vtid, int64_t vpid)
{
	struct vm_event ev = base(VM_EVENT_STATEDUMP_PID_NS, 1, 0);

	ev.u.pid_ns.tid = tid;
	ev.u.pid_ns.vtid = vtid;
	ev.u.pid_ns.vpid = vpid;
	ev.u.pid_ns.ns_level = level;
	ev.u.pid_ns.ns_inum = inum;
	vm_containers_feed(c, &ev);
}

static void fork_child(struct vm_containers *c, int64_t parent, int64_t child,
		int64_t child_pid, const char *comm, int64_t inum, int64_t level,
		int64_t vtid)
{
	struct vm_event ev = base(VM_EVENT_PROCESS_FORK, 2, 0);

	ev.u.fork.parent_tid = parent;
	ev.u.fork.parent_pid = parent;
	ev.u.fork.child_tid = child;
	ev.u.fork.child_pid = child_pid;
	ev.u.fork.child_comm = comm;
	ev.u.fork.child_ns_inum = inum;
	ev.u.fork.child_ns_level = level;
	ev.u.fork.child_vtid = vtid;
	vm_containers_feed(c, &ev);
}

static void switch_to(struct vm_containers *c, int64_t cpu, int64_t prev,
		int64_t next, int64_t pid_ns)
{
	struct vm_event ev = base(VM_EVENT_SCHED_SWITCH, 3, cpu);

	ev.u.sched_switch.prev_tid = prev;
	ev.u.sched_switch.prev_comm = "";
	ev.u.sched_switch.next_tid = next;
	ev.u.sched_switch.next_comm = "";
	ev.pid_ns = pid_ns;
	vm_containers_feed(c, &ev);
}

static struct vm_containers *new_machine(void)
{
	struct vm_containers *c = vm_containers_create();

	vm_containers_add_machine(c, M, "guest");
	return c;
}

/* "name,inum,vtid" of a thread's container, "-" when in none. */
static char *where(struct vm_containers *c, int64_t tid)
{
	struct vm_container_ref ref;

	if (!vm_containers_lookup(c, M, tid, &ref))
		return g_strdup("-");
	return g_strdup_printf("%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
		ref.name, ref.ns_inum, ref.vtid);
}

#define ASSERT_WHERE(c, tid, expected) do { \
		char *got = where(c, tid); \
		ck_assert_str_eq(got, expected); \
		g_free(got); \
	} while (0)

/* Trace Compass's Containers stub: innermost first, the highest level wins. */
START_TEST(statedump_levels_innermost_first)
{
	struct vm_containers *c = new_machine();

	dump_state(c, 40, "init", 1, 654321, 1, 1);
	dump_state(c, 40, "init", 0, ROOT, 40, 40);
	dump_state(c, 42, "init2", 2, 987654, 1, 1);
	dump_state(c, 42, "init2", 1, 654321, 3, 3);
	dump_state(c, 42, "init2", 0, ROOT, 42, 42);
	dump_state(c, 50, "plain", 0, ROOT, 50, 50);
	ASSERT_WHERE(c, 40, "init,654321,1");
	ASSERT_WHERE(c, 42, "init2,987654,1");
	ASSERT_WHERE(c, 50, "-");
	ASSERT_WHERE(c, 51, "-");
	ck_assert(vm_containers_any(c));
	vm_containers_destroy(c);
}
END_TEST

START_TEST(statedump_levels_outermost_first)
{
	struct vm_containers *c = new_machine();

	dump_state(c, 42, "app", 0, ROOT, 42, 42);
	dump_state(c, 42, "app", 1, 654321, 7, 7);
	ASSERT_WHERE(c, 42, "654321,654321,7");
	vm_containers_destroy(c);
}
END_TEST

/* LTTng >= 2.12: names from process_state, levels from pid_ns events. */
START_TEST(pid_ns_statedump)
{
	struct vm_containers *c = new_machine();

	dump_212(c, 100, "nginx");
	dump_pid_ns(c, 100, 0, ROOT, 100, 100);
	dump_pid_ns(c, 100, 1, 777, 1, 1);
	dump_212(c, 101, "worker");
	dump_pid_ns(c, 101, 1, 777, 2, 2);
	dump_pid_ns(c, 101, 0, ROOT, 101, 101);
	dump_212(c, 102, "bash");
	dump_pid_ns(c, 102, 0, ROOT, 102, 102);
	ASSERT_WHERE(c, 100, "nginx,777,1");
	ASSERT_WHERE(c, 101, "nginx,777,2");
	ASSERT_WHERE(c, 102, "-");
	vm_containers_destroy(c);
}
END_TEST

/* No init process in the trace: the inode number names the container. */
START_TEST(name_without_init)
{
	struct vm_containers *c = new_machine();

	dump_state(c, 131, "any2", 1, 987654, 4, 4);
	dump_state(c, 131, "any2", 0, ROOT, 131, 131);
	ASSERT_WHERE(c, 131, "987654,987654,4");
	vm_containers_destroy(c);
}
END_TEST

/* Forks: vtids' last element, nested levels, level 0 is no container. */
START_TEST(fork_sources)
{
	struct vm_containers *c = new_machine();

	dump_state(c, 42, "init", 2, 987654, 1, 1);
	fork_child(c, 42, 43, 43, "myapp", 987654, 2, 2);
	fork_child(c, 1, 60, 60, "sh", ROOT, 0, 60);
	/* A thread of 43: same namespace, its own vtid. */
	fork_child(c, 43, 44, 43, "myapp", 987654, 2, 3);
	/* Without ns fields (LTTng < 2.8): the parent's container, vtid unknown. */
	fork_child(c, 43, 45, 45, "old", VM_FIELD_MISSING, VM_FIELD_MISSING,
		VM_FIELD_MISSING);
	ASSERT_WHERE(c, 43, "init,987654,2");
	ASSERT_WHERE(c, 44, "init,987654,3");
	ASSERT_WHERE(c, 45, "init,987654,-1");
	ASSERT_WHERE(c, 60, "-");
	vm_containers_destroy(c);
}
END_TEST

/* A fork whose child is vpid 1 of a new namespace names it. */
START_TEST(fork_of_init_names)
{
	struct vm_containers *c = new_machine();

	fork_child(c, 10, 70, 70, "containerd-shim", 5555, 1, 1);
	fork_child(c, 70, 71, 71, "app", 5555, 1, 2);
	ASSERT_WHERE(c, 71, "containerd-shim,5555,2");
	vm_containers_destroy(c);
}
END_TEST

/* A tid reused by a fork is a new thread: the old container goes. */
START_TEST(fork_resets_reused_tid)
{
	struct vm_containers *c = new_machine();

	dump_state(c, 80, "old", 1, 4444, 9, 9);
	fork_child(c, 1, 80, 80, "new", ROOT, 0, 80);
	ASSERT_WHERE(c, 80, "-");
	vm_containers_destroy(c);
}
END_TEST

/* The pid_ns context beats every other source, and names the thread it ran in. */
START_TEST(context_wins)
{
	struct vm_containers *c = new_machine();
	struct vm_event other = base(VM_EVENT_OTHER, 5, 1);

	dump_state(c, 90, "x", 0, ROOT, 90, 90);
	/* sched_switch: the context is the thread switched out. */
	switch_to(c, 0, 90, 91, 3333);
	ASSERT_WHERE(c, 90, "3333,3333,-1");
	ASSERT_WHERE(c, 91, "-");
	/* Another event on CPU 1: the thread current there. */
	switch_to(c, 1, 0, 92, 0);
	other.pid_ns = 3333;
	vm_containers_feed(c, &other);
	ASSERT_WHERE(c, 92, "3333,3333,-1");
	/* A later statedump of lower precedence does not move it back. */
	dump_state(c, 90, "x", 0, ROOT, 90, 90);
	ASSERT_WHERE(c, 90, "3333,3333,-1");
	/* The machine's own namespace: in no container. */
	switch_to(c, 0, 91, 90, ROOT);
	ASSERT_WHERE(c, 91, "-");
	vm_containers_destroy(c);
}
END_TEST

/* The context agrees with the statedump: the vtid stays known. */
START_TEST(context_keeps_vtid)
{
	struct vm_containers *c = new_machine();

	dump_state(c, 95, "y", 1, 3333, 5, 5);
	switch_to(c, 0, 95, 0, 3333);
	ASSERT_WHERE(c, 95, "3333,3333,5");
	vm_containers_destroy(c);
}
END_TEST

/* After a gap the CPU's current thread is unknown: no context is attributed. */
START_TEST(context_after_loss)
{
	struct vm_containers *c = new_machine();
	struct vm_event loss = base(VM_EVENT_LOSS, 4, 0);
	struct vm_event other = base(VM_EVENT_OTHER, 5, 0);

	switch_to(c, 0, 0, 93, 0);
	vm_containers_feed(c, &loss);
	other.pid_ns = 3333;
	vm_containers_feed(c, &other);
	ASSERT_WHERE(c, 93, "-");
	vm_containers_destroy(c);
}
END_TEST

/* Bad fields never crash nor invent a container. */
START_TEST(bad_fields)
{
	struct vm_containers *c = new_machine();
	struct vm_event ev = base(VM_EVENT_STATEDUMP_PID_NS, 1, 0);

	dump_state(c, -5, "neg", 1, 777, 1, 1);
	dump_pid_ns(c, 20, 1, 0, 1, 1);
	dump_pid_ns(c, 21, 1, -3, 1, 1);
	dump_pid_ns(c, 22, VM_FIELD_MISSING, 7777, VM_FIELD_MISSING,
		VM_FIELD_MISSING);
	ev.machine = 9; /* never named */
	vm_containers_feed(c, &ev);
	ASSERT_WHERE(c, 20, "-");
	ASSERT_WHERE(c, 21, "-");
	/* Unknown level, not the initial namespace: a container. */
	ASSERT_WHERE(c, 22, "7777,7777,-1");
	vm_containers_destroy(c);
}
END_TEST

START_TEST(lookup_by_name)
{
	struct vm_containers *c = new_machine();
	struct vm_container_ref ref;

	vm_containers_add_machine(c, 1, "other");
	dump_state(c, 40, "init", 1, 654321, 1, 1);
	ck_assert(vm_containers_lookup_by_name(c, "guest", 40, &ref));
	ck_assert_int_eq(ref.ns_inum, 654321);
	ck_assert(!vm_containers_lookup_by_name(c, "other", 40, &ref));
	ck_assert(!vm_containers_lookup_by_name(c, "nope", 40, &ref));
	ck_assert(!vm_containers_lookup(c, 7, 40, &ref));
	vm_containers_destroy(c);
}
END_TEST

static void row_text(const struct vm_container_total *row, void *data)
{
	GString *out = data;

	g_string_append_printf(out, "%s,%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
		row->machine, row->container, row->ns_inum, row->threads);
	for (int i = 0; i < VM_CONTAINER_STATES; i++)
		g_string_append_printf(out, ",%" G_GINT64_FORMAT, row->ns[i]);
	g_string_append_c(out, '\n');
}

START_TEST(totals)
{
	struct vm_container_totals *t = vm_container_totals_create();
	struct vm_container_ref a = { .ns_inum = 900, .name = "900", .vtid = 1 };
	struct vm_container_ref b = { .ns_inum = 80, .name = "web", .vtid = 2 };
	GString *out = g_string_new("");

	vm_container_totals_add(t, "g2", &a, 5, "running", 0, 10);
	vm_container_totals_add(t, "g1", &a, 5, "running", 0, 10);
	vm_container_totals_add(t, "g1", &a, 5, "preempted", 10, 13);
	vm_container_totals_add(t, "g1", &a, 6, "vcpu-blocked", 0, 4);
	vm_container_totals_add(t, "g1", &b, 7, "hypervisor", 0, 1);
	vm_container_totals_add(t, "g1", &b, 7, "runnable", 1, 3);
	vm_container_totals_add(t, "g1", &b, 7, "blocked", 3, 7);
	vm_container_totals_add(t, "g1", &b, 7, "unknown", 7, 15);
	/* The init process showed up: the latest name wins. */
	a.name = "init";
	vm_container_totals_add(t, "g1", &a, 6, "bogus", 4, 5);
	vm_container_totals_foreach(t, row_text, out);
	ck_assert_str_eq(out->str,
		"g1,web,80,1,0,1,0,0,2,4,8\n"
		"g1,init,900,2,10,0,3,4,0,0,0\n"
		"g2,900,900,1,10,0,0,0,0,0,0\n");
	ck_assert_int_eq(vm_container_state_of_name("vcpu-blocked"),
		VM_CONTAINER_VCPU_BLOCKED);
	ck_assert_int_eq(vm_container_state_of_name("x"), -1);
	ck_assert_int_eq(vm_container_state_of_name(NULL), -1);
	g_string_free(out, TRUE);
	vm_container_totals_destroy(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("containers");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, statedump_levels_innermost_first);
	tcase_add_test(tc, statedump_levels_outermost_first);
	tcase_add_test(tc, pid_ns_statedump);
	tcase_add_test(tc, name_without_init);
	tcase_add_test(tc, fork_sources);
	tcase_add_test(tc, fork_of_init_names);
	tcase_add_test(tc, fork_resets_reused_tid);
	tcase_add_test(tc, context_wins);
	tcase_add_test(tc, context_keeps_vtid);
	tcase_add_test(tc, context_after_loss);
	tcase_add_test(tc, bad_fields);
	tcase_add_test(tc, lookup_by_name);
	tcase_add_test(tc, totals);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
