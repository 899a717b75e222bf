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

/* sched_switch on a stub, from the two threads' names. */
bool wl_emit_host_switch(wl_sim *sim, int cpu, const wl_host_thread *prev, int64_t prev_state,
			 const wl_host_thread *next);
bool wl_emit_guest_switch(wl_sim *sim, wl_vcpu *vcpu, const wl_guest_thread *prev,
			  int64_t prev_state, const wl_guest_thread *next);

#endif
