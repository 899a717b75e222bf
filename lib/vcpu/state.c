/*
 * The vCPU state machine, run on each input as soon as it is pushed. Mode
 * changes are attached to the input that causes them and reported when that
 * input leaves the look-ahead (report.c), by then with the VM known.
 *
 * Host side, for a vCPU thread:
 *   kvm entry                          -> guest
 *   kvm exit                           -> hypervisor (keeps the exit reason)
 *   sched_switch in                    -> hypervisor
 *   sched_switch out, runnable         -> preempted
 *   sched_switch out, not runnable     -> blocked (a wakeup changes nothing)
 *   thread exit                        -> unknown (the vCPU has no thread)
 * A thread is a vCPU thread from its first kvm entry or exit on; if the
 * input that switched it in is still held then, it is `hypervisor` since
 * that switch. Guest events never change a mode: a guest's view says
 * nothing of the host.
 *
 * Lost events on a host CPU (VM_EVENT_LOSS) make the vCPU whose thread was
 * current there `unknown`, and the CPU's current thread unknown until its
 * next sched_switch; a sched_switch whose prev_tid contradicts the thread
 * believed current is trusted the same way.
 */

#include <inttypes.h>

#include "vcpu/tracker-private.h"
#include "model/int64-key.h"
#include "prev-state.h"

static struct machine_cpu *get_cpu_slow(struct vm_vcpu_tracker *tracker,
		int64_t key, int64_t cpu_id)
{
	struct machine_cpu *cpu = vm_int64_table_lookup(tracker->cpus, key);

	if (!cpu) {
		cpu = g_new0(struct machine_cpu, 1);
		cpu->key = key;
		cpu->cpu = cpu_id;
		cpu->current_tid = -1;
		cpu->parked = g_queue_new();
		vm_int64_table_insert(tracker->cpus, key, cpu);
	}
	return cpu;
}

/* Most inputs need their CPU: a direct-mapped cache answers first. */
static struct machine_cpu *get_cpu(struct vm_vcpu_tracker *tracker,
		unsigned int machine, int64_t cpu_id)
{
	int64_t key = vm_int64_pair(machine, cpu_id);
	/* The machines' CPUs apart: a few machines with CPUs from 0 each. */
	struct machine_cpu **slot = &tracker->cpu_cache[
		((uint64_t) cpu_id + machine * 17u) % CPU_CACHE_SIZE];

	if (!*slot || (*slot)->key != key) {
		*slot = get_cpu_slow(tracker, key, cpu_id);
	}
	return *slot;
}

static struct thread_cache_entry *thread_cache_slot(struct vm_vcpu_tracker *tracker,
		int64_t tid)
{
	return &tracker->thread_cache[(uint64_t) tid % THREAD_CACHE_SIZE];
}

struct vcpu_thread *vcpu_thread_find(struct vm_vcpu_tracker *tracker, int64_t tid)
{
	struct thread_cache_entry *cached = thread_cache_slot(tracker, tid);

	if (!cached->valid || cached->tid != tid) {
		cached->valid = true;
		cached->tid = tid;
		cached->thread = vm_int64_table_lookup(tracker->threads, tid);
	}
	return cached->thread;
}

static struct vcpu_thread *find_thread(struct vm_vcpu_tracker *tracker,
		int64_t tid)
{
	return vcpu_thread_find(tracker, tid);
}

static bool is_host(const struct vm_vcpu_tracker *tracker, unsigned int machine)
{
	const struct vm_model *model = tracker->model;

	return model->cls->host(model->data) == (int64_t) machine;
}

static void learn(struct vm_vcpu_tracker *tracker, const struct vm_event *event,
		int64_t tid)
{
	tracker->model->cls->learn(tracker->model->data, event, tid);
}

static void record_change(struct held_input *at, struct vcpu_thread *thread,
		bool takes_over, bool ends)
{
	struct pending_change change = {
		.tid = thread->tid,
		.vcpu_id = thread->vcpu_id,
		.mode = thread->mode,
		.pcpu = thread->pcpu,
		.exit_reason = thread->exit_reason,
		.takes_over = takes_over,
		.ends = ends,
	};

	if (thread->awaiting_vm && at->seq < thread->hold_from_seq) {
		thread->hold_from_seq = at->seq;
	}
	if (!thread->last_change || at->seq >= thread->last_change_seq) {
		thread->last_change = at;
		thread->last_change_seq = at->seq;
	}
	held_input_add_change(at, &change);
}

static void set_mode(struct held_input *at, struct vcpu_thread *thread,
		enum vm_vcpu_mode mode, int64_t pcpu, int64_t exit_reason,
		bool takes_over)
{
	if (thread->mode == mode && thread->pcpu == pcpu &&
			thread->exit_reason == exit_reason &&
			thread->recorded_vcpu_id == thread->vcpu_id) {
		return;
	}
	thread->mode = mode;
	thread->pcpu = pcpu;
	thread->exit_reason = exit_reason;
	thread->recorded_vcpu_id = thread->vcpu_id;
	record_change(at, thread, takes_over, false);
}

/* The look-ahead holds the thread's changes until its VM is known. */
static void await_vm(struct vm_vcpu_tracker *tracker, struct vcpu_thread *thread)
{
	thread->awaiting_vm = true;
	thread->awaiting_since_ts = tracker->newest_ts;
	thread->hold_from_seq = UINT64_MAX;
	vm_int64_table_insert(tracker->unmapped, thread->tid, thread);
	/* A switch-in may be this thread's: no longer a barrier. */
	switch_in_cache_invalidate(tracker);
}

static struct vcpu_thread *new_thread(struct vm_vcpu_tracker *tracker,
		int64_t tid, int64_t vcpu_id)
{
	struct vcpu_thread *thread = g_new0(struct vcpu_thread, 1);

	thread->tid = tid;
	thread->vcpu_id = vcpu_id;
	thread->first_vcpu_id = vcpu_id;
	thread->recorded_vcpu_id = -1;
	thread->mode = VM_VCPU_UNKNOWN;
	thread->pcpu = -1;
	thread->exit_reason = -1;
	vm_int64_table_insert(tracker->threads, tid, thread);
	/* The cache may hold the miss this insertion answers. */
	*thread_cache_slot(tracker, tid) = (struct thread_cache_entry) {
		.valid = true, .tid = tid, .thread = thread,
	};
	await_vm(tracker, thread);
	return thread;
}

/*
 * A thread just recognized as a vCPU thread was switched in by an input
 * still held: it has been in the hypervisor since then.
 */
static void backdate_switch_in(struct vm_vcpu_tracker *tracker,
		struct vcpu_thread *thread, const struct machine_cpu *cpu)
{
	if (!cpu->switch_in || cpu->current_tid != thread->tid ||
			!lookahead_holds(tracker, cpu->switch_in_seq)) {
		return;
	}
	set_mode(cpu->switch_in, thread, VM_VCPU_HYPERVISOR, cpu->cpu, -1, false);
}

/*
 * The vCPU thread `tid`, recognized by a kvm entry or exit: created (its
 * vCPU number may come later, with its first entry) or revived if it had
 * exited.
 */
static struct vcpu_thread *vcpu_thread_of(struct vm_vcpu_tracker *tracker,
		int64_t tid, const struct machine_cpu *cpu)
{
	struct vcpu_thread *thread = find_thread(tracker, tid);

	if (!thread) {
		thread = new_thread(tracker, tid, -1);
		backdate_switch_in(tracker, thread, cpu);
	} else if (thread->ended) {
		thread->ended = false;
		await_vm(tracker, thread);
	}
	return thread;
}

static void set_vcpu_id(struct vm_vcpu_tracker *tracker,
		const struct held_input *input, struct vcpu_thread *thread,
		int64_t vcpu_id)
{
	if (vcpu_id < 0 || vcpu_id == thread->vcpu_id) {
		return;
	}
	if (thread->vcpu_id < 0) {
		/* Its changes recorded so far are this vCPU's. */
		thread->first_vcpu_id = vcpu_id;
	} else {
		vcpu_warn(tracker, VM_VCPU_WARN_MIGRATION, input->event.machine,
			"Host thread %" PRId64 " ran vCPU %" PRId64 " and now "
			"runs vCPU %" PRId64 ": the old vCPU's mode becomes "
			"unknown and the new one is followed on this thread.",
			thread->tid, thread->vcpu_id, vcpu_id);
	}
	thread->vcpu_id = vcpu_id;
}

static void enter_guest(struct vm_vcpu_tracker *tracker,
		struct held_input *input, const struct machine_cpu *cpu,
		int64_t tid, const struct vm_model_transition *transition)
{
	struct vcpu_thread *thread = find_thread(tracker, tid);

	/*
	 * Without a vcpu_id field, the first entry of a thread says too
	 * little; with one that is no number yet (model/vcpu-numbers.h), the
	 * thread's next exit tells it.
	 */
	if (!thread && transition->fields_missing) {
		return;
	}
	thread = vcpu_thread_of(tracker, tid, cpu);
	set_vcpu_id(tracker, input, thread, transition->vcpu_id);
	set_mode(input, thread, VM_VCPU_GUEST, cpu->cpu, -1, true);
}

/*
 * Only vCPU threads exit a guest: a thread whose first kvm event is an
 * exit is one, its number known from the exit or at its next entry.
 */
static void exit_guest(struct vm_vcpu_tracker *tracker,
		struct held_input *input, const struct machine_cpu *cpu,
		int64_t tid, const struct vm_model_transition *transition)
{
	struct vcpu_thread *thread = vcpu_thread_of(tracker, tid, cpu);

	set_vcpu_id(tracker, input, thread, transition->vcpu_id);
	set_mode(input, thread, VM_VCPU_HYPERVISOR, cpu->cpu,
		transition->exit_reason, false);
}

static void warn_missing(struct vm_vcpu_tracker *tracker,
		const struct vm_event *event, const char *what)
{
	vcpu_warn(tracker, VM_VCPU_WARN_MISSING_FIELDS, event->machine,
		"Some events lack %s (first at %" PRId64 " ns): they are "
		"ignored or read as unknown, and the analysis goes on. Record "
		"the trace with an LTTng version that writes these fields.",
		what, event->ts);
}

/* What the model found odd about a vCPU thread's identity, once per machine. */
static void warn_identity(struct vm_vcpu_tracker *tracker,
		const struct vm_event *event, int64_t tid,
		const struct vm_model_transition *transition)
{
	if (transition->note == VM_MODEL_IDENTITY_ENTRY_ID_IGNORED) {
		vcpu_warn(tracker, VM_VCPU_WARN_ENTRY_ID, event->machine,
			"The kvm entries of host thread %" PRId64 " give vcpu_id %"
			PRId64 " where its kvm exits give vCPU %" PRId64 ": the "
			"entries' vcpu_id is ignored, the exits' is used. This is "
			"a defect of lttng-modules >= 2.13 on Linux >= 5.9: its "
			"kvm_x86_entry probe records the low half of the vCPU's "
			"`struct kvm_vcpu` pointer in `vcpu_id`.", tid,
			transition->note_values[0], transition->note_values[1]);
	} else if (transition->note == VM_MODEL_IDENTITY_NUMBERED_BY_ORDER) {
		vcpu_warn(tracker, VM_VCPU_WARN_NUMBERED_BY_ORDER, event->machine,
			"No event gives the vCPU number of host thread %" PRId64
			" (its kvm entries' vcpu_id, such as %" PRId64 ", is no "
			"vCPU number, its kvm exits have no vcpu_id, and its name "
			"is not QEMU's `CPU <n>/KVM`): the vCPU threads of each VM "
			"are numbered in the order they first appear, which may "
			"not be the guest's CPU numbers. Record the host's state "
			"dump (it names QEMU's vCPU threads), or use lttng-modules "
			">= 2.13 on Linux >= 5.10, whose kvm_x86_exit carries the "
			"vCPU number.", tid, transition->note_values[1]);
	}
}

/* An input whose emitting thread (`tid`) is known. */
static void process_with_thread(struct vm_vcpu_tracker *tracker,
		struct held_input *input, const struct machine_cpu *cpu,
		int64_t tid)
{
	struct vm_model *model = tracker->model;
	struct vm_model_transition transition;

	learn(tracker, &input->event, tid);
	if (tid < 0) {
		return;
	}
	model->cls->transition(model->data, &input->event, tid, &transition);
	/*
	 * Hypervisor events of another machine (nested virtualization, stray
	 * events) are not analyzed: the component that applies the host rule
	 * (model/host-rule.h) says so once, with the counts of every machine.
	 */
	if (!is_host(tracker, input->event.machine)) {
		return;
	}
	warn_identity(tracker, &input->event, tid, &transition);
	if (transition.fields_missing) {
		warn_missing(tracker, &input->event,
			transition.kind == VM_MODEL_TRANSITION_ENTER_GUEST ?
			"the vCPU number (kvm entry without vcpu_id)" :
			"the exit reason (kvm exit without exit_reason)");
	}
	if (transition.kind == VM_MODEL_TRANSITION_ENTER_GUEST) {
		enter_guest(tracker, input, cpu, tid, &transition);
	} else if (transition.kind == VM_MODEL_TRANSITION_EXIT_GUEST) {
		exit_guest(tracker, input, cpu, tid, &transition);
	}
}

static void switch_out(struct vm_vcpu_tracker *tracker, struct held_input *input,
		int64_t tid, int64_t prev_state)
{
	struct vcpu_thread *thread = find_thread(tracker, tid);
	enum vm_vcpu_mode mode;

	if (!thread || thread->ended) {
		return;
	}
	if (prev_state == VM_FIELD_MISSING) {
		mode = VM_VCPU_UNKNOWN;
	} else if (vm_prev_state_is_runnable(prev_state)) {
		mode = VM_VCPU_PREEMPTED;
	} else {
		mode = VM_VCPU_BLOCKED;
	}
	set_mode(input, thread, mode, -1, thread->exit_reason, false);
}

static void switch_in(struct vm_vcpu_tracker *tracker, struct held_input *input,
		const struct machine_cpu *cpu, int64_t tid)
{
	struct vcpu_thread *thread = find_thread(tracker, tid);

	if (!thread || thread->ended) {
		return;
	}
	set_mode(input, thread, VM_VCPU_HYPERVISOR, cpu->cpu,
		thread->exit_reason, false);
}

/*
 * A thread other than idle (tid 0), not known as a vCPU thread, switched in
 * on the host (or on a machine that may be the host): the look-ahead waits
 * a little for its first kvm entry, which would make it `hypervisor` since
 * this switch.
 */
static void watch_switch_in(struct vm_vcpu_tracker *tracker,
		struct machine_cpu *cpu, unsigned int machine)
{
	const struct vm_model *model = tracker->model;
	int64_t host = model->cls->host(model->data);
	const struct vcpu_thread *thread = find_thread(tracker, cpu->current_tid);

	if (cpu->current_tid <= 0 || (thread && !thread->ended)) {
		return;
	}
	if (host != VM_MODEL_UNKNOWN && host != (int64_t) machine) {
		return;
	}
	g_hash_table_add(tracker->recent_switch_ins, cpu);
	cpu->watched = true;
	lookahead_switch_in_watched(tracker, cpu);
}

/* The inputs parked on `cpu` now that its current thread is known. */
static void process_parked(struct vm_vcpu_tracker *tracker,
		struct machine_cpu *cpu)
{
	struct held_input *parked;

	while ((parked = g_queue_pop_head(cpu->parked))) {
		tracker->parked_count--;
		process_with_thread(tracker, parked, cpu, cpu->current_tid);
	}
}

/*
 * The vCPU of `thread`, which was on `cpu`, is no longer known to be
 * anywhere: `unknown` from `at` on, until its thread is seen again.
 */
static void lose_track(struct held_input *at, struct vcpu_thread *thread)
{
	if (!thread || thread->ended) {
		return;
	}
	set_mode(at, thread, VM_VCPU_UNKNOWN, -1, -1, false);
}

/*
 * A sched_switch whose prev_tid is not the thread believed current: events
 * were lost unnoticed, or the trace is odd. The switch is what the trace
 * says, so it is trusted: the thread believed current left the CPU at some
 * unknown time before (it is switched in right away if it is next_tid).
 */
static void contradicted(struct vm_vcpu_tracker *tracker,
		struct held_input *input, const struct machine_cpu *cpu,
		int64_t prev_tid, int64_t next_tid)
{
	unsigned int machine = input->event.machine;

	if (!is_host(tracker, machine)) {
		return;
	}
	vcpu_warn(tracker, VM_VCPU_WARN_CONTRADICTION, machine,
		"A sched_switch on CPU %" PRId64 " at %" PRId64 " ns switches "
		"out thread %" PRId64 ", but thread %" PRId64 " was believed to "
		"run there (events lost without a discarded-events record, or "
		"an odd trace): the sched_switch is trusted, and the vCPU of "
		"the thread believed current, if any, is unknown until its "
		"thread is seen again.", cpu->cpu, input->event.ts, prev_tid,
		cpu->current_tid);
	if (cpu->current_tid > 0 && cpu->current_tid != next_tid) {
		lose_track(input, find_thread(tracker, cpu->current_tid));
	}
}

/* The CPU no longer watches its switch-in (see watch_switch_in()). */
static void unwatch(struct vm_vcpu_tracker *tracker, struct machine_cpu *cpu)
{
	if (!cpu->watched) {
		return;
	}
	cpu->watched = false;
	g_hash_table_remove(tracker->recent_switch_ins, cpu);
	switch_in_cache_invalidate(tracker);
}

/*
 * Events of the CPU were lost from the gap's start (SPEC "Lost events"):
 * which thread runs there is unknown until the CPU's next sched_switch.
 * The vCPU whose thread was current becomes `unknown`. Inputs parked until
 * the CPU's first sched_switch (a gap before any switch: at the start of
 * the stream, in its first packet) stay parked: the events before the gap
 * are whole, and SPEC's trace-start rule gives them the first switch's
 * prev_tid, even when that switch comes after the gap (resolve_loss()).
 */
static void process_loss(struct vm_vcpu_tracker *tracker, struct held_input *input)
{
	const struct vm_event *event = &input->event;
	struct machine_cpu *cpu;

	if (event->cpu == VM_FIELD_MISSING) {
		warn_missing(tracker, event, "the CPU of a stream that lost events "
			"(packet context cpu_id)");
		return;
	}
	cpu = get_cpu(tracker, event->machine, event->cpu);
	if (cpu->current_known && cpu->current_tid > 0 &&
			is_host(tracker, event->machine)) {
		lose_track(input, find_thread(tracker, cpu->current_tid));
	}
	/* A second loss before the next switch: the first one's start stays. */
	if (!cpu->loss_input || !lookahead_holds(tracker, cpu->loss_seq)) {
		if (!cpu->loss_input) {
			tracker->loss_pins++;
		}
		cpu->loss_input = input;
		cpu->loss_seq = input->seq;
		cpu->loss_tid = cpu->current_known ? cpu->current_tid : -1;
	}
	cpu->current_known = false;
	cpu->lost = true;
	cpu->current_tid = -1;
	cpu->switch_in = NULL;
	unwatch(tracker, cpu);
}

void state_unpin_loss(struct vm_vcpu_tracker *tracker, struct machine_cpu *cpu)
{
	if (!cpu->loss_input) {
		return;
	}
	cpu->loss_input = NULL;
	tracker->loss_pins--;
}

/*
 * The first sched_switch after a loss: its prev_tid ran on the CPU during
 * the gap. A vCPU thread believed elsewhere (blocked, preempted, on
 * another CPU) then did what the lost events said, unseen: its vCPU is
 * unknown from the gap's start (or from its own last change, if later),
 * placed there while the look-ahead still holds the loss, else at this
 * switch. So no exit is measured across the gap either.
 */
static void resolve_loss(struct vm_vcpu_tracker *tracker, struct held_input *input,
		struct machine_cpu *cpu, int64_t prev_tid)
{
	struct held_input *at = cpu->loss_input &&
		lookahead_holds(tracker, cpu->loss_seq) ? cpu->loss_input : NULL;
	int64_t loss_tid = cpu->loss_tid;
	struct vcpu_thread *thread;
	struct held_input *parked;

	/*
	 * The inputs before the gap on a CPU that had no switch yet (the
	 * trace-start rule): prev_tid ran them. First, so that the gap's
	 * `unknown` comes after what they did.
	 */
	while ((parked = g_queue_pop_head(cpu->parked))) {
		tracker->parked_count--;
		process_with_thread(tracker, parked, cpu, prev_tid);
	}
	state_unpin_loss(tracker, cpu);
	if (prev_tid <= 0 || prev_tid == loss_tid ||
			!is_host(tracker, input->event.machine)) {
		return;
	}
	thread = find_thread(tracker, prev_tid);
	if (!thread || thread->ended) {
		return;
	}
	if (!at) {
		at = input;
	} else if (thread->last_change && thread->last_change_seq > at->seq &&
			lookahead_holds(tracker, thread->last_change_seq)) {
		at = thread->last_change;
	}
	lose_track(at, thread);
}

static void process_switch(struct vm_vcpu_tracker *tracker,
		struct held_input *input)
{
	const struct vm_event *event = &input->event;
	struct machine_cpu *cpu;
	uint64_t old_seq;

	learn(tracker, event, -1);
	if (event->cpu == VM_FIELD_MISSING ||
			event->u.sched_switch.prev_tid == VM_FIELD_MISSING ||
			event->u.sched_switch.next_tid == VM_FIELD_MISSING) {
		warn_missing(tracker, event,
			"the CPU or the thread ids of a sched_switch");
		return;
	}
	if (event->u.sched_switch.prev_state == VM_FIELD_MISSING) {
		warn_missing(tracker, event, "prev_state in sched_switch");
	}
	cpu = get_cpu(tracker, event->machine, event->cpu);
	if (cpu->lost) {
		resolve_loss(tracker, input, cpu, event->u.sched_switch.prev_tid);
	}
	if (!cpu->current_known) {
		/*
		 * The CPU ran prev_tid since the beginning of the trace, or
		 * since it lost events (then nothing is parked).
		 */
		cpu->current_known = true;
		cpu->lost = false;
		cpu->current_tid = event->u.sched_switch.prev_tid;
		process_parked(tracker, cpu);
	} else if (cpu->current_tid != event->u.sched_switch.prev_tid) {
		contradicted(tracker, input, cpu, event->u.sched_switch.prev_tid,
			event->u.sched_switch.next_tid);
	}
	if (is_host(tracker, event->machine)) {
		switch_out(tracker, input, event->u.sched_switch.prev_tid,
			event->u.sched_switch.prev_state);
		switch_in(tracker, input, cpu, event->u.sched_switch.next_tid);
	}
	old_seq = cpu->switch_in_seq;
	cpu->current_tid = event->u.sched_switch.next_tid;
	cpu->switch_in = input;
	cpu->switch_in_seq = input->seq;
	cpu->switch_in_ts = input->ts;
	/* A CPU watched already changes what it watches. */
	if (cpu->watched) {
		lookahead_switch_in_moved(tracker, cpu, old_seq);
	} else {
		watch_switch_in(tracker, cpu, event->machine);
	}
}

static void process_thread_exit(struct vm_vcpu_tracker *tracker,
		struct held_input *input)
{
	const struct vm_event *event = &input->event;
	struct vcpu_thread *thread;

	if (!is_host(tracker, event->machine)) {
		return;
	}
	thread = find_thread(tracker, event->u.exit.tid);
	if (!thread || thread->ended) {
		return;
	}
	vcpu_warn(tracker, VM_VCPU_WARN_THREAD_EXIT, event->machine,
		"vCPU thread %" PRId64 " (vCPU %" PRId64 ") exits at %" PRId64
		" ns, before the end of the trace: its vCPU's mode is unknown "
		"from then on, until a thread runs it again.",
		thread->tid, thread->vcpu_id, event->ts);
	thread->ended = true;
	thread->mode = VM_VCPU_UNKNOWN;
	thread->pcpu = -1;
	thread->exit_reason = -1;
	record_change(input, thread, false, true);
}

/* An input that needs its emitting thread: process it or park it. */
static void process_threaded(struct vm_vcpu_tracker *tracker,
		struct held_input *input)
{
	struct machine_cpu *cpu;

	if (input->event.cpu == VM_FIELD_MISSING) {
		warn_missing(tracker, &input->event, "the CPU (packet context cpu_id)");
		learn(tracker, &input->event, -1);
		return;
	}
	cpu = get_cpu(tracker, input->event.machine, input->event.cpu);
	if (cpu->lost) {
		/* Since a loss: neither attributed nor learnt from. */
		learn(tracker, &input->event, -1);
		return;
	}
	if (!cpu->current_known) {
		g_queue_push_tail(cpu->parked, input);
		tracker->parked_count++;
		return;
	}
	process_with_thread(tracker, input, cpu, cpu->current_tid);
}

void state_process(struct vm_vcpu_tracker *tracker, struct held_input *input)
{
	const struct vm_model *model = tracker->model;

	switch (input->event.kind) {
	case VM_EVENT_SCHED_SWITCH:
		process_switch(tracker, input);
		return;
	case VM_EVENT_PROCESS_EXIT:
	case VM_EVENT_PROCESS_FREE:
		learn(tracker, &input->event, -1);
		process_thread_exit(tracker, input);
		return;
	case VM_EVENT_LOSS:
		learn(tracker, &input->event, -1);
		process_loss(tracker, input);
		return;
	default:
		break;
	}
	if (model->cls->needs_thread(&input->event)) {
		process_threaded(tracker, input);
	} else {
		learn(tracker, &input->event, -1);
	}
}

void state_drop_parked(struct vm_vcpu_tracker *tracker, struct machine_cpu *cpu)
{
	struct held_input *parked;

	vcpu_warn(tracker, VM_VCPU_WARN_UNATTRIBUTED, (unsigned int) (cpu->key >> 32),
		"CPU %" PRId64 " has hypervisor events but no sched_switch "
		"telling which thread emitted them: they are not attributed "
		"to any vCPU. Record the trace with sched_switch enabled.",
		cpu->cpu);
	while ((parked = g_queue_pop_head(cpu->parked))) {
		tracker->parked_count--;
		learn(tracker, &parked->event, -1);
	}
}
