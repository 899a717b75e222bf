/*
 * The vm:vcpu_state streams of the input: see earlier-states.h.
 */

#include <string.h>
#include <glib.h>

#include "common/address-hash.h"
#include "state/earlier-states.h"

#define VERDICT_CACHE_BITS 4
#define VERDICT_CACHE_SIZE (1 << VERDICT_CACHE_BITS)

struct earlier_states {
	/*
	 * const bt_stream_class * (one reference held, so that its address
	 * cannot name another class later) -> GINT_TO_POINTER(1 + verdict).
	 */
	GHashTable *verdicts;
	bool seen;
	/*
	 * Direct-mapped, in front of `verdicts`: every message asks, and the
	 * merged traces interleave a few stream classes, which a one-entry
	 * cache kept missing (the table's lookup was a tenth of the filter's
	 * own time). The table's references keep the addresses unique.
	 */
	struct {
		const bt_stream_class *stream_class;
		bool has;
	} cache[VERDICT_CACHE_SIZE];
};

static void stream_class_put(gpointer stream_class)
{
	bt_stream_class_put_ref(stream_class);
}

struct earlier_states *earlier_states_create(void)
{
	struct earlier_states *states = g_new0(struct earlier_states, 1);

	states->verdicts = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		stream_class_put, NULL);
	return states;
}

void earlier_states_destroy(struct earlier_states *states)
{
	if (!states) {
		return;
	}
	g_hash_table_destroy(states->verdicts);
	g_free(states);
}

/* Whether the class has an event class named `vm:vcpu_state`. */
static bool has_vcpu_state_class(const bt_stream_class *stream_class)
{
	uint64_t count = bt_stream_class_get_event_class_count(stream_class);
	uint64_t i;

	for (i = 0; i < count; i++) {
		const char *name = bt_event_class_get_name(
			bt_stream_class_borrow_event_class_by_index_const(
				stream_class, i));

		if (name && strcmp(name, "vm:vcpu_state") == 0) {
			return true;
		}
	}
	return false;
}

/* A miss of the cache: the table's verdict, decided on first sight. */
static G_GNUC_NO_INLINE bool verdict_missed(struct earlier_states *states,
		const bt_stream_class *stream_class, bool *first)
{
	gpointer verdict = g_hash_table_lookup(states->verdicts, stream_class);
	bool has;

	if (verdict) {
		return GPOINTER_TO_INT(verdict) - 1;
	}
	/*
	 * Decided on the first message of the class: its event classes may
	 * grow later, but a stream is replaced as a whole or not at all.
	 */
	has = has_vcpu_state_class(stream_class);
	bt_stream_class_get_ref(stream_class);
	g_hash_table_insert(states->verdicts, (gpointer) stream_class,
		GINT_TO_POINTER(1 + has));
	if (has && !states->seen) {
		states->seen = true;
		*first = true;
	}
	return has;
}

bool earlier_states_has(struct earlier_states *states, const bt_stream *stream,
		bool *first)
{
	const bt_stream_class *stream_class;
	size_t slot;

	*first = false;
	if (!stream) {
		return false;
	}
	stream_class = bt_stream_borrow_class_const(stream);
	slot = vm_address_hash(stream_class, VERDICT_CACHE_BITS);
	if (states->cache[slot].stream_class != stream_class) {
		states->cache[slot].has = verdict_missed(states, stream_class, first);
		states->cache[slot].stream_class = stream_class;
	}
	return states->cache[slot].has;
}
