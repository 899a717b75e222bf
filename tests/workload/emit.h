/* Writing events: each gets the next true time (wl_sim_stamp), converted
 * to the clock of the machine that records it. Guest events can only be
 * written while their vCPU is in guest mode. */
#ifndef VM_WORKLOAD_EMIT_H
#define VM_WORKLOAD_EMIT_H

#include "model.h"

/* Returns the true time of a new event and moves the clock past it. */
uint64_t wl_sim_stamp(wl_sim *sim);
/* Each returns whether the event was recorded (not lost: loss.h). */
bool wl_host_emit(wl_sim *sim, int cpu, const char *name, const char *fields_format, ...)
	G_GNUC_PRINTF(4, 5);
bool wl_guest_emit(wl_sim *sim, wl_vcpu *vcpu, const char *name, const char *fields_format, ...)
	G_GNUC_PRINTF(4, 5);

/* An event 1 ns after the last one (wl_sim_stamp), on the same machine,
 * that takes no time step of its own: the next event still comes at least
 * EVENT_GAP_NS after the last one, so adding such events (the 2.12
 * statedump's namespace events) moves no other event and changes no truth.
 * It is not counted by --events. On a slow guest clock it may read the
 * same nanosecond as a neighbour (never out of order). A loss gap that
 * begins after the last event does not start before it (loss.h). */
bool wl_host_emit_next(wl_sim *sim, int cpu, const char *name, const char *fields_format, ...)
	G_GNUC_PRINTF(4, 5);
bool wl_guest_emit_next(wl_sim *sim, wl_vcpu *vcpu, const char *name,
			const char *fields_format, ...) G_GNUC_PRINTF(4, 5);

/* sched_switch on a stub, from the two threads' names. */
bool wl_emit_host_switch(wl_sim *sim, int cpu, const wl_host_thread *prev, int64_t prev_state,
			 const wl_host_thread *next);
bool wl_emit_guest_switch(wl_sim *sim, wl_vcpu *vcpu, const wl_guest_thread *prev,
			  int64_t prev_state, const wl_guest_thread *next);

#endif
