/* Column alignment for the text format. */

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "writers/text-table.h"

#define COLUMN_GAP "  "
#define INDENT "  "

struct vm_text_table {
	char *alignments;
	GPtrArray *rows;        /* of GPtrArray of char * */
};

struct vm_text_table *vm_text_table_new(const char *alignments)
{
	struct vm_text_table *t = g_new0(struct vm_text_table, 1);

	t->alignments = g_strdup(alignments);
	t->rows = g_ptr_array_new_with_free_func((GDestroyNotify) g_ptr_array_unref);
	return t;
}

void vm_text_table_free(struct vm_text_table *t)
{
	if (!t) {
		return;
	}
	g_ptr_array_unref(t->rows);
	g_free(t->alignments);
	g_free(t);
}

void vm_text_table_begin_row(struct vm_text_table *t)
{
	g_ptr_array_add(t->rows, g_ptr_array_new_with_free_func(g_free));
}

static char *printable(const char *text)
{
	char *valid = g_utf8_make_valid(text ? text : "", -1);

	for (char *p = valid; *p; p++) {
		if ((unsigned char) *p < 0x20 || *p == 0x7f) {
			*p = '?';
		}
	}
	return valid;
}

void vm_text_table_add(struct vm_text_table *t, const char *text)
{
	GPtrArray *row = g_ptr_array_index(t->rows, t->rows->len - 1);

	g_ptr_array_add(row, printable(text));
}

void vm_text_table_addf(struct vm_text_table *t, const char *format, ...)
{
	va_list args;
	char *text;

	va_start(args, format);
	text = g_strdup_vprintf(format, args);
	va_end(args);
	vm_text_table_add(t, text);
	g_free(text);
}

/*
 * Width on a terminal, in columns: comms are UTF-8, and East Asian wide
 * characters (CJK, most emoji) take two columns, combining marks and other
 * zero-width characters none. Cells are valid UTF-8 (printable()).
 */
static size_t display_width(const char *cell)
{
	size_t width = 0;

	for (const char *p = cell; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (g_unichar_iszerowidth(c)) {
			continue;
		}
		width += g_unichar_iswide(c) ? 2 : 1;
	}
	return width;
}

static GArray *column_widths(const struct vm_text_table *t)
{
	GArray *widths = g_array_new(FALSE, TRUE, sizeof(size_t));

	for (guint r = 0; r < t->rows->len; r++) {
		GPtrArray *row = g_ptr_array_index(t->rows, r);

		if (widths->len < row->len) {
			g_array_set_size(widths, row->len);
		}
		for (guint c = 0; c < row->len; c++) {
			size_t w = display_width(g_ptr_array_index(row, c));
			size_t *max = &g_array_index(widths, size_t, c);

			if (w > *max) {
				*max = w;
			}
		}
	}
	return widths;
}

static void print_padding(FILE *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fputc(' ', out);
	}
}

static bool right_aligned(const struct vm_text_table *t, guint column)
{
	return column < strlen(t->alignments) && t->alignments[column] == 'r';
}

static void print_row(const struct vm_text_table *t, GPtrArray *row,
		const GArray *widths, FILE *out)
{
	fputs(INDENT, out);
	for (guint c = 0; c < row->len; c++) {
		const char *cell = g_ptr_array_index(row, c);
		size_t pad = g_array_index(widths, size_t, c) - display_width(cell);
		bool last = c + 1 == row->len;

		if (c > 0) {
			fputs(COLUMN_GAP, out);
		}
		if (right_aligned(t, c)) {
			print_padding(out, pad);
		}
		fputs(cell, out);
		/* No trailing blanks after the last cell. */
		if (!right_aligned(t, c) && !last) {
			print_padding(out, pad);
		}
	}
	fputc('\n', out);
}

/* Dashes under each header cell, as wide as its column. */
static void print_rule(const GArray *widths, FILE *out)
{
	fputs(INDENT, out);
	for (guint c = 0; c < widths->len; c++) {
		if (c > 0) {
			fputs(COLUMN_GAP, out);
		}
		for (size_t i = 0; i < g_array_index(widths, size_t, c); i++) {
			fputc('-', out);
		}
	}
	fputc('\n', out);
}

void vm_text_table_print(const struct vm_text_table *t, FILE *out)
{
	GArray *widths = column_widths(t);

	for (guint r = 0; r < t->rows->len; r++) {
		print_row(t, g_ptr_array_index(t->rows, r), widths, out);
		if (r == 0) {
			print_rule(widths, out);
		}
	}
	g_array_unref(widths);
}
