#ifndef VM_CONTAINERS_MACHINE_NS_H
#define VM_CONTAINERS_MACHINE_NS_H

/*
 * What one machine's trace says about the PID namespaces of its threads
 * (SPEC, Containers): for each thread, its innermost namespace and its id
 * there; for each namespace, its init process (vpid 1), whose comm names
 * it. Fed with the machine's events in time order.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

/*
 * The inode number of the kernel's initial PID namespace
 * (PROC_PID_INIT_INO): fixed in Linux since 3.8, so a `pid_ns` context
 * that names it is the machine itself even before a statedump says so.
 */
#define VM_PID_NS_INIT_INUM INT64_C(0xeffffffc)

/* A thread's container, as known at the time of the question. */
struct vm_container_ref {
	int64_t ns_inum;   /* the namespace's inode number */
	/*
	 * The comm of the namespace's init process (vpid 1) when the trace
	 * showed it, else the inode number in decimal. Valid until the next
	 * event fed to the machine.
	 */
	const char *name;
	int64_t vtid;      /* the thread's id in it, -1 when unknown */
};

struct vm_machine_ns;

struct vm_machine_ns *vm_machine_ns_create(void);
void vm_machine_ns_destroy(struct vm_machine_ns *m);

/* Any event of the machine (those it has nothing to learn from included). */
void vm_machine_ns_feed(struct vm_machine_ns *m, const struct vm_event *ev);

/*
 * The container of `tid`: false when the thread is in none (its machine's
 * initial namespace, or nothing known).
 */
bool vm_machine_ns_lookup(struct vm_machine_ns *m, int64_t tid,
		struct vm_container_ref *out);

/* Whether any thread of the machine was seen in a container. */
bool vm_machine_ns_any(const struct vm_machine_ns *m);

#endif /* VM_CONTAINERS_MACHINE_NS_H */
