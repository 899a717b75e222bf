#include "vmsync.h"

#include "emit.h"
#include "guest-work.h"

#define VMSYNC_FORMAT "cnt=%u vm_uid=%" G_GUINT64_FORMAT

static uint64_t next_request_ns(wl_sim *sim)
{
	uint64_t period = sim->opt.vmsync_period_ns;

	if (!period)
		return NEVER;
	return sim->now + wl_rng_range(&sim->rng, period - period / 4, period + period / 4);
}

void wl_vmsync_init(wl_sim *sim)
{
	for (guint i = 0; i < sim->guests->len; i++) {
		wl_guest *guest = g_ptr_array_index(sim->guests, i);

		guest->next_vmsync_ns = next_request_ns(sim);
	}
}

uint64_t wl_vmsync_next_ns(wl_sim *sim, wl_guest **guest)
{
	uint64_t best = NEVER;

	*guest = NULL;
	for (guint i = 0; i < sim->guests->len; i++) {
		wl_guest *candidate = g_ptr_array_index(sim->guests, i);

		if (candidate->next_vmsync_ns < best) {
			best = candidate->next_vmsync_ns;
			*guest = candidate;
		}
	}
	return best;
}

void wl_vmsync_due(wl_sim *sim, wl_guest *guest)
{
	guest->next_vmsync_ns = next_request_ns(sim);
	/* A guest that did not run since the last request has one already. */
	if (guest->vmsync_queued)
		return;
	guest->vmsync_queued = true;
	wl_work_push(sim, guest, WORK_VMSYNC, NULL, NULL);
}

bool wl_vmsync_idle(const wl_vcpu *vcpu)
{
	return !vcpu->vmsync_exit_pending && !vcpu->gh_host_pending && !vcpu->hg_host_pending &&
	       !vcpu->hg_guest_pending;
}

void wl_vmsync_send_request(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest *guest = vcpu->guest;

	guest->vmsync_queued = false;
	vcpu->vmsync_cnt = guest->vmsync_cnt;
	guest->vmsync_cnt += 2;
	wl_guest_emit(sim, vcpu, "vmsync_gh_guest", VMSYNC_FORMAT, vcpu->vmsync_cnt,
		      guest->vm_uid);
	vcpu->vmsync_gh_guest_ns = sim->last_event_ns;
	vcpu->vmsync_exit_pending = true;
	/* the hypercall follows right away */
	vcpu->forced_reason = EXIT_VMCALL;
	vcpu->exit_ns = sim->now + wl_rng_range(&sim->rng, 100, 300);
}

void wl_vmsync_vmcall_exit(wl_sim *sim, wl_vcpu *vcpu)
{
	if (!vcpu->vmsync_exit_pending)
		return;
	/* The host sees the guest's message at least one latency later,
	 * and answers once the hypercall is handled. */
	vcpu->vmsync_exit_pending = false;
	vcpu->gh_host_pending = true;
	vcpu->gh_host_due_ns = MAX(sim->now, vcpu->vmsync_gh_guest_ns + sim->opt.latency_ns);
	vcpu->hg_host_pending = true;
	vcpu->hyp_end_ns = vcpu->gh_host_due_ns + wl_rng_range(&sim->rng, 800, 3000);
}

void wl_vmsync_receive_request(wl_sim *sim, wl_vcpu *vcpu, int cpu)
{
	wl_host_emit(sim, cpu, "vmsync_gh_host", VMSYNC_FORMAT, vcpu->vmsync_cnt,
		     vcpu->guest->vm_uid);
	vcpu->gh_host_pending = false;
}

void wl_vmsync_send_reply(wl_sim *sim, wl_vcpu *vcpu, int cpu)
{
	if (!vcpu->hg_host_pending)
		return;
	wl_host_emit(sim, cpu, "vmsync_hg_host", VMSYNC_FORMAT, vcpu->vmsync_cnt + 1,
		     vcpu->guest->vm_uid);
	vcpu->hg_host_pending = false;
	vcpu->hg_guest_pending = true;
	vcpu->hg_guest_due_ns = sim->last_event_ns + sim->opt.latency_ns +
				wl_rng_range(&sim->rng, 0, sim->opt.latency_ns / 2);
}

void wl_vmsync_receive_reply(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_guest_emit(sim, vcpu, "vmsync_hg_guest", VMSYNC_FORMAT, vcpu->vmsync_cnt + 1,
		      vcpu->guest->vm_uid);
	vcpu->hg_guest_pending = false;
}
