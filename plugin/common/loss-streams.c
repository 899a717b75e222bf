/*
 * Per-stream loss bookkeeping: see loss-streams.h.
 */

#include <glib.h>

#include "event.h"
#include "common/address-hash.h"
#include "common/loss-streams.h"
#include "common/packet-cpu.h"

#define CACHE_BITS 6
#define CACHE_SIZE (1 << CACHE_BITS)

struct loss_streams {
	/* bt_stream * -> struct loss_stream */
	GHashTable *table;
	/* Direct-mapped, in front of `table`. */
	struct loss_stream *cache[CACHE_SIZE];
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
	if (!streams) {
		return;
	}
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
	struct loss_stream **cached =
		&streams->cache[vm_address_hash(stream, CACHE_BITS)];
	struct loss_stream *entry;

	if (*cached && (*cached)->stream == stream) {
		return *cached;
	}
	entry = g_hash_table_lookup(streams->table, stream);
	if (!entry) {
		entry = g_new0(struct loss_stream, 1);
		entry->stream = stream;
		bt_stream_get_ref(stream);
		entry->cpu = VM_FIELD_MISSING;
		g_hash_table_insert(streams->table, (gpointer) stream, entry);
	}
	*cached = entry;
	return entry;
}

struct loss_stream *loss_streams_find(struct loss_streams *streams, uint64_t key)
{
	if (key == UINT64_MAX) {
		return NULL;
	}
	return g_hash_table_lookup(streams->table, (gconstpointer) (uintptr_t) key);
}

void loss_streams_note_packet(struct loss_streams *streams, const bt_packet *packet)
{
	struct loss_stream *entry =
		loss_streams_get(streams, bt_packet_borrow_stream_const(packet));

	entry->cpu = vm_packet_cpu_id(packet);
}

void loss_streams_forget(struct loss_streams *streams, const bt_stream *stream)
{
	struct loss_stream **cached =
		&streams->cache[vm_address_hash(stream, CACHE_BITS)];

	if (*cached && (*cached)->stream == stream) {
		*cached = NULL;
	}
	g_hash_table_remove(streams->table, stream);
}
