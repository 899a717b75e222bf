/* KVM's events as the chosen tracer writes them (--kvm-layout, --isa):
 * lttng-modules >= 2.13 on Linux >= 5.10 gives kvm_x86_exit the vCPU number
 * (and intr_info, error_code), while kvm_x86_entry, still declared with a
 * u32 vcpu_id, records the low half of the kernel's struct kvm_vcpu
 * pointer, which Linux >= 5.10 passes there; the classic layout has the
 * vCPU number in the entry and no vcpu_id in the exit. See
 * doc/workload-generator.md, "KVM and statedump layouts". */
#ifndef VM_WORKLOAD_KVM_LAYOUT_H
#define VM_WORKLOAD_KVM_LAYOUT_H

#include "model.h"

/* The stub header of every machine: tracer version (0 0: none written)
 * and the event declarations of the layouts. */
void wl_layout_header(const wl_options *opt, wl_stub_header *header);
/* Gives each vCPU (and each guest's nested vCPU, --guest-kvm-entries) its
 * struct kvm_vcpu address, from a random generator of their own, so that
 * the layout changes no other random choice. Call once every guest is set
 * up. */
void wl_kvm_layout_setup(wl_sim *sim);

/* The events themselves; each returns whether it was recorded (loss.h).
 * REASON is the simulation's (VMX) reason, written per --isa. */
bool wl_emit_kvm_exit(wl_sim *sim, int cpu, const wl_vcpu *vcpu, uint32_t reason,
		      uint64_t guest_rip, unsigned info1);
bool wl_emit_kvm_entry(wl_sim *sim, int cpu, const wl_vcpu *vcpu);
/* The guest's own KVM entry of its nested VM's vCPU 0, on VCPU's CPU. */
bool wl_emit_nested_kvm_entry(wl_sim *sim, wl_vcpu *vcpu);

#endif
