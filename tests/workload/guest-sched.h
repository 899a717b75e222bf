/* A guest's own scheduler. It only acts, and only writes events, while a
 * vCPU is in guest mode; a thread current on a vCPU stays current while the
 * vCPU is out of guest mode, since the guest cannot tell. */
#ifndef VM_WORKLOAD_GUEST_SCHED_H
#define VM_WORKLOAD_GUEST_SCHED_H

#include "model.h"

/* When the guest side of a vCPU in guest mode acts next (NEVER: not). */
uint64_t wl_guest_next_ns(wl_sim *sim, wl_vcpu *vcpu);
void wl_guest_step(wl_sim *sim, wl_vcpu *vcpu);
/* EMITTER (in guest mode) wakes THREAD onto a free vCPU (rich: with a
 * reschedule IPI when that is another vCPU). */
void wl_guest_wake(wl_sim *sim, wl_vcpu *emitter, wl_guest_thread *thread);
/* A blocked guest thread's timer expired. */
void wl_guest_timer(wl_sim *sim, wl_guest *guest, wl_guest_thread *thread);
/* Guest CPU time only passes in guest mode. */
void wl_guest_entered(wl_sim *sim, wl_vcpu *vcpu);
void wl_guest_exited(wl_sim *sim, wl_vcpu *vcpu);
/* Whether the guest would run on this vCPU rather than halt it. */
bool wl_guest_needs_vcpu(const wl_vcpu *vcpu);
/* A fresh CPU burst for a thread (or the idle loop, thread NULL). */
uint64_t wl_guest_burst_ns(wl_sim *sim, const wl_guest_thread *thread);

#endif
