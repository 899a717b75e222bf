#ifndef VM_SYNC_VCPU_ALIGN_PRIVATE_H
#define VM_SYNC_VCPU_ALIGN_PRIVATE_H

/*
 * What the vCPU alignment collects (vcpu-align.c) and what its fit
 * (vcpu-fit.c) reads.
 */

#include <glib.h>

#include "sync/vcpu-align.h"

/* One guest-mode interval of a vCPU, host clock. */
struct vm_guest_mode {
	int64_t entry;
	int64_t exit;
};

/* The vCPU threads of one host process: a candidate QEMU. */
struct vm_vcpu_candidate {
	unsigned int host;
	int64_t pid;          /* the process, or the thread when unknown */
	/* vCPU number (guint64 *, owned) -> GArray of struct vm_guest_mode */
	GHashTable *vcpus;
	bool sorted;
};

/* The events of one guest. */
struct vm_vcpu_guest {
	/* CPU number (guint64 *, owned) -> GArray of int64_t, guest clock */
	GHashTable *cpus;
	bool sorted;
};

struct vm_vcpu_align {
	/* struct vm_vcpu_candidate *, owned, in order of first sight */
	GPtrArray *candidates;
	/* "host/pid" key (char *) -> struct vm_vcpu_candidate * */
	GHashTable *candidate_by_key;
	/* GUINT_TO_POINTER(guest + 1) -> struct vm_vcpu_guest * (owned) */
	GHashTable *guests;
	/* Fit results of the last solve, by guest index (for feed). */
	GArray *last_fits;
};

/* The intervals of vCPU `vcpu` of `candidate`, sorted, or NULL. */
const GArray *vm_vcpu_candidate_intervals(struct vm_vcpu_candidate *candidate,
		uint64_t vcpu);

/* The event times of `cpu` of `guest`, sorted, or NULL. */
const GArray *vm_vcpu_guest_events(struct vm_vcpu_guest *guest, uint64_t cpu);

/* The guest of index `guest`, or NULL. */
struct vm_vcpu_guest *vm_vcpu_align_guest(const struct vm_vcpu_align *align,
		unsigned int guest);

#endif /* VM_SYNC_VCPU_ALIGN_PRIVATE_H */
