#include <glib.h>

#include "event.h"
#include "state/loss-streams.h"

struct loss_streams {
	/* bt_stream * -> struct loss_stream */
	GHashTable *table;
};

static void free_entry(gpointer data)
{
	struct loss_stream *entry = data;

	bt_stream_put_ref(entry->stream);
	g_free(entry);
}

struct loss_streams *loss_streams_create(void)
{
	struct loss_streams *streams = g_new0(struct loss_streams, 1);

	streams->table = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, free_entry);
	return streams;
}

void loss_streams_destroy(struct loss_streams *streams)
{
	if (!streams)
		return;
	g_hash_table_destroy(streams->table);
	g_free(streams);
}

uint64_t loss_stream_key(const bt_stream *stream)
{
	return stream ? (uint64_t) (uintptr_t) stream : UINT64_MAX;
}

struct loss_stream *loss_streams_get(struct loss_streams *streams,
		const bt_stream *stream)
{
	struct loss_stream *entry = g_hash_table_lookup(streams->table, stream);

	if (!entry) {
		entry = g_new0(struct loss_stream, 1);
		entry->stream = stream;
		bt_stream_get_ref(stream);
		entry->cpu = VM_FIELD_MISSING;
		g_hash_table_insert(streams->table, (gpointer) stream, entry);
	}
	return entry;
}

struct loss_stream *loss_streams_find(struct loss_streams *streams, uint64_t key)
{
	if (key == UINT64_MAX)
		return NULL;
	return g_hash_table_lookup(streams->table, (gconstpointer) (uintptr_t) key);
}

/* The packet context's `cpu_id`, VM_FIELD_MISSING if it has none. */
static int64_t packet_cpu_id(const bt_packet *packet)
{
	const bt_field *context = bt_packet_borrow_context_field_const(packet);
	const bt_field *field;
	bt_field_class_type type;

	if (!context || !bt_field_class_type_is(bt_field_get_class_type(context),
			BT_FIELD_CLASS_TYPE_STRUCTURE))
		return VM_FIELD_MISSING;
	field = bt_field_structure_borrow_member_field_by_name_const(context, "cpu_id");
	if (!field)
		return VM_FIELD_MISSING;
	type = bt_field_get_class_type(field);
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		uint64_t value = bt_field_integer_unsigned_get_value(field);

		return value > INT64_MAX ? VM_FIELD_MISSING : (int64_t) value;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return bt_field_integer_signed_get_value(field);
	return VM_FIELD_MISSING;
}

void loss_streams_note_packet(struct loss_streams *streams, const bt_packet *packet)
{
	struct loss_stream *entry =
		loss_streams_get(streams, bt_packet_borrow_stream_const(packet));

	entry->cpu = packet_cpu_id(packet);
}

void loss_streams_forget(struct loss_streams *streams, const bt_stream *stream)
{
	g_hash_table_remove(streams->table, stream);
}
