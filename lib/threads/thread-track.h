#ifndef VM_THREADS_THREAD_TRACK_H
#define VM_THREADS_THREAD_TRACK_H

/*
 * The intervals of one thread as they happen: the open one and the last
 * ended one. The ended one is kept back one step so that intervals with the
 * same (state, vcpu, reason) on both sides of a zero-length one (several
 * events at one timestamp) come out as one interval.
 */

#include <stdbool.h>
#include <stdint.h>

#include "threads/thread-state.h"

struct vm_threads_thread_key {
	enum vm_thread_state state;
	int64_t vcpu;   /* -1 when not on a vCPU */
	int64_t reason; /* -1 unless hypervisor with a known exit */
	int isa;        /* of `reason`; follows it, so not part of the identity */
};

struct vm_threads_thread_track {
	bool open_valid;
	struct vm_threads_thread_key open;
	int64_t open_begin;
	const char *open_comm;  /* not owned: see vm_threads_track_set() */

	bool held_valid;
	struct vm_threads_thread_key held;
	int64_t held_begin;
	int64_t held_end;
	const char *held_comm;
};

/* An interval that ended and will not change any more. */
typedef void (*vm_threads_track_emit_cb)(const struct vm_threads_thread_key *key,
		int64_t begin, int64_t end, const char *comm, void *data);

/*
 * The thread is in `key` from `ts` on; `comm` is its name at `ts`. The track
 * keeps the pointer, not a copy: `comm` must live as long as the track (an
 * interned name).
 */
void vm_threads_track_set(struct vm_threads_thread_track *track, int64_t ts,
		const struct vm_threads_thread_key *key, const char *comm,
		vm_threads_track_emit_cb emit, void *data);

/*
 * When the open interval began (INT64_MIN when there is none): a change
 * dated earlier than that (a loss located late) can only start here, since
 * what came before has been decided already.
 */
int64_t vm_threads_track_since(const struct vm_threads_thread_track *track);

/* The thread's history ends at `ts`: emits what is left and empties the track. */
void vm_threads_track_end(struct vm_threads_thread_track *track, int64_t ts,
		vm_threads_track_emit_cb emit, void *data);

#endif /* VM_THREADS_THREAD_TRACK_H */
