/* JSON string escaping and optional numbers. */

#include <inttypes.h>
#include <stddef.h>

#include "writers/json-output.h"

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

/* Length of the well-formed multi-byte sequence at s, 0 if there is none.
 * Stops at the terminating NUL since it is no continuation byte. */
static size_t utf8_sequence_length(const unsigned char *s)
{
	for (size_t i = 0; i < sizeof(utf8_leads) / sizeof(utf8_leads[0]); i++) {
		const struct utf8_lead *l = &utf8_leads[i];

		if (s[0] < l->lead_min || s[0] > l->lead_max)
			continue;
		if (s[1] < l->second_min || s[1] > l->second_max)
			return 0;
		for (size_t k = 2; k < l->length; k++) {
			if (!is_continuation(s[k]))
				return 0;
		}
		return l->length;
	}
	return 0;
}

static void write_ascii_escaped(FILE *out, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", out);
		return;
	case '\\':
		fputs("\\\\", out);
		return;
	case '\b':
		fputs("\\b", out);
		return;
	case '\f':
		fputs("\\f", out);
		return;
	case '\n':
		fputs("\\n", out);
		return;
	case '\r':
		fputs("\\r", out);
		return;
	case '\t':
		fputs("\\t", out);
		return;
	}
	if (c < 0x20)
		fprintf(out, "\\u%04x", c);
	else
		fputc(c, out);
}

void vm_json_write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *) (s ? s : "");

	fputc('"', out);
	while (*p) {
		size_t len;

		if (*p < 0x80) {
			write_ascii_escaped(out, *p++);
			continue;
		}
		len = utf8_sequence_length(p);
		if (len == 0) {
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		fwrite(p, 1, len, out);
		p += len;
	}
	fputc('"', out);
}

void vm_json_write_optional_int(FILE *out, int64_t value)
{
	if (value == -1)
		fputs("null", out);
	else
		fprintf(out, "%" PRId64, value);
}
