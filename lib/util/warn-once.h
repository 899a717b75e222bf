#ifndef VM_UTIL_WARN_ONCE_H
#define VM_UTIL_WARN_ONCE_H

/*
 * Odd input is reported once per kind of oddity and machine (SPEC, Bad
 * input): a trace with a million lost events must not print a million
 * lines. The one record of what was said, for every component: kinds and
 * machines are named by text (the thread analysis) or by number (the vCPU
 * tracker's enum and machine indexes, the plugin's machine registry).
 */

#include <stdbool.h>

struct vm_warn_once;

struct vm_warn_once *vm_warn_once_create(void);
void vm_warn_once_destroy(struct vm_warn_once *seen);

/* True the first time (kind, machine) is passed, false afterwards. */
bool vm_warn_once_first(struct vm_warn_once *seen, const char *kind,
		const char *machine);

/* vm_warn_once_first() for a kind and a machine known by number. */
bool vm_warn_once_first_id(struct vm_warn_once *seen, unsigned int kind,
		unsigned int machine);

/* Whether (kind, machine) was passed already; records nothing. */
bool vm_warn_once_given_id(const struct vm_warn_once *seen, unsigned int kind,
		unsigned int machine);

#endif /* VM_UTIL_WARN_ONCE_H */
