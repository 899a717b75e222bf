#ifndef VM_SYNC_VCPU_FOLLOW_H
#define VM_SYNC_VCPU_FOLLOW_H

/*
 * The synchronization from stock KVM events read once (SPEC "Long
 * traces": no sync pass). vm_vcpu_align_solve() finds a guest's QEMU and
 * map on what was read so far; from there on, the guest is followed: its
 * events and the guest-mode intervals of that process's vCPUs come as the
 * inputs are read, and each stretch of host time is attributed as the
 * sync pass's walk does it (vcpu-walk.c), under the line of the constraints
 * since the clock last changed rate, with a tolerance that covers how
 * loosely they bound it. The constraints go, in host time order, to the
 * pair's one-pass map (sync/online.h), host as its ref side.
 *
 * Memory: the events and intervals of the stretch being attributed and of
 * what was read ahead of it, not the trace.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/online.h"
#include "sync/vcpu-align.h"

struct vm_vcpu_follow;

/*
 * Follows `guest` after `fit` (VM_VCPU_FIT_OK) of `align`: feeds the fit's
 * constraints to `online`, and keeps, of what `align` collected, the
 * guest's events and its process's intervals that the constraints do not
 * cover yet (the rest of the guest's data can then be forgotten).
 */
struct vm_vcpu_follow *vm_vcpu_follow_create(const struct vm_vcpu_align *align,
		unsigned int guest, const struct vm_vcpu_fit *fit, struct vm_sync_online *online);
void vm_vcpu_follow_destroy(struct vm_vcpu_follow *follow);

/* An interval of vCPU `vcpu` of the followed process (any order within a call's batch). */
void vm_vcpu_follow_add_guest_mode(struct vm_vcpu_follow *follow, uint64_t vcpu,
		int64_t entry_ns, int64_t exit_ns);

/*
 * The host lost events from `begin` to `end` (as vm_vcpu_align_add_host_gap()):
 * to be given before host_known of vm_vcpu_follow_advance() passes `begin`.
 */
void vm_vcpu_follow_add_host_gap(struct vm_vcpu_follow *follow, int64_t begin, int64_t end);

/* An event of the guest on its CPU `cpu`, in time order per CPU. */
void vm_vcpu_follow_add_guest_event(struct vm_vcpu_follow *follow, uint64_t cpu, int64_t ts);

/*
 * Attributes every stretch that what was added allows: the host's
 * intervals are all known up to host time `host_known`, the guest's events
 * up to guest time `guest_known`. Feeds the constraints found to `online`.
 */
void vm_vcpu_follow_advance(struct vm_vcpu_follow *follow, int64_t host_known,
		int64_t guest_known, struct vm_sync_online *online);

/* The end of the input: what is left is attributed, and fed. */
void vm_vcpu_follow_finish(struct vm_vcpu_follow *follow, struct vm_sync_online *online);

/* Constraints fed so far, the fit's included. */
uint64_t vm_vcpu_follow_constraints(const struct vm_vcpu_follow *follow);

#endif /* VM_SYNC_VCPU_FOLLOW_H */
