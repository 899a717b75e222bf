/*
 * filter.vmtest.mirror: one input port, one output port; every upstream
 * message goes through mirror_convert() with t + offset-ns as the time
 * function of every clock class. It also checks, on every message, that
 * mirror_message_time() announces the time the converted message carries.
 * With park=true, events go through mirror_park() and
 * mirror_convert_parked() instead (what correlate does when it reads once).
 */

#include <inttypes.h>
#include <string.h>
#include <glib.h>

#include "correlate/mirror/mirror.h"
#include "sync/formula.h"
#include "sync/map.h"
#include "mirror-filter.h"

struct mirror_filter {
	bt_logging_level log_level;
	struct vm_sync_map map;
	/* Clock class name that gets no formula (tests the error path), or NULL. */
	gchar *no_formula_for;
	bool park;
};

struct mirror_filter_iter {
	struct mirror_filter *filter;
	bt_message_iterator *upstream;
	struct mirror *mirror;
	/* Upstream messages not converted yet (a batch may exceed the capacity). */
	GQueue *pending;
};

static bool read_offset(bt_self_component *self_comp, const bt_value *params,
		int64_t *offset)
{
	const bt_value *value = bt_value_map_borrow_entry_value_const(params,
		"offset-ns");

	*offset = 0;
	if (!value) {
		return true;
	}

	if (bt_value_is_signed_integer(value)) {
		*offset = bt_value_integer_signed_get(value);
		return true;
	}

	if (bt_value_is_unsigned_integer(value) &&
			bt_value_integer_unsigned_get(value) <= INT64_MAX) {
		*offset = (int64_t) bt_value_integer_unsigned_get(value);
		return true;
	}

	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
		"Parameter `offset-ns` must be a signed integer (nanoseconds), "
		"e.g. offset-ns=1000.");
	return false;
}

static bool read_no_formula_for(bt_self_component *self_comp,
		const bt_value *params, gchar **name)
{
	const bt_value *value = bt_value_map_borrow_entry_value_const(params,
		"no-formula-for");

	*name = NULL;
	if (!value) {
		return true;
	}

	if (!bt_value_is_string(value)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"Parameter `no-formula-for` must be a string (a clock class "
			"name).");
		return false;
	}

	*name = g_strdup(bt_value_string_get(value));
	return true;
}

static bool read_park(bt_self_component *self_comp, const bt_value *params, bool *park)
{
	const bt_value *value = bt_value_map_borrow_entry_value_const(params, "park");

	*park = false;
	if (!value) {
		return true;
	}

	if (!bt_value_is_bool(value)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"Parameter `park` must be a boolean.");
		return false;
	}

	*park = bt_value_bool_get(value);
	return true;
}

bt_component_class_initialize_method_status mirror_filter_initialize(
		bt_self_component_filter *self_comp_filter,
		bt_self_component_filter_configuration *config,
		const bt_value *params, void *init_data)
{
	bt_self_component *self_comp =
		bt_self_component_filter_as_self_component(self_comp_filter);
	struct mirror_filter *filter = g_new0(struct mirror_filter, 1);
	int64_t offset;

	(void) config;
	(void) init_data;
	if (!read_offset(self_comp, params, &offset) ||
			!read_no_formula_for(self_comp, params, &filter->no_formula_for) ||
			!read_park(self_comp, params, &filter->park)) {
		g_free(filter);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}

	filter->log_level = bt_component_get_logging_level(
		bt_self_component_as_component(self_comp));
	vm_sync_map_init(&filter->map, &(struct vm_sync_formula) { 1.0L, (long double) offset });
	bt_self_component_set_data(self_comp, filter);
	if (bt_self_component_filter_add_input_port(self_comp_filter, "in", NULL,
			NULL) ||
			bt_self_component_filter_add_output_port(self_comp_filter, "out",
				NULL, NULL)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"Cannot add the ports (out of memory?).");
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}

	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void mirror_filter_finalize(bt_self_component_filter *self_comp_filter)
{
	struct mirror_filter *filter = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self_comp_filter));

	if (filter) {
		g_free(filter->no_formula_for);
		g_free(filter);
	}
}

/*
 * t + offset-ns for every clock class but the `no-formula-for` one, with
 * errors worded as correlate's.
 */
static bool offset_time(void *data, const bt_clock_class *clock_class,
		int64_t ns_from_origin, int64_t *ref_ns)
{
	struct mirror_filter *filter = data;
	const char *name = bt_clock_class_get_name(clock_class);

	if (filter->no_formula_for && name &&
			strcmp(name, filter->no_formula_for) == 0) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_UNKNOWN("filter.vmtest.mirror",
			"Clock class `%s` belongs to no machine known to the filter.", name);
		return false;
	}

	if (!vm_sync_formula_apply_checked(vm_sync_map_formula_at(&filter->map, ns_from_origin),
			ns_from_origin, ref_ns) || *ref_ns < 0) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_UNKNOWN("filter.vmtest.mirror",
			"Time %" PRId64 " ns of clock class `%s` maps out of the output "
			"clock's range (0 to %" PRId64 " ns from the Unix epoch).",
			ns_from_origin, name ? name : "(unnamed)", INT64_MAX);
		return false;
	}

	return true;
}

static void drop_pending(struct mirror_filter_iter *iter)
{
	while (!g_queue_is_empty(iter->pending)) {
		bt_message_put_ref(g_queue_pop_head(iter->pending));
	}
}

static void iter_destroy(struct mirror_filter_iter *iter)
{
	if (iter->pending) {
		drop_pending(iter);
		g_queue_free(iter->pending);
	}

	bt_message_iterator_put_ref(iter->upstream);
	mirror_destroy(iter->mirror);
	g_free(iter);
}

bt_message_iterator_class_initialize_method_status mirror_filter_iterator_initialize(
		bt_self_message_iterator *self_msg_iter,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port)
{
	bt_self_component *self_comp =
		bt_self_message_iterator_borrow_component(self_msg_iter);
	/* A filter's message iterator belongs to that filter. */
	bt_self_component_filter *self_comp_filter =
		(bt_self_component_filter *) self_comp;
	struct mirror_filter_iter *iter = g_new0(struct mirror_filter_iter, 1);

	(void) config;
	(void) port;
	iter->filter = bt_self_component_get_data(self_comp);
	iter->pending = g_queue_new();
	if (bt_message_iterator_create_from_message_iterator(self_msg_iter,
			bt_self_component_filter_borrow_input_port_by_name(
				self_comp_filter, "in"),
			&iter->upstream)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_msg_iter,
			"Cannot create the upstream message iterator.");
		goto error;
	}

	iter->mirror = mirror_create(self_msg_iter, self_comp,
		iter->filter->log_level, offset_time, NULL, iter->filter);
	if (!iter->mirror) {
		goto error;
	}

	bt_self_message_iterator_set_data(self_msg_iter, iter);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;

error:
	iter_destroy(iter);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void mirror_filter_iterator_finalize(bt_self_message_iterator *self_msg_iter)
{
	iter_destroy(bt_self_message_iterator_get_data(self_msg_iter));
}

/* A stream beginning/end snapshot, NULL when its state is unknown. */
static const bt_clock_snapshot *known_stream_snapshot(const bt_message *msg,
		bool beginning)
{
	const bt_clock_snapshot *snapshot = NULL;
	bt_message_stream_clock_snapshot_state state;

	if (!(beginning ?
			bt_message_stream_beginning_borrow_stream_class_default_clock_class_const(msg) :
			bt_message_stream_end_borrow_stream_class_default_clock_class_const(msg))) {
		return NULL;
	}

	state = beginning ?
		bt_message_stream_beginning_borrow_default_clock_snapshot_const(msg,
			&snapshot) :
		bt_message_stream_end_borrow_default_clock_snapshot_const(msg,
			&snapshot);
	return state == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN ? snapshot : NULL;
}

static const bt_stream_class *packet_stream_class(const bt_packet *packet)
{
	return bt_stream_borrow_class_const(bt_packet_borrow_stream_const(packet));
}

/*
 * The default clock snapshot of an output message (for discarded items, the
 * beginning), read here independently of the mirror's own code.
 */
static const bt_clock_snapshot *output_snapshot(const bt_message *msg)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return bt_message_event_borrow_stream_class_default_clock_class_const(msg) ?
			bt_message_event_borrow_default_clock_snapshot_const(msg) : NULL;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return known_stream_snapshot(msg, true);
	case BT_MESSAGE_TYPE_STREAM_END:
		return known_stream_snapshot(msg, false);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_stream_class_packets_have_beginning_default_clock_snapshot(
				packet_stream_class(
					bt_message_packet_beginning_borrow_packet_const(msg))) ?
			bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg) :
			NULL;
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_stream_class_packets_have_end_default_clock_snapshot(
				packet_stream_class(
					bt_message_packet_end_borrow_packet_const(msg))) ?
			bt_message_packet_end_borrow_default_clock_snapshot_const(msg) :
			NULL;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_stream_class_discarded_events_have_default_clock_snapshots(
				bt_stream_borrow_class_const(
					bt_message_discarded_events_borrow_stream_const(msg))) ?
			bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg) :
			NULL;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_stream_class_discarded_packets_have_default_clock_snapshots(
				bt_stream_borrow_class_const(
					bt_message_discarded_packets_borrow_stream_const(msg))) ?
			bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg) :
			NULL;
	}

	return NULL;
}

/* mirror_message_time() must announce what mirror_convert() produces. */
static bool check_announced_time(struct mirror_filter_iter *iter,
		bt_self_message_iterator *self_msg_iter, const bt_message *in,
		const bt_message *out)
{
	int64_t announced = 0;
	bool has_announced = mirror_message_time(iter->mirror, in, &announced);
	const bt_clock_snapshot *snapshot = output_snapshot(out);
	uint64_t actual = snapshot ? bt_clock_snapshot_get_value(snapshot) : 0;

	if (has_announced != (snapshot != NULL) ||
			(snapshot && (uint64_t) announced != actual)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_msg_iter,
			"mirror_message_time() disagrees with mirror_convert() on a "
			"message of type %d: announced %s (%" PRId64 "), converted "
			"message %s (%" PRIu64 ").", (int) bt_message_get_type(in),
			has_announced ? "a time" : "no time", announced,
			snapshot ? "has a time" : "has no time", actual);
		return false;
	}

	return true;
}

/* An event as correlate converts it when it reads once: parked, then converted. */
static bt_message *convert_parked(struct mirror_filter_iter *iter, const bt_message *in)
{
	int64_t time = 0;
	bool has_time = mirror_message_time(iter->mirror, in, &time);
	struct mirror_parked *parked = mirror_park(iter->mirror, in, 0);
	bt_message *out = parked ?
		mirror_convert_parked(iter->mirror, parked, has_time, time) : NULL;

	mirror_parked_destroy(parked);
	return out;
}

static bt_message *convert(struct mirror_filter_iter *iter, const bt_message *in)
{
	return iter->filter->park && bt_message_get_type(in) == BT_MESSAGE_TYPE_EVENT ?
		convert_parked(iter, in) : mirror_convert(iter->mirror, in);
}

static bt_message_iterator_class_next_method_status fill_pending(
		struct mirror_filter_iter *iter, bt_self_message_iterator *self_msg_iter)
{
	bt_message_array_const msgs;
	uint64_t count;
	bt_message_iterator_next_status status =
		bt_message_iterator_next(iter->upstream, &msgs, &count);

	switch (status) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		for (uint64_t i = 0; i < count; i++) {
			g_queue_push_tail(iter->pending, (gpointer) msgs[i]);
		}
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	default:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_msg_iter,
			"Cannot get the next upstream messages.");
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
}

bt_message_iterator_class_next_method_status mirror_filter_iterator_next(
		bt_self_message_iterator *self_msg_iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	struct mirror_filter_iter *iter =
		bt_self_message_iterator_get_data(self_msg_iter);
	bt_message_iterator_class_next_method_status status;
	uint64_t produced = 0;

	if (g_queue_is_empty(iter->pending)) {
		status = fill_pending(iter, self_msg_iter);
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			return status;
		}
	}

	while (produced < capacity && !g_queue_is_empty(iter->pending)) {
		const bt_message *in = g_queue_pop_head(iter->pending);
		bt_message *out = convert(iter, in);
		bool ok = out && check_announced_time(iter, self_msg_iter, in, out);

		bt_message_put_ref(in);
		if (!ok) {
			bt_message_put_ref(out);
			goto error;
		}

		msgs[produced++] = out;
	}

	*count = produced;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;

error:
	for (uint64_t i = 0; i < produced; i++) {
		bt_message_put_ref(msgs[i]);
	}

	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

bt_message_iterator_class_can_seek_beginning_method_status
mirror_filter_iterator_can_seek_beginning(bt_self_message_iterator *self_msg_iter,
		bt_bool *can_seek)
{
	struct mirror_filter_iter *iter =
		bt_self_message_iterator_get_data(self_msg_iter);

	return (bt_message_iterator_class_can_seek_beginning_method_status)
		bt_message_iterator_can_seek_beginning(iter->upstream, can_seek);
}

bt_message_iterator_class_seek_beginning_method_status
mirror_filter_iterator_seek_beginning(bt_self_message_iterator *self_msg_iter)
{
	struct mirror_filter_iter *iter =
		bt_self_message_iterator_get_data(self_msg_iter);

	drop_pending(iter);
	return (bt_message_iterator_class_seek_beginning_method_status)
		bt_message_iterator_seek_beginning(iter->upstream);
}
