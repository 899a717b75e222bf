#ifndef VM_PLUGIN_STATE_MSG_RING_H
#define VM_PLUGIN_STATE_MSG_RING_H

/*
 * The output queue of filter.vm.state: messages, oldest first, references
 * owned. Every message goes through it: a vm_fifo, which allocates nothing
 * once it has grown to the largest backlog.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/fifo.h"

struct msg_ring {
	struct vm_fifo fifo;  /* const bt_message * */
};

static inline void msg_ring_init(struct msg_ring *ring)
{
	vm_fifo_init(&ring->fifo, sizeof(const bt_message *));
}

static inline size_t msg_ring_length(const struct msg_ring *ring)
{
	return vm_fifo_length(&ring->fifo);
}

static inline bool msg_ring_is_empty(const struct msg_ring *ring)
{
	return vm_fifo_is_empty(&ring->fifo);
}

/* Takes the reference on `msg`. */
static inline void msg_ring_push(struct msg_ring *ring, const bt_message *msg)
{
	*(const bt_message **) vm_fifo_push(&ring->fifo) = msg;
}

/* Removes the oldest message and gives its reference; NULL if empty. */
static inline const bt_message *msg_ring_pop(struct msg_ring *ring)
{
	const bt_message **oldest = vm_fifo_pop(&ring->fifo);

	return oldest ? *oldest : NULL;
}

/* Puts the references of the messages left; the ring stays usable. */
static inline void msg_ring_clear(struct msg_ring *ring)
{
	const bt_message *msg;

	while ((msg = msg_ring_pop(ring))) {
		bt_message_put_ref(msg);
	}
}

static inline void msg_ring_fini(struct msg_ring *ring)
{
	if (!ring->fifo.slots) {
		return;
	}
	msg_ring_clear(ring);
	vm_fifo_fini(&ring->fifo);
}

#endif /* VM_PLUGIN_STATE_MSG_RING_H */
