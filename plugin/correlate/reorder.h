#ifndef VM_CORRELATE_REORDER_H
#define VM_CORRELATE_REORDER_H

/*
 * The reorder buffer of filter.vm.correlate: upstream messages waiting to
 * be emitted, ordered by converted time. Ties are broken by the stream (its
 * sort key, which does not depend on how the graph is built) and then by the
 * message's position in its stream, so that both graph forms (one input per
 * source port, or one muxed input) give the same order.
 *
 * A stream's messages come in that order already (its times never go back,
 * nor do the maps): each stream has a queue of its own, and only the queues'
 * heads are compared, in a heap as small as the number of streams. A
 * buffer that holds thousands of messages (a wide time correction, one
 * pass's look-ahead) then costs a queue append and a short sift per
 * message. Entries of no queue (correlate's own messages, inactivity), and
 * any entry that would come before its queue's last one (an input whose
 * times go back), go to a heap of entries: the order is the same.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

#include "util/fifo.h"

/*
 * The host's events wait here for the look-ahead (tens of thousands at a
 * time): the small members go last, so that padding does not take 8 of
 * every 56 bytes.
 */
struct reorder_entry {
	int64_t time;           /* converted time, reference base */
	const char *stream_key; /* tie-break: the stream's sort key */
	uint64_t seq;           /* tie-break: position in the stream */
	const bt_message *msg;  /* owned reference; NULL when `parked` */
	struct mirror_parked *parked; /* an event kept as a record (owned), or NULL */
	guint queue;            /* its stream's queue (reorder_queue_new()), 0: none */
	bool has_time;          /* else `time` only places it among its stream */
	bool own;               /* a message of correlate's own (already an output one) */
};

/*
 * The heap is the first `len` entries of `heap`, which only grows: resizing
 * a GArray on every push and pop (a library call each) cost more than the
 * sift itself. Defined here so that the tests of the merge loop, twice per
 * message, are inlined.
 */
/* A queue that is not empty, in the heap of heads: its oldest entry's time first. */
struct reorder_head {
	int64_t time;
	guint queue;
};

struct mirror_parked;

/* Frees an entry's parked event (the buffer knows nothing of the mirror). */
typedef void (*reorder_free_parked_fn)(struct mirror_parked *parked);

struct reorder {
	reorder_free_parked_fn free_parked;
	GArray *heap;    /* struct reorder_entry outside the queues */
	guint len;
	GArray *queues;  /* struct vm_fifo of struct reorder_entry: queue i + 1 */
	GArray *heads;   /* struct reorder_head, a heap by the queues' oldest entries */
	guint heads_len;
	guint count;     /* entries in all */
	bool top_in_heap; /* the smallest entry is the heap's (else the first head's) */
};

struct reorder *reorder_create(reorder_free_parked_fn free_parked);

/* Puts the references of the messages still inside (frees their parked events). */
void reorder_destroy(struct reorder *reorder);
void reorder_clear(struct reorder *reorder);

/* A new queue, for one stream's entries (their order never goes back). */
guint reorder_queue_new(struct reorder *reorder);

/* Drops every queue (the streams are forgotten); only when the buffer is empty. */
void reorder_forget_queues(struct reorder *reorder);

/* Takes the entry's message reference. */
void reorder_push(struct reorder *reorder, const struct reorder_entry *entry);

static inline bool reorder_is_empty(const struct reorder *reorder)
{
	return reorder->count == 0;
}

static inline unsigned int reorder_size(const struct reorder *reorder)
{
	return reorder->count;
}

static inline bool reorder_entry_less(const struct reorder_entry *a,
		const struct reorder_entry *b)
{
	int diff;

	if (a->time != b->time) {
		return a->time < b->time;
	}

	if (a->stream_key != b->stream_key) {
		diff = strcmp(a->stream_key, b->stream_key);
		if (diff) {
			return diff < 0;
		}
	}

	return a->seq < b->seq;
}

/* The oldest entry of queue `queue` (not empty). */
static inline const struct reorder_entry *reorder_queue_head(const struct reorder *reorder,
		guint queue)
{
	return (const struct reorder_entry *) vm_fifo_peek(
		&g_array_index(reorder->queues, struct vm_fifo, queue - 1));
}

/* The smallest entry; the buffer must not be empty. */
static inline const struct reorder_entry *reorder_peek(const struct reorder *reorder)
{
	return reorder->top_in_heap ? &g_array_index(reorder->heap, struct reorder_entry, 0) :
		reorder_queue_head(reorder,
			g_array_index(reorder->heads, struct reorder_head, 0).queue);
}

/*
 * Removes the smallest entry; its message reference (NULL for a parked
 * event) goes to the caller, and so does its parked event: peek first.
 */
const bt_message *reorder_pop(struct reorder *reorder);

#endif /* VM_CORRELATE_REORDER_H */
