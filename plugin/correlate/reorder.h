#ifndef VM_CORRELATE_REORDER_H
#define VM_CORRELATE_REORDER_H

/*
 * The reorder buffer of filter.vm.correlate: upstream messages waiting to
 * be emitted, ordered by converted time. Ties are broken by the stream (its
 * sort key, which does not depend on how the graph is built) and then by the
 * message's position in its stream, so that both graph forms (one input per
 * source port, or one muxed input) give the same order.
 */

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

struct reorder_entry {
	int64_t time;           /* converted time, reference base */
	bool has_time;          /* else `time` only places it among its stream */
	const char *stream_key; /* tie-break: the stream's sort key */
	uint64_t seq;           /* tie-break: position in the stream */
	const bt_message *msg;  /* owned reference */
	bool own;               /* a message of correlate's own (already an output one) */
	guint upstream;         /* one pass, held messages: the upstream it came from */
};

/*
 * The heap is the first `len` entries of `heap`, which only grows: resizing
 * a GArray on every push and pop (a library call each) cost more than the
 * sift itself. Defined here so that the tests of the merge loop, twice per
 * message, are inlined.
 */
struct reorder {
	GArray *heap;  /* struct reorder_entry */
	guint len;
};

struct reorder *reorder_create(void);

/* Puts the references of the messages still inside. */
void reorder_destroy(struct reorder *reorder);
void reorder_clear(struct reorder *reorder);

/* Takes the entry's message reference. */
void reorder_push(struct reorder *reorder, const struct reorder_entry *entry);

static inline bool reorder_is_empty(const struct reorder *reorder)
{
	return reorder->len == 0;
}

static inline unsigned int reorder_size(const struct reorder *reorder)
{
	return reorder->len;
}

/* The smallest entry; the buffer must not be empty. */
static inline const struct reorder_entry *reorder_peek(const struct reorder *reorder)
{
	return &g_array_index(reorder->heap, struct reorder_entry, 0);
}

/* Removes the smallest entry; its message reference goes to the caller. */
const bt_message *reorder_pop(struct reorder *reorder);

#endif /* VM_CORRELATE_REORDER_H */
