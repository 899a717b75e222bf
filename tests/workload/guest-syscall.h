/* System calls of running guest threads (--guest-activity=rich): a thread
 * makes a short syscall (entry, then exit a few us later) every few us to
 * ms of its CPU time, and sleeps inside a blocking one (entry before the
 * sched_switch that blocks it, exit once it runs again). A syscall does not
 * change which thread runs. */
#ifndef VM_WORKLOAD_GUEST_SYSCALL_H
#define VM_WORKLOAD_GUEST_SYSCALL_H

#include "model.h"

/* Event declarations the guest stubs need (NULL-terminated). */
extern const char *const wl_syscall_event_defs[];

/* THREAD became current on VCPU: when its next syscall event is due. */
void wl_syscall_switched_in(wl_sim *sim, wl_vcpu *vcpu, wl_guest_thread *thread);
/* The current thread's next syscall entry or exit (in guest mode). */
void wl_syscall_step(wl_sim *sim, wl_vcpu *vcpu);
/* The current thread is about to sleep: it does so in a blocking syscall. */
void wl_syscall_block(wl_sim *sim, wl_vcpu *vcpu);

#endif
