/* The budgets of reading once (read-once-policy.h). */

#include "sync/read-once-policy.h"

bool vm_sync_first_wait_spent(const struct vm_sync_wait *wait)
{
	return wait->waited_ns >= VM_SYNC_FIRST_WAIT_NS ||
		wait->held >= VM_SYNC_FIRST_WAIT_MESSAGES;
}

bool vm_sync_no_match_wait_spent(const struct vm_sync_wait *wait)
{
	return wait->waited_ns >= VM_SYNC_NO_MATCH_WAIT_NS ||
		wait->held >= VM_SYNC_NO_MATCH_WAIT_MESSAGES;
}

bool vm_sync_held_over_budget(uint64_t held)
{
	return held > VM_SYNC_HELD_BUDGET;
}

int64_t vm_sync_next_look_ahead(int64_t now, int64_t max, uint64_t held)
{
	int64_t floor = max < VM_SYNC_COMMIT_STEP_NS ? max : VM_SYNC_COMMIT_STEP_NS;
	int64_t next;

	if (vm_sync_held_over_budget(held)) {
		next = (int64_t) ((long double) now * VM_SYNC_HELD_BUDGET / (long double) held);
	} else {
		next = now > max - VM_SYNC_COMMIT_STEP_NS ? max : now + VM_SYNC_COMMIT_STEP_NS;
	}

	return next < floor ? floor : next > max ? max : next;
}

long double vm_sync_first_width_limit(long double spread_ns)
{
	long double limit = 2 * spread_ns + VM_SYNC_FIRST_WIDTH_SLACK_NS;

	return limit > VM_SYNC_FIRST_WIDTH_MAX_NS ? VM_SYNC_FIRST_WIDTH_MAX_NS : limit;
}

void vm_sync_vcpu_tries_init(struct vm_sync_vcpu_tries *tries)
{
	tries->next_span_ns = VM_SYNC_VCPU_FIRST_TRY_NS;
	tries->next_notes = VM_SYNC_VCPU_FIRST_TRY_MESSAGES;
}

bool vm_sync_vcpu_budget_spent(int64_t span_ns, uint64_t notes, uint64_t held, bool other)
{
	/* The memory budget of a first formula holds in any case. */
	return span_ns >= (other ? VM_SYNC_VCPU_SEEK_BUDGET_NS : VM_SYNC_FIRST_WAIT_NS) ||
		(other && notes >= VM_SYNC_VCPU_SEEK_BUDGET_MESSAGES) ||
		held >= VM_SYNC_FIRST_WAIT_MESSAGES;
}

bool vm_sync_vcpu_try_due(const struct vm_sync_vcpu_tries *tries, int64_t span_ns,
		uint64_t notes, bool budget_spent)
{
	return budget_spent || span_ns >= tries->next_span_ns || notes >= tries->next_notes;
}

void vm_sync_vcpu_tries_failed(struct vm_sync_vcpu_tries *tries, int64_t span_ns,
		uint64_t notes)
{
	/* Twice what the failed try saw, and never less than the first try's. */
	tries->next_span_ns = span_ns > VM_SYNC_VCPU_FIRST_TRY_NS / 2 ? span_ns * 2 :
		VM_SYNC_VCPU_FIRST_TRY_NS;
	tries->next_notes = notes > VM_SYNC_VCPU_FIRST_TRY_MESSAGES / 2 ? notes * 2 :
		VM_SYNC_VCPU_FIRST_TRY_MESSAGES;
}

bool vm_sync_host_ahead_spent(uint64_t messages, int64_t read_ns)
{
	return messages >= VM_SYNC_HOST_AHEAD_MESSAGES || read_ns >= VM_SYNC_HOST_AHEAD_NS;
}
