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

#include "correlate/msg-time.h"

struct correlate_iter;
struct stream_state;
struct vcpu_collector;

/*
 * Creates iter->by_vcpu (and its collector when there is a host) when
 * parameter `sync` allows `vcpu`; called once the machines are known.
 */
void correlate_vcpu_start(struct correlate_iter *iter);

/* One event message of the sync pass, with its time on its own clock. */
void correlate_vcpu_note(struct correlate_iter *iter, const bt_message *msg,
		const struct msg_time *time, struct stream_state *state);

/*
 * The whole input is read: the host's intervals go to iter->by_vcpu with
 * their processes, its machine_info gets the pairing counts, and a DEBUG
 * line per host process tells what was collected.
 */
void correlate_vcpu_finish(struct correlate_iter *iter);

/* Forgets the collection (iter->by_vcpu included). */
void correlate_vcpu_reset(struct correlate_iter *iter);

#endif /* VM_CORRELATE_VCPU_COLLECT_H */
