#ifndef VM_WRITERS_TEMP_CLEANUP_H
#define VM_WRITERS_TEMP_CLEANUP_H

/*
 * Temporary files removed when SIGTERM or SIGINT kills the process.
 *
 * An output file is written to a temporary file next to it until the run
 * completes (output-file.h). A run killed by a signal never reaches the
 * code that removes it: a handler does, for the signals whose action is
 * to terminate. While a file is registered, a handler is installed for
 * SIGTERM and SIGINT; it removes the registered files only when the action
 * it replaced was the default one (the process is about to die), then
 * restores that action and raises the signal again. A program that handles
 * the signal itself (babeltrace2's CLI and Python stop the graph on SIGINT,
 * and the sink's finalization removes the file) sees its handler called as
 * before. When the last file is unregistered, the previous actions are put
 * back: the handler is this shared object's code, which may be unloaded.
 *
 * The paths live in static buffers, so that the handler only calls
 * async-signal-safe functions (unlink, sigaction, raise). Single-threaded
 * use, as babeltrace2's graphs are.
 */

#include <stdbool.h>

/*
 * Registers `path` (at most a few files at a time, each shorter than
 * PATH_MAX); returns its slot, or -1 when it cannot be registered (the
 * file then merely stays behind if a signal kills the process).
 */
int vm_temp_cleanup_add(const char *path);

/* Unregisters the file of `slot` (-1: nothing). */
void vm_temp_cleanup_remove(int slot);

#endif /* VM_WRITERS_TEMP_CLEANUP_H */
