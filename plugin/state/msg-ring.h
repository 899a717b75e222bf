#ifndef VM_PLUGIN_STATE_MSG_RING_H
#define VM_PLUGIN_STATE_MSG_RING_H

/*
 * The output queue of filter.vm.state: a growable ring of message pointers,
 * oldest first, references owned. Every message goes through it, so
 * queuing one must not allocate (a GQueue allocates a list node per
 * message); the ring only grows, to the largest backlog seen.
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

struct msg_ring {
	const bt_message **items;
	size_t cap;   /* a power of two, or 0 */
	size_t head;  /* index of the oldest */
	size_t len;
};

static inline size_t msg_ring_length(const struct msg_ring *ring)
{
	return ring->len;
}

static inline bool msg_ring_is_empty(const struct msg_ring *ring)
{
	return ring->len == 0;
}

/* Doubles the capacity, the oldest message moving to index 0. */
static inline void msg_ring_grow(struct msg_ring *ring)
{
	size_t cap = ring->cap ? ring->cap * 2 : 256;
	const bt_message **items = g_new(const bt_message *, cap);
	size_t i;

	for (i = 0; i < ring->len; i++)
		items[i] = ring->items[(ring->head + i) & (ring->cap - 1)];
	g_free(ring->items);
	ring->items = items;
	ring->cap = cap;
	ring->head = 0;
}

/* Takes the reference on `msg`. */
static inline void msg_ring_push(struct msg_ring *ring, const bt_message *msg)
{
	if (ring->len == ring->cap)
		msg_ring_grow(ring);
	ring->items[(ring->head + ring->len) & (ring->cap - 1)] = msg;
	ring->len++;
}

/* Removes the oldest message and gives its reference; NULL if empty. */
static inline const bt_message *msg_ring_pop(struct msg_ring *ring)
{
	const bt_message *msg;

	if (!ring->len)
		return NULL;
	msg = ring->items[ring->head];
	ring->head = (ring->head + 1) & (ring->cap - 1);
	ring->len--;
	return msg;
}

/* Puts the references of the messages left; the ring stays usable. */
static inline void msg_ring_clear(struct msg_ring *ring)
{
	const bt_message *msg;

	while ((msg = msg_ring_pop(ring)))
		bt_message_put_ref(msg);
}

static inline void msg_ring_fini(struct msg_ring *ring)
{
	msg_ring_clear(ring);
	g_free(ring->items);
	ring->items = NULL;
	ring->cap = 0;
}

#endif /* VM_PLUGIN_STATE_MSG_RING_H */
