/* Solving all machines against one reference along shortest paths. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "sync/quality.h"
#include "sync/sync.h"
#include "test-sync-clocks.h"

#define START INT64_C(1700000000000000000)
#define SECOND INT64_C(1000000000)
#define LATENCY INT64_C(2000000)
#define COUNT 600

/* Host and guests with drifts of a few ppm and offsets of seconds to hours. */
static const struct test_clock clocks[] = {
	{ 1000000, 0 },
	{ 1000004, -INT64_C(2000000000) },
	{ 999990, INT64_C(7200000000000) },
	{ 1000021, INT64_C(13000000007) },
	{ 999999, -INT64_C(100) },
};

static void link_pair(struct vm_sync *sync, unsigned int x, unsigned int y)
{
	exchange(sync, clocks, x, y, START, SECOND, COUNT, LATENCY, (uint64_t) (x * 16 + y) << 32);
}

static void check_identity_absent(const struct vm_sync_result *result)
{
	ck_assert(result->formula.slope == 1.0L && result->formula.offset_ns == 0.0L);
	ck_assert_int_eq(result->quality, VM_SYNC_ABSENT);
	ck_assert_uint_eq(result->matches, 0);
	ck_assert(result->accuracy == 0.0L);
	ck_assert_int_eq(result->parent, -1);
}

static void check_reached(const struct vm_sync_result *results, unsigned int machine,
		unsigned int reference, int parent)
{
	ck_assert_int_eq(results[machine].parent, parent);
	ck_assert_int_eq(results[machine].quality, VM_SYNC_ACCURATE);
	ck_assert_uint_eq(results[machine].matches, 2 * COUNT);
	ck_assert(results[machine].accuracy > 0.0L);
	check_mapping(&results[machine].formula, &clocks[machine], &clocks[reference],
		START, START + COUNT * SECOND);
}

START_TEST(host_and_two_guests)
{
	struct vm_sync *sync = vm_sync_create(3);
	struct vm_sync_result results[3];

	link_pair(sync, 0, 1);
	link_pair(sync, 0, 2);

	vm_sync_solve(sync, 0, results);
	check_identity_absent(&results[0]);
	check_reached(results, 1, 0, 0);
	check_reached(results, 2, 0, 0);

	/* Guest to guest goes through the host. */
	vm_sync_solve(sync, 1, results);
	check_identity_absent(&results[1]);
	check_reached(results, 0, 1, 1);
	check_reached(results, 2, 1, 0);

	vm_sync_solve(sync, 2, results);
	check_reached(results, 1, 2, 0);
	vm_sync_destroy(sync);
}
END_TEST

START_TEST(three_hop_chain)
{
	struct vm_sync *sync = vm_sync_create(4);
	struct vm_sync_result results[4];

	/* Indices out of chain order, so that both hull orientations occur. */
	link_pair(sync, 2, 0);
	link_pair(sync, 0, 3);
	link_pair(sync, 3, 1);

	vm_sync_solve(sync, 2, results);
	check_reached(results, 0, 2, 2);
	check_reached(results, 3, 2, 0);
	check_reached(results, 1, 2, 3);

	vm_sync_solve(sync, 1, results);
	check_reached(results, 3, 1, 1);
	check_reached(results, 0, 1, 3);
	check_reached(results, 2, 1, 0);
	vm_sync_destroy(sync);
}
END_TEST

START_TEST(ties_go_to_the_lower_index)
{
	struct vm_sync *sync = vm_sync_create(4);
	struct vm_sync_result results[4];

	/* A square: 0-2, 0-1, 2-3, 1-3; 3 is two hops from 0 both ways. */
	link_pair(sync, 0, 2);
	link_pair(sync, 2, 3);
	link_pair(sync, 0, 1);
	link_pair(sync, 1, 3);

	vm_sync_solve(sync, 0, results);
	check_reached(results, 3, 0, 1);
	vm_sync_solve(sync, 3, results);
	check_reached(results, 0, 3, 1);
	/* A direct pair beats a two-hop path. */
	link_pair(sync, 0, 3);
	vm_sync_solve(sync, 0, results);
	check_reached(results, 3, 0, 0);
	vm_sync_destroy(sync);
}
END_TEST

START_TEST(unreachable_machine_keeps_identity)
{
	struct vm_sync *sync = vm_sync_create(5);
	struct vm_sync_result results[5];
	struct vm_sync_key key = { 42, 0, 0 };

	link_pair(sync, 0, 1);
	link_pair(sync, 2, 3);
	/* Machine 4 has events, none matched. */
	vm_sync_add_event(sync, 0, &key, VM_SYNC_SEND, 4, START);
	vm_sync_add_event(sync, 0, &key, VM_SYNC_RECEIVE, 4, START + 10);

	vm_sync_solve(sync, 0, results);
	check_reached(results, 1, 0, 0);
	check_identity_absent(&results[2]);
	check_identity_absent(&results[3]);
	check_identity_absent(&results[4]);

	/* Out-of-range reference: nobody is reached. */
	vm_sync_solve(sync, 7, results);
	for (unsigned int m = 0; m < 5; m++)
		check_identity_absent(&results[m]);
	vm_sync_destroy(sync);
}
END_TEST

/* Messages from x to y only: the pair stays incomplete. */
static void one_way(struct vm_sync *sync, unsigned int x, unsigned int y)
{
	for (int i = 0; i < 10; i++) {
		struct vm_sync_key key = { 5000 + (uint64_t) i, x, y };
		int64_t t = START + i * SECOND;

		vm_sync_add_event(sync, 0, &key, VM_SYNC_SEND, x, clock_read(&clocks[x], t));
		vm_sync_add_event(sync, 0, &key, VM_SYNC_RECEIVE, y,
			clock_read(&clocks[y], t + LATENCY));
	}
}

START_TEST(path_quality_is_the_worst_pair)
{
	struct vm_sync *sync = vm_sync_create(4);
	struct vm_sync_result results[4];
	struct vm_sync_key key = { 9999, 0, 0 };

	link_pair(sync, 0, 1);
	one_way(sync, 1, 2);
	link_pair(sync, 2, 3);

	vm_sync_solve(sync, 0, results);
	ck_assert_int_eq(results[1].quality, VM_SYNC_ACCURATE);
	ck_assert_int_eq(results[2].quality, VM_SYNC_INCOMPLETE);
	ck_assert_uint_eq(results[2].matches, 10);
	ck_assert(results[2].accuracy == 0.0L);
	ck_assert_int_eq(results[3].quality, VM_SYNC_INCOMPLETE);
	ck_assert_int_eq(results[3].parent, 2);
	ck_assert_uint_eq(results[3].matches, 2 * COUNT);

	/* A message arriving before it was sent makes 0-1 fail. */
	vm_sync_add_event(sync, 0, &key, VM_SYNC_SEND, 0,
		clock_read(&clocks[0], START + 10 * SECOND));
	vm_sync_add_event(sync, 0, &key, VM_SYNC_RECEIVE, 1,
		clock_read(&clocks[1], START + 10 * SECOND - 100 * LATENCY));
	vm_sync_solve(sync, 0, results);
	ck_assert_int_eq(results[1].quality, VM_SYNC_FAIL);
	ck_assert_int_eq(results[2].quality, VM_SYNC_FAIL);
	ck_assert_int_eq(results[3].quality, VM_SYNC_FAIL);
	/* The failed pair still maps with its last good formula. */
	check_mapping(&results[1].formula, &clocks[1], &clocks[0],
		START, START + COUNT * SECOND);
	vm_sync_destroy(sync);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sync-solve");
	TCase *tc = tcase_create("spanning-tree");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, host_and_two_guests);
	tcase_add_test(tc, three_hop_chain);
	tcase_add_test(tc, ties_go_to_the_lower_index);
	tcase_add_test(tc, unreachable_machine_keeps_identity);
	tcase_add_test(tc, path_quality_is_the_worst_pair);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
