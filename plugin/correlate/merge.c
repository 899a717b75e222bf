/*
 * The merge pass: upstream messages, re-timed to the reference time base,
 * leave in non-decreasing converted time (context.h says why the bound holds).
 */

#include <float.h>
#include <inttypes.h>
#include <string.h>

#include "correlate/formula-range.h"
#include "correlate/machines.h"
#include "correlate/merge.h"
#include "correlate/strategy.h"


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
		struct upstream_bound *bound = correlate_bound_at(iter, i);

		bound->ended = false;
		bound->primed = false;
		if (!iter->sync_pass_done) {
			/* Without a sync pass, what an upstream carries is learnt again. */
			bound->machines = 0;
			bound->many_machines = false;
		}
	}

	iter->bound_valid = false;
	iter->released_any = false;
	iter->has_last_emitted = false;
	iter->inactivity_seq = 0;
	iter->sync_stream_seq = 0;
	if (iter->sync_stream) {
		sync_stream_rewind(iter->sync_stream);
	}
}

static bool carries(const struct upstream_bound *bound, const struct machine *machine)
{
	return bound->many_machines ||
		(machine->index < 64 && (bound->machines & (UINT64_C(1) << machine->index)));
}

/*
 * A new lower bound of upstream `index`. The pull loop only reads the
 * limiting upstream, and its bound only rises: while it stays below every
 * other upstream's, it keeps limiting and the merge's bound is its own.
 */
static void set_lower_bound(struct correlate_iter *iter, guint index, int64_t lower_bound)
{
	correlate_bound_at(iter, index)->lower_bound = lower_bound;
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
	struct upstream_bound *bound = correlate_bound_at(iter, index);
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
	struct upstream_bound *bound = correlate_bound_at(iter, index);

	if (carries(bound, machine)) {
		return;
	}

	upstream_bound_note_machine(bound, machine);
	if (bound->primed) {
		update_lower_bound(iter, index);
	}
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
	struct upstream_bound *bound = correlate_bound_at(iter, upstream_index);
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
		correlate_welcome_late_machine(iter, machine);
	}

	if (machine && iter->strategy->merge_keeps_bounds) {
		carry_machine(iter, upstream_index, machine);
	}

	if (clocked && time->has_time) {
		entry->has_time = true;
		if (!correlate_convert_time(iter, machine, prepared_formula(state ? state->info :
				correlate_machine_info(iter, machine), time->ns), time->ns,
				&entry->time)) {
			return false;
		}

		if (!iter->strategy->merge_keeps_bounds) {
			/* Read once keeps the bounds (its floors): this may be a message held back. */
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

	if (!clocked && !bound->primed && state && iter->strategy->merge_keeps_bounds) {
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
 * The lowest floor of the upstreams still open and of what the strategy
 * holds back (the first one on ties), and the lowest of the others. Which
 * upstream holds the minimum changes about every other message: the loop
 * selects with conditional moves rather than with branches that mispredict.
 */
void correlate_merge_compute_bound(struct correlate_iter *iter)
{
	int64_t best = INT64_MAX;
	int64_t second = INT64_MAX;
	int64_t held;
	int limiting = -1;
	guint i;

	for (i = 0; i < iter->bounds->len; i++) {
		int64_t lower;
		bool take;
		int64_t demoted;

		if (correlate_bound_at(iter, i)->ended) {
			continue;
		}

		lower = iter->strategy->floor(iter, i);
		take = limiting < 0 || lower < best;
		/* Before the first open upstream, `best` is INT64_MAX: no change. */
		demoted = take ? best : lower;
		second = demoted < second ? demoted : second;
		best = take ? lower : best;
		limiting = take ? (int) i : limiting;
	}

	if (iter->strategy->held_floor && iter->strategy->held_floor(iter, &held)) {
		/* What the strategy holds is no upstream to read: one past the last. */
		bool take = limiting < 0 || held < best;

		int64_t demoted = take ? best : held;

		second = demoted < second ? demoted : second;
		best = take ? held : best;
		limiting = take ? (int) iter->bounds->len : limiting;
	}

	iter->bound = best;
	iter->other_bound = second;
	iter->limiting = limiting;
	iter->bound_valid = true;
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

bt_message_iterator_class_next_method_status correlate_merge_release(struct correlate_iter *iter,
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
	iter->released_any = true;
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

bool correlate_merge_can_release(struct correlate_iter *iter)
{
	return !reorder_is_empty(iter->reorder) &&
		(iter->limiting < 0 || reorder_peek(iter->reorder)->time < iter->bound);
}
