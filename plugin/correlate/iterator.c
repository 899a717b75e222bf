/*
 * filter.vm.correlate, the message iterator: creation of the upstream
 * iterators, dispatch between the sync pass and the merge, seeking.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/correlate.h"
#include "correlate/iterator.h"

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

static void machine_info_destroy(gpointer data)
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

static void stream_state_destroy(gpointer data)
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

static const struct vm_sync_map *map_of_clock_class(void *data,
		const bt_clock_class *clock_class)
{
	struct correlate_iter *iter = data;
	struct machine *machine =
		machine_table_machine_of_clock_class(iter->machines, clock_class);

	if (!machine) {
		return NULL;
	}

	return &correlate_machine_info(iter, machine)->map;
}

/*
 * Creates an iterator on every connected input port. `*can_seek_forward`
 * tells whether all of them can seek forward (all their messages have
 * times), and so can this iterator then.
 */
static bool create_upstreams(struct correlate_iter *iter,
		bt_self_component_filter *self_comp, bool *can_seek_forward)
{
	const bt_component_filter *comp = bt_self_component_filter_as_component_filter(self_comp);
	uint64_t i;

	iter->can_seek = true;
	*can_seek_forward = true;
	for (i = 0; i < bt_component_filter_get_input_port_count(comp); i++) {
		bt_self_component_port_input *port =
			bt_self_component_filter_borrow_input_port_by_index(self_comp, i);
		bt_message_iterator *upstream_iter;
		struct upstream upstream;
		struct upstream_bound bound = { 0 };
		bt_bool can_seek = BT_FALSE;

		if (!bt_port_is_connected(bt_self_component_port_as_port(
				bt_self_component_port_input_as_self_component_port(port)))) {
			continue;
		}

		if (bt_message_iterator_create_from_message_iterator(iter->self, port,
				&upstream_iter) != BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
			ITER_ERROR(iter, "Cannot create the upstream message iterator of "
				"input port `%s`.", bt_port_get_name(bt_self_component_port_as_port(
					bt_self_component_port_input_as_self_component_port(port))));
			return false;
		}

		upstream_init(&upstream, upstream_iter);
		g_array_append_val(iter->upstreams, upstream);
		g_array_append_val(iter->bounds, bound);
		if (bt_message_iterator_can_seek_beginning(upstream_iter, &can_seek) !=
				BT_MESSAGE_ITERATOR_CAN_SEEK_BEGINNING_STATUS_OK || !can_seek) {
			iter->can_seek = false;
		}

		if (!bt_message_iterator_can_seek_forward(upstream_iter)) {
			*can_seek_forward = false;
		}
	}

	return true;
}

static void iter_destroy(struct correlate_iter *iter)
{
	guint i;

	if (!iter) {
		return;
	}

	correlate_merge_reset(iter);
	sync_stream_destroy(iter->sync_stream);
	if (iter->mirror) {
		mirror_destroy(iter->mirror);
	}

	g_array_free(iter->pending, TRUE);
	g_array_free(iter->onepass_keys, TRUE);
	reorder_destroy(iter->reorder);
	for (i = 0; i < iter->upstreams->len; i++) {
		upstream_fini(&g_array_index(iter->upstreams, struct upstream, i));
	}

	g_array_free(iter->upstreams, TRUE);
	g_array_free(iter->bounds, TRUE);
	correlate_sync_pass_reset(iter);
	g_array_free(iter->heads, TRUE);
	g_array_free(iter->records, TRUE);
	sync_event_reader_destroy(iter->reader);
	g_hash_table_destroy(iter->streams);
	g_hash_table_destroy(iter->stream_classes_seen);
	duplicate_inputs_destroy(iter->duplicates);
	g_ptr_array_free(iter->infos, TRUE);
	machine_table_destroy(iter->machines);
	g_free(iter);
}

/* The sync pass is needed unless `sync` is `none` or `transforms` may do. */
static bool wants_sync_pass(const struct correlate_params *params)
{
	return params->sync != CORRELATE_SYNC_NONE &&
		g_hash_table_size(params->transforms) == 0;
}

bt_message_iterator_class_initialize_method_status correlate_msg_iter_init(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *self_port)
{
	bt_self_component *self_comp = bt_self_message_iterator_borrow_component(self_msg_iter);
	struct correlate_iter *iter = g_new0(struct correlate_iter, 1);
	bool can_seek_forward;

	(void) self_port;
	iter->comp = bt_self_component_get_data(self_comp);
	iter->self = self_msg_iter;
	iter->log_level = iter->comp->log_level;
	iter->name = iter->comp->name;
	iter->upstreams = g_array_new(FALSE, FALSE, sizeof(struct upstream));
	iter->bounds = g_array_new(FALSE, FALSE, sizeof(struct upstream_bound));
	iter->machines = machine_table_create();
	iter->infos = g_ptr_array_new_with_free_func(machine_info_destroy);
	iter->streams = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
		stream_state_destroy);
	iter->stream_classes_seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	iter->duplicates = duplicate_inputs_create();
	iter->reader = sync_event_reader_create();
	iter->records = g_array_new(FALSE, FALSE, sizeof(struct sync_record));
	iter->heads = g_array_new(FALSE, TRUE, sizeof(struct sync_head));
	iter->reorder = reorder_create(mirror_parked_destroy);
	iter->pending = g_array_new(FALSE, FALSE, sizeof(struct pending_message));
	iter->onepass_keys = g_array_new(FALSE, FALSE, sizeof(int64_t));
	bt_self_message_iterator_set_data(self_msg_iter, iter);
	/* The component of a filter's iterator is that filter (as the muxer does). */
	if (!create_upstreams(iter, (bt_self_component_filter *) self_comp,
			&can_seek_forward)) {
		goto error;
	}

	/*
	 * Seeking to a time (filter.utils.trimmer's `begin`) is babeltrace2's
	 * auto-seek: it seeks this iterator to its beginning, then drops what
	 * comes before that time and recreates the stream and packet
	 * beginnings it dropped. That is exact: the output is in reference
	 * time order, the very base the time is given in, while an upstream
	 * seek would need each machine's inverse formula and the sync pass
	 * reads everything anyway. The library allows it when this iterator
	 * can seek its beginning and says it can seek forward, which holds
	 * when every upstream can (every message has a time: correlate adds
	 * only inactivity messages, which have one).
	 */
	bt_self_message_iterator_configuration_set_can_seek_forward(config,
		can_seek_forward);

	/*
	 * With sync-model="piecewise" (the default) and any method, the
	 * inputs are read once (onepass.c), whether they can seek or not: one
	 * decode, and the same output behind src.ctf.lttng-live as behind
	 * src.ctf.fs. The vCPU method too aligns a guest on what was read so
	 * far and follows it (vcpu-onepass.c). When a machine then finds no
	 * pair with the reference (a path through another machine, a guest
	 * whose vCPUs do not fit its beginning), inputs that can seek are read
	 * again by the sync pass, which sees the whole trace first.
	 * sync-model="linear" takes the sync pass from the start.
	 */
	iter->onepass = iter->comp->params.sync != CORRELATE_SYNC_NONE &&
		correlate_onepass_wanted(iter);
	iter->phase = wants_sync_pass(&iter->comp->params) && !iter->onepass ?
		PHASE_SYNC_PASS : PHASE_MERGE;
	if (iter->phase == PHASE_SYNC_PASS && !iter->can_seek) {
		ITER_ERROR(iter, "filter.vm.correlate reads its inputs twice with "
			"sync-model=\"linear\" (once to synchronize the clocks, once to "
			"merge) but an upstream cannot seek to its beginning: pass "
			"sync-model=\"piecewise\", or the `transforms` parameter (the "
			"formulas a previous run logged), to read the inputs once.");
		goto error;
	}

	iter->mirror = mirror_create(self_msg_iter, self_comp, iter->log_level,
		map_of_clock_class, correlate_trace_created, iter);
	if (!iter->mirror) {
		ITER_ERROR(iter, "Cannot create the output trace mirror.");
		goto error;
	}

	iter->sync_stream = sync_stream_create(self_msg_iter,
		mirror_borrow_clock_class(iter->mirror));

	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	iter_destroy(iter);
	bt_self_message_iterator_set_data(self_msg_iter, NULL);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void correlate_msg_iter_finalize(bt_self_message_iterator *self_msg_iter)
{
	iter_destroy(bt_self_message_iterator_get_data(self_msg_iter));
}

bt_message_iterator_class_next_method_status correlate_msg_iter_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	struct correlate_iter *iter = bt_self_message_iterator_get_data(self_msg_iter);

	if (iter->phase == PHASE_SYNC_PASS) {
		bt_message_iterator_class_next_method_status status =
			correlate_sync_pass(iter);

		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			return status;
		}
	}

	return correlate_merge_next(iter, msgs, capacity, count);
}

bool correlate_seek_upstreams(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->upstreams->len; i++) {
		struct upstream *upstream = &g_array_index(iter->upstreams, struct upstream, i);

		upstream_reset(upstream);
		if (bt_message_iterator_seek_beginning(upstream->iterator) !=
				BT_MESSAGE_ITERATOR_SEEK_BEGINNING_STATUS_OK) {
			ITER_ERROR(iter, "Cannot seek upstream message iterator #%u to "
				"its beginning.", i);
			return false;
		}
	}

	/* Streams start over: their positions and last times too. */
	correlate_forget_streams(iter);
	return true;
}

void correlate_forget_streams(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->bounds->len; i++) {
		struct upstream_bound *bound =
			&g_array_index(iter->bounds, struct upstream_bound, i);

		bound->cached_stream = NULL;
		bound->cached_state = NULL;
	}

	iter->last_stream = NULL;
	iter->last_stream_state = NULL;
	g_hash_table_remove_all(iter->streams);
	reorder_forget_queues(iter->reorder);
}

bt_message_iterator_class_can_seek_beginning_method_status
correlate_msg_iter_can_seek_beginning(bt_self_message_iterator *self_msg_iter,
		bt_bool *can_seek)
{
	struct correlate_iter *iter = bt_self_message_iterator_get_data(self_msg_iter);

	*can_seek = iter->can_seek;
	return BT_MESSAGE_ITERATOR_CLASS_CAN_SEEK_BEGINNING_METHOD_STATUS_OK;
}

bt_message_iterator_class_seek_beginning_method_status correlate_msg_iter_seek_beginning(
		bt_self_message_iterator *self_msg_iter)
{
	struct correlate_iter *iter = bt_self_message_iterator_get_data(self_msg_iter);

	if (!correlate_seek_upstreams(iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_ERROR;
	}

	correlate_merge_reset(iter);

	/* The sync pass is not redone once its results are known. */
	if (iter->phase == PHASE_SYNC_PASS) {
		correlate_sync_pass_reset(iter);
	}

	return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}
