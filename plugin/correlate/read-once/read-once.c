/*
 * filter.vm.correlate in one pass (SPEC "Long traces", sync-model=
 * "piecewise"): no sync pass, no second decode.
 *
 * Every message is noted for synchronization as it is read; the matches
 * feed each machine pair's one-pass map (lib/sync/online.h). The messages
 * of a machine that is synchronized to the reference wait, in a queue per
 * upstream (each upstream's times never go back), until its map is fixed
 * at their time:
 *
 * - its first formula waits for VM_SYNC_FIRST_MATCHES matches each way, with the
 *   best line known at its first message about as well as at the horizon
 *   (else it waits for more, up to SETTLE_MAX_NS); a budget of held
 *   messages or of trace time since its first event ends the wait
 *   (VM_SYNC_FIRST_WAIT_*) with what it has, and an input read whole gives exactly
 *   the linear result (Trace Compass's pair does: its first matches come
 *   14 s and 120,000 messages after its first events); a machine that
 *   cannot be paired at all (it or the reference declares no vmsync or TCP
 *   event) does not wait;
 * - then its map is fixed up to `look-ahead-ns` behind the frontier (in
 *   its own clock: read_once_own_horizon()), at every VM_SYNC_COMMIT_STEP_NS of it, and what
 *   waits up to there leaves for the reorder buffer: the messages are held
 *   for the look-ahead only.
 *
 * The inputs are read as the sync pass reads them, in the order of their
 * own clocks; the frontier is the time up to which every upstream was read.
 * The sync events up to the frontier are fed in the sync pass's own order,
 * and the maps are fixed at the steps of the frontier: what the maps learn,
 * and when, does not depend on how the graph is built (one input per source
 * port, or one muxed input). The reorder buffer's bound is the least time
 * any upstream or waiting message can still map to: a map is continuous and
 * increasing, so a machine's messages not yet mapped come at or after its
 * map's value at its horizon; a machine without its first formula holds
 * everything back. The bound is computed again at each step (and when an
 * upstream starts or ends), not at every message: a bound that lags is
 * still a bound, and the maps only move at the steps.
 *
 * Correlate reads once by default, whether its upstreams can seek or not
 * (iterator.c). A machine that no vmsync or TCP message pairs with the
 * reference by the time its first formula is due needs the sync pass (the
 * vCPU method, a path through another machine): when the upstreams can
 * seek and nothing has left yet, the sync pass takes over (drive.c);
 * otherwise the machine keeps its own clock, with a warning.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/inputs.h"
#include "correlate/machines.h"
#include "correlate/merge.h"
#include "correlate/read-once/read-once-private.h"
#include "correlate/read-once/read-once.h"
#include "correlate/setup.h"
#include "correlate/strategy.h"
#include "correlate/env.h"
#include "correlate/sync-notes.h"
#include "correlate/sync-stream-queue.h"
#include "correlate/vcpu/vcpu-collect.h"
#include "correlate/vcpu/vcpu-onepass.h"
#include "util/time-span.h"


static struct read_once_machine *read_once_machine_create(struct machine *machine, guint upstreams)
{
	struct read_once_machine *op = g_new0(struct read_once_machine, 1);

	op->machine = machine;
	vm_sync_vcpu_tries_init(&op->vcpu_tries);
	op->held = g_array_sized_new(FALSE, FALSE, sizeof(struct vm_fifo), upstreams);
	g_array_set_size(op->held, upstreams);
	for (guint i = 0; i < upstreams; i++) {
		vm_fifo_init(held_queue(op, i), sizeof(struct held_message));
	}

	return op;
}

static void read_once_machine_destroy(struct read_once_machine *op)
{
	for (guint i = 0; i < op->held->len; i++) {
		struct vm_fifo *queue = held_queue(op, i);
		struct held_message *held;

		while ((held = vm_fifo_pop(queue))) {
			bt_message_put_ref(held->msg);
			mirror_parked_destroy(held->parked);
		}

		vm_fifo_fini(queue);
	}

	g_array_free(op->held, TRUE);
	g_free(op);
}

bool correlate_read_once_wanted(const struct correlate_params *params)
{
	return params->model == CORRELATE_MODEL_PIECEWISE && params->sync != CORRELATE_SYNC_NONE;
}

static struct read_once_machine *read_once_of(struct correlate_iter *iter, struct machine *machine)
{
	return machine ? correlate_machine_info(iter, machine)->read_once : NULL;
}

static bool waits_for_map(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);

	return !info->is_reference && machine->has_clock && machine->index < iter->sync_count &&
		!g_hash_table_contains(iter->comp->params.transforms, machine->name);
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
	const struct read_once_machine *x = *(const struct read_once_machine * const *) a;
	const struct read_once_machine *y = *(const struct read_once_machine * const *) b;

	return strcmp(x->machine->name, y->machine->name);
}

static bool start_machines(struct correlate_iter *iter)
{
	iter->read_once = g_new0(struct read_once, 1);
	iter->read_once->machines = g_ptr_array_new();
	iter->read_once->frontier = INT64_MIN;
	iter->read_once->step = INT64_MIN;
	iter->read_once->look_ahead = iter->comp->params.look_ahead_ns;
	correlate_inputs_forget_scan(iter);
	if (iter->keeps_time_base) {
		return true;
	}

	if (!correlate_sync_prepare(iter)) {
		return false;
	}

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		struct read_once_machine *op;

		if (!waits_for_map(iter, machine)) {
			continue;
		}

		op = read_once_machine_create(machine, iter->bounds->len);
		correlate_machine_info(iter, machine)->read_once = op;
		g_ptr_array_add(iter->read_once->machines, op);
	}

	/*
	 * Machines are numbered as the graph meets them: by name, the steps
	 * decide them in the same order in every graph form (a machine that
	 * decides releases messages, which the next one's budget counts).
	 */
	g_ptr_array_sort(iter->read_once->machines, compare_names);
	return true;
}

static void reset(struct correlate_iter *iter)
{
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (!info->read_once) {
			continue;
		}

		read_once_machine_destroy(info->read_once);
		info->read_once = NULL;
		/* The one-pass maps go with the sync objects. */
		vm_sync_map_set_formula(&info->map, &(struct vm_sync_formula) { 1.0L, 0.0L });
	}

	correlate_vcpu_onepass_reset(iter);

	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);

		if (info) {
			info->kvm_entries_ahead = 0;
		}
	}

	if (iter->read_once) {
		g_ptr_array_free(iter->read_once->machines, TRUE);
	}

	g_free(iter->read_once);
	iter->read_once = NULL;
	correlate_sync_reset(iter);
}


/* Into the reorder buffer, which owns it then; freed when it fails. */
static bool push_item(struct correlate_iter *iter, guint index, const bt_message *msg,
		struct mirror_parked *parked, const struct msg_time *time)
{
	if (parked ? correlate_push_parked(iter, index, parked, time) :
			correlate_push(iter, index, msg, time)) {
		return true;
	}

	bt_message_put_ref(msg);
	mirror_parked_destroy(parked);
	return false;
}

/* The held messages up to the horizon go to the reorder buffer. */
static bool release_waiting(struct correlate_iter *iter, struct read_once_machine *op)
{
	int64_t horizon = read_once_horizon(op);

	for (guint i = 0; i < op->held->len && op->held_count > 0; i++) {
		struct vm_fifo *queue = held_queue(op, i);
		const struct held_message *head;

		while ((head = vm_fifo_peek(queue)) && head->time <= horizon) {
			struct held_message held = *head;

			vm_fifo_pop(queue);
			op->held_count--;
			if (!push_item(iter, i, held.msg, held.parked, &held.msg_time)) {
				return false;
			}
		}
	}

	return true;
}

/* vm:sync events for the segments that now apply (up to the horizon). */
static bool announce(struct correlate_iter *iter, struct read_once_machine *op, bool at_end)
{
	unsigned int count;
	const struct vm_sync_segment *segments;
	int64_t horizon = op->has_read && at_end ? op->last_read : read_once_horizon(op);

	if (!op->online) {
		return true;
	}

	segments = vm_sync_online_map(op->online, &count);
	for (; op->announced < count && segments[op->announced].begin <= horizon;
			op->announced++) {
		if (!correlate_announce_segment(iter, op->machine, &segments[op->announced])) {
			return false;
		}
	}

	return true;
}

static bool advance(struct correlate_iter *iter, struct read_once_machine *op, int64_t frontier)
{
	if (!op->decided) {
		if (!read_once_first_formula_due(iter, op, frontier)) {
			return true;
		}

		if (!read_once_decide(iter, op, frontier)) {
			return false;
		}
	} else if (op->online) {
		/*
		 * Fixed at every step: the look-ahead's matches frame the line
		 * at the horizon. Waiting until the band of possible lines was
		 * within 200 ns held a second of messages (vmsync round trips
		 * keep it wider than that) for a few nanoseconds; sparse TCP
		 * matches give up to about 0.8 us (doc/sync.md).
		 */
		vm_sync_online_commit(op->online, read_once_own_horizon(iter, op, op->online, frontier));
	}

	iter->bound_valid = false;
	return release_waiting(iter, op) && announce(iter, op, false);
}

/* The frontier moved: sync events fed, and at each step, maps fixed. */
static bool advance_all(struct correlate_iter *iter)
{
	int64_t frontier = correlate_inputs_least_read(iter);
	int64_t step;

	if (frontier <= iter->read_once->frontier || frontier == INT64_MAX) {
		return true;
	}

	iter->read_once->frontier = frontier;
	correlate_sync_feed_until(iter, frontier);
	step = frontier / VM_SYNC_COMMIT_STEP_NS;
	if (step == iter->read_once->step) {
		return true;
	}

	iter->read_once->step = step;
	iter->read_once->look_ahead = vm_sync_next_look_ahead(iter->read_once->look_ahead,
		iter->comp->params.look_ahead_ns,
		read_once_held_before(iter, step * VM_SYNC_COMMIT_STEP_NS));
	/* The vCPU method's constraints up to the frontier, before the maps are fixed. */
	correlate_vcpu_apply_until(iter, frontier);
	correlate_vcpu_onepass_step(iter, frontier);
	for (guint i = 0; i < iter->read_once->machines->len; i++) {
		/* At the step's time, whatever the frontier's exact value. */
		if (!advance(iter, g_ptr_array_index(iter->read_once->machines, i),
				step * VM_SYNC_COMMIT_STEP_NS)) {
			return false;
		}
	}

	return true;
}

static void hold(struct read_once_machine *op, guint index, const bt_message *msg,
		struct mirror_parked *parked, const struct msg_time *time,
		const struct stream_state *state)
{
	struct held_message *held = vm_fifo_push(held_queue(op, index));

	held->time = time->has_time ? time->ns : state ? state->last_own_ns : INT64_MIN;
	held->msg = msg;
	held->parked = parked;
	held->msg_time = *time;
	op->held_count++;
}

static bool must_wait(const struct read_once_machine *op, guint index, const struct msg_time *time)
{
	return !op->decided || !vm_fifo_is_empty(held_queue(op, index)) ||
		(time->has_time && time->ns > read_once_horizon(op));
}

static bt_message_iterator_class_next_method_status take(
		struct correlate_iter *iter, guint index, const bt_message *msg,
		const struct msg_time *time)
{
	struct upstream_bound *bound = correlate_bound_at(iter, index);
	struct stream_state *state;
	struct machine *machine = correlate_message_machine(iter, bound, msg, time, &state);
	struct read_once_machine *op = read_once_of(iter, machine);
	bool clocked = machine && machine->has_clock && (!state || state->has_clock);
	struct mirror_parked *parked = NULL;

	if (iter->sync_ready) {
		correlate_sync_note(iter, index, msg, time);
	}

	if (time->type == BT_MESSAGE_TYPE_EVENT) {
		/* It waits as a record: mirror-parked.c says why. */
		parked = mirror_park(iter->mirror, msg, time->ns);
		bt_message_put_ref(msg);
		msg = NULL;
		if (!parked) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}

	if (machine) {
		upstream_bound_note_machine(bound, machine);
	}

	if (!bound->primed && ((clocked && time->has_time) || (!clocked && state))) {
		/* Until now, it held everything back. */
		bound->primed = true;
		iter->bound_valid = false;
	}

	if (clocked && time->has_time) {
		bound->input_ns = time->ns;
		if (state) {
			state->last_own_ns = time->ns;
		}
	}

	correlate_inputs_read_on(iter, index);

	if (op && must_wait(op, index, time)) {
		hold(op, index, msg, parked, time, state);
	} else if (!push_item(iter, index, msg, parked, time)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	if (op && clocked && time->has_time) {
		if (!op->has_read) {
			op->first_read = time->ns;
			op->has_read = true;
		}

		op->last_read = time->ns > op->last_read ? time->ns : op->last_read;
		if (!op->has_event && time->type == BT_MESSAGE_TYPE_EVENT) {
			op->first_event = time->ns;
			op->has_event = true;
		}
	}

	return advance_all(iter) ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK :
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

/*
 * Read once, the host was chosen from event classes; the KVM entries
 * counted since tell the final rule (and its warning, with the counts).
 */
static void check_host_guess(struct correlate_iter *iter)
{
	struct machine *host;

	if (!iter->sync_ready) {
		/* Nothing was synchronized (the input keeps its time base). */
		return;
	}

	host = correlate_detect_host(iter);
	if (host == iter->sync_host || !host) {
		return;
	}

	CORRELATE_LOGW(iter->log_level, iter->name,
		"The host is `%s` after all (it has the most KVM entry events), not `%s` "
		"(chosen from the event classes when the inputs, read once, began): the "
		"guests were synchronized to the wrong machine. Pass host=\"%s\".",
		host->name, iter->sync_host ? iter->sync_host->name : "(none)", host->name);
}

static bt_message_iterator_class_next_method_status finish(struct correlate_iter *iter)
{
	if (iter->sync_ready) {
		correlate_sync_feed_until(iter, INT64_MAX);
	}

	correlate_vcpu_apply_until(iter, INT64_MAX);
	correlate_vcpu_onepass_finish(iter);

	for (guint i = 0; i < iter->read_once->machines->len; i++) {
		struct read_once_machine *op = g_ptr_array_index(iter->read_once->machines, i);

		if (!op->decided) {
			if (read_once_waits_for_vcpu(iter, op)) {
				/* The last try, on the whole input; its follower attributes it all. */
				op->vcpu_tried = true;
				op->vcpu_given_up = !correlate_vcpu_onepass_try(iter, op->machine,
					INT64_MAX, &op->vcpu_fit);
				if (!op->vcpu_given_up) {
					correlate_vcpu_onepass_finish(iter);
				}
			}

			if (!read_once_decide(iter, op, INT64_MAX)) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			}

			if (iter->state == CORRELATE_STATE_READ_AGAIN) {
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
			}
		} else if (op->online && op->has_read) {
			vm_sync_online_commit(op->online, op->last_read);
		}

		/* Everything left maps as the map stands; plans past it never apply. */
		if (op->online) {
			vm_sync_online_end(op->online, op->has_read ? op->last_read : INT64_MIN);
		}

		if (!announce(iter, op, true)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}

		op->decided = true;
		if (!release_waiting(iter, op)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}

	check_host_guess(iter);
	correlate_log_summary(iter);
	iter->bound_valid = false;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/* What priming read goes in first, as if read now. */
static bt_message_iterator_class_next_method_status start(struct correlate_iter *iter)
{
	bt_message_iterator_class_next_method_status status =
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	guint i;

	if (!start_machines(iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	/* Learnt again as the messages go in. */
	correlate_inputs_forget_primes(iter);
	for (i = 0; i < iter->pending->len; i++) {
		struct pending_message *pending =
			&g_array_index(iter->pending, struct pending_message, i);
		struct msg_time time;

		msg_time_get(pending->msg, &time);
		if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			status = take(iter, pending->upstream, pending->msg, &time);
		} else {
			bt_message_put_ref(pending->msg);
		}
	}

	g_array_set_size(iter->pending, 0);
	return status;
}

/* Reads one message from the upstream read the least far. */
static bt_message_iterator_class_next_method_status read_next(struct correlate_iter *iter,
		bool *ended)
{
	int index = correlate_inputs_pick(iter);
	const bt_message *msg;
	struct msg_time time;
	enum upstream_status status;

	if (index < 0) {
		*ended = true;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}

	status = correlate_pull(iter, (guint) index, &msg, &time);
	switch (status) {
	case UPSTREAM_OK:
		return take(iter, (guint) index, msg, &time);
	case UPSTREAM_END:
		correlate_inputs_ended(iter, (guint) index);
		iter->bound_valid = false;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	default:
		return correlate_status_of(iter, status, (guint) index);
	}
}

const struct correlate_strategy correlate_read_once = {
	.name = "read once",
	.learns_maps = true,
	.merge_keeps_bounds = false,
	.start = start,
	.read = read_next,
	.floor = read_once_floor,
	.held_floor = read_once_held_floor,
	.finish = finish,
	.reset = reset,
};
