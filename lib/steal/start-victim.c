#include "steal/start-victim.h"

void vm_steal_start_victim_init(struct vm_steal_start_victim *sv)
{
	*sv = (struct vm_steal_start_victim) {
		.held = g_array_new(FALSE, FALSE, sizeof(struct vm_steal_start_row)),
	};
}

void vm_steal_start_victim_fini(struct vm_steal_start_victim *sv)
{
	if (sv->held) {
		g_array_free(sv->held, TRUE);
	}
	sv->held = NULL;
}

/* Passes a row on, merged with the one before when they touch and match. */
static void pass(struct vm_steal_start_victim *sv, struct vm_steal_start_row *row,
		vm_steal_emit_cb emit, void *data)
{
	if (sv->fill_valid && row->key.victim_tid < 0 && row->begin < sv->fill_until) {
		row->key.victim_tid = sv->fill_tid;
		row->key.victim_comm = sv->fill_tid > 0 ? sv->fill_comm : "";
	}
	if (sv->carry_valid && sv->carry.end == row->begin &&
			vm_steal_key_equal(&sv->carry.key, &row->key)) {
		sv->carry.end = row->end;
		return;
	}
	if (sv->carry_valid) {
		emit(&sv->carry.key, sv->carry.begin, sv->carry.end, data);
	}
	sv->carry = *row;
	sv->carry_valid = true;
}

void vm_steal_start_victim_row(struct vm_steal_start_victim *sv,
		const struct vm_steal_key *key, int64_t begin, int64_t end,
		vm_steal_emit_cb emit, void *data)
{
	struct vm_steal_start_row row = { .key = *key, .begin = begin, .end = end };

	if (!sv->resolved) {
		g_array_append_val(sv->held, row);
		return;
	}
	pass(sv, &row, emit, data);
}

static void release(struct vm_steal_start_victim *sv, vm_steal_emit_cb emit, void *data)
{
	if (sv->resolved) {
		return;
	}
	sv->resolved = true;
	for (guint i = 0; i < sv->held->len; i++) {
		pass(sv, &g_array_index(sv->held, struct vm_steal_start_row, i), emit, data);
	}
	g_array_set_size(sv->held, 0);
}

void vm_steal_start_victim_resolve(struct vm_steal_start_victim *sv, int64_t tid,
		const char *comm, int64_t ts, vm_steal_emit_cb emit, void *data)
{
	if (sv->resolved) {
		return;
	}
	sv->fill_valid = true;
	sv->fill_tid = tid;
	sv->fill_comm = comm;
	sv->fill_until = ts;
	release(sv, emit, data);
}

void vm_steal_start_victim_give_up(struct vm_steal_start_victim *sv,
		vm_steal_emit_cb emit, void *data)
{
	release(sv, emit, data);
}

void vm_steal_start_victim_end(struct vm_steal_start_victim *sv,
		vm_steal_emit_cb emit, void *data)
{
	release(sv, emit, data);
	if (sv->carry_valid) {
		emit(&sv->carry.key, sv->carry.begin, sv->carry.end, data);
	}
	sv->carry_valid = false;
}
