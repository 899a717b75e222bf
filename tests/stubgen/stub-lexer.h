/*
 * Splits one stub line into tokens: words separated by blanks, `#` starting
 * a comment outside quotes, double-quoted parts (with `\"` and `\\`
 * escapes) joined to the word they belong to, so that `comm="a b"` is one
 * token `comm=a b`.
 */

#ifndef VMSTUB_STUB_LEXER_H
#define VMSTUB_STUB_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

struct stub_lexer {
	/* Token texts, each NUL-terminated, back to back. */
	GString *text;
	/* gsize offsets of each token in text */
	GArray *offsets;
	/* Token pointers into text, valid until the next stub_lexer_split(). */
	GPtrArray *tokens;
};

void stub_lexer_init(struct stub_lexer *lexer);
void stub_lexer_fini(struct stub_lexer *lexer);

/*
 * Splits `line` (`len` bytes, no newline needed). On an unterminated quote
 * or a bad escape, returns false and describes it in `error`.
 */
bool stub_lexer_split(struct stub_lexer *lexer, const char *line, size_t len, GString *error);

static inline size_t stub_lexer_count(const struct stub_lexer *lexer)
{
	return lexer->tokens->len;
}

static inline const char *stub_lexer_token(const struct stub_lexer *lexer, size_t i)
{
	return g_ptr_array_index(lexer->tokens, i);
}

#endif /* VMSTUB_STUB_LEXER_H */
