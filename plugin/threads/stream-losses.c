#include <glib.h>

#include "common/discarded-items.h"
#include "common/msg-time.h"
#include "common/loss-streams.h"
#include "stream-losses.h"

struct stream_losses {
	stream_losses_message_cb message;
	stream_losses_gap_cb gap;
	void *data;
	struct vm_gap_locator *locator;
	struct loss_streams *streams;
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
	struct loss_stream *pushing_info;  /* NULL: of no stream */
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
	if (!losses->closing) {
		losses->message(msg, NULL, NULL, losses->data);
	}
	bt_message_put_ref(msg);
}

static void on_gap(const struct vm_gap *gap, void *data)
{
	struct stream_losses *losses = data;
	struct loss_stream *info = loss_streams_find(losses->streams, gap->stream);
	bool first;

	if (losses->closing || !info) {
		return;
	}
	first = !info->warned;
	info->warned = true;
	losses->gap(info->stream, info->cpu, gap, first, losses->data);
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
	losses->streams = loss_streams_create();
	/* Default limits: 65536 messages, 10 ms of trace time. */
	losses->locator = vm_gap_locator_create(&cb, 0, 0);
	return losses;
}

void stream_losses_destroy(struct stream_losses *losses)
{
	if (!losses) {
		return;
	}
	losses->closing = true;
	vm_gap_locator_destroy(losses->locator);
	loss_streams_destroy(losses->streams);
	g_free(losses);
}

/* Time of a message that had none: the time reached, or `fallback` first. */
static int64_t current_time(const struct stream_losses *losses, int64_t fallback)
{
	return losses->has_now ? losses->now : fallback;
}

static void push_discarded(struct stream_losses *losses, const bt_message *msg,
		struct loss_stream *info)
{
	struct discarded_items items;

	discarded_items_get(msg, &items);
	if (!items.has_range) {
		/* No times: the neighbouring ones known now (see the header). */
		items.end = current_time(losses, 0);
		items.begin = info->has_time ? info->last_ts : items.end;
	}
	vm_gap_locator_push_loss(losses->locator, loss_stream_key(info->stream),
		items.begin, items.end, items.count, items.packets, (void *) msg);
}

/* The locator kept the message pushed: it needs a reference of its own. */
static void end_push(struct stream_losses *losses, const bt_message *msg)
{
	if (!losses->pushing_released) {
		bt_message_get_ref(msg);
	}
	losses->pushing = NULL;
}

void stream_losses_push(struct stream_losses *losses, const bt_message *msg)
{
	struct msg_time time;
	bt_message_type type;
	const bt_stream *stream;
	struct loss_stream *info;
	int64_t ts = 0;
	bool has_time;

	msg_time_get(msg, &time);
	type = time.type;
	stream = time.stream;
	info = stream ? loss_streams_get(losses->streams, stream) : NULL;

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
	if (type == BT_MESSAGE_TYPE_PACKET_BEGINNING) {
		loss_streams_note_packet(losses->streams,
			bt_message_packet_beginning_borrow_packet_const(msg));
	}
	/* The message's own time, as the muxer orders it. */
	has_time = time.has_time;
	if (has_time) {
		ts = time.ns;
	}
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
	vm_gap_locator_push(losses->locator, loss_stream_key(stream),
		current_time(losses, 0), type == BT_MESSAGE_TYPE_EVENT, (void *) msg);
	end_push(losses, msg);
}

void stream_losses_flush(struct stream_losses *losses)
{
	vm_gap_locator_flush(losses->locator);
}
