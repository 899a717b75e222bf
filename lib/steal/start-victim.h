#ifndef VM_STEAL_START_VICTIM_H
#define VM_STEAL_START_VICTIM_H

/*
 * The victim of a vCPU's steal before its guest CPU's first sched_switch.
 *
 * Until then the guest's trace has not said which thread runs on that CPU;
 * its first sched_switch does, after the fact: `prev_tid` is the thread
 * that ran there since the trace began. A vCPU preempted before that
 * switch would otherwise have its rows' victim unknown, though the trace
 * names it a moment later. So the rows of a vCPU wait here until the guest
 * CPU's first switch (or a loss there, or the end, which leave them
 * unknown), then leave with that victim filled in; rows that became equal
 * by it are merged, with the next rows too, so that rows stay maximal.
 */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "steal/segments.h"

struct vm_steal_start_row {
	struct vm_steal_key key;
	int64_t begin;
	int64_t end;
};

struct vm_steal_start_victim {
	bool resolved;
	GArray *held;              /* struct vm_steal_start_row, while not resolved */
	/* What the first switch said: the victim of rows with none before `fill_until`. */
	bool fill_valid;
	int64_t fill_tid;
	const char *fill_comm;
	int64_t fill_until;
	bool carry_valid;          /* the last row, kept for merging with the next */
	struct vm_steal_start_row carry;
};

void vm_steal_start_victim_init(struct vm_steal_start_victim *sv);
void vm_steal_start_victim_fini(struct vm_steal_start_victim *sv);

/* A row that ended (from the vCPU's row segments). */
void vm_steal_start_victim_row(struct vm_steal_start_victim *sv,
		const struct vm_steal_key *key, int64_t begin, int64_t end,
		vm_steal_emit_cb emit, void *data);

/*
 * The guest CPU's first sched_switch, at `ts`: thread `tid` (0: idle) named
 * `comm` (interned) ran there since the start. Rows with an unknown victim
 * that begin before `ts` get it, held ones and those still to come (the
 * row segments keep one back); the held ones leave.
 */
void vm_steal_start_victim_resolve(struct vm_steal_start_victim *sv, int64_t tid,
		const char *comm, int64_t ts, vm_steal_emit_cb emit, void *data);

/*
 * Nothing will tell the start's victim (a loss on the guest CPU before any
 * switch there, or another change of what the CPU runs): what is held
 * leaves as it is.
 */
void vm_steal_start_victim_give_up(struct vm_steal_start_victim *sv,
		vm_steal_emit_cb emit, void *data);

/* The end of the input: everything leaves. */
void vm_steal_start_victim_end(struct vm_steal_start_victim *sv,
		vm_steal_emit_cb emit, void *data);

#endif /* VM_STEAL_START_VICTIM_H */
