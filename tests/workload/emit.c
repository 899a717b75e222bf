#include "emit.h"

#include <stdarg.h>

#include "containers.h"
#include "kvm-layout.h"
#include "loss.h"

uint64_t wl_sim_stamp(wl_sim *sim)
{
	uint64_t t = sim->now;

	sim->now += EVENT_GAP_NS;
	sim->last_event_ns = t;
	sim->events++;
	return t;
}

bool wl_host_emit(wl_sim *sim, int cpu, const char *name, const char *fields_format, ...)
{
	va_list args;
	uint64_t t = wl_sim_stamp(sim);

	if (!wl_loss_record(sim, LOSS_HOST, cpu, t, t))
		return false;
	va_start(args, fields_format);
	wl_stub_vevent(&sim->host_stub, t, cpu, name, fields_format, args);
	va_end(args);
	return true;
}

bool wl_guest_emit(wl_sim *sim, wl_vcpu *vcpu, const char *name, const char *fields_format, ...)
{
	va_list args;
	wl_guest *guest = vcpu->guest;

	/* The guest cannot trace anything while it does not run. */
	g_assert(vcpu->mode == MODE_GUEST);
	uint64_t t = wl_sim_stamp(sim);
	uint64_t machine_ns = wl_clock_read(&guest->clock, t);

	if (!wl_loss_record(sim, guest->index, vcpu->id, t, machine_ns))
		return false;
	/* the pid_ns context of the thread current there (--pid-ns-context) */
	guest->stub.pid_ns = wl_containers_inum(vcpu->current);
	va_start(args, fields_format);
	wl_stub_vevent(&guest->stub, machine_ns, vcpu->id, name, fields_format, args);
	va_end(args);
	return true;
}

bool wl_host_emit_next(wl_sim *sim, int cpu, const char *name, const char *fields_format, ...)
{
	va_list args;
	uint64_t t = sim->last_event_ns + 1;

	g_assert(sim->now > t);
	if (!wl_loss_record_next(sim, LOSS_HOST, cpu, t, t))
		return false;
	va_start(args, fields_format);
	wl_stub_vevent(&sim->host_stub, t, cpu, name, fields_format, args);
	va_end(args);
	return true;
}

bool wl_guest_emit_next(wl_sim *sim, wl_vcpu *vcpu, const char *name,
			const char *fields_format, ...)
{
	va_list args;
	wl_guest *guest = vcpu->guest;
	uint64_t t = sim->last_event_ns + 1;

	g_assert(vcpu->mode == MODE_GUEST && sim->now > t);
	uint64_t machine_ns = wl_clock_read(&guest->clock, t);

	if (!wl_loss_record_next(sim, guest->index, vcpu->id, t, machine_ns))
		return false;
	/* the pid_ns context of the thread current there (--pid-ns-context) */
	guest->stub.pid_ns = wl_containers_inum(vcpu->current);
	va_start(args, fields_format);
	wl_stub_vevent(&guest->stub, machine_ns, vcpu->id, name, fields_format, args);
	va_end(args);
	return true;
}

#define SWITCH_FORMAT "prev_comm=\"%s\" prev_tid=%d prev_prio=%d prev_state=%" G_GINT64_FORMAT \
		      " next_comm=\"%s\" next_tid=%d next_prio=%d"

bool wl_emit_host_switch(wl_sim *sim, int cpu, const wl_host_thread *prev, int64_t prev_state,
			 const wl_host_thread *next)
{
	bool recorded = wl_host_emit(sim, cpu, "sched_switch", SWITCH_FORMAT, prev->comm,
				     prev->tid, KERNEL_PRIO, prev_state, next->comm, next->tid,
				     KERNEL_PRIO);

	wl_loss_decided(sim, DECIDE_HOST_SWITCH, LOSS_HOST, cpu, recorded, prev->tid, next->tid, 0);
	return recorded;
}

bool wl_emit_guest_switch(wl_sim *sim, wl_vcpu *vcpu, const wl_guest_thread *prev,
			  int64_t prev_state, const wl_guest_thread *next)
{
	char idle[COMM_SIZE];

	/* NULL is the vCPU's idle task. */
	g_snprintf(idle, sizeof(idle), "swapper/%d", vcpu->id);
	bool recorded = wl_guest_emit(sim, vcpu, "sched_switch", SWITCH_FORMAT,
				      prev ? prev->comm : idle, prev ? prev->tid : 0, KERNEL_PRIO,
				      prev_state, next ? next->comm : idle, next ? next->tid : 0,
				      KERNEL_PRIO);

	wl_loss_decided(sim, DECIDE_GUEST_SWITCH, vcpu->guest->index, vcpu->id, recorded,
			prev ? prev->tid : 0, next ? next->tid : 0, 0);
	if (vcpu->guest->kvm_entries_left > 0) {
		/* A nested VM's vCPU 0 enters guest mode: the guest's own business. */
		vcpu->guest->kvm_entries_left--;
		wl_emit_nested_kvm_entry(sim, vcpu);
	}
	return recorded;
}
