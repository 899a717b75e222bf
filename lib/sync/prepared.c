/*
 * A formula prepared for many applications (see sync.h): the correction
 * (slope - 1) * t + offset is evaluated in 128-bit fixed point, with 32
 * fractional bits, by one 64x64 -> 128-bit integer multiplication. That is
 * several times cheaper than the long double path of vm_sync_formula_apply(),
 * whose conversion to an integer switches the x87 rounding mode twice.
 *
 * Accuracy: slope - 1 and the offset are exact in the fixed-point form but
 * for truncations below 2^-32; the product's own truncation adds another
 * unit, so the fixed-point correction is within 2^-31 of the true value.
 * The binary128 evaluation (the reference) is within 2^-49 of it while both
 * terms stay below 2^62. Unless the correction lies within 2^-30 of a half
 * nanosecond, both round it the same way; otherwise, as when a term is out
 * of range, the exact evaluation decides.
 */
#include <float.h>
#include <stdbool.h>
#include <string.h>

#include "sync/formula.h"
#include "sync/prepared.h"
#include "sync/wide.h"

/* One nanosecond in fixed-point units. */
#define FIXED_ONE ((vm_sync_i128) 1 << 32)

/* The terms' bound (2^62 ns) in fixed-point units. */
#define FIXED_LIMIT ((vm_sync_i128) 1 << 94)

/* Units around a half nanosecond where the fixed point cannot decide. */
#define FIXED_MARGIN 4

/*
 * |slope - 1| as mantissa * 2^-shift, mantissa a 64-bit integer, computed
 * in binary128 (exact, and the same conversions as the exact evaluation).
 * False when slope - 1 is not exact in 64 bits or the shift is out of reach.
 */
static bool prepare_slope(struct vm_sync_prepared *prepared, vm_sync_wide slope)
{
	vm_sync_wide delta = slope - 1;
	vm_sync_wide scaled;
	int shift = 0;

	prepared->slope_negative = delta < 0;
	scaled = delta < 0 ? -delta : delta;
	if (scaled == 0) {
		prepared->slope_mantissa = 0;
		prepared->slope_shift = 0;
		return true;
	}

	/*
	 * Up to the top of 64 bits (at most 200 doublings): each power of
	 * two is exact. Big steps first: one doubling at a time cost dozens
	 * of software binary128 operations, and read once prepares a formula
	 * at every segment of a map.
	 */
	for (int step = 64; step >= 1; step /= 2) {
		vm_sync_wide factor = (vm_sync_wide) ((uint64_t) 1 << (step - 1)) * 2;

		while (shift + step <= 200 &&
				scaled * factor < (vm_sync_wide) 18446744073709551616.0) {
			scaled *= factor;
			shift += step;
		}
	}

	if (scaled >= (vm_sync_wide) 18446744073709551616.0 ||
			(vm_sync_wide) (uint64_t) scaled != scaled) {
		return false;
	}

	/* mantissa * 2^-shift ns is mantissa * 2^(32 - shift) fixed-point units. */
	if (shift < 32 || shift - 32 > 127) {
		return false;
	}

	prepared->slope_mantissa = (uint64_t) scaled;
	prepared->slope_shift = shift - 32;
	return true;
}

/*
 * The same as prepare_slope(), read off the bits of an x87 extended slope
 * in [0.5, 2] (true), or false, with nothing set, for any other layout or
 * range. prepare_slope() costs two dozen software binary128 operations, and
 * read once prepares a formula at every change of a map's fit (a tenth of
 * the vmsync matches) and of the formula a message meets.
 *
 * slope = m * 2^k, m the 64-bit mantissa (integer bit included), k = -64
 * in [0.5, 1), -63 in [1, 2), -62 for 2 itself; so |slope - 1| * 2^64 is the
 * integer a = |m * 2^(k + 64) - 2^64| <= 2^64, exact. The loop's shift is
 * the largest one (at most 200) that keeps |slope - 1| * 2^shift below
 * 2^64: 128 - bits(a), which puts a's top bit at bit 63. No bit is lost on
 * the way, so the mantissa is always an integer, as the loop checks.
 */
static bool prepare_slope_bits(struct vm_sync_prepared *prepared, long double slope)
{
#if LDBL_MANT_DIG == 64
	uint64_t m;
	uint16_t sign_exponent;
	int k, bits;
	unsigned __int128 a;

	memcpy(&m, &slope, sizeof(m));
	memcpy(&sign_exponent, (const char *) &slope + sizeof(m), sizeof(sign_exponent));
	k = (int) sign_exponent - 16383 - 63;
	if (!(m >> 63) || (k != -64 && k != -63 && !(k == -62 && m == UINT64_C(1) << 63))) {
		return false;
	}

	a = ((unsigned __int128) m << (k + 64)) - ((unsigned __int128) 1 << 64);
	prepared->slope_negative = k == -64;
	if (prepared->slope_negative) {
		a = -a;
	}

	if (a == 0) {
		prepared->slope_mantissa = 0;
		prepared->slope_shift = 0;
		return true;
	}

	bits = a >> 64 ? 65 : 64 - __builtin_clzll((uint64_t) a);
	/* bits 65 is a = 2^64 (slope 2): its low bit is 0, dropped exactly. */
	prepared->slope_mantissa = bits > 64 ? (uint64_t) (a >> 1) : (uint64_t) a << (64 - bits);
	/* mantissa * 2^-shift ns, shift = 128 - bits, in fixed-point units. */
	prepared->slope_shift = 128 - bits - 32;
	return true;
#else
	(void) prepared;
	(void) slope;
	return false;
#endif
}

void vm_sync_formula_prepare(const struct vm_sync_formula *formula,
		struct vm_sync_prepared *prepared)
{
	vm_sync_wide slope = (vm_sync_wide) formula->slope;
	vm_sync_wide offset = (vm_sync_wide) formula->offset_ns;

	prepared->formula = *formula;
	prepared->identity = formula->slope == 1.0L && formula->offset_ns == 0.0L;
	prepared->fixed = slope >= (vm_sync_wide) 0.5 && slope <= (vm_sync_wide) 2 &&
		offset > -(vm_sync_wide) 4611686018427387904.0 &&
		offset < (vm_sync_wide) 4611686018427387904.0 &&
		(prepare_slope_bits(prepared, formula->slope) || prepare_slope(prepared, slope));
	/* Truncated toward zero: off by less than one unit. */
	prepared->offset_fixed = prepared->fixed ?
		(vm_sync_i128) (offset * (vm_sync_wide) FIXED_ONE) : 0;
}

/* The correction in fixed-point units; false when out of the checked range. */
static bool fixed_correction(const struct vm_sync_prepared *prepared, int64_t t,
		vm_sync_i128 *correction)
{
	uint64_t magnitude = t < 0 ? -(uint64_t) t : (uint64_t) t;
	unsigned __int128 product =
		(unsigned __int128) prepared->slope_mantissa * magnitude >>
		prepared->slope_shift;
	vm_sync_i128 term;

	if (product >= (unsigned __int128) FIXED_LIMIT) {
		return false;
	}

	term = (vm_sync_i128) product;
	*correction = ((t < 0) != prepared->slope_negative ? -term : term) +
		prepared->offset_fixed;
	return *correction > -FIXED_LIMIT && *correction < FIXED_LIMIT;
}

bool vm_sync_prepared_apply_checked(const struct vm_sync_prepared *prepared, int64_t t,
		int64_t *result)
{
	vm_sync_i128 correction;
	uint64_t fraction;
	int64_t rounded;

	if (prepared->identity) {
		*result = t;
		return true;
	}

	if (!prepared->fixed || !fixed_correction(prepared, t, &correction)) {
		return vm_sync_formula_apply_checked(&prepared->formula, t, result);
	}

	/* Halves upward: floor(correction + 1/2), and how close that was. */
	correction += FIXED_ONE / 2;
	fraction = (uint64_t) (correction & (FIXED_ONE - 1));
	if (fraction < FIXED_MARGIN || fraction > (uint64_t) FIXED_ONE - FIXED_MARGIN) {
		return vm_sync_formula_apply_checked(&prepared->formula, t, result);
	}

	rounded = (int64_t) (correction >> 32);
	if (__builtin_add_overflow(t, rounded, result)) {
		/* The exact evaluation tells whether it overflows, and saturates. */
		return vm_sync_formula_apply_checked(&prepared->formula, t, result);
	}

	return true;
}

int64_t vm_sync_prepared_apply(const struct vm_sync_prepared *prepared, int64_t t)
{
	int64_t result;

	vm_sync_prepared_apply_checked(prepared, t, &result);
	return result;
}

bool vm_sync_prepared_side(const struct vm_sync_prepared *prepared, int64_t t, int64_t ref,
		int *sign)
{
	vm_sync_i128 correction;
	vm_sync_i128 ahead;

	if (!prepared->fixed || !fixed_correction(prepared, t, &correction)) {
		return false;
	}

	/* map(t) - ref = (t - ref) + correction, within 2^-31 ns: no overflow in 128 bits. */
	ahead = ((vm_sync_i128) t - ref) * FIXED_ONE + correction;
	if (ahead > FIXED_MARGIN) {
		*sign = 1;
	} else if (ahead < -FIXED_MARGIN) {
		*sign = -1;
	} else {
		return false;
	}

	return true;
}
