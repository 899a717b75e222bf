/* Well-formed UTF-8 for the writers: see utf8-clean.h. */

#include <glib.h>
#include <string.h>

#include "writers/utf8-clean.h"

/*
 * Well-formed UTF-8 per RFC 3629: the allowed range of the second byte
 * depends on the lead byte (no overlong forms, no surrogates, nothing above
 * U+10FFFF); later bytes are always 0x80..0xBF.
 */
struct utf8_lead {
	unsigned char lead_min, lead_max;
	unsigned char second_min, second_max;
	size_t length;
};

static const struct utf8_lead utf8_leads[] = {
	{ 0xC2, 0xDF, 0x80, 0xBF, 2 },
	{ 0xE0, 0xE0, 0xA0, 0xBF, 3 },
	{ 0xE1, 0xEC, 0x80, 0xBF, 3 },
	{ 0xED, 0xED, 0x80, 0x9F, 3 },
	{ 0xEE, 0xEF, 0x80, 0xBF, 3 },
	{ 0xF0, 0xF0, 0x90, 0xBF, 4 },
	{ 0xF1, 0xF3, 0x80, 0xBF, 4 },
	{ 0xF4, 0xF4, 0x80, 0x8F, 4 },
};

static int is_continuation(unsigned char c)
{
	return c >= 0x80 && c <= 0xBF;
}

size_t vm_utf8_sequence_length(const unsigned char *s)
{
	for (size_t i = 0; i < G_N_ELEMENTS(utf8_leads); i++) {
		const struct utf8_lead *l = &utf8_leads[i];

		if (s[0] < l->lead_min || s[0] > l->lead_max) {
			continue;
		}
		if (s[1] < l->second_min || s[1] > l->second_max) {
			return 0;
		}
		for (size_t k = 2; k < l->length; k++) {
			if (!is_continuation(s[k])) {
				return 0;
			}
		}
		return l->length;
	}
	return 0;
}

bool vm_utf8_is_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;

	while (*p) {
		size_t len = *p < 0x80 ? 1 : vm_utf8_sequence_length(p);

		if (len == 0) {
			return false;
		}
		p += len;
	}
	return true;
}

char *vm_utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;
	GString *clean = g_string_sized_new(strlen(s) + 8);

	while (*p) {
		size_t len = *p < 0x80 ? 1 : vm_utf8_sequence_length(p);

		if (len == 0) {
			g_string_append(clean, "\xef\xbf\xbd");
			p++;
			continue;
		}
		g_string_append_len(clean, (const char *) p, (gssize) len);
		p += len;
	}
	return g_string_free(clean, FALSE);
}
