#include <string.h>

#include "util/fifo.h"


void vm_fifo_init(struct vm_fifo *fifo, size_t element_size)
{
	fifo->slots = g_array_new(FALSE, FALSE, (guint) element_size);
	fifo->element_size = element_size;
	fifo->mask = 0;
	fifo->head = 0;
	fifo->count = 0;
}

void vm_fifo_fini(struct vm_fifo *fifo)
{
	if (fifo->slots) {
		g_array_free(fifo->slots, TRUE);
	}
	fifo->slots = NULL;
	fifo->count = 0;
}

void vm_fifo_grow(struct vm_fifo *fifo)
{
	size_t old_capacity = fifo->slots->len;
	size_t capacity = old_capacity ? old_capacity * 2 : VM_FIFO_FIRST_CAPACITY;
	size_t wrapped = fifo->head + fifo->count > old_capacity ?
		fifo->head + fifo->count - old_capacity : 0;

	g_array_set_size(fifo->slots, (guint) capacity);
	/*
	 * The elements that wrapped around to the start of the old ring now
	 * follow its end: the ring is full when it grows, so the new half has
	 * room for them.
	 */
	if (wrapped > 0) {
		memcpy(fifo->slots->data + old_capacity * fifo->element_size,
			fifo->slots->data, wrapped * fifo->element_size);
	}
	fifo->mask = capacity - 1;
}

void vm_fifo_shrink(struct vm_fifo *fifo)
{
	size_t capacity = fifo->slots->len / 2;
	size_t first = MIN(fifo->count, fifo->slots->len - fifo->head);
	GArray *slots = g_array_sized_new(FALSE, FALSE, (guint) fifo->element_size,
		(guint) capacity);

	/* The elements from the head to the end of the ring, then those that wrapped. */
	g_array_set_size(slots, (guint) capacity);
	memcpy(slots->data, fifo->slots->data + fifo->head * fifo->element_size,
		first * fifo->element_size);
	memcpy(slots->data + first * fifo->element_size, fifo->slots->data,
		(fifo->count - first) * fifo->element_size);
	g_array_free(fifo->slots, TRUE);
	fifo->slots = slots;
	fifo->head = 0;
	fifo->mask = capacity - 1;
}
