/* Interrupts a guest handles (--guest-activity=rich): device interrupts
 * injected after EXTERNAL_INTERRUPT exits, the periodic tick, the hrtimers
 * of sleeping threads, and the reschedule IPIs a wake-up sends to another
 * vCPU. An interrupt is injected at any time; its handler only runs in
 * guest mode, a few hundred ns after the kvm_entry (or after a posted IPI),
 * and writes its events a step at a time, in guest CPU time. While one is
 * pending or running, the interrupted thread does nothing else: the handler
 * does not change which thread runs. */
#ifndef VM_WORKLOAD_GUEST_IRQ_H
#define VM_WORKLOAD_GUEST_IRQ_H

#include "model.h"

typedef enum { GIRQ_DEVICE, GIRQ_TICK, GIRQ_THREAD_TIMER, GIRQ_RESCHED } wl_girq_kind;

typedef struct wl_girq {
	wl_girq_kind kind;
	wl_guest_thread *thread; /* GIRQ_THREAD_TIMER: the thread to wake */
	int step; /* next step of the handler */
	int irq; /* GIRQ_DEVICE: line, and softirq vector or -1 */
	int softirq;
	uint64_t hrtimer;
} wl_girq;

/* Event declarations the guest stubs need (NULL-terminated). */
extern const char *const wl_girq_event_defs[];

/* Whether the vCPU has an interrupt to handle or is handling one. */
bool wl_girq_busy(const wl_vcpu *vcpu);
/* A kvm_exit of REASON happened; PICKED: a reason the guest caused by
 * itself (not a forced or rescheduling exit). May inject a device IRQ. */
void wl_girq_after_exit(wl_sim *sim, wl_vcpu *vcpu, uint32_t reason, bool picked);
/* A device interrupt for VCPU (work for a halted guest): wakes it. */
void wl_girq_device(wl_sim *sim, wl_vcpu *vcpu);
/* The vCPU entered guest mode; WAS_HALTED: after a HLT sleep. */
void wl_girq_entered(wl_sim *sim, wl_vcpu *vcpu, bool was_halted);
void wl_girq_exited(wl_sim *sim, wl_vcpu *vcpu);
/* The next handler step (in guest mode, wl_girq_busy). */
void wl_girq_step(wl_sim *sim, wl_vcpu *vcpu);
/* The vCPU's periodic tick is due (any mode). */
void wl_girq_tick(wl_sim *sim, wl_vcpu *vcpu);
/* A sleeping thread's hrtimer expired: fires on its last vCPU. */
void wl_girq_thread_timer(wl_sim *sim, wl_guest *guest, wl_guest_thread *thread);
/* EMITTER woke a thread onto TARGET's queue: an IPI unless it is itself. */
void wl_girq_wake_ipi(wl_sim *sim, wl_vcpu *emitter, wl_vcpu *target);
void wl_girq_free(gpointer girq);

#endif
