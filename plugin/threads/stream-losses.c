#include <glib.h>

#include "common/discarded-items.h"
#include "common/msg-time.h"
#include "common/address-hash.h"
#include "common/packet-cpu.h"
#include "event.h"
#include "stream-losses.h"

/* What is known of one upstream stream. */
struct stream_info {
	const bt_stream *stream;   /* a reference is held: its address stays its own */
	int64_t cpu;               /* cpu_id of its latest packet, VM_FIELD_MISSING */
	bool has_time;
	int64_t last_ts;           /* time of its latest message that had one */
	bool gap_seen;
	/* The message callback's slot (stream_losses_message_cb). */
	void *user;
};

#define INFO_CACHE_BITS 6
#define INFO_CACHE_SIZE (1 << INFO_CACHE_BITS)

struct stream_losses {
	stream_losses_message_cb message;
	stream_losses_gap_cb gap;
	void *data;
	struct vm_gap_locator *locator;
	GHashTable *streams;       /* const bt_stream * -> struct stream_info */
	/* Direct-mapped, in front of `streams`: every message looks one up. */
	struct stream_info *cache[INFO_CACHE_SIZE];
	/* The latest time pushed: pushes never go back in time. */
	bool has_now;
	int64_t now;
	/* Being destroyed: what the locator still releases is only dropped. */
	bool closing;
	/*
	 * The message being pushed and its own time, if it has one. The
	 * caller holds a reference on it during the push: one of ours is
	 * taken only if the locator keeps it (`pushing_released` false).
	 */
	const bt_message *pushing;
	struct stream_info *pushing_info;  /* NULL: of no stream */
	bool pushing_has_ts;
	int64_t pushing_ts;
	bool pushing_released;
};

static void on_release(void *cookie, void *data)
{
	struct stream_losses *losses = data;
	const bt_message *msg = cookie;

	if (msg == losses->pushing) {
		/* Straight through: no reference of ours was taken. */
		losses->pushing_released = true;
		losses->message(msg, losses->pushing_has_ts ? &losses->pushing_ts : NULL,
			losses->pushing_info ? &losses->pushing_info->user : NULL,
			losses->data);
		return;
	}
	if (!losses->closing)
		losses->message(msg, NULL, NULL, losses->data);
	bt_message_put_ref(msg);
}

static void on_gap(const struct vm_gap *gap, void *data)
{
	struct stream_losses *losses = data;
	struct stream_info *info = g_hash_table_lookup(losses->streams,
		(gconstpointer) (uintptr_t) gap->stream);
	bool first;

	if (losses->closing || !info)
		return;
	first = !info->gap_seen;
	info->gap_seen = true;
	losses->gap(info->stream, info->cpu, gap, first, losses->data);
}

static void info_destroy(gpointer data)
{
	struct stream_info *info = data;

	bt_stream_put_ref(info->stream);
	g_free(info);
}

struct stream_losses *stream_losses_create(stream_losses_message_cb message,
		stream_losses_gap_cb gap, void *data)
{
	struct stream_losses *losses = g_new0(struct stream_losses, 1);
	struct vm_gap_locator_callbacks cb = {
		.release = on_release,
		.gap = on_gap,
		.data = losses,
	};

	losses->message = message;
	losses->gap = gap;
	losses->data = data;
	losses->streams = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
		info_destroy);
	/* Default limits: 65536 messages, 10 ms of trace time. */
	losses->locator = vm_gap_locator_create(&cb, 0, 0);
	return losses;
}

void stream_losses_destroy(struct stream_losses *losses)
{
	if (!losses)
		return;
	losses->closing = true;
	vm_gap_locator_destroy(losses->locator);
	g_hash_table_destroy(losses->streams);
	g_free(losses);
}

static struct stream_info *info_of(struct stream_losses *losses, const bt_stream *stream)
{
	struct stream_info **cached = &losses->cache[vm_address_hash(stream, INFO_CACHE_BITS)];
	struct stream_info *info;

	if (*cached && (*cached)->stream == stream)
		return *cached;
	info = g_hash_table_lookup(losses->streams, stream);
	if (!info) {
		info = g_new0(struct stream_info, 1);
		info->stream = stream;
		bt_stream_get_ref(stream);
		info->cpu = VM_FIELD_MISSING;
		g_hash_table_insert(losses->streams, (gpointer) stream, info);
	}
	*cached = info;
	return info;
}

/* Time of a message that had none: the time reached, or `fallback` first. */
static int64_t current_time(const struct stream_losses *losses, int64_t fallback)
{
	return losses->has_now ? losses->now : fallback;
}

static void push_discarded(struct stream_losses *losses, const bt_message *msg,
		struct stream_info *info)
{
	struct discarded_items items;

	discarded_items_get(msg, &items);
	if (!items.has_range) {
		/* No times: the neighbouring ones known now (see the header). */
		items.end = current_time(losses, 0);
		items.begin = info->has_time ? info->last_ts : items.end;
	}
	vm_gap_locator_push_loss(losses->locator, (uint64_t) (uintptr_t) info->stream,
		items.begin, items.end, items.count, items.packets, (void *) msg);
}

/* The locator kept the message pushed: it needs a reference of its own. */
static void end_push(struct stream_losses *losses, const bt_message *msg)
{
	if (!losses->pushing_released)
		bt_message_get_ref(msg);
	losses->pushing = NULL;
}

void stream_losses_push(struct stream_losses *losses, const bt_message *msg)
{
	struct msg_time time;
	bt_message_type type;
	const bt_stream *stream;
	struct stream_info *info;
	int64_t ts = 0;
	bool has_time;

	msg_time_get(msg, &time);
	type = time.type;
	stream = time.stream;
	info = stream ? info_of(losses, stream) : NULL;

	losses->pushing = msg;
	losses->pushing_info = info;
	losses->pushing_released = false;
	losses->pushing_has_ts = false;
	if (type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
			type == BT_MESSAGE_TYPE_DISCARDED_PACKETS) {
		push_discarded(losses, msg, info);
		end_push(losses, msg);
		return;
	}
	if (type == BT_MESSAGE_TYPE_PACKET_BEGINNING)
		info->cpu = vm_packet_cpu_id(bt_message_packet_beginning_borrow_packet_const(msg));
	/* The message's own time, as the muxer orders it. */
	has_time = time.has_time;
	if (has_time)
		ts = time.ns;
	if (has_time && info) {
		info->has_time = true;
		info->last_ts = ts;
	}
	/* Out-of-order or timeless messages keep the time reached. */
	if (has_time && (!losses->has_now || ts > losses->now)) {
		losses->now = ts;
		losses->has_now = true;
	}
	losses->pushing_has_ts = has_time;
	losses->pushing_ts = ts;
	vm_gap_locator_push(losses->locator, stream ? (uint64_t) (uintptr_t) stream :
		UINT64_MAX, current_time(losses, 0), type == BT_MESSAGE_TYPE_EVENT,
		(void *) msg);
	end_push(losses, msg);
}

void stream_losses_flush(struct stream_losses *losses)
{
	vm_gap_locator_flush(losses->locator);
}
