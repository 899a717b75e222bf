/* vmsync exchanges between a guest and the host, in the order of the
 * lttng-modules addons (DESIGN-NOTES.md): vmsync_gh_guest(c) in guest mode,
 * a VMCALL exit, vmsync_gh_host(c) on the vCPU thread, vmsync_hg_host(c+1)
 * right before the next kvm_entry, vmsync_hg_guest(c+1) after it; each
 * message at least the minimum latency after the one it answers. */
#ifndef VM_WORKLOAD_VMSYNC_H
#define VM_WORKLOAD_VMSYNC_H

#include "model.h"

void wl_vmsync_init(wl_sim *sim);
/* The next exchange request of any guest (NEVER: none), and that guest. */
uint64_t wl_vmsync_next_ns(wl_sim *sim, wl_guest **guest);
/* The guest's period elapsed: queue an exchange for its next guest mode. */
void wl_vmsync_due(wl_sim *sim, wl_guest *guest);
/* Whether the vCPU is free for a new exchange. */
bool wl_vmsync_idle(const wl_vcpu *vcpu);

/* The steps, each on the vCPU of the exchange. */
void wl_vmsync_send_request(wl_sim *sim, wl_vcpu *vcpu);
void wl_vmsync_vmcall_exit(wl_sim *sim, wl_vcpu *vcpu);
void wl_vmsync_receive_request(wl_sim *sim, wl_vcpu *vcpu, int cpu);
void wl_vmsync_send_reply(wl_sim *sim, wl_vcpu *vcpu, int cpu);
void wl_vmsync_receive_reply(wl_sim *sim, wl_vcpu *vcpu);

#endif
