#ifndef VM_SYNC_WIDE_H
#define VM_SYNC_WIDE_H

/*
 * Wide number types of the synchronization code (internal to lib/sync/).
 *
 * vm_sync_i128: exact integer for hull orientation tests and slope
 * comparisons. Point coordinates are nanosecond timestamps (|t| < 2^62 once
 * clamped, see point.h), so a difference fits 63 bits, a product of two
 * differences 126 bits and the difference of two such products 127 bits:
 * never an overflow.
 *
 * vm_sync_wide: the floating type in which the fit (a, b) is computed and
 * formulas are applied. IEEE binary128 (__float128, 113-bit mantissa, about
 * 34 decimal digits, the same precision as Trace Compass's BigDecimal
 * DECIMAL128) where the compiler has it; plain long double elsewhere (on
 * aarch64 long double already is binary128). Only + - * / and conversions are
 * used, which libgcc provides: no libquadmath.
 */

#include <stdint.h>

__extension__ typedef __int128 vm_sync_i128;

#if defined(__SIZEOF_FLOAT128__) && !defined(VM_SYNC_NO_FLOAT128)
__extension__ typedef __float128 vm_sync_wide;
#else
typedef long double vm_sync_wide;
#endif

#endif /* VM_SYNC_WIDE_H */
