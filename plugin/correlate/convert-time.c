/*
 * Fast exact conversion of a time through a sync formula: see convert-time.h.
 */

#include <stdbool.h>

#include "correlate/convert-time.h"

/*
 * vm_sync_formula_apply(formula, t), the same integer, without its 128-bit
 * software floating point when long double already decides the rounding:
 * the library computes t + round((slope - 1) * t + offset) (slope - 1 is
 * exact in both precisions); in long double the correction is off by at
 * most |correction| * 2^-63, so unless its fraction is that close to one
 * half, both round it the same way.
 */
/*
 * Whether long double has its 64-bit mantissa at run time: valgrind runs
 * x87 code in double precision, and then only the library is exact.
 */
static bool long_double_is_precise(void)
{
	static int precise = -1;

	if (precise < 0) {
		volatile long double one = 1;
		volatile long double tiny = 0x1p-63L;

		precise = one + tiny != one;
	}

	return precise;
}

int64_t correlate_convert_time(const struct vm_sync_formula *formula, int64_t t)
{
	long double correction = (formula->slope - 1) * (long double) t + formula->offset_ns;
	long double whole;
	long double fraction;
	long double margin;
	int64_t rounded;
	int64_t result;

	if (!long_double_is_precise() || !(correction > -4e18L && correction < 4e18L)) {
		return vm_sync_formula_apply(formula, t);
	}

	whole = (long double) (int64_t) correction;
	fraction = correction - whole;
	margin = (correction < 0 ? -correction : correction) * 0x1p-60L + 1e-12L;
	if ((fraction < 0 ? -fraction : fraction) - 0.5L < margin &&
			0.5L - (fraction < 0 ? -fraction : fraction) < margin) {
		return vm_sync_formula_apply(formula, t);
	}

	rounded = (int64_t) whole;
	if (fraction > 0.5L) {
		rounded++;
	} else if (fraction < -0.5L) {
		rounded--;
	}

	if (__builtin_add_overflow(t, rounded, &result)) {
		return vm_sync_formula_apply(formula, t);
	}

	return result;
}

