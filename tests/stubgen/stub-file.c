/*
 * Header directives and event lines of the stub format.
 */

#include "stub-file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CLOCK_OFFSET_S 1600000000
#define DEFAULT_PACKET_SIZE 4096

static const char accepted_directives[] =
	"hostname, clock-offset-s, clock-offset-ns, clock-uuid, tracer, cpus, "
	"packet-size, event, clock, packet-end-overlap, tracer-name";

void stub_header_init(struct stub_header *header, const char *path)
{
	char *base = g_path_get_basename(path);

	if (g_str_has_suffix(base, ".stub")) {
		base[strlen(base) - strlen(".stub")] = '\0';
	}
	memset(header, 0, sizeof(*header));
	header->hostname = base;
	header->clock_offset_s = DEFAULT_CLOCK_OFFSET_S;
	header->tracer_name = g_strdup("lttng-modules");
	header->tracer_major = 2;
	header->tracer_minor = 10;
	header->packet_size = DEFAULT_PACKET_SIZE;
	header->has_clock = true;
	header->events = stub_event_table_create();
}

void stub_header_fini(struct stub_header *header)
{
	g_free(header->hostname);
	g_free(header->tracer_name);
	stub_event_table_destroy(header->events);
	header->hostname = NULL;
	header->tracer_name = NULL;
	header->events = NULL;
}

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

static bool expect_args(const struct stub_lexer *lexer, size_t count, const char *usage,
		GString *error)
{
	if (stub_lexer_count(lexer) != count + 1) {
		g_string_printf(error, "`%s` expects: %s", stub_lexer_token(lexer, 0), usage);
		return false;
	}
	return true;
}

static bool parse_u64_arg(const struct stub_lexer *lexer, uint64_t min, uint64_t max,
		const char *usage, uint64_t *value, GString *error)
{
	if (!expect_args(lexer, 1, usage, error)) {
		return false;
	}
	if (!stub_parse_u64(stub_lexer_token(lexer, 1), value) || *value < min || *value > max) {
		g_string_printf(error, "bad value `%s` of `%s`: expecting %s",
			stub_lexer_token(lexer, 1), stub_lexer_token(lexer, 0), usage);
		return false;
	}
	return true;
}

static bool parse_s64_arg(const struct stub_lexer *lexer, size_t index, const char *usage,
		int64_t *value, GString *error)
{
	if (!stub_parse_s64(stub_lexer_token(lexer, index), value)) {
		g_string_printf(error, "bad value `%s` of `%s`: expecting %s",
			stub_lexer_token(lexer, index), stub_lexer_token(lexer, 0), usage);
		return false;
	}
	return true;
}

static bool parse_uuid(const char *text, uint8_t uuid[16])
{
	static const int dash_positions[] = { 8, 13, 18, 23 };
	size_t out = 0;

	if (strlen(text) != 36) {
		return false;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(dash_positions); i++) {
		if (text[dash_positions[i]] != '-') {
			return false;
		}
	}
	for (size_t i = 0; i < 36 && out < 16; i++) {
		if (text[i] == '-') {
			continue;
		}
		if (!g_ascii_isxdigit(text[i]) || !g_ascii_isxdigit(text[i + 1])) {
			return false;
		}
		uuid[out++] = (uint8_t) (g_ascii_xdigit_value(text[i]) * 16 +
			g_ascii_xdigit_value(text[i + 1]));
		i++;
	}
	return out == 16;
}

static bool apply_clock_uuid(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "a UUID xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hexadecimal)";

	if (!expect_args(lexer, 1, usage, error)) {
		return false;
	}
	if (!parse_uuid(stub_lexer_token(lexer, 1), header->clock_uuid)) {
		g_string_printf(error, "bad value `%s` of `clock-uuid`: expecting %s",
			stub_lexer_token(lexer, 1), usage);
		return false;
	}
	header->has_clock_uuid = true;
	return true;
}

static bool apply_tracer(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "MAJOR MINOR (two integers)";

	return expect_args(lexer, 2, usage, error) &&
		parse_s64_arg(lexer, 1, usage, &header->tracer_major, error) &&
		parse_s64_arg(lexer, 2, usage, &header->tracer_minor, error);
}

static bool apply_clock_offset_s(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "a signed integer (seconds)";

	return expect_args(lexer, 1, usage, error) &&
		parse_s64_arg(lexer, 1, usage, &header->clock_offset_s, error);
}

static bool apply_clock_offset_ns(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	uint64_t value;

	if (!parse_u64_arg(lexer, 0, 999999999, "an integer from 0 to 999999999 (nanoseconds)",
			&value, error)) {
		return false;
	}
	header->clock_offset_ns = (int64_t) value;
	return true;
}

static bool apply_clock(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "`monotonic` (default) or `none` (no clock class)";

	if (!expect_args(lexer, 1, usage, error)) {
		return false;
	}
	if (strcmp(stub_lexer_token(lexer, 1), "monotonic") == 0) {
		header->has_clock = true;
	} else if (strcmp(stub_lexer_token(lexer, 1), "none") == 0) {
		header->has_clock = false;
	} else {
		g_string_printf(error, "bad value `%s` of `clock`: expecting %s",
			stub_lexer_token(lexer, 1), usage);
		return false;
	}
	return true;
}

static bool apply_event(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	GString *detail;
	bool ok;

	if (stub_lexer_count(lexer) < 2) {
		g_string_printf(error, "`event` expects: NAME FIELD:TYPE ... with TYPE one of %s",
			stub_field_type_accepted());
		return false;
	}
	detail = g_string_new(NULL);
	ok = stub_event_table_declare(header->events, stub_lexer_token(lexer, 1),
		(const char *const *) lexer->tokens->pdata + 2, stub_lexer_count(lexer) - 2,
		detail);
	if (!ok) {
		g_string_printf(error, "event `%s`: %s", stub_lexer_token(lexer, 1), detail->str);
	}
	g_string_free(detail, TRUE);
	return ok;
}

bool stub_header_apply(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	const char *name = stub_lexer_token(lexer, 0);

	if (strcmp(name, "hostname") == 0) {
		if (!expect_args(lexer, 1, "a name (quote it if it has blanks)", error)) {
			return false;
		}
		g_free(header->hostname);
		header->hostname = g_strdup(stub_lexer_token(lexer, 1));
		return true;
	} else if (strcmp(name, "tracer-name") == 0) {
		if (!expect_args(lexer, 1, "a tracer name, e.g. lttng-modules", error)) {
			return false;
		}
		g_free(header->tracer_name);
		header->tracer_name = g_strdup(stub_lexer_token(lexer, 1));
		return true;
	} else if (strcmp(name, "clock-offset-s") == 0) {
		return apply_clock_offset_s(header, lexer, error);
	} else if (strcmp(name, "clock-offset-ns") == 0) {
		return apply_clock_offset_ns(header, lexer, error);
	} else if (strcmp(name, "clock-uuid") == 0) {
		return apply_clock_uuid(header, lexer, error);
	} else if (strcmp(name, "tracer") == 0) {
		return apply_tracer(header, lexer, error);
	} else if (strcmp(name, "cpus") == 0) {
		return parse_u64_arg(lexer, 1, STUB_MAX_CPUS, "an integer from 1 to 4096",
			&header->cpus, error);
	} else if (strcmp(name, "packet-size") == 0) {
		return parse_u64_arg(lexer, 1, UINT32_MAX, "a positive integer (events)",
			&header->packet_size, error);
	} else if (strcmp(name, "packet-end-overlap") == 0) {
		return parse_u64_arg(lexer, 0, UINT32_MAX, "an integer (nanoseconds)",
			&header->packet_end_overlap_ns, error);
	} else if (strcmp(name, "clock") == 0) {
		return apply_clock(header, lexer, error);
	} else if (strcmp(name, "event") == 0) {
		return apply_event(header, lexer, error);
	}
	g_string_printf(error, "unknown directive `%s`: expecting one of %s, "
		"or an event line TIMESTAMP CPU NAME [FIELD=VALUE ...]", name, accepted_directives);
	return false;
}

bool stub_header_check(const struct stub_header *header, GString *error)
{
	/*
	 * src.ctf.fs 2.0 applies LTTng index fix-ups that assume a clock class:
	 * it aborts on an LTTng trace without one.
	 */
	if (!header->has_clock && g_str_has_prefix(header->tracer_name, "lttng")) {
		g_string_printf(error, "`clock none` needs a `tracer-name` that does not start "
			"with `lttng` (now `%s`): babeltrace2's src.ctf.fs aborts on LTTng "
			"traces without a clock class", header->tracer_name);
		return false;
	}
	return true;
}

void stub_header_clock_uuid(const struct stub_header *header, uint8_t uuid[16])
{
	GChecksum *sha1;
	guint8 digest[20];
	gsize digest_len = sizeof(digest);

	if (header->has_clock_uuid) {
		memcpy(uuid, header->clock_uuid, 16);
		return;
	}
	/* Stable across runs, distinct across hostnames: a name-based UUID. */
	sha1 = g_checksum_new(G_CHECKSUM_SHA1);
	g_checksum_update(sha1, (const guchar *) "vmstub clock ", -1);
	g_checksum_update(sha1, (const guchar *) header->hostname, -1);
	g_checksum_get_digest(sha1, digest, &digest_len);
	g_checksum_free(sha1);
	memcpy(uuid, digest, 16);
	uuid[6] = (uint8_t) ((uuid[6] & 0x0f) | 0x50);
	uuid[8] = (uint8_t) ((uuid[8] & 0x3f) | 0x80);
}

bool stub_line_is_event(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (line[i] != ' ' && line[i] != '\t') {
			return g_ascii_isdigit(line[i]);
		}
	}
	return false;
}

/* Copies the next blank-separated word into `word`; returns the position after it. */
static const char *next_word(const char *pos, const char *end, char *word, size_t size)
{
	size_t len = 0;

	while (pos < end && (*pos == ' ' || *pos == '\t')) {
		pos++;
	}
	while (pos < end && !g_ascii_isspace(*pos) && *pos != '#') {
		if (len + 1 < size) {
			word[len] = *pos;
		}
		len++;
		pos++;
	}
	word[len + 1 < size ? len : size - 1] = '\0';
	if (len + 1 > size) {
		/* Too long to be a number: make the parse fail. */
		word[0] = 'x';
	}
	return pos;
}

bool stub_event_line_peek(const char *line, size_t len, uint64_t *ts, uint64_t *cpu,
		GString *error)
{
	char word[32];
	const char *end = line + len;
	const char *pos = next_word(line, end, word, sizeof(word));

	if (!stub_parse_u64(word, ts)) {
		g_string_printf(error, "bad timestamp `%s`: expecting an unsigned integer", word);
		return false;
	}
	next_word(pos, end, word, sizeof(word));
	if (!stub_parse_u64(word, cpu) || *cpu >= STUB_MAX_CPUS) {
		g_string_printf(error, "bad CPU `%s`: expecting an integer from 0 to %d "
			"after the timestamp", word, STUB_MAX_CPUS - 1);
		return false;
	}
	return true;
}

void stub_event_line_init(struct stub_event_line *event)
{
	memset(event, 0, sizeof(*event));
	event->values = g_array_new(FALSE, TRUE, sizeof(union stub_value));
	event->given = g_array_new(FALSE, TRUE, sizeof(gboolean));
}

void stub_event_line_fini(struct stub_event_line *event)
{
	g_array_free(event->values, TRUE);
	g_array_free(event->given, TRUE);
}

static bool integer_in_range(enum stub_field_type type, const char *text, union stub_value *value)
{
	unsigned int bits = stub_field_type_bits(type);

	if (stub_field_type_is_signed(type)) {
		int64_t limit = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;

		return stub_parse_s64(text, &value->s) && value->s <= limit && value->s >= -limit - 1;
	}
	return stub_parse_u64(text, &value->u) &&
		(bits == 64 || value->u <= (UINT64_C(1) << bits) - 1);
}

static const char *type_range(enum stub_field_type type)
{
	static const char *const ranges[] = {
		[STUB_FIELD_S8] = "a signed 8-bit integer",
		[STUB_FIELD_S16] = "a signed 16-bit integer",
		[STUB_FIELD_S32] = "a signed 32-bit integer",
		[STUB_FIELD_S64] = "a signed 64-bit integer",
		[STUB_FIELD_U8] = "an unsigned 8-bit integer",
		[STUB_FIELD_U16] = "an unsigned 16-bit integer",
		[STUB_FIELD_U32] = "an unsigned 32-bit integer",
		[STUB_FIELD_U64] = "an unsigned 64-bit integer",
		[STUB_FIELD_X8] = "an unsigned 8-bit integer",
		[STUB_FIELD_X16] = "an unsigned 16-bit integer",
		[STUB_FIELD_X32] = "an unsigned 32-bit integer",
		[STUB_FIELD_X64] = "an unsigned 64-bit integer",
		[STUB_FIELD_STRING] = "a string",
	};

	return ranges[type];
}

static bool parse_field(struct stub_event_line *event, const char *token, GString *error)
{
	const char *equal = strchr(token, '=');
	char name[128];
	int index;
	const struct stub_field_def *field;

	if (!equal || equal == token || (size_t) (equal - token) >= sizeof(name)) {
		g_string_printf(error, "bad field `%s` of event `%s`: expecting FIELD=VALUE",
			token, event->def->name);
		return false;
	}
	memcpy(name, token, equal - token);
	name[equal - token] = '\0';
	index = stub_event_def_field_index(event->def, name);
	if (index < 0) {
		char *list = stub_event_def_field_list(event->def);

		g_string_printf(error, "unknown field `%s` of event `%s`: accepted fields: %s",
			name, event->def->name, list);
		g_free(list);
		return false;
	}
	if (g_array_index(event->given, gboolean, index)) {
		g_string_printf(error, "field `%s` of event `%s` is given twice", name,
			event->def->name);
		return false;
	}
	g_array_index(event->given, gboolean, index) = TRUE;
	field = &g_array_index(event->def->fields, struct stub_field_def, index);
	if (field->type == STUB_FIELD_STRING) {
		g_array_index(event->values, union stub_value, index).str = equal + 1;
		return true;
	}
	if (!integer_in_range(field->type, equal + 1,
			&g_array_index(event->values, union stub_value, index))) {
		g_string_printf(error, "bad value `%s` of field `%s` of event `%s`: expecting %s "
			"(decimal or 0x hexadecimal)", equal + 1, name, event->def->name,
			type_range(field->type));
		return false;
	}
	return true;
}

static void reset_values(struct stub_event_line *event)
{
	guint count = event->def->fields->len;

	g_array_set_size(event->values, count);
	g_array_set_size(event->given, count);
	for (guint i = 0; i < count; i++) {
		const struct stub_field_def *field =
			&g_array_index(event->def->fields, struct stub_field_def, i);
		union stub_value *value = &g_array_index(event->values, union stub_value, i);

		if (field->type == STUB_FIELD_STRING) {
			value->str = "";
		} else {
			value->u = 0;
		}
		g_array_index(event->given, gboolean, i) = FALSE;
	}
}

bool stub_event_line_parse(struct stub_event_line *event, const struct stub_lexer *lexer,
		const struct stub_event_table *events, GString *error)
{
	if (stub_lexer_count(lexer) < 3) {
		g_string_assign(error, "incomplete event line: expecting "
			"TIMESTAMP CPU NAME [FIELD=VALUE ...]");
		return false;
	}
	if (!stub_parse_u64(stub_lexer_token(lexer, 0), &event->ts)) {
		g_string_printf(error, "bad timestamp `%s`: expecting an unsigned integer",
			stub_lexer_token(lexer, 0));
		return false;
	}
	if (!stub_parse_u64(stub_lexer_token(lexer, 1), &event->cpu) ||
			event->cpu >= STUB_MAX_CPUS) {
		g_string_printf(error, "bad CPU `%s`: expecting an integer from 0 to %d",
			stub_lexer_token(lexer, 1), STUB_MAX_CPUS - 1);
		return false;
	}
	event->def = stub_event_table_lookup(events, stub_lexer_token(lexer, 2));
	if (!event->def) {
		g_string_printf(error, "unknown event `%s`: declare it with "
			"`event NAME FIELD:TYPE ...` or use a built-in event "
			"(see stub-traces/README.md)", stub_lexer_token(lexer, 2));
		return false;
	}
	reset_values(event);
	for (size_t i = 3; i < stub_lexer_count(lexer); i++) {
		if (!parse_field(event, stub_lexer_token(lexer, i), error)) {
			return false;
		}
	}
	return true;
}
