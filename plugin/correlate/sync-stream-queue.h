#ifndef VM_CORRELATE_SYNC_STREAM_QUEUE_H
#define VM_CORRELATE_SYNC_STREAM_QUEUE_H

/* The vm:sync events of the maps' segments, into the reorder buffer. */

#include "correlate/context.h"

/*
 * The vm:sync events of every machine's segments after its first (with
 * the stream and packet beginnings). False with an error cause.
 */
bool correlate_queue_sync_events(struct correlate_iter *iter);

/* Read once: the vm:sync event of `segment` of `machine`. */
bool correlate_announce_segment(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_segment *segment);

/* The ends of the vm:sync stream, once the inputs ended. */
bool correlate_end_sync_events(struct correlate_iter *iter);

#endif /* VM_CORRELATE_SYNC_STREAM_QUEUE_H */
