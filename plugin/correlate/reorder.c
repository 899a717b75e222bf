/*
 * Reorder buffer: a queue per stream, merged by a heap of the queues'
 * heads, and a binary min-heap of the other entries. See reorder.h.
 */

#include "correlate/reorder.h"

struct reorder *reorder_create(reorder_free_parked_fn free_parked)
{
	struct reorder *reorder = g_new0(struct reorder, 1);

	reorder->free_parked = free_parked;

	reorder->heap = g_array_sized_new(FALSE, FALSE, sizeof(struct reorder_entry), 256);
	reorder->queues = g_array_new(FALSE, FALSE, sizeof(struct vm_fifo));
	reorder->heads = g_array_new(FALSE, FALSE, sizeof(struct reorder_head));
	return reorder;
}

static struct vm_fifo *queue_at(struct reorder *reorder, guint queue)
{
	return &g_array_index(reorder->queues, struct vm_fifo, queue - 1);
}

static void drop_entry(struct reorder *reorder, const struct reorder_entry *entry)
{
	bt_message_put_ref(entry->msg);
	if (entry->parked) {
		reorder->free_parked(entry->parked);
	}
}

void reorder_clear(struct reorder *reorder)
{
	guint i;

	for (i = 0; i < reorder->len; i++) {
		drop_entry(reorder, &g_array_index(reorder->heap, struct reorder_entry, i));
	}

	for (i = 1; i <= reorder->queues->len; i++) {
		struct vm_fifo *fifo = queue_at(reorder, i);
		const struct reorder_entry *entry;

		while ((entry = vm_fifo_pop(fifo))) {
			drop_entry(reorder, entry);
		}
	}

	reorder->heads_len = 0;
	reorder->len = 0;
	reorder->count = 0;
	reorder->top_in_heap = false;
}

void reorder_forget_queues(struct reorder *reorder)
{
	if (reorder->count > 0) {
		/* Entries still name them: they stay (a few empty queues more). */
		return;
	}

	for (guint i = 1; i <= reorder->queues->len; i++) {
		vm_fifo_fini(queue_at(reorder, i));
	}

	g_array_set_size(reorder->queues, 0);
	reorder->heads_len = 0;
}

void reorder_destroy(struct reorder *reorder)
{
	if (!reorder) {
		return;
	}

	reorder_clear(reorder);
	reorder_forget_queues(reorder);
	g_array_free(reorder->heap, TRUE);
	g_array_free(reorder->queues, TRUE);
	g_array_free(reorder->heads, TRUE);
	g_free(reorder);
}

guint reorder_queue_new(struct reorder *reorder)
{
	struct vm_fifo fifo;

	vm_fifo_init(&fifo, sizeof(struct reorder_entry));
	g_array_append_val(reorder->queues, fifo);
	if (reorder->heads->len < reorder->queues->len) {
		/* Room for every queue: the heap of heads never resizes. */
		g_array_set_size(reorder->heads, reorder->queues->len);
	}

	return reorder->queues->len;
}

#define AT(i) (&g_array_index(reorder->heap, struct reorder_entry, (i)))
#define HEAD(i) (&g_array_index(reorder->heads, struct reorder_head, (i)))

/*
 * Sifts move a hole instead of swapping entries: each step copies one entry,
 * and the heap ends up exactly as with swaps.
 */
static void heap_push(struct reorder *reorder, const struct reorder_entry *entry)
{
	guint i = reorder->len++;

	if (reorder->len > reorder->heap->len) {
		g_array_set_size(reorder->heap, reorder->len);
	}

	while (i > 0) {
		guint parent = (i - 1) / 2;

		if (!reorder_entry_less(entry, AT(parent))) {
			break;
		}

		*AT(i) = *AT(parent);
		i = parent;
	}

	*AT(i) = *entry;
}

/* Time first: ties (rare) compare the entries. */
static bool head_less(const struct reorder *reorder, const struct reorder_head *a,
		const struct reorder_head *b)
{
	if (a->time != b->time) {
		return a->time < b->time;
	}

	return reorder_entry_less(reorder_queue_head(reorder, a->queue),
		reorder_queue_head(reorder, b->queue));
}

/* A queue, no longer empty, joins the heads' heap. */
static void heads_push(struct reorder *reorder, const struct reorder_head *head)
{
	guint i = reorder->heads_len++;

	while (i > 0) {
		guint parent = (i - 1) / 2;

		if (!head_less(reorder, head, HEAD(parent))) {
			break;
		}

		*HEAD(i) = *HEAD(parent);
		i = parent;
	}

	*HEAD(i) = *head;
}

/* Places `head` from the heads' root down. */
static void heads_sift_down(struct reorder *reorder, const struct reorder_head *head)
{
	guint len = reorder->heads_len;
	guint i = 0;

	for (;;) {
		guint left = 2 * i + 1;
		guint smallest = left;

		if (left >= len) {
			break;
		}

		if (left + 1 < len && head_less(reorder, HEAD(left + 1), HEAD(left))) {
			smallest = left + 1;
		}

		if (!head_less(reorder, HEAD(smallest), head)) {
			break;
		}

		*HEAD(i) = *HEAD(smallest);
		i = smallest;
	}

	*HEAD(i) = *head;
}

/* Which of the heap's top and the first head is the smallest entry. */
static void find_top(struct reorder *reorder)
{
	reorder->top_in_heap = reorder->len > 0 && (reorder->heads_len == 0 ||
		reorder_entry_less(AT(0), reorder_queue_head(reorder, HEAD(0)->queue)));
}

void reorder_push(struct reorder *reorder, const struct reorder_entry *entry)
{
	struct vm_fifo *fifo;
	bool was_empty;

	reorder->count++;
	if (entry->queue == 0) {
		heap_push(reorder, entry);
		find_top(reorder);
		return;
	}

	fifo = queue_at(reorder, entry->queue);
	was_empty = vm_fifo_is_empty(fifo);
	if (!was_empty && reorder_entry_less(entry, vm_fifo_at(fifo, vm_fifo_length(fifo) - 1))) {
		/* Before its stream's last one: the queue would no longer be in order. */
		heap_push(reorder, entry);
		find_top(reorder);
		return;
	}

	*(struct reorder_entry *) vm_fifo_push(fifo) = *entry;
	if (was_empty) {
		heads_push(reorder, &(struct reorder_head) { entry->time, entry->queue });
		find_top(reorder);
	}
}

/* Places `entry` from the root down, the heap having `len` entries. */
static void sift_down(struct reorder *reorder, const struct reorder_entry *entry, guint len)
{
	guint i = 0;

	for (;;) {
		guint left = 2 * i + 1;
		guint smallest = left;

		if (left >= len) {
			break;
		}

		if (left + 1 < len && reorder_entry_less(AT(left + 1), AT(left))) {
			smallest = left + 1;
		}

		if (!reorder_entry_less(AT(smallest), entry)) {
			break;
		}

		*AT(i) = *AT(smallest);
		i = smallest;
	}

	*AT(i) = *entry;
}

static const bt_message *heap_pop(struct reorder *reorder)
{
	const bt_message *msg = AT(0)->msg;
	guint last = reorder->len - 1;

	if (last > 0) {
		struct reorder_entry moved = *AT(last);

		sift_down(reorder, &moved, last);
	}

	reorder->len = last;
	return msg;
}

static const bt_message *queue_pop(struct reorder *reorder)
{
	struct reorder_head head = *HEAD(0);
	struct vm_fifo *fifo = queue_at(reorder, head.queue);
	const struct reorder_entry *entry = vm_fifo_pop(fifo);
	const bt_message *msg = entry->msg;

	if (!vm_fifo_is_empty(fifo)) {
		head.time = ((const struct reorder_entry *) vm_fifo_peek(fifo))->time;
		heads_sift_down(reorder, &head);
	} else if (--reorder->heads_len > 0) {
		heads_sift_down(reorder, HEAD(reorder->heads_len));
	}

	return msg;
}

const bt_message *reorder_pop(struct reorder *reorder)
{
	const bt_message *msg = reorder->top_in_heap ? heap_pop(reorder) : queue_pop(reorder);

	reorder->count--;
	find_top(reorder);
	return msg;
}
