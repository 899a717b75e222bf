#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <glib.h>

#include "sync/guest-mode.h"

static void collect(void *data, const struct vm_guest_mode_interval *interval)
{
	g_array_append_val((GArray *) data, *interval);
}

static GArray *drained(struct vm_guest_modes *modes)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(struct vm_guest_mode_interval));

	vm_guest_modes_drain(modes, collect, out);
	return out;
}

static void expect(GArray *got, guint i, int64_t tid, uint64_t vcpu, int64_t entry,
		int64_t exit_ns)
{
	const struct vm_guest_mode_interval *interval;

	ck_assert_uint_lt(i, got->len);
	interval = &g_array_index(got, struct vm_guest_mode_interval, i);
	ck_assert_int_eq(interval->tid, tid);
	ck_assert_uint_eq(interval->vcpu, vcpu);
	ck_assert_int_eq(interval->entry_ns, entry);
	ck_assert_int_eq(interval->exit_ns, exit_ns);
}

START_TEST(entry_and_next_exit_of_a_cpu_make_an_interval_of_its_thread)
{
	struct vm_guest_modes *modes = vm_guest_modes_create();
	GArray *got;

	vm_guest_modes_switch(modes, 0, 1, 100);
	vm_guest_modes_switch(modes, 1, 2, 200);
	vm_guest_modes_entry(modes, 0, 0, 10);
	vm_guest_modes_entry(modes, 1, 1, 12);
	vm_guest_modes_exit(modes, 1, -1, 15);
	vm_guest_modes_exit(modes, 0, -1, 20);
	vm_guest_modes_switch(modes, 0, 100, 200);
	vm_guest_modes_entry(modes, 0, 1, 30);
	vm_guest_modes_exit(modes, 0, -1, 35);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).intervals, 3);
	got = drained(modes);
	ck_assert_uint_eq(got->len, 3);
	expect(got, 0, 100, 0, 10, 20);
	expect(got, 1, 200, 1, 12, 15);
	expect(got, 2, 200, 1, 30, 35);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).lost_exits, 0);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).unknown_thread, 0);
	g_array_free(got, TRUE);
	vm_guest_modes_destroy(modes);
}
END_TEST

START_TEST(an_entry_while_one_is_open_drops_the_open_one)
{
	struct vm_guest_modes *modes = vm_guest_modes_create();
	GArray *got;

	vm_guest_modes_switch(modes, 3, 0, 7);
	vm_guest_modes_entry(modes, 3, 0, 10);
	vm_guest_modes_entry(modes, 3, 0, 40);
	vm_guest_modes_exit(modes, 3, -1, 50);
	/* A switch out of an open interval: its exit was lost too. */
	vm_guest_modes_entry(modes, 3, 0, 60);
	vm_guest_modes_switch(modes, 3, 7, 8);
	vm_guest_modes_exit(modes, 3, -1, 70);
	got = drained(modes);
	ck_assert_uint_eq(got->len, 1);
	expect(got, 0, 7, 0, 40, 50);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).lost_exits, 2);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).lone_exits, 1);
	g_array_free(got, TRUE);
	vm_guest_modes_destroy(modes);
}
END_TEST

START_TEST(intervals_before_a_cpus_first_switch_belong_to_its_prev_tid)
{
	struct vm_guest_modes *modes = vm_guest_modes_create();
	GArray *got;

	/* The trace starts with CPU 2 in guest mode: that first exit is lone. */
	vm_guest_modes_exit(modes, 2, -1, 5);
	vm_guest_modes_entry(modes, 2, 1, 10);
	vm_guest_modes_exit(modes, 2, -1, 20);
	vm_guest_modes_switch(modes, 2, 42, 9);
	/* CPU 5 never switches: its thread stays unknown. */
	vm_guest_modes_entry(modes, 5, 0, 11);
	vm_guest_modes_exit(modes, 5, -1, 13);
	got = drained(modes);
	ck_assert_uint_eq(got->len, 2);
	expect(got, 0, -1, 0, 11, 13);
	expect(got, 1, 42, 1, 10, 20);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).lone_exits, 1);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).unknown_thread, 1);
	g_array_free(got, TRUE);
	vm_guest_modes_destroy(modes);
}
END_TEST

START_TEST(entries_without_vcpu_or_cpu_are_counted_not_kept)
{
	struct vm_guest_modes *modes = vm_guest_modes_create();
	GArray *got;

	vm_guest_modes_switch(modes, 0, 1, 2);
	vm_guest_modes_entry(modes, 0, -1, 10);
	vm_guest_modes_exit(modes, 0, -1, 20);
	vm_guest_modes_entry(modes, -1, 0, 30);
	vm_guest_modes_exit(modes, -1, -1, 40);
	got = drained(modes);
	ck_assert_uint_eq(got->len, 0);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).bad_entries, 2);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).lone_exits, 2);
	g_array_free(got, TRUE);
	vm_guest_modes_destroy(modes);
}
END_TEST

START_TEST(destroy_without_drain_frees_everything)
{
	struct vm_guest_modes *modes = vm_guest_modes_create();

	vm_guest_modes_entry(modes, 1, 0, 10);
	vm_guest_modes_exit(modes, 1, -1, 20);
	vm_guest_modes_switch(modes, 0, 1, 2);
	vm_guest_modes_entry(modes, 0, 0, 10);
	vm_guest_modes_exit(modes, 0, -1, 20);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).intervals, 2);
	vm_guest_modes_destroy(modes);
}
END_TEST

/* Read once: what closed is given as it goes, what is open or unnamed waits. */
START_TEST(take_closed_gives_what_closed_and_keeps_the_rest)
{
	struct vm_guest_modes *modes = vm_guest_modes_create();
	GArray *got = g_array_new(FALSE, FALSE, sizeof(struct vm_guest_mode_interval));

	ck_assert_int_eq(vm_guest_modes_pending_since(modes), INT64_MAX);
	vm_guest_modes_switch(modes, 0, 1, 100);
	vm_guest_modes_entry(modes, 0, 0, 10);
	vm_guest_modes_exit(modes, 0, -1, 20);
	/* CPU 1 has not switched yet: its interval waits for its thread. */
	vm_guest_modes_entry(modes, 1, 1, 12);
	vm_guest_modes_exit(modes, 1, -1, 16);
	vm_guest_modes_entry(modes, 0, 0, 30);
	ck_assert_int_eq(vm_guest_modes_pending_since(modes), 12);
	vm_guest_modes_take_closed(modes, INT64_MIN, collect, got);
	ck_assert_uint_eq(got->len, 1);
	expect(got, 0, 100, 0, 10, 20);
	ck_assert_int_eq(vm_guest_modes_pending_since(modes), 12);

	vm_guest_modes_switch(modes, 1, 7, 300);
	ck_assert_int_eq(vm_guest_modes_pending_since(modes), 30);
	vm_guest_modes_exit(modes, 0, -1, 40);
	ck_assert_int_eq(vm_guest_modes_pending_since(modes), INT64_MAX);
	g_array_set_size(got, 0);
	vm_guest_modes_take_closed(modes, INT64_MIN, collect, got);
	ck_assert_uint_eq(got->len, 2);
	/* Thread by thread, in increasing tid. */
	expect(got, 0, 7, 1, 12, 16);
	expect(got, 1, 100, 0, 30, 40);
	g_array_set_size(got, 0);
	vm_guest_modes_take_closed(modes, INT64_MIN, collect, got);
	ck_assert_uint_eq(got->len, 0);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).intervals, 3);

	/* CPU 2 never switches: once old enough, its intervals are the unknown thread's. */
	vm_guest_modes_entry(modes, 2, 4, 50);
	vm_guest_modes_exit(modes, 2, -1, 60);
	vm_guest_modes_entry(modes, 2, 4, 70);
	vm_guest_modes_exit(modes, 2, -1, 80);
	ck_assert_int_eq(vm_guest_modes_pending_since(modes), 50);
	vm_guest_modes_take_closed(modes, 75, collect, got);
	ck_assert_uint_eq(got->len, 1);
	expect(got, 0, -1, 4, 50, 60);
	ck_assert_int_eq(vm_guest_modes_pending_since(modes), 70);
	g_array_free(got, TRUE);
	vm_guest_modes_destroy(modes);
}
END_TEST

/*
 * Read once takes every millisecond: each closed interval comes once, a
 * thread emptied by a take comes again with its next interval, and the
 * many threads with nothing new give nothing.
 */
START_TEST(take_closed_gives_each_interval_once)
{
	struct vm_guest_modes *modes = vm_guest_modes_create();
	GArray *got = g_array_new(FALSE, FALSE, sizeof(struct vm_guest_mode_interval));

	/* Threads that ran and never entered guest mode. */
	for (int64_t tid = 1000; tid < 1100; tid++) {
		vm_guest_modes_switch(modes, 3, tid, tid + 1);
	}

	/* Thread 5 on CPU 0, then on CPU 1: two appends to one thread. */
	vm_guest_modes_switch(modes, 0, 1, 5);
	vm_guest_modes_entry(modes, 0, 0, 10);
	vm_guest_modes_exit(modes, 0, -1, 20);
	vm_guest_modes_switch(modes, 0, 5, 6);
	vm_guest_modes_switch(modes, 1, 2, 5);
	vm_guest_modes_entry(modes, 1, 0, 30);
	vm_guest_modes_exit(modes, 1, -1, 40);
	vm_guest_modes_entry(modes, 0, 1, 32);
	vm_guest_modes_exit(modes, 0, -1, 38);
	vm_guest_modes_take_closed(modes, INT64_MIN, collect, got);
	ck_assert_uint_eq(got->len, 3);
	expect(got, 0, 5, 0, 10, 20);
	expect(got, 1, 5, 0, 30, 40);
	expect(got, 2, 6, 1, 32, 38);

	g_array_set_size(got, 0);
	vm_guest_modes_take_closed(modes, INT64_MIN, collect, got);
	ck_assert_uint_eq(got->len, 0);

	vm_guest_modes_entry(modes, 1, 0, 50);
	vm_guest_modes_exit(modes, 1, -1, 60);
	vm_guest_modes_take_closed(modes, INT64_MIN, collect, got);
	ck_assert_uint_eq(got->len, 1);
	expect(got, 0, 5, 0, 50, 60);

	/* What was taken is not drained again. */
	g_array_free(got, TRUE);
	got = drained(modes);
	ck_assert_uint_eq(got->len, 0);
	ck_assert_uint_eq(vm_guest_modes_counts(modes).intervals, 4);
	g_array_free(got, TRUE);
	vm_guest_modes_destroy(modes);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("guest-mode");
	TCase *tc = tcase_create("pairing");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, entry_and_next_exit_of_a_cpu_make_an_interval_of_its_thread);
	tcase_add_test(tc, an_entry_while_one_is_open_drops_the_open_one);
	tcase_add_test(tc, intervals_before_a_cpus_first_switch_belong_to_its_prev_tid);
	tcase_add_test(tc, entries_without_vcpu_or_cpu_are_counted_not_kept);
	tcase_add_test(tc, destroy_without_drain_frees_everything);
	tcase_add_test(tc, take_closed_gives_what_closed_and_keeps_the_rest);
	tcase_add_test(tc, take_closed_gives_each_interval_once);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
