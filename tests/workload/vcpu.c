#include "vcpu.h"

#include "loss.h"

#include "emit.h"
#include "guest-irq.h"
#include "guest-sched.h"
#include "host-sched.h"
#include "kvm-layout.h"
#include "truth.h"
#include "vmsync.h"

uint64_t wl_vcpu_next_ns(wl_sim *sim, wl_vcpu *vcpu, wl_host_cpu *cpu)
{
	uint64_t resched = wl_host_cpu_resched_ns(cpu);

	if (vcpu->mode == MODE_GUEST) {
		uint64_t guest_next = wl_guest_next_ns(sim, vcpu);

		return MIN(MIN(vcpu->exit_ns, resched), guest_next);
	}
	/* vmsync_gh_host belongs to the exit: written before any switch. */
	if (vcpu->gh_host_pending)
		return vcpu->gh_host_due_ns;
	return MIN(vcpu->hyp_end_ns, MAX(resched, vcpu->resched_after_ns));
}

static uint32_t exit_reason_now(wl_sim *sim, wl_vcpu *vcpu, bool resched_due)
{
	uint32_t forced = vcpu->forced_reason;

	vcpu->forced_reason = 0;
	if (forced)
		return forced;
	/* The host timer or an IPI pulls the vCPU out to reschedule. */
	if (resched_due)
		return EXIT_EXTERNAL_INTERRUPT;
	return wl_exit_reason_pick(wl_rng_next(&sim->rng))->reason;
}

/* PICKED: a reason the guest caused by itself, not a forced exit. */
static void vcpu_exit(wl_sim *sim, wl_vcpu *vcpu, wl_host_cpu *cpu, uint32_t reason, bool picked)
{
	const wl_exit_reason *info = wl_exit_reason_find(reason);
	/* drawn one by one: argument evaluation order is unspecified */
	guint64 guest_rip = UINT64_C(0xffffffff81000000) | (wl_rng_next(&sim->rng) & 0xfffff0);
	unsigned info1 = (unsigned)(wl_rng_next(&sim->rng) & 0xfff);

	g_assert(info);
	bool recorded = wl_emit_kvm_exit(sim, cpu->id, vcpu, reason, guest_rip, info1);

	wl_loss_decided(sim, DECIDE_KVM_EXIT, vcpu->guest->index, cpu->id, recorded,
			vcpu->thread->tid, vcpu->id, wl_exit_code(sim->opt.isa, (int)reason));
	wl_guest_exited(sim, vcpu);
	vcpu->mode = MODE_HYPERVISOR;
	vcpu->known = true;
	vcpu->reason = (int)reason;
	vcpu->exit_open = true;
	vcpu->exit_begin_ns = sim->last_event_ns;
	vcpu->hyp_end_ns = sim->now + wl_rng_range(&sim->rng, info->min_ns, info->max_ns);
	vcpu->resched_after_ns = sim->now + wl_rng_range(&sim->rng, 300, 1200);
	vcpu->block_after_exit = wl_rng_chance(&sim->rng, info->block_permille);
	if (reason == EXIT_VMCALL)
		wl_vmsync_vmcall_exit(sim, vcpu);
	if (sim->opt.rich_guests)
		wl_girq_after_exit(sim, vcpu, reason, picked);
	wl_truth_vcpu_changed(sim, vcpu);
}

static void vcpu_enter(wl_sim *sim, wl_vcpu *vcpu, wl_host_cpu *cpu)
{
	wl_vmsync_send_reply(sim, vcpu, cpu->id);
	bool after_hlt = vcpu->reason == EXIT_HLT;

	bool recorded = wl_emit_kvm_entry(sim, cpu->id, vcpu);

	wl_loss_decided(sim, DECIDE_KVM_ENTRY, vcpu->guest->index, cpu->id, recorded,
			vcpu->thread->tid, vcpu->id, 0);
	if (vcpu->exit_open)
		wl_truth_exit_done(vcpu, vcpu->reason, sim->last_event_ns - vcpu->exit_begin_ns);
	vcpu->exit_open = false;
	vcpu->mode = MODE_GUEST;
	vcpu->known = true;
	vcpu->entered = true;
	vcpu->reason = -1;
	vcpu->halted = false;
	vcpu->exit_ns = sim->now + wl_rng_range(&sim->rng, 4000, 250000);
	if (vcpu->hg_guest_pending)
		vcpu->exit_ns = MAX(vcpu->exit_ns, vcpu->hg_guest_due_ns + 1000);
	wl_guest_entered(sim, vcpu);
	if (sim->opt.rich_guests)
		wl_girq_entered(sim, vcpu, after_hlt);
	wl_truth_vcpu_changed(sim, vcpu);
}

/* The exit is handled: back to the guest, or to sleep on the host. */
static void hypervisor_done(wl_sim *sim, wl_vcpu *vcpu, wl_host_cpu *cpu)
{
	if (vcpu->reason == EXIT_HLT && !wl_guest_needs_vcpu(vcpu)) {
		vcpu->halted = true;
		wl_host_switch(sim, cpu, PREV_SLEEPING);
	} else if (vcpu->block_after_exit) {
		vcpu->block_after_exit = false;
		vcpu->thread->wake_ns = sim->now + wl_rng_range(&sim->rng, 10000, 200000);
		wl_host_switch(sim, cpu, PREV_SLEEPING);
	} else {
		vcpu_enter(sim, vcpu, cpu);
	}
}

void wl_vcpu_step(wl_sim *sim, wl_vcpu *vcpu, wl_host_cpu *cpu)
{
	bool resched_due = wl_host_cpu_resched_ns(cpu) <= sim->now;

	if (vcpu->mode == MODE_GUEST) {
		if (resched_due || vcpu->exit_ns <= sim->now) {
			bool picked = !vcpu->forced_reason && !resched_due;

			vcpu_exit(sim, vcpu, cpu, exit_reason_now(sim, vcpu, resched_due), picked);
		}
		else
			wl_guest_step(sim, vcpu);
		return;
	}
	resched_due = resched_due && vcpu->resched_after_ns <= sim->now;
	if (vcpu->gh_host_pending) {
		wl_vmsync_receive_request(sim, vcpu, cpu->id);
	} else if (resched_due) {
		/* preempted in hypervisor mode, keeping the exit reason */
		wl_host_switch(sim, cpu, PREV_RUNNABLE);
	} else {
		hypervisor_done(sim, vcpu, cpu);
	}
}

void wl_vcpu_switched_in(wl_sim *sim, wl_vcpu *vcpu)
{
	vcpu->mode = MODE_HYPERVISOR;
	vcpu->known = true;
	vcpu->hyp_end_ns = sim->now + wl_rng_range(&sim->rng, 1000, 4000);
	wl_truth_vcpu_changed(sim, vcpu);
}

void wl_vcpu_switched_out(wl_sim *sim, wl_vcpu *vcpu, int64_t prev_state)
{
	vcpu->mode = prev_state == PREV_RUNNABLE ? MODE_PREEMPTED : MODE_BLOCKED;
	vcpu->known = true;
	wl_truth_vcpu_changed(sim, vcpu);
}

void wl_vcpu_kick(wl_sim *sim, wl_vcpu *vcpu)
{
	if (!vcpu->halted || vcpu->thread->state != RUN_BLOCKED)
		return;
	vcpu->halted = false;
	wl_host_wake(sim, vcpu->thread);
}
