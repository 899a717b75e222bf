#ifndef VM_CORRELATE_READ_ONCE_PRIVATE_H
#define VM_CORRELATE_READ_ONCE_PRIVATE_H

/*
 * Read once (read-once.c): what the strategy keeps per machine, its
 * budgets, and the functions its files share (read-once-decide.c: which
 * map and when; read-once-advice.c: what it tells the user).
 */

#include "correlate/context.h"
#include "sync/online.h"
#include "util/fifo.h"

#define FIRST_MATCHES 64
/* The first formula's line at the first message: within twice its spread at the horizon. */
#define FIRST_WIDTH_SLACK_NS 200.0L
/*
 * ... and within 1 us in any case: the first formula maps back to the first
 * message, and matches a millisecond or more apart (TCP) leave the line of
 * the first fraction of a second wide there (up to 0.8 us off the truth).
 */
#define FIRST_WIDTH_MAX_NS 1000.0L
#define SETTLE_MAX_NS INT64_C(1000000000)
/*
 * Budgets of the wait for the first formula: held messages (all machines,
 * the reorder buffer's too: memory, about 170 bytes each for kernel
 * events parked as records) and trace time since the machine's first
 * event. Until it has a formula, nothing of the machine's can be put on
 * the reference's time: the wait only ends early when memory says so.
 */
#define FIRST_WAIT_NS (INT64_C(30) * 1000000000)
#define FIRST_WAIT_MESSAGES (1 << 20)
/*
 * A machine that no message pairs with the reference yet, when the sync
 * pass can take over (read_once_sync_pass_may_pair()): how long it waits for a first
 * match before the sync pass does.
 */
#define NO_MATCH_WAIT_NS INT64_C(1000000000)
#define NO_MATCH_WAIT_MESSAGES (1 << 16)
/*
 * The vCPU method (vcpu-onepass.c) aligns a guest on what was read when its
 * events span VCPU_FIRST_TRY_NS, or when the collection has read
 * VCPU_FIRST_TRY_MESSAGES events (host and guests), and again on twice as
 * much each time it does not fit (too little activity yet). When the sync
 * pass can take over, or TCP matches are ready, they do after
 * VCPU_SEEK_BUDGET_*: the whole trace may fit where its beginning does not,
 * and a machine with TCP matches may be no guest at all.
 */
#define VCPU_FIRST_TRY_NS INT64_C(250000000)
#define VCPU_FIRST_TRY_MESSAGES (1 << 16)
#define VCPU_SEEK_BUDGET_NS (INT64_C(4) * 1000000000)
#define VCPU_SEEK_BUDGET_MESSAGES (1 << 18)
/* The maps are fixed every millisecond of the frontier. */
#define COMMIT_STEP_NS INT64_C(1000000)

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
	int64_t next_try_span;
	uint64_t next_try_notes;
	bool vcpu_tried;
	bool vcpu_given_up;
	struct vm_vcpu_fit vcpu_fit;
};

/* What read once keeps besides its machines. */
struct read_once {
	int64_t frontier;   /* every upstream was read up to it (own clocks) */
	int64_t step;       /* the last commit step reached */
};

static inline struct vm_fifo *held_queue(const struct read_once_machine *op, guint upstream)
{
	return &g_array_index(op->held, struct vm_fifo, upstream);
}

/* read-once-decide.c */
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
