#ifndef VM_PLUGIN_STATE_VCPU_STREAM_H
#define VM_PLUGIN_STATE_VCPU_STREAM_H

/*
 * The stream of filter.vm.state's own events: a trace class, trace and
 * stream class of its own with one event class, `vm:vcpu_state`
 * { vm: string, vcpu: u64, mode: string, host_tid: s64, pcpu: s64,
 *   exit_reason: s64 }.
 *
 * The stream class's default clock class is the upstream clock class of
 * the first host event that changes a vCPU mode (so a vCPU state event
 * carries the very clock value of the host event that caused it). The
 * trace's environment has the host trace's `hostname` (and `vm_machine`,
 * if any): with the same clock class, a copy written by sink.ctf.fs is
 * part of the host machine when read again. The
 * stream has one packet (so that sink.ctf.fs can write it), with clock
 * snapshots (filter.utils.trimmer needs them): stream and packet beginnings
 * come right before the first event, at its time, their ends at the end of
 * the input, at its last time.
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <stdbool.h>

#include "common/event-decode.h"
#include "state/msg-ring.h"
#include "vcpu/tracker.h"

struct vcpu_stream;

struct vcpu_stream *vcpu_stream_create(bt_self_message_iterator *self_msg_iter);
void vcpu_stream_destroy(struct vcpu_stream *stream);

/*
 * Appends to `out` (bt_message *, references transferred) the messages of
 * one mode change caused by the event message `cause` (of the host trace,
 * borrowed) of `clock_class` whose clock value is `value`. False, with an
 * error cause, on failure.
 */
bool vcpu_stream_append_change(struct vcpu_stream *stream, struct msg_ring *out,
		const struct vm_vcpu_change *change, const char *vm_name,
		const bt_message *cause, const bt_clock_class *clock_class,
		uint64_t value);

/*
 * vcpu_stream_append_change() for a change with no event of its own (lost
 * events): at change->ts, in ns from origin, rounded up to our clock.
 * `trace` and `clock_class` (NULL: none) are those of the stream that lost
 * events, used if the stream has not begun.
 */
bool vcpu_stream_append_change_at(struct vcpu_stream *stream, struct msg_ring *out,
		const struct vm_vcpu_change *change, const char *vm_name,
		const bt_trace *trace, const bt_clock_class *clock_class);

/*
 * Appends the packet and stream ends, if the stream began. `input_end` is
 * the clock of the input's last timed message (clock_class NULL: none).
 * A stream that never began (no mode change) begins there, empty, when
 * `host_trace` and `host_clock_class` (the host's, NULL: no host) are
 * given: sink.vm.threads then knows that filter.vm.state was there.
 */
bool vcpu_stream_append_end(struct vcpu_stream *stream, struct msg_ring *out,
		const bt_trace *host_trace, const bt_clock_class *host_clock_class,
		const struct event_clock *input_end);

/* After a seek to the beginning: the stream begins anew at its next event. */
void vcpu_stream_rewind(struct vcpu_stream *stream);

#endif /* VM_PLUGIN_STATE_VCPU_STREAM_H */
