#ifndef VM_CORRELATE_VCPU_ONEPASS_H
#define VM_CORRELATE_VCPU_ONEPASS_H

/*
 * The vCPU method read once (onepass.c; SPEC "Long traces"): a guest that
 * no vmsync message pairs with the host is aligned on what was read so far
 * (lib/sync/vcpu-align.h), tried again on more while it does not fit, and
 * once it fits, followed (lib/sync/vcpu-follow.h): its constraints go to a
 * one-pass map of its own, as vmsync's matches go to theirs.
 *
 * The host's guest-mode intervals come from vcpu-collect.c's collector:
 * those of a followed guest's QEMU go to its follower, the others to the
 * alignment, for the guests still to align.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sync/vcpu-align.h"

struct correlate_iter;
struct machine;

/*
 * Whether the vCPU method may synchronize `machine` read once: the
 * parameters allow it, the host is the reference, traced its vCPUs, and
 * the machine is a guest with events on CPUs that vmsync does not reach.
 */
bool correlate_vcpu_onepass_possible(struct correlate_iter *iter, struct machine *machine);

/*
 * Aligns `machine` on what was read up to `frontier` (INT64_MAX: all): on
 * success, the machine is followed (its info's vcpu_follow and
 * vcpu_online, host_pid). `*fit` tells how it went.
 */
bool correlate_vcpu_onepass_try(struct correlate_iter *iter, struct machine *machine,
		int64_t frontier, struct vm_vcpu_fit *fit);

/*
 * The inputs were read up to `frontier` (every upstream, own clocks):
 * new intervals to where they go, and every follower attributes what it can.
 */
void correlate_vcpu_onepass_step(struct correlate_iter *iter, int64_t frontier);

/* The end of the input: the followers attribute what is left. */
void correlate_vcpu_onepass_finish(struct correlate_iter *iter);

/* Forgets the followers and their maps. */
void correlate_vcpu_onepass_reset(struct correlate_iter *iter);

/* Why the alignment of `machine` failed, with what would help (g_free it). */
char *correlate_vcpu_onepass_failure(struct correlate_iter *iter, struct machine *machine,
		const struct vm_vcpu_fit *fit);

#endif /* VM_CORRELATE_VCPU_ONEPASS_H */
