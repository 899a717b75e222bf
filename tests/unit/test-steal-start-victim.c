/*
 * The victim of steal rows before a guest CPU's first sched_switch
 * (lib/steal/start-victim.h): held, then named by that switch's prev_tid,
 * merged into maximal rows; left unknown after a loss or at the end.
 */
#include <check.h>
#include <glib.h>
#include <stdlib.h>

#include "steal/start-victim.h"

struct sink {
	int count;
	struct vm_steal_start_row rows[8];
};

static void collect(const struct vm_steal_key *key, int64_t begin, int64_t end, void *data)
{
	struct sink *sink = data;

	ck_assert_int_lt(sink->count, 8);
	sink->rows[sink->count++] = (struct vm_steal_start_row) {
		.key = *key, .begin = begin, .end = end,
	};
}

static struct vm_steal_key key_of(int64_t victim, int64_t culprit)
{
	return (struct vm_steal_key) {
		.victim_tid = victim, .victim_comm = "", .pcpu = 1,
		.culprit_tid = culprit, .culprit_comm = "",
	};
}

/* Unknown-victim rows before the first switch get its prev_tid, then merge. */
START_TEST(named_by_first_switch)
{
	static const char *comm = "mysqld";
	struct vm_steal_start_victim sv;
	struct sink sink = { 0 };
	struct vm_steal_key unknown = key_of(-1, 7), named = key_of(42, 7);

	named.victim_comm = comm;
	vm_steal_start_victim_init(&sv);
	vm_steal_start_victim_row(&sv, &unknown, 10, 20, collect, &sink);
	ck_assert_int_eq(sink.count, 0);
	vm_steal_start_victim_resolve(&sv, 42, comm, 25, collect, &sink);
	/* A row the segments kept back, ended after the switch. */
	vm_steal_start_victim_row(&sv, &unknown, 20, 25, collect, &sink);
	/* The switch's own next thread, same victim by chance: one row. */
	vm_steal_start_victim_row(&sv, &named, 25, 30, collect, &sink);
	/* Unknown again later (a loss): not filled. */
	vm_steal_start_victim_row(&sv, &unknown, 40, 50, collect, &sink);
	vm_steal_start_victim_end(&sv, collect, &sink);
	ck_assert_int_eq(sink.count, 2);
	ck_assert_int_eq(sink.rows[0].begin, 10);
	ck_assert_int_eq(sink.rows[0].end, 30);
	ck_assert_int_eq(sink.rows[0].key.victim_tid, 42);
	ck_assert_str_eq(sink.rows[0].key.victim_comm, "mysqld");
	ck_assert_int_eq(sink.rows[1].key.victim_tid, -1);
	vm_steal_start_victim_fini(&sv);
}
END_TEST

/* An idle CPU at the start: tid 0, no comm. */
START_TEST(idle_at_start)
{
	struct vm_steal_start_victim sv;
	struct sink sink = { 0 };
	struct vm_steal_key unknown = key_of(-1, 7);

	vm_steal_start_victim_init(&sv);
	vm_steal_start_victim_row(&sv, &unknown, 10, 20, collect, &sink);
	vm_steal_start_victim_resolve(&sv, 0, "swapper/0", 30, collect, &sink);
	vm_steal_start_victim_end(&sv, collect, &sink);
	ck_assert_int_eq(sink.count, 1);
	ck_assert_int_eq(sink.rows[0].key.victim_tid, 0);
	ck_assert_str_eq(sink.rows[0].key.victim_comm, "");
	vm_steal_start_victim_fini(&sv);
}
END_TEST

/* A loss before any switch: the rows stay unknown, whatever comes later. */
START_TEST(loss_first)
{
	struct vm_steal_start_victim sv;
	struct sink sink = { 0 };
	struct vm_steal_key unknown = key_of(-1, 7);

	vm_steal_start_victim_init(&sv);
	vm_steal_start_victim_row(&sv, &unknown, 10, 20, collect, &sink);
	vm_steal_start_victim_give_up(&sv, collect, &sink);
	vm_steal_start_victim_resolve(&sv, 42, "x", 30, collect, &sink);
	vm_steal_start_victim_row(&sv, &unknown, 20, 25, collect, &sink);
	vm_steal_start_victim_end(&sv, collect, &sink);
	ck_assert_int_eq(sink.count, 1);
	ck_assert_int_eq(sink.rows[0].end, 25);
	ck_assert_int_eq(sink.rows[0].key.victim_tid, -1);
	vm_steal_start_victim_fini(&sv);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("steal-start-victim");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, named_by_first_switch);
	tcase_add_test(tc, idle_at_start);
	tcase_add_test(tc, loss_first);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
