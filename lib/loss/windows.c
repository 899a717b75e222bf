/*
 * Loss windows: see windows.h.
 *
 * The windows are kept merged and sorted at every addition, so that
 * queries need no copy: they come mostly in time order (each at the end,
 * found by one comparison), so an addition costs little.
 */

#include <glib.h>

#include "loss/windows.h"
#include "util/time-span.h"

struct window {
	int64_t begin;
	int64_t end;
};

struct vm_loss_windows {
	GArray *merged;   /* struct window, disjoint, by begin */
};

static struct window *at(const struct vm_loss_windows *windows, guint i)
{
	return &g_array_index(windows->merged, struct window, i);
}

struct vm_loss_windows *vm_loss_windows_create(void)
{
	struct vm_loss_windows *windows = g_new0(struct vm_loss_windows, 1);

	windows->merged = g_array_new(FALSE, FALSE, sizeof(struct window));
	return windows;
}

void vm_loss_windows_destroy(struct vm_loss_windows *windows)
{
	if (!windows) {
		return;
	}
	g_array_free(windows->merged, TRUE);
	g_free(windows);
}

/* The number of windows whose begin is <= `t`. */
static guint count_beginning_by(const struct vm_loss_windows *windows, int64_t t)
{
	guint low = 0, high = windows->merged->len;

	/* Mostly added in order: past the last one. */
	if (high == 0 || at(windows, high - 1)->begin <= t) {
		return high;
	}
	while (low < high) {
		guint mid = low + (high - low) / 2;

		if (at(windows, mid)->begin <= t) {
			low = mid + 1;
		} else {
			high = mid;
		}
	}
	return low;
}

void vm_loss_windows_add(struct vm_loss_windows *windows, int64_t begin, int64_t end)
{
	struct window added = { MIN(begin, end), MAX(begin, end) };
	guint index = count_beginning_by(windows, added.begin);
	guint last;

	/* Joined with the one before when they meet. */
	if (index > 0 && at(windows, index - 1)->end >= added.begin) {
		index--;
		added.begin = at(windows, index)->begin;
		added.end = MAX(added.end, at(windows, index)->end);
	} else {
		g_array_insert_val(windows->merged, index, added);
	}
	/* ... and with those after that it reaches. */
	last = index + 1;
	while (last < windows->merged->len && at(windows, last)->begin <= added.end) {
		added.end = MAX(added.end, at(windows, last)->end);
		last++;
	}
	*at(windows, index) = added;
	if (last > index + 1) {
		g_array_remove_range(windows->merged, index + 1, last - index - 1);
	}
}

void vm_loss_windows_add_all(struct vm_loss_windows *windows,
		const struct vm_loss_windows *from)
{
	for (guint i = 0; i < from->merged->len; i++) {
		vm_loss_windows_add(windows, at(from, i)->begin, at(from, i)->end);
	}
}

bool vm_loss_windows_overlap(const struct vm_loss_windows *windows, int64_t low,
		int64_t high)
{
	guint index = count_beginning_by(windows, high);

	/* The last window that begins by `high` is the only one that may reach `low`. */
	return index > 0 && at(windows, index - 1)->end >= low;
}

bool vm_loss_windows_near(const struct vm_loss_windows *windows, int64_t t,
		int64_t margin)
{
	return vm_loss_windows_overlap(windows, vm_time_sum(t, -margin), vm_time_sum(t, margin));
}

void vm_loss_windows_drop_before(struct vm_loss_windows *windows, int64_t t)
{
	guint gone = 0;

	while (gone < windows->merged->len && at(windows, gone)->end < t) {
		gone++;
	}
	if (gone > 0) {
		g_array_remove_range(windows->merged, 0, gone);
	}
}

unsigned int vm_loss_windows_count(const struct vm_loss_windows *windows)
{
	return windows->merged->len;
}

int64_t vm_loss_windows_total_ns(const struct vm_loss_windows *windows)
{
	int64_t total = 0;

	for (guint i = 0; i < windows->merged->len; i++) {
		total = vm_time_sum(total, vm_time_span(at(windows, i)->end, at(windows, i)->begin));
	}
	return total;
}

void vm_loss_windows_at(const struct vm_loss_windows *windows, unsigned int i,
		int64_t *begin, int64_t *end)
{
	*begin = at(windows, i)->begin;
	*end = at(windows, i)->end;
}
