/*
 * The synchronization notes: every message is noted (machines, spans, KVM
 * entries), and the vmsync and TCP messages are fed to the sync library in
 * an order that does not depend on how the graph is built.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/machines.h"
#include "correlate/setup.h"
#include "correlate/strategy.h"
#include "correlate/sync-notes.h"
#include "correlate/vcpu/vcpu-collect.h"
#include "sync/feed-order.h"

/* The sync library's event of a record. */
static struct vm_sync_feed_event feed_event(const struct sync_record *record)
{
	return (struct vm_sync_feed_event) {
		.ts = record->ts,
		.machine = record->machine->name,
		.protocol = record->message.protocol,
		.role = record->message.role,
		.key = record->message.key,
	};
}

/* The feed order of sync/feed-order.h: the same whatever the graph. */
static gint compare_records(gconstpointer pa, gconstpointer pb)
{
	struct vm_sync_feed_event a = feed_event(pa);
	struct vm_sync_feed_event b = feed_event(pb);

	return vm_sync_feed_compare(&a, &b);
}

/*
 * Machines in the order the sync library sees them: the reference first,
 * then by name. A pair's hull fits t_other = a * t_ref + b with its lower
 * index as the ref side, so every pair with the reference is fitted from
 * the reference's side (as Trace Compass does), and nothing depends on the
 * order in which machines were met.
 */
static gint compare_sync_order(gconstpointer pa, gconstpointer pb, gpointer data)
{
	struct correlate_iter *iter = data;
	struct machine *a = *(struct machine * const *) pa;
	struct machine *b = *(struct machine * const *) pb;
	bool a_ref = correlate_machine_info(iter, a)->is_reference;
	bool b_ref = correlate_machine_info(iter, b)->is_reference;

	if (a_ref != b_ref) {
		return a_ref ? -1 : 1;
	}

	return strcmp(a->name, b->name);
}

/* sync_index[machine index] = the machine's index for the sync library. */
static unsigned int *make_sync_order(struct correlate_iter *iter)
{
	unsigned int count = machine_table_count(iter->machines);
	unsigned int *sync_index = g_new0(unsigned int, count);
	GPtrArray *order = g_ptr_array_new();
	unsigned int i;

	for (i = 0; i < count; i++) {
		g_ptr_array_add(order, machine_table_at(iter->machines, i));
	}

	g_ptr_array_sort_with_data(order, compare_sync_order, iter);
	for (i = 0; i < count; i++) {
		sync_index[((struct machine *) g_ptr_array_index(order, i))->index] = i;
	}

	g_ptr_array_free(order, TRUE);
	return sync_index;
}

/* The time span of a machine, where its formula matters most. */
static void note_span(struct machine_info *info, int64_t ns)
{
	if (!info->has_span || ns < info->first_ns) {
		info->first_ns = ns;
	}

	if (!info->has_span || ns > info->last_ns) {
		info->last_ns = ns;
	}

	info->has_span = true;
}

/* Feeds the events of the current timestamp, in their fixed order. */
void correlate_sync_flush(struct correlate_iter *iter)
{
	guint i;

	g_array_sort(iter->records, compare_records);
	for (i = 0; i < iter->records->len; i++) {
		const struct sync_record *record =
			&g_array_index(iter->records, struct sync_record, i);

		vm_sync_add_event(record->message.protocol == SYNC_PROTOCOL_VMSYNC ?
				iter->by_vmsync : iter->by_tcp,
			record->message.protocol, &record->message.key,
			record->message.role, iter->sync_index[record->machine->index],
			record->ts);
	}

	g_array_set_size(iter->records, 0);
}

static void warn_missing_fields(struct correlate_iter *iter, const bt_message *msg,
		struct machine *machine)
{
	if (!machine_warn_once(machine, WARN_MISSING_FIELDS)) {
		return;
	}

	CORRELATE_LOGW(iter->log_level, iter->name,
		"Event `%s` of machine `%s` lacks the fields that identify its "
		"message (vmsync: `vm_uid`, `cnt`; TCP: `seq`, `ack_seq`, "
		"`flags`): such events are not used to synchronize.",
		bt_event_class_get_name(bt_event_borrow_class_const(
			bt_message_event_borrow_event_const(msg))),
		machine_display_name(machine));
}

static void note_sync_message(struct correlate_iter *iter, struct sync_record *record)
{
	if (record->machine->index >= iter->sync_count) {
		/* Met after the sync objects were made: welcome_late_machine() warns. */
		return;
	}

	if (correlate_reads_once(iter)) {
		/* Fed in the sync pass's order by correlate_sync_feed_until(). */
		if (iter->records->len == 0) {
			iter->records_min_ts = record->ts;
			iter->records_sorted = true;
		} else {
			if (record->ts < iter->records_min_ts) {
				iter->records_min_ts = record->ts;
			}

			/* Usually one record, or records already in order: no sort then. */
			if (iter->records_sorted && compare_records(&g_array_index(iter->records,
					struct sync_record, iter->records->len - 1), record) > 0) {
				iter->records_sorted = false;
			}
		}

		g_array_append_val(iter->records, *record);
		return;
	}

	if (iter->records->len > 0 &&
			g_array_index(iter->records, struct sync_record, 0).ts != record->ts) {
		correlate_sync_flush(iter);
	}

	g_array_append_val(iter->records, *record);
}

void correlate_sync_feed_until(struct correlate_iter *iter, int64_t frontier)
{
	guint fed = 0;

	if (iter->records->len == 0 || iter->records_min_ts > frontier) {
		return;
	}

	if (!iter->records_sorted) {
		/* GLib's sort is stable: records that compare equal keep their order. */
		g_array_sort(iter->records, compare_records);
		iter->records_sorted = true;
	}

	while (fed < iter->records->len &&
			g_array_index(iter->records, struct sync_record, fed).ts <= frontier) {
		const struct sync_record *record =
			&g_array_index(iter->records, struct sync_record, fed);

		vm_sync_add_event(record->message.protocol == SYNC_PROTOCOL_VMSYNC ?
				iter->by_vmsync : iter->by_tcp,
			record->message.protocol, &record->message.key,
			record->message.role, iter->sync_index[record->machine->index],
			record->ts);
		fed++;
	}

	g_array_remove_range(iter->records, 0, fed);
	if (iter->records->len > 0) {
		iter->records_min_ts = g_array_index(iter->records, struct sync_record, 0).ts;
	}
}

static void note_event(struct correlate_iter *iter, guint upstream, const bt_message *msg,
		const struct msg_time *time, struct stream_state *state)
{
	struct sync_record record;
	bool missing_fields;
	enum sync_event_kind kind = sync_event_read(iter->reader,
		bt_message_event_borrow_event_const(msg), &record.message, &missing_fields);

	if (iter->by_vcpu) {
		correlate_vcpu_note(iter, upstream, msg, time, state);
	}

	if (kind == SYNC_EVENT_KVM_ENTRY) {
		/* Counted once, even when the pass is read again. */
		if (!iter->sync_pass_done) {
			state->info->kvm_entries++;
		}
	} else if (kind == SYNC_EVENT_MESSAGE && time->has_time) {
		record.ts = time->ns;
		record.machine = state->machine;
		note_sync_message(iter, &record);
	} else if (missing_fields) {
		warn_missing_fields(iter, msg, state->machine);
	}
}

/* Notes one message; events only once the sync objects exist. */
void correlate_sync_note(struct correlate_iter *iter, guint upstream_index,
		const bt_message *msg, const struct msg_time *time)
{
	struct upstream_bound *bound;
	struct stream_state *state;

	if (!time->stream) {
		return;
	}

	bound = correlate_bound_at(iter, upstream_index);
	state = correlate_upstream_stream_state(iter, bound, time->stream);
	if (time->has_time) {
		note_span(state->info, time->ns);
	}

	upstream_bound_note_machine(bound, state->machine);
	if (iter->sync_ready && time->type == BT_MESSAGE_TYPE_EVENT) {
		note_event(iter, upstream_index, msg, time, state);
	} else if (iter->sync_ready && iter->by_vcpu &&
			(time->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
				time->type == BT_MESSAGE_TYPE_DISCARDED_PACKETS)) {
		correlate_vcpu_note_loss(iter, upstream_index, msg, time, state);
	}
}

/*
 * Every upstream showed its first time, so every machine is known: names,
 * the host as its event classes tell it (checked against its events at the
 * end of the pass), the reference, and the sync objects in their order.
 */
bool correlate_sync_prepare(struct correlate_iter *iter)
{
	unsigned int count = machine_table_count(iter->machines);

	if (!correlate_finalize_machines(iter)) {
		return false;
	}

	iter->sync_host = correlate_detect_host(iter);
	iter->sync_count = count;
	iter->sync_index = make_sync_order(iter);
	iter->by_vmsync = vm_sync_create(count);
	iter->by_tcp = vm_sync_create(count);
	if (correlate_reads_once(iter)) {
		/* The vCPU method read once: vcpu-onepass.c. */
		vm_sync_keep_online(iter->by_vmsync);
		vm_sync_keep_online(iter->by_tcp);
		correlate_vcpu_start(iter);
		iter->sync_ready = true;
		return true;
	}

	if (iter->comp->params.model == CORRELATE_MODEL_PIECEWISE) {
		vm_sync_keep_piecewise(iter->by_vmsync);
		vm_sync_keep_piecewise(iter->by_tcp);
	}
	correlate_vcpu_start(iter);
	iter->sync_ready = true;
	return true;
}

void correlate_sync_reset(struct correlate_iter *iter)
{
	guint i;

	g_array_set_size(iter->records, 0);
	vm_sync_destroy(iter->by_vmsync);
	vm_sync_destroy(iter->by_tcp);
	g_free(iter->sync_index);
	iter->by_vmsync = NULL;
	iter->by_tcp = NULL;
	correlate_vcpu_reset(iter);
	iter->sync_index = NULL;
	iter->sync_ready = false;
	if (!iter->sync_pass_done) {
		for (i = 0; i < iter->infos->len; i++) {
			((struct machine_info *) g_ptr_array_index(iter->infos, i))->kvm_entries = 0;
		}
	}
}
