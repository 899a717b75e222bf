#ifndef VM_MODEL_INT64_KEY_H
#define VM_MODEL_INT64_KEY_H

/*
 * GHashTable keyed by 64-bit integers (thread ids, vm_uids, machine/CPU
 * pairs): the table owns a copy of each key.
 */

#include <stdint.h>
#include <glib.h>

static inline GHashTable *vm_int64_table_new(GDestroyNotify value_destroy)
{
	return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
		value_destroy);
}

static inline void vm_int64_table_insert(GHashTable *table, int64_t key,
		gpointer value)
{
	gint64 *copy = g_new(gint64, 1);

	*copy = key;
	g_hash_table_insert(table, copy, value);
}

static inline gpointer vm_int64_table_lookup(GHashTable *table, int64_t key)
{
	gint64 k = key;

	return g_hash_table_lookup(table, &k);
}

static inline gboolean vm_int64_table_remove(GHashTable *table, int64_t key)
{
	gint64 k = key;

	return g_hash_table_remove(table, &k);
}

/* Two 32-bit halves in one key (machine and CPU, machine and thread). */
static inline int64_t vm_int64_pair(unsigned int high, int64_t low)
{
	return (int64_t) (((uint64_t) high << 32) | (uint32_t) low);
}

/* An int64 value stored in a table (g_free() frees it). */
static inline gint64 *vm_int64_box(int64_t value)
{
	gint64 *box = g_new(gint64, 1);

	*box = value;
	return box;
}

#endif /* VM_MODEL_INT64_KEY_H */
