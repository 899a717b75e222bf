/*
 * One upstream message iterator with overlap repair: see upstream.h.
 */

#include "correlate/upstream.h"

void upstream_init(struct upstream *upstream, bt_message_iterator *iterator)
{
	*upstream = (struct upstream) { 0 };
	upstream->iterator = iterator;
	g_queue_init(&upstream->held);
	g_queue_init(&upstream->ready);
}

/* g_queue_is_empty() without a library call: asked twice per message. */
static inline bool queue_is_empty(const GQueue *queue)
{
	return queue->length == 0;
}

static void put_queue(GQueue *queue)
{
	const bt_message *msg;

	while ((msg = g_queue_pop_head(queue))) {
		bt_message_put_ref(msg);
	}
}

void upstream_reset(struct upstream *upstream)
{
	while (upstream->batch_pos < upstream->batch_count) {
		bt_message_put_ref(upstream->batch[upstream->batch_pos++]);
	}

	put_queue(&upstream->held);
	put_queue(&upstream->ready);
	upstream->held_stream = NULL;
	upstream->last_stream = NULL;
	upstream->ended = false;
}

void upstream_fini(struct upstream *upstream)
{
	upstream_reset(upstream);
	bt_message_iterator_put_ref(upstream->iterator);
	upstream->iterator = NULL;
}

static enum upstream_status pull_raw(struct upstream *upstream, const bt_message **msg)
{
	if (upstream->batch_pos == upstream->batch_count) {
		bt_message_iterator_next_status status;

		upstream->batch_pos = 0;
		upstream->batch_count = 0;
		status = bt_message_iterator_next(upstream->iterator, &upstream->batch,
			&upstream->batch_count);
		switch (status) {
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
			return UPSTREAM_END;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
			return UPSTREAM_AGAIN;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
			return UPSTREAM_MEMORY_ERROR;
		default:
			return UPSTREAM_ERROR;
		}
	}

	*msg = upstream->batch[upstream->batch_pos++];
	return UPSTREAM_OK;
}

static uint64_t clamp_value(uint64_t value, uint64_t lower, uint64_t upper)
{
	if (value > upper) {
		value = upper;
	}

	return value < lower ? lower : value;
}

static void copy_discarded_count(const bt_message *from, bt_message *to, bool events)
{
	uint64_t count;

	if (events) {
		if (bt_message_discarded_events_get_count(from, &count) ==
				BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			bt_message_discarded_events_set_count(to, count);
		}
	} else if (bt_message_discarded_packets_get_count(from, &count) ==
			BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		bt_message_discarded_packets_set_count(to, count);
	}
}

/* `msg` with its times moved to [begin, end]; NULL on memory error. */
static const bt_message *recreate(bt_self_message_iterator *self_msg_iter,
		const bt_message *msg, uint64_t begin, uint64_t end)
{
	bt_message *copy = NULL;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		copy = bt_message_packet_beginning_create_with_default_clock_snapshot(
			self_msg_iter, bt_message_packet_beginning_borrow_packet_const(msg),
			begin);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		copy = bt_message_packet_end_create_with_default_clock_snapshot(
			self_msg_iter, bt_message_packet_end_borrow_packet_const(msg), begin);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		copy = bt_message_discarded_events_create_with_default_clock_snapshots(
			self_msg_iter, bt_message_discarded_events_borrow_stream_const(msg),
			begin, end);
		if (copy) {
			copy_discarded_count(msg, copy, true);
		}

		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		copy = bt_message_discarded_packets_create_with_default_clock_snapshots(
			self_msg_iter, bt_message_discarded_packets_borrow_stream_const(msg),
			begin, end);
		if (copy) {
			copy_discarded_count(msg, copy, false);
		}

		break;
	default:
		/* Events and stream messages are never re-created. */
		bt_message_get_ref(msg);
		return msg;
	}

	return copy;
}

/*
 * Moves the held messages to the ready queue, their times clamped into
 * [lower, upper]. Returns the new lower bound (the last time placed), or
 * UINT64_MAX on memory error.
 */
static uint64_t release_held(struct upstream *upstream,
		bt_self_message_iterator *self_msg_iter, uint64_t lower, uint64_t upper,
		bool *repaired)
{
	const bt_message *msg;

	while ((msg = g_queue_pop_head(&upstream->held))) {
		struct msg_time time;
		uint64_t begin;
		uint64_t end;

		msg_time_get(msg, &time);
		begin = clamp_value(time.value, lower, upper);
		/*
		 * A discarded-items range ends where the packet it precedes
		 * ends, after that packet's beginning: that is how src.ctf.fs
		 * reports an ordinary loss, not the overlap, and where the gap
		 * was depends on it. Only its beginning takes part in the
		 * order; its end stays, unless the beginning moved past it.
		 */
		end = time.end_value < begin ? begin : time.end_value;
		if (begin != time.value || end != time.end_value) {
			const bt_message *copy = recreate(self_msg_iter, msg, begin, end);

			bt_message_put_ref(msg);
			if (!copy) {
				return UINT64_MAX;
			}

			msg = copy;
			*repaired = true;
		}

		g_queue_push_tail(&upstream->ready, (gpointer) msg);
		/* What follows in the stream comes after this message's time. */
		lower = begin;
	}

	upstream->held_stream = NULL;
	return lower;
}

/* The stream's time before the held messages, as far as this upstream knows. */
static uint64_t time_before_held(const struct upstream *upstream)
{
	return upstream->last_stream == upstream->held_stream ? upstream->last_value : 0;
}

/*
 * `msg` comes after held messages: place them, then `msg`, moving it up
 * when even clamped they end after it. False on memory error.
 */
static bool place_after_held(struct upstream *upstream,
		bt_self_message_iterator *self_msg_iter, const bt_message *msg,
		const struct msg_time *time, bool *repaired)
{
	uint64_t lower = time_before_held(upstream);
	bool same_stream = time->stream == upstream->held_stream && time->has_time;
	uint64_t upper = same_stream ? time->value : UINT64_MAX;

	lower = release_held(upstream, self_msg_iter, lower, same_stream ? upper : UINT64_MAX,
		repaired);
	if (lower == UINT64_MAX) {
		return false;
	}

	if (same_stream && time->value < lower &&
			bt_message_get_type(msg) == BT_MESSAGE_TYPE_PACKET_BEGINNING) {
		const bt_message *copy = recreate(self_msg_iter, msg, lower, lower);

		if (!copy) {
			return false;
		}

		bt_message_put_ref(msg);
		msg = copy;
		*repaired = true;
	}

	g_queue_push_tail(&upstream->ready, (gpointer) msg);
	return true;
}

static void remember(struct upstream *upstream, const struct msg_time *time)
{
	if (time->has_time) {
		upstream->last_stream = time->stream;
		upstream->last_value = time->value;
	}
}

enum upstream_status upstream_next(struct upstream *upstream,
		bt_self_message_iterator *self_msg_iter, const bt_message **msg,
		struct msg_time *time, bool *repaired)
{
	*repaired = false;
	for (;;) {
		const bt_message *raw;
		enum upstream_status status;

		if (!queue_is_empty(&upstream->ready)) {
			*msg = g_queue_pop_head(&upstream->ready);
			msg_time_get(*msg, time);
			remember(upstream, time);
			return UPSTREAM_OK;
		}

		if (upstream->ended) {
			return UPSTREAM_END;
		}

		status = pull_raw(upstream, &raw);
		if (status == UPSTREAM_END) {
			/* Nothing follows the held messages: they keep their times. */
			if (release_held(upstream, self_msg_iter, 0, UINT64_MAX, repaired) ==
					UINT64_MAX) {
				return UPSTREAM_MEMORY_ERROR;
			}

			upstream->ended = true;
			continue;
		}

		if (status != UPSTREAM_OK) {
			return status;
		}

		msg_time_get(raw, time);
		if (msg_time_is_range_end(time)) {
			if (!queue_is_empty(&upstream->held) &&
					upstream->held_stream != time->stream &&
					release_held(upstream, self_msg_iter, 0, UINT64_MAX,
						repaired) == UINT64_MAX) {
				return UPSTREAM_MEMORY_ERROR;
			}

			upstream->held_stream = time->stream;
			g_queue_push_tail(&upstream->held, (gpointer) raw);
			continue;
		}

		if (queue_is_empty(&upstream->held)) {
			/* The common case: nothing to repair. */
			*msg = raw;
			remember(upstream, time);
			return UPSTREAM_OK;
		}

		if (!place_after_held(upstream, self_msg_iter, raw, time, repaired)) {
			return UPSTREAM_MEMORY_ERROR;
		}
	}
}
