#include "truth.h"

#include "steal-record.h"

static wl_mode truth_mode(const wl_vcpu *vcpu)
{
	/* The analysis knows nothing of a vCPU before the first host event
	 * of its thread. */
	return vcpu->known ? vcpu->mode : MODE_UNKNOWN;
}

static bool on_host_cpu(wl_mode mode)
{
	return mode == MODE_GUEST || mode == MODE_HYPERVISOR;
}

void wl_truth_vcpu_changed(wl_sim *sim, wl_vcpu *vcpu)
{
	wl_mode mode = truth_mode(vcpu);

	if (mode != MODE_UNKNOWN) {
		wl_truth_value value = {
			.state = (int32_t)mode,
			.vcpu = vcpu->id,
			.reason = mode == MODE_HYPERVISOR ? wl_exit_code(sim->opt.isa, vcpu->reason) : -1,
			.host_tid = vcpu->thread->tid,
			.pcpu = on_host_cpu(mode) ? vcpu->thread->cpu : -1,
		};
		wl_truth_track_set(&vcpu->track, sim->last_event_ns, &value);
	}
	wl_steal_vcpu_update(sim, vcpu);
	if (vcpu->current)
		wl_truth_thread_changed(sim, vcpu->guest, vcpu->current);
}

static wl_thread_state on_vcpu_state(wl_mode mode)
{
	switch (mode) {
	case MODE_HYPERVISOR:
		return TS_HYPERVISOR;
	case MODE_PREEMPTED:
		return TS_PREEMPTED;
	case MODE_BLOCKED:
		return TS_VCPU_BLOCKED;
	case MODE_GUEST:
	case MODE_UNKNOWN:
		break;
	}
	return TS_RUNNING;
}

void wl_truth_thread_changed(wl_sim *sim, wl_guest *guest, wl_guest_thread *thread)
{
	if (!thread->appeared)
		return;

	wl_truth_value value = { .vcpu = -1, .reason = -1, .host_tid = -1, .pcpu = -1 };

	switch (thread->state) {
	case GT_ON_CPU: {
		const wl_vcpu *vcpu = g_ptr_array_index(guest->vcpus, thread->vcpu);
		wl_mode mode = truth_mode(vcpu);

		value.state = (int32_t)on_vcpu_state(mode);
		value.vcpu = vcpu->id;
		/* as the tracer writes it (--isa) */
		value.reason = mode == MODE_HYPERVISOR ? wl_exit_code(sim->opt.isa, vcpu->reason) : -1;
		break;
	}
	case GT_RUNNABLE:
		value.state = TS_RUNNABLE;
		break;
	case GT_BLOCKED:
	case GT_WAKE_PENDING: /* the wake-up is not traced yet */
	case GT_DEAD:
		value.state = TS_BLOCKED;
		break;
	}
	wl_truth_track_set(&thread->track, sim->last_event_ns, &value);
}

void wl_truth_exit_done(wl_vcpu *vcpu, int reason, uint64_t duration_ns)
{
	g_assert(reason >= 0 && reason < EXIT_REASON_LIMIT);
	wl_exit_stat *stat = &vcpu->exits[reason];

	if (stat->count == 0 || duration_ns < stat->min_ns)
		stat->min_ns = duration_ns;
	if (duration_ns > stat->max_ns)
		stat->max_ns = duration_ns;
	stat->count++;
	stat->total_ns += duration_ns;
}

bool wl_truth_vcpu_identified(const wl_vcpu *vcpu)
{
	return vcpu->entered;
}

static wl_truth_value seen_value(const wl_guest *guest, wl_truth_value value)
{
	if (value.vcpu >= 0 &&
	    !wl_truth_vcpu_identified(g_ptr_array_index(guest->vcpus, value.vcpu))) {
		value.state = TS_RUNNING;
		value.reason = -1;
	}
	return value;
}

GArray *wl_truth_thread_intervals(const wl_guest *guest, const wl_guest_thread *thread)
{
	GArray *closed = thread->track.closed;
	GArray *result = g_array_sized_new(FALSE, FALSE, sizeof(wl_truth_interval), closed->len);

	for (guint i = 0; i < closed->len; i++) {
		wl_truth_interval interval = g_array_index(closed, wl_truth_interval, i);

		interval.value = seen_value(guest, interval.value);
		if (result->len > 0) {
			wl_truth_interval *last =
				&g_array_index(result, wl_truth_interval, result->len - 1);

			if (wl_truth_value_equal(&last->value, &interval.value)) {
				last->end_ns = interval.end_ns;
				continue;
			}
		}
		g_array_append_val(result, interval);
	}
	return result;
}
