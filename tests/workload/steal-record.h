/* Recording, as the simulation goes, what truth/steal.csv is made of
 * (steal-track.h): called right after the events that change it, with
 * their true time (sim->last_event_ns). */
#ifndef VM_WORKLOAD_STEAL_RECORD_H
#define VM_WORKLOAD_STEAL_RECORD_H

#include "model.h"

void wl_steal_track_init(wl_steal_track *track);
void wl_steal_track_clear(wl_steal_track *track);

/* Each host CPU's current thread at the start of the run (after the
 * threads are placed). */
void wl_steal_start(wl_sim *sim);
/* The CPU's sched_switch just made cpu->current current (RECORDED: the
 * event was written). */
void wl_steal_cpu_switched(wl_sim *sim, wl_host_cpu *cpu, bool recorded);
/* The vCPU's mode, its thread's CPU or its current guest thread may have
 * changed (a no-op when nothing steal.csv shows did). */
void wl_steal_vcpu_update(wl_sim *sim, wl_vcpu *vcpu);
/* THREAD was just moved to another host CPU's run queue by a
 * sched_migrate_task (RECORDED: the event was written). */
void wl_steal_migrated(wl_sim *sim, wl_host_thread *thread, bool recorded);
/* Ends the open waits at END, the last event of the run. */
void wl_steal_finish(wl_sim *sim, uint64_t end);

#endif
