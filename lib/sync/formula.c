/*
 * Linear maps between clocks: t_ref = slope * t + offset_ns.
 *
 * The coefficients are long double (64-bit mantissa), the evaluation is done
 * in vm_sync_wide: slope * t is then exact enough that the only error left is
 * the representation of the coefficients (about 0.1 ns at 1.7e18 ns), well
 * under the rounding to the nanosecond.
 */
#include <stdbool.h>

#include "sync/formula.h"
#include "sync/prepared.h"
#include "sync/wide.h"

struct vm_sync_formula vm_sync_formula_identity(void)
{
	struct vm_sync_formula identity = { 1.0L, 0.0L };

	return identity;
}

/* 2^63, exact in both candidate types. */
#define TWO_POW_63 ((vm_sync_wide) 9223372036854775808.0L)

/*
 * v rounded to the nearest integer, halves upward (floor(v + 1/2), so that
 * t + round(v) == round(t + v) for any integer t). False when that integer
 * is no int64_t: then *out is saturated (0 for a NaN).
 */
bool vm_sync_slope_plausible(long double slope)
{
	return slope >= 1.0L - VM_SYNC_PLAUSIBLE_RATE && slope <= 1.0L + VM_SYNC_PLAUSIBLE_RATE;
}

static bool round_checked(vm_sync_wide v, int64_t *out)
{
	int64_t whole;

	if (v != v) {
		*out = 0;	/* NaN: from a degenerate formula, nothing sensible */
		return false;
	}
	if (v >= TWO_POW_63 - (vm_sync_wide) 0.5) {
		*out = INT64_MAX;
		return false;
	}
	if (v < -TWO_POW_63 - (vm_sync_wide) 0.5) {
		*out = INT64_MIN;
		return false;
	}
	if (v < -TWO_POW_63) {
		*out = INT64_MIN;	/* rounds up to -2^63 itself */
		return true;
	}
	whole = (int64_t) v;	/* truncates toward zero */
	if ((vm_sync_wide) whole > v) {
		whole--;	/* now floor(v) */
	}
	/* v - whole is exact: both are below 2^63 in magnitude. */
	if (v - (vm_sync_wide) whole >= (vm_sync_wide) 0.5) {
		whole++;
	}
	*out = whole;
	return true;
}

/* t + delta; false (and *out saturated) when that is no int64_t. */
static bool add_checked(int64_t t, int64_t delta, int64_t *out)
{
	if (!__builtin_add_overflow(t, delta, out)) {
		return true;
	}
	*out = delta > 0 ? INT64_MAX : INT64_MIN;
	return false;
}

/* The wide (exact enough) evaluation, the reference for every fast path. */
static bool apply_exact_checked(const struct vm_sync_formula *formula, int64_t t,
		int64_t *result)
{
	/*
	 * t + ((slope - 1) * t + offset): t stays an exact integer and only the
	 * correction is rounded. slope - 1 is exact for slopes in [0.5, 2]
	 * (Sterbenz), and for clocks the correction is small, so it keeps many
	 * fractional bits even in a 64-bit mantissa.
	 */
	vm_sync_wide slope = (vm_sync_wide) formula->slope;
	vm_sync_wide offset = (vm_sync_wide) formula->offset_ns;
	vm_sync_wide correction = (slope - 1) * (vm_sync_wide) t + offset;
	int64_t rounded;

	if (correction > -TWO_POW_63 && correction < TWO_POW_63 - (vm_sync_wide) 0.5) {
		round_checked(correction, &rounded);
		return add_checked(t, rounded, result);
	}
	/* A huge correction: the direct map, still exact to 2^-50 of its terms. */
	return round_checked(slope * (vm_sync_wide) t + offset, result);
}

int64_t vm_sync_formula_apply_exact(const struct vm_sync_formula *formula, int64_t t)
{
	int64_t result;

	apply_exact_checked(formula, t, &result);
	return result;
}

/*
 * Whether long double has its 64-bit mantissa at run time: valgrind runs x87
 * code in double precision, and then only the exact evaluation is.
 */
static bool long_double_is_extended(void)
{
	static int extended = -1;

	if (extended < 0) {
		volatile long double one = 1;
		volatile long double tiny = 0x1p-63L;

		extended = one + tiny != one;
	}
	return extended;
}

static long double abs_ld(long double v)
{
	return v < 0 ? -v : v;
}

/*
 * The same result as vm_sync_formula_apply_exact() in long double arithmetic, which is
 * hardware on x86 (the wide type is emulated in software and costs about
 * 100 ns a call, once per event in correlate). The long double correction
 * is off by at most a few units of 2^-63 of its terms; unless its fraction
 * is that close to one half, both evaluations round it the same way.
 * Returns false when it cannot decide: the caller then uses the exact evaluation.
 */
static bool apply_long_double(const struct vm_sync_formula *formula, int64_t t,
		int64_t *result)
{
	long double product, correction, whole, fraction, margin;
	int64_t rounded;

	if (!(formula->slope >= 0.5L && formula->slope <= 2.0L)) {
		return false;	/* slope - 1 would not be exact */
	}
	product = (formula->slope - 1) * (long double) t;
	correction = product + formula->offset_ns;
	if (!(correction > -0x1p62L && correction < 0x1p62L)) {
		return false;
	}
	/* One conversion to an integer: each changes the x87 rounding mode twice. */
	rounded = (int64_t) correction;	/* toward zero */
	whole = (long double) rounded;
	fraction = abs_ld(correction - whole);
	margin = (abs_ld(product) + abs_ld(formula->offset_ns)) * 0x1p-60L + 0x1p-40L;
	if (abs_ld(fraction - 0.5L) <= margin) {
		return false;
	}
	if (fraction > 0.5L) {
		rounded += correction < 0 ? -1 : 1;
	}
	return !__builtin_add_overflow(t, rounded, result);
}

bool vm_sync_formula_apply_checked(const struct vm_sync_formula *formula, int64_t t,
		int64_t *result)
{
	if (formula->slope == 1.0L && formula->offset_ns == 0.0L) {
		*result = t;
		return true;
	}
	/* Its correction is below 2^62 and its sum did not overflow: it fits. */
	if (long_double_is_extended() && apply_long_double(formula, t, result)) {
		return true;
	}
	return apply_exact_checked(formula, t, result);
}

int64_t vm_sync_formula_apply(const struct vm_sync_formula *formula, int64_t t)
{
	int64_t result;

	vm_sync_formula_apply_checked(formula, t, &result);
	return result;
}

bool vm_sync_formula_maps_span(const struct vm_sync_formula *formula,
		int64_t first, int64_t last, int64_t low, int64_t high,
		int64_t *mapped_first, int64_t *mapped_last)
{
	bool first_fits = vm_sync_formula_apply_checked(formula, first, mapped_first);
	bool last_fits = vm_sync_formula_apply_checked(formula, last, mapped_last);

	/* A linear map takes the ends of a span to the ends of its image. */
	return first_fits && last_fits &&
		*mapped_first >= low && *mapped_first <= high &&
		*mapped_last >= low && *mapped_last <= high;
}

struct vm_sync_formula vm_sync_formula_compose(const struct vm_sync_formula *f,
		const struct vm_sync_formula *g)
{
	struct vm_sync_formula composed;

	/* f(g(t)) = fs * (gs * t + go) + fo */
	composed.slope = (long double) ((vm_sync_wide) f->slope * (vm_sync_wide) g->slope);
	composed.offset_ns = (long double) ((vm_sync_wide) f->slope * (vm_sync_wide) g->offset_ns +
		(vm_sync_wide) f->offset_ns);
	return composed;
}

struct vm_sync_formula vm_sync_formula_invert(const struct vm_sync_formula *f)
{
	struct vm_sync_formula inverse;

	/* t = (t_ref - o) / s */
	inverse.slope = (long double) (1 / (vm_sync_wide) f->slope);
	inverse.offset_ns = (long double) (-(vm_sync_wide) f->offset_ns / (vm_sync_wide) f->slope);
	return inverse;
}
