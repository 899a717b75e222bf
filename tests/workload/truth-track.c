#include "truth-track.h"

void wl_truth_track_init(wl_truth_track *track)
{
	track->closed = g_array_new(FALSE, FALSE, sizeof(wl_truth_interval));
	track->is_open = false;
}

void wl_truth_track_clear(wl_truth_track *track)
{
	if (track->closed)
		g_array_unref(track->closed);
	track->closed = NULL;
	track->is_open = false;
}

bool wl_truth_value_equal(const wl_truth_value *a, const wl_truth_value *b)
{
	return a->state == b->state && a->vcpu == b->vcpu && a->reason == b->reason &&
	       a->host_tid == b->host_tid && a->pcpu == b->pcpu;
}

void wl_truth_track_set(wl_truth_track *track, uint64_t now, const wl_truth_value *value)
{
	if (track->is_open) {
		if (wl_truth_value_equal(&track->open.value, value))
			return;
		/* Every event of the run has its own nanosecond, so a change
		 * never lands on the instant the open interval began. */
		g_assert(now > track->open.begin_ns);
		track->open.end_ns = now;
		g_array_append_val(track->closed, track->open);
	}
	track->open.value = *value;
	track->open.begin_ns = now;
	track->is_open = true;
}

void wl_truth_track_finish(wl_truth_track *track, uint64_t end)
{
	if (!track->is_open)
		return;
	g_assert(end > track->open.begin_ns);
	track->open.end_ns = end;
	g_array_append_val(track->closed, track->open);
	track->is_open = false;
}
