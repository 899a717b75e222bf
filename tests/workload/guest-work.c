#include "guest-work.h"

#include "guest-irq.h"
#include "vcpu.h"
#include "vmsync.h"

static bool guest_runs(const wl_guest *guest)
{
	for (guint i = 0; i < guest->vcpus->len; i++)
		if (((const wl_vcpu *)g_ptr_array_index(guest->vcpus, i))->mode == MODE_GUEST)
			return true;
	return false;
}

static void kick_halted_vcpu(wl_sim *sim, wl_guest *guest)
{
	for (guint i = 0; i < guest->vcpus->len; i++) {
		wl_vcpu *vcpu = g_ptr_array_index(guest->vcpus, i);

		if (vcpu->halted) {
			/* rich: the device's interrupt is what wakes it */
			if (sim->opt.rich_guests)
				wl_girq_device(sim, vcpu);
			else
				wl_vcpu_kick(sim, vcpu);
			return;
		}
	}
}

void wl_work_push(wl_sim *sim, wl_guest *guest, wl_work_kind kind, wl_flow *flow,
		  wl_message *message)
{
	wl_work *work = g_new0(wl_work, 1);

	work->kind = kind;
	work->flow = flow;
	work->message = message;
	g_queue_push_tail(&guest->work, work);
	if (!guest_runs(guest))
		kick_halted_vcpu(sim, guest);
}

void wl_work_run_next(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_work *work = g_queue_pop_head(&vcpu->guest->work);

	switch (work->kind) {
	case WORK_VMSYNC:
		wl_vmsync_send_request(sim, vcpu);
		break;
	case WORK_TCP_SEND:
		wl_tcp_send(sim, work->flow, vcpu);
		break;
	case WORK_TCP_RECV:
		wl_tcp_receive(sim, work->message, vcpu);
		break;
	}
	g_free(work);
}

void wl_work_free(gpointer data)
{
	wl_work *work = data;

	g_free(work->message);
	g_free(work);
}
