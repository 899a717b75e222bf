/*
 * The bounded look-ahead. Each awaited answer pins the oldest input it
 * governs: an input parked until its CPU's thread is known, a loss until
 * its CPU's next sched_switch tells who ran there during the gap, the first
 * change of a vCPU thread whose VM (or number) is not known, the switch-in
 * of a thread that may still turn out to be a vCPU thread. Inputs older
 * than every pin leave the queue; the others stay unless the queue spans
 * more trace time or more inputs than the limits allow: then the tracker
 * stops waiting for what it misses, says so once if it matters, and goes on.
 */

#include <inttypes.h>

#include "vcpu/tracker-private.h"
#include "util/time-span.h"
#include "model/int64-key.h"

void held_input_free(struct held_input *input)
{
	if (input->more_changes) {
		g_array_free(input->more_changes, TRUE);
	}
	g_free(input);
}

struct held_input *held_input_new(struct vm_vcpu_tracker *tracker)
{
	struct held_input *input;

	if (!tracker->spare) {
		return g_new0(struct held_input, 1);
	}
	/*
	 * Not zeroed whole: the event and the changes are a few hundred bytes
	 * that only has_event and change_count make readable.
	 */
	input = tracker->spare;
	tracker->spare = input->next_spare;
	input->seq = 0;
	input->ts = 0;
	input->cookie = NULL;
	input->has_event = false;
	input->event.kind = VM_EVENT_OTHER;
	input->change_count = 0;
	return input;
}

void held_input_release(struct vm_vcpu_tracker *tracker, struct held_input *input)
{
	/* Rare (more than INLINE_CHANGES changes): the extra array goes. */
	if (input->more_changes) {
		g_array_free(input->more_changes, TRUE);
		input->more_changes = NULL;
	}
	input->next_spare = tracker->spare;
	tracker->spare = input;
}

bool lookahead_holds(const struct vm_vcpu_tracker *tracker, uint64_t seq)
{
	const struct held_input *head = held_ring_peek(&tracker->held);

	return head && seq >= head->seq;
}

static bool host_known(const struct vm_vcpu_tracker *tracker)
{
	const struct vm_model *model = tracker->model;

	return model->cls->host(model->data) != VM_MODEL_UNKNOWN;
}

static uint64_t min_seq(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * The oldest input a vCPU thread still waiting for its VM needs held;
 * forgets the threads whose VM became known (a guess once no later input
 * contradicted it for a while).
 */
static uint64_t unmapped_barrier(struct vm_vcpu_tracker *tracker)
{
	const struct vm_model *model = tracker->model;
	uint64_t barrier = UINT64_MAX;
	GHashTableIter iter;
	gpointer value;

	/* The usual case, once the vCPU threads are known: nothing to do. */
	if (g_hash_table_size(tracker->unmapped) == 0) {
		return barrier;
	}
	g_hash_table_iter_init(&iter, tracker->unmapped);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct vcpu_thread *thread = value;
		bool tentative;
		bool known = model->cls->vm_of_thread(model->data, thread->tid,
			&tentative) != VM_MODEL_UNKNOWN;
		bool guess_checked = vm_time_span_exceeds(tracker->newest_ts,
			thread->awaiting_since_ts, tracker->limits.tentative_ns);

		if (thread->ended || (known && thread->vcpu_id >= 0 &&
				(!tentative || guess_checked))) {
			thread->awaiting_vm = false;
			g_hash_table_iter_remove(&iter);
			continue;
		}
		barrier = min_seq(barrier, thread->hold_from_seq);
	}
	return barrier;
}

/*
 * The oldest switch-in that may still turn out to be a vCPU thread's;
 * forgets those that can no longer: released, now a vCPU thread's (already
 * accounted), not on the host, or older than the grace period.
 */
static uint64_t compute_switch_in_barrier(struct vm_vcpu_tracker *tracker,
		int64_t host)
{
	struct switch_in_cache *cache = &tracker->switch_in_cache;
	uint64_t barrier = UINT64_MAX;
	GHashTableIter iter;
	gpointer key;

	cache->has_oldest = false;
	if (g_hash_table_size(tracker->recent_switch_ins) == 0) {
		return barrier;
	}
	g_hash_table_iter_init(&iter, tracker->recent_switch_ins);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		struct machine_cpu *cpu = key;
		const struct vcpu_thread *thread;

		/* The cheap tests first: the thread lookup is the costly one. */
		if (!lookahead_holds(tracker, cpu->switch_in_seq) ||
				(host != VM_MODEL_UNKNOWN && host != cpu->key >> 32) ||
				vm_time_span_exceeds(tracker->newest_ts, cpu->switch_in_ts,
					tracker->limits.switch_in_grace_ns)) {
			cpu->watched = false;
			g_hash_table_iter_remove(&iter);
			continue;
		}
		thread = vcpu_thread_find(tracker, cpu->current_tid);
		if (thread && !thread->ended) {
			cpu->watched = false;
			g_hash_table_iter_remove(&iter);
			continue;
		}
		barrier = min_seq(barrier, cpu->switch_in_seq);
		if (!cache->has_oldest || cpu->switch_in_ts < cache->oldest_ts) {
			cache->oldest_ts = cpu->switch_in_ts;
		}
		cache->has_oldest = true;
	}
	return barrier;
}

/*
 * compute_switch_in_barrier(), called only when its answer may differ from
 * the last one: it runs after every input, and most inputs change nothing
 * it reads. What it reads changes only by a switch on a CPU watched or to
 * be (its switch-in and current thread), a vCPU thread created or
 * revived, the host becoming known, a give-up, or time passing the grace
 * of the oldest switch-in left (callers invalidate the cache, or fold a
 * new switch-in into it, for the first ones). Its other test, that a
 * switch-in is still held, changes only for switch-ins older than the
 * barrier, which only a give-up (or a flush) releases.
 */
static uint64_t switch_in_barrier(struct vm_vcpu_tracker *tracker)
{
	struct switch_in_cache *cache = &tracker->switch_in_cache;
	const struct vm_model *model = tracker->model;
	int64_t host = model->cls->host(model->data);

	if (cache->valid && cache->host == host && (!cache->has_oldest ||
			!vm_time_span_exceeds(tracker->newest_ts, cache->oldest_ts,
				tracker->limits.switch_in_grace_ns))) {
		return cache->barrier;
	}
	cache->barrier = compute_switch_in_barrier(tracker, host);
	cache->host = host;
	cache->valid = true;
	return cache->barrier;
}

void lookahead_switch_in_watched(struct vm_vcpu_tracker *tracker,
		const struct machine_cpu *cpu)
{
	struct switch_in_cache *cache = &tracker->switch_in_cache;

	/*
	 * The newest input, held, on a machine that may be the host, neither
	 * expired nor a vCPU thread's (watch_switch_in() checked): it would
	 * pass every test of compute_switch_in_barrier(), and it changes no
	 * other entry's.
	 */
	if (!cache->valid) {
		return;
	}
	cache->barrier = min_seq(cache->barrier, cpu->switch_in_seq);
	if (!cache->has_oldest || cpu->switch_in_ts < cache->oldest_ts) {
		cache->oldest_ts = cpu->switch_in_ts;
	}
	cache->has_oldest = true;
}

void lookahead_switch_in_moved(struct vm_vcpu_tracker *tracker,
		struct machine_cpu *cpu, uint64_t old_seq)
{
	struct switch_in_cache *cache = &tracker->switch_in_cache;
	const struct vm_model *model = tracker->model;
	int64_t host = model->cls->host(model->data);
	const struct vcpu_thread *thread;

	/* Its old switch-in may have been the barrier: look for the next. */
	if (!cache->valid || old_seq <= cache->barrier) {
		switch_in_cache_invalidate(tracker);
		return;
	}
	/*
	 * Its switch-in is now the newest input: held, not expired, above the
	 * barrier, and no older than the oldest switch-in left (input times
	 * never go back). The barrier and the oldest time stay; the entry
	 * stays only if it passes compute_switch_in_barrier()'s other tests,
	 * which are applied now as they would be after this input.
	 */
	thread = vcpu_thread_find(tracker, cpu->current_tid);
	if ((host != VM_MODEL_UNKNOWN && host != cpu->key >> 32) ||
			(thread && !thread->ended)) {
		cpu->watched = false;
		g_hash_table_remove(tracker->recent_switch_ins, cpu);
	}
}

/* The oldest input parked until its CPU's thread is known. */
static uint64_t parked_barrier(struct vm_vcpu_tracker *tracker)
{
	uint64_t barrier = UINT64_MAX;
	GHashTableIter iter;
	gpointer value;

	if (tracker->parked_count == 0) {
		return barrier;
	}
	g_hash_table_iter_init(&iter, tracker->cpus);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct machine_cpu *cpu = value;
		const struct held_input *oldest = g_queue_peek_head(cpu->parked);

		if (oldest) {
			barrier = min_seq(barrier, oldest->seq);
		}
	}
	return barrier;
}

/* The oldest loss kept until its CPU's next sched_switch. */
static uint64_t loss_barrier(struct vm_vcpu_tracker *tracker)
{
	uint64_t barrier = UINT64_MAX;
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, tracker->cpus);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct machine_cpu *cpu = value;

		if (cpu->loss_input) {
			barrier = min_seq(barrier, cpu->loss_seq);
		}
	}
	return barrier;
}

/*
 * Inputs older than the barrier can leave: nothing that may still be
 * learnt changes what is reported with them.
 */
static uint64_t hold_barrier(struct vm_vcpu_tracker *tracker)
{
	/* The other two are usually empty: skip their calls then. */
	uint64_t barrier = switch_in_barrier(tracker);

	if (tracker->parked_count > 0) {
		barrier = min_seq(barrier, parked_barrier(tracker));
	}
	if (g_hash_table_size(tracker->unmapped) > 0) {
		barrier = min_seq(barrier, unmapped_barrier(tracker));
	}
	if (tracker->loss_pins > 0) {
		barrier = min_seq(barrier, loss_barrier(tracker));
	}
	return barrier;
}

static bool limit_exceeded(const struct vm_vcpu_tracker *tracker)
{
	const struct held_input *head = held_ring_peek(&tracker->held);

	if (held_ring_length(&tracker->held) > tracker->limits.max_events) {
		return true;
	}
	return head->ts != INT64_MIN &&
		vm_time_span_exceeds(tracker->newest_ts, head->ts,
			tracker->limits.window_ns);
}

/*
 * No host: said once, at the end of the input, the only time it is certain
 * (a host's kvm events can start at any time, e.g. when its first guest
 * starts). Nothing is held for it: a vCPU thread's first events are caught
 * by the switch-in grace and the other holds.
 */
static void report_no_host(struct vm_vcpu_tracker *tracker)
{
	GHashTableIter iter;
	gpointer key;

	if (tracker->no_host_reported || host_known(tracker)) {
		return;
	}
	tracker->no_host_reported = true;
	g_hash_table_iter_init(&iter, tracker->machines.table);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		vcpu_warn(tracker, VM_VCPU_WARN_NO_HOST, GPOINTER_TO_UINT(key),
			"No host found in the whole input: no machine has the hypervisor events "
			"that model `%s` recognizes, so no vCPU mode is computed. "
			"If this machine is a guest, give the host's trace too, "
			"recorded with the hypervisor's events enabled (for KVM "
			"kvm_x86_entry and kvm_x86_exit; see doc/tracing.md, "
			"installed in " VM_DOC_DIR "; `lttng list -k | grep "
			"kvm_x86` shows whether the tracer has them).",
			tracker->model->cls->name);
	}
}

static void give_up_parked(struct vm_vcpu_tracker *tracker)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, tracker->cpus);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct machine_cpu *cpu = value;

		if (!g_queue_is_empty(cpu->parked)) {
			state_drop_parked(tracker, cpu);
		}
	}
}

/* vCPU threads with no VM at all (a guess is not worth a warning). */
static unsigned int count_without_vm(struct vm_vcpu_tracker *tracker)
{
	const struct vm_model *model = tracker->model;
	GHashTableIter iter;
	gpointer value;
	unsigned int count = 0;

	g_hash_table_iter_init(&iter, tracker->unmapped);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct vcpu_thread *thread = value;
		bool tentative;

		if (model->cls->vm_of_thread(model->data, thread->tid,
				&tentative) == VM_MODEL_UNKNOWN) {
			count++;
		}
	}
	return count;
}

static void give_up_unmapped(struct vm_vcpu_tracker *tracker)
{
	const struct vm_model *model = tracker->model;
	int64_t host = model->cls->host(model->data);
	unsigned int without_vm = count_without_vm(tracker);
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, tracker->unmapped);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		((struct vcpu_thread *) value)->awaiting_vm = false;
	}
	g_hash_table_remove_all(tracker->unmapped);
	if (without_vm == 0) {
		return;
	}
	vcpu_warn(tracker, VM_VCPU_WARN_LOOKAHEAD_LIMIT, (unsigned int) host,
		"Stopped waiting for the VM of %u vCPU thread(s) after %" PRId64
		" ns or %" PRIu64 " events of look-ahead; their modes are "
		"reported once their VM is known. If no guest trace reports "
		"vmsync events, map guests to QEMU processes with parameter "
		"`vm-pids`.", without_vm, tracker->limits.window_ns,
		tracker->limits.max_events);
}

static void forget_switch_ins(struct vm_vcpu_tracker *tracker)
{
	GHashTableIter iter;
	gpointer key;

	g_hash_table_iter_init(&iter, tracker->recent_switch_ins);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		((struct machine_cpu *) key)->watched = false;
	}
	g_hash_table_remove_all(tracker->recent_switch_ins);
	switch_in_cache_invalidate(tracker);
}

/* Losses whose CPU has no sched_switch yet: their switch will not reach back. */
static void give_up_losses(struct vm_vcpu_tracker *tracker)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, tracker->cpus);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		state_unpin_loss(tracker, value);
	}
}

static void give_up(struct vm_vcpu_tracker *tracker)
{
	if (tracker->loss_pins > 0) {
		give_up_losses(tracker);
	}
	if (tracker->parked_count > 0) {
		give_up_parked(tracker);
	}
	give_up_unmapped(tracker);
	forget_switch_ins(tracker);
}

static void release_head(struct vm_vcpu_tracker *tracker)
{
	struct held_input *input = held_ring_pop(&tracker->held);
	unsigned int i;

	tracker->callbacks.release(tracker->user, input->cookie);
	for (i = 0; i < input->change_count; i++) {
		report_change(tracker, input->ts, held_input_change(input, i));
	}
	held_input_release(tracker, input);
}

void lookahead_release_ready(struct vm_vcpu_tracker *tracker, bool everything)
{
	uint64_t barrier;

	if (everything) {
		report_no_host(tracker);
		give_up_parked(tracker);
		if (tracker->loss_pins > 0) {
			give_up_losses(tracker);
		}
		/* Releases switch-ins younger than the barrier. */
		switch_in_cache_invalidate(tracker);
	}
	barrier = everything ? UINT64_MAX : hold_barrier(tracker);
	while (held_ring_length(&tracker->held) > 0) {
		const struct held_input *head = held_ring_peek(&tracker->held);

		if (head->seq >= barrier) {
			if (!limit_exceeded(tracker)) {
				break;
			}
			/* Past the limits, stop waiting for what is missing. */
			give_up(tracker);
			barrier = hold_barrier(tracker);
			if (head->seq >= barrier) {
				barrier = head->seq + 1;
			}
		}
		release_head(tracker);
	}
}
