#ifndef VM_CORRELATE_VCPU_COLLECT_PRIVATE_H
#define VM_CORRELATE_VCPU_COLLECT_PRIVATE_H

/*
 * The collector of vcpu-collect.c, which vcpu-onepass.c (the vCPU method
 * read once) reads too.
 */

#include <glib.h>
#include <stdbool.h>

#include "common/event-decode.h"
#include "model/processes.h"
#include "model/vcpu-numbers.h"
#include "sync/guest-mode.h"

struct vcpu_collector {
	unsigned int host;            /* machine index of iter->sync_host */
	struct event_decoder *decoder;
	struct vm_processes *processes;
	/*
	 * The numbers of the vCPU threads whose kvm events carry none (entry
	 * ids that are no vCPU numbers, exits without vcpu_id): see
	 * correlate_vcpu_number().
	 */
	struct vm_vcpu_numbers *numbers;
	struct vm_guest_modes *modes;
	/*
	 * sync="auto": the guests that may still need the vCPU method. A
	 * guest with a vmsync match with the reference gets vmsync's formula
	 * (choose_results() tries it first): its events, and once no guest is
	 * left the host's guest-mode intervals, are neither kept nor collected
	 * any more. They grow with the trace (46 MiB at 4 M events).
	 */
	unsigned int needing;
	bool host_dropped;
	/* Read once: guests followed (vcpu-onepass.c), whose intervals still come. */
	unsigned int following;
	/* Read once: struct vm_fifo of notes per upstream, until the frontier passes them. */
	GArray *deferred;
	/*
	 * Read once: per machine_info index, a GArray (or NULL) of the intervals
	 * routed to that follower at each take (vcpu-onepass.c); kept between
	 * takes, which come every millisecond of the frontier.
	 */
	GPtrArray *batches;
	uint64_t applied;   /* notes applied so far: what was read, however the graph is built */
	struct vcpu_losses *losses;   /* where the streams lost events (vcpu-losses.c) */
};

/*
 * The vCPU number of a guest-mode interval, as filter.vm.state's KVM model
 * finds it (model/vcpu-numbers.h); -1 when nothing gives it.
 */
int64_t correlate_vcpu_number(struct vcpu_collector *collector,
		const struct vm_guest_mode_interval *interval, int64_t pid);

/* Frees the collector (vcpu-collect.c); the alignment keeps what it was given. */
void correlate_vcpu_destroy_collector(struct correlate_iter *iter);

#endif /* VM_CORRELATE_VCPU_COLLECT_PRIVATE_H */
