#ifndef VM_WRITERS_TEXT_CONTAINERS_H
#define VM_WRITERS_TEXT_CONTAINERS_H

/*
 * The text summary's "Containers" tables (SPEC, Containers): each
 * container's time in each state with its share of the container's time
 * (steal is `preempted`), then who stole it: the steal rows of its threads
 * by culprit, as in "Steal by culprit".
 *
 * A steal row counts for a container over the part of it where its victim
 * was `preempted` in that container by what=threads: so each container's
 * culprits add up to its `preempted` time, whatever the order in which the
 * analysis reported the two kinds of records (and the container it knew
 * then).
 */

#include <stdbool.h>
#include <stdio.h>

#include "writers/writer.h"

struct vm_text_containers;

struct vm_text_containers *vm_text_containers_new(void);
void vm_text_containers_free(struct vm_text_containers *c);

/* A row of what=containers (copied). */
void vm_text_containers_add_total(struct vm_text_containers *c,
		const struct vm_container_total *row);

/* A thread interval: its `preempted` ones in a container are kept. */
void vm_text_containers_add_thread(struct vm_text_containers *c,
		const struct vm_thread_interval *iv);

/* A steal row of a guest thread (tid > 0): kept until print. */
void vm_text_containers_add_steal(struct vm_text_containers *c,
		const struct vm_steal_interval *iv);

/* Whether any container row was added. */
bool vm_text_containers_any(const struct vm_text_containers *c);

/*
 * The table ("(none)" under its title when no row came), the `unknown`
 * column only with `with_unknown` or when some container has unknown time; then the culprits, when some thread of
 * a container was preempted.
 */
void vm_text_containers_print(struct vm_text_containers *c, FILE *out,
		bool with_unknown);

#endif /* VM_WRITERS_TEXT_CONTAINERS_H */
