/*
 * Per-container state totals: one entry per (machine, inode number), the
 * threads counted once each through a set of tids.
 */

#include <string.h>
#include <glib.h>

#include "containers/totals.h"

struct entry {
	struct vm_container_total row;  /* strings below owned by the entry */
	char *machine;
	char *container;
	GHashTable *tids;               /* int64_t tid set */
};

struct vm_container_totals {
	GHashTable *entries;            /* "machine\nns_inum" (owned) -> struct entry */
};

static void entry_free(gpointer p)
{
	struct entry *e = p;

	g_free(e->machine);
	g_free(e->container);
	g_hash_table_destroy(e->tids);
	g_free(e);
}

struct vm_container_totals *vm_container_totals_create(void)
{
	struct vm_container_totals *totals = g_new0(struct vm_container_totals, 1);

	totals->entries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		entry_free);
	return totals;
}

void vm_container_totals_destroy(struct vm_container_totals *totals)
{
	if (!totals) {
		return;
	}
	g_hash_table_destroy(totals->entries);
	g_free(totals);
}

int vm_container_state_of_name(const char *state)
{
	static const char *const names[VM_CONTAINER_STATES] = {
		[VM_CONTAINER_RUNNING] = "running",
		[VM_CONTAINER_HYPERVISOR] = "hypervisor",
		[VM_CONTAINER_PREEMPTED] = "preempted",
		[VM_CONTAINER_VCPU_BLOCKED] = "vcpu-blocked",
		[VM_CONTAINER_RUNNABLE] = "runnable",
		[VM_CONTAINER_BLOCKED] = "blocked",
		[VM_CONTAINER_UNKNOWN] = "unknown",
	};

	for (int i = 0; state && i < VM_CONTAINER_STATES; i++) {
		if (strcmp(names[i], state) == 0) {
			return i;
		}
	}
	return -1;
}

static struct entry *entry_get(struct vm_container_totals *totals,
		const char *machine, int64_t ns_inum)
{
	char *key = g_strdup_printf("%s\n%" G_GINT64_FORMAT, machine, ns_inum);
	struct entry *e = g_hash_table_lookup(totals->entries, key);

	if (e) {
		g_free(key);
		return e;
	}
	e = g_new0(struct entry, 1);
	e->machine = g_strdup(machine);
	e->tids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	e->row.ns_inum = ns_inum;
	g_hash_table_insert(totals->entries, key, e);
	return e;
}

void vm_container_totals_add(struct vm_container_totals *totals,
		const char *machine, const struct vm_container_ref *ref, int64_t tid,
		const char *state, int64_t begin, int64_t end)
{
	struct entry *e = entry_get(totals, machine ? machine : "", ref->ns_inum);
	int index = vm_container_state_of_name(state);

	/* The latest name: the init process may show up after the first rows. */
	if (g_strcmp0(e->container, ref->name) != 0) {
		g_free(e->container);
		e->container = g_strdup(ref->name ? ref->name : "");
	}
	if (!g_hash_table_contains(e->tids, &tid)) {
		int64_t *key = g_new(int64_t, 1);

		*key = tid;
		g_hash_table_add(e->tids, key);
	}
	if (index >= 0 && end > begin) {
		e->row.ns[index] += end - begin;
	}
}

static gint compare_entries(gconstpointer a, gconstpointer b)
{
	const struct entry *x = *(const struct entry *const *) a;
	const struct entry *y = *(const struct entry *const *) b;
	int by_machine = strcmp(x->machine, y->machine);

	if (by_machine) {
		return by_machine;
	}
	return (x->row.ns_inum > y->row.ns_inum) - (x->row.ns_inum < y->row.ns_inum);
}

void vm_container_totals_foreach(const struct vm_container_totals *totals,
		void (*fn)(const struct vm_container_total *row, void *data),
		void *data)
{
	GPtrArray *sorted = g_ptr_array_new();
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, totals->entries);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		g_ptr_array_add(sorted, value);
	}
	g_ptr_array_sort(sorted, compare_entries);
	for (guint i = 0; i < sorted->len; i++) {
		struct entry *e = g_ptr_array_index(sorted, i);

		e->row.machine = e->machine;
		e->row.container = e->container ? e->container : "";
		e->row.threads = g_hash_table_size(e->tids);
		fn(&e->row, data);
	}
	g_ptr_array_unref(sorted);
}
