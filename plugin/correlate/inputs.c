/*
 * The upstream message iterators: reading them (with the repair of
 * overlapping packets), priming them before the machines are settled,
 * seeking them, and which one was read the least far.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/inputs.h"
#include "correlate/machines.h"


static void warn_repaired(struct correlate_iter *iter, const bt_message *msg)
{
	struct msg_time time;
	struct machine *machine;

	msg_time_get(msg, &time);
	if (!time.stream) {
		return;
	}

	machine = correlate_stream_state(iter, time.stream)->machine;
	if (machine_warn_once(machine, WARN_OVERLAP)) {
		CORRELATE_LOGW(iter->log_level, iter->name,
			"Machine `%s` has packets that end after the next packet of "
			"their stream begins (a bug of old LTTng versions): their end "
			"times (and the beginnings of discarded-item ranges) are "
			"clamped so that times never go back.",
			machine_display_name(machine));
	}
}

enum upstream_status correlate_pull(struct correlate_iter *iter, guint index,
		const bt_message **msg, struct msg_time *time)
{
	struct upstream *upstream = &g_array_index(iter->upstreams, struct upstream, index);
	bool repaired;
	enum upstream_status status = upstream_next(upstream, iter->self, msg, time,
		&repaired);

	if (status == UPSTREAM_OK && repaired) {
		warn_repaired(iter, *msg);
	}

	return status;
}

bt_message_iterator_class_next_method_status correlate_status_of(struct correlate_iter *iter,
		enum upstream_status status, guint index)
{
	switch (status) {
	case UPSTREAM_AGAIN:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	case UPSTREAM_MEMORY_ERROR:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	default:
		ITER_ERROR(iter, "Cannot read upstream message iterator #%u.", index);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
}

/*
 * Whether prime() reads on past an upstream's first timed message `first`:
 * a seek to a time before correlate (filter.utils.trimmer after the muxer,
 * the convert form's --begin) recreates the stream and packet beginnings
 * of every stream under way then, and they all carry that time, where
 * src.ctf.fs's own stream beginnings carry none and the muxer gives them
 * all first. Stopping at the first of them would leave the machines of
 * the next ones unknown until synchronization is set up: they would join
 * "late" and keep their own clocks. Messages at the first time read on
 * too: the muxer may put an event of that time among those beginnings.
 * Anything else stops it (a stream without a clock at its first event).
 */
static bool reads_on(const struct msg_time *time, int64_t first)
{
	if (time->type == BT_MESSAGE_TYPE_STREAM_BEGINNING ||
			time->type == BT_MESSAGE_TYPE_PACKET_BEGINNING) {
		return true;
	}

	return time->has_time && time->ns <= first;
}

/*
 * src.ctf.fs gives its stream beginnings no time; a seek to a time gives
 * those it recreates that time. Noted for the error that a machine left
 * unsynchronized then gets (read-once-advice.c): the cut may have dropped what
 * would have synchronized it.
 */
static void note_cut(struct correlate_iter *iter, const struct msg_time *time)
{
	if (time->type == BT_MESSAGE_TYPE_STREAM_BEGINNING && time->has_time &&
			!iter->input_cut) {
		iter->input_cut = true;
		iter->input_cut_ns = time->ns;
	}
}

/*
 * Reads each upstream up to its first timed message (or its end), then on
 * while reads_on() says so (what it reads on waits in `pending` too).
 */
bt_message_iterator_class_next_method_status correlate_inputs_prime(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->upstreams->len; i++) {
		struct upstream_bound *bound = correlate_bound_at(iter, i);
		bool settling = !bound->primed;
		int64_t first = INT64_MIN;

		while (settling && !bound->ended) {
			const bt_message *msg;
			struct msg_time time;
			struct stream_state *state;
			struct pending_message pending = { .upstream = i };
			enum upstream_status status = correlate_pull(iter, i, &msg, &time);

			if (status == UPSTREAM_END) {
				bound->ended = true;
				break;
			}

			if (status == UPSTREAM_AGAIN && bound->primed) {
				/* Reading on is only for the beginnings already there. */
				break;
			}

			if (status != UPSTREAM_OK) {
				return correlate_status_of(iter, status, i);
			}

			pending.msg = msg;
			g_array_append_val(iter->pending, pending);
			correlate_message_machine(iter, bound, msg, &time, &state);
			note_cut(iter, &time);
			if (bound->primed) {
				settling = reads_on(&time, first);
			} else if (time.has_time || (state && !state->has_clock)) {
				bound->primed = true;
				first = time.has_time ? time.ns : INT64_MIN;
			}
		}
	}

	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/*
 * Creates an iterator on every connected input port. `*can_seek_forward`
 * tells whether all of them can seek forward (all their messages have
 * times), and so can this iterator then.
 */
bool correlate_inputs_create(struct correlate_iter *iter,
		bt_self_component_filter *self_comp, bool *can_seek_forward)
{
	const bt_component_filter *comp = bt_self_component_filter_as_component_filter(self_comp);
	uint64_t i;

	iter->can_seek = true;
	*can_seek_forward = true;
	for (i = 0; i < bt_component_filter_get_input_port_count(comp); i++) {
		bt_self_component_port_input *port =
			bt_self_component_filter_borrow_input_port_by_index(self_comp, i);
		bt_message_iterator *upstream_iter;
		struct upstream upstream;
		struct upstream_bound bound = { 0 };
		bt_bool can_seek = BT_FALSE;

		if (!bt_port_is_connected(bt_self_component_port_as_port(
				bt_self_component_port_input_as_self_component_port(port)))) {
			continue;
		}

		if (bt_message_iterator_create_from_message_iterator(iter->self, port,
				&upstream_iter) != BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
			ITER_ERROR(iter, "Cannot create the upstream message iterator of "
				"input port `%s`.", bt_port_get_name(bt_self_component_port_as_port(
					bt_self_component_port_input_as_self_component_port(port))));
			return false;
		}

		upstream_init(&upstream, upstream_iter);
		g_array_append_val(iter->upstreams, upstream);
		g_array_append_val(iter->bounds, bound);
		if (bt_message_iterator_can_seek_beginning(upstream_iter, &can_seek) !=
				BT_MESSAGE_ITERATOR_CAN_SEEK_BEGINNING_STATUS_OK || !can_seek) {
			iter->can_seek = false;
		}

		if (!bt_message_iterator_can_seek_forward(upstream_iter)) {
			*can_seek_forward = false;
		}
	}

	return true;
}

bool correlate_seek_upstreams(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->upstreams->len; i++) {
		struct upstream *upstream = &g_array_index(iter->upstreams, struct upstream, i);

		upstream_reset(upstream);
		if (bt_message_iterator_seek_beginning(upstream->iterator) !=
				BT_MESSAGE_ITERATOR_SEEK_BEGINNING_STATUS_OK) {
			ITER_ERROR(iter, "Cannot seek upstream message iterator #%u to "
				"its beginning.", i);
			return false;
		}
	}

	/* Streams start over: their positions and last times too. */
	correlate_forget_streams(iter);
	return true;
}

/*
 * The upstream read the least far (own clocks; ties to the lowest index),
 * -1 when all ended: the one to read next, in the sync pass's order. How
 * far it was read is the frontier, every upstream that has not ended was
 * read up to there (INT64_MAX when all ended). One scan gives both, and
 * its pick stays valid until an upstream reads on or ends: the next pick
 * needs no scan of its own.
 */
static int64_t read_key(const struct upstream_bound *bound)
{
	if (bound->ended) {
		return INT64_MAX;
	}

	return bound->primed ? bound->input_ns : INT64_MIN;
}

/* The scan itself, over every upstream's bound (what the keys stand for). */
static int64_t scan_bounds(struct correlate_iter *iter, int *earliest)
{
	int64_t earliest_ns = INT64_MAX;

	*earliest = -1;
	for (guint i = 0; i < iter->bounds->len; i++) {
		const struct upstream_bound *bound = correlate_bound_at(iter, i);
		int64_t read = read_key(bound);

		if (!bound->ended && (*earliest < 0 || read < earliest_ns)) {
			*earliest = (int) i;
			earliest_ns = read;
		}
	}

	return earliest_ns;
}

int64_t correlate_inputs_least_read(struct correlate_iter *iter)
{
	const int64_t *keys;
	int earliest = -1;
	int64_t earliest_ns = INT64_MAX;

	/* The keys, one int64_t per upstream, are what the scan reads per message. */
	if (!iter->read_keys_valid) {
		g_array_set_size(iter->read_keys, iter->bounds->len);
		for (guint i = 0; i < iter->bounds->len; i++) {
			g_array_index(iter->read_keys, int64_t, i) =
				read_key(correlate_bound_at(iter, i));
		}

		iter->read_keys_valid = true;
	}

	keys = (const int64_t *) (const void *) iter->read_keys->data;
	for (guint i = 0; i < iter->read_keys->len; i++) {
		if (keys[i] < earliest_ns) {
			earliest = (int) i;
			earliest_ns = keys[i];
		}
	}

	if (earliest < 0) {
		/* Every key at INT64_MAX: ended, or (never seen) read that far. */
		earliest_ns = scan_bounds(iter, &earliest);
	}

	iter->pick = earliest;
	iter->pick_valid = true;
	return earliest_ns;
}

int correlate_inputs_pick(struct correlate_iter *iter)
{
	if (!iter->pick_valid) {
		correlate_inputs_least_read(iter);
	}

	return iter->pick;
}

/* Upstream `index` was read on: its key follows. */
void correlate_inputs_read_on(struct correlate_iter *iter, guint index)
{
	if (iter->read_keys_valid) {
		g_array_index(iter->read_keys, int64_t, index) =
			read_key(correlate_bound_at(iter, index));
	}
}

void correlate_inputs_ended(struct correlate_iter *iter, guint index)
{
	correlate_bound_at(iter, index)->ended = true;
	if (iter->read_keys_valid) {
		g_array_index(iter->read_keys, int64_t, index) = INT64_MAX;
	}

	iter->pick_valid = false;
}

/* The keys are computed again at the next scan. */
void correlate_inputs_forget_scan(struct correlate_iter *iter)
{
	iter->pick_valid = false;
	iter->read_keys_valid = false;
}

void correlate_inputs_forget_primes(struct correlate_iter *iter)
{
	for (guint i = 0; i < iter->bounds->len; i++) {
		correlate_bound_at(iter, i)->primed = false;
	}

	correlate_forget_streams(iter);
}
