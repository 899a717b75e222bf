#ifndef VM_WRITERS_OUTPUT_FILE_H
#define VM_WRITERS_OUTPUT_FILE_H

/*
 * The output file of sink.vm.threads, replaced only by a complete output.
 *
 * The records are written to a temporary file next to the named one
 * ("NAME.XXXXXX", created with the mode a new file would get, or the mode,
 * owner and group of the file it replaces) which is renamed over NAME when
 * the output is committed. A run that fails before (a later error of the
 * graph, an interruption, SIGTERM or SIGINT: temp-cleanup.h) removes the
 * temporary file and leaves NAME as it was: a failed run never destroys
 * the previous result. When the final rename fails, the complete output
 * stays in the temporary file, and the error says where. What NAME may be
 * is checked when it is opened (output-target.h): before the run. A NAME
 * that is not a regular file (/dev/stdout, a FIFO) is written directly: it
 * cannot be replaced, and truncating it loses nothing.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdio.h>

struct vm_output_file;

/*
 * Opens the output for `path`, or the standard output when `path` is NULL.
 * On failure, returns NULL and sets `*error` to why (the system's message;
 * free it with g_free()).
 */
struct vm_output_file *vm_output_file_open(const char *path, char **error);

/* Where to write the records; stays owned by `f`. */
FILE *vm_output_file_stream(struct vm_output_file *f);

/*
 * Flushes the records and puts them in place of `path`. On failure,
 * returns false, sets `*error`, and leaves `path` as it was: a failed
 * write (full disk, say) removes the temporary file, a failed rename keeps
 * it (`*error` names it). At most once per file.
 */
bool vm_output_file_commit(struct vm_output_file *f, char **error);

/* Closes `f`; an output not committed is removed (NULL: nothing). */
void vm_output_file_close(struct vm_output_file *f);

#endif /* VM_WRITERS_OUTPUT_FILE_H */
