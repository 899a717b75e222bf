#ifndef VM_SYNC_READ_ONCE_POLICY_H
#define VM_SYNC_READ_ONCE_POLICY_H

/*
 * The budgets of a correlation that reads its inputs once (the plugin's
 * read-once strategy): how long a machine's first formula may wait, when
 * the vCPU method is tried again, and how far the host is looked for. Pure
 * functions of what was read, so that they are tested on their own.
 *
 * Memory is counted in messages held (every machine's, and those waiting
 * for the merge: about 170 bytes each for kernel events parked as
 * records); time in each machine's own trace time read since its first
 * event.
 */

#include <stdbool.h>
#include <stdint.h>

/* Matches each way before a first formula may be fixed. */
#define VM_SYNC_FIRST_MATCHES 64
/* The first formula's line at the first message: within twice its spread at the horizon ... */
#define VM_SYNC_FIRST_WIDTH_SLACK_NS 200.0L
/*
 * ... and within 1 us in any case: the first formula maps back to the first
 * message, and matches a millisecond or more apart (TCP) leave the line of
 * the first fraction of a second wide there (up to 0.8 us off the truth).
 */
#define VM_SYNC_FIRST_WIDTH_MAX_NS 1000.0L
/* The line is taken as it is after this much trace time, settled or not. */
#define VM_SYNC_SETTLE_MAX_NS INT64_C(1000000000)
/*
 * Budgets of the wait for the first formula. Until it has a formula,
 * nothing of the machine's can be put on the reference's time: the wait
 * only ends early when memory says so.
 */
#define VM_SYNC_FIRST_WAIT_NS (INT64_C(30) * 1000000000)
#define VM_SYNC_FIRST_WAIT_MESSAGES (1 << 20)
/*
 * A machine that no message pairs with the reference yet, when a sync
 * pass can take over: how long it waits for a first match before the sync
 * pass does.
 */
#define VM_SYNC_NO_MATCH_WAIT_NS INT64_C(1000000000)
#define VM_SYNC_NO_MATCH_WAIT_MESSAGES (1 << 16)
/*
 * The vCPU method aligns a guest on what was read when its events span
 * VM_SYNC_VCPU_FIRST_TRY_NS, or when the collection has read
 * VM_SYNC_VCPU_FIRST_TRY_MESSAGES events (host and guests), and again on
 * twice as much each time it does not fit (too little activity yet). When
 * a sync pass can take over, or TCP matches are ready, they do after
 * VM_SYNC_VCPU_SEEK_BUDGET_*: the whole trace may fit where its beginning
 * does not, and a machine with TCP matches may be no guest at all.
 */
#define VM_SYNC_VCPU_FIRST_TRY_NS INT64_C(250000000)
#define VM_SYNC_VCPU_FIRST_TRY_MESSAGES (1 << 16)
#define VM_SYNC_VCPU_SEEK_BUDGET_NS (INT64_C(4) * 1000000000)
#define VM_SYNC_VCPU_SEEK_BUDGET_MESSAGES (1 << 18)
/* The maps are fixed every millisecond of the frontier. */
#define VM_SYNC_COMMIT_STEP_NS INT64_C(1000000)
/*
 * Several machines declare KVM entries: the inputs are read ahead this far
 * (trace time, or messages) to count them before the host is chosen.
 */
#define VM_SYNC_HOST_AHEAD_NS INT64_C(1000000000)
#define VM_SYNC_HOST_AHEAD_MESSAGES 65536

/*
 * Messages held in the machines' queues (those waiting for their map; the
 * merge's reorder buffer holds about as many of the other machines') that
 * a trace-time wait may cost before the event rate, not the trace time,
 * bounds it: 2 M events/s of trace time fill the default
 * 50 ms look-ahead with 100,000 messages (about 25 MiB with their records)
 * and a 64-match first wait with more. Over the budget, a machine with a
 * vmsync line from VM_SYNC_ONLINE_MIN_EACH_WAY matches each way takes its
 * first formula without waiting for VM_SYNC_FIRST_MATCHES (TCP's sparse
 * one-way matches still wait: 8 of them gave 2.6 us errors), and the maps
 * are fixed nearer the frontier (vm_sync_next_look_ahead()). Traces of
 * usual rates (0.1 M events/s) never reach it.
 */
#define VM_SYNC_HELD_BUDGET (1 << 12)

/* How long a machine has waited: its trace time read, and the messages held in all. */
struct vm_sync_wait {
	int64_t waited_ns;
	uint64_t held;
};

/* Whether the wait for a first formula is over, whatever the matches. */
bool vm_sync_first_wait_spent(const struct vm_sync_wait *wait);

/* Whether a machine with no match yet has waited long enough for a sync pass to take over. */
bool vm_sync_no_match_wait_spent(const struct vm_sync_wait *wait);

/*
 * How wide (ns) the line of the matches may be at the first message for
 * the first formula to be fixed, given its width `spread_ns` at the
 * horizon.
 */
long double vm_sync_first_width_limit(long double spread_ns);

/* Whether `held` messages are over VM_SYNC_HELD_BUDGET. */
bool vm_sync_held_over_budget(uint64_t held);

/*
 * The look-ahead for the next commit step, from the one in force (`now`),
 * the parameter (`max`) and the messages held: what is held grows with the
 * look-ahead times the event rate, so over the budget it is scaled down by
 * budget / held (back to about the budget at the next step, whatever the
 * rate; scaling the parameter itself settled at sqrt(rate x look-ahead x
 * budget)); under it, it grows back by one step per step at most (the
 * horizon stands still while the messages it will hold come in, no
 * overshoot). Between VM_SYNC_COMMIT_STEP_NS (or `max` if less) and `max`.
 */
int64_t vm_sync_next_look_ahead(int64_t now, int64_t max, uint64_t held);

/* When the vCPU method is tried next (own trace span, or events collected). */
struct vm_sync_vcpu_tries {
	int64_t next_span_ns;
	uint64_t next_notes;
};

/* The first try's thresholds. */
void vm_sync_vcpu_tries_init(struct vm_sync_vcpu_tries *tries);

/*
 * Whether the vCPU method's wait is over (a failing try then gives up):
 * its own span, the events collected (`notes`) and the messages held;
 * shorter when something else can synchronize the machine (`other`).
 */
bool vm_sync_vcpu_budget_spent(int64_t span_ns, uint64_t notes, uint64_t held, bool other);

/* Whether a try is due: the data doubled since the last one, or the budget is spent. */
bool vm_sync_vcpu_try_due(const struct vm_sync_vcpu_tries *tries, int64_t span_ns,
		uint64_t notes, bool budget_spent);

/* A try did not fit: the next one waits for twice as much. */
void vm_sync_vcpu_tries_failed(struct vm_sync_vcpu_tries *tries, int64_t span_ns,
		uint64_t notes);

/* Whether reading ahead for the host is over: `messages` read, `read_ns` of trace time. */
bool vm_sync_host_ahead_spent(uint64_t messages, int64_t read_ns);

#endif /* VM_SYNC_READ_ONCE_POLICY_H */
