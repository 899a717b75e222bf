/*
 * Event lines of a stub file, in global time order.
 */

#include "stub-reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub-event-line.h"

struct sorted_line {
	uint64_t ts;
	uint64_t line_no;
	gsize start;
	gsize len;
};

struct stub_reader {
	char *path;
	/* Streaming: the open file and its line buffer. */
	FILE *file;
	char *line;
	size_t capacity;
	uint64_t line_no;
	/* Sorted: the whole file and its event lines (struct sorted_line). */
	gchar *contents;
	GArray *sorted;
	guint next_sorted;
};

static gint compare_sorted_lines(gconstpointer a, gconstpointer b)
{
	const struct sorted_line *left = a;
	const struct sorted_line *right = b;

	if (left->ts != right->ts) {
		return left->ts < right->ts ? -1 : 1;
	}
	return left->line_no < right->line_no ? -1 : left->line_no > right->line_no;
}

static void index_event_lines(struct stub_reader *reader, gsize size)
{
	gsize start = 0;
	uint64_t line_no = 0;
	GString *ignored = g_string_new(NULL);

	while (start < size) {
		const char *newline = memchr(reader->contents + start, '\n', size - start);
		gsize end = newline ? (gsize) (newline - reader->contents) : size;
		struct sorted_line entry = { .line_no = ++line_no, .start = start, .len = end - start };
		uint64_t cpu;

		/* The scan has checked every line: the peek succeeds. */
		if (stub_line_is_event(reader->contents + start, entry.len) &&
				stub_event_line_peek(reader->contents + start, entry.len, &entry.ts,
					&cpu, ignored)) {
			g_array_append_val(reader->sorted, entry);
		}
		start = end + 1;
	}
	g_string_free(ignored, TRUE);
	g_array_sort(reader->sorted, compare_sorted_lines);
}

static bool load_sorted(struct stub_reader *reader, GString *error)
{
	gsize size;
	GError *gerror = NULL;

	if (!g_file_get_contents(reader->path, &reader->contents, &size, &gerror)) {
		g_string_printf(error, "%s: cannot read the stub file: %s", reader->path,
			gerror->message);
		g_error_free(gerror);
		return false;
	}
	reader->sorted = g_array_new(FALSE, FALSE, sizeof(struct sorted_line));
	index_event_lines(reader, size);
	return true;
}

struct stub_reader *stub_reader_open(const char *path, bool globally_ordered, GString *error)
{
	struct stub_reader *reader = g_new0(struct stub_reader, 1);

	reader->path = g_strdup(path);
	if (!globally_ordered) {
		if (!load_sorted(reader, error)) {
			goto error;
		}
		return reader;
	}
	reader->file = fopen(path, "r");
	if (!reader->file) {
		g_string_printf(error, "%s: cannot open the stub file: %s", path, g_strerror(errno));
		goto error;
	}
	return reader;

error:
	stub_reader_close(reader);
	return NULL;
}

void stub_reader_close(struct stub_reader *reader)
{
	if (!reader) {
		return;
	}
	if (reader->file) {
		fclose(reader->file);
	}
	free(reader->line);
	g_free(reader->contents);
	if (reader->sorted) {
		g_array_free(reader->sorted, TRUE);
	}
	g_free(reader->path);
	g_free(reader);
}

static enum stub_reader_status next_streamed(struct stub_reader *reader, const char **line,
		size_t *len, uint64_t *line_no, GString *error)
{
	ssize_t read_len;

	while ((read_len = getline(&reader->line, &reader->capacity, reader->file)) >= 0) {
		reader->line_no++;
		if (stub_line_is_event(reader->line, (size_t) read_len)) {
			*line = reader->line;
			*len = (size_t) read_len;
			*line_no = reader->line_no;
			return STUB_READER_LINE;
		}
	}
	if (ferror(reader->file)) {
		g_string_printf(error, "%s: cannot read: %s", reader->path, g_strerror(errno));
		return STUB_READER_ERROR;
	}
	return STUB_READER_END;
}

enum stub_reader_status stub_reader_next(struct stub_reader *reader, const char **line,
		size_t *len, uint64_t *line_no, GString *error)
{
	const struct sorted_line *entry;

	if (reader->file) {
		return next_streamed(reader, line, len, line_no, error);
	}
	if (reader->next_sorted == reader->sorted->len) {
		return STUB_READER_END;
	}
	entry = &g_array_index(reader->sorted, struct sorted_line, reader->next_sorted++);
	*line = reader->contents + entry->start;
	*len = entry->len;
	*line_no = entry->line_no;
	return STUB_READER_LINE;
}
