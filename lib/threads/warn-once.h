#ifndef VM_THREADS_WARN_ONCE_H
#define VM_THREADS_WARN_ONCE_H

/*
 * Odd input is reported once per kind of oddity and machine (SPEC, Bad
 * input): a trace with a million lost events must not print a million lines.
 */

#include <stdbool.h>

struct vm_threads_warn_once;

struct vm_threads_warn_once *vm_threads_warn_once_create(void);
void vm_threads_warn_once_destroy(struct vm_threads_warn_once *seen);

/* True the first time (kind, machine) is passed, false afterwards. */
bool vm_threads_warn_once_first(struct vm_threads_warn_once *seen,
		const char *kind, const char *machine);

#endif /* VM_THREADS_WARN_ONCE_H */
