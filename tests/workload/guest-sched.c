#include "guest-sched.h"

#include "loss.h"

#include "containers.h"
#include "emit.h"
#include "guest-irq.h"
#include "guest-syscall.h"
#include "guest-work.h"
#include "statedump.h"
#include "truth.h"
#include "vcpu.h"
#include "vmsync.h"

#define WAKE_FORMAT "comm=\"%s\" tid=%d prio=%d target_cpu=%d"

typedef enum {
	ACT_NONE,
	ACT_STATEDUMP,
	ACT_HG_GUEST,
	ACT_DELIVER_WAKE,
	ACT_WORK,
	ACT_SWITCH_FROM_IDLE,
	ACT_BURST_END,
	ACT_IRQ,
	ACT_SYSCALL,
} guest_action;

static wl_vcpu *vcpu_at(wl_guest *guest, int id)
{
	return g_ptr_array_index(guest->vcpus, id);
}

/* The earliest due guest action, by priority among equal times. */
static guest_action next_action(wl_vcpu *vcpu, bool rich, uint64_t *when)
{
	wl_guest *guest = vcpu->guest;
	guest_action best = ACT_NONE;

	*when = NEVER;
	/* Once the guest asked for an exit (HLT, VMCALL) it does nothing
	 * more until that exit. */
	if (vcpu->forced_reason)
		return ACT_NONE;
#define CONSIDER(cond, time, act) \
	do { \
		if ((cond) && (time) < *when) { \
			*when = (time); \
			best = (act); \
		} \
	} while (0)
	CONSIDER(!guest->statedump_done, 0, ACT_STATEDUMP);
	CONSIDER(vcpu->hg_guest_pending, vcpu->hg_guest_due_ns, ACT_HG_GUEST);
	/* an interrupt to handle holds everything else up */
	if (rich && wl_girq_busy(vcpu)) {
		CONSIDER(true, vcpu->irq_next_ns, ACT_IRQ);
		return best;
	}
	CONSIDER(!g_queue_is_empty(&vcpu->pending_wakes), 0, ACT_DELIVER_WAKE);
	/* a vmsync exchange uses per-vCPU state: one at a time per vCPU */
	CONSIDER(!g_queue_is_empty(&guest->work) && wl_vmsync_idle(vcpu), 0, ACT_WORK);
	CONSIDER(!vcpu->current && !g_queue_is_empty(&vcpu->runq), 0, ACT_SWITCH_FROM_IDLE);
	CONSIDER(true, vcpu->burst_end_ns, ACT_BURST_END);
	CONSIDER(rich && vcpu->current, vcpu->syscall_ns, ACT_SYSCALL);
#undef CONSIDER
	return best;
}

uint64_t wl_guest_next_ns(wl_sim *sim, wl_vcpu *vcpu)
{
	uint64_t when;

	next_action(vcpu, sim->opt.rich_guests, &when);
	return when;
}

uint64_t wl_guest_burst_ns(wl_sim *sim, const wl_guest_thread *thread)
{
	/* The idle loop runs a moment before the guest halts the vCPU. */
	if (!thread)
		return sim->opt.rich_guests ? wl_rng_range(&sim->rng, 500, 3000) :
		       wl_rng_range(&sim->rng, 1000, 3000);
	return wl_rng_range(&sim->rng, 10000, 800000);
}

static void guest_switch(wl_sim *sim, wl_vcpu *vcpu, int64_t prev_state)
{
	wl_guest_thread *prev = vcpu->current;
	wl_guest_thread *next = g_queue_pop_head(&vcpu->runq);

	wl_emit_guest_switch(sim, vcpu, prev, prev_state, next);
	vcpu->current = next;
	if (prev) {
		prev->appeared = true;
		if (prev_state == PREV_RUNNABLE) {
			prev->state = GT_RUNNABLE;
			g_queue_push_tail(&vcpu->runq, prev);
		} else {
			prev->state = prev_state == PREV_ZOMBIE ? GT_DEAD : GT_BLOCKED;
		}
		wl_truth_thread_changed(sim, vcpu->guest, prev);
	}
	if (next) {
		next->appeared = true;
		next->state = GT_ON_CPU;
		next->vcpu = vcpu->id;
		wl_truth_thread_changed(sim, vcpu->guest, next);
		if (sim->opt.rich_guests)
			wl_syscall_switched_in(sim, vcpu, next);
	}
	vcpu->burst_end_ns = sim->now + wl_guest_burst_ns(sim, next);
}

/* sched_waking then sched_wakeup, written by EMITTER, for TARGET's queue. */
static void wake_onto(wl_sim *sim, wl_vcpu *emitter, wl_guest_thread *thread, wl_vcpu *target,
		      bool new_task)
{
	const char *first_event = new_task ? "sched_wakeup_new" : "sched_waking";

	bool recorded = wl_guest_emit(sim, emitter, first_event, WAKE_FORMAT, thread->comm,
				      thread->tid, KERNEL_PRIO, target->id);

	wl_loss_decided(sim, DECIDE_GUEST_WAKE, emitter->guest->index, emitter->id, recorded,
			thread->tid, 0, 0);
	/* Runnable from the first wake-up event on. */
	thread->state = GT_RUNNABLE;
	thread->vcpu = target->id;
	thread->appeared = true;
	g_queue_push_tail(&target->runq, thread);
	wl_truth_thread_changed(sim, emitter->guest, thread);
	if (!new_task) {
		recorded = wl_guest_emit(sim, emitter, "sched_wakeup", WAKE_FORMAT, thread->comm,
					 thread->tid, KERNEL_PRIO, target->id);
		wl_loss_decided(sim, DECIDE_GUEST_WAKE, emitter->guest->index, emitter->id,
				recorded, thread->tid, 0, 0);
	}
}

static wl_guest_thread *new_thread(wl_guest *guest, const wl_guest_thread *parent)
{
	wl_guest_thread *child = g_new0(wl_guest_thread, 1);

	child->tid = guest->next_tid++;
	child->pid = child->tid;
	child->ppid = parent->pid;
	g_strlcpy(child->comm, parent->comm, sizeof(child->comm));
	child->forked = true;
	child->syscall = -1;
	child->wake_ns = NEVER;
	wl_truth_track_init(&child->track);
	wl_containers_fork(parent, child);
	g_ptr_array_add(guest->threads, child);
	guest->live_threads++;
	guest->max_forks--;
	return child;
}

static void fork_thread(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest_thread *parent = vcpu->current;
	wl_guest_thread *child = new_thread(vcpu->guest, parent);
	char vtids[16 * (MAX_NS_DEPTH + 1)];

	if (sim->opt.containers == 0) {
		wl_guest_emit(sim, vcpu, "sched_process_fork",
			      "parent_comm=\"%s\" parent_tid=%d parent_pid=%d child_comm=\"%s\" child_tid=%d child_pid=%d",
			      parent->comm, parent->tid, parent->pid, child->comm, child->tid,
			      child->pid);
	} else {
		wl_containers_vtids(child, vtids, sizeof(vtids));
		child->ns_shown = wl_guest_emit(
			sim, vcpu, "sched_process_fork",
			"parent_comm=\"%s\" parent_tid=%d parent_pid=%d parent_ns_inum=%u "
			"child_comm=\"%s\" child_tid=%d child_pid=%d vtids=[%s] child_ns_inum=%u",
			parent->comm, parent->tid, parent->pid, wl_containers_inum(parent),
			child->comm, child->tid, child->pid, vtids, wl_containers_inum(child));
	}
	wake_onto(sim, vcpu, child, vcpu, true);
	vcpu->burst_end_ns = sim->now + wl_guest_burst_ns(sim, parent);
}

/* The current thread used its CPU burst. */
static void thread_burst_end(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest_thread *thread = vcpu->current;
	wl_guest *guest = vcpu->guest;

	/* (a thread in a syscall is not in exit_group) */
	if (thread->forked && thread->syscall < 0 && wl_rng_chance(&sim->rng, 15)) {
		wl_guest_emit(sim, vcpu, "sched_process_exit", "comm=\"%s\" tid=%d prio=%d",
			      thread->comm, thread->tid, KERNEL_PRIO);
		guest->live_threads--;
		guest_switch(sim, vcpu, PREV_ZOMBIE);
	} else if (guest->live_threads < guest->max_threads && guest->max_forks > 0 &&
		   wl_rng_chance(&sim->rng, 20)) {
		fork_thread(sim, vcpu);
	} else if (wl_rng_chance(&sim->rng, 550)) {
		thread->wake_ns = sim->now + wl_rng_range(&sim->rng, 30000, 8000000);
		if (sim->opt.rich_guests)
			wl_syscall_block(sim, vcpu);
		guest_switch(sim, vcpu, PREV_SLEEPING);
	} else if (!g_queue_is_empty(&vcpu->runq)) {
		guest_switch(sim, vcpu, PREV_RUNNABLE);
	} else {
		vcpu->burst_end_ns = sim->now + wl_guest_burst_ns(sim, thread);
	}
}

static void burst_end(wl_sim *sim, wl_vcpu *vcpu)
{
	if (vcpu->current) {
		thread_burst_end(sim, vcpu);
		return;
	}
	/* Nothing to run: the idle loop halts the vCPU. */
	vcpu->forced_reason = EXIT_HLT;
	vcpu->exit_ns = sim->now;
}

void wl_guest_step(wl_sim *sim, wl_vcpu *vcpu)
{
	uint64_t when;

	switch (next_action(vcpu, sim->opt.rich_guests, &when)) {
	case ACT_STATEDUMP:
		wl_statedump_guest(sim, vcpu);
		break;
	case ACT_HG_GUEST:
		wl_vmsync_receive_reply(sim, vcpu);
		break;
	case ACT_DELIVER_WAKE:
		wake_onto(sim, vcpu, g_queue_pop_head(&vcpu->pending_wakes), vcpu, false);
		break;
	case ACT_WORK:
		wl_work_run_next(sim, vcpu);
		break;
	case ACT_SWITCH_FROM_IDLE:
		guest_switch(sim, vcpu, PREV_RUNNABLE);
		break;
	case ACT_BURST_END:
		burst_end(sim, vcpu);
		break;
	case ACT_IRQ:
		wl_girq_step(sim, vcpu);
		break;
	case ACT_SYSCALL:
		wl_syscall_step(sim, vcpu);
		break;
	case ACT_NONE:
		g_assert_not_reached();
	}
}

static bool vcpu_is_free(wl_vcpu *vcpu)
{
	return !vcpu->current && g_queue_is_empty(&vcpu->runq) &&
	       g_queue_is_empty(&vcpu->pending_wakes);
}

/* Like Linux's select_idle_sibling: the last vCPU if free, else a free one. */
static wl_vcpu *wake_target(wl_guest *guest, const wl_guest_thread *thread)
{
	guint count = guest->vcpus->len;

	for (guint i = 0; i < count; i++) {
		wl_vcpu *vcpu = vcpu_at(guest, (int)((thread->vcpu + i) % count));

		if (vcpu_is_free(vcpu))
			return vcpu;
	}
	return vcpu_at(guest, thread->vcpu);
}

static wl_vcpu *vcpu_in_guest_mode(wl_guest *guest, wl_vcpu *preferred)
{
	if (preferred->mode == MODE_GUEST)
		return preferred;
	for (guint i = 0; i < guest->vcpus->len; i++) {
		wl_vcpu *vcpu = vcpu_at(guest, (int)i);

		if (vcpu->mode == MODE_GUEST)
			return vcpu;
	}
	return NULL;
}

void wl_guest_wake(wl_sim *sim, wl_vcpu *emitter, wl_guest_thread *thread)
{
	wl_vcpu *target = wake_target(emitter->guest, thread);

	wake_onto(sim, emitter, thread, target, false);
	wl_girq_wake_ipi(sim, emitter, target);
}

void wl_guest_timer(wl_sim *sim, wl_guest *guest, wl_guest_thread *thread)
{
	if (sim->opt.rich_guests) {
		wl_girq_thread_timer(sim, guest, thread);
		return;
	}

	wl_vcpu *target = wake_target(guest, thread);
	wl_vcpu *emitter = vcpu_in_guest_mode(guest, target);

	thread->wake_ns = NEVER;
	if (emitter) {
		/* a running vCPU handles the timer and IPIs the target */
		wake_onto(sim, emitter, thread, target, false);
	} else {
		/* the timer interrupt waits for the target to run */
		thread->state = GT_WAKE_PENDING;
		thread->vcpu = target->id;
		g_queue_push_tail(&target->pending_wakes, thread);
	}
	wl_vcpu_kick(sim, target);
}

static uint64_t left_ns(const wl_sim *sim, uint64_t deadline)
{
	return deadline > sim->now ? deadline - sim->now : 0;
}

void wl_guest_entered(wl_sim *sim, wl_vcpu *vcpu)
{
	vcpu->burst_end_ns = sim->now + vcpu->burst_left_ns;
	if (sim->opt.rich_guests)
		vcpu->syscall_ns = sim->now + vcpu->syscall_left_ns;
}

void wl_guest_exited(wl_sim *sim, wl_vcpu *vcpu)
{
	vcpu->burst_left_ns = left_ns(sim, vcpu->burst_end_ns);
	if (sim->opt.rich_guests) {
		vcpu->syscall_left_ns = left_ns(sim, vcpu->syscall_ns);
		wl_girq_exited(sim, vcpu);
	}
}

bool wl_guest_needs_vcpu(const wl_vcpu *vcpu)
{
	return vcpu->current || !g_queue_is_empty((GQueue *)&vcpu->runq) ||
	       !g_queue_is_empty((GQueue *)&vcpu->pending_wakes) ||
	       !g_queue_is_empty(&vcpu->guest->work) || vcpu->hg_guest_pending ||
	       wl_girq_busy(vcpu);
}
