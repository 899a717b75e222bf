/* Containers in the guests (--containers, --container-depth): PID
 * namespaces, each with an init process (vpid 1) whose comm names it.
 * Container C of a guest is a chain of --container-depth nested
 * namespaces; the guest's threads are dealt round-robin to the containers
 * and to no container, a container's first threads being the inits of its
 * levels, outermost first. Forks inherit their parent's namespace. Without
 * --containers every thread is in the guest's initial namespace and the
 * stubs are what they were before the option existed. */
#ifndef VM_WORKLOAD_CONTAINERS_H
#define VM_WORKLOAD_CONTAINERS_H

#include "model.h"

/* The initial PID namespace's inode number (PROC_PID_INIT_INO). */
#define INIT_PID_NS_INUM 4026531836u

typedef struct wl_pidns {
	int level; /* 1 = a child of the guest's initial namespace */
	uint32_t inum;
	struct wl_pidns *parent; /* NULL at level 1 */
	int next_vpid;
	wl_guest_thread *init; /* its vpid 1 */
	/* The trace shows the init (its statedump entries were recorded):
	 * the container is named by the init's comm, else by the inode. */
	bool init_shown;
} wl_pidns;

extern const char *const wl_containers_fork_def[];

/* Puts the guest's initial threads in their namespaces (before placing). */
void wl_containers_setup(wl_sim *sim, wl_guest *guest);
/* A forked CHILD joins PARENT's namespace, with an id in each level. */
void wl_containers_fork(const wl_guest_thread *parent, wl_guest_thread *child);
/* The inode of the thread's innermost namespace (NULL: the idle task). */
uint32_t wl_containers_inum(const wl_guest_thread *thread);
/* The thread's pid (= tid) and ppid seen from level LEVEL (0 = the guest). */
int wl_containers_vtid(const wl_guest_thread *thread, int level);
int wl_containers_vppid(const wl_guest *guest, const wl_guest_thread *thread, int level);
/* The namespace of THREAD at LEVEL (1 .. its level). */
const wl_pidns *wl_containers_ns_at(const wl_guest_thread *thread, int level);
/* "tid,v1,...,vL" of the fork event's vtids sequence, in BUF. */
void wl_containers_vtids(const wl_guest_thread *thread, char *buf, size_t size);
/* truth/containers.csv */
#define CONTAINERS_CSV_HEADER "machine,tid,container,ns_inum,vtid,ns_level,shown"
void wl_containers_body(wl_sim *sim, FILE *file);

#endif
