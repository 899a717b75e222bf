/*
 * The convex-hull algorithm against Trace Compass's own test vectors
 * (SyncTest: testFullyIncremental, testOneHull, testDisjoint), step by step.
 * Hosts are t1 (the pair's ref side, lexicographically smaller) and t2.
 */
#include <check.h>
#include <glib.h>
#include <math.h>
#include <stdlib.h>

#include "sync/quality.h"
#include "sync/formula.h"
#include "sync/hull.h"

struct step {
	bool sent_by_t1;
	int64_t send_ts;
	int64_t recv_ts;
	enum vm_sync_quality quality;
	bool check_fit;
	long double a;
	long double b;
};

#define T1_SENDS(s, r) true, (s), (r)
#define T2_SENDS(s, r) false, (s), (r)

/* Bounded on both sides (accurate, or failed after accurate): a_max - a_min
 * > 0; otherwise 0. */
static void check_accuracy(const struct vm_sync_hull *hull, size_t step)
{
	long double accuracy = vm_sync_hull_accuracy(hull);

	if (vm_sync_hull_quality(hull) == VM_SYNC_ACCURATE)
		ck_assert_msg(accuracy > 0.0L, "step %zu: accuracy %Lg", step, accuracy);
	else if (vm_sync_hull_quality(hull) != VM_SYNC_FAIL)
		ck_assert_msg(accuracy == 0.0L, "step %zu: accuracy %Lg", step, accuracy);
}

/* The other -> ref map is t / a - b / a. */
static void check_formula(const struct vm_sync_hull *hull, long double a, long double b)
{
	struct vm_sync_formula formula = vm_sync_hull_formula(hull);

	ck_assert(fabsl(formula.slope - 1.0L / a) < 1e-15L);
	ck_assert(fabsl(formula.offset_ns + b / a) < 1e-15L);
}

static void replay(const struct step *steps, size_t count)
{
	struct vm_sync_hull *hull = vm_sync_hull_create();

	ck_assert_int_eq(vm_sync_hull_quality(hull), VM_SYNC_ABSENT);
	for (size_t i = 0; i < count; i++) {
		const struct step *step = &steps[i];
		long double a, b;

		vm_sync_hull_add_match(hull, step->sent_by_t1, step->send_ts, step->recv_ts);
		ck_assert_msg(vm_sync_hull_quality(hull) == step->quality,
			"step %zu: quality %s, expected %s", i,
			vm_sync_quality_name(vm_sync_hull_quality(hull)),
			vm_sync_quality_name(step->quality));
		ck_assert_uint_eq(vm_sync_hull_matches(hull), i + 1);
		check_accuracy(hull, i);
		if (!step->check_fit)
			continue;
		vm_sync_hull_fit(hull, &a, &b);
		ck_assert_msg(fabsl(a - step->a) < 1e-15L && fabsl(b - step->b) < 1e-15L,
			"step %zu: a %.20Lg b %.20Lg, expected %.20Lg %.20Lg",
			i, a, b, step->a, step->b);
		check_formula(hull, a, b);
	}
	vm_sync_hull_destroy(hull);
}

START_TEST(fully_incremental)
{
	static const struct step steps[] = {
		{ T2_SENDS(1, 1), VM_SYNC_INCOMPLETE, true, 1, 0 },
		{ T1_SENDS(1, 3), VM_SYNC_INCOMPLETE, true, 1, 0 },
		{ T2_SENDS(2, 3), VM_SYNC_APPROXIMATE, true, 1, 0.5L },
		{ T1_SENDS(3, 5), VM_SYNC_ACCURATE, true, 0.75L, 1.25L },
		{ T1_SENDS(4, 8), VM_SYNC_ACCURATE, true, 0.75L, 1.25L },
		{ T2_SENDS(4, 5), VM_SYNC_ACCURATE, true, 1.125L, 0.875L },
		{ T2_SENDS(4, 6), VM_SYNC_ACCURATE, true, 1.125L, 0.875L },
		{ T1_SENDS(6, 7), VM_SYNC_ACCURATE, true, 0.725L, 1.275L },
		{ T1_SENDS(7, 4), VM_SYNC_ACCURATE, true, 0.375L, 1.625L },
		/* The hulls cross: fail, and the last good fit stays. */
		{ T2_SENDS(7, 3), VM_SYNC_FAIL, true, 0.375L, 1.625L },
		/* Even with new points beyond the lines. */
		{ T1_SENDS(9, 100), VM_SYNC_FAIL, true, 0.375L, 1.625L },
		{ T2_SENDS(1, 50), VM_SYNC_FAIL, true, 0.375L, 1.625L },
	};

	replay(steps, G_N_ELEMENTS(steps));
}
END_TEST

START_TEST(one_hull)
{
	static const struct step steps[] = {
		{ T1_SENDS(1, 3), VM_SYNC_INCOMPLETE, false, 0, 0 },
		{ T1_SENDS(2, 5), VM_SYNC_INCOMPLETE, false, 0, 0 },
		{ T1_SENDS(3, 5), VM_SYNC_INCOMPLETE, false, 0, 0 },
		{ T1_SENDS(4, 7), VM_SYNC_INCOMPLETE, true, 1, 0 },
	};

	replay(steps, G_N_ELEMENTS(steps));
}
END_TEST

START_TEST(disjoint)
{
	static const struct step steps[] = {
		{ T1_SENDS(1, 3), VM_SYNC_INCOMPLETE, false, 0, 0 },
		{ T1_SENDS(2, 5), VM_SYNC_INCOMPLETE, false, 0, 0 },
		{ T1_SENDS(3, 5), VM_SYNC_INCOMPLETE, false, 0, 0 },
		{ T1_SENDS(4, 7), VM_SYNC_INCOMPLETE, true, 1, 0 },
		{ T2_SENDS(7, 6), VM_SYNC_APPROXIMATE, false, 0, 0 },
		{ T2_SENDS(8, 6), VM_SYNC_APPROXIMATE, false, 0, 0 },
		{ T2_SENDS(10, 8), VM_SYNC_APPROXIMATE, true, 1, 2.5L },
	};

	replay(steps, G_N_ELEMENTS(steps));
}
END_TEST

/*
 * Four crafted messages whose hull bisector has a negative slope: such a map
 * would reverse time, so the previous fit stays (and the quality still
 * follows Trace Compass).
 */
START_TEST(time_never_runs_backwards)
{
	struct vm_sync_hull *hull = vm_sync_hull_create();
	long double a_before, b_before, a, b;
	struct vm_sync_formula formula;

	vm_sync_hull_add_match(hull, true, 0, 100);	/* point (0, 100) */
	vm_sync_hull_add_match(hull, false, 80, 1);	/* point (1, 80) */
	vm_sync_hull_add_match(hull, true, 10, 20);	/* point (10, 20) */
	vm_sync_hull_fit(hull, &a_before, &b_before);
	ck_assert(a_before > 0);
	vm_sync_hull_add_match(hull, false, 0, 12);	/* point (12, 0) */
	ck_assert_int_eq(vm_sync_hull_quality(hull), VM_SYNC_ACCURATE);
	vm_sync_hull_fit(hull, &a, &b);
	ck_assert(a == a_before && b == b_before);
	formula = vm_sync_hull_formula(hull);
	ck_assert(formula.slope > 0);
	vm_sync_hull_destroy(hull);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sync-hull");
	TCase *tc = tcase_create("trace-compass-vectors");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, fully_incremental);
	tcase_add_test(tc, one_hull);
	tcase_add_test(tc, disjoint);
	tcase_add_test(tc, time_never_runs_backwards);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
