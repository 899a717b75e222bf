#include "fields-sink.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "field-dump.h"

struct fields_sink {
	FILE *out;
	uint64_t port_count;
	GPtrArray *iterators;   /* bt_message_iterator *, NULL once ended */
	GHashTable *seen;       /* "stream key|event class id" already described */
	GString *line;
};

static void append_stream_key(GString *line, const bt_stream *stream)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const char *name = bt_trace_get_name(trace);
	bt_uuid uuid = bt_trace_get_uuid(trace);

	g_string_append(line, name ? name : "(unnamed)");
	g_string_append_c(line, '|');
	for (int i = 0; uuid && i < 16; i++) {
		g_string_append_printf(line, "%02x", uuid[i]);
	}
	g_string_append_printf(line, "|%" PRIu64 "|%" PRIu64,
		bt_stream_class_get_id(bt_stream_borrow_class_const(stream)),
		bt_stream_get_id(stream));
}

/* "KEY\tKIND\tTIME\t": TIME in ns from origin, or "-". */
static void begin_line(struct fields_sink *sink, const bt_stream *stream, const char *kind,
		const bt_clock_snapshot *snapshot)
{
	int64_t ns;

	g_string_truncate(sink->line, 0);
	append_stream_key(sink->line, stream);
	g_string_append_printf(sink->line, "\t%s\t", kind);
	if (!snapshot) {
		g_string_append_c(sink->line, '-');
	} else if (bt_clock_snapshot_get_ns_from_origin(snapshot, &ns) ==
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		g_string_append_printf(sink->line, "%" PRId64, ns);
	} else {
		bt_current_thread_clear_error();
		g_string_append(sink->line, "overflow");
	}
	g_string_append_c(sink->line, '\t');
}

static void end_line(struct fields_sink *sink)
{
	g_string_append_c(sink->line, '\n');
	fwrite(sink->line->str, 1, sink->line->len, sink->out);
}

static void append_environment(GString *line, const bt_trace *trace)
{
	uint64_t count = bt_trace_get_environment_entry_count(trace);

	for (uint64_t i = 0; i < count; i++) {
		const char *name;
		const bt_value *value;

		bt_trace_borrow_environment_entry_by_index_const(trace, i, &name, &value);
		if (bt_value_get_type(value) == BT_VALUE_TYPE_STRING) {
			g_string_append_printf(line, " env:%s=\"%s\"", name, bt_value_string_get(value));
		} else if (bt_value_get_type(value) == BT_VALUE_TYPE_SIGNED_INTEGER) {
			g_string_append_printf(line, " env:%s=%" PRId64, name,
				bt_value_integer_signed_get(value));
		}
	}
}

static void write_stream_beginning(struct fields_sink *sink, const bt_message *msg)
{
	const bt_stream *stream = bt_message_stream_beginning_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	const bt_clock_snapshot *snapshot = NULL;

	if (bt_stream_class_borrow_default_clock_class_const(sc) &&
			bt_message_stream_beginning_borrow_default_clock_snapshot_const(msg,
				&snapshot) != BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN) {
		snapshot = NULL;
	}
	begin_line(sink, stream, "stream-beginning", snapshot);
	g_string_append_printf(sink->line,
		"name=%s class=%s packets=%d/%d/%d discarded-events=%d/%d "
		"discarded-packets=%d/%d clock=%d packet-context=",
		bt_stream_get_name(stream) ? bt_stream_get_name(stream) : "-",
		bt_stream_class_get_name(sc) ? bt_stream_class_get_name(sc) : "-",
		bt_stream_class_supports_packets(sc),
		bt_stream_class_packets_have_beginning_default_clock_snapshot(sc),
		bt_stream_class_packets_have_end_default_clock_snapshot(sc),
		bt_stream_class_supports_discarded_events(sc),
		bt_stream_class_discarded_events_have_default_clock_snapshots(sc),
		bt_stream_class_supports_discarded_packets(sc),
		bt_stream_class_discarded_packets_have_default_clock_snapshots(sc),
		bt_stream_class_borrow_default_clock_class_const(sc) != NULL);
	field_class_dump(sink->line, bt_stream_class_borrow_packet_context_field_class_const(sc));
	g_string_append(sink->line, " common-context=");
	field_class_dump(sink->line,
		bt_stream_class_borrow_event_common_context_field_class_const(sc));
	append_environment(sink->line, bt_stream_borrow_trace_const(stream));
	end_line(sink);
}

static void write_stream_end(struct fields_sink *sink, const bt_message *msg)
{
	const bt_stream *stream = bt_message_stream_end_borrow_stream_const(msg);
	const bt_clock_snapshot *snapshot = NULL;

	if (bt_stream_class_borrow_default_clock_class_const(bt_stream_borrow_class_const(stream)) &&
			bt_message_stream_end_borrow_default_clock_snapshot_const(msg, &snapshot) !=
				BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN) {
		snapshot = NULL;
	}
	begin_line(sink, stream, "stream-end", snapshot);
	end_line(sink);
}

static void write_packet(struct fields_sink *sink, const bt_message *msg, bool beginning)
{
	const bt_packet *packet = beginning ? bt_message_packet_beginning_borrow_packet_const(msg) :
		bt_message_packet_end_borrow_packet_const(msg);
	const bt_stream *stream = bt_packet_borrow_stream_const(packet);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	const bt_clock_snapshot *snapshot = NULL;

	if (beginning && bt_stream_class_packets_have_beginning_default_clock_snapshot(sc)) {
		snapshot = bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg);
	} else if (!beginning && bt_stream_class_packets_have_end_default_clock_snapshot(sc)) {
		snapshot = bt_message_packet_end_borrow_default_clock_snapshot_const(msg);
	}
	begin_line(sink, stream, beginning ? "packet-beginning" : "packet-end", snapshot);
	g_string_append(sink->line, "context=");
	field_dump(sink->line, bt_packet_borrow_context_field_const(packet));
	end_line(sink);
}

/* The event class, once per stream: its attributes and field classes. */
static void describe_event_class(struct fields_sink *sink, const bt_stream *stream,
		const bt_event_class *ec)
{
	bt_event_class_log_level level;
	char *key;

	begin_line(sink, stream, "event-class", NULL);
	g_string_append_printf(sink->line, "id=%" PRIu64, bt_event_class_get_id(ec));
	key = g_strndup(sink->line->str, sink->line->len);
	if (g_hash_table_contains(sink->seen, key)) {
		g_free(key);
		return;
	}
	g_hash_table_add(sink->seen, key);
	g_string_append_printf(sink->line, " name=%s emf=%s level=",
		bt_event_class_get_name(ec) ? bt_event_class_get_name(ec) : "-",
		bt_event_class_get_emf_uri(ec) ? bt_event_class_get_emf_uri(ec) : "-");
	if (bt_event_class_get_log_level(ec, &level) == BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		g_string_append_printf(sink->line, "%d", (int) level);
	} else {
		g_string_append_c(sink->line, '-');
	}
	g_string_append(sink->line, " specific-context=");
	field_class_dump(sink->line, bt_event_class_borrow_specific_context_field_class_const(ec));
	g_string_append(sink->line, " payload=");
	field_class_dump(sink->line, bt_event_class_borrow_payload_field_class_const(ec));
	end_line(sink);
}

static void write_event(struct fields_sink *sink, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(event);
	const bt_stream *stream = bt_event_borrow_stream_const(event);

	describe_event_class(sink, stream, ec);
	begin_line(sink, stream, "event",
		bt_message_event_borrow_stream_class_default_clock_class_const(msg) ?
			bt_message_event_borrow_default_clock_snapshot_const(msg) : NULL);
	g_string_append_printf(sink->line, "%" PRIu64 ":%s common-context=",
		bt_event_class_get_id(ec),
		bt_event_class_get_name(ec) ? bt_event_class_get_name(ec) : "-");
	field_dump(sink->line, bt_event_borrow_common_context_field_const(event));
	g_string_append(sink->line, " specific-context=");
	field_dump(sink->line, bt_event_borrow_specific_context_field_const(event));
	g_string_append(sink->line, " payload=");
	field_dump(sink->line, bt_event_borrow_payload_field_const(event));
	end_line(sink);
}

static void write_discarded(struct fields_sink *sink, const bt_message *msg, bool events)
{
	const bt_stream *stream = events ? bt_message_discarded_events_borrow_stream_const(msg) :
		bt_message_discarded_packets_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	bool has_times = events ? bt_stream_class_discarded_events_have_default_clock_snapshots(sc) :
		bt_stream_class_discarded_packets_have_default_clock_snapshots(sc);
	const bt_clock_snapshot *end = NULL;
	uint64_t count = 0;
	bt_property_availability available;
	int64_t ns;

	begin_line(sink, stream, events ? "discarded-events" : "discarded-packets",
		!has_times ? NULL : events ?
			bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg) :
			bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg));
	if (has_times) {
		end = events ?
			bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg) :
			bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg);
	}
	available = events ? bt_message_discarded_events_get_count(msg, &count) :
		bt_message_discarded_packets_get_count(msg, &count);
	if (available == BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		g_string_append_printf(sink->line, "count=%" PRIu64, count);
	} else {
		g_string_append(sink->line, "count=-");
	}
	if (end && bt_clock_snapshot_get_ns_from_origin(end, &ns) ==
			BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		g_string_append_printf(sink->line, "\tend=%" PRId64, ns);
	}
	end_line(sink);
}

static void write_message(struct fields_sink *sink, const bt_message *msg)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		write_event(sink, msg);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		write_stream_beginning(sink, msg);
		break;
	case BT_MESSAGE_TYPE_STREAM_END:
		write_stream_end(sink, msg);
		break;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		write_packet(sink, msg, true);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		write_packet(sink, msg, false);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		write_discarded(sink, msg, true);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		write_discarded(sink, msg, false);
		break;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		break;
	}
}

static bool add_free_port(bt_self_component_sink *self_comp, struct fields_sink *sink)
{
	char name[32];

	g_snprintf(name, sizeof(name), "in%" PRIu64, sink->port_count++);
	return bt_self_component_sink_add_input_port(self_comp, name, NULL, NULL) ==
		BT_SELF_COMPONENT_ADD_PORT_STATUS_OK;
}

static void destroy(struct fields_sink *sink)
{
	if (sink->out) {
		fclose(sink->out);
	}
	if (sink->iterators) {
		for (guint i = 0; i < sink->iterators->len; i++) {
			bt_message_iterator_put_ref(g_ptr_array_index(sink->iterators, i));
		}
		g_ptr_array_free(sink->iterators, TRUE);
	}
	if (sink->seen) {
		g_hash_table_destroy(sink->seen);
	}
	if (sink->line) {
		g_string_free(sink->line, TRUE);
	}
	g_free(sink);
}

bt_component_class_initialize_method_status fields_sink_initialize(
		bt_self_component_sink *self_comp,
		bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_data)
{
	const bt_value *path = bt_value_map_borrow_entry_value_const(params, "path");
	struct fields_sink *sink = g_new0(struct fields_sink, 1);

	(void) config;
	(void) init_data;
	if (!path || !bt_value_is_string(path)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			bt_self_component_sink_as_self_component(self_comp),
			"Missing or non-string `path` parameter (the output file).");
		destroy(sink);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}

	sink->out = fopen(bt_value_string_get(path), "w");
	if (!sink->out) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			bt_self_component_sink_as_self_component(self_comp),
			"Cannot write `%s`: %s.", bt_value_string_get(path), strerror(errno));
		destroy(sink);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}

	sink->iterators = g_ptr_array_new();
	sink->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	sink->line = g_string_new(NULL);
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self_comp), sink);
	if (!add_free_port(self_comp, sink)) {
		destroy(sink);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}

	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void fields_sink_finalize(bt_self_component_sink *self_comp)
{
	destroy(bt_self_component_get_data(bt_self_component_sink_as_self_component(self_comp)));
}

bt_component_class_port_connected_method_status fields_sink_port_connected(
		bt_self_component_sink *self_comp,
		bt_self_component_port_input *self_port,
		const bt_port_output *other_port)
{
	(void) self_port;
	(void) other_port;
	return add_free_port(self_comp, bt_self_component_get_data(
			bt_self_component_sink_as_self_component(self_comp))) ?
		BT_COMPONENT_CLASS_PORT_CONNECTED_METHOD_STATUS_OK :
		BT_COMPONENT_CLASS_PORT_CONNECTED_METHOD_STATUS_MEMORY_ERROR;
}

bt_component_class_sink_graph_is_configured_method_status fields_sink_graph_is_configured(
		bt_self_component_sink *self_comp)
{
	struct fields_sink *sink = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_comp));
	uint64_t count = bt_component_sink_get_input_port_count(
		bt_self_component_sink_as_component_sink(self_comp));

	for (uint64_t i = 0; i < count; i++) {
		bt_self_component_port_input *port =
			bt_self_component_sink_borrow_input_port_by_index(self_comp, i);
		bt_message_iterator *iterator;

		if (!bt_port_is_connected(bt_port_input_as_port_const(
				bt_self_component_port_input_as_port_input(port)))) {
			continue;
		}
		if (bt_message_iterator_create_from_sink_component(self_comp, port, &iterator) !=
				BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK) {
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
		}
		g_ptr_array_add(sink->iterators, iterator);
	}

	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* One batch from `iterator`; false once it ended. */
static bool consume_one(struct fields_sink *sink, bt_message_iterator *iterator,
		bt_component_class_sink_consume_method_status *status)
{
	bt_message_array_const msgs;
	uint64_t count;

	switch (bt_message_iterator_next(iterator, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		for (uint64_t i = 0; i < count; i++) {
			write_message(sink, msgs[i]);
			bt_message_put_ref(msgs[i]);
		}
		*status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
		return true;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return true;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return false;
	default:
		*status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		return false;
	}
}

/* A batch from every upstream iterator that has not ended. */
bt_component_class_sink_consume_method_status fields_sink_consume(
		bt_self_component_sink *self_comp)
{
	struct fields_sink *sink = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_comp));
	bt_component_class_sink_consume_method_status status =
		BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	bool live = false;

	for (guint i = 0; i < sink->iterators->len; i++) {
		bt_message_iterator *iterator = g_ptr_array_index(sink->iterators, i);

		if (!iterator) {
			continue;
		}
		if (consume_one(sink, iterator, &status)) {
			live = true;
			continue;
		}
		if (status == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR) {
			return status;
		}
		bt_message_iterator_put_ref(iterator);
		g_ptr_array_index(sink->iterators, i) = NULL;
	}

	if (!live) {
		return fflush(sink->out) == 0 ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END :
			BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return status;
}
