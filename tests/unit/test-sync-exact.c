/*
 * Exactness on real-sized timestamps: nanoseconds since the Unix epoch
 * (~1.7e18), exchanges spanning three hours, clocks drifting by ppm. With
 * 64-bit cross products or double precision these would overflow or be off
 * by hundreds of nanoseconds.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "sync/quality.h"
#include "sync/sync.h"
#include "test-sync-clocks.h"

#define START INT64_C(1700000000000000000)
#define SECOND INT64_C(1000000000)
#define HOURS3 (3 * 3600)
#define LATENCY INT64_C(1000000)

static void solve_pair(const struct test_clock *clocks, unsigned int reference,
		struct vm_sync_result *results)
{
	struct vm_sync *sync = vm_sync_create(2);

	exchange(sync, clocks, 0, 1, START, SECOND, HOURS3, LATENCY, 0);
	vm_sync_solve(sync, reference, results);
	vm_sync_destroy(sync);
}

/* slope and offset of `machine` against `ref`, exactly as rationals. */
static void check_recovered(const struct vm_sync_result *result,
		const struct test_clock *machine, const struct test_clock *ref)
{
	/* t_ref = (t - o_m) * n_r / n_m + o_r */
	long double slope = (long double) ref->num / (long double) machine->num;
	long double offset = (long double) ref->offset -
		(long double) machine->offset * slope;

	ck_assert_int_eq(result->quality, VM_SYNC_ACCURATE);
	ck_assert_msg(fabsl(result->formula.slope - slope) < 1e-18L,
		"slope %.25Lg, expected %.25Lg", result->formula.slope, slope);
	ck_assert_msg(fabsl(result->formula.offset_ns - offset) < 0.5L,
		"offset %.25Lg, expected %.25Lg", result->formula.offset_ns, offset);
}

static void check_pair(const struct test_clock *clocks)
{
	struct vm_sync_result results[2];

	solve_pair(clocks, 0, results);
	check_recovered(&results[1], &clocks[1], &clocks[0]);
	ck_assert_uint_eq(results[1].matches, 2 * HOURS3);
	check_mapping(&results[1].formula, &clocks[1], &clocks[0],
		START, START + HOURS3 * SECOND);

	/* The other way round: the pair formula inverted. */
	solve_pair(clocks, 1, results);
	check_recovered(&results[0], &clocks[0], &clocks[1]);
	check_mapping(&results[0].formula, &clocks[0], &clocks[1],
		START, START + HOURS3 * SECOND);
}

START_TEST(fast_guest_clock)
{
	const struct test_clock clocks[] = {
		{ 1000000, 0 },
		{ 1000003, -INT64_C(123456789012) },	/* +3 ppm */
	};

	check_pair(clocks);
}
END_TEST

START_TEST(slow_clock_far_offset)
{
	const struct test_clock clocks[] = {
		{ 1000007, INT64_C(5000000000) },
		{ 999941, INT64_C(79796507913179) },	/* -59 ppm, 22 hours off */
	};

	check_pair(clocks);
}
END_TEST

/* Slower messages between the fastest ones only add points inside the hulls. */
START_TEST(slow_messages_change_nothing)
{
	const struct test_clock clocks[] = {
		{ 1000000, 0 },
		{ 1000011, INT64_C(3600000000000) },
	};
	struct vm_sync *sync = vm_sync_create(2);
	struct vm_sync_result results[2];
	unsigned int seed = 12345;

	exchange(sync, clocks, 0, 1, START, SECOND, 10, LATENCY, 0);
	for (int i = 0; i < 2000; i++) {
		int64_t t = START + 10 * SECOND + i * (SECOND / 2);
		int64_t latency = LATENCY * (2 + rand_r(&seed) % 500);
		struct vm_sync_key key = { 1000000 + (uint64_t) i, 0, 0 };
		unsigned int sender = (unsigned int) rand_r(&seed) % 2;

		vm_sync_add_event(sync, 0, &key, VM_SYNC_SEND, sender,
			clock_read(&clocks[sender], t));
		vm_sync_add_event(sync, 0, &key, VM_SYNC_RECEIVE, 1 - sender,
			clock_read(&clocks[1 - sender], t + latency));
	}
	exchange(sync, clocks, 0, 1, START + 1200 * SECOND, SECOND, 10, LATENCY, 2000000);
	vm_sync_solve(sync, 0, results);
	check_recovered(&results[1], &clocks[1], &clocks[0]);
	ck_assert_uint_eq(results[1].matches, 2000 + 40);
	vm_sync_destroy(sync);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sync-exact");
	TCase *tc = tcase_create("epoch-nanoseconds");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, fast_guest_clock);
	tcase_add_test(tc, slow_clock_far_offset);
	tcase_add_test(tc, slow_messages_change_nothing);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
