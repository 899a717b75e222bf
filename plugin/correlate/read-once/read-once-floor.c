/*
 * Read once: the floors the merge asks for (strategy.h), the least
 * reference time that what an upstream still gives, or what a machine
 * holds, can map to.
 */

#include "correlate/formula-range.h"
#include "correlate/machines.h"
#include "correlate/read-once/read-once-private.h"

/* Own time of its oldest held message (INT64_MAX: none). */
static int64_t oldest_held(const struct read_once_machine *op)
{
	int64_t oldest = INT64_MAX;

	for (guint i = 0; i < op->held->len; i++) {
		const struct held_message *head = vm_fifo_peek(held_queue(op, i));

		if (head && head->time < oldest) {
			oldest = head->time;
		}
	}

	return oldest;
}

/*
 * The least reference time a machine's messages read from now on (own
 * times from `t`) or waiting can map to: its map at its horizon, which
 * they are all after, or nothing before its first formula.
 */
static int64_t machine_floor(struct correlate_iter *iter, struct machine *machine, int64_t t)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	struct read_once_machine *op = info->read_once;

	if (!machine->has_clock) {
		return INT64_MAX;
	}

	if (op && !op->decided) {
		return INT64_MIN;
	}

	if (op && t > read_once_horizon(op)) {
		t = read_once_horizon(op);
	}

	return correlate_formula_lower_bound(vm_sync_map_formula_at(&info->map, t), t);
}

static int64_t upstream_floor(struct correlate_iter *iter, const struct upstream_bound *bound)
{
	int64_t lowest = INT64_MAX;

	if (!bound->primed) {
		return INT64_MIN;
	}

	for (unsigned int i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		int64_t floor;

		if (!bound->many_machines && (machine->index >= 64 ||
				!(bound->machines & (UINT64_C(1) << machine->index)))) {
			continue;
		}

		floor = machine_floor(iter, machine, bound->input_ns);
		lowest = floor < lowest ? floor : lowest;
	}

	return lowest;
}

int64_t read_once_floor(struct correlate_iter *iter, guint index)
{
	return upstream_floor(iter, correlate_bound_at(iter, index));
}

/* The least floor of the machines' held messages; nothing before a first formula. */
bool read_once_held_floor(struct correlate_iter *iter, int64_t *floor)
{
	bool holds = false;

	*floor = INT64_MAX;
	for (guint i = 0; i < iter->infos->len; i++) {
		struct machine_info *info = g_ptr_array_index(iter->infos, i);
		struct read_once_machine *op = info->read_once;
		int64_t held;

		if (!op || op->held_count == 0) {
			continue;
		}

		holds = true;
		held = !op->decided ? INT64_MIN : machine_floor(iter, op->machine, oldest_held(op));
		*floor = held < *floor ? held : *floor;
	}

	return holds;
}
