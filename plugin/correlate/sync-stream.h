#ifndef VM_CORRELATE_SYNC_STREAM_H
#define VM_CORRELATE_SYNC_STREAM_H

/*
 * The stream of filter.vm.correlate's own events (SPEC "Long traces"): each
 * time a machine's clock map changes (a new segment of a piecewise map), an
 * event `vm:sync` { machine: string, method: string, quality: string,
 * slope: real, offset_ns: real, accuracy: real, matches: u64 } at the
 * reference time from which the new segment applies.
 *
 * A trace `vm-sync` of its own, on the output clock (the reference time
 * base), whose environment names the reference machine (`hostname`,
 * `vm_machine`, `vm_role`): read back from a sink.ctf.fs copy, it belongs to
 * the reference. One packet, with times (filter.utils.trimmer needs them):
 * stream and packet begin at the first event's time, end at the end of the
 * input.
 */

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#include "sync/segments.h"

struct sync_stream;

/* The reference's names go in the trace's environment. */
struct sync_stream *sync_stream_create(bt_self_message_iterator *self_msg_iter,
		bt_clock_class *output_clock_class);
void sync_stream_destroy(struct sync_stream *stream);

/* The identity of the machine that the trace's environment names. */
struct sync_stream_reference {
	const char *hostname;
	const char *machine;   /* vm_machine */
	const char *role;      /* vm_role */
};

/*
 * The stream beginning and packet beginning messages at reference time
 * `ns` (new references), before its first event; the trace is made on the
 * first call. False, with an error cause, on failure.
 */
bool sync_stream_begin(struct sync_stream *stream,
		const struct sync_stream_reference *reference, int64_t ns,
		bt_message **stream_beginning, bt_message **packet_beginning);

/* A vm:sync event of `machine`'s segment applying from reference time `ns`. */
bt_message *sync_stream_event(struct sync_stream *stream, const char *machine,
		const char *method, const struct vm_sync_segment *segment, int64_t ns);

/* After a seek to the beginning: the stream begins anew. */
void sync_stream_rewind(struct sync_stream *stream);

/* Whether the stream began and is not ended yet. */
bool sync_stream_is_open(const struct sync_stream *stream);

/* Its packet end (at `ns`) and stream end; the stream may begin again (seek). */
bool sync_stream_end(struct sync_stream *stream, int64_t ns, bt_message **packet_end,
		bt_message **stream_end);

#endif /* VM_CORRELATE_SYNC_STREAM_H */
