/*
 * The strategy of maps fixed before the merge (`transforms`, sync="none",
 * or the sync pass's results): each message goes into the merge as it is
 * read, from the upstream that holds the bound down, and its converted
 * time bounds what its upstream gives next.
 */

#include "correlate/inputs.h"
#include "correlate/merge.h"
#include "correlate/strategy.h"


/* What priming read goes in first, its upstream bounds learnt again. */
static bt_message_iterator_class_next_method_status take_pending(struct correlate_iter *iter)
{
	guint i;

	/* Learnt again, with the final formulas, as the messages go in. */
	correlate_inputs_forget_primes(iter);
	for (i = 0; i < iter->pending->len; i++) {
		struct pending_message *pending =
			&g_array_index(iter->pending, struct pending_message, i);
		struct msg_time time;

		msg_time_get(pending->msg, &time);
		if (!correlate_push(iter, pending->upstream, pending->msg, &time)) {
			/* The ones before are in the reorder buffer, the rest still pending. */
			bt_message_put_ref(pending->msg);
			g_array_remove_range(iter->pending, 0, i + 1);
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}

	g_array_set_size(iter->pending, 0);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/* Reads the upstream that holds the bound down. */
static bt_message_iterator_class_next_method_status read_next(struct correlate_iter *iter,
		bool *ended)
{
	const bt_message *msg;
	struct msg_time time;
	enum upstream_status status;
	guint index;

	if (iter->limiting < 0) {
		*ended = true;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}

	index = (guint) iter->limiting;
	status = correlate_pull(iter, index, &msg, &time);
	switch (status) {
	case UPSTREAM_OK:
		if (!correlate_push(iter, index, msg, &time)) {
			bt_message_put_ref(msg);
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}

		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	case UPSTREAM_END:
		correlate_bound_at(iter, index)->ended = true;
		iter->bound_valid = false;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	default:
		return correlate_status_of(iter, status, index);
	}
}

/* The lower bound the merge keeps; nothing known before its first timed message. */
static int64_t floor_of(struct correlate_iter *iter, guint index)
{
	const struct upstream_bound *bound = correlate_bound_at(iter, index);

	return bound->primed ? bound->lower_bound : INT64_MIN;
}

static bt_message_iterator_class_next_method_status finish(struct correlate_iter *iter)
{
	(void) iter;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

static void reset(struct correlate_iter *iter)
{
	(void) iter;
}

const struct correlate_strategy correlate_fixed_maps = {
	.name = "fixed maps",
	.learns_maps = false,
	.merge_keeps_bounds = true,
	.start = take_pending,
	.read = read_next,
	.floor = floor_of,
	.held_floor = NULL,
	.finish = finish,
	.reset = reset,
};
