#ifndef VM_MODEL_KVM_H
#define VM_MODEL_KVM_H

/*
 * The KVM/QEMU model. A vCPU thread is a host thread that emits kvm_entry
 * (kvm_x86_entry since LTTng 2.7); its vcpu_id is the vCPU number. Its VM is
 * found, in this order:
 *  1. the guest whose vm_uid appears in a vmsync_gh_host emitted by that
 *     thread or by another thread of the same process, trusting only the
 *     vm_uids that a guest trace also reports (vmsync_*_guest): the vmsync
 *     hypercall number is also KVM_HC_KICK_CPU, so a stray uid is noise;
 *  2. the `vm-pids` parameter (guest -> QEMU process id);
 *  3. when there is exactly one guest and one QEMU process with vCPU
 *     threads: that guest.
 * The host is the first machine with kvm entry or exit events.
 */

#include "model/model.h"

extern const struct vm_model_class vm_model_kvm;

#endif /* VM_MODEL_KVM_H */
