/*
 * Overflow-checked application, span checks, and the text of coefficients
 * that parses back to the same formula (filter.vm.correlate's suggested
 * `transforms`).
 */
#include <check.h>
#include <glib.h>
#include <string.h>

#include "sync/formula.h"
#include "sync/prepared.h"
#include "sync/formula-text.h"

#define EPOCH_NS INT64_C(1600000000000000000)

/* Both the formula and its prepared form. */
static bool applies(const struct vm_sync_formula *formula, int64_t t, int64_t *result)
{
	struct vm_sync_prepared prepared;
	int64_t prepared_result;
	bool fits = vm_sync_formula_apply_checked(formula, t, result);

	vm_sync_formula_prepare(formula, &prepared);
	ck_assert_int_eq(vm_sync_prepared_apply_checked(&prepared, t, &prepared_result), fits);
	ck_assert_int_eq(prepared_result, *result);
	/* The unchecked maps give the same (saturated) value. */
	ck_assert_int_eq(vm_sync_formula_apply(formula, t), *result);
	ck_assert_int_eq(vm_sync_prepared_apply(&prepared, t), *result);
	return fits;
}

START_TEST(checked_fits_in_range)
{
	struct vm_sync_formula drift = { 1.0L + 4e-5L, -64000000000000.0L };
	struct vm_sync_formula identity = vm_sync_formula_identity();
	int64_t result;

	ck_assert(applies(&drift, EPOCH_NS, &result));
	ck_assert_int_eq(result, EPOCH_NS);	/* 1.6e18 * 4e-5 = 6.4e13 */
	ck_assert(applies(&identity, INT64_MAX, &result));
	ck_assert_int_eq(result, INT64_MAX);
	ck_assert(applies(&identity, INT64_MIN, &result));
	ck_assert_int_eq(result, INT64_MIN);
}
END_TEST

START_TEST(checked_reports_overflow)
{
	struct vm_sync_formula tenfold = { 10.0L, 0.0L };
	struct vm_sync_formula up = { 1.0L, 1000.0L };
	struct vm_sync_formula down = { 1.0L, -1000.0L };
	struct vm_sync_formula negative = { -1.0L, 0.0L };
	int64_t result;

	ck_assert(!applies(&tenfold, EPOCH_NS, &result));
	ck_assert_int_eq(result, INT64_MAX);
	ck_assert(!applies(&tenfold, -EPOCH_NS, &result));
	ck_assert_int_eq(result, INT64_MIN);
	ck_assert(!applies(&up, INT64_MAX - 999, &result));
	ck_assert_int_eq(result, INT64_MAX);
	ck_assert(applies(&up, INT64_MAX - 1000, &result));
	ck_assert_int_eq(result, INT64_MAX);
	ck_assert(!applies(&down, INT64_MIN + 999, &result));
	ck_assert_int_eq(result, INT64_MIN);
	ck_assert(applies(&down, INT64_MIN + 1000, &result));
	ck_assert_int_eq(result, INT64_MIN);
	/* -INT64_MIN does not fit. */
	ck_assert(!applies(&negative, INT64_MIN, &result));
	ck_assert(applies(&negative, INT64_MAX, &result));
	ck_assert_int_eq(result, -INT64_MAX);
}
END_TEST

START_TEST(span_ends_decide)
{
	struct vm_sync_formula tenfold = { 10.0L, 0.0L };
	struct vm_sync_formula shift = { 1.0L, -1000.0L };
	struct vm_sync_formula negative = { -1.0L, 2000.0L };
	int64_t first, last;

	ck_assert(!vm_sync_formula_maps_span(&tenfold, EPOCH_NS, EPOCH_NS + 10, 0,
		INT64_MAX, &first, &last));
	ck_assert(vm_sync_formula_maps_span(&tenfold, 0, EPOCH_NS / 10, 0, INT64_MAX,
		&first, &last));
	ck_assert_int_eq(first, 0);
	ck_assert_int_eq(last, EPOCH_NS);
	/* Below the low bound at the first end only. */
	ck_assert(!vm_sync_formula_maps_span(&shift, 999, 5000, 0, INT64_MAX, &first, &last));
	ck_assert_int_eq(first, -1);
	ck_assert(vm_sync_formula_maps_span(&shift, 1000, 5000, 0, INT64_MAX, &first, &last));
	/* A decreasing map: the ends swap, both are checked. */
	ck_assert(vm_sync_formula_maps_span(&negative, 0, 2000, 0, INT64_MAX, &first, &last));
	ck_assert(!vm_sync_formula_maps_span(&negative, 0, 2001, 0, INT64_MAX, &first, &last));
}
END_TEST

/* Text, parsed back: the same bits, so the same prepared formula and times. */
static void check_round_trip(const struct vm_sync_formula *formula)
{
	char *slope_text = vm_sync_real_text(formula->slope);
	char *offset_text = vm_sync_real_text(formula->offset_ns);
	struct vm_sync_formula parsed;
	struct vm_sync_prepared a, b;
	int64_t t;

	ck_assert(vm_sync_real_parse(slope_text, &parsed.slope));
	ck_assert(vm_sync_real_parse(offset_text, &parsed.offset_ns));
	ck_assert_msg(parsed.slope == formula->slope, "slope %s", slope_text);
	ck_assert_msg(parsed.offset_ns == formula->offset_ns, "offset %s", offset_text);
	vm_sync_formula_prepare(formula, &a);
	vm_sync_formula_prepare(&parsed, &b);
	ck_assert_int_eq(a.fixed, b.fixed);
	ck_assert(a.slope_mantissa == b.slope_mantissa && a.slope_shift == b.slope_shift);
	ck_assert(a.offset_fixed == b.offset_fixed);
	for (t = EPOCH_NS; t < EPOCH_NS + 1000000000; t += 9999991)
		ck_assert_int_eq(vm_sync_prepared_apply(&a, t), vm_sync_prepared_apply(&b, t));
	g_free(offset_text);
	g_free(slope_text);
}

START_TEST(text_round_trips)
{
	GRand *rand = g_rand_new_with_seed(9);
	struct vm_sync_formula formulas[] = {
		vm_sync_formula_identity(),
		/* tc-synctraces' VM3 -> VM1, as computed. */
		{ 1.00005139824456823505L, -69963934288019.509716L },
		{ 0.9999413783703139011056845831168394L, 79796507913179.33347660124688298171L },
		{ 1.0L + 0x1p-63L, -0x1p-32L },
	};
	unsigned int i;

	for (i = 0; i < G_N_ELEMENTS(formulas); i++)
		check_round_trip(&formulas[i]);
	for (i = 0; i < 2000; i++) {
		/* Every mantissa bit set at random, as a fit gives them. */
		struct vm_sync_formula formula = {
			.slope = 1 + ((long double) g_rand_int(rand) * 0x1p-32L +
				(long double) g_rand_int(rand) * 0x1p-64L - 0.5L) * 2e-4L,
			.offset_ns = ((long double) g_rand_int(rand) * 0x1p-32L - 0.5L) * 2e14L +
				(long double) g_rand_int(rand) * 0x1p-32L,
		};

		check_round_trip(&formula);
	}
	g_rand_free(rand);
}
END_TEST

/*
 * The formula line puts a negative offset's sign in the operator ("- 123",
 * not "+ -123"), and its digits still give the very offset back.
 */
START_TEST(formula_line_signs)
{
	char *line = vm_sync_formula_line(1.5L, -69963934288019.509716L);
	char *plus = vm_sync_formula_line(1.0L, 25.0L);
	char *zero = vm_sync_formula_line(1.0L, 0.0L);
	const char *digits = strstr(line, " - ");
	long double offset;

	ck_assert_msg(g_str_has_prefix(line, "t_ref = 1.5 * t - 69963934288019.5"), "%s", line);
	ck_assert(g_str_has_suffix(line, " ns"));
	ck_assert_ptr_null(strstr(line, "+"));
	ck_assert_ptr_nonnull(digits);
	{
		char *number = g_strndup(digits + 3, strlen(digits + 3) - 3);

		ck_assert(vm_sync_real_parse(number, &offset));
		ck_assert(offset == 69963934288019.509716L);
		g_free(number);
	}
	ck_assert_str_eq(plus, "t_ref = 1 * t + 25 ns");
	ck_assert_str_eq(zero, "t_ref = 1 * t + 0 ns");
	g_free(zero);
	g_free(plus);
	g_free(line);
}
END_TEST

START_TEST(parse_refuses_non_numbers)
{
	long double value = 42;

	ck_assert(!vm_sync_real_parse("", &value));
	ck_assert(!vm_sync_real_parse(NULL, &value));
	ck_assert(!vm_sync_real_parse("1.5x", &value));
	ck_assert(!vm_sync_real_parse("abc", &value));
	ck_assert(!vm_sync_real_parse("nan", &value));
	ck_assert(!vm_sync_real_parse("1e99999", &value));
	ck_assert(value == 42);
	ck_assert(vm_sync_real_parse("-1500", &value));
	ck_assert(value == -1500);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sync-checked");
	TCase *tc = tcase_create("checked");
	SRunner *runner;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, checked_fits_in_range);
	tcase_add_test(tc, checked_reports_overflow);
	tcase_add_test(tc, span_ends_decide);
	tcase_add_test(tc, text_round_trips);
	tcase_add_test(tc, formula_line_signs);
	tcase_add_test(tc, parse_refuses_non_numbers);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? 1 : 0;
}
