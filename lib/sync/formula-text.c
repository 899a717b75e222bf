/*
 * Formula coefficients as text that parses back to the very same value: the
 * formula that a user passes back (filter.vm.correlate's `transforms`) is
 * then the computed one bit for bit, and maps every time to the same
 * nanosecond. A double (what a CLI real is) cannot carry a long double
 * coefficient: at Unix-epoch nanoseconds its rounding alone moves times by
 * a nanosecond here and there.
 */
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <glib.h>

#include "sync/formula-text.h"

char *vm_sync_real_text(long double value)
{
	/* LDBL_DECIMAL_DIG significant digits identify a long double (C11). */
	return g_strdup_printf("%.*Lg", LDBL_DECIMAL_DIG, value);
}

/*
 * The sign goes to the operator, as one writes a formula: "+ -123" reads
 * as a typo. Negating a long double is exact, so the digits still give the
 * very offset back.
 */
char *vm_sync_formula_line(long double slope, long double offset_ns)
{
	bool negative = offset_ns < 0;
	char *slope_text = vm_sync_real_text(slope);
	char *offset_text = vm_sync_real_text(negative ? -offset_ns : offset_ns);
	char *line = g_strdup_printf("t_ref = %s * t %c %s ns", slope_text,
		negative ? '-' : '+', offset_text);

	g_free(offset_text);
	g_free(slope_text);
	return line;
}

bool vm_sync_real_parse(const char *text, long double *value)
{
	char *end;
	long double parsed;

	if (!text || !*text) {
		return false;
	}
	errno = 0;
	/* Correctly rounded (glibc), so the text of any value gives it back. */
	parsed = strtold(text, &end);
	if (*end != '\0' || errno == ERANGE || parsed != parsed) {
		return false;
	}
	*value = parsed;
	return true;
}
