/*
 * The machines correlate knows, and the streams that carry them: what each
 * machine is (role, map, what its trace declares) and the state of each
 * stream (its machine, its tie-break key, its last time).
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/machines.h"

struct machine_info *correlate_machine_info(struct correlate_iter *iter,
		struct machine *machine)
{
	struct machine_info *info;

	while (iter->infos->len <= machine->index) {
		info = g_new0(struct machine_info, 1);
		vm_sync_map_init(&info->map, &(struct vm_sync_formula) { 1.0L, 0.0L });
		info->quality = VM_SYNC_ABSENT;
		info->method = "none";
		info->role = "unknown";
		info->host_pid = -1;
		g_ptr_array_add(iter->infos, info);
	}

	return g_ptr_array_index(iter->infos, machine->index);
}

void correlate_machine_info_destroy(gpointer data)
{
	struct machine_info *info = data;

	vm_sync_map_fini(&info->map);
	g_free(info);
}

/* Notes, once per stream class, whether it declares KVM entry or sync events. */
static void note_stream_class(struct correlate_iter *iter,
		const bt_stream_class *stream_class, struct machine_info *info)
{
	uint64_t i;

	if (g_hash_table_contains(iter->stream_classes_seen, stream_class)) {
		return;
	}

	g_hash_table_add(iter->stream_classes_seen, (gpointer) stream_class);
	for (i = 0; i < bt_stream_class_get_event_class_count(stream_class); i++) {
		const char *name = bt_event_class_get_name(
			bt_stream_class_borrow_event_class_by_index_const(stream_class, i));

		if (sync_event_name_is_kvm_entry(name)) {
			info->declares_kvm = true;
		} else if (sync_event_name_is_message(name)) {
			info->declares_sync = true;
		}
	}
}

static char *stream_sort_key(const bt_stream *stream, const struct machine *machine)
{
	const char *trace_name = bt_trace_get_name(bt_stream_borrow_trace_const(stream));

	return g_strdup_printf("%s\x1f%s\x1f%s\x1f%020" PRIu64 "\x1f%020" PRIu64,
		machine->hostname, machine->clock_key, trace_name ? trace_name : "",
		bt_stream_class_get_id(bt_stream_borrow_class_const(stream)),
		bt_stream_get_id(stream));
}

static void warn_duplicate_input(struct correlate_iter *iter, const bt_stream *stream)
{
	char *warning = duplicate_inputs_note(iter->duplicates, stream);

	if (warning) {
		CORRELATE_LOGW(iter->log_level, iter->name, "%s", warning);
		g_free(warning);
	}
}

void correlate_stream_state_destroy(gpointer data)
{
	struct stream_state *state = data;

	g_free(state->sort_key);
	g_free(state);
}

struct stream_state *correlate_stream_state(struct correlate_iter *iter,
		const bt_stream *stream)
{
	struct stream_state *state;
	const bt_stream_class *stream_class;

	/* Consecutive messages mostly share their stream. */
	if (stream == iter->last_stream) {
		return iter->last_stream_state;
	}

	state = g_hash_table_lookup(iter->streams, stream);
	if (state) {
		iter->last_stream = stream;
		iter->last_stream_state = state;
		return state;
	}

	stream_class = bt_stream_borrow_class_const(stream);
	state = g_new0(struct stream_state, 1);
	state->machine = machine_table_machine_of_stream(iter->machines, stream, NULL);
	state->has_clock = bt_stream_class_borrow_default_clock_class_const(stream_class);
	state->sort_key = stream_sort_key(stream, state->machine);
	state->last_own_ns = INT64_MIN;
	state->reorder_queue = reorder_queue_new(iter->reorder);
	state->info = correlate_machine_info(iter, state->machine);
	note_stream_class(iter, stream_class, state->info);
	g_hash_table_insert(iter->streams, (gpointer) stream, state);
	warn_duplicate_input(iter, stream);
	if (!state->has_clock &&
			machine_warn_once(state->machine, WARN_NO_CLOCK)) {
		CORRELATE_LOGW(iter->log_level, iter->name,
			"A stream of the trace with hostname `%s` has no clock class: "
			"its messages have no time, so they cannot be synchronized; "
			"they are passed through as they come.",
			state->machine->hostname);
	}

	return state;
}

struct stream_state *correlate_upstream_stream_state(struct correlate_iter *iter,
		struct upstream_bound *bound, const bt_stream *stream)
{
	if (bound->cached_stream != stream) {
		bound->cached_state = correlate_stream_state(iter, stream);
		bound->cached_stream = stream;
	}

	return bound->cached_state;
}

void correlate_forget_streams(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->bounds->len; i++) {
		struct upstream_bound *bound = correlate_bound_at(iter, i);

		bound->cached_stream = NULL;
		bound->cached_state = NULL;
	}

	iter->last_stream = NULL;
	iter->last_stream_state = NULL;
	g_hash_table_remove_all(iter->streams);
	reorder_forget_queues(iter->reorder);
}

/* A machine met after the others were named: it joins with what it has. */
void correlate_welcome_late_machine(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	const struct vm_sync_formula *given;

	machine_table_assign_names(iter->machines);
	given = g_hash_table_lookup(iter->comp->params.transforms, machine->name);
	vm_sync_map_set_formula(&info->map, given ? given : &(struct vm_sync_formula) { 1.0L, 0.0L });
	info->method = given ? "transforms" : "none";
	info->role = "unknown";
	if (machine_warn_once(machine, WARN_LATE_MACHINE)) {
		CORRELATE_LOGW(iter->log_level, iter->name,
			"Machine `%s` first shows up in the middle of the traces, after "
			"synchronization was set up: it keeps %s.", machine->name,
			given ? "the formula of `transforms`" : "its own clock");
	}
}

struct machine *correlate_message_machine(struct correlate_iter *iter,
		struct upstream_bound *bound, const bt_message *msg,
		const struct msg_time *time, struct stream_state **state)
{
	*state = NULL;
	if (time->stream) {
		*state = correlate_upstream_stream_state(iter, bound, time->stream);
		return (*state)->machine;
	}

	if (time->type == BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY) {
		return machine_table_machine_of_clock_class(iter->machines,
			bt_clock_snapshot_borrow_clock_class_const(
				bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg)));
	}

	return NULL;
}

struct machine *correlate_reference_machine(struct correlate_iter *iter)
{
	unsigned int i;

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);

		if (correlate_machine_info(iter, machine)->is_reference) {
			return machine;
		}
	}

	return NULL;
}
