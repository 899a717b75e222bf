#ifndef VM_MODEL_MACHINE_SET_H
#define VM_MODEL_MACHINE_SET_H

/*
 * A set of machine indexes, asked about on every event: a bit mask answers
 * for the first 64 indexes (there are a handful of machines) before the
 * GHashTable, which keeps them all, and in the order of a GHashTable.
 */

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

struct vm_machine_set {
	/* GUINT_TO_POINTER(machine) set. */
	GHashTable *table;
	/* Bit m: machine m (< 64) is in the table. */
	uint64_t low_bits;
};

static inline void vm_machine_set_init(struct vm_machine_set *set)
{
	set->table = g_hash_table_new(g_direct_hash, g_direct_equal);
	set->low_bits = 0;
}

static inline void vm_machine_set_fini(struct vm_machine_set *set)
{
	g_hash_table_destroy(set->table);
	set->table = NULL;
}

static inline bool vm_machine_set_contains(const struct vm_machine_set *set,
		unsigned int machine)
{
	if (machine < 64) {
		return (set->low_bits >> machine) & 1;
	}
	return g_hash_table_contains(set->table, GUINT_TO_POINTER(machine));
}

/* Whether `machine` was not in the set yet. */
static inline bool vm_machine_set_add(struct vm_machine_set *set,
		unsigned int machine)
{
	if (vm_machine_set_contains(set, machine)) {
		return false;
	}
	if (machine < 64) {
		set->low_bits |= UINT64_C(1) << machine;
	}
	return g_hash_table_add(set->table, GUINT_TO_POINTER(machine));
}

#endif /* VM_MODEL_MACHINE_SET_H */
