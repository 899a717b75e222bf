#ifndef VM_SYNC_VCPU_ALIGN_PRIVATE_H
#define VM_SYNC_VCPU_ALIGN_PRIVATE_H

/*
 * What the vCPU alignment collects (vcpu-align.c) and what its fit
 * (vcpu-fit.c) reads.
 */

#include <glib.h>

#include "loss/windows.h"
#include "sync/hull.h"
#include "sync/prepared.h"
#include "sync/segments.h"
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
	/* Where its host lost events (vm_vcpu_align_add_host_gap()), the align's. */
	struct vm_loss_windows *host_gaps;
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
	/* vm_vcpu_align_keep_piecewise(): fits may be piecewise-linear. */
	bool piecewise;
	/* GUINT_TO_POINTER(host + 1) -> struct vm_loss_windows * (owned) */
	GHashTable *host_gaps;
};

/* The windows in which host `host` lost events (created empty on first use). */
struct vm_loss_windows *vm_vcpu_align_host_gaps(struct vm_vcpu_align *align,
		unsigned int host);

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
 * Attribution tolerance once the map is fitted (what the constraints cannot
 * pin down).
 */
#define VM_VCPU_FITTED_TOLERANCE_NS 1000
/* Constraints a fit (or a window of a piecewise one) needs to be trusted. */
#define VM_VCPU_MIN_CONSTRAINTS 16

/* The host time of a constraint, which orders the hull's points. */
static inline int64_t vm_vcpu_constraint_host_time(const struct vm_vcpu_constraint *constraint)
{
	return constraint->host_to_guest ? constraint->send : constraint->recv;
}

/* One piece of a struct vm_vcpu_map, from guest time `begin` on. */
struct vm_vcpu_piece {
	int64_t begin;                  /* INT64_MIN: the first */
	int64_t host_begin;             /* its image */
	struct vm_sync_prepared prepared;
	struct vm_sync_formula inverse;
};

/*
 * The guest -> host map the fit attributes events under (vcpu-map.c): one
 * line, or the segments of a continuous increasing piecewise map.
 */
struct vm_vcpu_map {
	GArray *pieces;   /* struct vm_vcpu_piece, by begin */
	guint cursor;     /* the piece of the last time mapped */
};

void vm_vcpu_map_init_line(struct vm_vcpu_map *map, const struct vm_sync_formula *formula);
void vm_vcpu_map_init_segments(struct vm_vcpu_map *map,
		const struct vm_sync_segment *segments, unsigned int count);
void vm_vcpu_map_fini(struct vm_vcpu_map *map);
unsigned int vm_vcpu_map_piece_count(const struct vm_vcpu_map *map);

/* Guest time -> host time (quickest for times in order). */
int64_t vm_vcpu_map_apply(struct vm_vcpu_map *map, int64_t t);

/* About the guest time that maps to host time `h` (where a search starts). */
int64_t vm_vcpu_map_invert(const struct vm_vcpu_map *map, int64_t h);

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
	/*
	 * Host time in which the host lost events: the vCPUs' modes are
	 * unknown there (any vCPU thread may have run unseen on the CPU that
	 * lost them), so its times out of guest mode, and the guest events
	 * it holds, tell nothing.
	 */
	const struct vm_loss_windows *host_gaps;
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

/*
 * The constraints (struct vm_vcpu_constraint, in host time order) of the
 * guest events of `pairing` that `map` puts in host window [low, high],
 * each within `tolerance` of exactly one guest-mode interval of its vCPU:
 * each interval is bounded by its first and last attributed event
 * (vcpu-attribute.c).
 */
GArray *vm_vcpu_attribute(const struct vm_vcpu_pairing *pairing, struct vm_vcpu_map *map,
		int64_t tolerance, int64_t low, int64_t high);

/*
 * Guest events of the pairing outside every guest-mode interval under
 * `map` by more than VM_VCPU_FITTED_TOLERANCE_NS, among the `checked` ones
 * (those within the host's record of their vCPU).
 */
uint64_t vm_vcpu_count_outside(const struct vm_vcpu_pairing *pairing,
		struct vm_vcpu_map *map, uint64_t *checked);

/* Adds `constraints` to `hull` (host is its ref side, the guest the other). */
void vm_vcpu_hull_add(struct vm_sync_hull *hull, const GArray *constraints);

/* Sorts constraints by host time. */
void vm_vcpu_sort_constraints(GArray *constraints);

/*
 * The piecewise fit of a pairing from the offset found near an anchor
 * (vcpu-walk.c): constraints gathered outward from the anchor, each
 * stretch of host time attributed under the line of the stretches next to
 * it. On success (false: contradicted or too few), `*constraints` (host
 * order) are those of the whole trace under the map they give, with
 * `fit`'s quality, accuracy and constraint count; the caller verifies the
 * map (vm_vcpu_segments_of()).
 */
bool vm_vcpu_walk(const struct vm_vcpu_pairing *pairing,
		const struct vm_coarse_offset *coarse, struct vm_vcpu_fit *fit,
		GArray **constraints);

/*
 * The piecewise map of `constraints` (host order), as a struct vm_sync
 * fed them by vm_vcpu_align_feed() builds it (host is the ref side).
 */
struct vm_sync_segments *vm_vcpu_segments_of(const GArray *constraints);

/*
 * What the line `formula` (guest -> host) may be off by, in ns, given only
 * `constraints`: over the host times [first, last] (the guest's span),
 * the median and the largest of the distance to the furthest value a line
 * that keeps every constraint takes there (vcpu-bound.c).
 */
void vm_vcpu_error_bound(const GArray *constraints, const struct vm_sync_formula *formula,
		int64_t first, int64_t last, int64_t *median, int64_t *largest);

/* Orders guint64 values (for g_array_sort). */
gint vm_vcpu_compare_u64(gconstpointer a, gconstpointer b);

/* First index of `times` (sorted int64_t) whose value is >= `value`. */
guint vm_vcpu_lower_bound(const GArray *times, int64_t value);

#endif /* VM_SYNC_VCPU_ALIGN_PRIVATE_H */
