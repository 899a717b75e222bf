/*
 * Delivers the event lines of a stub file in global time order: straight
 * from the file when it is already ordered (bounded memory, any size), else
 * from a copy of the file loaded in memory and sorted by timestamp (lines
 * of equal timestamps keep their file order).
 */

#ifndef VMSTUB_STUB_READER_H
#define VMSTUB_STUB_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

struct stub_reader;

enum stub_reader_status {
	STUB_READER_LINE,
	STUB_READER_END,
	STUB_READER_ERROR,
};

/* NULL + `error` when the file cannot be read. */
struct stub_reader *stub_reader_open(const char *path, bool globally_ordered, GString *error);
void stub_reader_close(struct stub_reader *reader);

/*
 * The next event line (not NUL-terminated, valid until the next call) and
 * its 1-based line number in the file.
 */
enum stub_reader_status stub_reader_next(struct stub_reader *reader, const char **line,
		size_t *len, uint64_t *line_no, GString *error);

#endif /* VMSTUB_STUB_READER_H */
