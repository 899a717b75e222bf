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
#include "sync/guest-mode.h"

struct vcpu_collector {
	unsigned int host;            /* machine index of iter->sync_host */
	struct event_decoder *decoder;
	struct vm_processes *processes;
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

#endif /* VM_CORRELATE_VCPU_COLLECT_PRIVATE_H */
