/*
 * filter.vm.correlate, the message iterator's babeltrace2 methods: it
 * creates and owns every part (doc/correlate.md), the driver (drive.c)
 * runs them, and a seek to the beginning resets them in one place.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/correlate.h"
#include "correlate/drive.h"
#include "correlate/env.h"
#include "correlate/formula-range.h"
#include "correlate/inputs.h"
#include "correlate/machines.h"
#include "correlate/read-once/read-once.h"
#include "correlate/strategy.h"
#include "correlate/two-pass.h"

static void iter_destroy(struct correlate_iter *iter)
{
	guint i;

	if (!iter) {
		return;
	}

	correlate_drive_reset(iter);
	correlate_sync_pass_reset(iter);
	sync_stream_destroy(iter->sync_stream);
	if (iter->mirror) {
		mirror_destroy(iter->mirror);
	}

	g_array_free(iter->pending, TRUE);
	g_array_free(iter->read_keys, TRUE);
	reorder_destroy(iter->reorder);
	for (i = 0; i < iter->upstreams->len; i++) {
		upstream_fini(&g_array_index(iter->upstreams, struct upstream, i));
	}

	g_array_free(iter->upstreams, TRUE);
	g_array_free(iter->bounds, TRUE);
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
	iter->infos = g_ptr_array_new_with_free_func(correlate_machine_info_destroy);
	iter->streams = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
		correlate_stream_state_destroy);
	iter->stream_classes_seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	iter->duplicates = duplicate_inputs_create();
	iter->reader = sync_event_reader_create();
	iter->records = g_array_new(FALSE, FALSE, sizeof(struct sync_record));
	iter->heads = g_array_new(FALSE, TRUE, sizeof(struct sync_head));
	iter->reorder = reorder_create(mirror_parked_destroy);
	iter->pending = g_array_new(FALSE, FALSE, sizeof(struct pending_message));
	iter->read_keys = g_array_new(FALSE, FALSE, sizeof(int64_t));
	bt_self_message_iterator_set_data(self_msg_iter, iter);
	/* The component of a filter's iterator is that filter (as the muxer does). */
	if (!correlate_inputs_create(iter, (bt_self_component_filter *) self_comp,
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
	 * inputs are read once (read-once/), whether they can seek or not: one
	 * decode, and the same output behind src.ctf.lttng-live as behind
	 * src.ctf.fs. The vCPU method too aligns a guest on what was read so
	 * far and follows it (vcpu-onepass.c). When a machine then finds no
	 * pair with the reference (a path through another machine, a guest
	 * whose vCPUs do not fit its beginning), inputs that can seek are read
	 * again by the sync pass, which sees the whole trace first.
	 * sync-model="linear" takes the sync pass from the start.
	 */
	iter->strategy = correlate_read_once_wanted(&iter->comp->params) ?
		&correlate_read_once : &correlate_fixed_maps;
	iter->state = wants_sync_pass(&iter->comp->params) && !correlate_reads_once(iter) ?
		CORRELATE_STATE_SYNC_PASS : CORRELATE_STATE_SETTLE;
	if (iter->state == CORRELATE_STATE_SYNC_PASS && !iter->can_seek) {
		ITER_ERROR(iter, "filter.vm.correlate reads its inputs twice with "
			"sync-model=\"linear\" (once to synchronize the clocks, once to "
			"merge) but an upstream cannot seek to its beginning: pass "
			"sync-model=\"piecewise\", or the `transforms` parameter (the "
			"formulas a previous run logged), to read the inputs once.");
		goto error;
	}

	iter->mirror = mirror_create(self_msg_iter, self_comp, iter->log_level,
		correlate_clock_time, correlate_trace_created, iter);
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
	return correlate_drive_next(bt_self_message_iterator_get_data(self_msg_iter), msgs,
		capacity, count);
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

	correlate_drive_reset(iter);
	return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}
