#ifndef VM_CONTAINERS_CONTAINERS_H
#define VM_CONTAINERS_CONTAINERS_H

/*
 * The containers of every machine's threads (SPEC, Containers): fed with
 * the plain events of all machines in time order (the same stream as
 * lib/threads), it answers, for a machine and a thread, the container the
 * thread is in as far as the trace has said so far.
 *
 * Answers are those known at the time of the question: an interval
 * reported when it ends gets the container known then, which covers a
 * statedump that comes after the thread's first interval began.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "containers/machine-ns.h"

struct vm_containers;

struct vm_containers *vm_containers_create(void);
void vm_containers_destroy(struct vm_containers *c);

/* Names machine `index` (struct vm_event's `machine`), before its events. */
void vm_containers_add_machine(struct vm_containers *c, unsigned int index,
		const char *name);

/*
 * Any event: the ones that tell about namespaces (see lib/event.h: the
 * `pid_ns` context of any kind, statedump, pid_ns statedump, fork) and the
 * scheduler switches that give comms and each CPU's current thread.
 * Events of a machine not named yet are ignored.
 */
void vm_containers_feed(struct vm_containers *c, const struct vm_event *ev);

/* Whether vm_containers_feed() reads the fields of events of `kind`. */
bool vm_containers_needs_fields(enum vm_event_kind kind);

/* The container of `tid` on machine `index`: false when in none. */
bool vm_containers_lookup(struct vm_containers *c, unsigned int index,
		int64_t tid, struct vm_container_ref *out);

/* The same, the machine given by the name it was added with. */
bool vm_containers_lookup_by_name(struct vm_containers *c, const char *machine,
		int64_t tid, struct vm_container_ref *out);

/* Whether any thread of any machine was seen in a container. */
bool vm_containers_any(const struct vm_containers *c);

#endif /* VM_CONTAINERS_CONTAINERS_H */
