#ifndef VM_STEAL_SEGMENTS_H
#define VM_STEAL_SEGMENTS_H

/*
 * The steal rows of one vCPU as they happen: the open one and the last
 * ended one, kept back one step so that rows with the same victim and
 * culprit on both sides of a zero-length one (several events at one
 * timestamp) come out as one row: rows are maximal intervals.
 */

#include <stdbool.h>
#include <stdint.h>

/* What makes a row: equal keys merge. Strings are interned (compared by address). */
struct vm_steal_key {
	int64_t victim_tid;       /* -1: not known; 0: the guest was idle */
	const char *victim_comm;  /* "" when not known */
	int64_t pcpu;             /* the waiting CPU, -1 when not known */
	int64_t culprit_tid;      /* -1: not known; 0: idle */
	const char *culprit_comm; /* "" for idle and unknown */
};

/* Whether two rows' keys are the same (interned strings by address). */
bool vm_steal_key_equal(const struct vm_steal_key *a, const struct vm_steal_key *b);

struct vm_steal_segments {
	bool open_valid;
	struct vm_steal_key open;
	int64_t open_begin;

	bool held_valid;
	struct vm_steal_key held;
	int64_t held_begin;
	int64_t held_end;
};

/* A row that ended and will not change any more. */
typedef void (*vm_steal_emit_cb)(const struct vm_steal_key *key, int64_t begin,
		int64_t end, void *data);

/*
 * From `ts` on, the vCPU is preempted with `key`, or is not (`key` NULL).
 * A `ts` before the open row's begin (a loss located late) counts from
 * that begin: what came before was decided already.
 */
void vm_steal_segments_set(struct vm_steal_segments *s, int64_t ts,
		const struct vm_steal_key *key, vm_steal_emit_cb emit, void *data);

/* The end of the input: emits what is left. */
void vm_steal_segments_end(struct vm_steal_segments *s, int64_t ts,
		vm_steal_emit_cb emit, void *data);

#endif /* VM_STEAL_SEGMENTS_H */
