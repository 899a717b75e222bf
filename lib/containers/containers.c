/*
 * The machines' namespace knowledge, by machine index and by name: the
 * analysis feeds events by index, the writers know intervals by name.
 */

#include <glib.h>

#include "containers/containers.h"

struct vm_containers {
	GPtrArray *machines;   /* struct vm_machine_ns * by index, NULL: not named */
	GHashTable *by_name;   /* name (owned) -> struct vm_machine_ns * */
};

static void machine_free(gpointer p)
{
	vm_machine_ns_destroy(p);
}

struct vm_containers *vm_containers_create(void)
{
	struct vm_containers *c = g_new0(struct vm_containers, 1);

	c->machines = g_ptr_array_new_with_free_func(machine_free);
	c->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return c;
}

void vm_containers_destroy(struct vm_containers *c)
{
	if (!c) {
		return;
	}
	g_hash_table_destroy(c->by_name);
	g_ptr_array_free(c->machines, TRUE);
	g_free(c);
}

void vm_containers_add_machine(struct vm_containers *c, unsigned int index,
		const char *name)
{
	struct vm_machine_ns *m;

	if (index >= c->machines->len) {
		g_ptr_array_set_size(c->machines, index + 1);
	}
	m = g_ptr_array_index(c->machines, index);
	if (!m) {
		m = vm_machine_ns_create();
		g_ptr_array_index(c->machines, index) = m;
	}
	g_hash_table_replace(c->by_name, g_strdup(name ? name : ""), m);
}

static struct vm_machine_ns *machine_at(const struct vm_containers *c,
		unsigned int index)
{
	return index < c->machines->len ? g_ptr_array_index(c->machines, index) : NULL;
}

void vm_containers_feed(struct vm_containers *c, const struct vm_event *ev)
{
	struct vm_machine_ns *m;

	/* filter.vm.state's events name their VM, not a traced machine. */
	if (ev->kind == VM_EVENT_VCPU_STATE) {
		return;
	}
	m = machine_at(c, ev->machine);
	if (m) {
		vm_machine_ns_feed(m, ev);
	}
}

bool vm_containers_needs_fields(enum vm_event_kind kind)
{
	switch (kind) {
	case VM_EVENT_SCHED_SWITCH:
	case VM_EVENT_PROCESS_FORK:
	case VM_EVENT_STATEDUMP_PROCESS:
	case VM_EVENT_STATEDUMP_PID_NS:
		return true;
	default:
		return false;
	}
}

bool vm_containers_lookup(struct vm_containers *c, unsigned int index,
		int64_t tid, struct vm_container_ref *out)
{
	struct vm_machine_ns *m = machine_at(c, index);

	return m && vm_machine_ns_lookup(m, tid, out);
}

bool vm_containers_lookup_by_name(struct vm_containers *c, const char *machine,
		int64_t tid, struct vm_container_ref *out)
{
	struct vm_machine_ns *m = g_hash_table_lookup(c->by_name, machine ? machine : "");

	return m && vm_machine_ns_lookup(m, tid, out);
}

bool vm_containers_any(const struct vm_containers *c)
{
	for (guint i = 0; i < c->machines->len; i++) {
		const struct vm_machine_ns *m = g_ptr_array_index(c->machines, i);

		if (m && vm_machine_ns_any(m)) {
			return true;
		}
	}
	return false;
}
