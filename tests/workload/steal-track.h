/* The raw material of truth/steal.csv, recorded as the simulation goes:
 * which host thread each host CPU runs from when, and, per vCPU, on which
 * host CPU its thread waited while preempted and which guest thread was
 * current on it meanwhile (steal-truth.h turns them into rows). */
#ifndef VM_WORKLOAD_STEAL_TRACK_H
#define VM_WORKLOAD_STEAL_TRACK_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct wl_host_thread;
struct wl_guest_thread;

/* From begin_ns on, THREAD is current on the CPU (until the next entry). */
typedef struct wl_cpu_current {
	uint64_t begin_ns;
	const struct wl_host_thread *thread;
	/* The sched_switch that made it current was written (not lost); false
	 * for the CPU's thread at the start of the run. */
	bool recorded;
} wl_cpu_current;

/* [begin_ns, end_ns): the vCPU was preempted, its thread waiting on host
 * CPU pcpu, VICTIM (NULL: the guest's idle task) current on it. */
typedef struct wl_steal_wait {
	uint64_t begin_ns, end_ns;
	const struct wl_guest_thread *victim;
	int pcpu;
} wl_steal_wait;

typedef struct wl_steal_track {
	GArray *waits; /* of wl_steal_wait, in time order */
	wl_steal_wait open;
	bool is_open;
	/* With --loss-rate: true times of its thread's migrations whose
	 * sched_migrate_task was lost (uint64_t). */
	GArray *lost_migrations;
} wl_steal_track;

#endif
