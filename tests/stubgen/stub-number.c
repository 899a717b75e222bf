/*
 * Integers of the stub format: decimal or 0x hexadecimal, signed ones with
 * a leading `-`.
 */

#include "stub-number.h"

#include <errno.h>
#include <stdlib.h>
#include <glib.h>

bool stub_parse_u64(const char *text, uint64_t *value)
{
	char *end;
	int base = 10;

	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		text += 2;
	}
	if (!g_ascii_isxdigit(text[0]) || (base == 10 && !g_ascii_isdigit(text[0]))) {
		return false;
	}
	errno = 0;
	*value = strtoull(text, &end, base);
	return errno == 0 && *end == '\0';
}

bool stub_parse_s64(const char *text, int64_t *value)
{
	bool negative = text[0] == '-';
	uint64_t magnitude;

	if (!stub_parse_u64(text + (negative ? 1 : 0), &magnitude)) {
		return false;
	}
	if (negative) {
		if (magnitude > (uint64_t) INT64_MAX + 1) {
			return false;
		}
		*value = magnitude == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) magnitude;
		return true;
	}
	if (magnitude > INT64_MAX) {
		return false;
	}
	*value = (int64_t) magnitude;
	return true;
}
