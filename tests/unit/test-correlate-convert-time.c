/*
 * filter.vm.correlate orders messages by correlate_convert_time() while the
 * mirror stamps them with vm_sync_formula_apply(): both must give the same
 * nanosecond, or the output would go back in time by one.
 */

#include <check.h>
#include <glib.h>
#include <stdint.h>

#include "correlate/convert-time.h"

static void check_same(const struct vm_sync_formula *formula, int64_t t)
{
	int64_t expected = vm_sync_formula_apply(formula, t);
	int64_t got = correlate_convert_time(formula, t);

	ck_assert_msg(got == expected,
		"slope %.21Lg offset %.21Lg t %" G_GINT64_FORMAT ": %" G_GINT64_FORMAT
		" instead of %" G_GINT64_FORMAT, formula->slope, formula->offset_ns,
		t, got, expected);
}

START_TEST(test_random_clock_formulas)
{
	GRand *rand = g_rand_new_with_seed(42);
	int i;

	for (i = 0; i < 2000000; i++) {
		struct vm_sync_formula formula = {
			.slope = 1 + (g_rand_double(rand) - 0.5) * 2e-4,
			.offset_ns = (g_rand_double(rand) - 0.5) * 2e14 +
				g_rand_double(rand),
		};
		int64_t t = (int64_t) 1300000000000000000LL +
			(int64_t) (g_rand_double(rand) * 5e17);

		check_same(&formula, t);
	}

	g_rand_free(rand);
}
END_TEST

START_TEST(test_edge_formulas)
{
	static const int64_t times[] = {
		0, 1, -1, 1000, INT64_MAX, INT64_MIN, INT64_MAX - 3, INT64_MIN + 3,
		1600000000000000000LL, -1600000000000000000LL,
	};
	struct vm_sync_formula formulas[] = {
		vm_sync_formula_identity(),
		{ .slope = 1, .offset_ns = 0.5L },
		{ .slope = 1, .offset_ns = -0.5L },
		{ .slope = 1, .offset_ns = 2.5L },
		{ .slope = 0.9999413783703139011L, .offset_ns = 79796507913179.33347L },
		{ .slope = 2, .offset_ns = 0 },
		{ .slope = 1e-3L, .offset_ns = 1e18L },
		{ .slope = 1, .offset_ns = 9e18L },
		{ .slope = 1, .offset_ns = -9e18L },
	};
	unsigned int f;
	unsigned int t;

	for (f = 0; f < G_N_ELEMENTS(formulas); f++) {
		for (t = 0; t < G_N_ELEMENTS(times); t++) {
			check_same(&formulas[f], times[t]);
		}
	}
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("correlate-convert-time");
	TCase *tcase = tcase_create("exact");
	SRunner *runner;
	int failed;

	tcase_set_timeout(tcase, 60);
	tcase_add_test(tcase, test_random_clock_formulas);
	tcase_add_test(tcase, test_edge_formulas);
	suite_add_tcase(suite, tcase);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? 1 : 0;
}
