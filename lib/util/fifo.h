#ifndef VM_UTIL_FIFO_H
#define VM_UTIL_FIFO_H

/*
 * A first-in first-out queue of fixed-size elements, stored in a GArray
 * used as a ring. The queues of the analysis see every event go through
 * them: a GQueue would allocate a list node per element, and a GArray
 * removing its first element would move all the others. The ring
 * doubles when full and halves, at a push, when less than an eighth of it
 * is used: a backlog that has gone (the wait for a first formula, a burst
 * of events) does not keep its memory for the rest of the trace.
 *
 * Elements are written and read in place: vm_fifo_push() gives the slot of
 * a new newest element for the caller to fill, vm_fifo_peek() the oldest.
 */

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

struct vm_fifo {
	GArray *slots;        /* its length is the capacity: a power of two, or 0 */
	size_t element_size;
	size_t mask;          /* capacity - 1 */
	size_t head;          /* slot of the oldest element */
	size_t count;
};

void vm_fifo_init(struct vm_fifo *fifo, size_t element_size);

/* Frees the storage; what the elements own is the caller's business. */
void vm_fifo_fini(struct vm_fifo *fifo);

/* Doubles the capacity (the slow path of vm_fifo_push()). */
void vm_fifo_grow(struct vm_fifo *fifo);

/* Halves the capacity, keeping the elements in order (the other slow path). */
void vm_fifo_shrink(struct vm_fifo *fifo);

/* The capacity a queue starts with and never shrinks below; it shrinks under 1/8 in use. */
#define VM_FIFO_FIRST_CAPACITY 64
#define VM_FIFO_SHRINK_BELOW 8

static inline size_t vm_fifo_length(const struct vm_fifo *fifo)
{
	return fifo->count;
}

static inline bool vm_fifo_is_empty(const struct vm_fifo *fifo)
{
	return fifo->count == 0;
}

/* The i-th element from the oldest (i < length). */
static inline void *vm_fifo_at(const struct vm_fifo *fifo, size_t i)
{
	return fifo->slots->data + ((fifo->head + i) & fifo->mask) * fifo->element_size;
}

/* The slot of a new newest element, for the caller to fill. */
static inline void *vm_fifo_push(struct vm_fifo *fifo)
{
	if (fifo->count == fifo->slots->len) {
		vm_fifo_grow(fifo);
	} else if (fifo->count < fifo->slots->len / VM_FIFO_SHRINK_BELOW &&
			fifo->slots->len > VM_FIFO_FIRST_CAPACITY) {
		vm_fifo_shrink(fifo);
	}
	return vm_fifo_at(fifo, fifo->count++);
}

/* The oldest element, NULL if the queue is empty. */
static inline void *vm_fifo_peek(const struct vm_fifo *fifo)
{
	return fifo->count ? vm_fifo_at(fifo, 0) : NULL;
}

/*
 * Removes the oldest element and returns its slot, which stays readable
 * until the next push (which may move the ring); NULL if the queue is empty.
 */
static inline void *vm_fifo_pop(struct vm_fifo *fifo)
{
	void *oldest = vm_fifo_peek(fifo);

	if (oldest) {
		fifo->head = (fifo->head + 1) & fifo->mask;
		fifo->count--;
	}
	return oldest;
}

/* Forgets every element (the storage stays). */
static inline void vm_fifo_clear(struct vm_fifo *fifo)
{
	fifo->head = 0;
	fifo->count = 0;
}

#endif /* VM_UTIL_FIFO_H */
