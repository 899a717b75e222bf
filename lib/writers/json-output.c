/* JSON string escaping and optional numbers. */

#include <inttypes.h>
#include <stddef.h>

#include "writers/json-output.h"
#include "writers/utf8-clean.h"

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
	if (c < 0x20) {
		fprintf(out, "\\u%04x", c);
	} else {
		fputc(c, out);
	}
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
		len = vm_utf8_sequence_length(p);
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
	if (value == -1) {
		fputs("null", out);
	} else {
		fprintf(out, "%" PRId64, value);
	}
}
