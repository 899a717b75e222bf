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
	/* Adding and taking away 1.5 * 2^63 rounds to an integer (|x| < 2^62). */
	static const long double round_magic = 0x1.8p63L;
	long double correction = (formula->slope - 1) * (long double) t + formula->offset_ns;
	long double nearest;
	long double fraction;
	long double margin;
	int64_t result;

	if (!long_double_is_precise() || !(correction > -4e18L && correction < 4e18L)) {
		return vm_sync_formula_apply(formula, t);
	}

	nearest = (correction + round_magic) - round_magic;
	fraction = correction - nearest;
	margin = (correction < 0 ? -correction : correction) * 0x1p-60L + 1e-12L;
	if (0.5L - (fraction < 0 ? -fraction : fraction) < margin) {
		/* A half, or too close to one to tell: the library decides. */
		return vm_sync_formula_apply(formula, t);
	}

	if (__builtin_add_overflow(t, (int64_t) nearest, &result)) {
		return vm_sync_formula_apply(formula, t);
	}

	return result;
}
