#ifndef VM_VCPU_TRACKER_PRIVATE_H
#define VM_VCPU_TRACKER_PRIVATE_H

/* Internals shared by the files of lib/vcpu/. */

#include <glib.h>

#include "util/fifo.h"
#include "util/warn-once.h"
#include "vcpu/tracker.h"
#include "model/machine-set.h"

/* A mode change computed at input time, reported when its input leaves. */
struct pending_change {
	int64_t tid;
	int64_t vcpu_id;     /* -1: the thread's first_vcpu_id, known later */
	enum vm_vcpu_mode mode;
	int64_t pcpu;
	int64_t exit_reason;
	/* The thread runs this vCPU's guest code: it owns the vCPU now. */
	bool takes_over;
	/* The thread is gone: the vCPU has no owner any more. */
	bool ends;
};

/* Changes an input holds without allocating: inputs cause 0 to 2 of them. */
#define INLINE_CHANGES 2

/* One input held by the look-ahead. */
struct held_input {
	uint64_t seq;
	int64_t ts;
	void *cookie;
	bool has_event;
	/* A copy: its strings are blanked, the tracker never reads them. */
	struct vm_event event;
	/*
	 * Its changes, in the order they happened: the first INLINE_CHANGES
	 * here, the next ones in `more_changes` (NULL until needed).
	 */
	unsigned int change_count;
	struct pending_change changes[INLINE_CHANGES];
	GArray *more_changes;
	/* In the tracker's list of spare inputs: the next one. */
	struct held_input *next_spare;
};

static inline const struct pending_change *held_input_change(
		const struct held_input *input, unsigned int i)
{
	if (i < INLINE_CHANGES) {
		return &input->changes[i];
	}
	return &g_array_index(input->more_changes, struct pending_change,
		i - INLINE_CHANGES);
}

static inline void held_input_add_change(struct held_input *input,
		const struct pending_change *change)
{
	if (input->change_count < INLINE_CHANGES) {
		input->changes[input->change_count++] = *change;
		return;
	}
	if (!input->more_changes) {
		input->more_changes = g_array_new(FALSE, FALSE,
			sizeof(struct pending_change));
	}
	g_array_append_val(input->more_changes, *change);
	input->change_count++;
}

/* A CPU of a machine, as far as its current thread goes. */
struct machine_cpu {
	int64_t key;              /* vm_int64_pair(machine, cpu) */
	int64_t cpu;
	bool current_known;       /* false until the CPU's first sched_switch */
	/*
	 * The current thread is unknown since events of the CPU were lost:
	 * unlike at the start, the next sched_switch's prev_tid says nothing
	 * of the events before it, which are therefore not parked for it.
	 */
	bool lost;
	/*
	 * The loss that made the current thread unknown (valid while
	 * lookahead_holds(loss_seq)): the look-ahead keeps it until the CPU's
	 * next sched_switch, whose prev_tid ran there during the gap and so
	 * is unknown since the gap's start. loss_tid is the thread current at
	 * the loss (made unknown then), -1 if none was known.
	 */
	struct held_input *loss_input;
	uint64_t loss_seq;
	int64_t loss_tid;
	int64_t current_tid;
	/*
	 * The input that switched current_tid in, NULL if none; the pointer is
	 * valid only while lookahead_holds(switch_in_seq).
	 */
	struct held_input *switch_in;
	uint64_t switch_in_seq;
	int64_t switch_in_ts;
	/* In the tracker's recent_switch_ins. */
	bool watched;
	/*
	 * Inputs that need the current thread while it is not known yet:
	 * before the CPU's first sched_switch, whose prev_tid they get (also
	 * when a loss comes in between: they precede its gap).
	 */
	GQueue *parked;
};

/* A host thread that runs (or ran) a vCPU. */
struct vcpu_thread {
	int64_t tid;
	/* -1 until the thread's first kvm entry tells it. */
	int64_t vcpu_id;
	/* The first vCPU number known: that of the changes recorded before. */
	int64_t first_vcpu_id;
	enum vm_vcpu_mode mode;
	int64_t pcpu;
	int64_t exit_reason;
	bool ended;
	/* vcpu_id of the last recorded change. */
	int64_t recorded_vcpu_id;
	/* The input of its last recorded change (valid while held), its seq. */
	struct held_input *last_change;
	uint64_t last_change_seq;
	/*
	 * While the thread's VM is not known: the look-ahead holds the input
	 * of its oldest change (seq) and everything after it.
	 */
	bool awaiting_vm;
	uint64_t hold_from_seq;
	int64_t awaiting_since_ts;

	/* Release side: the identity this thread last reported. */
	bool reported;
	unsigned int reported_vm;
	int64_t reported_vcpu_id;
	enum vm_vcpu_mode reported_mode;
};

/* The look-ahead queue (a vm_fifo of struct held_input *), typed. */
static inline size_t held_ring_length(const struct vm_fifo *held)
{
	return vm_fifo_length(held);
}

/* The oldest input, or NULL. */
static inline struct held_input *held_ring_peek(const struct vm_fifo *held)
{
	struct held_input **oldest = vm_fifo_peek(held);

	return oldest ? *oldest : NULL;
}

/* Removes and returns the oldest input, or NULL. */
static inline struct held_input *held_ring_pop(struct vm_fifo *held)
{
	struct held_input **oldest = vm_fifo_pop(held);

	return oldest ? *oldest : NULL;
}

static inline void held_ring_push(struct vm_fifo *held, struct held_input *input)
{
	*(struct held_input **) vm_fifo_push(held) = input;
}

/* See vm_vcpu_tracker.switch_in_cache. */
struct switch_in_cache {
	bool valid;
	uint64_t barrier;
	int64_t host;          /* the host when computed */
	bool has_oldest;       /* some switch-in is left */
	int64_t oldest_ts;     /* the oldest switch_in_ts left */
};

/* Slots of the tracker's thread lookup cache. */
#define THREAD_CACHE_SIZE 256

struct thread_cache_entry {
	bool valid;
	int64_t tid;
	struct vcpu_thread *thread;  /* NULL: not a vCPU thread */
};

/* Slots of the tracker's CPU lookup cache. */
#define CPU_CACHE_SIZE 64

/* Slots of the tracker's vCPU owner cache. */
#define OWNER_CACHE_SIZE 64

struct owner_cache_entry {
	bool valid;
	int64_t key;    /* vm_int64_pair(vm, vcpu_id) */
	int64_t owner;  /* -1: none */
};

struct vm_vcpu_tracker {
	struct vm_model *model;
	struct vm_vcpu_limits limits;
	struct vm_vcpu_callbacks callbacks;
	void *user;

	/* oldest first */
	struct vm_fifo held;  /* struct held_input * */
	uint64_t next_seq;
	int64_t newest_ts;

	/* vm_int64_pair(machine, cpu) -> struct machine_cpu (never removed) */
	GHashTable *cpus;
	/* Answers of `cpus` by key modulo the size (NULL: empty slot). */
	struct machine_cpu *cpu_cache[CPU_CACHE_SIZE];
	uint64_t parked_count;
	/* CPUs whose loss_input the look-ahead keeps. */
	uint64_t loss_pins;

	/* host tid -> struct vcpu_thread (never removed) */
	GHashTable *threads;
	/*
	 * Answers of `threads` by tid modulo the size, misses included: most
	 * threads looked up are not vCPU threads. Kept exact by new_thread().
	 */
	struct thread_cache_entry thread_cache[THREAD_CACHE_SIZE];
	/*
	 * vCPU threads whose VM is not known yet, or only guessed:
	 * tid -> struct vcpu_thread
	 */
	GHashTable *unmapped;
	/*
	 * Set of struct machine_cpu whose current thread was switched in by a
	 * held input and may still turn out to be a vCPU thread.
	 */
	GHashTable *recent_switch_ins;
	/*
	 * The last answer of switch_in_barrier() (lookahead.c), valid while
	 * nothing it depends on changed: it is recomputed after a switch, a
	 * vCPU thread created or revived, the host becoming known, a give-up,
	 * or once the oldest switch-in left may have outlived its grace.
	 */
	struct switch_in_cache switch_in_cache;
	/* vm_int64_pair(vm, vcpu_id) -> gint64 tid of the thread that runs it */
	GHashTable *owners;
	/*
	 * Answers of `owners` by key modulo the size, misses included; kept
	 * exact by the only writers, in report.c.
	 */
	struct owner_cache_entry owner_cache[OWNER_CACHE_SIZE];

	/* Machines seen. */
	struct vm_machine_set machines;
	bool no_host_reported;
	/* vm_int64_pair(kind, machine) set of the warnings given. */
	struct vm_warn_once *warned;
	/*
	 * Released inputs kept for reuse, linked by next_spare: as many as the
	 * look-ahead ever held at once. Its length swings by hundreds of
	 * inputs (a switch-in's grace holds everything after it, then all
	 * leave together): a pool of 64 freed the excess only to allocate it
	 * again, a malloc and a free per input in the steady state.
	 */
	struct held_input *spare;
};

/* Something switch_in_barrier() (lookahead.c) depends on changed. */
static inline void switch_in_cache_invalidate(struct vm_vcpu_tracker *tracker)
{
	tracker->switch_in_cache.valid = false;
}

/* warn.c */
/* The machine's name for a message (g_free() it). */
char *vcpu_machine_name(const struct vm_vcpu_tracker *tracker,
		unsigned int machine);
void vcpu_warn(struct vm_vcpu_tracker *tracker, enum vm_vcpu_warning kind,
		unsigned int machine, const char *format, ...) G_GNUC_PRINTF(4, 5);
/* Whether that warning was given already (a costly message need not be made). */
bool vcpu_warned(const struct vm_vcpu_tracker *tracker, enum vm_vcpu_warning kind,
		unsigned int machine);

/* lookahead.c */
void lookahead_release_ready(struct vm_vcpu_tracker *tracker, bool everything);
bool lookahead_holds(const struct vm_vcpu_tracker *tracker, uint64_t seq);
/* `cpu` was just added to recent_switch_ins, not being in it before. */
void lookahead_switch_in_watched(struct vm_vcpu_tracker *tracker,
		const struct machine_cpu *cpu);
/*
 * A switch on `cpu`, in recent_switch_ins, replaced its switch-in
 * (`old_seq`) with the newest input.
 */
void lookahead_switch_in_moved(struct vm_vcpu_tracker *tracker,
		struct machine_cpu *cpu, uint64_t old_seq);
void held_input_free(struct held_input *input);
/* An input without event nor change, reused if one is spare. */
struct held_input *held_input_new(struct vm_vcpu_tracker *tracker);
/* Frees `input`, or keeps it for held_input_new(). */
void held_input_release(struct vm_vcpu_tracker *tracker, struct held_input *input);

/* state.c */
/* The vCPU thread of host thread `tid`, or NULL. */
struct vcpu_thread *vcpu_thread_find(struct vm_vcpu_tracker *tracker, int64_t tid);
void state_process(struct vm_vcpu_tracker *tracker, struct held_input *input);
/* Processes the inputs parked on `cpu` without knowing their thread. */
void state_drop_parked(struct vm_vcpu_tracker *tracker, struct machine_cpu *cpu);
/* The look-ahead no longer keeps the loss of `cpu`. */
void state_unpin_loss(struct vm_vcpu_tracker *tracker, struct machine_cpu *cpu);

/* report.c */
void report_change(struct vm_vcpu_tracker *tracker, int64_t ts,
		const struct pending_change *change);

#endif /* VM_VCPU_TRACKER_PRIVATE_H */
