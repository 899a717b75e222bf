/* Linear clock maps: application, rounding, saturation, composition. */
#include <check.h>
#include <glib.h>
#include <math.h>
#include <stdlib.h>

#include "sync/formula.h"
#include "sync/prepared.h"

#define EPOCH_NS INT64_C(1700000000123456789)

START_TEST(identity_keeps_every_time)
{
	struct vm_sync_formula id = vm_sync_formula_identity();
	const int64_t times[] = { 0, 1, -1, EPOCH_NS, INT64_MAX, INT64_MIN, -EPOCH_NS };

	ck_assert(id.slope == 1.0L && id.offset_ns == 0.0L);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		ck_assert_int_eq(vm_sync_formula_apply(&id, times[i]), times[i]);
}
END_TEST

START_TEST(rounds_to_nearest)
{
	struct vm_sync_formula half = { 0.5L, 0.0L };
	struct vm_sync_formula shift = { 1.0L, 0.25L };

	/* Halves go upward. */
	ck_assert_int_eq(vm_sync_formula_apply(&half, 3), 2);	/* 1.5 */
	ck_assert_int_eq(vm_sync_formula_apply(&half, -3), -1);	/* -1.5 */
	ck_assert_int_eq(vm_sync_formula_apply(&half, 5), 3);	/* 2.5 */
	ck_assert_int_eq(vm_sync_formula_apply(&half, -5), -2);	/* -2.5 */
	ck_assert_int_eq(vm_sync_formula_apply(&half, 7), 4);	/* 3.5 */
	ck_assert_int_eq(vm_sync_formula_apply(&half, -7), -3);	/* -3.5 */
	ck_assert_int_eq(vm_sync_formula_apply(&shift, 10), 10);
	ck_assert_int_eq(vm_sync_formula_apply(&shift, -10), -10);
}
END_TEST

START_TEST(exact_on_epoch_nanoseconds)
{
	/* A 1.7e18 value is not a double; every nanosecond must survive. */
	struct vm_sync_formula shift = { 1.0L, 1.0L };
	struct vm_sync_formula drift = { 1.0L + 1e-6L, -1700000000000.0L };

	for (int64_t t = EPOCH_NS; t < EPOCH_NS + 64; t++) {
		ck_assert_int_eq(vm_sync_formula_apply(&shift, t), t + 1);
		/* t * 1e-6 - 1.7e12 = 123.456789 + (t - EPOCH_NS) * 1e-6 */
		ck_assert_int_eq(vm_sync_formula_apply(&drift, t), t + 123);
	}
}
END_TEST

START_TEST(saturates_instead_of_overflowing)
{
	struct vm_sync_formula doubling = { 2.0L, 0.0L };
	struct vm_sync_formula push_up = { 1.0L, 1000.0L };
	struct vm_sync_formula push_down = { 1.0L, -1000.0L };
	struct vm_sync_formula far_up = { 1.0L, 1e30L };
	struct vm_sync_formula mirror = { -1.0L, 0.0L };

	ck_assert_int_eq(vm_sync_formula_apply(&doubling, INT64_MAX / 2 + 1), INT64_MAX);
	ck_assert_int_eq(vm_sync_formula_apply(&doubling, INT64_MIN / 2 - 1), INT64_MIN);
	ck_assert_int_eq(vm_sync_formula_apply(&push_up, INT64_MAX - 10), INT64_MAX);
	ck_assert_int_eq(vm_sync_formula_apply(&push_down, INT64_MIN + 10), INT64_MIN);
	ck_assert_int_eq(vm_sync_formula_apply(&push_up, INT64_MAX - 1000), INT64_MAX);
	ck_assert_int_eq(vm_sync_formula_apply(&push_down, INT64_MIN + 1000), INT64_MIN);
	ck_assert_int_eq(vm_sync_formula_apply(&push_up, INT64_MAX - 1001), INT64_MAX - 1);
	ck_assert_int_eq(vm_sync_formula_apply(&far_up, INT64_MIN), INT64_MAX);
	ck_assert_int_eq(vm_sync_formula_apply(&far_up, 0), INT64_MAX);
	ck_assert_int_eq(vm_sync_formula_apply(&mirror, INT64_MIN), INT64_MAX);
	ck_assert_int_eq(vm_sync_formula_apply(&mirror, INT64_MAX), -INT64_MAX);
}
END_TEST

START_TEST(compose_applies_second_then_first)
{
	struct vm_sync_formula f = { 2.0L, 3.0L };
	struct vm_sync_formula g = { 5.0L, 7.0L };
	struct vm_sync_formula fg = vm_sync_formula_compose(&f, &g);

	/* f(g(t)) = 2 (5 t + 7) + 3 = 10 t + 17 */
	ck_assert(fg.slope == 10.0L && fg.offset_ns == 17.0L);
	for (int64_t t = -5; t <= 5; t++)
		ck_assert_int_eq(vm_sync_formula_apply(&fg, t),
			vm_sync_formula_apply(&f, vm_sync_formula_apply(&g, t)));
}
END_TEST

START_TEST(invert_round_trips)
{
	const struct vm_sync_formula formulas[] = {
		{ 1.0L + 3e-6L, -123456789012.0L },
		{ 0.9999413783703139011L, 79796507913179.33347L },
		{ 1.0L, 1700000000000000000.0L },
		{ 4.0L, -2.0L },
	};

	for (size_t i = 0; i < sizeof(formulas) / sizeof(formulas[0]); i++) {
		struct vm_sync_formula inverse = vm_sync_formula_invert(&formulas[i]);
		struct vm_sync_formula both = vm_sync_formula_compose(&inverse, &formulas[i]);

		ck_assert(fabsl(both.slope - 1.0L) < 1e-18L);
		for (int64_t t = EPOCH_NS - 1000000; t < EPOCH_NS + 1000000; t += 9973) {
			int64_t there = vm_sync_formula_apply(&formulas[i], t - (int64_t) i * EPOCH_NS / 4);
			int64_t back = vm_sync_formula_apply(&inverse, there);

			/* Rounding `there` loses up to half a ns, scaled by 1/slope. */
			ck_assert_msg(llabs(back - (t - (int64_t) i * EPOCH_NS / 4)) <= 1,
				"formula %zu: %lld -> %lld -> %lld", i,
				(long long) t, (long long) there, (long long) back);
			ck_assert_msg(llabs(vm_sync_formula_apply(&both, t) - t) <= 1,
				"formula %zu composed with its inverse moves %lld", i, (long long) t);
		}
	}
}
END_TEST

/*
 * vm_sync_formula_apply() takes a hardware long double path when it can
 * decide the rounding there: it must give exactly what binary128 gives,
 * including formulas built to land right next to a half nanosecond.
 */
#if defined(__SIZEOF_FLOAT128__)
static int64_t reference_apply(const struct vm_sync_formula *f, int64_t t)
{
	__float128 v = ((__float128) f->slope - 1) * (__float128) t + (__float128) f->offset_ns;
	__float128 fl = (__float128) (int64_t) v;

	if (fl > v)
		fl -= 1;
	if (v - fl >= (__float128) 0.5)
		fl += 1;
	return t + (int64_t) fl;
}

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A clock-like formula (+-1000 ppm, offsets of +-3.3 s) and a 2017 time. */
static int64_t random_clock_case(uint64_t *state, struct vm_sync_formula *f)
{
	int64_t t = 1500000000000000000LL + (int64_t) (next_random(state) % 400000000000000ULL);
	int64_t ppm = (int64_t) (next_random(state) % 2001) - 1000;

	f->slope = 1.0L + (long double) ppm * 1e-6L / 7.0L;
	f->offset_ns = (long double) ((int64_t) (next_random(state) % 20000000001ULL)
		- 10000000000LL) / 3.0L;
	return t;
}

START_TEST(fast_path_matches_binary128)
{
	uint64_t state = 42;
	unsigned int i;
	int64_t expected, got, prepared_got;

	for (i = 0; i < 200000; i++) {
		struct vm_sync_formula f;
		struct vm_sync_prepared prepared;
		int64_t t = random_clock_case(&state, &f);

		if (i % 2 == 0) {
			/*
			 * Aim the exact correction at a half nanosecond: the offset
			 * cancels the product, whose long double rounding (about
			 * 2^-21 ns here) can tip the sum either way; only a big
			 * enough margin sends these to the binary128 evaluation.
			 */
			__float128 product = ((__float128) f.slope - 1) * (__float128) t;
			int k = (int) (next_random(&state) % 11) - 5;

			f.offset_ns = (long double) ((__float128) k + (__float128) 0.5 - product);
		}
		/* Check is called on a mismatch only (see check_same()). */
		vm_sync_formula_prepare(&f, &prepared);
		expected = reference_apply(&f, t);
		got = vm_sync_formula_apply(&f, t);
		prepared_got = vm_sync_prepared_apply(&prepared, t);
		if (got != expected || prepared_got != expected) {
			ck_abort_msg("formula %u (slope %.21Lg, offset %.21Lg) at %" G_GINT64_FORMAT
				": %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " prepared, "
				"binary128 gives %" G_GINT64_FORMAT, i, f.slope, f.offset_ns, t,
				got, prepared_got, expected);
		}
	}
}
END_TEST

/*
 * vm_sync_prepared_side() against binary128: when it answers, the side is
 * right; it answers whenever the map is a thousandth of a ns or more away
 * from the reference time (it may only hold back within 2^-30 ns).
 */
START_TEST(prepared_side_matches_binary128)
{
	uint64_t state = 7;
	unsigned int i, undecided = 0;

	for (i = 0; i < 100000; i++) {
		struct vm_sync_formula f;
		struct vm_sync_prepared prepared;
		int64_t t = random_clock_case(&state, &f);
		__float128 mapped, ahead;
		int64_t ref;
		int sign;

		if (i % 4 == 0) {
			/* Mapped right onto an integer: ahead is (almost) 0. */
			__float128 product = ((__float128) f.slope - 1) * (__float128) t;

			f.offset_ns = (long double) ((__float128) 1000 - product);
		}
		vm_sync_formula_prepare(&f, &prepared);
		mapped = (__float128) f.slope * (__float128) t + (__float128) f.offset_ns;
		ref = (int64_t) mapped + (int64_t) (next_random(&state) % 7) - 3;
		ahead = mapped - (__float128) ref;
		if (!vm_sync_prepared_side(&prepared, t, ref, &sign)) {
			if (ahead > (__float128) 0.001 || ahead < -(__float128) 0.001) {
				ck_abort_msg("side undecided %u: slope %.21Lg offset %.21Lg t %"
					G_GINT64_FORMAT " ref %" G_GINT64_FORMAT, i, f.slope,
					f.offset_ns, t, ref);
			}
			undecided++;
			continue;
		}
		if ((sign > 0) != (ahead > 0) || ahead == 0) {
			ck_abort_msg("side %d is wrong %u: slope %.21Lg offset %.21Lg t %"
				G_GINT64_FORMAT " ref %" G_GINT64_FORMAT, sign, i, f.slope,
				f.offset_ns, t, ref);
		}
	}
	/* The near-zero quarter is where it may hold back; it must not always. */
	ck_assert_uint_lt(undecided, i / 4);
}
END_TEST
#endif

/*
 * The fast path against the exact evaluation, over clock-like formulas and
 * edges. Millions of calls: check is called only on a mismatch, since each
 * passing ck_assert writes its location to check's log (a write system
 * call), which would cost more than the arithmetic under test.
 */
static void check_same(const struct vm_sync_formula *formula, int64_t t)
{
	int64_t expected = vm_sync_formula_apply_exact(formula, t);
	int64_t got = vm_sync_formula_apply(formula, t);
	struct vm_sync_prepared prepared;
	int64_t prepared_got;

	/* The prepared form too: it is the one filter.vm.correlate applies. */
	vm_sync_formula_prepare(formula, &prepared);
	prepared_got = vm_sync_prepared_apply(&prepared, t);
	if (prepared_got != expected) {
		ck_abort_msg("prepared: slope %.21Lg offset %.21Lg t %" G_GINT64_FORMAT
			": %" G_GINT64_FORMAT " instead of %" G_GINT64_FORMAT,
			formula->slope, formula->offset_ns, t, prepared_got, expected);
	}
	if (got != expected) {
		ck_abort_msg("slope %.21Lg offset %.21Lg t %" G_GINT64_FORMAT ": %"
			G_GINT64_FORMAT " instead of %" G_GINT64_FORMAT, formula->slope,
			formula->offset_ns, t, got, expected);
	}
}

START_TEST(fast_equals_exact_on_random_clock_formulas)
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

START_TEST(fast_equals_exact_on_edge_formulas)
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
	Suite *s = suite_create("sync-formula");
	TCase *tc = tcase_create("formula");
	SRunner *sr;
	int failed;

	/* Millions of exact (software) evaluations: slow under sanitizers. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, identity_keeps_every_time);
	tcase_add_test(tc, rounds_to_nearest);
	tcase_add_test(tc, exact_on_epoch_nanoseconds);
	tcase_add_test(tc, saturates_instead_of_overflowing);
	tcase_add_test(tc, compose_applies_second_then_first);
	tcase_add_test(tc, invert_round_trips);
	tcase_add_test(tc, fast_equals_exact_on_random_clock_formulas);
	tcase_add_test(tc, fast_equals_exact_on_edge_formulas);
#if defined(__SIZEOF_FLOAT128__)
	tcase_add_test(tc, fast_path_matches_binary128);
	tcase_add_test(tc, prepared_side_matches_binary128);
#endif
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
