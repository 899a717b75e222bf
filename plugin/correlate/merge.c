/*
 * The merge pass: upstream messages, re-timed to the reference time base,
 * leave in non-decreasing converted time (see iterator.h for the bound).
 */

#include <float.h>
#include <inttypes.h>
#include <string.h>

#include "correlate/formula-range.h"
#include "correlate/iterator.h"

static struct upstream_bound *bound_at(struct correlate_iter *iter, guint index)
{
	return &g_array_index(iter->bounds, struct upstream_bound, index);
}

static void put_pending(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->pending->len; i++) {
		bt_message_put_ref(g_array_index(iter->pending, struct pending_message, i).msg);
	}

	g_array_set_size(iter->pending, 0);
}

void correlate_merge_reset(struct correlate_iter *iter)
{
	guint i;

	put_pending(iter);
	reorder_clear(iter->reorder);
	for (i = 0; i < iter->bounds->len; i++) {
		struct upstream_bound *bound = bound_at(iter, i);

		bound->ended = false;
		bound->primed = false;
		if (!iter->sync_pass_done) {
			/* Without a sync pass, what an upstream carries is learnt again. */
			bound->machines = 0;
			bound->many_machines = false;
		}
	}

	iter->bound_valid = false;
	iter->has_last_emitted = false;
	iter->inactivity_seq = 0;
	iter->sync_events_queued = false;
	iter->sync_stream_seq = 0;
	if (iter->sync_stream) {
		sync_stream_rewind(iter->sync_stream);
	}

	if (iter->onepass_started) {
		/* Learnt again from the beginning: the machines too. */
		correlate_onepass_reset(iter);
		iter->machines_final = false;
		for (i = 0; i < iter->bounds->len; i++) {
			bound_at(iter, i)->machines = 0;
			bound_at(iter, i)->many_machines = false;
		}
	}
}

static bool carries(const struct upstream_bound *bound, const struct machine *machine)
{
	return bound->many_machines ||
		(machine->index < 64 && (bound->machines & (UINT64_C(1) << machine->index)));
}

/*
 * A lower bound of vm_sync_formula_apply(formula, t), cheaply: the exact
 * map works in 128-bit floating point, in software, and the bound is
 * recomputed on every message. In double precision, slope * t + offset is
 * within (|slope * t| + |offset|) * 2^-51 of the exact value, so the bound
 * keeps twice that (1.5 us at today's Unix-epoch nanoseconds) plus 2 ns
 * below it.
 */
int64_t correlate_formula_lower_bound(const struct vm_sync_formula *formula, int64_t t)
{
	double scaled = (double) formula->slope * (double) t;
	double offset = (double) formula->offset_ns;
	double approx = scaled + offset;

	approx -= ((scaled < 0 ? -scaled : scaled) + (offset < 0 ? -offset : offset)) *
		0x1p-50 + 2;
	if (approx <= (double) INT64_MIN + 4096) {
		return INT64_MIN;
	}

	/* Truncation, one more below for negative values: floor() is slow. */
	return approx >= (double) INT64_MAX ? INT64_MAX : (int64_t) approx - 1;
}

/*
 * A new lower bound of upstream `index`. The pull loop only reads the
 * limiting upstream, and its bound only rises: while it stays below every
 * other upstream's, it keeps limiting and the merge's bound is its own.
 */
static void set_lower_bound(struct correlate_iter *iter, guint index, int64_t lower_bound)
{
	bound_at(iter, index)->lower_bound = lower_bound;
	if (iter->bound_valid && iter->limiting == (int) index &&
			lower_bound < iter->other_bound) {
		iter->bound = lower_bound;
		return;
	}

	iter->bound_valid = false;
}

static int64_t machine_lower_bound(struct correlate_iter *iter, struct machine *machine,
		int64_t input_ns)
{
	if (!machine->has_clock) {
		return INT64_MAX;
	}

	/* A piecewise map is continuous and increasing: its value here bounds the rest. */
	return correlate_formula_lower_bound(vm_sync_map_formula_near(
		&correlate_machine_info(iter, machine)->map, input_ns), input_ns);
}

/* The smallest converted time the upstream's future messages can have. */
static void update_lower_bound(struct correlate_iter *iter, guint index)
{
	struct upstream_bound *bound = bound_at(iter, index);
	int64_t lowest = INT64_MAX;
	unsigned int i;

	if (!bound->many_machines) {
		/* Only the machines it carries: a bit each. */
		for (uint64_t bits = bound->machines; bits; bits &= bits - 1) {
			int64_t converted = machine_lower_bound(iter, machine_table_at(
				iter->machines, (unsigned int) __builtin_ctzll(bits)),
				bound->input_ns);

			if (converted < lowest) {
				lowest = converted;
			}
		}

		set_lower_bound(iter, index, lowest);
		return;
	}

	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		int64_t converted;

		if (!carries(bound, machine)) {
			continue;
		}

		converted = machine_lower_bound(iter, machine, bound->input_ns);
		if (converted < lowest) {
			lowest = converted;
		}
	}

	set_lower_bound(iter, index, lowest);
}

static void carry_machine(struct correlate_iter *iter, guint index,
		const struct machine *machine)
{
	struct upstream_bound *bound = bound_at(iter, index);

	if (carries(bound, machine)) {
		return;
	}

	upstream_bound_note_machine(bound, machine);
	if (bound->primed) {
		update_lower_bound(iter, index);
	}
}

/* A machine met after the others were named: it joins with what it has. */
static void welcome_late_machine(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	const struct vm_sync_formula *given;

	machine_table_assign_names(iter->machines);
	given = g_hash_table_lookup(iter->comp->params.transforms, machine->name);
	vm_sync_map_set_formula(&info->map, given ? given : &(struct vm_sync_formula) { 1.0L, 0.0L });
	info->method = given ? "transforms" : "none";
	info->role = "unknown";
	if (machine_warn_once(machine, WARN_LATE_MACHINE)) {
		CORRELATE_LOGW(iter->log_level, iter->name,
			"Machine `%s` first shows up in the middle of the traces, after "
			"synchronization was set up: it keeps %s.", machine->name,
			given ? "the formula of `transforms`" : "its own clock");
	}
}

struct machine *correlate_message_machine(struct correlate_iter *iter,
		struct upstream_bound *bound, const bt_message *msg,
		const struct msg_time *time, struct stream_state **state)
{
	*state = NULL;
	if (time->stream) {
		*state = correlate_upstream_stream_state(iter, bound, time->stream);
		return (*state)->machine;
	}

	if (time->type == BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY) {
		return machine_table_machine_of_clock_class(iter->machines,
			bt_clock_snapshot_borrow_clock_class_const(
				bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg)));
	}

	return NULL;
}

/* Whether two long doubles have the same bits (their padding aside). */
static bool same_bits(const long double *a, const long double *b)
{
	/* x87 extended precision: 10 significant bytes in a 16-byte slot. */
	return memcmp(a, b, LDBL_MANT_DIG == 64 ? 10 : sizeof(long double)) == 0;
}

/* Whether `prepared` is `formula`'s, bit for bit. */
static bool prepares(const struct vm_sync_prepared *prepared,
		const struct vm_sync_formula *formula)
{
	return same_bits(&prepared->formula.slope, &formula->slope) &&
		same_bits(&prepared->formula.offset_ns, &formula->offset_ns);
}

/*
 * The machine's formula at time `t`, in the form that applies fastest: it
 * is applied to every timed message. The formula is set in several places
 * (parameters, sync pass, late machines) and a piecewise map changes it
 * from segment to segment: comparing it is cheaper than tracking them, bit
 * for bit in integer registers (x87 loads and compares cost more).
 */
static const struct vm_sync_prepared *prepared_formula(struct machine_info *info, int64_t t)
{
	const struct vm_sync_formula *formula = vm_sync_map_formula_near(&info->map, t);
	struct vm_sync_prepared *slot;

	for (unsigned int i = 0; i < 2; i++) {
		if (prepares(&info->prepared[i], formula)) {
			info->prepared_older = 1 - i;
			return &info->prepared[i];
		}
	}

	slot = &info->prepared[info->prepared_older];
	vm_sync_formula_prepare(formula, slot);
	info->prepared_older = 1 - info->prepared_older;
	return slot;
}

/*
 * The reorder entry of a message; updates what its upstream bound knows.
 * False, with an error cause, when its time cannot be converted.
 */
static bool make_entry(struct correlate_iter *iter, guint upstream_index,
		const bt_message *msg, const struct msg_time *time, struct reorder_entry *entry)
{
	struct upstream_bound *bound = bound_at(iter, upstream_index);
	struct stream_state *state;
	struct machine *machine = correlate_message_machine(iter, bound, msg, time, &state);
	bool clocked = machine && machine->has_clock && (!state || state->has_clock);

	entry->msg = msg;
	entry->parked = NULL;
	entry->own = false;
	entry->has_time = false;
	entry->stream_key = state ? state->sort_key : "";
	entry->seq = state ? state->seq++ : iter->inactivity_seq++;
	entry->queue = state ? state->reorder_queue : 0;
	if (machine && !machine->name) {
		welcome_late_machine(iter, machine);
	}

	if (machine && !iter->onepass) {
		carry_machine(iter, upstream_index, machine);
	}

	if (clocked && time->has_time) {
		entry->has_time = true;
		if (!correlate_convert_time(iter, machine, prepared_formula(state ? state->info :
				correlate_machine_info(iter, machine), time->ns), time->ns,
				&entry->time)) {
			return false;
		}

		if (iter->onepass) {
			/* onepass.c keeps the bounds: this may be a message held back. */
			if (state) {
				state->last_time = entry->time;
				state->has_last_time = true;
			}

			return true;
		}

		bound->input_ns = time->ns;
		bound->primed = true;
		if (!bound->many_machines &&
				bound->machines == UINT64_C(1) << machine->index) {
			/*
			 * One machine: its input times never go back and its formula
			 * is monotonic, so this very time bounds what follows.
			 */
			set_lower_bound(iter, upstream_index, entry->time);
		} else {
			update_lower_bound(iter, upstream_index);
		}
		if (state) {
			state->last_time = entry->time;
			state->has_last_time = true;
		}

		return true;
	}

	if (clocked && time->overflows) {
		correlate_overflow_error(iter, machine, time->value);
		return false;
	}

	if (!clocked && !bound->primed && state && !iter->onepass) {
		/* A clockless stream's upstream never holds the others back. */
		bound->primed = true;
		bound->lower_bound = INT64_MAX;
		iter->bound_valid = false;
	}

	/* No time: right after the previous message of its stream. */
	entry->time = state && state->has_last_time ? state->last_time :
		bound->primed && bound->lower_bound != INT64_MAX ? bound->lower_bound :
		INT64_MIN;
	return true;
}

/* Into the reorder buffer, which then owns `msg`; false: the caller keeps it. */
bool correlate_push(struct correlate_iter *iter, guint upstream_index, const bt_message *msg,
		const struct msg_time *time)
{
	struct reorder_entry entry;

	if (!make_entry(iter, upstream_index, msg, time, &entry)) {
		return false;
	}

	reorder_push(iter->reorder, &entry);
	return true;
}

/* The same for a parked event (read once), which it then owns; false: the caller keeps it. */
bool correlate_push_parked(struct correlate_iter *iter, guint upstream_index,
		struct mirror_parked *parked, const struct msg_time *time)
{
	struct reorder_entry entry;

	/* An event has a stream: its entry needs no message. */
	if (!make_entry(iter, upstream_index, NULL, time, &entry)) {
		return false;
	}

	entry.parked = parked;
	reorder_push(iter->reorder, &entry);
	return true;
}

/*
 * The lowest bound of the upstreams still open (the first one on ties) and
 * the lowest of the others. Which upstream holds the minimum changes about
 * every other message: the loop selects with conditional moves rather than
 * with branches that mispredict.
 */
static void compute_bound(struct correlate_iter *iter)
{
	int64_t best = INT64_MAX;
	int64_t second = INT64_MAX;
	int limiting = -1;
	guint i;

	for (i = 0; i < iter->bounds->len; i++) {
		const struct upstream_bound *bound = bound_at(iter, i);
		int64_t lower = bound->primed ? bound->lower_bound : INT64_MIN;
		bool take;
		int64_t demoted;

		if (bound->ended) {
			continue;
		}

		take = limiting < 0 || lower < best;
		/* Before the first open upstream, `best` is INT64_MAX: no change. */
		demoted = take ? best : lower;
		second = demoted < second ? demoted : second;
		best = take ? lower : best;
		limiting = take ? (int) i : limiting;
	}

	iter->bound = best;
	iter->other_bound = second;
	iter->limiting = limiting;
	iter->bound_valid = true;
}

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
 * unsynchronized then gets (onepass.c): the cut may have dropped what
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
static bt_message_iterator_class_next_method_status prime(struct correlate_iter *iter)
{
	guint i;

	for (i = 0; i < iter->upstreams->len; i++) {
		struct upstream_bound *bound = bound_at(iter, i);
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

/* Machines are known: the sync pass, if `transforms` leave a gap. */
bt_message_iterator_class_next_method_status correlate_start_sync_pass(
		struct correlate_iter *iter)
{
	if (!iter->can_seek) {
		ITER_ERROR(iter, "Parameter `transforms` gives no formula for some "
			"machines, so filter.vm.correlate must read its inputs twice, "
			"but an upstream cannot seek to its beginning: give a formula "
			"for every machine but the reference, or pass `sync=\"none\"`.");
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	iter->machines_final = false;
	iter->phase = PHASE_SYNC_PASS;
	if (!correlate_seek_upstreams(iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	correlate_merge_reset(iter);
	return correlate_sync_pass(iter);
}

bt_message_iterator_class_next_method_status correlate_onepass_fall_back(
		struct correlate_iter *iter)
{
	iter->onepass = false;
	iter->onepass_fallback = false;
	return correlate_start_sync_pass(iter);
}

/* One pass with maps learnt as it goes: what prime() read goes in first. */
static bt_message_iterator_class_next_method_status start_onepass(struct correlate_iter *iter)
{
	bt_message_iterator_class_next_method_status status =
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	guint i;

	if (!correlate_onepass_start(iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	for (i = 0; i < iter->bounds->len; i++) {
		/* Learnt again as the messages go in. */
		bound_at(iter, i)->primed = false;
	}

	correlate_forget_streams(iter);
	for (i = 0; i < iter->pending->len; i++) {
		struct pending_message *pending =
			&g_array_index(iter->pending, struct pending_message, i);
		struct msg_time time;

		msg_time_get(pending->msg, &time);
		if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			status = correlate_onepass_take(iter, pending->upstream, pending->msg, &time);
		} else {
			bt_message_put_ref(pending->msg);
		}
	}

	g_array_set_size(iter->pending, 0);
	return status;
}

/* One pass: machines are final once every upstream showed a time. */
static bt_message_iterator_class_next_method_status settle_machines(
		struct correlate_iter *iter)
{
	bt_message_iterator_class_next_method_status status = prime(iter);
	guint i;

	if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK && iter->onepass) {
		status = correlate_read_ahead_for_host(iter);
	}

	if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
		return status;
	}

	if (!correlate_finalize_machines(iter)) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	if (iter->onepass && correlate_transforms_cover_all(iter)) {
		/* Nothing to learn: the merge of the given formulas. */
		iter->onepass = false;
	}

	if (iter->onepass) {
		return start_onepass(iter);
	}

	if (iter->comp->params.sync != CORRELATE_SYNC_NONE &&
			!correlate_transforms_cover_all(iter)) {
		return correlate_start_sync_pass(iter);
	}

	correlate_log_summary(iter);
	for (i = 0; i < iter->bounds->len; i++) {
		/* Learnt again, with the final formulas, as the messages go in. */
		bound_at(iter, i)->primed = false;
	}

	correlate_forget_streams(iter);
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

static void check_order(struct correlate_iter *iter, const struct reorder_entry *entry)
{
	struct msg_time time;

	if (!entry->has_time) {
		return;
	}

	if (iter->has_last_emitted && entry->time < iter->last_emitted) {
		if (entry->parked) {
			time.stream = mirror_parked_stream(entry->parked);
		} else {
			msg_time_get(entry->msg, &time);
		}

		if (time.stream && machine_warn_once(
				correlate_stream_state(iter, time.stream)->machine,
				WARN_OUT_OF_ORDER)) {
			CORRELATE_LOGW(iter->log_level, iter->name,
				"A message of machine `%s` comes %" PRId64 " ns before "
				"one already emitted (an input whose times go back).",
				correlate_stream_state(iter, time.stream)->machine->name,
				iter->last_emitted - entry->time);
		}

		return;
	}

	iter->last_emitted = entry->time;
	iter->has_last_emitted = true;
}

static bt_message_iterator_class_next_method_status release(struct correlate_iter *iter,
		bt_message_array_const msgs, uint64_t *count)
{
	const bt_message *msg;
	bt_message *converted;

	const struct reorder_entry *entry = reorder_peek(iter->reorder);
	bool has_time = entry->has_time;
	int64_t time = entry->time;

	bool own = entry->own;
	struct mirror_parked *parked = entry->parked;

	check_order(iter, entry);
	iter->onepass_released = true;
	msg = reorder_pop(iter->reorder);
	if (own) {
		msgs[(*count)++] = msg;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}

	/* Its time was converted once, for the order: the mirror stamps it. */
	if (parked) {
		converted = mirror_convert_parked(iter->mirror, parked, has_time, time);
		mirror_parked_destroy(parked);
	} else {
		converted = has_time ? mirror_convert_at(iter->mirror, msg, time) :
			mirror_convert(iter->mirror, msg);
		bt_message_put_ref(msg);
	}

	if (!converted) {
		ITER_ERROR(iter, "Cannot re-create an upstream message on the output trace.");
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}

	msgs[(*count)++] = converted;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

static bool can_release(struct correlate_iter *iter)
{
	return !reorder_is_empty(iter->reorder) &&
		(iter->limiting < 0 || reorder_peek(iter->reorder)->time < iter->bound);
}

/* A failed call returns no message: those already released are put. */
static bt_message_iterator_class_next_method_status fail(
		bt_message_iterator_class_next_method_status status,
		bt_message_array_const msgs, uint64_t *count)
{
	uint64_t i;

	for (i = 0; i < *count; i++) {
		bt_message_put_ref(msgs[i]);
	}

	*count = 0;
	return status;
}

/* One pass: reads one message (or ends the inputs). */
static bt_message_iterator_class_next_method_status onepass_step(struct correlate_iter *iter)
{
	int index = correlate_onepass_pick(iter);
	const bt_message *msg;
	struct msg_time time;
	enum upstream_status upstream_status;
	bool pushed;

	if (index < 0) {
		return correlate_onepass_finish(iter, &pushed);
	}

	upstream_status = correlate_pull(iter, (guint) index, &msg, &time);
	switch (upstream_status) {
	case UPSTREAM_OK:
		return correlate_onepass_take(iter, (guint) index, msg, &time);
	case UPSTREAM_END:
		correlate_onepass_upstream_ended(iter, (guint) index);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	default:
		return correlate_status_of(iter, upstream_status, (guint) index);
	}
}

bt_message_iterator_class_next_method_status correlate_merge_next(
		struct correlate_iter *iter, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	bt_message_iterator_class_next_method_status status;

	*count = 0;
	if (!iter->machines_final) {
		status = settle_machines(iter);
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
			return status;
		}
	}

	if (!iter->sync_events_queued) {
		iter->sync_events_queued = true;
		if (!correlate_queue_sync_events(iter)) {
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}

	while (*count < capacity) {
		const bt_message *msg;
		struct msg_time time;
		enum upstream_status upstream_status;
		guint index;


		if (!iter->bound_valid) {
			if (iter->onepass) {
				correlate_onepass_bound(iter);
			} else {
				compute_bound(iter);
			}
		}

		if (can_release(iter)) {
			status = release(iter, msgs, count);
			if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
				return fail(status, msgs, count);
			}

			continue;
		}

		if (iter->onepass && !iter->onepass_finished) {
			status = onepass_step(iter);
			if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK &&
					iter->onepass_fallback) {
				/* Nothing left yet (onepass.c): start over, read twice. */
				status = correlate_onepass_fall_back(iter);
				if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
					return fail(status, msgs, count);
				}

				return correlate_merge_next(iter, msgs, capacity, count);
			}

			if (status == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN &&
					*count > 0) {
				break;
			}

			if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK) {
				return fail(status, msgs, count);
			}

			continue;
		}

		if (iter->limiting < 0) {
			/* Every input ended: the vm:sync stream ends with them. */
			if (reorder_is_empty(iter->reorder) && sync_stream_is_open(iter->sync_stream)) {
				if (!correlate_end_sync_events(iter)) {
					return fail(BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR,
						msgs, count);
				}

				continue;
			}

			break;
		}

		index = (guint) iter->limiting;
		upstream_status = correlate_pull(iter, index, &msg, &time);
		if (upstream_status == UPSTREAM_OK) {
			if (!correlate_push(iter, index, msg, &time)) {
				bt_message_put_ref(msg);
				return fail(BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR,
					msgs, count);
			}
		} else if (upstream_status == UPSTREAM_END) {
			bound_at(iter, index)->ended = true;
			iter->bound_valid = false;
		} else if (upstream_status == UPSTREAM_AGAIN && *count > 0) {
			break;
		} else {
			return fail(correlate_status_of(iter, upstream_status, index), msgs, count);
		}
	}

	return *count > 0 ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK :
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}
