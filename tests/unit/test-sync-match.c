/* Matching of sends and receives across machines. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "sync/quality.h"
#include "sync/sync.h"

enum { TCP = 1, VMSYNC = 0 };

static void add(struct vm_sync *sync, unsigned int protocol, uint64_t a,
		enum vm_sync_role role, unsigned int machine, int64_t ts)
{
	struct vm_sync_key key = { a, 7, 9 };

	vm_sync_add_event(sync, protocol, &key, role, machine, ts);
}

static uint64_t matches_of(const struct vm_sync *sync, unsigned int reference,
		unsigned int machine, unsigned int count)
{
	struct vm_sync_result results[8];

	ck_assert_uint_le(count, 8);
	vm_sync_solve(sync, reference, results);
	return results[machine].matches;
}

START_TEST(same_machine_never_matches)
{
	struct vm_sync *sync = vm_sync_create(3);

	add(sync, TCP, 1, VM_SYNC_SEND, 0, 100);
	add(sync, TCP, 1, VM_SYNC_RECEIVE, 0, 110);
	ck_assert(!vm_sync_has_matches(sync, 0, 1));
	ck_assert(!vm_sync_has_matches(sync, 0, 2));
	/* Both still wait: a receive elsewhere takes the send ... */
	add(sync, TCP, 1, VM_SYNC_RECEIVE, 1, 120);
	ck_assert(vm_sync_has_matches(sync, 0, 1));
	ck_assert_uint_eq(matches_of(sync, 0, 1, 3), 1);
	/* ... and a send elsewhere takes machine 0's receive. */
	add(sync, TCP, 1, VM_SYNC_SEND, 2, 105);
	ck_assert(vm_sync_has_matches(sync, 0, 2));
	ck_assert(vm_sync_has_matches(sync, 2, 0));
	ck_assert(!vm_sync_has_matches(sync, 1, 2));
	ck_assert(!vm_sync_has_matches(sync, 1, 1));
	vm_sync_destroy(sync);
}
END_TEST

/* A line needs matches both ways: one way only bounds one side. */
START_TEST(a_line_needs_matches_both_ways)
{
	struct vm_sync *sync = vm_sync_create(2);

	ck_assert(!vm_sync_has_line(sync, 0, 1));
	for (uint64_t i = 0; i < 5; i++) {
		add(sync, TCP, 10 + i, VM_SYNC_SEND, 0, 1000 * (int64_t) i);
		add(sync, TCP, 10 + i, VM_SYNC_RECEIVE, 1, 1000 * (int64_t) i + 100);
	}
	ck_assert(vm_sync_has_matches(sync, 0, 1));
	ck_assert(!vm_sync_has_line(sync, 0, 1));
	ck_assert(!vm_sync_has_line(sync, 1, 0));
	add(sync, TCP, 99, VM_SYNC_SEND, 1, 5500);
	add(sync, TCP, 99, VM_SYNC_RECEIVE, 0, 5600);
	ck_assert(vm_sync_has_line(sync, 0, 1));
	ck_assert(vm_sync_has_line(sync, 1, 0));
	vm_sync_destroy(sync);
}
END_TEST

START_TEST(two_sends_or_two_receives_never_match)
{
	struct vm_sync *sync = vm_sync_create(2);

	add(sync, TCP, 1, VM_SYNC_SEND, 0, 100);
	add(sync, TCP, 1, VM_SYNC_SEND, 1, 100);
	add(sync, TCP, 2, VM_SYNC_RECEIVE, 0, 100);
	add(sync, TCP, 2, VM_SYNC_RECEIVE, 1, 100);
	ck_assert(!vm_sync_has_matches(sync, 0, 1));
	vm_sync_destroy(sync);
}
END_TEST

START_TEST(protocols_and_keys_are_separate)
{
	struct vm_sync *sync = vm_sync_create(2);
	struct vm_sync_key key = { 1, 2, 3 };
	struct vm_sync_key other_c = { 1, 2, 4 };

	add(sync, TCP, 1, VM_SYNC_SEND, 0, 100);
	add(sync, VMSYNC, 1, VM_SYNC_RECEIVE, 1, 110);
	vm_sync_add_event(sync, TCP, &key, VM_SYNC_SEND, 0, 100);
	vm_sync_add_event(sync, TCP, &other_c, VM_SYNC_RECEIVE, 1, 110);
	ck_assert(!vm_sync_has_matches(sync, 0, 1));
	vm_sync_add_event(sync, TCP, &key, VM_SYNC_RECEIVE, 1, 110);
	ck_assert_uint_eq(matches_of(sync, 0, 1, 2), 1);
	vm_sync_destroy(sync);
}
END_TEST

START_TEST(duplicates_wait_for_their_own_partner)
{
	struct vm_sync *sync = vm_sync_create(2);

	add(sync, TCP, 1, VM_SYNC_SEND, 0, 100);
	add(sync, TCP, 1, VM_SYNC_SEND, 0, 200);
	add(sync, TCP, 1, VM_SYNC_RECEIVE, 1, 150);
	ck_assert_uint_eq(matches_of(sync, 0, 1, 2), 1);
	add(sync, TCP, 1, VM_SYNC_RECEIVE, 1, 250);
	ck_assert_uint_eq(matches_of(sync, 0, 1, 2), 2);
	/* Nothing left: a third receive waits. */
	add(sync, TCP, 1, VM_SYNC_RECEIVE, 1, 350);
	ck_assert_uint_eq(matches_of(sync, 0, 1, 2), 2);
	add(sync, TCP, 1, VM_SYNC_SEND, 0, 300);
	ck_assert_uint_eq(matches_of(sync, 0, 1, 2), 3);
	vm_sync_destroy(sync);
}
END_TEST

START_TEST(out_of_range_machine_is_ignored)
{
	struct vm_sync *sync = vm_sync_create(2);

	add(sync, TCP, 1, VM_SYNC_SEND, 2, 100);
	add(sync, TCP, 1, VM_SYNC_RECEIVE, 1, 110);
	ck_assert(!vm_sync_has_matches(sync, 1, 2));
	ck_assert(!vm_sync_has_matches(sync, 0, 1));
	vm_sync_destroy(sync);
}
END_TEST

/*
 * Trace Compass's testFullyIncremental through the matcher, with machine 0 as
 * t1. Every step has a decoy: a duplicate of the send, later, with the same
 * key. If the first unmatched event did not win, the decoys would be matched
 * and the fit would differ.
 */
START_TEST(first_unmatched_event_wins)
{
	static const struct {
		unsigned int sender;
		int64_t send_ts;
		int64_t recv_ts;
	} steps[] = {
		{ 1, 1, 1 }, { 0, 1, 3 }, { 1, 2, 3 }, { 0, 3, 5 }, { 0, 4, 8 },
		{ 1, 4, 5 }, { 1, 4, 6 }, { 0, 6, 7 }, { 0, 7, 4 },
	};
	struct vm_sync *sync = vm_sync_create(2);
	struct vm_sync_result results[2];

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		unsigned int sender = steps[i].sender;

		add(sync, TCP, i, VM_SYNC_SEND, sender, steps[i].send_ts);
		add(sync, TCP, i, VM_SYNC_SEND, sender, steps[i].send_ts + 1000);
		add(sync, TCP, i, VM_SYNC_RECEIVE, 1 - sender, steps[i].recv_ts);
	}
	vm_sync_solve(sync, 0, results);
	/* a = 0.375, b = 1.625: machine 1 -> 0 is t / a - b / a */
	ck_assert_int_eq(results[1].quality, VM_SYNC_ACCURATE);
	ck_assert(fabsl(results[1].formula.slope - 1 / 0.375L) < 1e-15L);
	ck_assert(fabsl(results[1].formula.offset_ns + 1.625L / 0.375L) < 1e-15L);
	ck_assert_uint_eq(results[1].matches, 9);
	ck_assert_int_eq(results[1].parent, 0);

	/* The crossing message of the vectors: fail, last good formula kept. */
	add(sync, TCP, 100, VM_SYNC_SEND, 1, 7);
	add(sync, TCP, 100, VM_SYNC_RECEIVE, 0, 3);
	vm_sync_solve(sync, 0, results);
	ck_assert_int_eq(results[1].quality, VM_SYNC_FAIL);
	ck_assert(fabsl(results[1].formula.slope - 1 / 0.375L) < 1e-15L);
	ck_assert(fabsl(results[1].formula.offset_ns + 1.625L / 0.375L) < 1e-15L);
	vm_sync_destroy(sync);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sync-match");
	TCase *tc = tcase_create("matching");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, same_machine_never_matches);
	tcase_add_test(tc, a_line_needs_matches_both_ways);
	tcase_add_test(tc, two_sends_or_two_receives_never_match);
	tcase_add_test(tc, protocols_and_keys_are_separate);
	tcase_add_test(tc, duplicates_wait_for_their_own_partner);
	tcase_add_test(tc, out_of_range_machine_is_ignored);
	tcase_add_test(tc, first_unmatched_event_wins);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
