/*
 * Event lines of the stub format: TIMESTAMP CPU NAME [FIELD=VALUE ...].
 */

#include "stub-event-line.h"

#include <string.h>

#include "stub-number.h"

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

bool stub_sequence_parse(enum stub_field_type type, const char *text, size_t len,
		GArray *values)
{
	char *copy = g_strndup(text, len);
	char **parts = g_strsplit(copy, ",", -1);
	bool ok = true;

	/* "[]" is the empty sequence; "[,]" or "[1,]" are errors. */
	for (size_t i = 0; len > 0 && parts[i] && ok; i++) {
		union stub_value value;

		ok = integer_in_range(type, parts[i], &value);
		if (ok) {
			g_array_append_val(values, value);
		}
	}
	g_strfreev(parts);
	g_free(copy);
	return ok;
}

/* A sequence field's value: `[` integers separated by `,` `]`. */
static bool parse_sequence(const struct stub_field_def *field, const char *text,
		union stub_value *value)
{
	size_t len = strlen(text);
	GArray *check = g_array_new(FALSE, FALSE, sizeof(union stub_value));
	bool ok = len >= 2 && text[0] == '[' && text[len - 1] == ']' &&
		stub_sequence_parse(field->type, text + 1, len - 2, check);

	g_array_free(check, TRUE);
	value->seq.text = text + 1;
	value->seq.len = len >= 2 ? len - 2 : 0;
	return ok;
}

/*
 * Index of a field of the line in `values`: a payload field, else a
 * context field (after the payload's); -1 when neither. A name that is
 * both is an error, since the line could not say which it sets.
 */
static int line_field_index(const struct stub_event_line *event, const char *name,
		GString *error)
{
	int index = stub_event_def_field_index(event->def, name);
	int context = event->context ? stub_event_def_field_index(event->context, name) : -1;

	if (index >= 0 && context >= 0) {
		g_string_printf(error, "field `%s` of event `%s` is also an event context field",
			name, event->def->name);
		return -2;
	}
	if (context >= 0) {
		return (int) event->def->fields->len + context;
	}
	if (index < 0) {
		char *list = stub_event_def_field_list(event->def);
		char *context_list = event->context ?
			stub_event_def_field_list(event->context) : NULL;

		g_string_printf(error, "unknown field `%s` of event `%s`: accepted fields: %s%s%s",
			name, event->def->name, list, context_list ? "; context fields: " : "",
			context_list ? context_list : "");
		g_free(list);
		g_free(context_list);
	}
	return index;
}

static const struct stub_field_def *line_field(const struct stub_event_line *event, int index)
{
	guint payload = event->def->fields->len;

	if ((guint) index < payload) {
		return &g_array_index(event->def->fields, struct stub_field_def, index);
	}
	return &g_array_index(event->context->fields, struct stub_field_def, index - payload);
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
	index = line_field_index(event, name, error);
	if (index < 0) {
		return false;
	}
	if (g_array_index(event->given, gboolean, index)) {
		g_string_printf(error, "field `%s` of event `%s` is given twice", name,
			event->def->name);
		return false;
	}
	g_array_index(event->given, gboolean, index) = TRUE;
	field = line_field(event, index);
	if (field->type == STUB_FIELD_STRING) {
		g_array_index(event->values, union stub_value, index).str = equal + 1;
		return true;
	}
	if (field->is_sequence) {
		if (parse_sequence(field, equal + 1,
				&g_array_index(event->values, union stub_value, index))) {
			return true;
		}
		g_string_printf(error, "bad value `%s` of field `%s` of event `%s`: expecting "
			"[V,V,...] (or []) with each V %s (decimal or 0x hexadecimal)",
			equal + 1, name, event->def->name, type_range(field->type));
		return false;
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
	guint count = event->def->fields->len +
		(event->context ? event->context->fields->len : 0);

	g_array_set_size(event->values, count);
	g_array_set_size(event->given, count);
	for (guint i = 0; i < count; i++) {
		const struct stub_field_def *field = line_field(event, (int) i);
		union stub_value *value = &g_array_index(event->values, union stub_value, i);

		if (field->type == STUB_FIELD_STRING) {
			value->str = "";
		} else if (field->is_sequence) {
			value->seq.text = "";
			value->seq.len = 0;
		} else {
			value->u = 0;
		}
		g_array_index(event->given, gboolean, i) = FALSE;
	}
}

/* `TIMESTAMP CPU !lost COUNT`: COUNT events that the CPU's stream did not record. */
static bool parse_loss(struct stub_event_line *event, const struct stub_lexer *lexer,
		GString *error)
{
	event->def = NULL;
	g_array_set_size(event->values, 0);
	g_array_set_size(event->given, 0);
	if (stub_lexer_count(lexer) != 4 || !stub_parse_u64(stub_lexer_token(lexer, 3),
			&event->lost) || event->lost == 0) {
		g_string_assign(error, "bad loss line: expecting TIMESTAMP CPU " STUB_LOSS_NAME
			" COUNT (COUNT an integer of at least 1)");
		return false;
	}
	return true;
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
	event->lost = 0;
	if (strcmp(stub_lexer_token(lexer, 2), STUB_LOSS_NAME) == 0) {
		return parse_loss(event, lexer, error);
	}
	event->def = stub_event_table_lookup(events, stub_lexer_token(lexer, 2));
	if (!event->def) {
		char *known = stub_event_table_name_list(events);

		g_string_printf(error, "unknown event `%s`: known events are %s; declare "
			"others with `event NAME FIELD:TYPE ...` (see stub-traces/README.md)",
			stub_lexer_token(lexer, 2), known);
		g_free(known);
		return false;
	}
	event->context = events->context;
	reset_values(event);
	for (size_t i = 3; i < stub_lexer_count(lexer); i++) {
		if (!parse_field(event, stub_lexer_token(lexer, i), error)) {
			return false;
		}
	}
	return true;
}
