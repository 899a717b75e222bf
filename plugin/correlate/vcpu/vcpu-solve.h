#ifndef VM_CORRELATE_VCPU_SOLVE_H
#define VM_CORRELATE_VCPU_SOLVE_H

/*
 * The end of the sync pass for `sync="vcpu"`: the fit of every guest from
 * what vcpu-collect.c gathered (lib/sync/vcpu-align.h), its constraints
 * solved against the reference like vmsync's messages, and the warnings
 * that say why a guest could not be aligned.
 */

#include "sync/sync.h"
#include "sync/vcpu-align.h"

#include <stdbool.h>

struct correlate_iter;
struct machine;

struct vcpu_solution {
	/* Per sync index: the map to the reference (parent -1: none). */
	struct vm_sync_result *results;
	/* What `results` come from, owning their piecewise maps (or NULL). */
	struct vm_sync *sync;
	/* Per machine index: the fit of the machine as a guest. */
	struct vm_vcpu_fit *fits;
	unsigned int fit_count;
};

/* Fits and solves; empty (no fit, no path) when vcpu is not in use. */
void correlate_vcpu_solve(struct correlate_iter *iter, const struct machine *reference,
		struct vcpu_solution *solution);
void correlate_vcpu_solution_fini(struct vcpu_solution *solution);

/* Whether `machine` has a map to the reference by vcpu. */
bool correlate_vcpu_has_path(const struct correlate_iter *iter,
		const struct vcpu_solution *solution, const struct machine *machine);

/*
 * When vcpu was tried for `machine` and failed: why, with what would help
 * (g_free it); NULL otherwise. The guest's quality becomes `fail` when
 * another alignment or process fits as well (else it stays `absent`).
 */
char *correlate_vcpu_failure(struct correlate_iter *iter,
		const struct vcpu_solution *solution, struct machine *machine);

/*
 * Identity apart from time: each guest whose fit in `fits` (by machine
 * index, `count` of them) is OK, and so names its QEMU process without
 * doubt, gets that process as `host_pid` (written as `vm_host_pid`),
 * whatever method sets its clock; a process that another guest has
 * already is not given twice. A guest whose fit is ambiguous or taken
 * loses the one a fit on less of the trace gave it (read once). Guests
 * followed by the vCPU method keep theirs.
 */
void correlate_vcpu_note_identities(struct correlate_iter *iter,
		const struct vm_vcpu_fit *fits, unsigned int count);

/*
 * Why `fit` (not OK) of guest `machine` failed, with what would help, for
 * the no-sync warning (g_free it); naming the losses when the host or the
 * guest lost events (vcpu-losses.h).
 */
char *correlate_vcpu_fit_failure(struct correlate_iter *iter,
		const struct vm_vcpu_fit *fit, struct machine *machine);

#endif /* VM_CORRELATE_VCPU_SOLVE_H */
