/*
 * Event class -> kind, learnt from the decoder: see event-kinds.h.
 */

#include <stdint.h>
#include <glib.h>

#include "event-kinds.h"

#define KIND_CACHE_SIZE 256

struct event_kinds {
	/* const bt_event_class * (one reference held) -> kind + 1 */
	GHashTable *by_class;
	/*
	 * Direct-mapped cache in front of `by_class`: there is a lookup per
	 * event. The merged traces have a few dozen classes: with 64 slots,
	 * two busy ones shared a slot and missed at every turn. The table
	 * holds a reference on each class and never drops an entry, so a
	 * cached address cannot name another class later.
	 */
	struct {
		const bt_event_class *event_class;
		enum vm_event_kind kind;
	} cache[KIND_CACHE_SIZE];
};

static void event_class_put(gpointer event_class)
{
	bt_event_class_put_ref(event_class);
}

struct event_kinds *event_kinds_create(void)
{
	struct event_kinds *kinds = g_new0(struct event_kinds, 1);

	kinds->by_class = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		event_class_put, NULL);
	return kinds;
}

void event_kinds_destroy(struct event_kinds *kinds)
{
	if (!kinds)
		return;
	g_hash_table_destroy(kinds->by_class);
	g_free(kinds);
}

static size_t cache_slot(const bt_event_class *event_class)
{
	/* Fibonacci hashing: objects of one kind lie at regular strides. */
	return (size_t) (((uint64_t) (uintptr_t) event_class *
		UINT64_C(0x9E3779B97F4A7C15)) >> 56) % KIND_CACHE_SIZE;
}

bool event_kinds_lookup(struct event_kinds *kinds, const bt_event_class *event_class,
		enum vm_event_kind *kind)
{
	size_t slot = cache_slot(event_class);
	gpointer value;

	if (kinds->cache[slot].event_class == event_class) {
		*kind = kinds->cache[slot].kind;
		return true;
	}
	value = g_hash_table_lookup(kinds->by_class, event_class);
	if (!value)
		return false;
	*kind = (enum vm_event_kind) (GPOINTER_TO_INT(value) - 1);
	kinds->cache[slot].event_class = event_class;
	kinds->cache[slot].kind = *kind;
	return true;
}

void event_kinds_learn(struct event_kinds *kinds, const bt_event_class *event_class,
		enum vm_event_kind kind)
{
	if (g_hash_table_contains(kinds->by_class, event_class))
		return;
	bt_event_class_get_ref(event_class);
	g_hash_table_insert(kinds->by_class, (gpointer) event_class,
		GINT_TO_POINTER((int) kind + 1));
}
