#ifndef VM_PLUGIN_STATE_CAUSE_RING_H
#define VM_PLUGIN_STATE_CAUSE_RING_H

/*
 * What filter.vm.state remembers of each input the vCPU tracker holds, in
 * input order: the event's clock, read when the input is pushed (its
 * message is then in the CPU caches) for the mode changes it may cause,
 * reported when the tracker releases it, in the same order.
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/event-decode.h"

struct input_cause {
	bool is_event;
	/* Of the event; clock_class NULL if it has no clock or is not decoded. */
	struct event_clock clock;
};

/* A growable ring, oldest first. */
struct cause_ring {
	struct input_cause *items;
	size_t cap;   /* a power of two, or 0 */
	size_t head;  /* index of the oldest */
	size_t len;
};

/* Doubles the capacity, the oldest entry moving to index 0. */
static inline void cause_ring_grow(struct cause_ring *ring)
{
	size_t cap = ring->cap ? ring->cap * 2 : 256;
	struct input_cause *items = g_new(struct input_cause, cap);
	size_t i;

	for (i = 0; i < ring->len; i++)
		items[i] = ring->items[(ring->head + i) & (ring->cap - 1)];
	g_free(ring->items);
	ring->items = items;
	ring->cap = cap;
	ring->head = 0;
}

static inline void cause_ring_push(struct cause_ring *ring,
		const struct input_cause *cause)
{
	if (ring->len == ring->cap)
		cause_ring_grow(ring);
	ring->items[(ring->head + ring->len) & (ring->cap - 1)] = *cause;
	ring->len++;
}

/* Removes the oldest entry into `cause`; false if empty. */
static inline bool cause_ring_pop(struct cause_ring *ring,
		struct input_cause *cause)
{
	if (!ring->len)
		return false;
	*cause = ring->items[ring->head];
	ring->head = (ring->head + 1) & (ring->cap - 1);
	ring->len--;
	return true;
}

static inline void cause_ring_clear(struct cause_ring *ring)
{
	ring->head = 0;
	ring->len = 0;
}

static inline void cause_ring_fini(struct cause_ring *ring)
{
	g_free(ring->items);
	ring->items = NULL;
	ring->cap = 0;
	cause_ring_clear(ring);
}

#endif /* VM_PLUGIN_STATE_CAUSE_RING_H */
