#ifndef VM_CORRELATE_VCPU_COLLECT_H
#define VM_CORRELATE_VCPU_COLLECT_H

/*
 * What `sync="vcpu"` needs from the sync pass, gathered into the
 * iterator's `by_vcpu` (lib/sync/vcpu-align.h), machines by their
 * machine-table index:
 * - the host (iter->sync_host): each CPU's current thread (sched_switch),
 *   each thread's process (state dump, fork), and the guest-mode
 *   intervals between a kvm_entry and the next kvm_exit of a CPU;
 * - every other machine: the time and packet context `cpu_id` of each of
 *   its events (events without cpu_id are counted, not used).
 *
 * Event classes are recognized once (the common event decoder's cache),
 * so an event that is none of the host's few kinds costs a cached lookup.
 */

#include <babeltrace2/babeltrace.h>

#include "common/msg-time.h"

struct correlate_iter;
struct stream_state;
struct vcpu_collector;

/*
 * Creates iter->by_vcpu (and its collector when there is a host) when
 * parameter `sync` allows `vcpu`; called once the machines are known.
 */
void correlate_vcpu_start(struct correlate_iter *iter);

/*
 * One event message of the sync pass (or read once), from upstream
 * `upstream`, with its time on its own clock.
 */
void correlate_vcpu_note(struct correlate_iter *iter, guint upstream, const bt_message *msg,
		const struct msg_time *time, struct stream_state *state);

/*
 * A discarded-events or -packets message of the sync pass (or read once),
 * as correlate_vcpu_note(): where its stream lost events (vcpu-losses.h).
 */
void correlate_vcpu_note_loss(struct correlate_iter *iter, guint upstream,
		const bt_message *msg, const struct msg_time *time, struct stream_state *state);

/* Read once: applies what was noted before `frontier` (own clocks). */
void correlate_vcpu_apply_until(struct correlate_iter *iter, int64_t frontier);

/* Notes applied so far (read once): the same count in every graph form. */
uint64_t correlate_vcpu_notes_applied(const struct correlate_iter *iter);

/*
 * `machine` no longer needs the alignment: another method synchronizes it,
 * or (`followed`) it was aligned and is followed (vcpu-onepass.c). Once no
 * guest needs it, what the alignment kept goes, and without followers the
 * host's intervals are not collected any more.
 */
void correlate_vcpu_guest_done(struct correlate_iter *iter, struct machine *machine,
		bool followed);

/*
 * The whole input is read: the host's intervals go to iter->by_vcpu with
 * their processes, its machine_info gets the pairing counts, and a DEBUG
 * line per host process tells what was collected.
 */
void correlate_vcpu_finish(struct correlate_iter *iter);

/* Whether the vCPU method may synchronize `machine`: not the host, nor the reference. */
bool correlate_vcpu_may_use(struct correlate_iter *iter, struct machine *machine);

/* Forgets the collection (iter->by_vcpu included). */
void correlate_vcpu_reset(struct correlate_iter *iter);

#endif /* VM_CORRELATE_VCPU_COLLECT_H */
