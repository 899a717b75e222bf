/* The same trace given twice: see duplicate-inputs.h. */

#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>

#include "correlate/duplicate-inputs.h"

struct duplicate_inputs {
	/* Identity (owned) -> the first stream with it (a reference held). */
	GHashTable *streams;
	bool warned;
};

static void put_stream(gpointer stream)
{
	bt_stream_put_ref(stream);
}

struct duplicate_inputs *duplicate_inputs_create(void)
{
	struct duplicate_inputs *inputs = g_new0(struct duplicate_inputs, 1);

	inputs->streams = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		put_stream);
	return inputs;
}

void duplicate_inputs_destroy(struct duplicate_inputs *inputs)
{
	if (!inputs)
		return;
	g_hash_table_destroy(inputs->streams);
	g_free(inputs);
}

static char *uuid_text(bt_uuid uuid)
{
	GString *text = g_string_new(NULL);

	for (int i = 0; i < 16; i++)
		g_string_append_printf(text, "%02x", uuid[i]);
	return g_string_free(text, FALSE);
}

/*
 * What tells a stream apart from every other stream, NULL when nothing
 * does: without a trace or clock UUID, two traces may look alike.
 */
static char *identity_of(const bt_stream *stream)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const bt_stream_class *stream_class = bt_stream_borrow_class_const(stream);
	const bt_clock_class *clock = bt_stream_class_borrow_default_clock_class_const(
		stream_class);
	bt_uuid uuid = bt_trace_get_uuid(trace);
	const char *name = bt_stream_get_name(stream);
	char *text, *identity;

	if (uuid) {
		text = uuid_text(uuid);
		identity = g_strdup_printf("trace %s\x1f%" PRIu64 "\x1f%" PRIu64, text,
			bt_stream_class_get_id(stream_class), bt_stream_get_id(stream));
	} else if (clock && bt_clock_class_get_uuid(clock) && name) {
		text = uuid_text(bt_clock_class_get_uuid(clock));
		identity = g_strdup_printf("clock %s\x1f%s\x1f%" PRIu64 "\x1f%" PRIu64, text,
			name, bt_stream_class_get_id(stream_class), bt_stream_get_id(stream));
	} else {
		return NULL;
	}
	g_free(text);
	return identity;
}

static char *warning_of(const bt_stream *stream)
{
	const char *trace_name = bt_trace_get_name(bt_stream_borrow_trace_const(stream));
	const char *stream_name = bt_stream_get_name(stream);

	return g_strdup_printf("Two inputs give the same trace: stream `%s` of trace "
		"`%s` comes through two input ports (two src.ctf.fs on the same trace "
		"directory?), so each of its events comes out twice and everything "
		"downstream counts them twice. Give each trace once.",
		stream_name ? stream_name : "(unnamed)", trace_name ? trace_name : "(unnamed)");
}

char *duplicate_inputs_note(struct duplicate_inputs *inputs, const bt_stream *stream)
{
	char *identity = identity_of(stream);
	const bt_stream *first;

	if (!identity)
		return NULL;
	first = g_hash_table_lookup(inputs->streams, identity);
	if (!first) {
		bt_stream_get_ref(stream);
		g_hash_table_insert(inputs->streams, identity, (gpointer) stream);
		return NULL;
	}
	g_free(identity);
	if (first == stream || inputs->warned)
		return NULL;
	inputs->warned = true;
	return warning_of(stream);
}
