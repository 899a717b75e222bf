/* A vCPU seen from the host: its QEMU thread alternates guest mode
 * (kvm_entry) and hypervisor mode (kvm_exit), halts, sleeps on QEMU work
 * and is preempted like any host thread. */
#ifndef VM_WORKLOAD_VCPU_H
#define VM_WORKLOAD_VCPU_H

#include "model.h"

uint64_t wl_vcpu_next_ns(wl_sim *sim, wl_vcpu *vcpu, wl_host_cpu *cpu);
void wl_vcpu_step(wl_sim *sim, wl_vcpu *vcpu, wl_host_cpu *cpu);
/* Called by the host scheduler right after the sched_switch. */
void wl_vcpu_switched_in(wl_sim *sim, wl_vcpu *vcpu);
void wl_vcpu_switched_out(wl_sim *sim, wl_vcpu *vcpu, int64_t prev_state);
/* The guest needs this vCPU: wakes its thread if it sleeps after a HLT. */
void wl_vcpu_kick(wl_sim *sim, wl_vcpu *vcpu);

#endif
