/*
 * Tokenizer of stub lines.
 */

#include "stub-lexer.h"

void stub_lexer_init(struct stub_lexer *lexer)
{
	lexer->text = g_string_sized_new(256);
	lexer->offsets = g_array_new(FALSE, FALSE, sizeof(gsize));
	lexer->tokens = g_ptr_array_new();
}

void stub_lexer_fini(struct stub_lexer *lexer)
{
	g_string_free(lexer->text, TRUE);
	g_array_free(lexer->offsets, TRUE);
	g_ptr_array_free(lexer->tokens, TRUE);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Appends the quoted part starting after the opening quote; returns its end. */
static const char *append_quoted(GString *text, const char *pos, const char *end,
		GString *error)
{
	while (pos < end && *pos != '"') {
		if (*pos == '\\') {
			pos++;
			if (pos == end || (*pos != '"' && *pos != '\\')) {
				g_string_assign(error, "bad escape in a quoted string: "
					"only \\\" and \\\\ are accepted");
				return NULL;
			}
		}
		g_string_append_c(text, *pos);
		pos++;
	}
	if (pos == end) {
		g_string_assign(error, "unterminated quoted string: expecting a closing `\"`");
		return NULL;
	}
	return pos + 1;
}

bool stub_lexer_split(struct stub_lexer *lexer, const char *line, size_t len, GString *error)
{
	const char *pos = line;
	const char *end = line + len;

	g_string_truncate(lexer->text, 0);
	g_array_set_size(lexer->offsets, 0);
	g_ptr_array_set_size(lexer->tokens, 0);
	for (;;) {
		gsize start;

		while (pos < end && is_blank(*pos)) {
			pos++;
		}
		if (pos == end || *pos == '#') {
			break;
		}
		start = lexer->text->len;
		g_array_append_val(lexer->offsets, start);
		while (pos < end && !is_blank(*pos) && *pos != '#') {
			if (*pos == '"') {
				pos = append_quoted(lexer->text, pos + 1, end, error);
				if (!pos) {
					return false;
				}
				continue;
			}
			g_string_append_c(lexer->text, *pos);
			pos++;
		}
		g_string_append_c(lexer->text, '\0');
	}
	/* Only now: appending may have moved the text. */
	for (guint i = 0; i < lexer->offsets->len; i++) {
		g_ptr_array_add(lexer->tokens,
			lexer->text->str + g_array_index(lexer->offsets, gsize, i));
	}
	return true;
}
