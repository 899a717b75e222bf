#ifndef VM_CORRELATE_READ_ONCE_PRIVATE_H
#define VM_CORRELATE_READ_ONCE_PRIVATE_H

/*
 * Read once (read-once.c): what the strategy keeps per machine, its
 * budgets, and the functions its files share (read-once-decide.c: which
 * map and when; read-once-advice.c: what it tells the user).
 */

#include "correlate/context.h"
#include "sync/online.h"
#include "sync/read-once-policy.h"
#include "util/fifo.h"

/* A message held until its machine's map is fixed at its own time. */
struct held_message {
	int64_t time;              /* own clock (its stream's last time if it has none) */
	const bt_message *msg;     /* owned reference; NULL for a parked event */
	struct mirror_parked *parked; /* an event, as a record (owned) */
	struct msg_time msg_time;  /* as read: the message is not touched again until it leaves */
};

struct read_once_machine {
	struct machine *machine;
	struct vm_sync_online *online;   /* the map it follows; NULL: none (yet) */
	bool decided;                    /* its first formula is set */
	GArray *held;                    /* struct vm_fifo of held_message, per upstream */
	guint held_count;
	bool has_read;
	int64_t first_read;              /* own times of its timed messages read */
	int64_t last_read;
	bool has_event;
	int64_t first_event;             /* own time of its first event read */
	unsigned int announced;          /* segments told as vm:sync events */
	/* The vCPU method: when to try next, and how the last try went. */
	struct vm_sync_vcpu_tries vcpu_tries;
	bool vcpu_tried;
	bool vcpu_given_up;
	struct vm_vcpu_fit vcpu_fit;
};

/* What read once keeps besides its machines. */
struct read_once {
	GPtrArray *machines;  /* struct read_once_machine *, by name: the order they are decided in */
	int64_t frontier;   /* every upstream was read up to it (own clocks) */
	int64_t step;       /* the last commit step reached */
	int64_t look_ahead; /* in force: look-ahead-ns, or less over the held budget */
};

static inline struct vm_fifo *held_queue(const struct read_once_machine *op, guint upstream)
{
	return &g_array_index(op->held, struct vm_fifo, upstream);
}

/* read-once-floor.c: strategy.h's floor and held_floor. */
int64_t read_once_floor(struct correlate_iter *iter, guint index);
bool read_once_held_floor(struct correlate_iter *iter, int64_t *floor);

/* read-once-decide.c */
/* Messages waiting in the machines' queues, before `cutoff` (own time). */
guint read_once_held_before(const struct correlate_iter *iter, int64_t cutoff);
bool read_once_waits_for_vcpu(struct correlate_iter *iter, const struct read_once_machine *op);
bool read_once_sync_pass_may_pair(struct correlate_iter *iter,
		const struct read_once_machine *op);
bool read_once_first_formula_due(struct correlate_iter *iter, struct read_once_machine *op,
		int64_t frontier);
int64_t read_once_own_horizon(const struct correlate_iter *iter,
		const struct read_once_machine *op, const struct vm_sync_online *online,
		int64_t frontier);
/* The first formula at `frontier`; false with an error cause. */
bool read_once_decide(struct correlate_iter *iter, struct read_once_machine *op,
		int64_t frontier);
/* Up to where the machine's map is fixed (INT64_MIN before its first formula). */
int64_t read_once_horizon(const struct read_once_machine *op);

/* read-once-advice.c */
const char *read_once_trace_without_sync(struct correlate_iter *iter,
		const struct read_once_machine *op);
void read_once_warn_unsynchronized(struct correlate_iter *iter,
		const struct read_once_machine *op);
void read_once_fail_after_cut(struct correlate_iter *iter, const struct read_once_machine *op);
void read_once_log_fall_back(struct correlate_iter *iter, const struct read_once_machine *op);

#endif /* VM_CORRELATE_READ_ONCE_PRIVATE_H */
