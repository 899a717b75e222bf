/*
 * The vm:vcpu_state streams of the input: see earlier-states.h.
 */

#include <string.h>
#include <glib.h>

#include "common/message-stream.h"
#include "state/earlier-states.h"

struct earlier_states {
	/*
	 * const bt_stream_class * (one reference held, so that its address
	 * cannot name another class later) -> GINT_TO_POINTER(1 + verdict).
	 */
	GHashTable *verdicts;
	bool seen;
	/*
	 * The last class asked about and its verdict: messages come in runs
	 * of a few stream classes, and the table's lookup was a tenth of the
	 * filter's own time.
	 */
	const bt_stream_class *last_class;
	bool last_has;
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
	if (!states)
		return;
	g_hash_table_destroy(states->verdicts);
	g_free(states);
}

/* The stream of a message, NULL for those without one (inactivity). */
static bool has_vcpu_state_class(const bt_stream_class *stream_class)
{
	uint64_t count = bt_stream_class_get_event_class_count(stream_class);
	uint64_t i;

	for (i = 0; i < count; i++) {
		const char *name = bt_event_class_get_name(
			bt_stream_class_borrow_event_class_by_index_const(
				stream_class, i));

		if (name && strcmp(name, "vm:vcpu_state") == 0)
			return true;
	}
	return false;
}

bool earlier_states_has(struct earlier_states *states, const bt_message *msg,
		bool *first)
{
	const bt_stream *stream = vm_message_stream(msg);
	const bt_stream_class *stream_class;
	gpointer verdict;
	bool has;

	*first = false;
	if (!stream)
		return false;
	stream_class = bt_stream_borrow_class_const(stream);
	if (stream_class == states->last_class)
		return states->last_has;
	verdict = g_hash_table_lookup(states->verdicts, stream_class);
	if (verdict) {
		states->last_class = stream_class;
		states->last_has = GPOINTER_TO_INT(verdict) - 1;
		return states->last_has;
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
