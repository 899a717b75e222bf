#include <glib.h>
#include <string.h>

#include "threads/role-gate.h"

struct held_interval {
	struct vm_thread_interval iv;
	/* merged into an earlier interval of its thread: not sent */
	bool merged;
};

struct vm_threads_role_gate {
	GArray *held;  /* struct held_interval, arrival order */
};

static void held_clear(gpointer data)
{
	struct held_interval *h = data;

	g_free((char *) h->iv.machine);
	g_free((char *) h->iv.comm);
}

struct vm_threads_role_gate *vm_threads_role_gate_create(void)
{
	struct vm_threads_role_gate *gate = g_new0(struct vm_threads_role_gate, 1);

	gate->held = g_array_new(FALSE, FALSE, sizeof(struct held_interval));
	g_array_set_clear_func(gate->held, held_clear);
	return gate;
}

void vm_threads_role_gate_destroy(struct vm_threads_role_gate *gate)
{
	if (!gate) {
		return;
	}
	g_array_unref(gate->held);
	g_free(gate);
}

void vm_threads_role_gate_hold(struct vm_threads_role_gate *gate,
		const struct vm_thread_interval *iv)
{
	struct held_interval h = { .iv = *iv };

	h.iv.machine = g_strdup(iv->machine);
	h.iv.comm = g_strdup(iv->comm);
	/* state names are static strings */
	g_array_append_val(gate->held, h);
}

static bool continues(const struct vm_thread_interval *earlier,
		const struct vm_thread_interval *later)
{
	return earlier->end_ns == later->begin_ns &&
		strcmp(earlier->state, later->state) == 0 &&
		earlier->reason == later->reason;
}

/* Drops the vCPU column and merges what becomes contiguous and identical. */
static void to_own_view(struct vm_threads_role_gate *gate)
{
	/* tid -> last kept interval of that thread */
	GHashTable *last = g_hash_table_new(g_int64_hash, g_int64_equal);

	for (guint i = 0; i < gate->held->len; i++) {
		struct held_interval *h = &g_array_index(gate->held, struct held_interval, i);
		struct held_interval *prev = g_hash_table_lookup(last, &h->iv.tid);

		h->iv.vcpu = -1;
		if (prev && continues(&prev->iv, &h->iv)) {
			prev->iv.end_ns = h->iv.end_ns;
			h->merged = true;
			continue;
		}
		g_hash_table_insert(last, &h->iv.tid, h);
	}
	g_hash_table_destroy(last);
}

void vm_threads_role_gate_release(struct vm_threads_role_gate *gate, bool own_view,
		vm_threads_interval_cb cb, void *data)
{
	if (own_view) {
		to_own_view(gate);
	}
	for (guint i = 0; i < gate->held->len; i++) {
		struct held_interval *h = &g_array_index(gate->held, struct held_interval, i);

		if (!h->merged) {
			cb(&h->iv, data);
		}
	}
	vm_threads_role_gate_drop(gate);
}

void vm_threads_role_gate_drop(struct vm_threads_role_gate *gate)
{
	g_array_set_size(gate->held, 0);
}
