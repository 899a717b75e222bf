#ifndef VM_SYNC_VCPU_ALIGN_H
#define VM_SYNC_VCPU_ALIGN_H

/*
 * Synchronization from stock KVM events (SPEC, "Synchronization from stock
 * KVM events"): every event a guest records on its CPU n happened while
 * vCPU n of that guest was in guest mode on the host, between a kvm_entry
 * of the vCPU's host thread and its next kvm_exit.
 *
 * The caller collects, from the host, the guest-mode intervals of every
 * vCPU thread (with the host process they belong to) and, from each guest,
 * the times of its events per CPU. vm_vcpu_align_solve() then finds, for
 * one guest, the host process whose vCPUs fit its activity (its QEMU) and
 * the map of its clock onto the host's, without assuming that the two
 * clocks are anywhere near each other, and checks it. The constraints the
 * map rests on can be fed to a struct vm_sync (vm_vcpu_align_feed()), where
 * they count as matched one-way messages, like vmsync's.
 *
 * Times are ns from origin of each machine's own clock. Machines are the
 * caller's indexes (any unsigned int).
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/quality.h"
#include "sync/formula.h"
#include "sync/sync.h"

struct vm_vcpu_align;

struct vm_vcpu_align *vm_vcpu_align_create(void);
void vm_vcpu_align_destroy(struct vm_vcpu_align *align);

/*
 * Lets fits be piecewise-linear (SPEC "Long traces"): a guest whose clock
 * one line does not follow (NTP slews it) gets, when almost every one of
 * its events falls in guest mode under it, the continuous map of windows
 * of its constraints that one line fits each (sync/segments.h), which a
 * struct vm_sync with vm_sync_keep_piecewise() fed them builds again. A
 * guest that one line fits keeps it. Call before vm_vcpu_align_solve().
 */
void vm_vcpu_align_keep_piecewise(struct vm_vcpu_align *align);

/*
 * Host side: vCPU `vcpu` (the `vcpu_id` of the entry event) of host process
 * `pid` (the thread group of the vCPU thread, -1 when unknown; the thread
 * `tid` then stands for it) of machine `host` was in guest mode from
 * `entry_ns` (its kvm_entry) to `exit_ns` (its next kvm_exit), host clock.
 * Intervals may come in any order; ones with exit_ns < entry_ns are ignored.
 */
void vm_vcpu_align_add_guest_mode(struct vm_vcpu_align *align, unsigned int host,
		int64_t pid, int64_t tid, uint64_t vcpu, int64_t entry_ns, int64_t exit_ns);

/*
 * Host `host` lost events (SPEC "Lost events"): from `begin` to `end`, host
 * clock, the guest-mode intervals of its vCPUs are not all known (the caller
 * gives none that such a loss may have cut). Every vCPU of the host may
 * have been in guest mode there unseen, so that time is left out of the
 * fit: no guest event mapped there counts as outside guest mode nor bounds
 * the map, and no time out of guest mode that meets it is taken as one.
 * Any order; windows may overlap.
 */
void vm_vcpu_align_add_host_gap(struct vm_vcpu_align *align, unsigned int host,
		int64_t begin, int64_t end);

/*
 * Guest side: machine `guest` recorded an event on its CPU `cpu` (the
 * stream's packet context `cpu_id`) at `ts`, guest clock. Any order.
 */
void vm_vcpu_align_add_guest_event(struct vm_vcpu_align *align, unsigned int guest,
		uint64_t cpu, int64_t ts);

/* Whether anything was collected for `guest` as a guest, or any host data. */
bool vm_vcpu_align_has_guest(const struct vm_vcpu_align *align, unsigned int guest);

/* Frees what was added of guest `guest`: another method synchronizes it. */
void vm_vcpu_align_forget_guest(struct vm_vcpu_align *align, unsigned int guest);
bool vm_vcpu_align_has_host(const struct vm_vcpu_align *align);

enum vm_vcpu_fit_status {
	VM_VCPU_FIT_OK,
	VM_VCPU_FIT_NO_HOST,        /* no guest-mode interval at all */
	VM_VCPU_FIT_TOO_LITTLE,     /* too few guest events or intervals to tell */
	VM_VCPU_FIT_NO_MATCH,       /* no host process's vCPUs fit the guest */
	VM_VCPU_FIT_AMBIGUOUS,      /* two alignments (or processes) fit as well */
	VM_VCPU_FIT_TAKEN,          /* its process fits another guest better */
	VM_VCPU_FIT_LOOSE,          /* one process fits, but its events bound the clock loosely */
};

struct vm_vcpu_fit {
	enum vm_vcpu_fit_status status;
	unsigned int host;                /* OK, AMBIGUOUS, TAKEN: the host machine */
	int64_t host_pid;                 /* OK, AMBIGUOUS, TAKEN: its process */
	int64_t other_pid;                /* AMBIGUOUS: the rival process (may be host_pid) */
	/* OK: guest clock -> host clock (piecewise: its first segment) */
	struct vm_sync_formula formula;
	/* OK: of the hull of its constraints (piecewise: of its first window) */
	enum vm_sync_quality quality;
	long double accuracy;             /* OK: of that hull (piecewise: the widest) */
	uint64_t constraints;             /* OK: the one-way constraints used */
	unsigned int segments;            /* OK: of the map, 1 for one line */
	uint64_t events;                  /* guest events checked (within the host's record) */
	uint64_t outside;                 /* of those, outside guest mode under the map */
	/*
	 * OK, LOOSE: what the map may be off by, from its constraints alone
	 * (median and largest over the guest's span; 0 for a piecewise map
	 * of several windows, not bounded that way yet). LOOSE: more than
	 * VM_VCPU_BOUND_MEDIAN_NS or VM_VCPU_BOUND_LARGEST_NS.
	 */
	int64_t bound_median_ns;
	int64_t bound_largest_ns;
};

/* The accuracy the method promises (SPEC, issue 29): beyond it, no map. */
#define VM_VCPU_BOUND_MEDIAN_NS 1000
#define VM_VCPU_BOUND_LARGEST_NS 5000

/*
 * Aligns every guest collected so far, each with the host process that
 * fits it, one process per guest. Call once all data is in; `fits` has one
 * entry per guest index up to `guest_count` (indexes never added get
 * VM_VCPU_FIT_TOO_LITTLE).
 */
void vm_vcpu_align_solve(struct vm_vcpu_align *align, unsigned int guest_count,
		struct vm_vcpu_fit *fits);

/*
 * Adds the constraints behind an OK fit of `guest` to `sync`, as matched
 * messages between sync machines `sync_host` and `sync_guest` (an entry is
 * a message host -> guest received at the guest event, the guest event a
 * message guest -> host received at the exit), in host time order: with
 * vm_sync_keep_piecewise() and `sync_host` < `sync_guest`, the pair's
 * piecewise map is then the one the fit was verified with.
 */
void vm_vcpu_align_feed(const struct vm_vcpu_align *align, unsigned int guest,
		const struct vm_vcpu_fit *fit, struct vm_sync *sync,
		unsigned int sync_host, unsigned int sync_guest);

#endif /* VM_SYNC_VCPU_ALIGN_H */
