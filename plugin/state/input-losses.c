/*
 * Lost events in filter.vm.state: each discarded-events or -packets message
 * becomes a gap placed in time by the gap locator, then a VM_EVENT_LOSS
 * input of the vCPU tracker, said once per stream.
 */

#include <inttypes.h>
#include <glib.h>

#include "state/iterator-private.h"
#include "common/discarded-items.h"
#include "common/msg-time.h"

/* Once per machine and stream: where, and how many. */
static void warn_loss(struct state_iterator *it, struct loss_stream *stream,
		unsigned int machine, const struct vm_gap *gap)
{
	char count[32], cpu[48];

	int64_t host = it->model->cls->host(it->model->data);

	if (stream->warned) {
		return;
	}
	stream->warned = true;
	/*
	 * A guest's losses change no vCPU mode: sink.vm.threads, which they
	 * concern, says so (once is enough for the user).
	 */
	if (host != VM_MODEL_UNKNOWN && host != (int64_t) machine) {
		return;
	}
	if (gap->count >= 0) {
		g_snprintf(count, sizeof(count), "%" PRId64, gap->count);
	} else {
		g_strlcpy(count, "an unknown number of", sizeof(count));
	}
	if (stream->cpu != VM_FIELD_MISSING) {
		g_snprintf(cpu, sizeof(cpu), "%" PRId64, stream->cpu);
	} else {
		g_strlcpy(cpu, "unknown (no packet cpu_id)", sizeof(cpu));
	}
	STATE_LOG(it->component->self_comp, BT_LOGGING_LEVEL_WARNING,
		"Machine `%s`, CPU %s: the tracer lost %s %s (first gap from "
		"%" PRId64 " to %" PRId64 " ns from origin; later losses of this "
		"stream are not repeated here). On a host CPU, the vCPU whose "
		"thread ran there is `unknown` from the gap's start until its "
		"thread is seen again; record with larger or more sub-buffers "
		"to avoid it.", state_machine_name(it, machine), cpu, count,
		gap->packets ? "packets" : "events", gap->begin, gap->end);
}

/* A located gap: a VM_EVENT_LOSS input of the tracker, without message. */
void state_on_gap(const struct vm_gap *gap, void *data)
{
	struct state_iterator *it = data;
	struct loss_stream *stream = loss_streams_find(it->loss_streams, gap->stream);
	struct input_cause cause = { .is_loss = true };
	struct vm_event plain = { .kind = VM_EVENT_LOSS };

	if (it->losses_pending > 0) {
		it->losses_pending--;
	}
	if (it->dropping || it->failed || !stream) {
		return;
	}
	plain.machine = state_machine_of_stream(it, stream->stream);
	plain.ts = gap->begin;
	plain.cpu = stream->cpu;
	plain.u.loss.end = gap->end;
	plain.u.loss.count = gap->count;
	plain.u.loss.packets = gap->packets;
	warn_loss(it, stream, plain.machine, gap);
	cause.loss_stream = stream->stream;
	cause.clock.clock_class = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(stream->stream));
	cause_ring_push(&it->causes, &cause);
	vm_vcpu_tracker_push(it->tracker, &plain, NULL);
}

/*
 * The time the locator gets: the message's own, never before the one
 * before (the locator wants times that never go back; a message without
 * time sits at the time of the message before it). While no loss is
 * pending and nothing is held, the locator lets an event through at once
 * whatever its time, and the gaps to come start no earlier than their
 * discarded message: the event's time is not read then (see times_always).
 */
int64_t state_locator_time(struct state_iterator *it, const bt_message *msg,
		bool is_event)
{
	struct msg_time time;

	if (is_event && !it->times_always && it->losses_pending == 0 &&
			vm_gap_locator_held(it->locator) == 0) {
		return it->locator_ts;
	}
	msg_time_get(msg, &time);
	/* Stream beginnings and ends: their times may be unknown. */
	if (time.type == BT_MESSAGE_TYPE_STREAM_BEGINNING ||
			time.type == BT_MESSAGE_TYPE_STREAM_END) {
		return it->locator_ts;
	}
	if (time.has_time && time.ns > it->locator_ts) {
		it->locator_ts = time.ns;
	}
	return it->locator_ts;
}

/* Whether `stream` may lose events or packets without saying when. */
bool state_loses_without_times(const bt_stream *stream)
{
	const bt_stream_class *cls = bt_stream_borrow_class_const(stream);

	return (bt_stream_class_supports_discarded_events(cls) &&
			!bt_stream_class_discarded_events_have_default_clock_snapshots(cls)) ||
		(bt_stream_class_supports_discarded_packets(cls) &&
			!bt_stream_class_discarded_packets_have_default_clock_snapshots(cls));
}

/*
 * A discarded-events/packets message: the locator places its gap. Without
 * clock snapshots, its range is the time of the message before it: the
 * stream recorded nothing since its previous message, and the gap cannot
 * start before what was already let through.
 */
void state_locate_discarded(struct state_iterator *it, const bt_message *msg)
{
	struct discarded_items items;
	int64_t begin, end;

	discarded_items_get(msg, &items);
	loss_streams_get(it->loss_streams, items.stream);
	begin = items.has_range && items.begin > it->locator_ts ?
		items.begin : it->locator_ts;
	end = items.has_range && items.end > begin ? items.end : begin;
	it->locator_ts = begin;
	it->losses_pending++;
	vm_gap_locator_push_loss(it->locator, loss_stream_key(items.stream),
		begin, end, items.count, items.packets, (void *) msg);
}
