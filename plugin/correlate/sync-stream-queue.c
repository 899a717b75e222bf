/*
 * The vm:sync events of a merge pass: one per segment of a machine's map
 * after its first (which the environment entries describe), at the
 * reference time from which it applies, ordered with the upstream messages
 * by the reorder buffer. See sync-stream.h.
 */

#include "correlate/machines.h"
#include "correlate/sync-stream-queue.h"

/* After every upstream stream's key ("\x7f" sorts after the hostnames). */
static const char SYNC_STREAM_KEY[] = "\x7fvm-sync";

static void push_own(struct correlate_iter *iter, bt_message *msg, int64_t ns, uint64_t seq)
{
	struct reorder_entry entry = {
		.time = ns,
		.has_time = true,
		.stream_key = SYNC_STREAM_KEY,
		.seq = seq,
		.msg = msg,
		.own = true,
	};

	reorder_push(iter->reorder, &entry);
}

/* Where segment `index` of `info`'s map begins, in reference time. */
static int64_t segment_start(const struct machine_info *info, unsigned int index)
{
	const struct vm_sync_segment *segment = vm_sync_map_segment(&info->map, index);

	return vm_sync_formula_apply(&segment->formula, segment->begin);
}

/* The earliest segment change of all machines; false when none has one. */
static bool first_change(struct correlate_iter *iter, int64_t *first)
{
	bool found = false;

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		const struct machine_info *info =
			correlate_machine_info(iter, machine_table_at(iter->machines, i));

		if (vm_sync_map_segment_count(&info->map) > 1 &&
				(!found || segment_start(info, 1) < *first)) {
			*first = segment_start(info, 1);
			found = true;
		}
	}

	return found;
}

static bool begin_stream(struct correlate_iter *iter, int64_t first, uint64_t *seq)
{
	struct machine *reference = correlate_reference_machine(iter);
	struct sync_stream_reference names = {
		.hostname = reference ? reference->hostname : NULL,
		.machine = reference ? reference->name : NULL,
		.role = reference ? correlate_machine_info(iter, reference)->role : NULL,
	};
	bt_message *stream_beginning, *packet_beginning;

	if (!sync_stream_begin(iter->sync_stream, &names, first, &stream_beginning,
			&packet_beginning)) {
		return false;
	}

	push_own(iter, stream_beginning, first, (*seq)++);
	push_own(iter, packet_beginning, first, (*seq)++);
	return true;
}

bool correlate_queue_sync_events(struct correlate_iter *iter)
{
	int64_t first;
	uint64_t seq = 0;

	if (iter->keeps_time_base || !first_change(iter, &first)) {
		return true;
	}

	if (!begin_stream(iter, first, &seq)) {
		return false;
	}

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		const struct machine_info *info = correlate_machine_info(iter, machine);

		for (unsigned int s = 1; s < vm_sync_map_segment_count(&info->map); s++) {
			int64_t ns = segment_start(info, s);
			bt_message *msg = sync_stream_event(iter->sync_stream, machine->name,
				info->method, vm_sync_map_segment(&info->map, s), ns);

			if (!msg) {
				return false;
			}

			/* Ties with the reorder's keys: machines in table order, segments in order. */
			push_own(iter, msg, ns, seq++);
		}
	}

	iter->sync_stream_seq = seq;
	return true;
}

bool correlate_end_sync_events(struct correlate_iter *iter)
{
	bt_message *packet_end, *stream_end;
	int64_t ns = iter->has_last_emitted ? iter->last_emitted : 0;

	if (!sync_stream_end(iter->sync_stream, ns, &packet_end, &stream_end)) {
		return false;
	}

	push_own(iter, packet_end, ns, iter->sync_stream_seq++);
	push_own(iter, stream_end, ns, iter->sync_stream_seq++);
	return true;
}

bool correlate_announce_segment(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_segment *segment)
{
	int64_t ns = vm_sync_formula_apply(&segment->formula, segment->begin);
	bt_message *msg;

	/*
	 * Read once, a later segment of another machine may start earlier
	 * than this one: the packet begins where nothing can come before it
	 * any more (the merge's bound, or what already left).
	 */
	int64_t begin = iter->has_last_emitted && iter->last_emitted > iter->bound ?
		iter->last_emitted : iter->bound;

	begin = begin < ns ? begin : ns;
	if (!sync_stream_is_open(iter->sync_stream) &&
			!begin_stream(iter, begin < 0 ? 0 : begin, &iter->sync_stream_seq)) {
		return false;
	}

	msg = sync_stream_event(iter->sync_stream, machine->name,
		correlate_machine_info(iter, machine)->method, segment, ns);
	if (!msg) {
		return false;
	}

	push_own(iter, msg, ns, iter->sync_stream_seq++);
	return true;
}
