/*
 * Reorder buffer: a binary min-heap of entries in a GArray. See reorder.h.
 */

#include <string.h>

#include "correlate/reorder.h"

struct reorder *reorder_create(void)
{
	struct reorder *reorder = g_new0(struct reorder, 1);

	reorder->heap = g_array_sized_new(FALSE, FALSE, sizeof(struct reorder_entry), 256);
	return reorder;
}

void reorder_clear(struct reorder *reorder)
{
	guint i;

	for (i = 0; i < reorder->len; i++) {
		bt_message_put_ref(g_array_index(reorder->heap, struct reorder_entry, i).msg);
	}

	reorder->len = 0;
}

void reorder_destroy(struct reorder *reorder)
{
	if (!reorder) {
		return;
	}

	reorder_clear(reorder);
	g_array_free(reorder->heap, TRUE);
	g_free(reorder);
}

static bool entry_less(const struct reorder_entry *a, const struct reorder_entry *b)
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

#define AT(i) (&g_array_index(reorder->heap, struct reorder_entry, (i)))

/*
 * Sifts move a hole instead of swapping entries: each step copies one entry,
 * and the heap ends up exactly as with swaps.
 */
void reorder_push(struct reorder *reorder, const struct reorder_entry *entry)
{
	guint i = reorder->len++;

	if (reorder->len > reorder->heap->len) {
		g_array_set_size(reorder->heap, reorder->len);
	}

	while (i > 0) {
		guint parent = (i - 1) / 2;

		if (!entry_less(entry, AT(parent))) {
			break;
		}

		*AT(i) = *AT(parent);
		i = parent;
	}

	*AT(i) = *entry;
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

		if (left + 1 < len && entry_less(AT(left + 1), AT(left))) {
			smallest = left + 1;
		}

		if (!entry_less(AT(smallest), entry)) {
			break;
		}

		*AT(i) = *AT(smallest);
		i = smallest;
	}

	*AT(i) = *entry;
}

const bt_message *reorder_pop(struct reorder *reorder)
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
