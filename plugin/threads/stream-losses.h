#ifndef VM_PLUGIN_THREADS_STREAM_LOSSES_H
#define VM_PLUGIN_THREADS_STREAM_LOSSES_H

/*
 * sink.vm.threads' input, passed through the gap locator
 * (lib/loss/gap-locator.h) so that each discarded-events or -packets
 * message becomes a located gap at its place in the time order (SPEC, Lost
 * events). Every message goes in; the messages come out in their order,
 * with the gaps between them.
 *
 * Per stream it keeps the CPU (packet context `cpu_id` of its latest
 * packet, as the event decoder reads it for events) and the time of its
 * latest message. A discarded message without clock snapshots (its stream
 * class has none) takes the range [time of its stream's message before it
 * (else the time reached), time reached in the input when it arrives]: the
 * neighbouring times known without looking ahead.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "loss/gap-locator.h"

struct stream_losses;

/*
 * A message leaves, in input order; the callee borrows it. `ts` is its
 * default clock snapshot in ns from origin when already read (a message
 * that goes straight through), else NULL: reading it again costs more
 * than the rest of the pass-through. `stream_data`, for such a message of
 * a stream, is a slot of the callee's for that stream (NULL at first,
 * kept while the stream is), else NULL: what the callee derives from the
 * stream once, as its machine, costs no lookup of its own per message.
 */
typedef void (*stream_losses_message_cb)(const bt_message *msg, const int64_t *ts,
		void **stream_data, void *data);

/*
 * A located gap of `stream` (CPU `cpu`, VM_FIELD_MISSING if none known),
 * before every message later than gap->begin. `first`: the stream's first.
 */
typedef void (*stream_losses_gap_cb)(const bt_stream *stream, int64_t cpu,
		const struct vm_gap *gap, bool first, void *data);

struct stream_losses *stream_losses_create(stream_losses_message_cb message,
		stream_losses_gap_cb gap, void *data);

/* Drops what is still held, without calling back, and frees everything. */
void stream_losses_destroy(struct stream_losses *losses);

/* One upstream message; a reference is taken while it is held. */
void stream_losses_push(struct stream_losses *losses, const bt_message *msg);

/* End of the input: every pending gap is located, every message released. */
void stream_losses_flush(struct stream_losses *losses);

#endif /* VM_PLUGIN_THREADS_STREAM_LOSSES_H */
