/* --migrate-rate: the host's load balancer now and then moves a waiting
 * (runnable, not running) host thread, vCPU threads included, to another
 * CPU's run queue, and the tracer writes sched_migrate_task. */
#ifndef VM_WORKLOAD_HOST_MIGRATE_H
#define VM_WORKLOAD_HOST_MIGRATE_H

#include "model.h"

/* The sched_migrate_task payload of lttng-modules (for the stub header). */
extern const char *const wl_migrate_event_defs[];

/* Seeds the migrations' own generator and draws the first one (none, and
 * no draw, when the rate is 0). */
void wl_migrate_init(wl_sim *sim);
/* Moves one waiting thread, if any, and draws the next migration's time. */
void wl_migrate_step(wl_sim *sim);

#endif
