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
#include "util/fifo.h"

struct input_cause {
	bool is_event;
	/*
	 * A located gap (no message): `loss_stream` is the stream that lost
	 * events (borrowed from the iterator's loss_streams), `clock` has its
	 * default clock class (NULL if none) and no value.
	 */
	bool is_loss;
	/*
	 * A stream end: its stream is forgotten at its release (told at the
	 * push, which knows the message's type: not asked again).
	 */
	bool is_stream_end;
	const bt_stream *loss_stream;
	/* Of the event; clock_class NULL if it has no clock or is not decoded. */
	struct event_clock clock;
};

/* Oldest first, in a vm_fifo. */
struct cause_ring {
	struct vm_fifo fifo;  /* struct input_cause */
};

static inline void cause_ring_init(struct cause_ring *ring)
{
	vm_fifo_init(&ring->fifo, sizeof(struct input_cause));
}

static inline void cause_ring_push(struct cause_ring *ring,
		const struct input_cause *cause)
{
	*(struct input_cause *) vm_fifo_push(&ring->fifo) = *cause;
}

/* Removes the oldest entry into `cause`; false if empty. */
static inline bool cause_ring_pop(struct cause_ring *ring,
		struct input_cause *cause)
{
	const struct input_cause *oldest = vm_fifo_pop(&ring->fifo);

	if (!oldest) {
		return false;
	}
	*cause = *oldest;
	return true;
}

static inline void cause_ring_clear(struct cause_ring *ring)
{
	vm_fifo_clear(&ring->fifo);
}

static inline void cause_ring_fini(struct cause_ring *ring)
{
	if (ring->fifo.slots) {
		vm_fifo_fini(&ring->fifo);
	}
}

#endif /* VM_PLUGIN_STATE_CAUSE_RING_H */
