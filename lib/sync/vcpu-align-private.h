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
	/* The candidate of the last interval added: intervals come in runs. */
	struct vm_vcpu_candidate *last_candidate;
	/* GUINT_TO_POINTER(guest + 1) -> struct vm_vcpu_guest * (owned) */
	GHashTable *guests;
	/*
	 * The event array of the last (guest, CPU) added to: called for every
	 * guest event of the sync pass, mostly for the same CPU as the last.
	 */
	struct vm_vcpu_guest *last_guest_data;
	GArray *last_events;
	unsigned int last_guest;
	uint64_t last_cpu;
	/* guest index (GUINT_TO_POINTER(+1)) -> GArray of struct
	 * vm_vcpu_constraint: what its last OK fit rests on (for feed). */
	GHashTable *constraints;
};

/* The intervals of vCPU `vcpu` of `candidate`, sorted, or NULL. */
const GArray *vm_vcpu_candidate_intervals(struct vm_vcpu_candidate *candidate,
		uint64_t vcpu);

/* The event times of `cpu` of `guest`, sorted, or NULL. */
const GArray *vm_vcpu_guest_events(struct vm_vcpu_guest *guest, uint64_t cpu);

/* The guest of index `guest`, or NULL. */
struct vm_vcpu_guest *vm_vcpu_align_guest(const struct vm_vcpu_align *align,
		unsigned int guest);

/* One one-way constraint behind a fit, as a matched message. */
struct vm_vcpu_constraint {
	bool host_to_guest;   /* an entry (send, host) and a guest event (receipt) */
	int64_t send;
	int64_t recv;
};

/*
 * One host process against one guest: the vCPUs and CPUs they share, the
 * host's out-of-guest-mode intervals (vcpu-coarse.c uses them to find the
 * offset), and what the fit (vcpu-fit.c) finds.
 */
struct vm_vcpu_pairing {
	struct vm_vcpu_candidate *candidate;
	struct vm_vcpu_guest *guest;
	/* guint64 CPU numbers both have, ascending */
	GArray *cpus;
	/* Per entry of `cpus`: the guest's event times and the vCPU's intervals. */
	GPtrArray *events;      /* const GArray * of int64_t */
	GPtrArray *intervals;   /* const GArray * of struct vm_guest_mode */
	uint64_t event_count;   /* on the shared CPUs */
	uint64_t unshared;      /* guest events on CPUs the process has no vCPU for */
	GArray *outs;           /* struct vm_out_of_guest by exit time, or NULL */
	GArray *outs_by_length; /* guint indexes into `outs`, longest first */
};

/* A time out of guest mode of one shared CPU: from an exit to the next entry. */
struct vm_out_of_guest {
	int64_t exit;
	int64_t entry;
	guint cpu_index;        /* into the pairing's `cpus` */
};

enum vm_coarse_status {
	VM_COARSE_FOUND,        /* one offset fits where it was looked for */
	VM_COARSE_NONE,         /* no offset fits */
	VM_COARSE_MANY,         /* offsets far apart fit as well */
	VM_COARSE_TOO_LITTLE,   /* nothing distinctive to align on */
};

/*
 * Where the search for the offset (host = guest + offset, slope 1 near the
 * anchor) stands after trying one anchor: the long time out of guest mode
 * it started from, and the offsets left.
 */
struct vm_coarse_offset {
	enum vm_coarse_status status;
	int64_t offset_low;
	int64_t offset_high;
	int64_t anchor;         /* host time the offset holds near */
	int64_t window;         /* half width of the host time it was checked on */
};

/*
 * Tries the `attempt`th anchor (0, 1, ...) of `pairing`; false when there
 * is no such anchor.
 */
bool vm_vcpu_coarse_offset(struct vm_vcpu_pairing *pairing, guint attempt,
		struct vm_coarse_offset *out);

/* The out-of-guest-mode intervals of a pairing, by exit time (cached). */
const GArray *vm_vcpu_pairing_outs(struct vm_vcpu_pairing *pairing);

void vm_vcpu_pairing_init(struct vm_vcpu_pairing *pairing,
		struct vm_vcpu_candidate *candidate, struct vm_vcpu_guest *guest);
void vm_vcpu_pairing_fini(struct vm_vcpu_pairing *pairing);

/* Orders guint64 values (for g_array_sort). */
gint vm_vcpu_compare_u64(gconstpointer a, gconstpointer b);

/* First index of `times` (sorted int64_t) whose value is >= `value`. */
guint vm_vcpu_lower_bound(const GArray *times, int64_t value);

#endif /* VM_SYNC_VCPU_ALIGN_PRIVATE_H */
