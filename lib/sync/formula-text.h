#ifndef VM_SYNC_FORMULA_TEXT_H
#define VM_SYNC_FORMULA_TEXT_H

/* Formulas and their coefficients as text, and back. */

#include <stdbool.h>

/*
 * A coefficient as decimal text with every digit it has (g_free() it):
 * vm_sync_real_parse() gives the same long double back.
 */
char *vm_sync_real_text(long double value);

/*
 * "t_ref = SLOPE * t + OFFSET ns", or "... - |OFFSET| ns" for a negative
 * offset, each coefficient as vm_sync_real_text() writes it (g_free() it).
 */
char *vm_sync_formula_line(long double slope, long double offset_ns);

/*
 * A decimal (or C99 hexadecimal) real, the whole text, correctly rounded to
 * a long double. False when the text is no such number, or out of range.
 */
bool vm_sync_real_parse(const char *text, long double *value);

#endif /* VM_SYNC_FORMULA_TEXT_H */
