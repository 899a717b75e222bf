#include <glib.h>

#include "threads/thread-track.h"

static bool key_equal(const struct vm_threads_thread_key *a,
		const struct vm_threads_thread_key *b)
{
	return a->state == b->state && a->vcpu == b->vcpu && a->reason == b->reason;
}

static void emit_held(struct vm_threads_thread_track *track,
		vm_threads_track_emit_cb emit, void *data)
{
	if (!track->held_valid) {
		return;
	}
	emit(&track->held, track->held_begin, track->held_end,
		track->held_comm ? track->held_comm : "", data);
	track->held_comm = NULL;
	track->held_valid = false;
}

static void close_open(struct vm_threads_thread_track *track, int64_t ts,
		vm_threads_track_emit_cb emit, void *data)
{
	if (!track->open_valid) {
		return;
	}
	track->open_valid = false;
	if (ts <= track->open_begin) {
		/* Nothing happened in that state: forget it. */
		track->open_comm = NULL;
		return;
	}
	emit_held(track, emit, data);
	track->held_valid = true;
	track->held = track->open;
	track->held_begin = track->open_begin;
	track->held_end = ts;
	track->held_comm = track->open_comm;
	track->open_comm = NULL;
}

void vm_threads_track_set(struct vm_threads_thread_track *track, int64_t ts,
		const struct vm_threads_thread_key *key, const char *comm,
		vm_threads_track_emit_cb emit, void *data)
{
	if (track->open_valid && key_equal(&track->open, key)) {
		return;
	}
	close_open(track, ts, emit, data);
	track->open_valid = true;
	if (track->held_valid && track->held_end == ts && key_equal(&track->held, key)) {
		/* Back to the state it was in: continue that interval. */
		track->open = track->held;
		track->open_begin = track->held_begin;
		track->open_comm = track->held_comm;
		track->held_comm = NULL;
		track->held_valid = false;
		return;
	}
	track->open = *key;
	track->open_begin = ts;
	track->open_comm = comm;
}

int64_t vm_threads_track_since(const struct vm_threads_thread_track *track)
{
	return track->open_valid ? track->open_begin : INT64_MIN;
}

void vm_threads_track_end(struct vm_threads_thread_track *track, int64_t ts,
		vm_threads_track_emit_cb emit, void *data)
{
	close_open(track, ts, emit, data);
	emit_held(track, emit, data);
}
