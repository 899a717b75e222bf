#ifndef VM_WRITERS_TEXT_STEAL_H
#define VM_WRITERS_TEXT_STEAL_H

/*
 * The text summary's "Steal by culprit" table (SPEC, Who took the time):
 * per victim machine, each culprit with its total time and share of the
 * machine's steal, largest first. A VM is one culprit (its vCPU and QEMU
 * threads summed), a host thread is named by comm and tid.
 */

#include <stdbool.h>
#include <stdio.h>

#include "writers/writer.h"

struct vm_text_steal;

struct vm_text_steal *vm_text_steal_new(void);
void vm_text_steal_free(struct vm_text_steal *s);

void vm_text_steal_add(struct vm_text_steal *s, const struct vm_steal_interval *iv);

/* Whether any steal was added. */
bool vm_text_steal_any(const struct vm_text_steal *s);

/* The table, or "(none)" under its title when nothing was added. */
void vm_text_steal_print(const struct vm_text_steal *s, FILE *out);

/*
 * The same table under another title, its first column (the victims'
 * `machine`, which may stand for something else, a container) headed
 * `victim_header`.
 */
void vm_text_steal_print_as(const struct vm_text_steal *s, FILE *out,
		const char *title, const char *victim_header);

#endif /* VM_WRITERS_TEXT_STEAL_H */
