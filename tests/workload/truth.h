/* Keeping the ground truth up to date from the simulation's own state:
 * called right after each event that changes a vCPU mode or a guest
 * thread's state, with that event's true time. */
#ifndef VM_WORKLOAD_TRUTH_H
#define VM_WORKLOAD_TRUTH_H

#include "model.h"

/* The vCPU's mode changed (and so the state of its current thread). */
void wl_truth_vcpu_changed(wl_sim *sim, wl_vcpu *vcpu);
/* The thread was switched, woken or created. */
void wl_truth_thread_changed(wl_sim *sim, wl_guest *guest, wl_guest_thread *thread);
/* Records a finished exit (kvm_exit to kvm_entry) of the vCPU. */
void wl_truth_exit_done(wl_vcpu *vcpu, int reason, uint64_t duration_ns);

/* Whether the analysis can tell that the vCPU's thread is one: only a
 * kvm_entry names the vCPU, so a thread that never wrote one in the whole
 * run is no vCPU thread to it, and the vCPU's mode stays unknown. */
bool wl_truth_vcpu_identified(const wl_vcpu *vcpu);
/* The thread's intervals as the analysis sees them: on an unidentified vCPU
 * a thread is running. Free with g_array_unref. */
GArray *wl_truth_thread_intervals(const wl_guest *guest, const wl_guest_thread *thread);

#endif
